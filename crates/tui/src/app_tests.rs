use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::{Value, json};

use super::*;

fn env(id: i64, event: &str, data: &str, details: Value) -> Event {
    Event {
        seq: None,
        id,
        event: event.into(),
        data: data.into(),
        session_id: Some("s".into()),
        details: Some(details).filter(|d| !d.is_null()),
    }
}

/// A `usage` event's details, whole as the daemon sends them.
pub(crate) fn usage(input: u64, output: u64, cost_usd: Option<f64>) -> Value {
    serde_json::to_value(seekclaw_protocol::events::UsageDetails {
        provider: "tk".into(),
        model: "m1".into(),
        input_tokens: input,
        output_tokens: output,
        total_input_tokens: input,
        cached_input_tokens: 0,
        elapsed_ms: 5,
        cost_usd,
    })
    .unwrap()
}

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

fn ctrl(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)
}

fn type_text(app: &mut App, s: &str) {
    for c in s.chars() {
        app.on_key(key(KeyCode::Char(c)));
    }
}

#[test]
fn a_turn_streams_into_bubbles_split_by_tool_rows() {
    let mut app = App::default();
    app.start_turn(7, "hi");
    app.on_envelope(env(
        7,
        "model_start",
        "tk/m1",
        json!({"provider": "tk", "model": "m1", "step": 1}),
    ));
    app.on_envelope(env(7, "thinking", "hmm", Value::Null));
    app.on_envelope(env(7, "delta", "Let me look", Value::Null));
    app.on_envelope(env(
        7,
        "tool_start",
        "read_file",
        json!({"callId": "c1", "summary": "a.rs"}),
    ));
    app.on_envelope(env(
        7,
        "file_diff",
        "",
        json!({"callId": "c1", "diff": "+x"}),
    ));
    app.on_envelope(env(
        7,
        "tool_done",
        "read a.rs",
        json!({"callId": "c1", "success": true, "durationMs": 12.0}),
    ));
    app.on_envelope(env(7, "delta", "Done.", Value::Null));
    app.on_envelope(env(7, "usage", "", usage(10, 3, None)));
    app.on_envelope(env(7, "done", "Done.", Value::Null));
    assert!(app.turn.is_none());
    assert_eq!(app.model.as_deref(), Some("tk/m1"));
    assert_eq!((app.input_tokens, app.output_tokens), (10, 3));
    assert_eq!(app.entries.len(), 4, "{:?}", app.entries);
    assert_eq!(
        app.entries[1],
        Entry::Assistant {
            text: "Let me look".into(),
            thinking: "hmm".into()
        }
    );
    let Entry::Tool(row) = &app.entries[2] else {
        panic!("{:?}", app.entries[2])
    };
    assert_eq!(row.state, ToolState::Done);
    assert_eq!(row.summary, "read a.rs");
    assert_eq!(row.diff.as_deref(), Some("+x"));
    assert_eq!(row.duration_ms, Some(12.0));
}

#[test]
fn enter_steers_a_running_turn_and_the_steer_event_commits_it() {
    let mut app = App::default();
    app.start_turn(3, "go");
    type_text(&mut app, "use tabs");
    assert_eq!(
        app.on_key(key(KeyCode::Enter)),
        Some(Action::Steer("use tabs".into()))
    );
    assert_eq!(app.pending_steers, ["use tabs"]);
    app.on_envelope(env(3, "steer", "use tabs", Value::Null));
    assert!(app.pending_steers.is_empty());
    assert_eq!(app.entries.last(), Some(&Entry::Steer("use tabs".into())));
}

