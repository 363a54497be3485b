//! Linux: `openat2` relative to a handle on the workspace root (see the parent module).

use std::ffi::OsStr;
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::OwnedFd;
use std::path::Path;

use rustix::fs::{AtFlags, FileType, Mode, OFlags, ResolveFlags};
use rustix::io::Errno;

use super::{Removed, at_path, by_name, escaped, real_inner, temp_name};

/// Symlinks that stay beneath the root are followed; `/proc` magic links never.
const BENEATH: ResolveFlags = ResolveFlags::BENEATH.union(ResolveFlags::NO_MAGICLINKS);
/// No symlink at all on the way: for paths already resolved.
const EXACT: ResolveFlags = BENEATH.union(ResolveFlags::NO_SYMLINKS);

/// Read-only and non-blocking: a FIFO opens at once, and its type refuses it.
const READ: OFlags = OFlags::RDONLY.union(OFlags::NONBLOCK).union(OFlags::NOCTTY);

pub(super) fn open_beneath(root: &Path, abs: &Path) -> io::Result<File> {
    or_by_name(resolve_open(root, abs, READ).map(File::from), || {
        by_name::open(abs)
    })
}

pub(super) fn open_beneath_path(root: &Path, abs: &Path) -> io::Result<File> {
    or_by_name(
        resolve_open(root, abs, OFlags::PATH).map(File::from),
        || File::open(abs),
    )
}

pub(super) fn write_beneath(root: &Path, abs: &Path, data: &[u8]) -> io::Result<()> {
    or_by_name(write_resolved(root, abs, data), || {
        by_name::write(abs, data)
    })
}

pub(super) fn remove_beneath(root: &Path, abs: &Path) -> io::Result<Option<Removed>> {
    or_by_name(remove_resolved(root, abs), || by_name::remove(abs))
}

/// `beneath`, or where the kernel has no `openat2` (before 5.6; it fails
/// before anything is changed) the same done by name.
fn or_by_name<T>(beneath: io::Result<T>, by_name: impl FnOnce() -> io::Result<T>) -> io::Result<T> {
    match beneath {
        Err(e) if e.raw_os_error() == Some(Errno::NOSYS.raw_os_error()) => by_name(),
        other => other,
    }
}

fn is_a_directory() -> io::Error {
    io::Error::new(io::ErrorKind::IsADirectory, "is a directory")
}

/// The root directory itself (a symlinked root is followed: it is trusted).
fn root_dir(root: &Path) -> io::Result<OwnedFd> {
    rustix::fs::open(
        root,
        OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(io::Error::from)
}

/// `openat2` of `rel` below `dir`; a symlink that shows up where none may
/// (`ELOOP` under `EXACT`) or a step out of `dir` (`EXDEV`) is an escape.
fn at(dir: &OwnedFd, rel: &Path, flags: OFlags, how: ResolveFlags) -> Result<OwnedFd, Errno> {
    rustix::fs::openat2(
        dir,
        at_path(rel),
        flags | OFlags::CLOEXEC,
        Mode::empty(),
        how,
    )
}

fn escape_or(e: Errno) -> io::Error {
    match e {
        Errno::XDEV | Errno::LOOP => escaped(),
        e => e.into(),
    }
}

/// Opens `abs` (under `root`) beneath the root: first as given, following
/// symlinks that stay inside; a path through an absolute symlink (refused
/// by `RESOLVE_BENEATH`) is resolved and its real path opened with no
/// symlink allowed.
fn resolve_open(root: &Path, abs: &Path, flags: OFlags) -> io::Result<OwnedFd> {
    let dir = root_dir(root)?;
    let rel = abs.strip_prefix(root).unwrap_or(abs);
    match at(&dir, rel, flags, BENEATH) {
        Err(Errno::XDEV) => {
            let inner = real_inner(root, abs)?;
            at(&dir, &inner, flags, EXACT).map_err(escape_or)
        }
        found => found.map_err(io::Error::from),
    }
}

/// The directory `rel` below `dir`, every step checked (no symlinks).
fn exact_dir(dir: &OwnedFd, rel: &Path) -> io::Result<OwnedFd> {
    at(dir, rel, OFlags::PATH | OFlags::DIRECTORY, EXACT).map_err(escape_or)
}

/// The folder `rel` below `dir`, made where missing: one step at a time, each
/// opened (with no symlink allowed) before the next is made in it.
fn make_dirs(dir: OwnedFd, rel: &Path) -> io::Result<OwnedFd> {
    let mut current = dir;
    for part in rel.iter() {
        match rustix::fs::mkdirat(&current, part, Mode::from_raw_mode(0o777)) {
            Ok(()) | Err(Errno::EXIST) => {}
            Err(e) => return Err(e.into()),
        }
        current = exact_dir(&current, Path::new(part))?;
    }
    Ok(current)
}

/// Splits a resolved path into its folder and final name.
fn split(inner: &Path) -> io::Result<(&Path, &OsStr)> {
    let name = inner
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "not a file path"))?;
    Ok((inner.parent().unwrap_or(Path::new("")), name))
}

