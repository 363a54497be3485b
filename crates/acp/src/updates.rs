//! Engine events as ACP `session/update`s, live ([`TurnUpdates`]) and from
//! the stored log ([`replay`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use seekclaw_agent::AgentEvent;
use seekclaw_protocol::wording;
use seekclaw_store::{EventItem, SessionEvent};
use serde_json::{Value, json};

use crate::tools;

/// Output shown in an editor's tool card is cut here (the model read it all).
const MAX_SHOWN_OUTPUT: usize = 8_000;

/// The mapping state of one turn: each call's content so far (an update's
/// `content` replaces the card's, so diffs and output are sent together).
pub struct TurnUpdates {
    cwd: PathBuf,
    content: HashMap<String, Vec<Value>>,
    /// Each call's files so far (a patch changes several).
    locations: HashMap<String, Vec<Value>>,
    /// A piece of the answer was streamed (a later failover restarts it).
    pub first_chunk_sent: bool,
}

impl TurnUpdates {
    /// Paths are made absolute against `cwd`.
    pub fn new(cwd: &Path) -> TurnUpdates {
        TurnUpdates {
            cwd: cwd.to_path_buf(),
            content: HashMap::new(),
            locations: HashMap::new(),
            first_chunk_sent: false,
        }
    }

    /// The updates of one engine event (often none).
    pub fn map(&mut self, ev: &AgentEvent) -> Vec<Value> {
        match ev {
            AgentEvent::Delta(d) => {
                self.first_chunk_sent = true;
                vec![chunk("agent_message_chunk", d)]
            }
            AgentEvent::Thinking(t) => vec![chunk("agent_thought_chunk", t)],
            AgentEvent::ToolStart {
                call_id,
                name,
                summary,
            } => {
                let locations: Vec<Value> =
                    tools::location(summary, &self.cwd).into_iter().collect();
                vec![json!({
                    "sessionUpdate": "tool_call",
                    "toolCallId": call_id,
                    "title": tools::title(name, summary),
                    "kind": tools::kind(name),
                    "status": "in_progress",
                    "locations": locations,
                })]
            }
            AgentEvent::FileDiff {
                call_id,
                path,
                diff,
            } => {
                let item = tools::diff_content(path, diff, &self.cwd);
                let content = self.content.entry(call_id.clone()).or_default();
                content.push(item);
                let at = json!({"path": tools::absolute(path, &self.cwd)});
                let locations = self.locations.entry(call_id.clone()).or_default();
                if !locations.contains(&at) {
                    locations.push(at);
                }
                vec![json!({
                    "sessionUpdate": "tool_call_update",
                    "toolCallId": call_id,
                    "content": content,
                    "locations": locations,
                })]
            }
            AgentEvent::ToolDone {
                call_id,
                name,
                success,
                output,
                ..
            } => {
                let mut content = self.content.remove(call_id).unwrap_or_default();
                content.push(tools::text_content(&shown(output)));
                let mut out = vec![json!({
                    "sessionUpdate": "tool_call_update",
                    "toolCallId": call_id,
                    "status": if *success { "completed" } else { "failed" },
                    "content": content,
                })];
                if name == "plan" && *success {
                    out.push(
                        json!({"sessionUpdate": "plan", "entries": tools::plan_entries(output)}),
                    );
                }
                out
            }
            // Front ends show a failover and a retry: another provider may
            // mean another price and data destination.
            AgentEvent::Failover {
                failed, error, to, ..
            } => vec![chunk(
                "agent_thought_chunk",
                &format!("\n{}\n", wording::failover_notice(failed, error, to)),
            )],
            AgentEvent::Retry {
                model,
                attempt,
                max_attempts,
                reason,
                delay_ms,
                ..
            } => vec![chunk(
                "agent_thought_chunk",
                &format!(
                    "\n{}\n",
                    wording::retry_notice(model, *attempt, *max_attempts, reason, *delay_ms)
                ),
            )],
            // ACP has no hook event: a finished run is a line of the
            // turn's thoughts (progress every client shows, never a tool
            // card of a call the model did not make).
            AgentEvent::HookFinished(run) => match &run.finished {
                Some(end) => vec![chunk(
                    "agent_thought_chunk",
                    &format!(
                        "\n{}\n",
                        wording::hook_line(
                            &run.event,
                            &run.command,
                            &end.decision,
                            end.exit_code,
                            end.duration_ms,
                            end.message.as_deref()
                        )
                    ),
                )],
                None => Vec::new(),
            },
            AgentEvent::Reminder {
                kind:
                    seekclaw_agent::ReminderKind::Hooks
                    | seekclaw_agent::ReminderKind::Instructions
                    | seekclaw_agent::ReminderKind::Budget,
                text,
            } => vec![chunk("agent_thought_chunk", &format!("\n{text}\n"))],
            _ => Vec::new(),
        }
    }
}

