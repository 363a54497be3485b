//! Approval prompts: a turn's `approval_request` waits here until the user
//! decides (y once, a for the session, n or Esc to reject, or a typed
//! reason and Enter to reject with it), or the daemon resolves it (a
//! timeout, a cancel, another client's answer).

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use crate::app::{Action, App};
use crate::client::Envelope;

/// Diff lines shown in a prompt.
const PROMPT_DIFF_LINES: usize = 12;

/// A call waiting for the user's decision.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingApproval {
    /// What `agent.approve` names.
    pub approval_id: String,
    /// The turn's session.
    pub session_id: Option<String>,
    /// The tool.
    pub tool: String,
    /// The call, in one line.
    pub summary: String,
    /// A file edit's diff, or the shell command.
    pub body: Option<String>,
}

impl PendingApproval {
    fn from_envelope(env: &Envelope) -> PendingApproval {
        let d = &env.details;
        let text = |k: &str| d[k].as_str().unwrap_or_default().to_string();
        PendingApproval {
            approval_id: text("approvalId"),
            session_id: env.session_id.clone(),
            tool: text("tool"),
            summary: text("summary"),
            body: d["diff"]
                .as_str()
                .or(d["arguments"]["command"].as_str())
                .map(str::to_string),
        }
    }
}

impl App {
    /// `approval_request` / `approval_resolved` of the open session's turn;
    /// false for any other envelope.
    pub(crate) fn on_approval_envelope(&mut self, env: &Envelope) -> bool {
        match env.event.as_str() {
            "approval_request" => {
                self.approvals.push(PendingApproval::from_envelope(env));
                self.scroll = 0;
                true
            }
            "approval_resolved" => {
                let id = env.details["approvalId"].as_str().unwrap_or_default();
                self.approvals.retain(|a| a.approval_id != id);
                if env.data == "timeout" {
                    self.notice("(no answer in time: the call was not run)");
                }
                true
            }
            _ => false,
        }
    }

    /// A key while a prompt is open; `None` when the key is the editor's.
    pub(crate) fn approval_key(&mut self, key: KeyEvent) -> Option<Option<Action>> {
        let pending = self.approvals.first()?.clone();
        if key.modifiers.contains(KeyModifiers::CONTROL) {
            return None;
        }
        let empty = self.editor.is_empty();
        let decision = match key.code {
            KeyCode::Char('y') if empty => ("allow_once", None),
            KeyCode::Char('a') if empty => ("allow_session", None),
            KeyCode::Char('n') | KeyCode::Esc if empty => ("reject", None),
            // A typed reason rejects with it: the model reads it.
            KeyCode::Enter if !empty => {
                let reason = self.editor.take();
                ("reject", Some(reason))
            }
            _ => return None,
        };
        self.approvals.remove(0);
        Some(Some(Action::Approve {
            approval_id: pending.approval_id,
            session_id: pending.session_id,
            decision: decision.0,
            message: decision.1,
        }))
    }

    /// The prompt's lines (empty when nothing waits).
    pub fn approval_lines(&self) -> Vec<Line<'static>> {
        let Some(p) = self.approvals.first() else {
            return Vec::new();
        };
        let bold = Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD);
        let mut out = vec![Line::from(vec![
            Span::styled("⚠ Allow ", bold),
            Span::styled(p.tool.clone(), bold),
            Span::raw(format!(" {}", p.summary.lines().next().unwrap_or_default())),
            Span::styled(
                if self.approvals.len() > 1 {
                    format!("  (+{} waiting)", self.approvals.len() - 1)
                } else {
                    String::new()
                },
                Style::new().fg(Color::DarkGray),
            ),
        ])];
        if let Some(body) = &p.body {
            crate::render::conversation::diff_lines(&mut out, body, PROMPT_DIFF_LINES, "");
        }
        out.push(Line::styled(
            "[y] allow once · [a] allow for this session · [n]/Esc reject · or type a reason and press Enter",
            Style::new().fg(Color::Yellow),
        ));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn request(id: &str) -> Envelope {
        Envelope {
            id: 3,
            event: "approval_request".into(),
            data: "command: rm x".into(),
            session_id: Some("s1".into()),
            details: json!({"approvalId": id, "callId": "c", "tool": "bash",
                "summary": "command: rm x", "arguments": {"command": "rm x"}}),
        }
    }

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    #[test]
    fn keys_decide_and_a_typed_reason_rejects_with_it() {
        let mut app = App::default();
        assert!(app.on_approval_envelope(&request("ap_1")));
        assert!(app.on_approval_envelope(&request("ap_2")));
        assert!(app.approval_lines()[0].to_string().contains("(+1 waiting)"));
        assert_eq!(
            app.approval_key(key(KeyCode::Char('a'))),
            Some(Some(Action::Approve {
                approval_id: "ap_1".into(),
                session_id: Some("s1".into()),
                decision: "allow_session",
                message: None,
            }))
        );
        // Other keys are the editor's; Enter rejects with the typed text.
        assert_eq!(app.approval_key(key(KeyCode::Char('x'))), None);
        app.editor.insert_str("use trash");
        match app.approval_key(key(KeyCode::Enter)) {
            Some(Some(Action::Approve {
                decision, message, ..
            })) => {
                assert_eq!(
                    (decision, message.as_deref()),
                    ("reject", Some("use trash"))
                );
            }
            other => panic!("{other:?}"),
        }
        assert!(app.approvals.is_empty() && app.editor.is_empty());
    }

    #[test]
    fn a_resolution_elsewhere_closes_the_prompt() {
        let mut app = App::default();
        app.on_approval_envelope(&request("ap_1"));
        let resolved = Envelope {
            id: 3,
            event: "approval_resolved".into(),
            data: "timeout".into(),
            session_id: Some("s1".into()),
            details: json!({"approvalId": "ap_1", "callId": "c", "outcome": "timeout"}),
        };
        assert!(app.on_approval_envelope(&resolved));
        assert!(app.approvals.is_empty());
        assert!(app.approval_lines().is_empty());
    }
}
