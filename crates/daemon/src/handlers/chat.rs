//! `chat` (and its aliases), `agent.steer`, `agent.cancel`: turns on sessions,
//! streamed to the requesting connection as envelopes.

use std::sync::Arc;

use crate::watch::{Watched, Watchers};

use seekclaw_agent::{AgentEvent, GoalStatus, ReminderKind, Steer, SteerKind, SteerQueue};
use seekclaw_config::{ReasoningLevel, UiLanguage};
use seekclaw_protocol::api::Scope as _;
use seekclaw_protocol::events::{
    ApprovalRequestDetails, ApprovalResolvedDetails, ContextYieldDetails, FailoverDetails,
    FileDiffDetails, GoalUpdatedDetails, ImageViewDetails, ModelStartDetails, ReminderDetails,
    RetryDetails, ToolDoneDetails, ToolStartDetails, UsageDetails, WorkflowDetails,
};
use seekclaw_protocol::{Envelope, ErrorCode, MethodError, Params, event, method, write_text_line};
use seekclaw_store::{SessionHeader, SessionPatch};
use tokio_util::sync::CancellationToken;

use super::images::parse_images;
use super::session::create_session;
use super::{Reply, parse_reasoning_level};
use crate::chats::{ChatEntry, ChatStart};
use crate::connection::{Connection, LegacySession};
use crate::daemon::Daemon;
use crate::engine::{Engine, SessionClaim, TurnHandle, TurnOverrides, TurnRequest};
use crate::presentation::{status_text, workflow_label};
use crate::scope::{self, Scope};

/// Envelope lines handed to the connection in one piece, at most (about).
const BATCH_BYTES: usize = 64 * 1024;

/// `message` (or `prompt`) and `images` of a chat or steer; one of them is
/// required. The images go through the image intake (its own limits and
/// codes), from the raw params.
fn guidance(
    p: &Params,
    message: &str,
) -> Result<(String, Vec<seekclaw_agent::UserImage>), MethodError> {
    let images = parse_images(p)?;
    let message = message.to_string();
    if message.trim().is_empty() && images.is_empty() {
        return Err(MethodError::invalid_param(
            "message",
            "params.message or params.images is required",
        ));
    }
    Ok((message, images))
}

/// The session of a chat that names none: the connection's current one
/// in this scope, else the newest in the scope, else a new one.
async fn resolve_session(
    daemon: &Daemon,
    conn: &Connection,
    scope: &Scope,
) -> Result<SessionHeader, MethodError> {
    let key = scope.key.clone();
    let legacy = conn.legacy().filter(|l| l.scope == key).map(|l| l.id);
    let target = scope.clone();
    let default_level = daemon.config.load().agent.reasoning_level;
    daemon
        .db(move |st| {
            if let Some(id) = legacy
                && let Some(h) = st.session(&key, &id)?
            {
                return Ok(h);
            }
            if let Some(h) = st.latest_session(&key)? {
                return Ok(h);
            }
            create_session(st, &target, None, default_level, true)
        })
        .await
}

