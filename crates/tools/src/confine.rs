//! Workspace confinement: a tool path resolves against the turn's workspace root
//! and may not leave it — not by `..`, not as an absolute path, not through a
//! symlink — unless the session allows work outside the workspace.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};

use crate::tool::ToolContext;

/// Symlink hops followed before giving up (the kernel's own limit).
const MAX_SYMLINK_HOPS: usize = 40;

/// Why a tool path was refused; the text tells the model what to do instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PathError {
    /// No path was given.
    #[error("Path is empty. Give a path relative to the workspace root.")]
    Empty,
    /// `..` climbs above the workspace root.
    #[error(
        "Path '{path}' leaves the workspace through '..'. Use a path inside the workspace ({root})."
    )]
    ParentEscape {
        /// The path as given.
        path: String,
        /// The workspace root.
        root: String,
    },
    /// An absolute path outside the workspace, with work outside it not allowed.
    #[error(
        "Path '{path}' is outside the workspace ({root}). Use a path inside the workspace; agent.allowOutsideWorkspace is off."
    )]
    Outside {
        /// The path as given.
        path: String,
        /// The workspace root.
        root: String,
    },
    /// A symlink on the way leads out of the workspace.
    #[error(
        "Path '{path}' resolves through a symlink to {target}, which is outside the workspace ({root}). Symlinks may not lead out of the workspace."
    )]
    SymlinkEscape {
        /// The path as given.
        path: String,
        /// Where the symlink leads.
        target: String,
        /// The workspace root.
        root: String,
    },
    /// The path's symlinks do not resolve (a loop, or more hops than the kernel follows).
    #[error("Path '{path}' has too many levels of symbolic links.")]
    SymlinkLoop {
        /// The path as given.
        path: String,
    },
}

/// A path a tool may use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfinedPath {
    /// Absolute, normalized; under the workspace root as given (symlinks not
    /// resolved, so a link is removed or written as the link it is).
    pub abs: PathBuf,
    /// Relative to the workspace root (`.` for the root itself), or the absolute
    /// path when it lies outside (only with `allow_outside_workspace`).
    pub rel: String,
    /// The workspace root `abs` must stay under when it is opened
    /// ([`crate::beneath`]); `None` when nothing confines it.
    pub root: Option<PathBuf>,
}

/// Resolves `path` for a tool call of `ctx`.
pub fn confine(ctx: &ToolContext, path: &str) -> Result<ConfinedPath, PathError> {
    confine_to(&ctx.workspace_root, ctx.allow_outside_workspace, path)
}

/// Like [`confine`], but also admits the exact files the turn may read outside
/// the workspace (the skill files listed in its prompt), given by absolute path.
pub fn confine_readable(ctx: &ToolContext, path: &str) -> Result<ConfinedPath, PathError> {
    confine(ctx, path).or_else(|err| {
        let given = normalize(Path::new(path.trim()));
        // The exact listed file, also after resolving symlinks on both sides, so
        // a listed name cannot be turned into a door to some other file.
        let real = |p: &Path| std::fs::canonicalize(p).ok();
        let allowed = given.is_absolute()
            && ctx.readable_files.contains(&given)
            && real(&given).is_some_and(|r| {
                ctx.readable_files
                    .iter()
                    .any(|f| real(f).is_some_and(|rf| rf == r))
            });
        if allowed {
            Ok(ConfinedPath {
                rel: given.display().to_string(),
                abs: given,
                root: None,
            })
        } else {
            Err(err)
        }
    })
}

