//! Checkpoints, for every front end: the engine records the workspace
//! before a turn's first change and after each step that may have changed
//! it (file tools, `bash`, a background job's end, the verify command), in a
//! shadow store under the home (`checkpoints.db`, never the user's `.git`).
//! Rewind and fork ([`rewind`]) put code and conversation back.

mod rewind;
mod turn;

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use seekclaw_agent::{CheckpointFile, CheckpointNote, NotTrackedNote};
use seekclaw_checkpoint::{CheckpointError, Checkpointer, Row, Settings, Taken};

use crate::announce::Announcement;
use crate::engine::Engine;
use crate::error::EngineError;
use crate::scope::Scope;

pub use rewind::{ForkOutcome, ForkRequest, Restore, RewindOutcome, RewindRequest, RewoundPrompt};
pub(crate) use turn::TurnCheckpointer;

/// The home's shadow store, opened on first use (a chat that changes no
/// file never opens it).
#[derive(Default)]
pub struct CheckpointStore {
    opened: OnceLock<Arc<Checkpointer>>,
}

/// One row of `checkpoint.list` and one file of a checkpoint's or a
/// rewind's diff: the daemon protocol's shapes, defined once there.
pub use seekclaw_protocol::api::{CheckpointFileDiff as FileDiff, CheckpointSummary};

/// A file of the store's diff as the protocol shows it.
pub(crate) fn file_diff(d: seekclaw_checkpoint::FileDiff) -> FileDiff {
    {
        FileDiff {
            path: d.stat.path,
            status: status_name(d.stat.status).to_string(),
            added: d.stat.added,
            removed: d.stat.removed,
            binary: d.stat.binary,
            diff: d.diff,
        }
    }
}

fn status_name(s: seekclaw_checkpoint::FileStatus) -> &'static str {
    match s {
        seekclaw_checkpoint::FileStatus::Added => "added",
        seekclaw_checkpoint::FileStatus::Modified => "modified",
        seekclaw_checkpoint::FileStatus::Deleted => "deleted",
    }
}

/// A stored checkpoint's row as `checkpoint.list` shows it.
fn summary(r: &Row) -> CheckpointSummary {
    {
        CheckpointSummary {
            id: r.id,
            seq: r.seq,
            turn_seq: r.turn_seq,
            kind: r.kind.clone(),
            created_at: seekclaw_store::format_iso(
                chrono::DateTime::from_timestamp_millis(r.created_at).unwrap_or_default(),
            ),
            files_changed: r.files,
            added: r.added,
            removed: r.removed,
            full: r.full,
        }
    }
}

/// A written checkpoint as front ends are told of it.
pub(crate) fn note_of(t: &Taken) -> CheckpointNote {
    CheckpointNote {
        id: t.id,
        seq: t.seq,
        turn_seq: t.turn_seq,
        kind: t.kind.as_str().to_string(),
        files: t
            .files
            .iter()
            .map(|f| CheckpointFile {
                path: f.path.clone(),
                status: status_name(f.status).to_string(),
                added: f.added,
                removed: f.removed,
            })
            .collect(),
        added: t.added,
        removed: t.removed,
        tracked: t.tracked as u64,
        not_tracked: t
            .not_tracked
            .as_ref()
            .filter(|n| !n.is_empty())
            .map(|n| NotTrackedNote {
                ignored: n.ignored.clone(),
                oversize: n.oversize.clone(),
            }),
        error: None,
    }
}

/// A checkpoint that could not be taken (the turn goes on).
pub(crate) fn failed_note(kind: &str, seq: u64, turn_seq: u64, error: &str) -> CheckpointNote {
    CheckpointNote {
        id: 0,
        seq,
        turn_seq,
        kind: kind.to_string(),
        files: Vec::new(),
        added: 0,
        removed: 0,
        tracked: 0,
        not_tracked: None,
        error: Some(error.to_string()),
    }
}

