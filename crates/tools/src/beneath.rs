//! File access that cannot be raced out of the workspace. [`crate::confine`]
//! checks a path when a call starts; a file swapped for a symlink after that
//! check must still not lead the tool outside. So every confined open, stat,
//! create, rename and remove here runs relative to a handle on the workspace
//! root with `openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS)`: the kernel
//! refuses any resolution that leaves the root, whenever it happens.
//!
//! Symlinks inside the workspace keep working: relative ones resolve beneath
//! the root directly; an absolute one (which `RESOLVE_BENEATH` refuses) is
//! resolved by [`crate::confine`]'s resolver and the real path opened with no
//! symlink allowed on the way (`RESOLVE_NO_SYMLINKS`), so a swap in between
//! fails instead of escaping. Paths outside any workspace (with
//! `agent.allowOutsideWorkspace`, or a listed skill file) open as usual.
//! Kernels without `openat2` (before 5.6) and other systems fall back to
//! opening by name.

use std::fs::{File, Metadata};
use std::io;
use std::path::{Path, PathBuf};

use crate::confine::{ConfinedPath, resolve};

/// Text of the error when a path resolves outside the workspace at open time.
const ESCAPED: &str = "the path leads outside the workspace (it changed while the tool ran)";

fn escaped() -> io::Error {
    io::Error::new(io::ErrorKind::PermissionDenied, ESCAPED)
}

/// Opens `path` to read; opening never blocks (a FIFO opens, then its type
/// refuses it). The file's type is the caller's to check on the returned
/// handle: it is the file that was opened, whatever the name means now.
pub(crate) fn open(path: &ConfinedPath) -> io::Result<File> {
    match &path.root {
        Some(root) => imp::open_beneath(root, &path.abs),
        None => by_name::open(&path.abs),
    }
}

/// The metadata of `path`, following symlinks that stay inside (`stat`).
pub(crate) fn metadata(path: &ConfinedPath) -> io::Result<Metadata> {
    match &path.root {
        Some(_) => open_path(path)?.metadata(),
        None => std::fs::metadata(&path.abs),
    }
}

/// A handle that only names `path` (`O_PATH`): for a type check or a stat.
fn open_path(path: &ConfinedPath) -> io::Result<File> {
    match &path.root {
        Some(root) => imp::open_beneath_path(root, &path.abs),
        None => File::open(&path.abs),
    }
}

/// Whether `path` exists now and resolves inside the workspace.
pub(crate) fn exists(path: &ConfinedPath) -> bool {
    open_path(path).is_ok()
}

/// `abs`, a path found below `base` (by a directory walk), under the same
/// confinement as `base`.
pub(crate) fn below(base: &ConfinedPath, abs: &Path) -> ConfinedPath {
    ConfinedPath {
        abs: abs.to_path_buf(),
        rel: String::new(),
        root: base.root.clone(),
    }
}

/// Replaces the file at `path` with `data` atomically: a temp file in the same
/// directory, then a rename over it (a crash never leaves a half-written
/// file). Permissions are kept; a symlink is written through (its target is
/// replaced, the link stays); missing parent folders are created.
pub(crate) fn write_atomic(path: &ConfinedPath, data: &[u8]) -> io::Result<()> {
    match &path.root {
        Some(root) => imp::write_beneath(root, &path.abs, data),
        None => by_name::write(&path.abs, data),
    }
}

/// What [`remove`] found and removed.
pub(crate) struct Removed {
    /// The file's bytes when it was a regular file (for the diff); a symlink
    /// (removed as the link) has none.
    pub bytes: Option<Vec<u8>>,
}

/// Removes the file or symlink at `path` (never a directory; the link itself,
/// not its target). `Ok(None)` when there is nothing to remove.
pub(crate) fn remove(path: &ConfinedPath) -> io::Result<Option<Removed>> {
    match &path.root {
        Some(root) => imp::remove_beneath(root, &path.abs),
        None => by_name::remove(&path.abs),
    }
}

/// The path of `abs` below the real root, following every symlink on the way
/// (the tail that does not exist is kept as written). `Err` when it leads out.
fn real_inner(root: &Path, abs: &Path) -> io::Result<PathBuf> {
    let bad = || {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            "too many levels of symbolic links",
        )
    };
    let real_root = resolve(root).map_err(|_| bad())?;
    let real = resolve(abs).map_err(|_| bad())?;
    real.strip_prefix(&real_root)
        .map(Path::to_path_buf)
        .map_err(|_| escaped())
}