/// Maps an agent event to its envelope (reference §3 shapes), labels worded
/// in `lang`; `None` for events this protocol does not carry (the
/// checkpoint's progress, which `status` and `workflow` already show).
pub fn envelope(id: i64, session: &str, ev: AgentEvent, lang: UiLanguage) -> Option<Envelope> {
    let env = match ev {
        AgentEvent::AutoCompaction(_) => return None,
        AgentEvent::Workflow { step, node, detail } => {
            let label = workflow_label(&node, lang).into_owned();
            let details = WorkflowDetails {
                step,
                kind: node.kind().as_str().to_string(),
                label: label.clone(),
                // `detail` is null unless there is one (the original sends null).
                detail: Some(detail).filter(|d| !d.is_empty()),
            };
            Envelope::event(id, label, &details)
        }
        AgentEvent::Status(s) => Envelope::new(id, event::STATUS, status_text(&s).into_owned()),
        AgentEvent::ModelStart {
            provider,
            model,
            step,
        } => Envelope::event(
            id,
            format!("{provider}/{model}"),
            &ModelStartDetails {
                provider,
                model,
                step,
            },
        ),
        ev @ (AgentEvent::Failover { .. } | AgentEvent::Retry { .. }) => model_notice(id, ev)?,
        AgentEvent::Thinking(d) => Envelope::new(id, event::THINKING, d),
        AgentEvent::Delta(d) => Envelope::new(id, event::DELTA, d),
        AgentEvent::Usage {
            provider,
            model,
            input_tokens,
            output_tokens,
            total_input_tokens,
            cached_input_tokens,
            elapsed_ms,
            ..
        } => Envelope::event(
            id,
            format!("{provider}/{model}"),
            &UsageDetails {
                provider,
                model,
                input_tokens,
                output_tokens,
                total_input_tokens,
                cached_input_tokens,
                // Whole milliseconds: sub-millisecond noise is no one's business.
                elapsed_ms: elapsed_ms.round().max(0.0) as u64,
            },
        ),
        AgentEvent::ImageView {
            image_id,
            name,
            media_type,
        } => Envelope::event(
            id,
            name,
            &ImageViewDetails {
                image_id,
                media_type,
            },
        ),
        AgentEvent::ToolStart {
            call_id,
            name,
            summary,
        } => Envelope::event(id, name, &ToolStartDetails { call_id, summary }),
        AgentEvent::ToolDone {
            call_id,
            success,
            duration_ms,
            summary,
            ..
        } => Envelope::event(
            id,
            summary,
            &ToolDoneDetails {
                call_id,
                success,
                duration_ms,
            },
        ),
        AgentEvent::FileDiff {
            call_id,
            path,
            diff,
        } => Envelope::event(id, path, &FileDiffDetails { call_id, diff }),
        // An engine notice is not the user's guidance: a client that opens a
        // bubble per `steer` must not open one for words nobody typed.
        AgentEvent::Steer {
            text,
            kind: SteerKind::Notice,
        } => Envelope::new(id, event::NOTICE, text),
        AgentEvent::Steer { text, .. } => Envelope::new(id, event::STEER, text),
        AgentEvent::ApprovalRequested {
            approval_id,
            call_id,
            tool,
            summary,
            arguments,
            diff,
        } => Envelope::event(
            id,
            summary.clone(),
            &ApprovalRequestDetails {
                approval_id,
                call_id,
                tool,
                summary,
                arguments,
                diff,
            },
        ),
        AgentEvent::ApprovalResolved {
            approval_id,
            call_id,
            outcome,
        } => Envelope::event(
            id,
            outcome.as_str(),
            &ApprovalResolvedDetails {
                approval_id,
                call_id,
                outcome: outcome.as_str().into(),
            },
        ),
        AgentEvent::ContextYield { to_seq, answer } => {
            Envelope::event(id, answer, &ContextYieldDetails { to_seq })
        }
        AgentEvent::GoalStatus(status) => {
            let (status, reason) = match status {
                GoalStatus::Met => ("met", None),
                GoalStatus::Blocked(reason) => ("blocked", Some(reason)),
                GoalStatus::Unblocked => ("unblocked", None),
            };
            let details = GoalUpdatedDetails {
                session_id: session.to_string(),
                status: status.into(),
                reason,
                auto: false,
            };
            Envelope::event(id, String::new(), &details)
        }
        AgentEvent::Reminder { kind, text } => {
            let kind = match kind {
                ReminderKind::Goal => "goal",
                ReminderKind::GoalCheck => "goal_check",
                ReminderKind::Plan => "plan",
            };
            Envelope::event(id, text, &ReminderDetails { kind: kind.into() })
        }
    };
    Some(env.with_session(Some(session.to_string())))
}

/// A failover's or a retry's envelope: `data` is the line a front end shows.
fn model_notice(id: i64, ev: AgentEvent) -> Option<Envelope> {
    let text = crate::presentation::model_notice(&ev).unwrap_or_default();
    Some(match ev {
        AgentEvent::Failover {
            step,
            failed,
            error,
            to,
        } => Envelope::event(
            id,
            text,
            &FailoverDetails {
                step,
                failed,
                error,
                to,
            },
        ),
        AgentEvent::Retry {
            step,
            model,
            attempt,
            max_attempts,
            reason,
            error,
            delay_ms,
        } => Envelope::event(
            id,
            text,
            &RetryDetails {
                step,
                model,
                attempt,
                max_attempts,
                reason,
                error,
                delay_ms,
            },
        ),
        _ => return None,
    })
}

