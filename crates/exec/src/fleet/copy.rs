//! The fleet's workspace copies: one walk of the original says what is
//! copied and what is left out (build output, dependencies, caches, the
//! session store, git worktree pointers); each copy then recreates that
//! list, file by file with a copy-on-write clone where the filesystem has
//! one (btrfs, XFS, APFS…) and a plain copy otherwise.
//!
//! The same walk, with `.git` folders left out too, lists the files the diff
//! stat compares (`diff.rs`), so a skipped folder never shows as a change.

use std::ffi::OsStr;
use std::io;
use std::path::{Path, PathBuf};

/// What an entry is (symlinks are never followed: they are copied as links).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Dir,
    File,
    Symlink,
}

/// One entry of a walk, relative to its root; a folder comes before its content.
#[derive(Debug, Clone)]
pub struct Entry {
    pub rel: PathBuf,
    pub kind: Kind,
}

/// Something the walk left out, and why.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Skipped {
    pub path: String,
    pub why: &'static str,
}

/// What a walk found.
#[derive(Debug, Default)]
pub struct Tree {
    pub entries: Vec<Entry>,
    pub skipped: Vec<Skipped>,
}

/// What a walk leaves out besides the fixed rules.
#[derive(Debug, Clone, Default)]
pub struct Rules {
    /// Absolute paths never entered (the seekclaw home, the fleet's own folder).
    pub never: Vec<PathBuf>,
    /// Leave `.git` folders out too (the diff stat: the agent's commits are
    /// not file changes).
    pub skip_git_dirs: bool,
}

/// Folders left out by name alone: their name says what they hold.
const BY_NAME: [(&str, &str); 8] = [
    ("node_modules", "dependencies (npm)"),
    (".venv", "a Python virtualenv"),
    ("__pycache__", "a cache (Python bytecode)"),
    (".pytest_cache", "a cache (pytest)"),
    (".mypy_cache", "a cache (mypy)"),
    (".ruff_cache", "a cache (ruff)"),
    (".tox", "a cache (tox)"),
    (".gradle", "a cache (Gradle)"),
];

/// Walks `root` (pre-order, names sorted) under `rules`.
pub fn scan(root: &Path, rules: &Rules) -> io::Result<Tree> {
    let mut tree = Tree::default();
    walk(root, Path::new(""), rules, &mut tree)?;
    Ok(tree)
}

fn walk(root: &Path, rel: &Path, rules: &Rules, tree: &mut Tree) -> io::Result<()> {
    let dir = root.join(rel);
    let mut entries = std::fs::read_dir(&dir)?.collect::<Result<Vec<_>, _>>()?;
    entries.sort_by_key(|e| e.file_name());
    let has_build_manifest = entries
        .iter()
        .any(|e| e.file_name() == "Cargo.toml" || e.file_name() == "pom.xml");
    for entry in entries {
        let name = entry.file_name();
        let child = rel.join(&name);
        let kind = entry.file_type()?;
        let why = if kind.is_dir() {
            skipped_dir(&entry.path(), &name, &child, has_build_manifest, rules)
        } else if name == ".git" {
            // A worktree's `.git` file points into the original's repository:
            // git in a copy would then move the original's branches.
            Some("a git worktree pointer (into the original's repository)")
        } else if !kind.is_file() && !kind.is_symlink() {
            Some("not a regular file (socket, pipe or device)")
        } else {
            None
        };
        if let Some(why) = why {
            tree.skipped.push(Skipped {
                path: child.display().to_string(),
                why,
            });
            continue;
        }
        if kind.is_dir() {
            tree.entries.push(Entry {
                rel: child.clone(),
                kind: Kind::Dir,
            });
            walk(root, &child, rules, tree)?;
        } else {
            let kind = if kind.is_symlink() {
                Kind::Symlink
            } else {
                Kind::File
            };
            tree.entries.push(Entry { rel: child, kind });
        }
    }
    Ok(())
}

/// Why the folder `path` (named `name`, at `rel` in the walk) is left out, if it is.
fn skipped_dir(
    path: &Path,
    name: &OsStr,
    rel: &Path,
    beside_build_manifest: bool,
    rules: &Rules,
) -> Option<&'static str> {
    if rules.never.iter().any(|p| p == path) {
        return Some("the seekclaw home or the fleet's folder");
    }
    if name == ".git" && rules.skip_git_dirs {
        return Some("git's own data");
    }
    if let Some((_, why)) = BY_NAME.iter().find(|(n, _)| name == *n) {
        return Some(why);
    }
    if rel == Path::new(".seekclaw/cache") {
        return Some("the agent's cache");
    }
    // `target` is build output beside a Cargo or Maven manifest; elsewhere
    // it may be anyone's source folder.
    if name == "target" && beside_build_manifest {
        return Some("build output (target)");
    }
    // The standard marks: a cache directory (Cargo, many build tools) and a
    // virtualenv under any name.
    if path.join("CACHEDIR.TAG").is_file() {
        return Some("a cache (CACHEDIR.TAG)");
    }
    if path.join("pyvenv.cfg").is_file() {
        return Some("a Python virtualenv");
    }
    None
}

/// What making one copy did.
#[derive(Debug, Clone, Copy, Default)]
pub struct CopyStats {
    pub files: u64,
    pub bytes: u64,
    /// Files cloned copy-on-write (the rest were copied byte by byte).
    pub reflinked: u64,
}