/// Resolves `path` against `root`, refusing escapes unless `allow_outside`.
pub fn confine_to(root: &Path, allow_outside: bool, path: &str) -> Result<ConfinedPath, PathError> {
    let path = path.trim();
    if path.is_empty() {
        return Err(PathError::Empty);
    }
    let root = normalize(&absolute(root));
    let given = Path::new(path);
    let lexical = normalize(&root.join(given));
    let lexically_inside = lexical.starts_with(&root);
    if allow_outside {
        return Ok(ConfinedPath {
            root: None,
            ..with_rel(&root, lexical)
        });
    }

    let real_root = resolve(&root).unwrap_or_else(|_| root.clone());
    let resolved = resolve(&lexical).map_err(|_| PathError::SymlinkLoop {
        path: path.to_string(),
    })?;
    if let Ok(inner) = resolved.strip_prefix(&real_root) {
        // Inside. An absolute alias of the root (the real path behind a symlinked
        // root) is rewritten under the root as given, so lock keys agree.
        let abs = if lexically_inside {
            lexical
        } else {
            normalize(&root.join(inner))
        };
        return Ok(with_rel(&root, abs));
    }
    let root_text = root.display().to_string();
    Err(if lexically_inside {
        PathError::SymlinkEscape {
            path: path.to_string(),
            target: resolved.display().to_string(),
            root: root_text,
        }
    } else if given.is_absolute() {
        PathError::Outside {
            path: path.to_string(),
            root: root_text,
        }
    } else {
        PathError::ParentEscape {
            path: path.to_string(),
            root: root_text,
        }
    })
}

/// `abs` relative to `root` for display: `src/a.rs`, `.`, or `abs` itself.
pub fn relative_display(root: &Path, abs: &Path) -> String {
    match abs.strip_prefix(root) {
        Ok(rel) if rel.as_os_str().is_empty() => ".".to_string(),
        Ok(rel) => rel.display().to_string(),
        Err(_) => abs.display().to_string(),
    }
}

fn with_rel(root: &Path, abs: PathBuf) -> ConfinedPath {
    let rel = relative_display(root, &abs);
    ConfinedPath {
        abs,
        rel,
        root: Some(root.to_path_buf()),
    }
}

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Removes `.` and folds `..` without touching the file system.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                // `..` at the root stays at the root, as the kernel does.
                if !out.pop() {
                    out.push(component);
                }
            }
            other => out.push(other),
        }
    }
    out
}

