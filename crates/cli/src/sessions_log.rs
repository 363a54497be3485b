//! `seekclaw sessions show`: the whole log, what happened in order — prompts,
//! steers, each model step, each tool call with its summary, duration and
//! output, engine notices, compaction summaries (after the events they
//! cover, which stay in the log) and how each turn ended. `--model-view`
//! prints the conversation the model is sent instead (`sessions.rs`).

use std::io::Write;

use seekclaw_store::{EventItem, SessionEvent, UserMessage};

/// The instruction files the latest turn's prompt included (the recorded
/// JSON list), before the conversation of `--model-view`.
pub fn print_instruction_files(listed: Option<&str>, out: &mut impl Write) -> anyhow::Result<()> {
    let files: Vec<serde_json::Value> = listed
        .and_then(|json| serde_json::from_str(json).ok())
        .unwrap_or_default();
    if files.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "── instruction files (in the system prompt, most general first)"
    )?;
    for f in &files {
        let label = f["label"].as_str().unwrap_or("?");
        let path = f["path"].as_str().unwrap_or("");
        let bytes = f["bytes"].as_u64().unwrap_or(0);
        let cut = if f["truncated"].as_bool() == Some(true) {
            ", cut to instructions.maxBytes"
        } else {
            ""
        };
        writeln!(out, "{label}  ({bytes} bytes{cut})  {path}")?;
        for import in f["imports"].as_array().into_iter().flatten() {
            writeln!(out, "  imports {}", import.as_str().unwrap_or("?"))?;
        }
    }
    writeln!(out)?;
    Ok(())
}

/// The log as role-labelled blocks, `#seq` on each.
pub fn print_log(events: &[SessionEvent], out: &mut impl Write) -> anyhow::Result<()> {
    for (i, ev) in events.iter().enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        let seq = ev.seq;
        match &ev.item {
            EventItem::User(m) => prompt(out, "user", seq, m)?,
            EventItem::Steer(m) => prompt(out, "steer", seq, m)?,
            EventItem::Assistant(a) => {
                let model = a
                    .model_ref
                    .as_deref()
                    .map(|m| format!(" · {m}"))
                    .unwrap_or_default();
                writeln!(out, "── assistant #{seq}{model}")?;
                if let Some(t) = a.thinking.as_ref().filter(|t| !t.trim().is_empty()) {
                    writeln!(out, "(reasoning) {}", t.trim())?;
                }
                if !a.text.is_empty() {
                    writeln!(out, "{}", a.text)?;
                }
                for c in &a.tool_calls {
                    writeln!(out, "→ {} {} [{}]", c.name, c.arguments_json, c.id)?;
                }
            }
            EventItem::ToolResult(t) => {
                let state = if t.success { "ok" } else { "failed" };
                let mut head = format!("── tool {} [{}] {state}", t.tool_name, t.tool_call_id);
                if let Some(ms) = t.duration_ms {
                    head.push_str(&format!(" · {ms} ms"));
                }
                if let Some(s) = t.summary.as_deref().filter(|s| !s.is_empty()) {
                    head.push_str(&format!(" · {s}"));
                }
                writeln!(out, "{head} #{seq}")?;
                writeln!(out, "{}", t.output.trim_end())?;
                if let Some(diff) = &t.diff {
                    writeln!(out, "{diff}")?;
                }
            }
            EventItem::Rewind(r) => {
                let what = if r.code {
                    "conversation and code"
                } else {
                    "conversation"
                };
                writeln!(
                    out,
                    "── rewound ({what}) to before #{}: #{}–#{} are not sent again #{seq}",
                    r.from_seq,
                    r.from_seq,
                    seq.saturating_sub(1)
                )?;
            }
            EventItem::Summary(s) => {
                writeln!(
                    out,
                    "── compaction summary of #{}–#{} #{seq}",
                    s.from_seq, s.to_seq
                )?;
                writeln!(out, "{}", s.text)?;
            }
            EventItem::Runtime(r) => {
                writeln!(out, "── runtime {} #{seq}", r.kind)?;
                writeln!(out, "{}", r.text)?;
            }
            EventItem::Hook(h) => {
                let about = match (&h.tool, &h.call_id) {
                    (Some(tool), Some(call)) => format!(" {tool} [{call}]"),
                    (Some(tool), None) => format!(" {tool}"),
                    (None, Some(call)) => format!(" [{call}]"),
                    (None, None) => String::new(),
                };
                let exit = h
                    .exit_code
                    .map_or_else(|| "killed".to_string(), |c| format!("exit {c}"));
                writeln!(
                    out,
                    "── hook {}{about} {} · {exit} · {:.0} ms · {} #{seq}",
                    h.event, h.decision, h.duration_ms, h.source
                )?;
                writeln!(out, "$ {}", h.command)?;
                if let Some(m) = h.message.as_deref().filter(|m| !m.trim().is_empty()) {
                    writeln!(out, "{}", m.trim_end())?;
                }
            }
            EventItem::Terminal(t) => {
                let status = seekclaw_daemon::end_status(t.status);
                writeln!(out, "── turn {status} #{seq}")?;
                // A done or cancelled turn's text is its answer, shown above.
                if matches!(status, "failed" | "interrupted") && !t.text.is_empty() {
                    writeln!(out, "{}", t.text)?;
                }
            }
        }
    }
    Ok(())
}

fn prompt(out: &mut impl Write, role: &str, seq: u64, m: &UserMessage) -> anyhow::Result<()> {
    writeln!(out, "── {role} #{seq}")?;
    writeln!(out, "{}", m.text)?;
    for i in &m.images {
        writeln!(out, "[image: {} {} bytes]", i.name, i.size_bytes)?;
    }
    Ok(())
}

/// The log for `--json`: every event as stored (`seq`, `unixMs`, `turn`,
/// `item` with its `type`), image data left out (name and size stay).
pub fn without_image_data(events: Vec<SessionEvent>) -> Vec<SessionEvent> {
    events
        .into_iter()
        .map(|mut ev| {
            if let EventItem::User(m) | EventItem::Steer(m) = &mut ev.item {
                for i in &mut m.images {
                    i.data.clear();
                }
            }
            ev
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use seekclaw_store::{Summary, TerminalStatus, ToolResult, TurnTerminal};

    fn ev(seq: u64, item: EventItem) -> SessionEvent {
        SessionEvent {
            seq,
            unix_ms: 0,
            turn: None,
            item,
        }
    }

    #[test]
    fn the_log_shows_rows_summaries_and_ends() {
        let events = [
            ev(
                1,
                EventItem::ToolResult(ToolResult {
                    tool_call_id: "c1".into(),
                    tool_name: "bash".into(),
                    success: true,
                    output: "hi".into(),
                    summary: Some("echo hi → exit 0".into()),
                    duration_ms: Some(7),
                    ..Default::default()
                }),
            ),
            ev(
                2,
                EventItem::Summary(Summary {
                    text: "S".into(),
                    from_seq: 1,
                    to_seq: 1,
                }),
            ),
            ev(
                3,
                EventItem::Terminal(TurnTerminal {
                    status: TerminalStatus::Failed,
                    text: "HTTP 400".into(),
                }),
            ),
        ];
        let mut out = Vec::new();
        print_log(&events, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            text,
            "── tool bash [c1] ok · 7 ms · echo hi → exit 0 #1\nhi\n\n\
             ── compaction summary of #1–#1 #2\nS\n\n\
             ── turn failed #3\nHTTP 400\n"
        );
    }
}
