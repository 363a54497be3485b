//! The crate's error type.
//!
//! Only importing can fail: discovery is lenient by design (a bad skill is
//! listed with [`crate::Skill::error`] set, never an error for the listing).

use std::io;
use std::path::PathBuf;

/// Why an import failed. The `Display` strings are sent to clients
/// verbatim by the daemon, so they are part of the wire contract.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// The path does not exist or is not a regular file.
    #[error("Invalid skill import path: {}", .0.display())]
    InvalidPath(PathBuf),
    /// The file is neither `.md` nor `.zip`.
    #[error(
        "Skill import failed: unsupported file type (expected .md or .zip): {}",
        .0.display()
    )]
    UnsupportedType(PathBuf),
    /// The archive holds nothing that looks like a skill.
    #[error("Skill import failed: the archive contains no skills")]
    NoSkills,
    /// A skill with this name (or its target directory) is already there.
    #[error("Skill import failed: skill '{0}' already exists")]
    AlreadyExists(String),
    /// Nothing of the name survives sanitizing into a directory name.
    #[error("Skill import failed: invalid skill name '{0}'")]
    InvalidName(String),
    /// The archive could not be read as a zip file.
    #[error("Skill import failed: invalid zip archive: {0}")]
    InvalidArchive(String),
    /// An entry's path would land outside the extraction directory.
    #[error("Skill import failed: unsafe path in archive: {0}")]
    UnsafeEntry(String),
    /// The archive would unpack to more than the size cap.
    #[error("Skill import failed: the archive is too large (over {} MiB uncompressed)", .0 / (1024 * 1024))]
    TooLarge(u64),
    /// The archive has more entries than the cap.
    #[error("Skill import failed: the archive has too many entries (over {0})")]
    TooManyEntries(usize),
    /// Reading or writing files failed.
    #[error("Skill import failed: {0}")]
    Io(#[from] io::Error),
}
