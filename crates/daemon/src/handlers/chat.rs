//! `chat` (and its aliases), `agent.steer`, `agent.cancel`: turns on sessions,
//! streamed to the requesting connection as envelopes.

use std::path::Path;

use seekclaw_agent::{AgentEvent, Steer, SteerKind, SteerQueue};
use seekclaw_config::UiLanguage;
use seekclaw_protocol::api::Scope as _;
use seekclaw_protocol::{Envelope, ErrorCode, MethodError, Params, event, method, write_text_line};

use super::{Reply, parse_reasoning_level};
use crate::chats::{ChatEntry, ChatStart};
use crate::connection::{Connection, LegacySession};
use crate::ctx::Ctx;
use crate::error::Wire;
use crate::scope;
use crate::wire::{event_envelope, terminal};
use seekclaw_engine::parse_images;
use seekclaw_engine::{SessionTarget, TurnHandle, TurnOrigin, TurnOverrides, TurnRequest};

/// Envelope lines handed to the connection in one piece, at most (about).
const BATCH_BYTES: usize = 64 * 1024;

/// `message` (or `prompt`) and `images` of a chat or steer; one of them is
/// required. The images go through the image intake (its own limits and
/// codes), from the raw params.
fn guidance(
    p: &Params,
    message: &str,
) -> Result<(String, Vec<seekclaw_agent::UserImage>), MethodError> {
    let images = parse_images(p).wire()?;
    let message = message.to_string();
    if message.trim().is_empty() && images.is_empty() {
        return Err(MethodError::invalid_param(
            "message",
            "params.message or params.images is required",
        ));
    }
    Ok((message, images))
}

pub async fn chat(daemon: &Ctx, conn: &Connection, id: i64, p: &Params, start: ChatStart) -> Reply {
    let params = p.read::<method::Chat>()?;
    let (message, images) = guidance(p, params.text())?;
    let level = match params.reasoning_level.as_deref() {
        Some(raw) => Some(parse_reasoning_level(raw)?),
        None => None,
    };
    let requested = params
        .session_id
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string);
    let scope = scope::resolve_for_turn(daemon, &params.scope())
        .map_err(|e| e.with_session(requested.clone()))?;
    // A model named with this chat wins over the session's own; either is
    // pinned (it alone answers, no failover).
    let overrides = TurnOverrides {
        model: params
            .model
            .as_deref()
            .map(str::trim)
            .filter(|m| !m.is_empty())
            .map(str::to_string),
        start_dir: params
            .workspace
            .as_deref()
            .map(|raw| seekclaw_config::normalize_path(Path::new(raw.trim()), daemon.cwd())),
        ..TurnOverrides::default()
    };
    let session = match requested {
        Some(sid) => SessionTarget::Id(sid),
        // The connection's last session in this scope, else the latest,
        // else a new one (reference §2.5).
        None => SessionTarget::Resume(conn.legacy().filter(|l| l.scope == scope.key).map(|l| l.id)),
    };
    let request = TurnRequest {
        scope: scope.clone(),
        session,
        message,
        images,
        reasoning: level,
        overrides,
        controls: start.controls.clone(),
        origin: TurnOrigin::read_by("chat", conn.id),
    };
    let mut turn = daemon.engine.start_turn(request).await.wire()?;
    let sid = turn.session().id.clone();
    start.claimed(&sid);
    // Leaving this connection ends the session's use (`SessionEnd`) unless
    // its turn still runs then (a detached turn that outlives it).
    conn.ran_on(&scope, &sid);
    daemon.session_owners.set(&sid, conn.outbox.clone());
    conn.set_legacy(Some(LegacySession {
        scope: scope.key.clone(),
        id: sid.clone(),
    }));
    let lang = daemon.engine.config.load().ui.language();
    while let Some(ev) = turn.next_event().await {
        // Everything already produced goes out as one queued chunk: a fast
        // stream of deltas costs one hand-off per batch, not per delta.
        let lines = batch((id, lang), &sid, ev, &mut turn);
        conn.outbox.send_line(lines).await;
    }
    let seq = turn.seq();
    let outcome = turn.outcome().await;
    // Notices come only from background jobs: a session the turn left
    // without any needs no owner (kept, one per session, forever).
    if !daemon.engine.jobs.holds(&sid) {
        daemon.session_owners.forget(&sid);
    }
    // Every event is written before the terminal (the turn's end: its seq
    // is the watchers' `turn_end`'s).
    Ok(terminal(id, Some(sid), outcome).with_seq(Some(seq)))
}

