//! What `seekclaw review` reviews: the repository, the base it compares
//! against (`--base`, else the branch's upstream, else `main`), the files
//! `base...HEAD` changes and its diff, all read with `git`.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail};

use super::report::Scope;

/// More diff than this goes to the model as a note to read the files instead.
const MAX_DIFF_CHARS: usize = 120_000;

/// A resolved review range.
#[derive(Debug)]
pub struct Range {
    /// The repository's top level.
    pub root: PathBuf,
    pub scope: Scope,
    /// `git diff base...HEAD`, cut to [`MAX_DIFF_CHARS`].
    pub diff: String,
    /// Whether the diff was cut.
    pub diff_cut: bool,
}

/// Resolves the range to review in the repository holding `dir`.
pub fn resolve(dir: &Path, base: Option<&str>) -> anyhow::Result<Range> {
    let Ok(root) = git(dir, &["rev-parse", "--show-toplevel"]) else {
        bail!("{} is not inside a git repository", dir.display());
    };
    let root = PathBuf::from(root.trim());
    let base = match base {
        Some(b) => b.trim().to_string(),
        None => default_base(&root)?,
    };
    if base.is_empty() || base.starts_with('-') {
        bail!("--base must name a commit, branch or tag");
    }
    // Git's own words add nothing here (`--quiet` leaves them empty).
    let verify = |rev: &str| git(&root, &["rev-parse", "--verify", "--quiet", rev]).is_ok();
    if !verify(&format!("{base}^{{commit}}")) {
        bail!("the base `{base}` is not a commit in this repository");
    }
    if !verify("HEAD^{commit}") {
        bail!("the repository has no commit yet (HEAD)");
    }
    let range = format!("{base}...HEAD");
    let files = git(
        &root,
        &["diff", "--name-only", "--no-renames", "-z", &range, "--"],
    )?
    .split('\0')
    .filter(|f| !f.is_empty())
    // A file the range deletes has no line to point at.
    .filter(|f| root.join(f).is_file())
    .map(str::to_string)
    .collect();
    let mut diff = git(
        &root,
        &["diff", "--no-color", "--no-ext-diff", &range, "--"],
    )?;
    let diff_cut = diff.len() > MAX_DIFF_CHARS;
    if diff_cut {
        let mut end = MAX_DIFF_CHARS;
        while !diff.is_char_boundary(end) {
            end -= 1;
        }
        diff.truncate(end);
    }
    Ok(Range {
        root,
        scope: Scope {
            base,
            head: "HEAD".into(),
            files,
        },
        diff,
        diff_cut,
    })
}

/// The current branch's upstream, else `main`.
fn default_base(root: &Path) -> anyhow::Result<String> {
    if let Ok(upstream) = git(
        root,
        &[
            "rev-parse",
            "--abbrev-ref",
            "--symbolic-full-name",
            "@{upstream}",
        ],
    ) {
        let upstream = upstream.trim();
        if !upstream.is_empty() {
            return Ok(upstream.to_string());
        }
    }
    if git(root, &["rev-parse", "--verify", "--quiet", "main^{commit}"]).is_ok() {
        return Ok("main".into());
    }
    bail!("the branch has no upstream and there is no `main` branch: name the base with --base")
}

/// Runs `git args` in `dir`: its standard output, or its error.
fn git(dir: &Path, args: &[&str]) -> anyhow::Result<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_OPTIONAL_LOCKS", "0")
        .output()
        .context("cannot run git (is it installed?)")?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        bail!("git {}: {}", args.join(" "), err.trim());
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}
