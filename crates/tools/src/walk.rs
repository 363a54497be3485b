//! The file walker shared by `list_dir`, `glob` and `grep`: honours `.gitignore`
//! (with or without a git repo), `.ignore` and `.seekclawignore`, and skips the
//! usual VCS, build, cache and vendor directories.

use std::path::Path;

use ignore::{DirEntry, WalkBuilder};

use crate::beneath;
use crate::confine::ConfinedPath;

/// Directory names never walked into (reference §6.1).
const SKIPPED_DIRS: &[&str] = &[
    ".git",
    ".svn",
    ".hg",
    "node_modules",
    "obj",
    "dist",
    "build",
    "out",
    ".cache",
    ".session",
    ".seekclaw",
    ".vs",
    ".idea",
    ".vscode",
    "target",
    "__pycache__",
    ".venv",
    "venv",
    ".next",
    ".nuxt",
    "Library",
    "Temp",
];

pub(crate) const IGNORE_FILE: &str = ".seekclawignore";

/// Whether a directory is skipped. `bin` is a .NET output dir, except under
/// `src` where it holds sources (Rust's `src/bin`); `packages` (in the reference
/// list) is left out on purpose: JS monorepos keep their code there.
pub(crate) fn is_skipped_dir(path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    if name == "bin" {
        let parent = path
            .parent()
            .and_then(|p| p.file_name())
            .and_then(|n| n.to_str());
        return parent != Some("src");
    }
    SKIPPED_DIRS.contains(&name)
}

fn keep(entry: &DirEntry) -> bool {
    entry.depth() == 0
        || !(entry.file_type().is_some_and(|t| t.is_dir()) && is_skipped_dir(entry.path()))
}

/// A walker over the folder `base` that yields only entries which, when they
/// are looked at, resolve inside the workspace: a folder swapped for a symlink
/// to elsewhere during the walk shows nothing of what is there.
pub(crate) fn confined_walker(base: &ConfinedPath, max_depth: Option<usize>) -> WalkBuilder {
    let mut builder = walker(&base.abs, max_depth);
    if base.root.is_some() {
        let base = base.clone();
        builder.filter_entry(move |entry| {
            keep(entry)
                && (entry.depth() == 0 || beneath::exists(&beneath::below(&base, entry.path())))
        });
    }
    builder
}

/// A walker over `root` (the root itself is always walked, even when its name is
/// on the skip list: the caller asked for it explicitly).
pub(crate) fn walker(root: &Path, max_depth: Option<usize>) -> WalkBuilder {
    let mut builder = WalkBuilder::new(root);
    builder
        .hidden(false)
        .follow_links(false)
        .require_git(false)
        .max_depth(max_depth)
        .filter_entry(keep);
    builder.add_custom_ignore_filename(IGNORE_FILE);
    builder
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skip_rules() {
        assert!(is_skipped_dir(Path::new("/w/node_modules")));
        assert!(is_skipped_dir(Path::new("/w/target")));
        assert!(is_skipped_dir(Path::new("/w/App/bin")));
        assert!(!is_skipped_dir(Path::new("/w/src/bin")));
        assert!(!is_skipped_dir(Path::new("/w/packages")));
        assert!(!is_skipped_dir(Path::new("/w/src")));
    }
}
