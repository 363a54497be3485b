//! What the page shows, read from the store (read-only) as JSON values.
//! The model view reuses the agent's own projection and repair
//! ([`seekclaw_agent::model_messages`]), so it cannot drift from what turns send.

use std::path::Path;

use seekclaw_providers::types::ChatMessage;
use seekclaw_store::{ListedSession, SessionEvent, Store};
use serde::Serialize;
use serde_json::{Value, json};

use crate::InspectError;

/// Events per page of `/events` (a bigger log is fetched in pages; every
/// page reads the log, so a 5,000-event session is one request).
pub const PAGE: usize = 5_000;

/// The read-only store and the queries of the page.
#[derive(Clone, Debug)]
pub struct Data {
    store: Store,
    /// The shadow store of workspace files beside it (`checkpoints.db`),
    /// opened read-only per request: it may appear after the page opened.
    pub(crate) checkpoints: std::path::PathBuf,
}

impl Data {
    /// Opens the database at `db` read-only.
    pub fn open(db: &Path) -> Result<Data, InspectError> {
        Ok(Data {
            store: Store::open_read_only(db)?,
            checkpoints: db.with_file_name("checkpoints.db"),
        })
    }

    /// Every scope's sessions, most recently active first; the first `limit`
    /// only when given (the sidebar's first screen).
    pub fn sessions(
        &self,
        include_archived: bool,
        limit: Option<usize>,
    ) -> Result<Vec<SidebarRow>, InspectError> {
        let listed = self.store.list_recent(None, include_archived, limit)?;
        Ok(listed.into_iter().map(SidebarRow::from).collect())
    }

    /// The scope of session `id`: `scope` when given, else the only scope
    /// holding such an id.
    pub fn scope_of(&self, id: &str, scope: Option<&str>) -> Result<String, InspectError> {
        if let Some(scope) = scope {
            return match self.store.session(scope, id)? {
                Some(_) => Ok(scope.to_string()),
                None => Err(InspectError::NotFound(id.to_string())),
            };
        }
        let mut scopes = self.store.scopes_of_session(id)?.into_iter();
        match (scopes.next(), scopes.next()) {
            (Some(scope), None) => Ok(scope),
            (None, _) => Err(InspectError::NotFound(id.to_string())),
            (Some(_), Some(_)) => Err(InspectError::Ambiguous(id.to_string())),
        }
    }

    /// The events after seq `after`, at most `limit` of them, with the seq
    /// of the log's last event and whether more follow.
    pub fn events(
        &self,
        scope: &str,
        id: &str,
        after: u64,
        limit: usize,
    ) -> Result<EventPage, InspectError> {
        let all = self.store.events(scope, id)?;
        let last = all.last().map_or(0, |e| e.seq);
        let events: Vec<SessionEvent> = all
            .into_iter()
            .filter(|e| e.seq > after)
            .take(limit)
            .collect();
        let more = events.last().is_some_and(|e| e.seq < last);
        Ok(EventPage {
            scope: scope.to_string(),
            id: id.to_string(),
            last,
            more,
            events,
        })
    }

    /// Every event of a session (for the export).
    pub fn all_events(&self, scope: &str, id: &str) -> Result<Vec<SessionEvent>, InspectError> {
        Ok(self.store.events(scope, id)?)
    }

    /// The highest seq of the session's log (the live tail polls it).
    pub fn last_seq(&self, scope: &str, id: &str) -> Result<u64, InspectError> {
        Ok(self.store.last_seq(scope, id)?)
    }

    /// The model view at event `seq`: the messages the model had been sent
    /// when it produced that event (every event before it, projected and
    /// repaired as the turn does: summaries replace their range, old images
    /// become placeholders, a dangling call gets its synthesized failure).
    pub fn model_view(&self, scope: &str, id: &str, seq: u64) -> Result<Value, InspectError> {
        let events = self.store.events(scope, id)?;
        let context = self.store.turn_context(scope, id)?;
        let prompt = context.as_ref().map(|c| c.system_prompt.as_str());
        let tools = context.as_ref().and_then(|c| c.tools.as_deref());
        let mut view = model_view_of(&events, seq, prompt, tools);
        // Which instruction files the prompt included (AGENTS.md and the like).
        let files = context.as_ref().and_then(|c| c.instructions.as_deref());
        if let Some(files) = files.and_then(|f| serde_json::from_str::<Value>(f).ok()) {
            view["instructionFiles"] = files;
        }
        Ok(view)
    }

    /// The session's usage ledger summed per turn: every provider call its
    /// turns made, what the session's totals (the page's header) sum too.
    pub fn usage(
        &self,
        scope: &str,
        id: &str,
    ) -> Result<Vec<seekclaw_store::TurnUsage>, InspectError> {
        Ok(self.store.usage_by_turn(scope, id)?)
    }

