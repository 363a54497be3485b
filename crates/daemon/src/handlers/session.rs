//! `session.*`: scoped session headers and their projected message logs.

use seekclaw_config::ApprovalPolicy;

use seekclaw_engine::create_session;
use seekclaw_protocol::api::{Scope as _, ScopeParams, SessionRefParams};
use seekclaw_protocol::{Envelope, JsonArrayBuilder, MethodError, Params, method};
use seekclaw_store::{Message, SessionHeader, SessionPatch};
use serde::Serialize;

use super::{Reply, parse_reasoning_level};
use crate::connection::{Connection, LegacySession};
use crate::ctx::Ctx;
use crate::error::Wire;
use crate::scope::{self, Scope};

fn validate_id(id: &str) -> Result<(), MethodError> {
    if id.is_empty() || id.len() > 128 || id.contains(['/', '\\']) || id == "." || id == ".." {
        return Err(MethodError::invalid_param(
            "id",
            "Invalid session id. (Parameter 'sessionId')",
        ));
    }
    Ok(())
}

fn not_found(id: &str) -> MethodError {
    MethodError::not_found(format!("Session not found: {id}"))
}

/// One session in a scope: its trimmed id and the scope named.
pub struct SessionRef {
    pub id: String,
    pub scope: ScopeParams,
}

impl From<&SessionRefParams> for SessionRef {
    fn from(p: &SessionRefParams) -> Self {
        SessionRef {
            id: p.id.trimmed(),
            scope: p.scope(),
        }
    }
}

impl From<&seekclaw_protocol::api::SessionWatchParams> for SessionRef {
    fn from(p: &seekclaw_protocol::api::SessionWatchParams) -> Self {
        SessionRef {
            id: p.id.trimmed(),
            scope: p.scope(),
        }
    }
}

impl From<&seekclaw_protocol::api::SessionTimelineParams> for SessionRef {
    fn from(p: &seekclaw_protocol::api::SessionTimelineParams) -> Self {
        SessionRef {
            id: p.id.trimmed(),
            scope: p.scope(),
        }
    }
}

/// Resolves the scope and checks the id of a session-addressing request.
pub(crate) fn target(daemon: &Ctx, r: &SessionRef) -> Result<Scope, MethodError> {
    validate_id(&r.id)?;
    scope::resolve(daemon, &r.scope)
}

pub async fn new_session(daemon: &Ctx, conn: &Connection, id: i64, p: &Params) -> Reply {
    let params = p.read::<method::SessionNew>()?;
    let scope = scope::resolve(daemon, &params.scope())?;
    let level = match &params.reasoning_level {
        Some(raw) => parse_reasoning_level(raw)?,
        None => daemon.engine.config.load().agent.reasoning_level,
    };
    let network_enabled = params.network_enabled.unwrap_or(true);
    let target = scope.clone();
    let header = daemon
        .db(move |s| create_session(s, &target, None, level, network_enabled))
        .await?;
    conn.set_legacy(Some(LegacySession {
        scope: scope.key,
        id: header.id.clone(),
    }));
    Ok(Envelope::result(id, header.id))
}

pub async fn list(daemon: &Ctx, id: i64, p: &Params) -> Reply {
    let params = p.read::<method::SessionList>()?;
    let scope = scope::resolve(daemon, &params.scope())?;
    let include = params.include_archived.unwrap_or(false);
    daemon
        .db(move |s| {
            let mut list = JsonArrayBuilder::indented();
            s.for_each_session(&scope.key, include, |h| Ok(list.push(h)?))?;
            Ok(list.into_result(id))
        })
        .await
}

/// `session.get`: the header with `title` and `workspace` always present
/// (`null` when unset, as the original's hand-built object has them), then
/// the messages.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SessionView {
    id: String,
    title: Option<String>,
    workspace: Option<String>,
    #[serde(flatten)]
    rest: SessionHeader,
    approval_policy: &'static str,
    approval_rules: Vec<seekclaw_store::ApprovalRule>,
    model: Option<String>,
    messages: Vec<SeqMessage>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    children: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    instruction_files: Option<serde_json::Value>,
}

