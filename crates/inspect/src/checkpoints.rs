//! A session's checkpoints for the timeline: read-only from the shadow
//! store (`checkpoints.db`) beside the session store. A home without one
//! (checkpoints off, no turn changed files yet) has none to show.

use seekclaw_checkpoint::{CheckpointError, Checkpointer};
use serde::Serialize;

use crate::{Data, InspectError};

/// One checkpoint, as the timeline marks it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckpointRow {
    pub id: u64,
    /// The log seq it stands at (`None`: the log was truncated before it).
    pub seq: Option<u64>,
    pub turn_seq: u64,
    /// `turn`, `step`, `job`, `verify` or `rewind`.
    pub kind: String,
    /// Unix ms.
    pub created_at: i64,
    pub files: u32,
    pub added: u32,
    pub removed: u32,
    /// The session's first: the workspace as found, no diff.
    pub full: bool,
}

/// One file's change, with its unified diff.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DiffFile {
    pub path: String,
    pub status: &'static str,
    pub added: u32,
    pub removed: u32,
    pub binary: bool,
    pub diff: String,
}

impl Data {
    /// The store read-only, or `None` when the home has none yet.
    fn checkpointer(&self) -> Result<Option<Checkpointer>, InspectError> {
        if !self.checkpoints.exists() {
            return Ok(None);
        }
        Ok(Some(Checkpointer::open_read_only(&self.checkpoints)?))
    }

    /// Session `id`'s checkpoints, oldest first.
    pub fn checkpoints(&self, id: &str) -> Result<Vec<CheckpointRow>, InspectError> {
        let Some(store) = self.checkpointer()? else {
            return Ok(Vec::new());
        };
        Ok(store
            .list(id)?
            .into_iter()
            .map(|r| CheckpointRow {
                id: r.id,
                seq: r.seq,
                turn_seq: r.turn_seq,
                kind: r.kind,
                created_at: r.created_at,
                files: r.files,
                added: r.added,
                removed: r.removed,
                full: r.full,
            })
            .collect())
    }

    /// What the checkpoints standing at log seq `seq` changed.
    pub fn checkpoint_diff(&self, id: &str, seq: u64) -> Result<Vec<DiffFile>, InspectError> {
        let Some(store) = self.checkpointer()? else {
            return Err(InspectError::NotFound(format!("checkpoint at #{seq}")));
        };
        let files = match store.diff_at(id, seq) {
            Ok(files) => files,
            Err(CheckpointError::NotFound(what)) => return Err(InspectError::NotFound(what)),
            Err(e) => return Err(e.into()),
        };
        Ok(files
            .into_iter()
            .map(|f| DiffFile {
                status: match f.stat.status {
                    seekclaw_checkpoint::FileStatus::Added => "added",
                    seekclaw_checkpoint::FileStatus::Modified => "modified",
                    seekclaw_checkpoint::FileStatus::Deleted => "deleted",
                },
                path: f.stat.path,
                added: f.stat.added,
                removed: f.stat.removed,
                binary: f.stat.binary,
                diff: f.diff,
            })
            .collect())
    }
}
