//! The `rewind` command: the engine's rewind of this serve's session, its
//! outcome as `rewind_finished` or `rewind_failed` (with the conflicting
//! files listed, so the controller can decide to send it again with `force`).

use seekclaw_engine::{Engine, EngineError, ErrorKind, Restore, RewindRequest, Scope};
use seekclaw_protocol::openseek::{CheckpointFile, NotTracked, Rewind, RewindRestore, RewoundFile};

use crate::WireEvent;

/// Runs `request` on `session`; `busy`: work is in hand or queued (a turn,
/// a compaction, a prompt waiting), so nothing is changed.
pub(crate) async fn run(
    engine: &Engine,
    scope: &Scope,
    session: Option<String>,
    request: Rewind,
    busy: bool,
) -> Vec<WireEvent> {
    let seq = request.seq;
    let failed = |reason: &str, error: String, conflicts: Vec<String>| WireEvent::RewindFailed {
        sequence: seq,
        reason: reason.to_string(),
        error,
        conflicts,
    };
    if busy {
        return vec![failed(
            "busy",
            "A turn is running or queued; rewind when the work in hand has ended \
             (or `cancel` it first)"
                .into(),
            Vec::new(),
        )];
    }
    let Some(session_id) = session else {
        return vec![failed(
            "not_found",
            "The session has no messages yet".into(),
            Vec::new(),
        )];
    };
    let restore = match request.restore {
        RewindRestore::Code => Restore::Code,
        RewindRestore::Conversation => Restore::Conversation,
        RewindRestore::Both => Restore::Both,
    };
    let ask = RewindRequest {
        session_id: session_id.clone(),
        seq,
        restore,
        dry_run: request.dry_run,
        force: request.force,
    };
    match engine.rewind(scope, ask).await {
        // The rewind's own checkpoint is announced (a `checkpoint` event
        // before this one).
        Ok(outcome) => vec![WireEvent::RewindFinished {
            sequence: outcome.seq,
            restore: request.restore.as_str().to_string(),
            dry_run: outcome.dry_run,
            files: outcome
                .files
                .iter()
                .map(|f| RewoundFile {
                    path: f.path.clone(),
                    status: f.status.clone(),
                    added: f.added,
                    removed: f.removed,
                    binary: f.binary,
                    diff: f.diff.clone(),
                })
                .collect(),
            conflicts: outcome.conflicts,
            kept: outcome.kept,
            unrestorable: outcome.unrestorable,
            prompt: outcome.prompt.map(|p| p.text),
            marker_sequence: outcome.marker_seq,
        }],
        Err(e) if e.kind == ErrorKind::Conflict => {
            let conflicts = conflicts(engine, scope, &session_id, seq).await;
            vec![failed("conflict", e.message, conflicts)]
        }
        Err(e) => vec![failed(reason(&e), e.message, Vec::new())],
    }
}

/// The files a code rewind to `seq` would overwrite (a dry run names them).
async fn conflicts(engine: &Engine, scope: &Scope, session_id: &str, seq: u64) -> Vec<String> {
    let dry = RewindRequest {
        session_id: session_id.to_string(),
        seq,
        restore: Restore::Code,
        dry_run: true,
        force: false,
    };
    engine
        .rewind(scope, dry)
        .await
        .map(|o| o.conflicts)
        .unwrap_or_default()
}

fn reason(e: &EngineError) -> &'static str {
    match e.kind {
        ErrorKind::Busy | ErrorKind::BusyElsewhere => "busy",
        ErrorKind::NotFound => "not_found",
        ErrorKind::Invalid => "invalid",
        _ => "failed",
    }
}

/// A checkpoint note as serve's `checkpoint` event.
pub(crate) fn checkpoint_event(note: &seekclaw_agent::CheckpointNote) -> WireEvent {
    WireEvent::Checkpoint {
        id: note.id,
        sequence: note.seq,
        turn_sequence: note.turn_seq,
        kind: note.kind.clone(),
        files: note
            .files
            .iter()
            .map(|f| CheckpointFile {
                path: f.path.clone(),
                status: f.status.clone(),
                added: f.added,
                removed: f.removed,
            })
            .collect(),
        added: note.added,
        removed: note.removed,
        not_tracked: note.not_tracked.as_ref().map(|n| NotTracked {
            ignored: n.ignored.clone(),
            oversize: n.oversize.clone(),
        }),
        error: note.error.clone(),
    }
}
