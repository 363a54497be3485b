//! Hook runs in the conversation (issue 39): the user's commands on a turn's
//! lifecycle events show as compact dim rows (`hook PreToolUse · ./fmt.sh ·
//! exit 0 · 12 ms`); one that blocked, denied, stopped the turn, failed or
//! timed out is highlighted with its message. The engine runs the hooks and
//! decides; the UI only shows.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use seekclaw_client::EventKind;

use crate::app::{App, Entry};

/// A command longer than this is cut in its row (the inspector has it whole).
const COMMAND_SHOWN: usize = 60;
/// Lines of a highlighted run's message shown under its row.
const MESSAGE_LINES: usize = 6;

/// One hook run's row.
#[derive(Debug, Clone, PartialEq)]
pub struct HookRow {
    /// Pairs `hook_started` with its `hook_finished`.
    pub run_id: String,
    /// The lifecycle event (`PreToolUse`).
    pub event: String,
    /// The hook's command.
    pub command: String,
    /// How it ended; `None` while it runs.
    pub finished: Option<HookEnd>,
}

/// How a hook run ended.
#[derive(Debug, Clone, PartialEq)]
pub struct HookEnd {
    /// `None`: killed at its timeout, or it could not start.
    pub exit_code: Option<i32>,
    /// How long it ran.
    pub duration_ms: f64,
    /// `ok`, `allow`, `ask`, `deny`, `block`, `stop`, `error`, `timeout` or `cancelled` (stopped with its turn).
    pub decision: String,
    /// The reason or stderr shown to the user.
    pub message: Option<String>,
}

impl HookEnd {
    /// The run stopped something or went wrong: shown highlighted.
    pub fn stands_out(&self) -> bool {
        matches!(
            self.decision.as_str(),
            "block" | "deny" | "stop" | "error" | "timeout"
        )
    }
}

/// The row of a `hook_started` / `hook_finished` envelope (`None`: another
/// event).
pub fn row_of(kind: &EventKind) -> Option<HookRow> {
    Some(match kind {
        EventKind::HookStarted(d) => HookRow {
            run_id: d.run_id.clone(),
            event: d.event.clone(),
            command: d.command.clone(),
            finished: None,
        },
        EventKind::HookFinished(d) => HookRow {
            run_id: d.run_id.clone(),
            event: d.event.clone(),
            command: d.command.clone(),
            finished: Some(HookEnd {
                exit_code: d.exit_code,
                duration_ms: d.duration_ms,
                decision: d.decision.clone(),
                message: d.message.clone().filter(|m| !m.trim().is_empty()),
            }),
        },
        _ => return None,
    })
}

impl App {
    /// A hook run's envelope: its row added, or finished; false for any
    /// other envelope.
    pub(crate) fn on_hook_envelope(&mut self, kind: &EventKind) -> bool {
        let Some(row) = row_of(kind) else {
            return false;
        };
        let open = self.entries.iter_mut().rev().find_map(|e| match e {
            Entry::Hook(r) if r.run_id == row.run_id && r.finished.is_none() => Some(r),
            _ => None,
        });
        match (open, row.finished) {
            (Some(open), Some(end)) => open.finished = Some(end),
            (Some(_), None) => {}
            (None, finished) => self.entries.push(Entry::Hook(HookRow { finished, ..row })),
        }
        true
    }
}