/// A message with the log seq it comes from (ours, additive): what
/// `session.rewind` and `session.fork` take for a user message.
#[derive(Serialize)]
struct SeqMessage {
    #[serde(flatten)]
    message: Message,
    seq: u64,
}

/// `session.update`'s answer: the header, and the session's own model when
/// it has one.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct UpdatedSession {
    #[serde(flatten)]
    header: SessionHeader,
    #[serde(skip_serializing_if = "Option::is_none")]
    model: Option<String>,
}

impl SessionView {
    fn new(
        mut header: SessionHeader,
        approvals: (ApprovalPolicy, Vec<seekclaw_store::ApprovalRule>),
        model: Option<String>,
        messages: Vec<Message>,
    ) -> SessionView {
        SessionView {
            id: std::mem::take(&mut header.id),
            title: header.title.take(),
            workspace: header.workspace.take(),
            rest: header,
            approval_policy: approvals.0.as_str(),
            approval_rules: approvals.1,
            model,
            messages: messages
                .into_iter()
                .map(|message| SeqMessage {
                    seq: message.seq,
                    message,
                })
                .collect(),
            children: Vec::new(),
            instruction_files: None,
        }
    }
}

/// The policy a session's turns run with: its own, else its workspace's,
/// else the config's.
fn session_policy(daemon: &Ctx, scope: &crate::scope::Scope, own: Option<&str>) -> ApprovalPolicy {
    let workspace = scope
        .workspace
        .as_deref()
        .and_then(|root| super::workspace::workspace_config(daemon, root));
    seekclaw_agent::effective_policy(&daemon.engine.config.load(), workspace.as_ref(), own)
}

pub async fn get(daemon: &Ctx, id: i64, p: &Params) -> Reply {
    let r = SessionRef::from(&p.read::<method::SessionGet>()?);
    let scope = target(daemon, &r)?;
    let sid = r.id.clone();
    let key = scope.key.clone();
    let found = daemon
        .db(move |s| {
            let Some(header) = s.session(&key, &sid)? else {
                return Ok(None);
            };
            let approvals = s.session_approvals(&key, &sid)?;
            let model = s.session_model(&key, &sid)?;
            let messages = s.messages(&key, &sid)?;
            let children = s.child_sessions(&key, &sid)?;
            let instructions = s.turn_context(&key, &sid)?.and_then(|c| c.instructions);
            Ok(Some((
                header,
                approvals,
                model,
                messages,
                (children, instructions),
            )))
        })
        .await?
        .ok_or_else(|| not_found(&r.id))?;
    let (header, approvals, model, messages, (children, instructions)) = found;
    let policy = session_policy(daemon, &scope, approvals.policy.as_deref());
    let mut view = SessionView::new(header, (policy, approvals.rules), model, messages);
    view.children = children;
    view.instruction_files = instructions.and_then(|json| serde_json::from_str(&json).ok());
    Ok(Envelope::json_result(id, &view))
}