/// A path for an `*at` call: `.` for the directory itself.
fn at_path(rel: &Path) -> &Path {
    if rel.as_os_str().is_empty() {
        Path::new(".")
    } else {
        rel
    }
}

/// A temp file name next to `name` for an atomic replace.
fn temp_name(name: &std::ffi::OsStr) -> String {
    format!(
        ".{}.{:016x}.seekclaw-tmp",
        name.to_string_lossy(),
        fastrand::u64(..)
    )
}

#[cfg(target_os = "linux")]
#[path = "beneath_linux.rs"]
mod imp;

#[cfg(not(target_os = "linux"))]
#[path = "beneath_portable.rs"]
mod imp;

/// The same operations by name, following symlinks as the system does: for
/// paths no workspace confines, and where the kernel has no `openat2`.
mod by_name {
    use std::fs::File;
    use std::io::{self, Read, Write};
    use std::path::Path;

    use super::{Removed, temp_name};

    pub(super) fn open(abs: &Path) -> io::Result<File> {
        let mut options = std::fs::OpenOptions::new();
        options.read(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32);
        }
        options.open(abs)
    }

    pub(super) fn write(abs: &Path, data: &[u8]) -> io::Result<()> {
        let target = match std::fs::symlink_metadata(abs) {
            Ok(m) if m.file_type().is_symlink() => match std::fs::canonicalize(abs) {
                Ok(target) => target,
                // Dangling link: writing through it creates the target.
                Err(_) => return std::fs::write(abs, data),
            },
            _ => abs.to_path_buf(),
        };
        let (Some(dir), Some(name)) = (target.parent(), target.file_name()) else {
            return std::fs::write(&target, data);
        };
        std::fs::create_dir_all(dir)?;
        let permissions = std::fs::metadata(&target).ok().map(|m| m.permissions());
        let tmp = dir.join(temp_name(name));
        let result = (|| {
            let mut file = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&tmp)?;
            file.write_all(data)?;
            drop(file);
            if let Some(permissions) = permissions {
                std::fs::set_permissions(&tmp, permissions)?;
            }
            std::fs::rename(&tmp, &target)
        })();
        if result.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        result
    }

    pub(super) fn remove(abs: &Path) -> io::Result<Option<Removed>> {
        let meta = match std::fs::symlink_metadata(abs) {
            Ok(meta) => meta,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
        };
        if meta.is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::IsADirectory,
                "is a directory",
            ));
        }
        let bytes = if meta.is_file() {
            let mut bytes = Vec::new();
            File::open(abs).and_then(|mut f| f.read_to_end(&mut bytes))?;
            Some(bytes)
        } else {
            None
        };
        std::fs::remove_file(abs)?;
        Ok(Some(Removed { bytes }))
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::{PermissionsExt, symlink};
    use std::path::Path;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    use serde_json::json;

    use super::*;
    use crate::builtin::builtin_registry;
    use crate::builtin::testing::ws;
    use crate::confine::confine_to;

    fn confined(root: &Path, rel: &str) -> ConfinedPath {
        confine_to(root, false, rel).unwrap()
    }

    #[test]
    fn atomic_writes_keep_permissions_and_write_through_links() {
        let w = ws();
        w.write("run.sh", "old");
        let file = w.path("run.sh");
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755)).unwrap();
        write_atomic(&confined(&w.root, "run.sh"), b"new").unwrap();
        assert_eq!(w.read("run.sh"), "new");
        let mode = std::fs::metadata(&file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o755);

        // A relative and an absolute link, both inside: written through.
        symlink("run.sh", w.path("rel.sh")).unwrap();
        symlink(&file, w.path("abs.sh")).unwrap();
        for (link, text) in [("rel.sh", "via rel"), ("abs.sh", "via abs")] {
            write_atomic(&confined(&w.root, link), text.as_bytes()).unwrap();
            assert!(
                std::fs::symlink_metadata(w.path(link))
                    .unwrap()
                    .file_type()
                    .is_symlink()
            );
            assert_eq!(w.read("run.sh"), text);
            let mut read = String::new();
            std::io::Read::read_to_string(&mut open(&confined(&w.root, link)).unwrap(), &mut read)
                .unwrap();
            assert_eq!(read, text);
        }
        // Missing folders are made.
        write_atomic(&confined(&w.root, "a/b/c.txt"), b"deep").unwrap();
        assert_eq!(w.read("a/b/c.txt"), "deep");
        let leftovers: Vec<_> = std::fs::read_dir(&w.root)
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().contains("seekclaw-tmp"))
            .collect();
        assert!(leftovers.is_empty());
    }

    #[test]
    fn a_link_that_leads_out_is_refused_at_open_time() {
        let w = ws();
        let outside = w.root.parent().unwrap().join("outside.txt");
        std::fs::write(&outside, "secret").unwrap();
        // Checked while the name was a plain file; a link by the time it is opened.
        w.write("f", "inside");
        let path = confined(&w.root, "f");
        std::fs::remove_file(w.path("f")).unwrap();
        symlink(&outside, w.path("f")).unwrap();
        assert_eq!(
            open(&path).unwrap_err().kind(),
            std::io::ErrorKind::PermissionDenied
        );
        assert!(write_atomic(&path, b"pwned").is_err());
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "secret");
        // A folder swapped for a link: nothing below it is removed or listed.
        std::fs::create_dir(w.path("d")).unwrap();
        let inner = confined(&w.root, "d/outside.txt");
        std::fs::remove_dir(w.path("d")).unwrap();
        symlink(w.root.parent().unwrap(), w.path("d")).unwrap();
        assert!(remove(&inner).is_err());
        assert!(!exists(&inner));
        assert!(outside.exists());
    }

    /// Swaps two names atomically, over and over, until told to stop.
    fn flipper(a: &Path, b: &Path, stop: Arc<AtomicBool>) -> std::thread::JoinHandle<u64> {
        let (a, b) = (a.to_path_buf(), b.to_path_buf());
        std::thread::spawn(move || {
            let mut flips = 0;
            while !stop.load(Ordering::Relaxed) {
                let swapped = rustix::fs::renameat_with(
                    rustix::fs::CWD,
                    &a,
                    rustix::fs::CWD,
                    &b,
                    rustix::fs::RenameFlags::EXCHANGE,
                );
                if swapped.is_ok() {
                    flips += 1;
                }
            }
            flips
        })
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_flipping_symlink_never_leads_a_tool_outside() {
        let w = ws();
        let outside = w.root.parent().unwrap().join("outside");
        std::fs::create_dir_all(&outside).unwrap();
        let secret = outside.join("secret-name.txt");
        std::fs::write(&secret, "TOPSECRET\n").unwrap();
        // `f` flips between a file and a link to the secret; `d` between a
        // folder and a link to the outside folder.
        w.write("f", "INSIDE\n");
        symlink(&secret, w.path(".f-link")).unwrap();
        w.write("d/inside.txt", "INSIDE\n");
        symlink(&outside, w.path(".d-link")).unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let flips = [
            flipper(&w.path("f"), &w.path(".f-link"), stop.clone()),
            flipper(&w.path("d"), &w.path(".d-link"), stop.clone()),
        ];
        let tools = builtin_registry();
        let calls = [
            ("read_file", json!({"path": "f"})),
            ("write_file", json!({"path": "f", "content": "INSIDE\n"})),
            (
                "edit_file",
                json!({"path": "f", "old_string": "TOPSECRET", "new_string": "PWNED"}),
            ),
            (
                "multi_edit",
                json!({"path": "f", "edits": [{"old_string": "TOPSECRET", "new_string": "PWNED"}]}),
            ),
            ("remove", json!({"path": "d/secret-name.txt"})),
            (
                "write_file",
                json!({"path": "d/planted.txt", "content": "x"}),
            ),
            ("read_file", json!({"path": "d/secret-name.txt"})),
            ("list_dir", json!({"path": "d"})),
            ("glob", json!({"pattern": "**/*.txt"})),
            ("grep", json!({"pattern": "TOP[S]ECRET"})),
        ];
        let mut succeeded = 0;
        for i in 0..2000 {
            let (name, args) = &calls[i % calls.len()];
            let out = tools.get(name).unwrap().execute(args.clone(), &w.ctx).await;
            // A refusal may name where a link leads (confinement says so); no
            // result shows what is there.
            let shows_outside = out.success && out.content.contains("secret-name");
            assert!(
                !out.content.contains("TOPSECRET") && !shows_outside,
                "{name} leaked: {}",
                out.content
            );
            if out.success && *name == "read_file" {
                succeeded += 1;
            }
        }
        stop.store(true, Ordering::Relaxed);
        let flipped: u64 = flips.into_iter().map(|f| f.join().unwrap()).sum();
        assert!(flipped > 1000, "the names flipped only {flipped} times");
        assert!(succeeded > 0, "no read went through at all");
        assert_eq!(std::fs::read_to_string(&secret).unwrap(), "TOPSECRET\n");
        let names: Vec<_> = std::fs::read_dir(&outside)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(
            names,
            ["secret-name.txt"],
            "nothing planted or removed outside"
        );
    }
}