/// The settings a session keeps over the config's: its own model (`/model`
/// in `seekclaw chat`), while the config still has it.
async fn session_overrides(
    daemon: &Daemon,
    scope: &Scope,
    session: Option<&str>,
) -> Result<TurnOverrides, MethodError> {
    let Some(sid) = session.map(str::to_string) else {
        return Ok(TurnOverrides::default());
    };
    let key = scope.key.clone();
    let model = daemon.db(move |s| s.session_model(&key, &sid)).await?;
    let config = daemon.config.load();
    let model = model.filter(|m| seekclaw_providers::routing::resolve(&config, m, false).is_some());
    Ok(TurnOverrides {
        model,
        ..TurnOverrides::default()
    })
}

pub async fn chat(
    daemon: &Arc<Daemon>,
    conn: &Connection,
    id: i64,
    p: &Params,
    start: ChatStart,
) -> Reply {
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
    let mut overrides = session_overrides(daemon, &scope, requested.as_deref()).await?;
    // A model named with this chat wins over the session's own; either is
    // pinned (it alone answers, no failover).
    if let Some(named) = params
        .model
        .as_deref()
        .map(str::trim)
        .filter(|m| !m.is_empty())
    {
        overrides.model = Some(named.to_string());
    }
    let engine = daemon.engine();
    let claim = Claim {
        engine,
        scope: &scope,
        requested,
        level,
        cancel: &start.cancel,
        steer: &start.steer,
        approvals: &start.approvals,
    };
    let watched = daemon.watchers.clone_message_if_watched(&message);
    let request = TurnRequest {
        scope: scope.clone(),
        message,
        images,
        cancel: start.cancel.clone(),
        steer: start.steer.clone(),
        session: claim_session(daemon.as_ref(), conn, claim),
        overrides,
        approvals: start.approvals.clone(),
    };
    let mut turn = engine.start_turn(request).await?;
    let sid = turn.session().id.clone();
    daemon
        .watchers
        .publish(&sid, Some(conn.id), || Watched::TurnStart {
            message: watched.unwrap_or_default(),
            origin: "chat",
        });
    start.claimed(&sid);
    daemon.session_owners.set(&sid, conn.outbox.clone());
    conn.set_legacy(Some(LegacySession {
        scope: scope.key.clone(),
        id: sid.clone(),
    }));
    let lang = daemon.config.load().ui.language();
    while let Some(ev) = turn.next_event().await {
        // Everything already produced goes out as one queued chunk: a fast
        // stream of deltas costs one hand-off per batch, not per delta.
        let lines = batch((&daemon.watchers, conn.id), (id, lang), &sid, ev, &mut turn);
        conn.outbox.send_line(lines).await;
    }
    let outcome = turn.outcome().await;
    daemon
        .watchers
        .publish(&sid, Some(conn.id), || Watched::TurnEnd(outcome.clone()));
    crate::goals::after_turn(daemon, &scope, &sid, &outcome);
    // Every event is written before the terminal.
    Ok(crate::outcome::terminal(id, Some(sid), outcome))
}

/// What a chat needs to claim its session.
struct Claim<'a> {
    engine: Engine<'a>,
    scope: &'a Scope,
    requested: Option<String>,
    level: Option<ReasoningLevel>,
    cancel: &'a CancellationToken,
    steer: &'a SteerQueue,
    approvals: &'a seekclaw_agent::Approvals,
}