/// Like `realpath`, but tolerates missing tails and dangling links: existing
/// symlinks are followed, the rest is kept as written.
pub(crate) fn resolve(path: &Path) -> Result<PathBuf, ()> {
    let mut resolved = PathBuf::new();
    let mut pending: VecDeque<OsString> = VecDeque::new();
    for component in path.components() {
        match component {
            Component::Prefix(_) | Component::RootDir => resolved.push(component),
            Component::CurDir => {}
            Component::ParentDir => pending.push_back("..".into()),
            Component::Normal(name) => pending.push_back(name.to_os_string()),
        }
    }
    let mut hops = 0;
    while let Some(name) = pending.pop_front() {
        if name == ".." {
            resolved.pop();
            continue;
        }
        if name == "." {
            continue;
        }
        let candidate = resolved.join(&name);
        let is_link =
            std::fs::symlink_metadata(&candidate).is_ok_and(|m| m.file_type().is_symlink());
        if !is_link {
            resolved = candidate;
            continue;
        }
        hops += 1;
        if hops > MAX_SYMLINK_HOPS {
            return Err(());
        }
        let Ok(target) = std::fs::read_link(&candidate) else {
            resolved = candidate;
            continue;
        };
        if target.is_absolute() {
            resolved = PathBuf::new();
        }
        // The target's components replace the link's, ahead of what is left.
        let mut front: Vec<OsString> = Vec::new();
        for component in target.components() {
            match component {
                Component::Prefix(_) | Component::RootDir => resolved.push(component),
                Component::CurDir => {}
                Component::ParentDir => front.push("..".into()),
                Component::Normal(n) => front.push(n.to_os_string()),
            }
        }
        for item in front.into_iter().rev() {
            pending.push_front(item);
        }
    }
    Ok(resolved)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn ws() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap().join("ws");
        std::fs::create_dir_all(root.join("src")).unwrap();
        (dir, root)
    }

    #[test]
    fn relative_paths_resolve_under_the_root() {
        let (_d, root) = ws();
        let p = confine_to(&root, false, "src/../src/./a.rs").unwrap();
        assert_eq!(p.abs, root.join("src/a.rs"));
        assert_eq!(p.rel, "src/a.rs");
        assert_eq!(confine_to(&root, false, ".").unwrap().rel, ".");
        let abs_inside = root.join("src/b.rs");
        let p = confine_to(&root, false, abs_inside.to_str().unwrap()).unwrap();
        assert_eq!(p.rel, "src/b.rs");
    }

    #[test]
    fn dotdot_escape_is_refused() {
        let (_d, root) = ws();
        let err = confine_to(&root, false, "../outside.txt").unwrap_err();
        assert!(matches!(err, PathError::ParentEscape { .. }), "{err}");
        assert!(
            err.to_string()
                .contains("leaves the workspace through '..'")
        );
        let err = confine_to(&root, false, "src/../../../etc/passwd").unwrap_err();
        assert!(matches!(err, PathError::ParentEscape { .. }));
    }

    #[test]
    fn absolute_outside_is_refused_unless_allowed() {
        let (_d, root) = ws();
        let err = confine_to(&root, false, "/etc/passwd").unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "Path '/etc/passwd' is outside the workspace ({}). Use a path inside the workspace; agent.allowOutsideWorkspace is off.",
                root.display()
            )
        );
        let p = confine_to(&root, true, "/etc/passwd").unwrap();
        assert_eq!(p.abs, PathBuf::from("/etc/passwd"));
        assert_eq!(p.rel, "/etc/passwd");
        let p = confine_to(&root, true, "../x").unwrap();
        assert_eq!(p.abs, root.parent().unwrap().join("x"));
    }

    #[test]
    fn symlinks_leading_outside_are_refused() {
        let (dir, root) = ws();
        let outside = dir.path().canonicalize().unwrap().join("secret");
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("key"), "k").unwrap();
        symlink(&outside, root.join("link")).unwrap();
        symlink("../../secret/key", root.join("src/rel_link")).unwrap();
        symlink(outside.join("missing"), root.join("dangling")).unwrap();

        for path in [
            "link/key",
            "link",
            "src/rel_link",
            "dangling",
            "link/new.txt",
        ] {
            let err = confine_to(&root, false, path).unwrap_err();
            assert!(
                matches!(err, PathError::SymlinkEscape { .. }),
                "{path}: {err}"
            );
            assert!(err.to_string().contains("resolves through a symlink"));
        }
        assert!(confine_to(&root, true, "link/key").is_ok());
    }

    #[test]
    fn symlinks_inside_the_root_are_fine() {
        let (_d, root) = ws();
        symlink(root.join("src"), root.join("alias")).unwrap();
        let p = confine_to(&root, false, "alias/a.rs").unwrap();
        assert_eq!(
            p.abs,
            root.join("alias/a.rs"),
            "the link is kept as written"
        );
    }

    #[test]
    fn a_symlinked_root_and_its_real_path_both_work() {
        let (dir, root) = ws();
        let link_root = dir.path().join("ws-link");
        symlink(&root, &link_root).unwrap();
        let p = confine_to(&link_root, false, "src/a.rs").unwrap();
        assert_eq!(p.abs, link_root.join("src/a.rs"));
        let real = root.join("src/a.rs");
        let p = confine_to(&link_root, false, real.to_str().unwrap()).unwrap();
        assert_eq!(p.abs, link_root.join("src/a.rs"));
        assert_eq!(p.rel, "src/a.rs");
    }

    #[test]
    fn empty_and_loops() {
        let (_d, root) = ws();
        assert_eq!(
            confine_to(&root, false, "  ").unwrap_err(),
            PathError::Empty
        );
        symlink(root.join("loop"), root.join("loop")).unwrap();
        let err = confine_to(&root, false, "loop/x").unwrap_err();
        assert!(matches!(err, PathError::SymlinkLoop { .. }));
    }
}
