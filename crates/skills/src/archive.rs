//! Safe zip extraction: no entry may land outside the destination, and the
//! archive's entry count and unpacked size are capped (zip bombs).

use std::fs::{self, File};
use std::io::{self, Read};
use std::path::Path;

use zip::ZipArchive;

use crate::error::ImportError;

/// Cap on the total uncompressed size of an imported archive.
pub const MAX_ARCHIVE_BYTES: u64 = 100 * 1024 * 1024;
/// Cap on the number of entries in an imported archive.
pub const MAX_ARCHIVE_ENTRIES: usize = 10_000;

/// Extraction caps; tests use small ones.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    pub max_bytes: u64,
    pub max_entries: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_bytes: MAX_ARCHIVE_BYTES,
            max_entries: MAX_ARCHIVE_ENTRIES,
        }
    }
}

/// Unpacks `zip_path` into the existing directory `dest`. Symlink entries
/// are skipped: following them later could leave `dest`.
pub(crate) fn extract(zip_path: &Path, dest: &Path, limits: Limits) -> Result<(), ImportError> {
    let mut archive = ZipArchive::new(File::open(zip_path)?).map_err(invalid)?;
    if archive.len() > limits.max_entries {
        return Err(ImportError::TooManyEntries(limits.max_entries));
    }
    let mut remaining = limits.max_bytes;
    for index in 0..archive.len() {
        let mut entry = archive.by_index(index).map_err(invalid)?;
        let Some(rel) = entry.enclosed_name() else {
            let name = String::from_utf8_lossy(entry.name_raw()).into_owned();
            return Err(ImportError::UnsafeEntry(name));
        };
        let target = dest.join(rel);
        if entry.is_dir() {
            fs::create_dir_all(&target)?;
            continue;
        }
        if entry.is_symlink() {
            continue;
        }
        // The declared size can lie, so it is only an early exit; the real
        // guard is counting the bytes actually written below.
        if entry.size() > remaining {
            return Err(ImportError::TooLarge(limits.max_bytes));
        }
        if let Some(parent) = target.parent() {
            fs::create_dir_all(parent)?;
        }
        let mut out = File::create(&target)?;
        let written = io::copy(&mut (&mut entry).take(remaining + 1), &mut out)?;
        if written > remaining {
            return Err(ImportError::TooLarge(limits.max_bytes));
        }
        remaining -= written;
    }
    Ok(())
}

fn invalid(e: zip::result::ZipError) -> ImportError {
    ImportError::InvalidArchive(e.to_string())
}
