//! Systems without `openat2`: everything by name (see the parent module).

use std::fs::File;
use std::io;
use std::path::Path;

use super::{Removed, by_name};

pub(super) fn open_beneath(_root: &Path, abs: &Path) -> io::Result<File> {
    by_name::open(abs)
}

pub(super) fn open_beneath_path(_root: &Path, abs: &Path) -> io::Result<File> {
    File::open(abs)
}

pub(super) fn write_beneath(_root: &Path, abs: &Path, data: &[u8]) -> io::Result<()> {
    by_name::write(abs, data)
}

pub(super) fn remove_beneath(_root: &Path, abs: &Path) -> io::Result<Option<Removed>> {
    by_name::remove(abs)
}
