//! What `seekclaw review` reviews: the repository, the base it compares
//! against (`--base`, else the branch's upstream, else `main`), and the
//! changes since their merge base: the commits `base...HEAD` and, unless
//! `--committed`, the working tree's uncommitted changes (staged, unstaged
//! and untracked files), so a dirty tree is never reported clean. All read
//! with `git`; nothing is written.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::error::{ExecError, IoContext, refuse};

use super::report::Scope;

/// More diff than this goes to the model as a note to read the files instead.
const MAX_DIFF_CHARS: usize = 120_000;
/// What the report's `head` says when the working tree's changes are in.
pub const WORKING_TREE: &str = "working tree";

/// A resolved review range.
#[derive(Debug)]
pub struct Range {
    /// The repository's top level.
    pub root: PathBuf,
    pub scope: Scope,
    /// The diff from the merge base (to the working tree, or to `HEAD` with
    /// `--committed`), cut to [`MAX_DIFF_CHARS`].
    pub diff: String,
    /// Whether the diff was cut.
    pub diff_cut: bool,
}

impl Range {
    /// Whether the working tree's uncommitted changes are reviewed.
    pub fn with_worktree(&self) -> bool {
        self.scope.head == WORKING_TREE
    }

    /// Uncommitted changes the review leaves out (`--committed`).
    pub fn unreviewed(&self) -> &[String] {
        self.scope.unreviewed()
    }
}

/// Resolves the range to review in the repository holding `dir`; with
/// `committed`, the commits only.
pub fn resolve(dir: &Path, base: Option<&str>, committed: bool) -> Result<Range, ExecError> {
    let Ok(root) = git(dir, &["rev-parse", "--show-toplevel"]) else {
        refuse!("{} is not inside a git repository", dir.display());
    };
    let root = PathBuf::from(root.trim());
    let base = match base {
        Some(b) => b.trim().to_string(),
        None => default_base(&root)?,
    };
    if base.is_empty() || base.starts_with('-') {
        refuse!("--base must name a commit, branch or tag");
    }
    // Git's own words add nothing here (`--quiet` leaves them empty).
    let verify = |rev: &str| git(&root, &["rev-parse", "--verify", "--quiet", rev]).is_ok();
    if !verify(&format!("{base}^{{commit}}")) {
        refuse!("the base `{base}` is not a commit in this repository");
    }
    if !verify("HEAD^{commit}") {
        refuse!("the repository has no commit yet (HEAD)");
    }
    let uncommitted = uncommitted_files(&root)?;
    let worktree = !committed && !uncommitted.is_empty();
    let (files, diff, diff_cut) = if worktree {
        let Ok(merge_base) = git(&root, &["merge-base", &base, "HEAD"]) else {
            refuse!("the base `{base}` and HEAD share no history");
        };
        let merge_base = merge_base.trim().to_string();
        changes(&root, &[&merge_base], true)?
    } else {
        changes(&root, &[&format!("{base}...HEAD")], false)?
    };
    Ok(Range {
        root,
        scope: Scope {
            base,
            head: if worktree { WORKING_TREE } else { "HEAD" }.into(),
            files,
            uncommitted,
        },
        diff,
        diff_cut,
    })
}

/// The files `range` changes that still exist (a deleted file has no line
/// to point at), with untracked ones when `untracked`, and the diff.
fn changes(
    root: &Path,
    range: &[&str],
    untracked: bool,
) -> Result<(Vec<String>, String, bool), ExecError> {
    let mut args = vec!["diff", "--name-only", "--no-renames", "-z"];
    args.extend_from_slice(range);
    args.push("--");
    let mut files: Vec<String> = split_z(&git(root, &args)?)
        .into_iter()
        .filter(|f| root.join(f).is_file())
        .collect();
    let mut args = vec!["diff", "--no-color", "--no-ext-diff"];
    args.extend_from_slice(range);
    args.push("--");
    let mut diff = git(root, &args)?;
    if untracked {
        for file in untracked_files(root)? {
            if diff.len() <= MAX_DIFF_CHARS {
                diff.push_str(&new_file_diff(root, &file));
            }
            if root.join(&file).is_file() {
                files.push(file);
            }
        }
        files.sort();
        files.dedup();
    }
    let diff_cut = diff.len() > MAX_DIFF_CHARS;
    if diff_cut {
        let mut end = MAX_DIFF_CHARS;
        while !diff.is_char_boundary(end) {
            end -= 1;
        }
        diff.truncate(end);
    }
    Ok((files, diff, diff_cut))
}

/// Files with changes not committed: staged, unstaged or untracked (not
/// ignored), sorted.
fn uncommitted_files(root: &Path) -> Result<Vec<String>, ExecError> {
    let mut files = split_z(&git(
        root,
        &["diff", "--name-only", "--no-renames", "-z", "HEAD", "--"],
    )?);
    files.extend(untracked_files(root)?);
    files.sort();
    files.dedup();
    Ok(files)
}

fn untracked_files(root: &Path) -> Result<Vec<String>, ExecError> {
    Ok(split_z(&git(
        root,
        &["ls-files", "--others", "--exclude-standard", "-z"],
    )?))
}

fn split_z(text: &str) -> Vec<String> {
    text.split('\0')
        .filter(|f| !f.is_empty())
        .map(str::to_string)
        .collect()
}

/// An untracked file as `git diff` shows an added one (git has no diff of
/// a file it does not track without writing to the index).
fn new_file_diff(root: &Path, file: &str) -> String {
    let head = format!("diff --git a/{file} b/{file}\nnew file\n");
    let Ok(bytes) = std::fs::read(root.join(file)) else {
        return String::new();
    };
    if bytes.contains(&0) {
        return format!("{head}Binary file {file} added\n");
    }
    let text = String::from_utf8_lossy(&bytes);
    let lines: Vec<&str> = text.lines().collect();
    let mut out = format!(
        "{head}--- /dev/null\n+++ b/{file}\n@@ -0,0 +1,{} @@\n",
        lines.len()
    );
    for line in lines {
        out.push('+');
        out.push_str(line);
        out.push('\n');
        if out.len() > MAX_DIFF_CHARS {
            break;
        }
    }
    out
}

/// The current branch's upstream, else `main`, else `master`, else `HEAD`
/// (only the uncommitted changes).
fn default_base(root: &Path) -> Result<String, ExecError> {
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
    for branch in ["main", "master"] {
        let commit = format!("{branch}^{{commit}}");
        if git(root, &["rev-parse", "--verify", "--quiet", &commit]).is_ok() {
            return Ok(branch.into());
        }
    }
    // No branch to compare with: the commit checked out, so the working
    // tree's own changes are what is reviewed.
    Ok("HEAD".into())
}

/// Runs `git args` in `dir`: its standard output, or its error.
fn git(dir: &Path, args: &[&str]) -> Result<String, ExecError> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_OPTIONAL_LOCKS", "0")
        .output()
        .at(|| "cannot run git (is it installed?)".into())?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        refuse!("git {}: {}", args.join(" "), err.trim());
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}