/// The store's settings from the config's `checkpoints`, when they are on.
pub(crate) fn settings_of(
    config: &seekclaw_config::Config,
    home: &Path,
    root: &Path,
) -> Option<Settings> {
    config
        .checkpoints
        .enabled
        .then(|| store_settings(&config.checkpoints, home, root))
}

/// The store's settings from the config's `checkpoints` (a rewind uses them
/// even with checkpoints turned off since).
pub(crate) fn store_settings(
    c: &seekclaw_config::CheckpointSettings,
    home: &Path,
    root: &Path,
) -> Settings {
    let mut settings = Settings::default();
    settings.scan.max_file_bytes = c.max_file_bytes;
    settings.scan.max_files = c.max_files.max(1);
    settings.keep = c.keep.max(1);
    settings.watch_from = c.watch_files;
    // A home inside the workspace is ours, not the user's work.
    if home.starts_with(root) && home != root {
        settings.scan.exclude.push(home.to_path_buf());
    }
    settings
}

fn checkpoint_error(e: CheckpointError) -> EngineError {
    match e {
        CheckpointError::NotFound(m) => EngineError::not_found(m),
        e => EngineError::new(crate::error::ErrorKind::Storage, e.to_string()),
    }
}

impl Engine {
    /// The home's checkpoint store, opened on first use.
    pub(crate) fn checkpointer(&self) -> Result<Arc<Checkpointer>, EngineError> {
        if let Some(cp) = self.checkpoints.opened.get() {
            return Ok(cp.clone());
        }
        let cp =
            Arc::new(Checkpointer::open(&self.home.checkpoints_path()).map_err(checkpoint_error)?);
        Ok(self.checkpoints.opened.get_or_init(|| cp).clone())
    }

    /// Runs `f` on the checkpoint store off the async threads.
    pub(crate) async fn on_checkpoints<T, F>(&self, f: F) -> Result<T, EngineError>
    where
        T: Send + 'static,
        F: FnOnce(&Checkpointer) -> Result<T, CheckpointError> + Send + 'static,
    {
        let cp = self.checkpointer()?;
        tokio::task::spawn_blocking(move || f(&cp))
            .await
            .map_err(|e| EngineError::internal(format!("checkpoint task failed: {e}")))?
            .map_err(checkpoint_error)
    }

    /// The checkpoints of a turn that may change files (`None`: turned off,
    /// a read-only mode, a child turn, or the store cannot open).
    pub(crate) fn turn_checkpoints(
        &self,
        runtime: &seekclaw_agent::TurnRuntime,
        scope: &Scope,
        session_id: &str,
        overrides: &crate::launcher::TurnOverrides,
    ) -> Option<Arc<dyn seekclaw_agent::TurnCheckpoints>> {
        use seekclaw_config::AgentMode;
        if overrides.child || matches!(runtime.mode, AgentMode::Plan | AgentMode::Readonly) {
            return None;
        }
        let root = runtime.work_dir.clone();
        let settings = settings_of(&runtime.config, self.home.root(), &root)?;
        let cp = match self.checkpointer() {
            Ok(cp) => cp,
            Err(e) => {
                tracing::warn!(error = %e.message, "checkpoints unavailable");
                return None;
            }
        };
        Some(Arc::new(TurnCheckpointer::start(
            cp,
            settings,
            self.store.clone(),
            (&scope.key, session_id),
            root,
        )))
    }

    /// The session's checkpoints, oldest first.
    pub async fn checkpoints(
        &self,
        scope: &Scope,
        session_id: &str,
    ) -> Result<Vec<CheckpointSummary>, EngineError> {
        let header = self.session_of(scope, session_id).await?;
        let rows = self.on_checkpoints(move |cp| cp.list(&header.id)).await?;
        Ok(rows.iter().map(summary).collect())
    }

