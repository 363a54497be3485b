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

#[cfg(test)]
#[path = "beneath_tests.rs"]
mod tests;

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
