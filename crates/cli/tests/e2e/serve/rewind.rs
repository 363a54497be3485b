//! `serve`'s `rewind` command and `checkpoint` events (issue 38): a turn's
//! file change is checkpointed, `rewind` puts the file and the conversation
//! back and returns the prompt; a file the user changed is a conflict until
//! `force`; a rewind while a turn runs is refused `busy`.

use std::time::Duration;

use seekclaw_testkit::{ProviderServer, Reply};
use serde_json::{Value, json};

use crate::support::serve::{Serve, home_with};

fn write(server: &ProviderServer, id: &str, content: &str, answer: &str) {
    server.enqueue(Reply::new().tool_call(
        id,
        "write_file",
        json!({"path": "notes.txt", "content": content}).to_string(),
    ));
    server.enqueue(Reply::plain(answer));
}

fn named<'a>(events: &'a [Value], name: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["event"] == name).collect()
}

#[test]
fn rewind_restores_the_file_and_the_conversation_and_refuses_conflicts_and_busy() {
    let server = ProviderServer::start().unwrap();
    let (_tmp, home) = home_with(&server);
    let ws = tempfile::tempdir().unwrap();
    let notes = ws.path().join("notes.txt");
    std::fs::write(&notes, "original\n").unwrap();
    write(&server, "c1", "first\n", "Wrote it.");
    write(&server, "c2", "second\n", "Changed it.");
    let mut serve = Serve::start(&home, &["--workspace", ws.path().to_str().unwrap()]);
    serve.send(r#"{"command":"prompt","text":"write first"}"#);
    let first = serve.until("agent_finished");
    serve.send(r#"{"command":"prompt","text":"change it please"}"#);
    let second = serve.until("agent_finished");
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "second\n");

    // The step that wrote is checkpointed; its turn names its user message.
    let marks = named(&second, "checkpoint");
    let step = marks
        .iter()
        .find(|c| c["kind"] == "step")
        .unwrap_or_else(|| panic!("no step checkpoint in {second:?}"));
    assert_eq!(step["files"][0]["path"], "notes.txt", "{step}");
    assert_eq!(step["files"][0]["status"], "modified", "{step}");
    assert_eq!(
        (step["added"].as_u64(), step["removed"].as_u64()),
        (Some(1), Some(1))
    );
    let seq2 = step["turn_sequence"].as_u64().unwrap();
    let seq1 = named(&first, "checkpoint")[0]["turn_sequence"]
        .as_u64()
        .unwrap();
    assert!(seq1 < seq2);

    // The user edits the file: a code rewind is a conflict, nothing changes.
    std::fs::write(&notes, "mine now\n").unwrap();
    serve.send(&json!({"command": "rewind", "seq": seq2, "restore": "code"}).to_string());
    let refused = serve.until("rewind_failed");
    let refused = refused.last().unwrap();
    assert_eq!(refused["reason"], "conflict", "{refused}");
    assert_eq!(refused["conflicts"], json!(["notes.txt"]), "{refused}");
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "mine now\n");

    // A dry run (of a forced rewind) says what would change and changes nothing.
    let dry = json!({"command": "rewind", "seq": seq2, "restore": "both", "dry_run": true, "force": true});
    serve.send(&dry.to_string());
    let would = serve.until("rewind_finished");
    let would = would.last().unwrap();
    assert_eq!(would["dry_run"], true, "{would}");
    assert_eq!(would["conflicts"], json!(["notes.txt"]), "{would}");
    assert!(
        would["files"][0]["diff"]
            .as_str()
            .is_some_and(|d| d.contains("+first")),
        "{would}"
    );
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "mine now\n");

    // Forced, both: the file as before the turn, the prompt back.
    let forced = json!({"command": "rewind", "seq": seq2, "restore": "both", "force": true});
    serve.send(&forced.to_string());
    let done = serve.until("rewind_finished");
    let finished = done.last().unwrap();
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "first\n");
    assert_eq!(finished["prompt"], "change it please", "{finished}");
    assert_eq!(finished["restore"], "both", "{finished}");
    assert!(finished["marker_sequence"].as_u64().is_some(), "{finished}");
    assert!(
        named(&done, "checkpoint")
            .iter()
            .any(|c| c["kind"] == "rewind"),
        "the rewind's own checkpoint: {done:?}"
    );

    // The next turn is not sent the rewound exchange.
    server.enqueue(Reply::plain("Fresh answer."));
    serve.send(r#"{"command":"prompt","text":"try again"}"#);
    serve.until("agent_finished");
    let body = server.requests().last().unwrap().body.to_string();
    assert!(body.contains("Wrote it."), "{body}");
    assert!(!body.contains("Changed it."), "{body}");

    // During a turn: busy, nothing changes.
    let slow = (0..40).fold(
        Reply::new().chunk_delay(Duration::from_millis(100)),
        |r, i| r.text(format!("w{i} ")),
    );
    server.enqueue(slow);
    serve.send(r#"{"command":"prompt","text":"take your time"}"#);
    serve.until("assistant_delta");
    serve.send(&json!({"command": "rewind", "seq": seq1}).to_string());
    let busy = serve.until("rewind_failed");
    assert_eq!(busy.last().unwrap()["reason"], "busy");
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "first\n");
    serve.send(r#"{"command":"cancel"}"#);
    let (rest, code) = serve.finish();
    assert_eq!(code, Some(0), "{rest:?}");
}