/// Resolves the chat's session (reference §2.5), applies its reasoning level
/// and marks it busy (one turn per session). A named session is claimed before
/// it is read, so the read, which also brings its conversation (one trip to
/// the store), sees every turn that finished before this one started.
async fn claim_session<'d>(
    daemon: &'d Daemon,
    conn: &Connection,
    claim: Claim<'d>,
) -> Result<SessionClaim<'d>, MethodError> {
    let claim_id = |sid: &str| {
        claim
            .engine
            .claim(sid, claim.cancel, claim.steer, claim.approvals)
    };
    let level = claim.level;
    let Some(sid) = claim.requested else {
        let mut session = resolve_session(daemon, conn, claim.scope).await?;
        let stored = stored_level(&session);
        if let Some(patch) = level_patch(level, stored) {
            let (k, s) = (claim.scope.key.clone(), session.id.clone());
            if let Some(h) = daemon
                .db(move |st| st.update_session(&k, &s, &patch))
                .await?
            {
                session = h;
            }
        }
        let guard = claim_id(&session.id)?;
        return Ok(SessionClaim {
            session,
            guard,
            reasoning: level.unwrap_or(stored),
            past: None,
        });
    };
    let guard = claim_id(&sid)?;
    let (k, s) = (claim.scope.key.clone(), sid.clone());
    // A short log is read right here when a store connection is idle (the
    // usual case): a fraction of a millisecond, less than a trip to a blocking
    // thread and back costs. Long logs, a busy store and a level to store
    // take the trip.
    let found = match daemon.store.try_conversation(&k, &s) {
        // Without a level to store, the stored one is the turn's.
        Some(Ok(Some(c))) if level_patch(level, stored_level(&c.header)).is_none() => {
            let reasoning = stored_level(&c.header);
            Ok(Some((c.header, reasoning, c.events)))
        }
        Some(Ok(None)) => Ok(None),
        Some(Err(e)) => Err(crate::error::store_error(e)),
        _ => {
            daemon
                .db(move |st| {
                    let Some(c) = st.conversation(&k, &s)? else {
                        return Ok(None);
                    };
                    let mut session = c.header;
                    let stored = stored_level(&session);
                    if let Some(patch) = level_patch(level, stored)
                        && let Some(h) = st.update_session(&k, &s, &patch)?
                    {
                        session = h;
                    }
                    Ok(Some((session, level.unwrap_or(stored), c.events)))
                })
                .await
        }
    }
    .map_err(|e| e.with_session(Some(sid.clone())))?;
    let Some((session, reasoning, past)) = found else {
        return Err(
            MethodError::not_found(format!("Session {sid} not found")).with_session(Some(sid))
        );
    };
    Ok(SessionClaim {
        session,
        guard,
        reasoning,
        past: Some(past),
    })
}

/// The reasoning level stored with a session (the default if unreadable).
fn stored_level(session: &SessionHeader) -> ReasoningLevel {
    ReasoningLevel::parse(&session.reasoning_level).unwrap_or_default()
}

/// The session change a chat's `reasoningLevel` asks for, if any.
fn level_patch(level: Option<ReasoningLevel>, stored: ReasoningLevel) -> Option<SessionPatch> {
    let level = level.filter(|l| *l != stored)?;
    Some(SessionPatch {
        reasoning_level: Some(level.as_str().to_string()),
        ..SessionPatch::default()
    })
}

/// `first` and whatever else the turn has already produced (up to ~64 KB) as
/// one chunk of envelope lines.
fn batch(
    (watchers, conn): (&Watchers, u64),
    (id, lang): (i64, UiLanguage),
    sid: &str,
    first: AgentEvent,
    turn: &mut TurnHandle<'_>,
) -> Vec<u8> {
    let mut lines = Vec::with_capacity(256);
    watchers.event(sid, Some(conn), &first);
    write_event(&mut lines, (id, lang), sid, first);
    while lines.len() < BATCH_BYTES {
        let Some(ev) = turn.ready_event() else { break };
        watchers.event(sid, Some(conn), &ev);
        write_event(&mut lines, (id, lang), sid, ev);
    }
    lines
}

/// One event's envelope line; streamed text skips building the envelope.
fn write_event(lines: &mut Vec<u8>, (id, lang): (i64, UiLanguage), sid: &str, ev: AgentEvent) {
    match ev {
        AgentEvent::Delta(text) => write_text_line(lines, id, event::DELTA, &text, sid),
        AgentEvent::Thinking(text) => write_text_line(lines, id, event::THINKING, &text, sid),
        ev => {
            if let Some(env) = envelope(id, sid, ev, lang) {
                env.write_line(lines);
            }
        }
    }
}

pub async fn steer(daemon: &Daemon, conn: &Connection, id: i64, p: &Params) -> Reply {
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
        (None, Some(sid)) => match daemon.turns.by_session(sid) {
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

pub async fn cancel(conn: &Connection, id: i64, p: &Params) -> Reply {
    // Every chat of the connection from the moment its line was read, claimed or not.
    let mine = conn.chats.findable();
    let text = match p.read::<method::AgentCancel>()?.request_id {
        Some(rid) => match mine.iter().find(|(r, _)| *r == rid) {
            Some((_, chat)) => {
                chat.cancel.cancel();
                format!("cancellation requested for {rid}")
            }
            None => "no active turn".to_string(),
        },
        None if mine.is_empty() => "no active turn".to_string(),
        None => {
            for (_, chat) in &mine {
                chat.cancel.cancel();
            }
            // The original's wording, also for one turn.
            format!("cancellation requested for {} active turns", mine.len())
        }
    };
    Ok(Envelope::result(id, text))
}