#[test]
fn ctrl_c_cancels_then_twice_on_an_idle_empty_prompt_quits() {
    let mut app = App::default();
    app.start_turn(5, "go");
    assert_eq!(app.on_key(ctrl('c')), Some(Action::Cancel(5)));
    assert_eq!(app.on_key(ctrl('c')), None, "one cancel only");
    app.on_envelope(env(5, "delta", "partial", Value::Null));
    app.on_envelope(env(5, "cancelled", "partial", Value::Null));
    assert!(matches!(&app.entries[1], Entry::Assistant { text, .. } if text == "partial"));
    type_text(&mut app, "x");
    assert_eq!(app.on_key(ctrl('c')), None, "clears the prompt");
    assert!(app.editor.is_empty());
    assert_eq!(app.on_key(ctrl('c')), None);
    assert_eq!(app.on_key(ctrl('c')), Some(Action::Quit));
}

#[test]
fn ctrl_j_inserts_a_newline_and_slash_commands_parse() {
    let mut app = App::default();
    type_text(&mut app, "a");
    app.on_key(ctrl('j'));
    type_text(&mut app, "b");
    assert_eq!(
        app.on_key(key(KeyCode::Enter)),
        Some(Action::Chat("a\nb".into()))
    );
    type_text(&mut app, "/resume 123");
    assert_eq!(
        app.on_key(key(KeyCode::Enter)),
        Some(Action::Resume("123".into()))
    );
    type_text(&mut app, "/bogus");
    assert_eq!(app.on_key(key(KeyCode::Enter)), None);
    assert!(matches!(app.entries.last(), Some(Entry::Error(_))));
}

#[test]
fn a_loaded_session_draws_what_its_turns_showed() {
    let mut app = App::default();
    app.load_session(serde_json::from_value(json!({
        "id": "s1", "inputTokens": 5, "outputTokens": 2,
        "entries": [
            {"kind": "user", "seq": 1, "text": "<user_shell_command>\n$ ls\na.py\n</user_shell_command>\n\nhi", "images": []},
            {"kind": "assistant", "seq": 2, "text": "", "thinking": null, "modelRef": "tk/m1"},
            {"kind": "tool", "seq": 3, "callId": "c", "name": "read_file", "summary": "path: a.py", "success": true, "durationMs": 12, "diff": null},
            {"kind": "steer", "seq": 4, "text": "use tabs", "images": []},
            {"kind": "notice", "seq": 5, "text": "background job bg-1 finished"},
            {"kind": "runtime", "seq": 6, "note": "repair", "text": "fix it"},
            {"kind": "assistant", "seq": 7, "text": "**bold**", "thinking": null, "modelRef": "tk/m1"},
            {"kind": "end", "seq": 8, "status": "cancelled", "text": "**bold**"},
            {"kind": "user", "seq": 9, "text": "again", "images": []},
            {"kind": "end", "seq": 10, "status": "failed", "text": "Provider error: HTTP 500"},
            {"kind": "user", "seq": 11, "text": "more", "images": []},
            {"kind": "end", "seq": 12, "status": "interrupted", "text": "The daemon stopped before this turn finished."},
            {"kind": "some_future_kind", "seq": 13}
        ]
    })).unwrap());
    assert_eq!(app.session_id.as_deref(), Some("s1"));
    assert_eq!(app.model.as_deref(), Some("tk/m1"));
    assert_eq!(
        app.entries,
        [
            Entry::Notice("$ ls\na.py".into()),
            Entry::User("hi".into(), vec![]),
            Entry::Tool(ToolRow {
                call_id: "c".into(),
                name: "read_file".into(),
                summary: "path: a.py".into(),
                state: ToolState::Done,
                duration_ms: Some(12.0),
                diff: None,
            }),
            Entry::Steer("use tabs".into()),
            Entry::Notice("background job bg-1 finished".into()),
            Entry::Assistant {
                text: "**bold**".into(),
                thinking: String::new()
            },
            Entry::Notice("(cancelled)".into()),
            Entry::User("again".into(), vec![]),
            Entry::Error("Provider error: HTTP 500".into()),
            Entry::User("more".into(), vec![]),
            Entry::Error("interrupted: The daemon stopped before this turn finished.".into()),
        ]
    );
}