/// `session.timeline`: the whole log as a front end redraws it (see
/// `crate::timeline`).
///
/// With `follow`, the entries of the turns the stream can replay (the one
/// running when it was asked, and any started since) are left out, and
/// `followAfterSeq` says where `session.watch` replays them from: read
/// before the log, so whatever the log misses the replay has.
pub async fn timeline(daemon: &Ctx, id: i64, p: &Params) -> Reply {
    let params = p.read::<method::SessionTimeline>()?;
    let r = SessionRef::from(&params);
    let scope = target(daemon, &r)?;
    let sid = r.id.clone();
    let follow = params.follow == Some(true);
    let after = follow.then(|| {
        let at = daemon.engine.bus.position(&sid);
        at.running.map_or(at.seq, |(start, _)| start - 1)
    });
    let bus = daemon.engine.bus.clone();
    let found = daemon
        .db(move |s| {
            let Some(header) = s.session(&scope.key, &sid)? else {
                return Ok(None);
            };
            let cost = s.session_cost(&scope.key, &sid)?;
            let model = s.session_model(&scope.key, &sid)?;
            let mut events = s.events(&scope.key, &sid)?;
            if let Some(after) = after {
                let replayed = bus.turns_after(&sid, after);
                events.retain(|e| e.turn.as_ref().is_none_or(|t| !replayed.contains(t)));
            }
            let mut timeline = crate::timeline::session_timeline(header, cost, model, events);
            timeline.follow_after_seq = after;
            Ok(Some(timeline))
        })
        .await?
        .ok_or_else(|| not_found(&r.id))?;
    Ok(Envelope::json_result(id, &found))
}

async fn patch(
    daemon: &Ctx,
    r: &SessionRef,
    patch: SessionPatch,
) -> Result<SessionHeader, MethodError> {
    let scope = target(daemon, r)?;
    let sid = r.id.clone();
    daemon
        .db(move |s| s.update_session(&scope.key, &sid, &patch))
        .await?
        .ok_or_else(|| not_found(&r.id))
}

pub async fn update(daemon: &Ctx, id: i64, p: &Params) -> Reply {
    let params = p.read::<method::SessionUpdate>()?;
    let session = SessionRef {
        id: params.id.trimmed(),
        scope: params.scope(),
    };
    let reasoning_level = match &params.reasoning_level {
        Some(raw) => Some(parse_reasoning_level(raw)?.as_str().to_string()),
        None => None,
    };
    // `""` or null clears the title; null `networkEnabled` means true.
    let title = params.title.map(|t| {
        t.as_deref()
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(str::to_string)
    });
    // null returns to the inherited policy; anything else must be a policy.
    let policy = match params.approval_policy {
        None => None,
        Some(None) => Some(None),
        Some(Some(raw)) => Some(Some(
            ApprovalPolicy::parse_strict(&raw)
                .ok_or_else(|| {
                    MethodError::invalid_param(
                        "approvalPolicy",
                        format!("Invalid approval policy: {raw} (expected never, on-request or untrusted)"),
                    )
                })?
                .as_str(),
        )),
    };
    let model = match params.model {
        None => None,
        Some(None) => Some(None),
        Some(Some(raw)) => Some(Some(session_model_ref(daemon, &raw)?)),
    };
    let header = patch(
        daemon,
        &session,
        SessionPatch {
            title,
            reasoning_level,
            network_enabled: params.network_enabled.map(|n| n.unwrap_or(true)),
            archived: None,
        },
    )
    .await?;
    if let Some(policy) = policy {
        let scope = target(daemon, &session)?;
        let sid = header.id.clone();
        daemon
            .db(move |s| s.set_session_approval_policy(&scope.key, &sid, policy))
            .await?;
    }
    let scope = target(daemon, &session)?;
    let sid = header.id.clone();
    let model = daemon
        .db(move |s| {
            if let Some(model) = model {
                s.set_session_model(&scope.key, &sid, model.as_deref())?;
            }
            s.session_model(&scope.key, &sid)
        })
        .await?;
    Ok(Envelope::json_result(id, &UpdatedSession { header, model }))
}

/// The `provider/model` a session's `model` names (a ref, an alias or a
/// unique bare id of an enabled provider).
fn session_model_ref(daemon: &Ctx, wanted: &str) -> Result<String, MethodError> {
    let config = daemon.engine.config.load();
    let wanted = wanted.trim();
    seekclaw_providers::routing::resolve(&config, wanted, false)
        .map(|h| h.model_ref(&config))
        .ok_or_else(|| MethodError::invalid_param("model", format!("Unknown model {wanted}")))
}

