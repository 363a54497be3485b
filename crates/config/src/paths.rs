//! Lexical path normalisation and scope keys.

use std::path::{Component, Path, PathBuf};

/// Scope key of global (non-workspace) sessions.
pub const GLOBAL_SCOPE: &str = "global";

/// Makes `p` absolute (joined to `cwd` if relative) and resolves `.` and `..`
/// lexically: the filesystem is not touched and symlinks are not resolved, so a
/// path that does not exist yet normalises too. `..` never climbs above the root.
/// Trailing separators are dropped. `cwd` is expected to be absolute.
pub fn normalize_path(p: &Path, cwd: &Path) -> PathBuf {
    let joined;
    let full = if p.is_absolute() {
        p
    } else {
        joined = cwd.join(p);
        &joined
    };
    let mut out: Vec<Component<'_>> = Vec::new();
    for comp in full.components() {
        match comp {
            Component::CurDir => {}
            Component::ParentDir => match out.last() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                // `/..` is `/`.
                Some(Component::RootDir) | Some(Component::Prefix(_)) => {}
                // Only reachable when `cwd` was relative: keep the leading `..`.
                _ => out.push(comp),
            },
            other => out.push(other),
        }
    }
    out.iter().map(|c| c.as_os_str()).collect()
}

/// Scope key of a workspace's sessions: `"workspace|" + path`, trailing
/// separators trimmed, upper-cased on Windows (case-insensitive filesystem).
pub fn scope_key_workspace(root: &Path) -> String {
    format!("workspace|{}", path_key(root))
}

/// The path part of a scope key / project key.
pub fn path_key(root: &Path) -> String {
    let s = root.to_string_lossy();
    let trimmed = s.trim_end_matches(['/', std::path::MAIN_SEPARATOR]);
    // Keep a bare root (`/`) rather than an empty string.
    let key = if trimmed.is_empty() { &s } else { trimmed };
    if cfg!(windows) {
        key.to_uppercase()
    } else {
        key.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(p: &str, cwd: &str) -> PathBuf {
        normalize_path(Path::new(p), Path::new(cwd))
    }

    #[test]
    fn normalize_cases() {
        assert_eq!(norm("/a/b/../c/./d/", "/x"), PathBuf::from("/a/c/d"));
        assert_eq!(norm("sub/dir", "/work"), PathBuf::from("/work/sub/dir"));
        assert_eq!(norm("../up", "/work/here"), PathBuf::from("/work/up"));
        assert_eq!(norm(".", "/work/"), PathBuf::from("/work"));
        assert_eq!(norm("/../../etc", "/x"), PathBuf::from("/etc"));
        assert_eq!(norm("/", "/x"), PathBuf::from("/"));
        assert_eq!(norm("a//b///", "/w"), PathBuf::from("/w/a/b"));
        assert_eq!(norm("", "/w"), PathBuf::from("/w"));
        // Relative cwd: leading `..` survive.
        assert_eq!(norm("../a", "rel"), PathBuf::from("a"));
        assert_eq!(norm("../../a", "rel"), PathBuf::from("../a"));
    }

    #[test]
    fn normalize_does_not_resolve_symlinks_or_touch_fs() {
        assert_eq!(
            norm("/does/not/exist/../x", "/"),
            PathBuf::from("/does/not/x")
        );
    }

    #[test]
    fn scope_keys() {
        assert_eq!(GLOBAL_SCOPE, "global");
        assert_eq!(
            scope_key_workspace(Path::new("/home/u/proj/")),
            if cfg!(windows) {
                "workspace|/HOME/U/PROJ"
            } else {
                "workspace|/home/u/proj"
            }
        );
        assert_eq!(scope_key_workspace(Path::new("/")), "workspace|/");
    }
}
