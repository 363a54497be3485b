//! Rewind and fork: the code back to a user message (every byte, mode and
//! deletion the agent made since; what the user changed is a conflict), the
//! conversation back to before it (a marker in the append-only log), or
//! both; a fork is a new session holding the log before that message.

use std::path::PathBuf;

use seekclaw_agent::{CheckpointNote, SteerQueue};
use seekclaw_checkpoint::{Kind, Reach, Take};
use seekclaw_store::{EventItem, ImageAttachment, RewindMarker, SessionHeader};
use serde::Serialize;
use tokio_util::sync::CancellationToken;

use super::{FileDiff, note_of, store_settings};
use crate::engine::Engine;
use crate::error::{EngineError, ErrorKind};
use crate::scope::Scope;

/// What a rewind puts back: the daemon protocol's `restore`, one definition.
pub use seekclaw_protocol::api::RestoreMode as Restore;

/// Whether `restore` puts the files back.
fn restores_code(restore: Restore) -> bool {
    matches!(restore, Restore::Code | Restore::Both)
}

/// Whether `restore` takes the conversation back.
fn restores_conversation(restore: Restore) -> bool {
    matches!(restore, Restore::Conversation | Restore::Both)
}

/// A rewind of a session to one of its user messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RewindRequest {
    /// The session.
    pub session_id: String,
    /// The seq of the user message to go back to (it is rewound too: its
    /// text comes back to be edited and sent again).
    pub seq: u64,
    /// Code, conversation or both.
    pub restore: Restore,
    /// Say what would change; change nothing.
    pub dry_run: bool,
    /// Overwrite files the user changed after that point.
    pub force: bool,
}

/// A fork of a session at one of its user messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ForkRequest {
    /// The session forked.
    pub session_id: String,
    /// The user message forked at (the fork holds the events before it).
    pub seq: u64,
    /// Rewind the workspace's files to that point too.
    pub restore_code: bool,
    /// Overwrite files the user changed after that point.
    pub force: bool,
}

impl ForkRequest {
    /// `seq` for a fork of the whole log (ACP's `session/fork`): no
    /// message is taken back.
    pub const WHOLE: u64 = u64::MAX;
}

/// The user message a rewind or fork took back, for the editor.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RewoundPrompt {
    /// Its seq.
    pub seq: u64,
    /// Its text.
    pub text: String,
    /// Its images.
    pub images: Vec<ImageAttachment>,
}

/// What a rewind did (or, dry run, would do).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RewindOutcome {
    /// The session.
    pub session_id: String,
    /// The user message rewound to.
    pub seq: u64,
    /// What was put back.
    pub restore: Restore,
    /// Nothing was changed.
    pub dry_run: bool,
    /// Files restored (would be, on a dry run, conflicts included), with
    /// their diffs.
    pub files: Vec<FileDiff>,
    /// Files the user changed after that point (restored only with force).
    pub conflicts: Vec<String>,
    /// Files only the user created after that point: never removed.
    pub kept: Vec<String>,
    /// Files over `checkpoints.maxFileBytes` then: their bytes were not kept.
    pub unrestorable: Vec<String>,
    /// The rewound user message (conversation rewinds).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt: Option<RewoundPrompt>,
    /// The rewind marker appended to the log.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub marker_seq: Option<u64>,
    /// The checkpoint of the restored files.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checkpoint: Option<CheckpointNote>,
}

impl RewindOutcome {
    /// A rewind that changed nothing (yet).
    fn nothing(session_id: &str, seq: u64, restore: Restore, dry_run: bool) -> RewindOutcome {
        RewindOutcome {
            session_id: session_id.to_string(),
            seq,
            restore,
            dry_run,
            files: Vec::new(),
            conflicts: Vec::new(),
            kept: Vec::new(),
            unrestorable: Vec::new(),
            prompt: None,
            marker_seq: None,
            checkpoint: None,
        }
    }
}

/// What a fork made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ForkOutcome {
    /// The new session (`forkedFrom` names its source).
    pub session: SessionHeader,
    /// The user message forked at, for the editor.
    pub prompt: Option<RewoundPrompt>,
    /// The code rewind, when asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<RewindOutcome>,
}