    /// Full-text search over every session (see [`Store::search`]).
    pub fn search(&self, query: &str, limit: usize) -> Result<Value, InspectError> {
        let hits = self.store.search(query, None, limit)?;
        Ok(serde_json::to_value(hits).unwrap_or(Value::Null))
    }

    /// The system prompt and tools the session's latest turn was sent (or the
    /// prompt its imported file brought); `None` for sessions from before
    /// prompts were recorded.
    pub fn turn_context(
        &self,
        scope: &str,
        id: &str,
    ) -> Result<Option<seekclaw_store::TurnContext>, InspectError> {
        Ok(self.store.turn_context(scope, id)?)
    }
}

/// One row of the sidebar (and of an export's session list).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SidebarRow {
    pub scope: String,
    pub id: String,
    pub title: Option<String>,
    pub workspace: Option<String>,
    pub global: bool,
    pub archived: bool,
    pub created_at: String,
    pub updated_at: String,
    pub turns: u64,
    pub llm_rounds: i64,
    pub input_tokens: i64,
    pub cached_input_tokens: i64,
    pub output_tokens: i64,
    pub cost: f64,
    pub running: bool,
    /// The session whose turn started this one (a subagent's): the sidebar
    /// nests it under its parent. Absent for a top-level session.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent_id: Option<String>,
    /// The session it was forked from: the sidebar nests and marks it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub forked_from: Option<String>,
}

impl From<ListedSession> for SidebarRow {
    fn from(l: ListedSession) -> SidebarRow {
        let h = l.header;
        SidebarRow {
            global: h.workspace.is_none(),
            running: h.active_turn.is_some(),
            scope: h.scope,
            id: h.id,
            title: h.title,
            workspace: h.workspace,
            archived: h.archived,
            created_at: h.created_at,
            updated_at: h.updated_at,
            turns: l.turns,
            llm_rounds: h.llm_rounds,
            input_tokens: h.total_input_tokens,
            cached_input_tokens: h.cached_input_tokens,
            output_tokens: h.output_tokens,
            cost: l.cost,
            parent_id: h.parent_id,
            forked_from: h.forked_from.map(|f| f.session_id),
        }
    }
}

/// A page of a session's log.
#[derive(Debug, Clone, Serialize)]
pub struct EventPage {
    pub scope: String,
    pub id: String,
    /// The seq of the log's last event.
    pub last: u64,
    /// Whether events follow this page.
    pub more: bool,
    pub events: Vec<SessionEvent>,
}

/// [`Data::model_view`] over events already read. `tools` is the recorded
/// tool list (JSON text). Token counts are the engine's own estimates (what
/// it fits the context window with); the step's event carries the provider's
/// count.
pub fn model_view_of(
    events: &[SessionEvent],
    seq: u64,
    system_prompt: Option<&str>,
    tools: Option<&str>,
) -> Value {
    let messages = messages_before(events, seq);
    let tools: Option<Value> = tools.and_then(|t| serde_json::from_str(t).ok());
    let tool_tokens = tools_tokens(tools.as_ref());
    let message_tokens: u64 = messages.iter().filter_map(|m| m["tokens"].as_u64()).sum();
    let system_tokens = system_prompt.map_or(0, seekclaw_agent::estimate_text);
    json!({
        "seq": seq,
        "systemPrompt": system_prompt,
        "systemTokens": system_tokens,
        "tools": tools,
        "toolTokens": tool_tokens,
        "messages": messages,
        "estimatedTokens": system_tokens + tool_tokens + message_tokens,
    })
}

/// The messages the model had been sent before event `seq` (`events` in seq
/// order), as the page shows them.
pub(crate) fn messages_before(events: &[SessionEvent], seq: u64) -> Vec<Value> {
    let before = &events[..events.partition_point(|e| e.seq < seq)];
    seekclaw_agent::model_messages(before)
        .iter()
        .map(|(from, m)| message_json(*from, m))
        .collect()
}

/// The engine's estimate of a recorded tool list's tokens.
pub(crate) fn tools_tokens(tools: Option<&Value>) -> u64 {
    tools.map_or(0, |t| seekclaw_agent::estimate_text(&t.to_string()))
}

/// One projected message as the page shows it, with its estimated tokens.
pub(crate) fn message_json(seq: Option<u64>, m: &ChatMessage) -> Value {
    let mut v = message_fields(seq, m);
    v["tokens"] = seekclaw_agent::estimate_tokens(m).into();
    v
}