pub async fn archive(daemon: &Ctx, conn: &Connection, id: i64, p: &Params) -> Reply {
    let params = p.read::<method::SessionArchive>()?;
    let archived = params.archived.unwrap_or(true);
    let session = SessionRef {
        id: params.id.trimmed(),
        scope: params.scope(),
    };
    let header = patch(
        daemon,
        &session,
        SessionPatch {
            archived: Some(archived),
            ..SessionPatch::default()
        },
    )
    .await?;
    if archived {
        conn.clear_legacy_if(&header.id);
    }
    Ok(Envelope::json_result(id, &header))
}

pub async fn delete(daemon: &Ctx, conn: &Connection, id: i64, p: &Params) -> Reply {
    let r = SessionRef::from(&p.read::<method::SessionDelete>()?);
    let scope = target(daemon, &r)?;
    let sid = r.id.clone();
    let deleted = daemon
        .db(move |s| s.delete_session(&scope.key, &sid))
        .await?;
    if !deleted {
        return Err(not_found(&r.id));
    }
    // The session is closed: its background jobs end with it.
    daemon.engine.jobs.close(&r.id);
    // Its checkpoints and hook files go too.
    daemon.engine.forget_session(&r.id).await;
    daemon.session_owners.forget(&r.id);
    daemon.engine.goals.set(&r.id, false);
    conn.clear_legacy_if(&r.id);
    Ok(Envelope::result(id, r.id))
}

pub async fn truncate(daemon: &Ctx, id: i64, p: &Params) -> Reply {
    let params = p.read::<method::SessionTruncate>()?;
    let session = SessionRef {
        id: params.id.trimmed(),
        scope: params.scope(),
    };
    let keep = usize::try_from(params.keep_count.into_inner()).map_err(|_| {
        MethodError::invalid_param("keepCount", "params.keepCount is required (>= 0)")
    })?;
    let scope = target(daemon, &session)?;
    let sid = session.id.clone();
    let remaining = daemon
        .db(move |s| {
            if s.session(&scope.key, &sid)?.is_none() {
                return Ok(None);
            }
            s.truncate_messages(&scope.key, &sid, keep).map(Some)
        })
        .await?
        .ok_or_else(|| not_found(&session.id))?;
    Ok(Envelope::result(id, remaining.to_string()))
}

/// `session.compact`: one summary over the whole log, appended (events are
/// never rewritten); the next turn starts from it. `busy` while a turn runs
/// on the session (here or in another process); `agent.cancel` stops it.
pub async fn compact(daemon: &Ctx, id: i64, p: &Params) -> Reply {
    let r = SessionRef::from(&p.read::<method::SessionCompact>()?);
    let scope = target(daemon, &r)?;
    let cancel = tokio_util::sync::CancellationToken::new();
    let done = daemon
        .engine
        .compact_session(&scope, &r.id, &Default::default(), &cancel, |_, _| {})
        .await
        .wire()?;
    let result = seekclaw_protocol::api::SessionCompactResult {
        id: r.id.clone(),
        from_seq: done.from_seq,
        to_seq: done.to_seq,
        summary_seq: done.seq,
        summary: done.summary,
    };
    Ok(Envelope::json_result(id, &result).with_session(Some(r.id)))
}

pub async fn resume(daemon: &Ctx, conn: &Connection, id: i64, p: &Params) -> Reply {
    let r = SessionRef::from(&p.read::<method::SessionResume>()?);
    let scope = target(daemon, &r)?;
    let (key, sid) = (scope.key.clone(), r.id.clone());
    let found = daemon.db(move |s| s.session(&key, &sid)).await?;
    if found.is_none() {
        return Err(MethodError::not_found(format!(
            "Session {} not found",
            r.id
        )));
    }
    conn.set_legacy(Some(LegacySession {
        scope: scope.key,
        id: r.id.clone(),
    }));
    Ok(Envelope::result(id, format!("resumed {}", r.id)))
}