/// Recreates `tree` (walked from `root`) at `dest`, which must not exist yet.
pub fn copy_tree(root: &Path, tree: &Tree, dest: &Path) -> io::Result<CopyStats> {
    std::fs::create_dir(dest)
        .map_err(|e| io::Error::new(e.kind(), format!("create {}: {e}", dest.display())))?;
    let mut stats = CopyStats::default();
    // Cloning is tried until it fails once: a failed clone costs a create
    // and an unlink before the plain copy, on every file of the tree.
    let mut clone = true;
    for entry in &tree.entries {
        let from = root.join(&entry.rel);
        let to = dest.join(&entry.rel);
        let done = match entry.kind {
            Kind::Dir => std::fs::create_dir(&to),
            Kind::Symlink => {
                std::fs::read_link(&from).and_then(|target| std::os::unix::fs::symlink(target, &to))
            }
            Kind::File => copy_file(&from, &to, &mut clone, &mut stats),
        };
        done.map_err(|e| {
            io::Error::new(
                e.kind(),
                format!("copy {} to {}: {e}", from.display(), to.display()),
            )
        })?;
    }
    Ok(stats)
}

/// A copy-on-write clone while `clone` holds (it keeps the source's mode),
/// else a plain copy; either way with the source's modification time, which
/// `fleet apply` reads to tell what a run changed.
fn copy_file(from: &Path, to: &Path, clone: &mut bool, stats: &mut CopyStats) -> io::Result<()> {
    copy_content(from, to, clone, stats)?;
    // Best effort: a copy whose time differs is only taken as changed by
    // its run, which the content comparison then settles.
    if let Ok(modified) = std::fs::metadata(from).and_then(|m| m.modified()) {
        let _ = std::fs::File::open(to).and_then(|f| f.set_modified(modified));
    }
    Ok(())
}

fn copy_content(from: &Path, to: &Path, clone: &mut bool, stats: &mut CopyStats) -> io::Result<()> {
    if *clone {
        match reflink_copy::reflink(from, to) {
            Ok(()) => {
                stats.files += 1;
                stats.reflinked += 1;
                stats.bytes += std::fs::metadata(to)?.len();
                return Ok(());
            }
            // About this file, not about the filesystem.
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::NotFound
                        | io::ErrorKind::PermissionDenied
                        | io::ErrorKind::AlreadyExists
                ) =>
            {
                return Err(e);
            }
            Err(_) => *clone = false,
        }
    }
    stats.bytes += std::fs::copy(from, to)?;
    stats.files += 1;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn write(root: &Path, rel: &str, text: &str) {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn build_dependency_and_cache_folders_are_left_out() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("ws");
        for rel in [
            "Cargo.toml",
            "src/main.rs",
            "target/debug/big",
            "node_modules/x/index.js",
            "py/.venv/bin/python",
            "py/env2/pyvenv.cfg",
            "py/pkg/__pycache__/m.pyc",
            "docs/target/page.md",
            "cache/CACHEDIR.TAG",
            ".seekclaw/cache/blob",
            ".seekclaw/config.json",
            "home/seekclaw.db",
        ] {
            write(&root, rel, "x");
        }
        write(&root, ".git", "gitdir: /elsewhere/.git/worktrees/ws\n");
        let rules = Rules {
            never: vec![root.join("home")],
            skip_git_dirs: false,
        };
        let tree = scan(&root, &rules).unwrap();
        let kept: Vec<String> = tree
            .entries
            .iter()
            .filter(|e| e.kind == Kind::File)
            .map(|e| e.rel.display().to_string())
            .collect();
        assert_eq!(
            kept,
            [
                ".seekclaw/config.json",
                "Cargo.toml",
                "docs/target/page.md",
                "src/main.rs"
            ]
        );
        let skipped: Vec<&str> = tree.skipped.iter().map(|s| s.path.as_str()).collect();
        assert_eq!(
            skipped,
            [
                ".git",
                ".seekclaw/cache",
                "cache",
                "home",
                "node_modules",
                "py/.venv",
                "py/env2",
                "py/pkg/__pycache__",
                "target"
            ]
        );
    }

    #[test]
    fn a_copy_keeps_modes_and_links_and_never_overwrites() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("ws");
        write(&root, "run.sh", "#!/bin/sh\n");
        std::fs::set_permissions(root.join("run.sh"), std::fs::Permissions::from_mode(0o755))
            .unwrap();
        std::os::unix::fs::symlink("run.sh", root.join("link")).unwrap();
        let tree = scan(&root, &Rules::default()).unwrap();
        let dest = tmp.path().join("copy");
        let stats = copy_tree(&root, &tree, &dest).unwrap();
        assert_eq!((stats.files, stats.bytes), (1, 10));
        let mode = std::fs::metadata(dest.join("run.sh"))
            .unwrap()
            .permissions();
        assert_eq!(mode.mode() & 0o777, 0o755);
        assert_eq!(
            std::fs::read_link(dest.join("link")).unwrap(),
            Path::new("run.sh")
        );
        assert_eq!(
            std::fs::metadata(dest.join("run.sh"))
                .unwrap()
                .modified()
                .unwrap(),
            std::fs::metadata(root.join("run.sh"))
                .unwrap()
                .modified()
                .unwrap(),
            "the copy keeps the original's time"
        );
        assert!(copy_tree(&root, &tree, &dest).is_err(), "dest exists");
    }
}
