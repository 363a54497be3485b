//! `seekclaw serve` and `seekclaw run --events`: the OpenSeek stream over the
//! real binary's stdin/stdout, against the testkit provider and the real store.

use std::process::Command;
use std::time::Duration;

use seekclaw_testkit::{ProviderServer, Reply, StartOptions};
use serde_json::{Value, json};

use crate::support::bin;
use crate::support::serve::{Serve, check_envelope, home_with};

/// A reply streaming `w0 w1 …` (`n` words), one every `delay`.
fn counting(n: usize, delay: Duration) -> Reply {
    (0..n).fold(Reply::new().chunk_delay(delay), |r, i| {
        r.text(format!("w{i} "))
    })
}

/// `seekclaw run <args>` on `home`: its stdout lines as JSON, and its exit code.
fn run_json(home: &std::path::Path, args: &[&str]) -> (Vec<Value>, Option<i32>) {
    let out = Command::new(bin())
        .arg("run")
        .args(args)
        .env("SEEKCLAW_HOME", home)
        .output()
        .unwrap();
    let lines = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (lines, out.status.code())
}

fn names(events: &[Value]) -> Vec<&str> {
    events
        .iter()
        .map(|e| e["event"].as_str().unwrap())
        .collect()
}

#[test]
fn serve_streams_turns_in_order_and_reports_bad_commands() {
    let server = ProviderServer::start().unwrap();
    let (_tmp, home) = home_with(&server);
    let ws = tempfile::tempdir().unwrap();
    std::fs::write(ws.path().join("notes.txt"), "the word is plover\n").unwrap();
    server.enqueue(
        Reply::new()
            .reasoning("look first")
            .text("Reading.")
            .tool_call("call_1", "read_file", r#"{"path":"notes.txt"}"#),
    );
    server.enqueue(Reply::new().text("The word ").text("is plover."));
    server.enqueue(Reply::plain("second answer"));
    let mut serve = Serve::start(&home, &["--workspace", ws.path().to_str().unwrap()]);
    serve.send(r#"{"command":"prompt","text":"what is the word?","submission_id":"s-1"}"#);
    serve.send(r#"{"command":"prompt","text":"and again"}"#);
    serve.send(r#"{"command":"dance"}"#);
    serve.send(r#"{"command":"steer","text":"x","kind":"shout"}"#);
    serve.send(r#"{"command":"prompt"}"#);
    serve.send(r#"{"command":"goal","action":"set","text":"   "}"#);
    serve.send(r#"[1,2]"#);
    let (events, code) = serve.finish();
    assert_eq!(code, Some(0), "stdin EOF finishes the work, then exits 0");
    let errors: Vec<&str> = events
        .iter()
        .filter(|e| e["event"] == "command_error")
        .map(|e| e["error"].as_str().unwrap())
        .collect();
    assert_eq!(
        errors,
        [
            "unknown command: dance",
            "unknown steer kind: shout",
            "expected a string \"text\" field",
            "goal text must not be blank",
            "expected a {\"command\": ...} object",
        ]
    );
    assert!(
        events
            .iter()
            .filter(|e| e["event"] == "command_error")
            .all(|e| e["level"] == "ERROR")
    );
    assert_eq!(
        events[0]["event"], "session_started",
        "serve says where it is first"
    );
    let turn: Vec<&Value> = events
        .iter()
        .filter(|e| e["event"] != "command_error" && e["event"] != "session_started")
        .collect();
    let seq: Vec<&str> = turn.iter().map(|e| e["event"].as_str().unwrap()).collect();
    let first_end = seq.iter().position(|n| *n == "agent_finished").unwrap();
    assert_eq!(
        seq[..first_end + 1]
            .iter()
            .filter(|n| **n != "assistant_delta" && **n != "reasoning_delta")
            .copied()
            .collect::<Vec<_>>(),
        [
            "agent_step",
            "reasoning_message",
            "assistant_message",
            "usage",
            "tool_result",
            "agent_step",
            "assistant_message",
            "usage",
            "agent_finished"
        ],
        "{seq:?}"
    );
    let steps: Vec<i64> = turn
        .iter()
        .filter(|e| e["event"] == "agent_step")
        .map(|e| e["step"].as_i64().unwrap())
        .collect();
    assert_eq!(steps, [1, 2, 1], "integers, 1-based, per turn");
    let tool = turn.iter().find(|e| e["event"] == "tool_result").unwrap();
    assert_eq!(tool["tool_call_id"], "call_1");
    assert_eq!(tool["tool_name"], "read_file");
    assert_eq!(tool["is_error"], false);
    assert!(
        tool["content"].as_str().unwrap().contains("plover"),
        "{tool}"
    );
    assert!(tool["brief"].is_string());
    let usage = &turn.iter().find(|e| e["event"] == "usage").unwrap()["usage"];
    for k in [
        "prompt_tokens",
        "completion_tokens",
        "total_tokens",
        "prompt_cache_hit_tokens",
        "prompt_cache_miss_tokens",
    ] {
        assert!(usage[k].is_u64(), "{k}: {usage}");
    }
    let finished: Vec<&&Value> = turn
        .iter()
        .filter(|e| e["event"] == "agent_finished")
        .collect();
    assert_eq!(finished.len(), 2);
    assert_eq!(finished[0]["answer"], "The word is plover.");
    assert_eq!(finished[0]["submission_id"], "s-1", "echoed");
    assert_eq!(finished[1]["answer"], "second answer");
    assert!(
        finished[1]["submission_id"].is_null(),
        "optional strings are written as null"
    );
    let deltas: String = seq[..first_end]
        .iter()
        .zip(turn.iter())
        .filter(|(n, _)| **n == "assistant_delta")
        .map(|(_, e)| e["content"].as_str().unwrap())
        .collect();
    assert_eq!(deltas, "Reading.The word is plover.");
    // The second prompt saw the first turn: one session, continued.
    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    let last = requests[2].body.to_string();
    assert!(
        last.contains("what is the word?") && last.contains("and again"),
        "{last}"
    );
}

#[test]
fn a_line_that_is_not_json_ends_the_stream_after_the_work_in_hand() {
    let server = ProviderServer::start().unwrap();
    let (_tmp, home) = home_with(&server);
    let slow = counting(10, Duration::from_millis(50));
    server.enqueue(slow);
    let mut serve = Serve::start(&home, &["--global"]);
    serve.send(r#"{"command":"prompt","text":"count"}"#);
    serve.send("this is not json");
    serve.send(r#"{"command":"prompt","text":"never read"}"#);
    // stdin stays open: the broken line alone ends the server.
    let events = serve.until("agent_finished");
    let broken = events
        .iter()
        .find(|e| e["event"] == "command_error")
        .unwrap();
    assert!(
        broken["error"]
            .as_str()
            .unwrap()
            .starts_with("command stream: "),
        "{broken}"
    );
    assert_eq!(
        events.last().unwrap()["answer"],
        "w0 w1 w2 w3 w4 w5 w6 w7 w8 w9 "
    );
    let status = serve.child.wait().unwrap();
    assert_eq!(status.code(), Some(0));
    assert_eq!(
        server.requests().len(),
        1,
        "the line after the broken one is not read"
    );
}

#[test]
fn steer_cancel_and_one_turn_per_session_across_processes() {
    let server = ProviderServer::start().unwrap();
    let (_tmp, home) = home_with(&server);
    let slow = counting(100, Duration::from_millis(100));
    server.enqueue(slow.clone());
    server.enqueue(Reply::plain("steered"));
    let mut serve = Serve::start(&home, &["--global"]);
    // Nothing runs: a steer has nowhere to go.
    serve.send(r#"{"command":"steer","text":"too early","submission_id":"e"}"#);
    let dropped = serve.until("steer_dropped");
    assert_eq!(dropped.last().unwrap()["content"], "too early");
    assert_eq!(dropped.last().unwrap()["submission_id"], "e");
    serve.send(r#"{"command":"prompt","text":"count slowly"}"#);
    serve.until("assistant_delta");

    // A daemon on the same home sees the session and cannot run a turn on it.
    let daemon =
        seekclaw_testkit::DaemonProcess::spawn(bin(), &home, &StartOptions::default()).unwrap();
    let mut client = daemon.connect().unwrap();
    let sessions = client
        .ok_json("session.list", json!({"global": true}))
        .unwrap();
    let sid = sessions[0]["id"]
        .as_str()
        .unwrap_or_else(|| panic!("{sessions}"))
        .to_string();
    let id = client
        .send(
            "chat",
            json!({"sessionId": sid, "message": "me too", "global": true}),
        )
        .unwrap();
    let reply = client.collect(id).unwrap();
    let last = reply.last().unwrap();
    assert_eq!(last["event"], "error", "{reply:?}");
    assert_eq!(last["details"]["code"], "busy", "{last}");
    assert!(
        last["data"]
            .as_str()
            .unwrap()
            .contains("another seekclaw process"),
        "{last}"
    );

    serve.send(r#"{"command":"steer","text":"stop counting","submission_id":"st"}"#);
    serve.send(r#"{"command":"cancel"}"#);
    let end = serve.until("agent_aborted");
    let aborted = end.last().unwrap();
    assert_eq!(aborted["reason"], "interrupted");
    assert_eq!(aborted["level"], "WARN");
    let steer = end.iter().find(|e| e["event"] == "steer_applied").unwrap();
    assert_eq!(
        (
            steer["kind"].as_str(),
            steer["content"].as_str(),
            steer["submission_id"].as_str()
        ),
        (Some("prompt"), Some("stop counting"), Some("st"))
    );
    let (_, code) = serve.finish();
    assert_eq!(code, Some(0));

    // Free again: the daemon continues the session serve started.
    let id = client
        .send(
            "chat",
            json!({"sessionId": sid, "message": "now me", "global": true}),
        )
        .unwrap();
    let reply = client.collect(id).unwrap();
    assert_eq!(reply.last().unwrap()["event"], "done", "{reply:?}");
}

#[test]
fn goal_and_compact_write_to_the_session_log() {
    let server = ProviderServer::start().unwrap();
    let (_tmp, home) = home_with(&server);
    server.enqueue(Reply::plain("first"));
    server.enqueue(Reply::plain("SUMMARY: asked once, answered first"));
    server.enqueue(Reply::plain("after"));
    // The goal stands unconfirmed: the model is asked once before finishing.
    server.enqueue(Reply::plain("still shipping"));
    let mut serve = Serve::start(&home, &["--global"]);
    serve.send(r#"{"command":"compact"}"#);
    let failed = serve.until("compaction_failed");
    assert!(
        failed.last().unwrap()["error"]
            .as_str()
            .unwrap()
            .contains("nothing to compact")
    );
    serve.send(r#"{"command":"prompt","text":"hello"}"#);
    serve.until("agent_finished");
    serve.send(r#"{"command":"goal","action":"set","text":"ship the release"}"#);
    serve.send(r#"{"command":"compact"}"#);
    serve.send(r#"{"command":"prompt","text":"go on"}"#);
    let events = serve.until("agent_finished");
    let find = |name: &str| {
        let i = events.iter().position(|e| e["event"] == name);
        (
            i.unwrap_or_else(|| panic!("no {name}: {events:?}")),
            &events[i.unwrap_or(0)],
        )
    };
    let (g, goal) = find("goal_updated");
    assert_eq!(goal["goal"], "ship the release");
    let (s, started) = find("compaction_started");
    assert_eq!(started["from_sequence"], 1);
    assert!(started["to_sequence"].as_u64().unwrap() >= 3, "{started}");
    let (f, done) = find("compaction_finished");
    assert_eq!(done["summary"], "SUMMARY: asked once, answered first");
    let second_turn = events
        .iter()
        .rposition(|e| e["event"] == "agent_step")
        .unwrap();
    assert!(g < s && s < f && f < second_turn, "wire order: {events:?}");
    serve.send(r#"{"command":"goal","action":"clear"}"#);
    let cleared = serve.until("goal_updated");
    assert!(cleared.last().unwrap()["goal"].is_null());
    let (_, code) = serve.finish();
    assert_eq!(code, Some(0));
    // The turn after the compaction starts from the summary, and the goal
    // (its marker summarized away) is recalled at the turn's start.
    let body = server.requests()[2].body.to_string();
    assert!(body.contains("SUMMARY: asked once"), "{body}");
    assert!(
        body.contains("[goal reminder]\\nThe standing goal: ship the release"),
        "{body}"
    );
}

#[test]
fn run_events_writes_the_same_stream_for_one_prompt() {
    let server = ProviderServer::start().unwrap();
    let (_tmp, home) = home_with(&server);
    server.enqueue(Reply::new().text("one ").tool_call("c1", "nope_tool", "{}"));
    server.enqueue(Reply::plain("two"));
    let (events, code) = run_json(&home, &["go", "--global", "--events", "--max-steps", "1"]);
    events.iter().for_each(check_envelope);
    assert_eq!(
        names(&events),
        [
            "session_started",
            "agent_step",
            "assistant_delta",
            "assistant_message",
            "usage",
            "tool_result",
            "max_steps_exhausted"
        ],
        "{events:?}"
    );
    assert_eq!(code, Some(1), "an unfinished turn is a failure");
    let started = &events[0];
    assert!(started["workspace_root"].is_null(), "global: no workspace");
    assert!(started["session"].is_string() && started["session_root"].is_string());
    assert_eq!(events[5]["is_error"], true);

    // --continue picks the session up; no --max-steps: unbounded.
    let (events, code) = run_json(&home, &["again", "--global", "--events", "--continue"]);
    assert_eq!(code, Some(0));
    assert_eq!(events[0]["session"], started["session"]);
    assert_eq!(events.last().unwrap()["event"], "agent_finished");
    assert_eq!(events.last().unwrap()["answer"], "two");
}

#[test]
fn session_compact_appends_a_summary_the_next_turn_starts_from() {
    let server = ProviderServer::start().unwrap();
    let d = crate::support::turns::setup(&server, StartOptions::default());
    let mut c = d.connect().unwrap();
    server.enqueue(Reply::plain("first answer"));
    let reply = crate::support::turns::chat(
        &mut c,
        json!({"message": "remember the word plover", "global": true}),
    );
    let sid = reply.last().unwrap()["sessionId"]
        .as_str()
        .unwrap()
        .to_string();
    let err = c
        .err("session.compact", json!({"id": "nope", "global": true}))
        .unwrap();
    assert_eq!(err["details"]["code"], "not_found", "{err}");

    server.enqueue(Reply::plain("SUMMARY: the word is plover"));
    let done = c
        .ok_json("session.compact", json!({"id": sid, "global": true}))
        .unwrap();
    assert_eq!(done["id"], sid.as_str());
    assert_eq!(done["fromSeq"], 1);
    assert_eq!(done["summary"], "SUMMARY: the word is plover");
    assert!(done["summarySeq"].as_u64().unwrap() > done["toSeq"].as_u64().unwrap());
    // The summary request saw the conversation; the next turn sees the summary instead.
    let asked = server.requests()[1].body.to_string();
    assert!(asked.contains("remember the word plover"), "{asked}");
    server.enqueue(Reply::plain("plover"));
    crate::support::turns::chat(
        &mut c,
        json!({"sessionId": sid, "message": "the word?", "global": true}),
    );
    let next = server.requests()[2].body.to_string();
    assert!(next.contains("SUMMARY: the word is plover"), "{next}");
    assert!(
        !next.contains("first answer"),
        "covered events are not resent: {next}"
    );

    // A session with a turn running is busy.
    let slow = counting(30, Duration::from_millis(100));
    server.enqueue(slow);
    let asked = server.requests().len();
    let turn = c
        .send(
            "chat",
            json!({"sessionId": sid, "message": "count", "global": true}),
        )
        .unwrap();
    let mut other = d.connect().unwrap();
    // The model has been asked: the turn runs and holds the session.
    server
        .wait_requests(asked + 1, Duration::from_secs(20))
        .unwrap();
    let busy = other
        .err("session.compact", json!({"id": sid, "global": true}))
        .unwrap();
    assert_eq!(busy["details"]["code"], "busy", "{busy}");
    c.send("agent.cancel", json!({"sessionId": sid})).unwrap();
    let _ = c.collect(turn).unwrap();
}

#[test]
fn run_events_ends_with_context_yield_at_the_ceiling() {
    let server = ProviderServer::start().unwrap();
    let (_tmp, home) = home_with(&server);
    // The window is 100,000 tokens: 90,000 is past the hard ceiling.
    server.enqueue(
        Reply::new()
            .tool_call("c1", "read_file", r#"{"path":"x"}"#)
            .usage(90000, 0, 10),
    );
    server.enqueue(Reply::plain("SUMMARY: wanted to read x"));
    let (events, code) = run_json(&home, &["read x", "--global", "--events"]);
    assert_eq!(code, Some(0));
    let last = events.last().unwrap();
    assert_eq!(last["event"], "context_yield", "{events:?}");
    assert!(
        last["answer"]
            .as_str()
            .unwrap()
            .starts_with("[context ceiling]")
    );
    assert!(last["to_sequence"].as_u64().unwrap() >= 3, "{last}");
    let skipped = events.iter().find(|e| e["event"] == "tool_result").unwrap();
    assert_eq!(skipped["is_error"], true);
    assert!(
        skipped["content"]
            .as_str()
            .unwrap()
            .starts_with("skipped: the turn is yielding")
    );
}

/// The tool names a recorded request offered.
fn offered(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .map(|t| {
            t.iter()
                .map(|t| {
                    t["function"]["name"]
                        .as_str()
                        .unwrap_or_default()
                        .to_string()
                })
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn goal_tool_check_finish_and_auto_continuation() {
    let server = ProviderServer::start().unwrap();
    let (_tmp, home) = home_with(&server);
    let mut serve = Serve::start(&home, &["--global"]);
    serve.send(r#"{"command":"goal","action":"set","text":"make the tests pass","auto":true}"#);
    assert_eq!(
        serve.until("goal_updated").last().unwrap()["goal"],
        "make the tests pass"
    );
    // Turn 1: a plain answer with the goal unconfirmed gets the goal check,
    // then the model reports progress and finishes with the finish tool.
    server.enqueue(Reply::plain("I looked around."));
    server.enqueue(
        Reply::new()
            .tool_call(
                "g1",
                "goal",
                r#"{"status":"continuing","remaining":"two tests fail"}"#,
            )
            .tool_call("f1", "finish", r#"{"answer":"Progress made."}"#),
    );
    // Turn 2 (automatic): the model reports the goal met.
    server.enqueue(Reply::new().tool_call("g2", "goal", r#"{"status":"met"}"#));
    server.enqueue(Reply::plain("All green."));
    serve.send(r#"{"command":"prompt","text":"start"}"#);
    let first = serve.until("agent_finished");
    let n = names(&first);
    assert!(n.contains(&"goal_reminder"), "{n:?}");
    assert!(n.contains(&"goal_check"), "{n:?}");
    assert_eq!(first.last().unwrap()["answer"], "Progress made.");
    let goal_result = first.iter().find(|e| e["event"] == "tool_result").unwrap();
    assert_eq!(goal_result["tool_name"], "goal");
    assert_eq!(
        goal_result["content"],
        "goal status recorded as continuing: two tests fail"
    );
    assert!(
        first.iter().all(|e| e["tool_name"] != "finish"),
        "finish's own result is not emitted"
    );
    let cont = serve.until("goal_continue");
    assert_eq!(cont.last().unwrap()["remaining"], 19);
    let second = serve.until("agent_finished");
    let met = second
        .iter()
        .find(|e| e["event"] == "goal_updated")
        .unwrap();
    assert!(met["goal"].is_null(), "met clears the goal: {met}");
    assert_eq!(second.last().unwrap()["answer"], "All green.");
    let (rest, code) = serve.finish();
    assert_eq!(code, Some(0));
    assert!(
        !names(&rest).contains(&"goal_continue"),
        "a met goal is not continued: {rest:?}"
    );

    let requests = server.requests();
    assert_eq!(requests.len(), 4);
    let tools = offered(&requests[0].body);
    assert!(
        tools.contains(&"goal".to_string()) && tools.contains(&"finish".to_string()),
        "{tools:?}"
    );
    let check = requests[1].body.to_string();
    assert!(check.contains("[goal check]"), "{check}");
    let auto = requests[2].body.to_string();
    assert!(
        auto.contains("Continue working toward the standing goal"),
        "{auto}"
    );
}

#[test]
fn a_long_turn_gets_a_plan_reminder() {
    let server = ProviderServer::start().unwrap();
    let (_tmp, home) = home_with(&server);
    server.set_default(Reply::new().tool_call("c", "list_dir", r#"{"path":"."}"#));
    let (events, _) = run_json(
        &home,
        &["wander", "--global", "--events", "--max-steps", "52"],
    );
    let reminders: Vec<&Value> = events
        .iter()
        .filter(|e| e["event"] == "plan_reminder")
        .collect();
    assert_eq!(
        reminders.len(),
        1,
        "one nudge in 52 requests without a plan"
    );
    assert!(
        reminders[0]["content"]
            .as_str()
            .unwrap()
            .starts_with("[plan reminder]")
    );
    assert_eq!(events.last().unwrap()["event"], "max_steps_exhausted");
    let requests = server.requests();
    assert_eq!(requests.len(), 52);
    assert!(requests[50].body.to_string().contains("[plan reminder]"));
    assert!(!requests[49].body.to_string().contains("[plan reminder]"));
}

#[test]
fn sessions_compact_summarizes_a_session_from_the_command_line() {
    let server = ProviderServer::start().unwrap();
    let (_tmp, home) = home_with(&server);
    server.enqueue(Reply::plain("noted"));
    let (events, _) = run_json(&home, &["remember plover", "--global", "--events"]);
    let sid = events[0]["session"].as_str().unwrap().to_string();
    server.enqueue(Reply::plain("SUMMARY: plover"));
    let out = Command::new(bin())
        .args(["sessions", "compact", &sid, "--global", "--json"])
        .env("SEEKCLAW_HOME", &home)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let done: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (done["fromSeq"].as_u64(), done["summary"].as_str()),
        (Some(1), Some("SUMMARY: plover"))
    );
    let show = |extra: &[&str]| {
        let shown = Command::new(bin())
            .args(["sessions", "show", &sid, "--global"])
            .args(extra)
            .env("SEEKCLAW_HOME", &home)
            .output()
            .unwrap();
        String::from_utf8_lossy(&shown.stdout).into_owned()
    };
    let text = show(&["--model-view"]);
    assert!(
        text.contains("SUMMARY: plover") && !text.contains("remember plover"),
        "{text}"
    );
    // The whole log keeps what the summary covers, and the summary after it.
    let log = show(&[]);
    let (covered, summary) = (
        log.find("remember plover")
            .unwrap_or_else(|| panic!("{log}")),
        log.find("── compaction summary of #1–")
            .unwrap_or_else(|| panic!("{log}")),
    );
    assert!(
        covered < summary && log.contains("SUMMARY: plover"),
        "{log}"
    );
    let missing = Command::new(bin())
        .args(["sessions", "compact", "nope", "--global"])
        .env("SEEKCLAW_HOME", &home)
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(1));
}

#[test]
fn serve_announces_background_jobs_mid_turn_and_when_idle() {
    let server = ProviderServer::start().unwrap();
    let (_tmp, home) = home_with(&server);
    let mut serve = Serve::start(&home, &["--global"]);
    // Idle: the job ends after the turn.
    server.enqueue(Reply::new().tool_call(
        "b1",
        "bash",
        r#"{"command":"sleep 0.4; echo one","run_in_background":true}"#,
    ));
    server.enqueue(Reply::plain("started"));
    serve.send(r#"{"command":"prompt","text":"start one"}"#);
    serve.until("agent_finished");
    let idle = serve.until("background_notice");
    let content = idle.last().unwrap()["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        content.starts_with("background job bg-1 finished (exit=0)"),
        "{content}"
    );
    // Mid-turn: the job ends while the model waits on it; the notice is
    // applied at the next step.
    server.enqueue(Reply::new().tool_call(
        "b2",
        "bash",
        r#"{"command":"sleep 0.3; echo two","run_in_background":true}"#,
    ));
    server.enqueue(Reply::new().tool_call("w", "bash", r#"{"command":"sleep 1"}"#));
    server.enqueue(Reply::plain("both done"));
    serve.send(r#"{"command":"prompt","text":"start two"}"#);
    let turn = serve.until("agent_finished");
    let applied = turn
        .iter()
        .find(|e| e["event"] == "steer_applied")
        .unwrap_or_else(|| panic!("{turn:?}"));
    assert_eq!(applied["kind"], "notice");
    assert!(
        applied["content"]
            .as_str()
            .unwrap()
            .starts_with("background job bg-2 finished")
    );
    let (rest, code) = serve.finish();
    assert_eq!(code, Some(0));
    assert!(!names(&rest).contains(&"background_notice"), "{rest:?}");
    // The idle notice went into the log: the next turn read it.
    let next = server.requests()[2].body.to_string();
    assert!(next.contains("background job bg-1 finished"), "{next}");
    let last = server.requests()[4].body.to_string();
    assert!(last.contains("background job bg-2 finished"), "{last}");
}

#[test]
fn run_sends_images_by_path_and_serve_exit_kills_its_jobs() {
    let server = ProviderServer::start().unwrap();
    let (tmp, home) = home_with(&server);
    let config = json!({"providers": [{"id": "tk", "kind": "openai", "baseUrl": server.base_url(),
        "models": [{"id": "m1", "contextWindow": 100000, "capabilities": {"vision": true}}]}]});
    std::fs::write(home.join("config.json"), config.to_string()).unwrap();
    let png = tmp.path().join("dot.png");
    // A 1×1 PNG.
    let bytes: [u8; 67] = [
        0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44,
        0x52, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F,
        0x15, 0xC4, 0x89, 0x00, 0x00, 0x00, 0x0A, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0x00,
        0x01, 0x00, 0x00, 0x05, 0x00, 0x01, 0x0D, 0x0A, 0x2D, 0xB4, 0x00, 0x00, 0x00, 0x00, 0x49,
        0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
    ];
    std::fs::write(&png, bytes).unwrap();
    server.enqueue(Reply::plain("a dot"));
    let (events, code) = run_json(
        &home,
        &[
            "what is this?",
            "--global",
            "--events",
            "--image",
            png.to_str().unwrap(),
        ],
    );
    assert_eq!(code, Some(0), "{events:?}");
    let body = server.requests()[0].body.to_string();
    assert!(
        body.contains("iVBORw0KGgo"),
        "the image is in the request: {body}"
    );
    let (events, code) = run_json(
        &home,
        &["x", "--global", "--events", "--image", "/nope.png"],
    );
    assert_eq!(code, Some(1));
    assert_eq!(events[0]["event"], "agent_setup_failed", "{events:?}");

    // Jobs end with the serve process.
    let ws = tempfile::tempdir().unwrap();
    let args = json!({"command": "exec sleep 60.0333", "run_in_background": true});
    server.enqueue(Reply::new().tool_call("b", "bash", args.to_string()));
    server.enqueue(Reply::plain("left it running"));
    let mut serve = Serve::start(&home, &["--workspace", ws.path().to_str().unwrap()]);
    serve.send(r#"{"command":"prompt","text":"start a server"}"#);
    serve.until("agent_finished");
    let pid = crate::support::wait_marker("sleep 60.0333");
    let alive = |pid: u32| {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .map(|s| {
                !s.rsplit(')')
                    .next()
                    .unwrap_or("")
                    .trim_start()
                    .starts_with('Z')
            })
            .unwrap_or(false)
    };
    assert!(alive(pid));
    let (_, code) = serve.finish();
    assert_eq!(code, Some(0));
    let start = std::time::Instant::now();
    while alive(pid) {
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "the job outlived serve"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn shell_context_sent_during_a_compaction_is_written_when_it_ends() {
    let server = ProviderServer::start().unwrap();
    let (_tmp, home) = home_with(&server);
    server.enqueue(Reply::plain("first"));
    server.enqueue(counting(20, Duration::from_millis(30)));
    server.enqueue(Reply::plain("next"));
    let mut serve = Serve::start(&home, &["--global"]);
    serve.send(r#"{"command":"prompt","text":"hello"}"#);
    serve.until("agent_finished");
    serve.send(r#"{"command":"compact"}"#);
    serve.until("compaction_started");
    serve.send(r#"{"command":"steer","kind":"command","text":"$ ls\nsrc","submission_id":"c1"}"#);
    let events = serve.until("steer_applied");
    let finished = events
        .iter()
        .position(|e| e["event"] == "compaction_finished");
    assert!(
        finished.is_some(),
        "written after the compaction: {events:?}"
    );
    let applied = events.last().unwrap();
    assert_eq!(
        (applied["kind"].as_str(), applied["submission_id"].as_str()),
        (Some("command"), Some("c1"))
    );
    serve.send(r#"{"command":"prompt","text":"go on"}"#);
    serve.until("agent_finished");
    let (_, code) = serve.finish();
    assert_eq!(code, Some(0));
    let body = server.requests()[2].body.to_string();
    assert!(
        body.contains("$ ls\\nsrc"),
        "the next turn reads it: {body}"
    );
}

/// Every scope's sessions (the store, through the CLI).
fn all_sessions(home: &std::path::Path) -> Value {
    let out = Command::new(bin())
        .args(["sessions", "list", "--all", "--json"])
        .env("SEEKCLAW_HOME", home)
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn serve_names_its_session_root_and_workspace_first_and_makes_the_session_on_the_first_turn() {
    let server = ProviderServer::start().unwrap();
    server.set_default(Reply::plain("hello back"));
    let (_tmp, home) = home_with(&server);
    let ws = crate::support::project_dir(home.parent().unwrap(), "app");
    let ws_arg = ws.to_str().unwrap();

    // Nothing asked: the session is named but not made.
    let serve = Serve::start(&home, &["--workspace", ws_arg]);
    let (events, code) = serve.finish();
    assert_eq!(code, Some(0));
    assert_eq!(names(&events), ["session_started"]);
    let started = &events[0];
    let keys: Vec<&String> = started.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "timestamp",
            "level",
            "event",
            "session",
            "session_root",
            "workspace_root"
        ]
    );
    assert_eq!(started["session_root"], home.to_str().unwrap());
    assert_eq!(started["workspace_root"], ws_arg);
    assert!(!started["session"].as_str().unwrap().is_empty());
    assert_eq!(all_sessions(&home), json!([]));

    // A turn makes the session it announced.
    let mut serve = Serve::start(&home, &["--workspace", ws_arg]);
    let first = serve.next();
    assert_eq!(first["event"], "session_started");
    let sid = first["session"].as_str().unwrap().to_string();
    serve.send(r#"{"command":"prompt","text":"hi"}"#);
    serve.until("agent_finished");
    let (_, code) = serve.finish();
    assert_eq!(code, Some(0));
    let sessions = all_sessions(&home);
    assert_eq!(sessions.as_array().unwrap().len(), 1, "{sessions}");
    assert_eq!(sessions[0]["id"], sid.as_str());

    // Continuing names that session; the global scope has no workspace.
    let serve = Serve::start(&home, &["--workspace", ws_arg, "--session", &sid]);
    let (events, _) = serve.finish();
    assert_eq!(events[0]["session"], sid.as_str());
    let serve = Serve::start(&home, &["--global"]);
    let (events, _) = serve.finish();
    assert_eq!(events[0]["event"], "session_started");
    assert_eq!(events[0]["workspace_root"], Value::Null);
    assert_ne!(events[0]["session"], sid.as_str());
}