    /// What the session's checkpoints standing at log position `seq`
    /// changed, file by file with unified diffs.
    pub async fn checkpoint_diff(
        &self,
        scope: &Scope,
        session_id: &str,
        seq: u64,
    ) -> Result<Vec<FileDiff>, EngineError> {
        let header = self.session_of(scope, session_id).await?;
        let diffs = self
            .on_checkpoints(move |cp| cp.diff_at(&header.id, seq))
            .await?;
        Ok(diffs.into_iter().map(file_diff).collect())
    }

    /// The checkpoint store's size on disk (`doctor`).
    pub async fn checkpoint_store_bytes(&self) -> Result<u64, EngineError> {
        let path = self.home.checkpoints_path();
        if !path.exists() {
            return Ok(0);
        }
        self.on_checkpoints(|cp| cp.size_bytes()).await
    }

    /// Forgets a deleted session's checkpoints (and the bytes no other
    /// session keeps).
    pub async fn forget_checkpoints(&self, session_id: &str) -> Result<(), EngineError> {
        if !self.home.checkpoints_path().exists() {
            return Ok(());
        }
        let id = session_id.to_string();
        self.on_checkpoints(move |cp| cp.delete_session(&id).map(|_| ()))
            .await
    }

    /// Forgets every session's checkpoints (a factory reset).
    pub async fn forget_all_checkpoints(&self) -> Result<(), EngineError> {
        if !self.home.checkpoints_path().exists() {
            return Ok(());
        }
        self.on_checkpoints(|cp| cp.clear()).await
    }

    /// A session of the scope, or `not_found`.
    pub(crate) async fn session_of(
        &self,
        scope: &Scope,
        session_id: &str,
    ) -> Result<seekclaw_store::SessionHeader, EngineError> {
        let (key, id) = (scope.key.clone(), session_id.to_string());
        self.db(move |s| s.session(&key, &id))
            .await?
            .ok_or_else(|| EngineError::not_found(format!("Session {session_id} not found")))
    }

    /// A background job of the session ended: its changes are checkpointed
    /// (kind `job`) and announced.
    pub(crate) async fn checkpoint_job_end(&self, session_id: &str) {
        let Some(root) = self.checkpoint_root(session_id).await else {
            return;
        };
        let config = self.config.load();
        let Some(settings) = settings_of(&config, self.home.root(), &root) else {
            return;
        };
        let id = session_id.to_string();
        let seq = {
            let sid = id.clone();
            self.db(move |s| {
                let scope = s.scopes_of_session(&sid)?.into_iter().next();
                scope.map(|k| s.last_seq(&k, &sid)).transpose()
            })
            .await
            .ok()
            .flatten()
            .unwrap_or(0)
        };
        let taken = self
            .on_checkpoints(move |cp| {
                let mut t = cp.tracker(&id, &root)?;
                let take = seekclaw_checkpoint::Take {
                    seq,
                    turn_seq: 0,
                    kind: seekclaw_checkpoint::Kind::Job,
                    reach: seekclaw_checkpoint::Reach::Whole,
                };
                cp.record(
                    &mut t,
                    &take,
                    &settings,
                    chrono::Utc::now().timestamp_millis(),
                )
            })
            .await;
        let note = match taken {
            Ok(Some(t)) => note_of(&t),
            Ok(None) => return,
            Err(e) => failed_note("job", seq, 0, &e.message),
        };
        self.announcers.announce(Announcement::Checkpoint {
            session_id: session_id.to_string(),
            note,
        });
    }

    /// The workspace a session's checkpoints track (`None`: it has none).
    async fn checkpoint_root(&self, session_id: &str) -> Option<PathBuf> {
        if !self.home.checkpoints_path().exists() {
            return None;
        }
        let id = session_id.to_string();
        let rows = self.on_checkpoints(move |cp| cp.list(&id)).await.ok()?;
        rows.last().map(|r| PathBuf::from(&r.root))
    }
}
