#![allow(clippy::unwrap_used)]

use std::fs;

use super::*;

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn names() -> Vec<String> {
    seekclaw_config::InstructionSettings::default().names()
}

struct Tree {
    _tmp: tempfile::TempDir,
    home: PathBuf,
    ws: PathBuf,
}

fn tree() -> Tree {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let (home, ws) = (root.join("home"), root.join("ws"));
    fs::create_dir_all(&home).unwrap();
    fs::create_dir_all(ws.join("a/b/c")).unwrap();
    Tree {
        _tmp: tmp,
        home,
        ws,
    }
}

fn read(t: &Tree, start: Option<&Path>, max_bytes: usize) -> Instructions {
    let names = names();
    read_instructions(&InstructionScope {
        home: Some(&t.home),
        workspace: Some(&t.ws),
        start,
        names: &names,
        max_bytes,
    })
    .0
}

fn labels(i: &Instructions) -> Vec<&str> {
    i.files.iter().map(|f| f.label.as_str()).collect()
}

#[test]
fn files_from_the_user_then_the_root_down_to_the_start() {
    let t = tree();
    write(&t.home.join("AGENTS.md"), "USER");
    write(&t.ws.join("AGENTS.md"), "ROOT");
    // An override wins over AGENTS.md in its folder.
    write(&t.ws.join("a/AGENTS.md"), "A-PLAIN");
    write(&t.ws.join("a/AGENTS.override.md"), "A-OVERRIDE");
    // Only CLAUDE.md here; CLAUDE.md wins over GEMINI.md.
    write(&t.ws.join("a/b/CLAUDE.md"), "B-CLAUDE");
    write(&t.ws.join("a/b/GEMINI.md"), "B-GEMINI");
    write(&t.ws.join("a/b/c/GEMINI.md"), "C-GEMINI");
    // Below the start: not read.
    write(&t.ws.join("a/b/c/d/AGENTS.md"), "TOO-DEEP");
    let i = read(&t, Some(&t.ws.join("a/b/c")), 65536);
    assert_eq!(
        labels(&i),
        [
            "~seekclaw/AGENTS.md",
            "AGENTS.md",
            "a/AGENTS.override.md",
            "a/b/CLAUDE.md",
            "a/b/c/GEMINI.md"
        ]
    );
    let texts: Vec<&str> = i.files.iter().map(|f| f.text.as_str()).collect();
    assert_eq!(
        texts,
        ["USER", "ROOT", "A-OVERRIDE", "B-CLAUDE", "C-GEMINI"]
    );
    assert!(i.files[0].user && !i.files[1].user);
    assert!(!i.truncated());
}

#[test]
fn a_start_outside_the_workspace_reads_the_root_only() {
    let t = tree();
    write(&t.ws.join("AGENTS.md"), "ROOT");
    write(&t.ws.join("a/AGENTS.md"), "A");
    assert_eq!(labels(&read(&t, None, 65536)), ["AGENTS.md"]);
    assert_eq!(labels(&read(&t, Some(&t.home), 65536)), ["AGENTS.md"]);
    let climbing = t.ws.join("a/../..");
    assert_eq!(labels(&read(&t, Some(&climbing), 65536)), ["AGENTS.md"]);
    assert_eq!(
        labels(&read(&t, Some(&t.ws.join("a")), 65536)),
        ["AGENTS.md", "a/AGENTS.md"]
    );
}

#[test]
fn configured_names_replace_the_defaults() {
    let t = tree();
    write(&t.ws.join("AGENTS.md"), "ROOT");
    write(&t.ws.join("RULES.md"), "RULES");
    let names = vec!["RULES.md".to_string()];
    let (i, sources) = read_instructions(&InstructionScope {
        home: None,
        workspace: Some(&t.ws),
        start: None,
        names: &names,
        max_bytes: 100,
    });
    assert_eq!(labels(&i), ["RULES.md"]);
    assert!(sources.contains(&t.ws.join("RULES.md")));
}