/// A code rewind's part of the outcome.
struct CodeRewind {
    files: Vec<FileDiff>,
    conflicts: Vec<String>,
    kept: Vec<String>,
    unrestorable: Vec<String>,
    applied: bool,
    checkpoint: Option<CheckpointNote>,
}

impl Engine {
    /// Rewinds a session to its user message `seq`: code, conversation or
    /// both. `busy` while a turn runs on it; `conflict` (nothing changed)
    /// when the user changed files after that point, unless `force`.
    pub async fn rewind(
        &self,
        scope: &Scope,
        request: RewindRequest,
    ) -> Result<RewindOutcome, EngineError> {
        let header = self.session_of(scope, &request.session_id).await?;
        let _claim = self.claim(
            &header.id,
            &CancellationToken::new(),
            &SteerQueue::new(),
            &Default::default(),
        )?;
        let prompt = self.prompt_at(scope, &header.id, request.seq).await?;
        let mut out =
            RewindOutcome::nothing(&header.id, request.seq, request.restore, request.dry_run);
        if restores_code(request.restore) {
            let code = self
                .rewind_code(
                    scope,
                    &header.id,
                    request.seq,
                    request.dry_run,
                    request.force,
                )
                .await?;
            fill(&mut out, code);
        }
        if restores_conversation(request.restore) {
            if !request.dry_run {
                let marker = EventItem::Rewind(RewindMarker {
                    from_seq: request.seq,
                    code: restores_code(request.restore),
                });
                let (key, id) = (scope.key.clone(), header.id.clone());
                out.marker_seq = Some(
                    self.db(move |s| s.append_event(&key, &id, None, &marker))
                        .await?,
                );
            }
            out.prompt = Some(prompt);
        }
        if let Some(note) = &out.checkpoint {
            self.announcers
                .announce(crate::announce::Announcement::Checkpoint {
                    session_id: header.id.clone(),
                    note: note.clone(),
                });
        }
        Ok(out)
    }

    /// Forks a session at its user message `seq` into a new session holding
    /// the events before it; with `restore_code`, the files go back too.
    pub async fn fork(
        &self,
        scope: &Scope,
        request: ForkRequest,
    ) -> Result<ForkOutcome, EngineError> {
        let header = self.session_of(scope, &request.session_id).await?;
        let (seq, prompt) = if request.seq == ForkRequest::WHOLE {
            let (key, id) = (scope.key.clone(), header.id.clone());
            (self.db(move |s| s.last_seq(&key, &id)).await? + 1, None)
        } else {
            let prompt = self.prompt_at(scope, &header.id, request.seq).await?;
            (request.seq, Some(prompt))
        };
        let code = if request.restore_code {
            let _claim = self.claim(
                &header.id,
                &CancellationToken::new(),
                &SteerQueue::new(),
                &Default::default(),
            )?;
            Some(
                self.rewind_code(scope, &header.id, seq, false, request.force)
                    .await?,
            )
        } else {
            None
        };
        let new_id = crate::sessions::new_session_id();
        let (key, from, to) = (scope.key.clone(), header.id.clone(), new_id.clone());
        let session = self
            .db(move |s| s.fork_session(&key, &from, seq, &to))
            .await?;
        // The fork rewinds to any earlier message as its source would.
        if self.home.checkpoints_path().exists() {
            let (from, to) = (header.id.clone(), new_id);
            self.on_checkpoints(move |cp| match cp.target_of(&from, seq)? {
                Some(target) => cp.fork(&from, &to, target.id),
                None => Ok(()),
            })
            .await?;
        }
        let code = code.map(|c| {
            let mut out = RewindOutcome::nothing(&header.id, seq, Restore::Code, false);
            fill(&mut out, c);
            out
        });
        Ok(ForkOutcome {
            session,
            prompt,
            code,
        })
    }

