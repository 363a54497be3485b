//! The status bar's "running: …" text, from an event's kind: the daemon's
//! `workflow` labels are the desktop's (Chinese, e.g. `思考`), so they never
//! reach this UI's screen.

use seekclaw_client::{Event, EventKind};

/// What the turn is doing after `env` (a `workflow` or `status` event, read
/// as `kind`), in English; `None` to keep the current text.
pub fn phase_of(env: &Event, kind: &EventKind) -> Option<String> {
    match kind {
        EventKind::Workflow(node) => {
            let label = match node.kind.as_str() {
                "start" => "Starting",
                "think" => "Thinking",
                // A tool node is labelled with the tool's registry name.
                "tool" => {
                    return Some(format!("Tool {}", env.data)).filter(|_| env.data.is_ascii());
                }
                "compact" => "Compacting",
                "verify" => "Verifying",
                "repair" => "Repairing",
                "done" => "Finishing",
                "error" => "Failing",
                _ => return None,
            };
            Some(label.to_string())
        }
        // The engine's status lines are English on the wire.
        EventKind::Status => Some(env.data.clone()).filter(|s| !s.is_empty()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn phase(event: &str, data: &str, kind: &str) -> Option<String> {
        let env = Event {
            seq: None,
            id: 1,
            event: event.into(),
            data: data.into(),
            session_id: None,
            details: (event == "workflow")
                .then(|| json!({"step": 1, "kind": kind, "label": data, "detail": null})),
        };
        phase_of(&env, &env.kind())
    }

    #[test]
    fn workflow_labels_come_from_the_kind_not_the_wire_label() {
        assert_eq!(
            phase("workflow", "思考", "think").as_deref(),
            Some("Thinking")
        );
        assert_eq!(
            phase("workflow", "开始任务", "start").as_deref(),
            Some("Starting")
        );
        assert_eq!(
            phase("workflow", "任务完成", "done").as_deref(),
            Some("Finishing")
        );
        assert_eq!(
            phase("workflow", "压缩记忆", "compact").as_deref(),
            Some("Compacting")
        );
        assert_eq!(
            phase("workflow", "read_file", "tool").as_deref(),
            Some("Tool read_file")
        );
        assert_eq!(phase("workflow", "新的", "someday"), None);
        assert_eq!(
            phase("status", "Preparing tool call", "").as_deref(),
            Some("Preparing tool call")
        );
    }
}
