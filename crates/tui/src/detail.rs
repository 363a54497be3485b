//! Opening a session: `session.timeline` read into the conversation's rows,
//! drawn as the live turns drew them — tool rows with their summaries and
//! durations, steers as steers, `!cmd` output as its block, engine notices
//! as notices, and each turn's end (cancelled, interrupted, failed) with its
//! marker and text. Parsed straight into these types (not a `Value` tree),
//! leniently: unknown fields and kinds are skipped.

use serde::Deserialize;

use crate::app::{App, Entry, ToolRow, ToolState};

/// The row a cancelled turn ends with.
pub(crate) const CANCELLED: &str = "(cancelled)";

/// The notice a compaction summary shows as.
pub(crate) fn compacted(summary: &str) -> String {
    format!("Compacted; the next turn starts from this summary:\n{summary}")
}

/// A session as `session.timeline` returns it (the fields the UI uses).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SessionDetail {
    /// The session id.
    pub id: String,
    /// Input tokens, summed.
    pub input_tokens: u64,
    /// Output tokens, summed.
    pub output_tokens: u64,
    /// What its calls cost as the engine priced them (absent from older
    /// daemons).
    #[serde(default)]
    pub cost_usd: Option<f64>,
    /// The session's own model (`/model`), if it has one.
    pub model: Option<String>,
    /// The log, oldest first.
    pub entries: Vec<LogEntry>,
    /// Where `session.watch` replays what the entries leave out (the
    /// running turn); absent from older daemons.
    #[serde(default)]
    pub follow_after_seq: Option<u64>,
}

/// One entry of the timeline, by its `kind`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(
    tag = "kind",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum LogEntry {
    /// A prompt.
    User {
        /// Its text.
        #[serde(default)]
        text: String,
        /// Its images.
        #[serde(default)]
        images: Vec<ImageRef>,
    },
    /// Guidance sent into a running turn.
    Steer {
        /// Its text.
        #[serde(default)]
        text: String,
        /// Its images.
        #[serde(default)]
        images: Vec<ImageRef>,
    },
    /// A model step.
    Assistant {
        /// The answer.
        #[serde(default)]
        text: String,
        /// The reasoning.
        #[serde(default)]
        thinking: Option<String>,
        /// The model that answered.
        #[serde(default)]
        model_ref: Option<String>,
    },
    /// A tool call's row.
    Tool {
        /// The call id.
        #[serde(default)]
        call_id: String,
        /// The tool.
        #[serde(default)]
        name: String,
        /// The row's summary.
        #[serde(default)]
        summary: String,
        /// Whether it succeeded.
        #[serde(default)]
        success: bool,
        /// How long it ran.
        #[serde(default)]
        duration_ms: Option<u64>,
        /// The diff of a file it changed.
        #[serde(default)]
        diff: Option<String>,
    },
    /// An engine notice (a background job ended).
    Notice {
        /// The notice.
        #[serde(default)]
        text: String,
    },
    /// A compaction summary.
    Summary {
        /// The summary.
        #[serde(default)]
        text: String,
    },
    /// How a turn ended.
    End {
        /// `done`, `cancelled`, `interrupted` or `failed`.
        #[serde(default)]
        status: String,
        /// The answer or what went wrong.
        #[serde(default)]
        text: String,
    },
    /// A hook run (issue 39), as its `hook_finished` showed.
    Hook {
        /// The hook event.
        #[serde(default)]
        event: String,
        /// The command.
        #[serde(default)]
        command: String,
        /// Its exit code (none: killed, or it never started).
        #[serde(default)]
        exit_code: Option<i32>,
        /// How long it ran.
        #[serde(default)]
        duration_ms: f64,
        /// What it decided.
        #[serde(default)]
        decision: String,
        /// The message shown to the user.
        #[serde(default)]
        message: Option<String>,
    },
    /// Anything else (runtime notes the live view does not show either).
    #[serde(other)]
    Other,
}

/// An image of a prompt, as its chip needs it.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ImageRef {
    /// Its file name.
    pub name: Option<String>,
    /// Its size in bytes.
    pub size_bytes: Option<u64>,
}

/// A message of `session.get`, the shape a daemon older than
/// `session.timeline` answers with.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
struct OldMessage {
    role: String,
    text: String,
    thinking: Option<String>,
    model_ref: Option<String>,
    tool_call_id: Option<String>,
    tool_name: Option<String>,
    tool_success: Option<bool>,
    tool_diff: Option<String>,
    images: Vec<ImageRef>,
}

/// `session.get`'s answer, for a daemon still running an older seekclaw.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct OldSession {
    id: String,
    input_tokens: u64,
    output_tokens: u64,
    messages: Vec<OldMessage>,
}

impl From<OldSession> for SessionDetail {
    /// The messages as timeline rows: tool rows show the output's first line
    /// and no duration (an older daemon did not keep them).
    fn from(old: OldSession) -> SessionDetail {
        let entries = old
            .messages
            .into_iter()
            .filter_map(|m| match m.role.as_str() {
                "user" => Some(LogEntry::User {
                    text: m.text,
                    images: m.images,
                }),
                "assistant" => Some(LogEntry::Assistant {
                    text: m.text,
                    thinking: m.thinking,
                    model_ref: m.model_ref,
                }),
                "tool" => Some(LogEntry::Tool {
                    call_id: m.tool_call_id.unwrap_or_default(),
                    name: m.tool_name.unwrap_or_else(|| "tool".into()),
                    summary: m
                        .text
                        .lines()
                        .next()
                        .unwrap_or_default()
                        .chars()
                        .take(80)
                        .collect(),
                    success: m.tool_success.unwrap_or(true),
                    duration_ms: None,
                    diff: m.tool_diff,
                }),
                _ => None,
            })
            .collect();
        SessionDetail {
            follow_after_seq: None,
            id: old.id,
            input_tokens: old.input_tokens,
            output_tokens: old.output_tokens,
            cost_usd: None,
            model: None,
            entries,
        }
    }
}

