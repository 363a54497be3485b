//! The docs cannot drift from the binary: every ```console block in README.md,
//! ARCHITECTURE.md, CONTRIBUTING.md, CHANGELOG.md and docs/*.md runs through
//! trycmd against the real `seekclaw` (`$ seekclaw …` lines, then the output
//! they must print; `...` and `[..]` match what varies), and every relative
//! link in those files must name a file that exists and, with `#anchor`, a
//! heading of it.
//!
//! Each page runs in a fresh temp directory of its own: the page's commands
//! share one project directory (the current directory, `[CWD]` in outputs) and
//! one home (`SEEKCLAW_HOME`, `[SEEKCLAW_HOME]` in outputs), in the order the
//! page shows them. Nothing reaches a model: the pages show offline commands.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use pulldown_cmark::{Event, Parser, Tag, TagEnd};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every Markdown page the docs consist of.
fn pages() -> Vec<PathBuf> {
    let root = repo();
    let mut pages: Vec<PathBuf> = [
        "README.md",
        "ARCHITECTURE.md",
        "CONTRIBUTING.md",
        "CHANGELOG.md",
    ]
    .iter()
    .map(|p| root.join(p))
    .collect();
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    pages.extend(docs);
    pages
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The `$ seekclaw …` commands a page's console blocks run.
fn console_commands(text: &str) -> usize {
    let mut in_console = false;
    let mut count = 0;
    for line in text.lines() {
        let fence = line.trim_start();
        if fence.starts_with("```") {
            in_console = !in_console && fence.trim_start_matches('`').starts_with("console");
            continue;
        }
        if in_console && line.starts_with("$ seekclaw") {
            count += 1;
        }
    }
    count
}

#[test]
fn the_docs_commands_print_what_the_docs_show() {
    let mut total = 0;
    let mut failed = Vec::new();
    for page in pages() {
        let text = read(&page);
        let commands = console_commands(&text);
        if commands == 0 {
            continue;
        }
        total += commands;
        let stem = page.file_stem().unwrap().to_string_lossy().into_owned();
        let dir = tempfile::tempdir().unwrap();
        let case = dir.path().join(format!("{stem}.md"));
        std::fs::write(&case, &text).unwrap();
        // `<page>.in/` is trycmd's working directory for `<page>.md`: the project.
        let project = dir.path().join(format!("{stem}.in"));
        let home = dir.path().join("seekclaw-home");
        let user_home = dir.path().join("user");
        for d in [&project, &home, &user_home] {
            std::fs::create_dir_all(d).unwrap();
        }
        let cases = trycmd::TestCases::new();
        cases
            .register_bin("seekclaw", PathBuf::from(env!("CARGO_BIN_EXE_seekclaw")))
            .env("SEEKCLAW_HOME", home.to_string_lossy())
            .env("HOME", user_home.to_string_lossy())
            .env("NO_COLOR", "1")
            .insert_var("[SEEKCLAW_HOME]", home.to_string_lossy().into_owned())
            .unwrap()
            .case(&case);
        eprintln!("{}: {commands} commands", page.display());
        // Every page runs even when one fails; trycmd prints each difference.
        let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| cases.run()));
        if ran.is_err() {
            failed.push(page.display().to_string());
        }
    }
    assert!(
        failed.is_empty(),
        "pages whose commands print otherwise: {failed:?}"
    );
    assert!(total >= 20, "only {total} commands are tested");
}

/// GitHub's anchor for a heading: lower case, punctuation dropped, spaces to
/// dashes; repeats get `-1`, `-2`, ….
fn slug(heading: &str, seen: &mut HashSet<String>) -> String {
    let base: String = heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect();
    let mut slug = base.clone();
    let mut n = 0;
    while !seen.insert(slug.clone()) {
        n += 1;
        slug = format!("{base}-{n}");
    }
    slug
}

/// The anchors of a page's headings.
fn anchors(text: &str) -> HashSet<String> {
    let mut seen = HashSet::new();
    let mut heading: Option<String> = None;
    for event in Parser::new(text) {
        match event {
            Event::Start(Tag::Heading { .. }) => heading = Some(String::new()),
            Event::Text(t) | Event::Code(t) => {
                if let Some(h) = heading.as_mut() {
                    h.push_str(&t);
                }
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some(h) = heading.take() {
                    slug(&h, &mut seen);
                }
            }
            _ => {}
        }
    }
    seen
}

/// The link and image targets of a page.
fn links(text: &str) -> Vec<String> {
    Parser::new(text)
        .filter_map(|event| match event {
            Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) => {
                Some(dest_url.to_string())
            }
            _ => None,
        })
        .collect()
}

/// What is wrong with each relative link of `page` (empty: all resolve).
fn broken_links(page: &Path, text: &str) -> Vec<String> {
    let mut broken = Vec::new();
    for link in links(text) {
        if link.contains("://") || link.starts_with("mailto:") {
            continue;
        }
        let (path, anchor) = match link.split_once('#') {
            Some((p, a)) => (p, Some(a)),
            None => (link.as_str(), None),
        };
        let target = if path.is_empty() {
            page.to_path_buf()
        } else {
            page.parent().unwrap().join(path)
        };
        if !target.exists() {
            broken.push(format!("{link}: no such file"));
            continue;
        }
        if let Some(anchor) = anchor {
            let ok = target.extension().is_some_and(|e| e == "md")
                && anchors(&read(&target)).contains(anchor);
            if !ok {
                broken.push(format!("{link}: no heading #{anchor}"));
            }
        }
    }
    broken
}

#[test]
fn every_relative_link_resolves() {
    let mut broken = Vec::new();
    let mut checked = 0;
    for page in pages() {
        let text = read(&page);
        checked += links(&text).len();
        for b in broken_links(&page, &text) {
            broken.push(format!("{}: {b}", page.display()));
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
    assert!(checked > 20, "only {checked} links found");
}

/// The checker catches what it is for: a missing file, a missing heading.
#[test]
fn a_broken_link_is_caught() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("a.md");
    std::fs::write(
        dir.path().join("b.md"),
        "# The `b` page\n\n## Twice\n\n## Twice\n",
    )
    .unwrap();
    let text = "[ok](b.md#the-b-page) [ok](b.md#twice-1) [self](#top)\n\
                [gone](c.md) [no anchor](b.md#nope) [web](https://example.com/x)\n\n# Top\n";
    std::fs::write(&page, text).unwrap();
    let broken = broken_links(&page, text);
    assert_eq!(
        broken,
        ["c.md: no such file", "b.md#nope: no heading #nope"]
    );
}

/// The README is the front door, not the manual.
#[test]
fn the_readme_stays_short() {
    let lines = read(&repo().join("README.md")).lines().count();
    assert!(
        lines <= 160,
        "README.md has {lines} lines; move details to docs/"
    );
}