fn write_resolved(root: &Path, abs: &Path, data: &[u8]) -> io::Result<()> {
    // Resolved once: a symlink is written through to its target (inside).
    let inner = real_inner(root, abs)?;
    let dir = root_dir(root)?;
    let (folder, name) = split(&inner)?;
    let folder = match at(&dir, folder, OFlags::PATH | OFlags::DIRECTORY, EXACT) {
        Ok(fd) => fd,
        Err(Errno::NOENT) => make_dirs(exact_dir(&dir, Path::new(""))?, folder)?,
        Err(e) => return Err(escape_or(e)),
    };
    let mode = match rustix::fs::statat(&folder, name, AtFlags::SYMLINK_NOFOLLOW) {
        Ok(st) if FileType::from_raw_mode(st.st_mode) == FileType::Directory => {
            return Err(is_a_directory());
        }
        Ok(st) if FileType::from_raw_mode(st.st_mode) == FileType::RegularFile => {
            Some(Mode::from_raw_mode(st.st_mode & 0o7777))
        }
        _ => None,
    };
    let tmp = temp_name(name);
    let created = rustix::fs::openat(
        &folder,
        tmp.as_str(),
        OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::from_raw_mode(0o666),
    )?;
    let result = (|| -> io::Result<()> {
        let mut file = File::from(created);
        file.write_all(data)?;
        if let Some(mode) = mode {
            rustix::fs::fchmod(&file, mode)?;
        }
        drop(file);
        // Renames the entry, whatever it is now: never follows a link.
        rustix::fs::renameat(&folder, tmp.as_str(), &folder, name)?;
        Ok(())
    })();
    if result.is_err() {
        let _ = rustix::fs::unlinkat(&folder, tmp.as_str(), AtFlags::empty());
    }
    result
}

fn remove_resolved(root: &Path, abs: &Path) -> io::Result<Option<Removed>> {
    if abs == root {
        return Err(is_a_directory());
    }
    // The final name is the entry to remove (a link as the link): only its
    // folder is resolved.
    let (Some(parent), Some(name)) = (abs.parent(), abs.file_name()) else {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a file path",
        ));
    };
    let inner = real_inner(root, parent)?;
    let dir = root_dir(root)?;
    let folder = match at(&dir, &inner, OFlags::PATH | OFlags::DIRECTORY, EXACT) {
        Ok(fd) => fd,
        Err(Errno::NOENT) => return Ok(None),
        Err(e) => return Err(escape_or(e)),
    };
    let st = match rustix::fs::statat(&folder, name, AtFlags::SYMLINK_NOFOLLOW) {
        Ok(st) => st,
        Err(Errno::NOENT) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    let bytes = match FileType::from_raw_mode(st.st_mode) {
        FileType::Directory => return Err(is_a_directory()),
        FileType::RegularFile => {
            let fd = rustix::fs::openat(
                &folder,
                name,
                OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC,
                Mode::empty(),
            )?;
            let mut bytes = Vec::new();
            File::from(fd).read_to_end(&mut bytes)?;
            Some(bytes)
        }
        _ => None,
    };
    rustix::fs::unlinkat(&folder, name, AtFlags::empty())?;
    Ok(Some(Removed { bytes }))
}