    /// The user message at `seq`, or an error naming the parameter.
    async fn prompt_at(
        &self,
        scope: &Scope,
        session_id: &str,
        seq: u64,
    ) -> Result<RewoundPrompt, EngineError> {
        let (key, id) = (scope.key.clone(), session_id.to_string());
        let found = self
            .db(move |s| {
                let events = s.events(&key, &id)?;
                let users: Vec<u64> = events
                    .iter()
                    .filter(|e| matches!(e.item, EventItem::User(_)))
                    .map(|e| e.seq)
                    .collect();
                let at = events.into_iter().find(|e| e.seq == seq);
                Ok((at.map(|e| e.item), users))
            })
            .await?;
        let message = match found {
            (Some(EventItem::User(m)), _) => m,
            (_, users) => {
                let known = match users.len() {
                    0 => "it has none yet".to_string(),
                    _ => format!(
                        "its user messages are at seq {}",
                        users
                            .iter()
                            .map(u64::to_string)
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                };
                return Err(EngineError::invalid_param(
                    "seq",
                    format!(
                        "{seq} is not the seq of a user message of session {session_id} ({known})"
                    ),
                ));
            }
        };
        Ok(RewoundPrompt {
            seq,
            text: message.text,
            images: message.images,
        })
    }

    /// Puts the workspace back to the session's state at `seq`. Without
    /// `force`, conflicts fail the rewind before anything is touched.
    async fn rewind_code(
        &self,
        scope: &Scope,
        session_id: &str,
        seq: u64,
        dry_run: bool,
        force: bool,
    ) -> Result<CodeRewind, EngineError> {
        let nothing = CodeRewind {
            files: Vec::new(),
            conflicts: Vec::new(),
            kept: Vec::new(),
            unrestorable: Vec::new(),
            applied: false,
            checkpoint: None,
        };
        if !self.home.checkpoints_path().exists() {
            return Ok(nothing);
        }
        let (key, id) = (scope.key.clone(), session_id.to_string());
        let last_seq = self.db(move |s| s.last_seq(&key, &id)).await?;
        let config = self.config.load().checkpoints.clone();
        let home = self.home.root().to_path_buf();
        let id = session_id.to_string();
        let code = self
            .on_checkpoints(move |cp| {
                let Some(target) = cp.target_of(&id, seq)? else {
                    return Ok(nothing);
                };
                let root = PathBuf::from(&target.root);
                let settings = store_settings(&config, &home, &root);
                let mut tracker = cp.tracker(&id, &root)?;
                let plan = cp.plan(&mut tracker, target.id, &settings)?;
                let mut code = CodeRewind {
                    conflicts: plan.conflicts(),
                    kept: plan.kept.clone(),
                    unrestorable: plan.unrestorable.clone(),
                    ..nothing
                };
                // A dry run shows conflicts too: what forcing would overwrite.
                if dry_run {
                    code.files = cp
                        .plan_diff(&plan, true)
                        .into_iter()
                        .map(super::file_diff)
                        .collect();
                    return Ok(code);
                }
                if !force && !code.conflicts.is_empty() {
                    return Ok(code);
                }
                code.files = cp
                    .apply(&plan, force)?
                    .into_iter()
                    .map(super::file_diff)
                    .collect();
                code.applied = true;
                let take = Take {
                    seq: last_seq,
                    turn_seq: 0,
                    kind: Kind::Rewind,
                    reach: Reach::Whole,
                };
                let now = chrono::Utc::now().timestamp_millis();
                code.checkpoint = cp
                    .record(&mut tracker, &take, &settings, now)?
                    .map(|t| note_of(&t));
                Ok(code)
            })
            .await?;
        if !dry_run && !code.applied && !code.conflicts.is_empty() {
            return Err(conflict(session_id, &code.conflicts));
        }
        Ok(code)
    }
}

fn fill(out: &mut RewindOutcome, code: CodeRewind) {
    out.files = code.files;
    out.conflicts = code.conflicts;
    out.kept = code.kept;
    out.unrestorable = code.unrestorable;
    out.checkpoint = code.checkpoint;
}

/// The user changed files after the point: nothing was restored.
fn conflict(session_id: &str, paths: &[String]) -> EngineError {
    let shown: Vec<&str> = paths.iter().take(10).map(String::as_str).collect();
    let more = match paths.len().saturating_sub(shown.len()) {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    let message = match paths {
        [one] => format!(
            "{one} was changed after that point by someone other than the agent; \
             nothing was restored (forcing the rewind overwrites it)"
        ),
        _ => format!(
            "{} files were changed after that point by someone other than the agent: {}{more}; \
             nothing was restored (forcing the rewind overwrites them)",
            paths.len(),
            shown.join(", ")
        ),
    };
    EngineError {
        kind: ErrorKind::Conflict,
        message,
        param: None,
        session_id: Some(session_id.to_string()),
    }
}