fn message_fields(seq: Option<u64>, m: &ChatMessage) -> Value {
    match m {
        ChatMessage::User { text, images } => {
            json!({"seq": seq, "role": "user", "text": text, "images": images.len()})
        }
        ChatMessage::Assistant {
            text,
            thinking,
            tool_calls,
        } => json!({
            "seq": seq,
            "role": "assistant",
            "text": text,
            "thinking": thinking.as_ref().map(|t| t.text.clone()),
            "toolCalls": tool_calls.iter().map(|c| json!({
                "id": c.id, "name": c.name, "arguments": c.arguments,
            })).collect::<Vec<_>>(),
        }),
        ChatMessage::Tool {
            call_id,
            name,
            content,
            is_error,
            ..
        } => json!({
            "seq": seq, "role": "tool", "callId": call_id, "name": name,
            "text": content, "isError": is_error,
        }),
    }
}

#[cfg(test)]
mod tests {
    use seekclaw_store::{
        AssistantMessage, EventItem, NewSession, TerminalStatus, ToolCall, TurnTerminal,
        UserMessage,
    };

    use super::*;

    fn user(text: &str) -> EventItem {
        EventItem::User(UserMessage {
            text: text.into(),
            images: Vec::new(),
        })
    }

    #[test]
    fn pages_scopes_and_the_model_view() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("seekclaw.db");
        let store = Store::open(&db).unwrap();
        for (scope, id) in [("g", "a"), ("w", "a"), ("g", "b")] {
            store
                .create_session(&NewSession {
                    scope: scope.into(),
                    id: id.into(),
                    reasoning_level: "high".into(),
                    ..Default::default()
                })
                .unwrap();
        }
        let call = EventItem::Assistant(AssistantMessage {
            tool_calls: vec![ToolCall {
                id: "c1".into(),
                name: "shell".into(),
                arguments_json: "{}".into(),
            }],
            ..Default::default()
        });
        let end = EventItem::Terminal(TurnTerminal {
            status: TerminalStatus::Interrupted,
            text: "killed".into(),
        });
        let items = [user("go"), call, end, user("again"), user("more")];
        store.append_events("g", "b", None, &items).unwrap();

        let child = NewSession {
            scope: "g".into(),
            id: "b-sr-1".into(),
            reasoning_level: "high".into(),
            ..Default::default()
        };
        store.create_child_session(&child, "b").unwrap();

        let data = Data::open(&db).unwrap();
        let rows = data.sessions(false, None).unwrap();
        assert_eq!(rows.len(), 4);
        let wire = serde_json::to_value(&rows).unwrap();
        let nested: Vec<(&str, Option<&str>)> = wire
            .as_array()
            .unwrap()
            .iter()
            .map(|r| (r["id"].as_str().unwrap(), r["parentId"].as_str()))
            .collect();
        assert!(nested.contains(&("b-sr-1", Some("b"))), "{nested:?}");
        assert!(nested.contains(&("b", None)), "{nested:?}");
        assert_eq!(data.sessions(false, Some(2)).unwrap().len(), 2);
        assert!(matches!(
            data.scope_of("a", None),
            Err(InspectError::Ambiguous(_))
        ));
        assert_eq!(data.scope_of("a", Some("w")).unwrap(), "w");
        assert_eq!(data.scope_of("b", None).unwrap(), "g");
        assert!(matches!(
            data.scope_of("zz", None),
            Err(InspectError::NotFound(_))
        ));

        let page = data.events("g", "b", 1, 2).unwrap();
        let seqs: Vec<u64> = page.events.iter().map(|e| e.seq).collect();
        assert_eq!(seqs, [2, 3]);
        assert_eq!((page.last, page.more), (5, true));
        assert_eq!(data.last_seq("g", "b").unwrap(), 5);

        // Before event 5: the dangling call is closed as the turn loop closes it.
        let view = data.model_view("g", "b", 5).unwrap();
        let roles: Vec<&str> = view["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["role"].as_str().unwrap())
            .collect();
        assert_eq!(roles, ["user", "assistant", "tool", "user"]);
        assert!(view["messages"][2]["seq"].is_null());
        assert_eq!(view["messages"][2]["isError"], true);
        assert!(view.get("instructionFiles").is_none());

        // A turn that recorded its instruction files: the model view lists them.
        let files = r#"[{"path":"/w/AGENTS.md","label":"AGENTS.md","bytes":5,"truncated":false}]"#;
        let record = seekclaw_store::ContextRecord {
            prompt: "You are.",
            tools: Some("[]"),
            instructions: Some(files),
        };
        store.record_turn_context("g", "b", &record).unwrap();
        let view = data.model_view("g", "b", 5).unwrap();
        assert_eq!(view["instructionFiles"][0]["label"], "AGENTS.md");
    }
}