/// `first` and whatever else the turn has already produced (up to ~64 KB) as
/// one chunk of envelope lines.
fn batch(
    (id, lang): (i64, UiLanguage),
    sid: &str,
    first: AgentEvent,
    turn: &mut TurnHandle,
) -> Vec<u8> {
    let mut lines = Vec::with_capacity(256);
    write_event(&mut lines, (id, lang), (sid, turn.seq()), first);
    while lines.len() < BATCH_BYTES {
        let Some(ev) = turn.ready_event() else { break };
        write_event(&mut lines, (id, lang), (sid, turn.seq()), ev);
    }
    lines
}

/// One event's envelope line, with its seq; streamed text skips building
/// the envelope.
fn write_event(
    lines: &mut Vec<u8>,
    (id, lang): (i64, UiLanguage),
    (sid, seq): (&str, u64),
    ev: AgentEvent,
) {
    match ev {
        AgentEvent::Delta(text) => {
            write_text_line(lines, (id, event::DELTA), &text, sid, Some(seq))
        }
        AgentEvent::Thinking(text) => {
            write_text_line(lines, (id, event::THINKING), &text, sid, Some(seq))
        }
        ev => {
            if let Some(env) = event_envelope(id, sid, ev, lang) {
                env.with_seq(Some(seq)).write_line(lines);
            }
        }
    }
}

pub async fn steer(daemon: &Ctx, conn: &Connection, id: i64, p: &Params) -> Reply {
    let params = p.read::<method::AgentSteer>()?;
    let (message, images) = guidance(
        p,
        params
            .message
            .as_deref()
            .or(params.prompt.as_deref())
            .unwrap_or_default(),
    )?;
    let request_id = params.request_id;
    let session_id = params
        .session_id
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty());
    // A chat of this connection may not have claimed its session yet (its
    // steer was written right behind it): wait for the claim.
    let turn = match (request_id, session_id) {
        (Some(rid), _) => claimed_queue(conn.chats.get(rid)).await,
        (None, Some(sid)) => match daemon.engine.turns.by_session(sid) {
            Some(t) => Some((t.session_id, t.steer)),
            None => claimed_queue(conn.chats.asking_for(sid)).await,
        },
        (None, None) => {
            return Err(MethodError::invalid_param(
                "sessionId",
                "params.requestId or params.sessionId is required",
            ));
        }
    };
    let Some((turn_session, queue)) = turn else {
        return Err(
            MethodError::not_found("No active turn found for this session")
                .with_session(session_id.map(str::to_string)),
        );
    };
    queue
        .push(Steer {
            text: message,
            images,
            kind: SteerKind::Prompt,
        })
        .map_err(|e| {
            MethodError::new(ErrorCode::Conflict, e.to_string())
                .with_session(Some(turn_session.clone()))
        })?;
    Ok(Envelope::result(id, "guidance queued").with_session(Some(turn_session)))
}

/// The session and steering queue of `chat` once it has claimed a session;
/// `None` for no chat or one that ended first.
async fn claimed_queue(chat: Option<ChatEntry>) -> Option<(String, SteerQueue)> {
    let chat = chat?;
    Some((chat.session().await?, chat.steer))
}

pub async fn cancel(daemon: &Ctx, conn: &Connection, id: i64, p: &Params) -> Reply {
    let params = p.read::<method::AgentCancel>()?;
    let session_id = params
        .session_id
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty());
    // Every chat of the connection from the moment its line was read, claimed or not.
    let mine = conn.chats.findable();
    let text = match (params.request_id, session_id) {
        (Some(rid), _) => match mine.iter().find(|(r, _)| *r == rid) {
            Some((_, chat)) => {
                chat.cancel.cancel();
                format!("cancellation requested for {rid}")
            }
            None => "no active turn".to_string(),
        },
        // Whichever client started it, or none is left (a detached turn).
        (None, Some(sid)) => {
            let running = daemon.engine.turns.by_session(sid);
            let cancel = running
                .map(|t| (t.session_id, t.cancel))
                .or_else(|| Some((sid.to_string(), conn.chats.asking_for(sid)?.cancel)));
            match cancel {
                Some((session, token)) => {
                    token.cancel();
                    return Ok(Envelope::result(
                        id,
                        format!("cancellation requested for {session}"),
                    )
                    .with_session(Some(session)));
                }
                None => "no active turn".to_string(),
            }
        }
        (None, None) if mine.is_empty() => "no active turn".to_string(),
        (None, None) => {
            for (_, chat) in &mine {
                chat.cancel.cancel();
            }
            // The original's wording, also for one turn.
            format!("cancellation requested for {} active turns", mine.len())
        }
    };
    Ok(Envelope::result(id, text))
}