fn chunk(kind: &str, text: &str) -> Value {
    json!({"sessionUpdate": kind, "content": {"type": "text", "text": text}})
}

fn shown(output: &str) -> String {
    match output.char_indices().nth(MAX_SHOWN_OUTPUT) {
        Some((cut, _)) => format!("{}\n… (output cut for display)", &output[..cut]),
        None => output.to_string(),
    }
}

/// The stored conversation as the updates a live turn would have sent:
/// user messages, reasoning, answers, tool calls with their results and
/// diffs. Summaries and runtime notices are the engine's own bookkeeping.
pub fn replay(events: &[SessionEvent], cwd: &Path) -> Vec<Value> {
    let mut out = Vec::new();
    let mut names: HashMap<String, String> = HashMap::new();
    for ev in events {
        match &ev.item {
            EventItem::User(m) | EventItem::Steer(m) => {
                if !m.text.is_empty() {
                    out.push(chunk("user_message_chunk", &m.text));
                }
                for img in &m.images {
                    out.push(json!({"sessionUpdate": "user_message_chunk", "content": {"type": "image", "data": img.data, "mimeType": img.media_type}}));
                }
            }
            EventItem::Assistant(a) => {
                if let Some(t) = a.thinking.as_deref().filter(|t| !t.is_empty()) {
                    out.push(chunk("agent_thought_chunk", t));
                }
                if !a.text.is_empty() {
                    out.push(chunk("agent_message_chunk", &a.text));
                }
                for call in &a.tool_calls {
                    let args: Value =
                        serde_json::from_str(&call.arguments_json).unwrap_or_default();
                    let summary = seekclaw_agent::call_summary(&args);
                    let locations: Vec<Value> = match call.name.as_str() {
                        "apply_patch" => tools::call_locations(&call.name, &args, cwd),
                        _ => tools::location(&summary, cwd).into_iter().collect(),
                    };
                    names.insert(call.id.clone(), call.name.clone());
                    out.push(json!({
                        "sessionUpdate": "tool_call",
                        "toolCallId": call.id,
                        "title": tools::title(&call.name, &summary),
                        "kind": tools::kind(&call.name),
                        "status": "pending",
                        "locations": locations,
                        "rawInput": args,
                    }));
                }
            }
            EventItem::Hook(h) => out.push(chunk(
                "agent_thought_chunk",
                &format!(
                    "\n{}\n",
                    wording::hook_line(
                        &h.event,
                        &h.command,
                        &h.decision,
                        h.exit_code,
                        h.duration_ms,
                        h.message.as_deref()
                    )
                ),
            )),
            EventItem::ToolResult(r) if !r.silent => {
                // A result whose call was summarized away has no card.
                if !names.contains_key(&r.tool_call_id) {
                    continue;
                }
                let mut content = Vec::new();
                if let (Some(diff), Some(path)) = (&r.diff, &r.file_path) {
                    content.extend(tools::diff_items(path, diff, cwd));
                }
                content.push(tools::text_content(&shown(&r.output)));
                out.push(json!({
                    "sessionUpdate": "tool_call_update",
                    "toolCallId": r.tool_call_id,
                    "status": if r.success { "completed" } else { "failed" },
                    "content": content,
                }));
            }
            _ => {}
        }
    }
    out
}