/// A hook run's lines: one dim row, or a highlighted one and its message.
pub fn lines(out: &mut Vec<Line<'static>>, row: &HookRow) {
    let dim = Style::new().fg(Color::DarkGray).add_modifier(Modifier::DIM);
    let mut text = format!("hook {} · {}", row.event, short(&row.command));
    let Some(end) = &row.finished else {
        text.push_str(" · running");
        out.push(Line::styled(text, dim));
        return;
    };
    match end.exit_code {
        Some(code) => text.push_str(&format!(" · exit {code}")),
        None if end.decision == "timeout" => text.push_str(" · timed out"),
        None => text.push_str(" · no exit"),
    }
    text.push_str(&format!(" · {:.0} ms", end.duration_ms));
    if end.decision != "ok" {
        text.push_str(&format!(" · {}", end.decision));
    }
    if !end.stands_out() {
        out.push(Line::styled(text, dim));
        return;
    }
    let loud = match end.decision.as_str() {
        "error" | "timeout" => Style::new().fg(Color::Red),
        _ => Style::new().fg(Color::Yellow),
    };
    out.push(Line::from(vec![
        Span::styled("⚑ ", loud.add_modifier(Modifier::BOLD)),
        Span::styled(text, loud),
    ]));
    if let Some(message) = &end.message {
        let all: Vec<&str> = message.lines().collect();
        for l in all.iter().take(MESSAGE_LINES) {
            out.push(Line::styled(format!("  {}", l.replace('\t', "    ")), loud));
        }
        if all.len() > MESSAGE_LINES {
            out.push(Line::styled(
                format!("  … {} more lines", all.len() - MESSAGE_LINES),
                dim,
            ));
        }
    }
}

/// The command's first line, cut to [`COMMAND_SHOWN`] characters.
fn short(command: &str) -> String {
    let first = command.lines().next().unwrap_or_default().trim();
    let cut: String = first.chars().take(COMMAND_SHOWN).collect();
    if cut.len() < first.len() || command.trim().lines().nth(1).is_some() {
        format!("{cut}…")
    } else {
        cut
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use seekclaw_client::Event;
    use serde_json::json;

    fn kind(event: &str, details: serde_json::Value) -> EventKind {
        env(event, details).kind()
    }

    fn env(event: &str, details: serde_json::Value) -> Event {
        Event {
            seq: None,
            id: 7,
            event: event.into(),
            data: "PreToolUse".into(),
            session_id: Some("s1".into()),
            details: Some(details),
        }
    }

    fn shown(app: &App) -> Vec<String> {
        let mut out = Vec::new();
        for e in &app.entries {
            if let Entry::Hook(row) = e {
                lines(&mut out, row);
            }
        }
        out.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn a_run_is_one_row_finished_in_place() {
        let mut app = App::default();
        let started = json!({"runId": "hk_1", "event": "PreToolUse", "command": "./fmt.sh",
            "source": "workspace", "callId": "c1", "tool": "Bash"});
        assert!(app.on_hook_envelope(&kind("hook_started", started)));
        assert_eq!(shown(&app), ["hook PreToolUse · ./fmt.sh · running"]);
        let finished = json!({"runId": "hk_1", "event": "PreToolUse", "command": "./fmt.sh",
            "source": "workspace", "exitCode": 0, "durationMs": 12.4, "decision": "ok"});
        assert!(app.on_hook_envelope(&kind("hook_finished", finished)));
        assert_eq!(shown(&app), ["hook PreToolUse · ./fmt.sh · exit 0 · 12 ms"]);
        assert!(!app.on_hook_envelope(&kind("tool_start", json!({}))));
    }

    #[test]
    fn a_block_or_a_timeout_stands_out_with_its_message() {
        let mut app = App::default();
        let blocked = json!({"runId": "hk_2", "event": "PreToolUse", "command": "guard.py",
            "source": "user", "exitCode": 2, "durationMs": 30.0, "decision": "block",
            "message": "no pushes on Friday"});
        app.on_hook_envelope(&kind("hook_finished", blocked));
        let timed_out = json!({"runId": "hk_3", "event": "Stop", "command": "sleep 99",
            "source": "user", "exitCode": null, "durationMs": 1000.0, "decision": "timeout"});
        app.on_hook_envelope(&kind("hook_finished", timed_out));
        assert_eq!(
            shown(&app),
            [
                "⚑ hook PreToolUse · guard.py · exit 2 · 30 ms · block",
                "  no pushes on Friday",
                "⚑ hook Stop · sleep 99 · timed out · 1000 ms · timeout",
            ]
        );
    }

    #[test]
    fn a_long_command_is_cut() {
        assert_eq!(short("a\nb"), "a…");
        assert_eq!(short(&"x".repeat(80)).chars().count(), COMMAND_SHOWN + 1);
    }
}