#[test]
fn imports_are_expanded_once_confined_and_without_cycles() {
    let t = tree();
    write(
        &t.ws.join("AGENTS.md"),
        "Style: @docs/style.md\nSecrets: @../home/../outside.md\nMail me@example.com or @someone.\n\
         `@docs/style.md` in code\n```\n@docs/style.md\n```\nAgain @docs/style.md\n",
    );
    write(&t.ws.join("docs/style.md"), "Use tabs. See @./more.md");
    write(&t.ws.join("docs/more.md"), "More, and back: @style.md");
    write(&t.ws.parent().unwrap().join("outside.md"), "SECRET");
    let i = read(&t, None, 65536);
    let text = &i.files[0].text;
    assert_eq!(text.matches("Use tabs.").count(), 1, "{text}");
    assert!(text.contains("More, and back:"), "{text}");
    assert!(
        text.contains("(@style.md not imported: it imports itself (a cycle))"),
        "{text}"
    );
    assert!(!text.contains("SECRET"), "{text}");
    assert!(
        text.contains("not imported: outside the workspace and the SeekClaw home"),
        "{text}"
    );
    assert!(
        text.contains("(@docs/style.md not imported: already included above)"),
        "{text}"
    );
    assert!(
        text.contains("Mail me@example.com or @someone.\n`"),
        "{text}"
    );
    assert_eq!(
        i.files[0].imports,
        [t.ws.join("docs/style.md"), t.ws.join("docs/more.md")]
    );
}

#[test]
fn imports_nest_at_most_five_deep() {
    let t = tree();
    write(&t.ws.join("AGENTS.md"), "L0 @i1.md");
    for n in 1..=7 {
        write(
            &t.ws.join(format!("i{n}.md")),
            &format!("L{n} @i{}.md", n + 1),
        );
    }
    let text = read(&t, None, 65536).files[0].text.clone();
    assert!(text.contains("L5"), "{text}");
    assert!(!text.contains("L6 "), "{text}");
    assert!(
        text.contains("(@i6.md not imported: imports nest deeper than 5)"),
        "{text}"
    );
}

#[test]
fn the_budget_cuts_the_farthest_files_first() {
    let t = tree();
    write(&t.home.join("AGENTS.md"), &"u".repeat(100));
    write(
        &t.ws.join("AGENTS.md"),
        &format!("{}\n{}\n", "r".repeat(50), "s".repeat(50)),
    );
    write(&t.ws.join("a/AGENTS.md"), &"a".repeat(100));
    let i = read(&t, Some(&t.ws.join("a")), 170);
    assert!(i.truncated());
    // The nearest file whole, the root cut at a line break, the user's left out.
    assert_eq!(i.files[2].text.len(), 100);
    assert!(!i.files[2].truncated);
    assert_eq!(i.files[1].text, format!("{}\n", "r".repeat(50)));
    assert!(i.files[1].truncated);
    assert_eq!(i.files[1].bytes, 102);
    assert!(i.files[0].text.is_empty() && i.files[0].truncated);
    let notice = i.budget_notice().unwrap();
    assert!(
        notice.contains("instructions.maxBytes (170 bytes)"),
        "{notice}"
    );
    assert!(
        notice.contains("~seekclaw/AGENTS.md (left out, 100 bytes)"),
        "{notice}"
    );
    assert!(notice.contains("AGENTS.md (51 of 102 bytes)"), "{notice}");
    assert!(
        read(&t, Some(&t.ws.join("a")), 65536)
            .budget_notice()
            .is_none()
    );
}

#[test]
fn every_name_looked_for_is_a_source() {
    let t = tree();
    write(&t.ws.join("a/CLAUDE.md"), "A");
    let names = names();
    let (_, sources) = read_instructions(&InstructionScope {
        home: Some(&t.home),
        workspace: Some(&t.ws),
        start: Some(&t.ws.join("a")),
        names: &names,
        max_bytes: 65536,
    });
    // A file created later in a folder that had none (or an override) is seen.
    for path in [
        t.home.join("AGENTS.md"),
        t.ws.join("GEMINI.md"),
        t.ws.join("a/AGENTS.override.md"),
        t.ws.join("a/CLAUDE.md"),
    ] {
        assert!(sources.contains(&path), "{}", path.display());
    }
    assert!(!sources.contains(&t.ws.join("a/GEMINI.md")));
}
