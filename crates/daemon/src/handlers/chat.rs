//! `chat` (and its aliases), `agent.steer`, `agent.cancel`: turns on sessions,
//! streamed to the requesting connection as envelopes.

use std::sync::Arc;

use seekclaw_agent::{AgentEvent, GoalStatus, ReminderKind, Steer, SteerKind, SteerQueue};
use seekclaw_config::UiLanguage;
use seekclaw_protocol::api::Scope as _;
use seekclaw_protocol::events::{
    ApprovalRequestDetails, ApprovalResolvedDetails, ContextYieldDetails, FailoverDetails,
    FileDiffDetails, GoalUpdatedDetails, ImageViewDetails, ModelStartDetails, ReminderDetails,
    RetryDetails, SubrunFinishedDetails, SubrunProgressDetails, SubrunStartedDetails,
    ToolDoneDetails, ToolStartDetails, UsageDetails, WorkflowDetails,
};
use seekclaw_protocol::{Envelope, ErrorCode, MethodError, Params, event, method, write_text_line};

use super::{Reply, parse_reasoning_level};
use crate::chats::{ChatEntry, ChatStart};
use crate::connection::{Connection, LegacySession};
use crate::daemon::Daemon;
use crate::presentation::{status_text, workflow_label};
use crate::scope;
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

/// Maps an agent event to its envelope (reference §3 shapes), labels worded
/// in `lang`; `None` for events this protocol does not carry (the
/// checkpoint's progress, which `status` and `workflow` already show).
pub fn envelope(id: i64, session: &str, ev: AgentEvent, lang: UiLanguage) -> Option<Envelope> {
    let env = match ev {
        // The desktop protocol has no stop reason; `done` says the turn ended.
        AgentEvent::AutoCompaction(_) | AgentEvent::AnswerFinish { .. } => return None,
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
            cost_usd,
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
                cost_usd,
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
        AgentEvent::SubrunStarted(s) => subrun(id, s, SubrunStartedDetails::of),
        AgentEvent::SubrunProgress(s) => subrun(id, s, SubrunProgressDetails::of),
        AgentEvent::SubrunFinished(s) => subrun(id, s, SubrunFinishedDetails::of),
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
    // A model named with this chat wins over the session's own; either is
    // pinned (it alone answers, no failover).
    let overrides = TurnOverrides {
        model: params
            .model
            .as_deref()
            .map(str::trim)
            .filter(|m| !m.is_empty())
            .map(str::to_string),
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
    let mut turn = daemon.engine.start_turn(request).await?;
    let sid = turn.session().id.clone();
    start.claimed(&sid);
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
    let outcome = turn.outcome().await;
    crate::goals::after_turn(daemon, &scope, &sid, &outcome);
    // Notices come only from background jobs: a session the turn left
    // without any needs no owner (kept, one per session, forever).
    if !daemon.engine.jobs.holds(&sid) {
        daemon.session_owners.forget(&sid);
    }
    // Every event is written before the terminal.
    Ok(crate::outcome::terminal(id, Some(sid), outcome))
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
    write_event(&mut lines, (id, lang), sid, first);
    while lines.len() < BATCH_BYTES {
        let Some(ev) = turn.ready_event() else { break };
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

pub async fn cancel(daemon: &Daemon, conn: &Connection, id: i64, p: &Params) -> Reply {
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

/// A subrun event's envelope: its label as `data`, the same fields under
/// each event's own details type.
fn subrun<D: seekclaw_protocol::events::EventDetails>(
    id: i64,
    s: seekclaw_agent::Subrun,
    of: fn(String, String, String, String, u64, u64) -> D,
) -> Envelope {
    let tokens = s.tokens();
    let details = of(s.id, s.kind, s.label.clone(), s.status, s.steps, tokens);
    Envelope::event(id, s.label, &details)
}