/// The chips of a prompt's images.
fn chips(images: &[ImageRef]) -> Vec<String> {
    images
        .iter()
        .map(|i| {
            crate::attach::chip(
                i.name.as_deref().unwrap_or("image"),
                i.size_bytes.unwrap_or(0),
            )
        })
        .collect()
}

impl App {
    /// Shows a session as `session.timeline` returned it.
    pub fn load_session(&mut self, detail: SessionDetail) {
        self.reset(Some(detail.id).filter(|id| !id.is_empty()));
        self.resume_after = detail.follow_after_seq;
        self.input_tokens = detail.input_tokens;
        self.output_tokens = detail.output_tokens;
        for entry in detail.entries {
            self.replay(entry);
        }
        self.session_tokens(detail.cost_usd);
        // The session's own model (`/model`) answers its next turn.
        if let Some(model) = detail.model {
            self.model = Some(model.clone());
            self.session_model = Some(model);
        }
    }

    /// Adds the rows one log entry drew while its turn ran.
    fn replay(&mut self, entry: LogEntry) {
        match entry {
            LogEntry::User { text, images } => {
                // `!cmd` output sent with the prompt was drawn as its block.
                let (blocks, prompt) = crate::shell::split_context(&text);
                self.entries
                    .extend(blocks.into_iter().map(|b| Entry::Notice(b.to_string())));
                self.entries
                    .push(Entry::User(prompt.to_string(), chips(&images)));
            }
            LogEntry::Steer { text, .. } => {
                let (blocks, rest) = crate::shell::split_context(&text);
                self.entries
                    .extend(blocks.into_iter().map(|b| Entry::Notice(b.to_string())));
                if !rest.is_empty() {
                    self.entries.push(Entry::Steer(rest.to_string()));
                }
            }
            LogEntry::Assistant {
                text,
                thinking,
                model_ref,
            } => {
                if let Some(model) = model_ref {
                    self.model = Some(model);
                }
                let thinking = thinking.unwrap_or_default();
                if !text.is_empty() || !thinking.is_empty() {
                    self.entries.push(Entry::Assistant { text, thinking });
                }
            }
            LogEntry::Tool {
                call_id,
                name,
                summary,
                success,
                duration_ms,
                diff,
            } => self.entries.push(Entry::Tool(ToolRow {
                call_id,
                name,
                summary,
                state: if success {
                    ToolState::Done
                } else {
                    ToolState::Failed
                },
                // The live row shows the measured time; a log that predates
                // it shows none.
                duration_ms: duration_ms.map(|ms| ms as f64),
                diff,
            })),
            LogEntry::Notice { text } => self.entries.push(Entry::Notice(text)),
            LogEntry::Summary { text } => self.entries.push(Entry::Notice(compacted(&text))),
            LogEntry::End { status, text } => match status.as_str() {
                "cancelled" => self.entries.push(Entry::Notice(CANCELLED.into())),
                "failed" => self.entries.push(Entry::Error(text)),
                "interrupted" => self
                    .entries
                    .push(Entry::Error(format!("interrupted: {text}"))),
                _ => {}
            },
            LogEntry::Hook {
                event,
                command,
                exit_code,
                duration_ms,
                decision,
                message,
            } => self.entries.push(Entry::Hook(crate::hooks::HookRow {
                run_id: String::new(),
                event,
                command,
                finished: Some(crate::hooks::HookEnd {
                    exit_code,
                    duration_ms,
                    decision,
                    message,
                }),
            })),
            LogEntry::Other => {}
        }
    }
}

#[cfg(test)]
mod old_daemon_tests {
    use super::*;

    #[test]
    fn a_stored_hook_run_reads_as_its_row() {
        let detail: SessionDetail = serde_json::from_value(serde_json::json!({
            "id": "s1", "entries": [{"kind": "hook", "seq": 4, "event": "PreToolUse",
                "command": "./guard.sh", "source": "workspace", "callId": "c1", "tool": "Bash",
                "exitCode": 2, "durationMs": 15.2, "decision": "deny", "message": "not on main"}]
        }))
        .unwrap();
        let mut app = App::default();
        app.load_session(detail);
        let mut lines = Vec::new();
        let Some(Entry::Hook(row)) = app.entries.first() else {
            panic!("{:?}", app.entries)
        };
        crate::hooks::lines(&mut lines, row);
        let lines: Vec<String> = lines.iter().map(ToString::to_string).collect();
        assert_eq!(
            lines,
            [
                "⚑ hook PreToolUse · ./guard.sh · exit 2 · 15 ms · deny",
                "  not on main"
            ]
        );
    }

    #[test]
    fn an_older_daemons_session_get_reads_as_timeline_rows() {
        let old: OldSession = serde_json::from_value(serde_json::json!({
            "id": "s1", "inputTokens": 5, "outputTokens": 2,
            "messages": [
                {"role": "user", "text": "hi", "images": []},
                {"role": "assistant", "text": "", "modelRef": "p/m"},
                {"role": "tool", "text": "line one\nline two", "toolName": "read_file",
                 "toolCallId": "c1", "toolSuccess": false},
                {"role": "system", "text": "x"}
            ]
        }))
        .unwrap();
        let detail = SessionDetail::from(old);
        assert_eq!(detail.id, "s1");
        assert_eq!(detail.entries.len(), 3);
        assert!(matches!(&detail.entries[2],
            LogEntry::Tool { summary, success: false, name, .. } if summary == "line one" && name == "read_file"));
    }
}