#[test]
fn a_loaded_sessions_images_show_as_chips_on_the_prompt() {
    let mut app = App::default();
    app.load_session(
        serde_json::from_value(json!({
            "id": "s",
            "entries": [{"kind": "user", "seq": 1, "text": "look", "images": [
                {"name": "shot.png", "sizeBytes": 12288}
            ]}]
        }))
        .unwrap(),
    );
    assert_eq!(
        app.entries,
        [Entry::User(
            "look".into(),
            vec!["[image: shot.png 12 KB]".into()]
        )]
    );
}

#[test]
fn a_turns_end_and_an_approval_prompt_are_drawn_without_waiting_for_the_frame() {
    let mut app = App::default();
    app.start_turn(7, "hi");
    app.on_envelope(env(7, "delta", "streaming", Value::Null));
    assert!(!app.take_waited_frame(), "a stream's frames are paced");
    app.on_envelope(env(
        7,
        "approval_request",
        "rm x",
        json!({"approvalId": "ap", "callId": "c2", "tool": "bash", "summary": "rm x",
            "arguments": {"command": "rm x"}}),
    ));
    assert!(app.take_waited_frame());
    assert!(!app.take_waited_frame(), "taken once");
    app.on_envelope(env(7, "done", "streaming", Value::Null));
    assert!(app.take_waited_frame(), "the answer's last frame");
}

#[test]
fn a_subagent_is_a_foldable_row_with_live_progress() {
    let mut app = App::default();
    app.start_turn(7, "look");
    app.on_envelope(env(
        7,
        "tool_start",
        "explore",
        json!({"callId": "c1", "summary": "query: where"}),
    ));
    let run = |status: &str, steps: u64, tokens: u64| {
        json!({"id": "s-sr-1", "kind": "explore", "label": "where", "status": status,
               "steps": steps, "tokens": tokens})
    };
    app.on_envelope(env(7, "subrun_started", "where", run("running", 0, 0)));
    app.on_envelope(env(7, "subrun_progress", "where", run("running", 2, 340)));
    let shown = |app: &App| -> Vec<String> {
        app.entries
            .iter()
            .flat_map(|e| crate::render::conversation::entry_lines(app, e))
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect()
    };
    let row = shown(&app)
        .into_iter()
        .find(|l| l.contains("explore subagent"))
        .unwrap();
    assert!(
        row.contains("▸") && row.ends_with("2 steps · 340 tokens · running"),
        "{row}"
    );
    app.on_envelope(env(7, "subrun_finished", "where", run("done", 3, 500)));
    app.on_key(ctrl('o'));
    let lines = shown(&app);
    let at = lines
        .iter()
        .position(|l| l.contains("explore subagent"))
        .unwrap();
    assert!(lines[at].starts_with("✓ ▾") && lines[at].ends_with("3 steps · 500 tokens · done"));
    assert_eq!(lines[at + 1], "    session s-sr-1");
    app.on_key(ctrl('o'));
    assert!(
        !shown(&app).iter().any(|l| l.contains("session s-sr-1")),
        "folded again"
    );
}

#[test]
fn a_patch_of_two_files_shows_both_diffs_under_its_row() {
    let mut app = App::default();
    app.start_turn(7, "patch");
    app.on_envelope(env(
        7,
        "tool_start",
        "apply_patch",
        json!({"callId": "p1", "summary": "path: a.py, files: 2"}),
    ));
    for diff in [
        "--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-x\n+y\n",
        "--- a/b.md\n+++ b/b.md\n@@ -0,0 +1 @@\n+z",
    ] {
        app.on_envelope(env(
            7,
            "file_diff",
            "",
            json!({"callId": "p1", "diff": diff}),
        ));
    }
    let row = app
        .entries
        .iter()
        .find_map(|e| match e {
            Entry::Tool(row) if row.call_id == "p1" => Some(row),
            _ => None,
        })
        .unwrap();
    let diff = row.diff.as_deref().unwrap();
    assert!(
        diff.contains("+++ b/a.py") && diff.contains("+++ b/b.md"),
        "{diff}"
    );
}
