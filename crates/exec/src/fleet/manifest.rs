//! `fleet.json`, written beside a fleet's copies: which workspace they copy,
//! the task, and each copied file's size and modification time in the
//! original when it was copied (the copies keep those times). That is what
//! `seekclaw fleet apply` needs to tell a run's changes from the user's own
//! since, and what `seekclaw fleet list|clean` recognize a fleet folder by.

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use super::copy::{Kind, Tree};
use crate::error::{ExecError, IoContext};

/// The manifest's file name in a fleet folder.
pub const FILE: &str = "fleet.json";

/// A fleet folder's manifest.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Manifest {
    pub version: u32,
    /// The original (canonical path), never written by the fleet.
    pub workspace: PathBuf,
    pub task: String,
    /// RFC 3339, local time.
    pub created_at: String,
    /// The copies' folder names (`run-1`…).
    pub copies: Vec<String>,
    /// Every copied file and link as it was in the original, by relative path.
    pub base: BTreeMap<String, State>,
}

/// A file or link as it stands: what tells whether it changed since.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum State {
    File { size: u64, mtime_ns: u64 },
    Link { target: String },
}

impl State {
    /// `path` now; `None` when it is missing (or a folder).
    pub fn of(path: &Path) -> io::Result<Option<State>> {
        let meta = match std::fs::symlink_metadata(path) {
            Ok(m) => m,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
        };
        if meta.file_type().is_symlink() {
            let target = std::fs::read_link(path)?;
            return Ok(Some(State::Link {
                target: target.display().to_string(),
            }));
        }
        if !meta.is_file() {
            return Ok(None);
        }
        Ok(Some(State::File {
            size: meta.len(),
            mtime_ns: nanos(meta.modified()?),
        }))
    }
}

fn nanos(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

impl Manifest {
    /// The manifest of copies of `root` made from `tree`.
    pub fn new(root: &Path, task: &str, copies: Vec<String>, tree: &Tree) -> io::Result<Manifest> {
        let mut base = BTreeMap::new();
        for entry in tree.entries.iter().filter(|e| e.kind != Kind::Dir) {
            if let Some(state) = State::of(&root.join(&entry.rel))? {
                base.insert(slashed(&entry.rel), state);
            }
        }
        Ok(Manifest {
            version: 1,
            workspace: root.to_path_buf(),
            task: task.to_string(),
            created_at: chrono::Local::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, false),
            copies,
            base,
        })
    }

    /// Writes it into `fleet_dir`.
    pub fn write(&self, fleet_dir: &Path) -> Result<(), ExecError> {
        let path = fleet_dir.join(FILE);
        let text = serde_json::to_string(self).map_err(io::Error::other)?;
        std::fs::write(&path, text).on("cannot write", &path)
    }

    /// The manifest of the fleet folder `dir`; `None` when it has none.
    pub fn read(dir: &Path) -> Result<Option<Manifest>, ExecError> {
        let path = dir.join(FILE);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(ExecError::io(format!("cannot read {}", path.display()), e)),
        };
        let manifest = serde_json::from_str(&text).map_err(|e| {
            ExecError::Refused(format!("{} is not a fleet manifest: {e}", path.display()))
        })?;
        Ok(Some(manifest))
    }
}

/// A relative path with `/` separators (the manifest's keys).
pub fn slashed(rel: &Path) -> String {
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}
