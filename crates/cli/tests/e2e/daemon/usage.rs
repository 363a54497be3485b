//! Token and cost totals: every provider call a turn made counts, whether the
//! turn finished, was cancelled or died with its daemon (`kill -9`), and
//! every total reads the same numbers: `session.get`, `session.timeline`
//! (what the terminal UI reloads), `usage.get`, and the inspector's header
//! and per-turn table (`seekclaw inspect --export`).

use std::process::Command;
use std::time::Duration;

use seekclaw_testkit::{DaemonProcess, ProviderServer, Reply, StartOptions};
use serde_json::{Value, json};

use crate::support::bin;
use crate::support::turns::chat;

/// A step that calls `list_dir` and reports `(input, cached, output)`.
fn tool_step(input: u64, cached: u64, output: u64) -> Reply {
    Reply::new()
        .tool_call("call_1", "list_dir", r#"{"path":"."}"#)
        .usage(input, cached, output)
}

/// A step that streams slowly (cut short by the test), usage at its end.
fn slow_step() -> Reply {
    let mut slow = Reply::new().chunk_delay(Duration::from_millis(150));
    for i in 0..40 {
        slow = slow.text(format!("{i} "));
    }
    slow.usage(5000, 0, 500)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

#[test]
fn totals_count_cancelled_and_killed_turns_and_agree_everywhere() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let config = json!({
        "providers": [{"id": "tk", "kind": "openai", "baseUrl": server.base_url(),
            "models": [{"id": "m1", "inputPricePerMTok": 2.0, "outputPricePerMTok": 10.0}]}]
    });
    let opts = StartOptions {
        config: Some(config),
        ..Default::default()
    };
    let mut d = DaemonProcess::spawn(bin(), &home, &opts).unwrap();
    let mut c = d.connect().unwrap();
    let sid = c.ok("session.new", json!({"global": true})).unwrap();
    let turn = json!({"message": "go", "sessionId": sid, "global": true});

    // Turn 1, cancelled in its second step.
    server.enqueue(tool_step(100, 20, 10));
    server.enqueue(slow_step());
    let chat_id = c.send("chat", turn.clone()).unwrap();
    c.wait_for("delta").unwrap();
    c.ok("agent.cancel", json!({"requestId": chat_id})).unwrap();
    let all = c.collect(chat_id).unwrap();
    assert_eq!(all.last().unwrap()["event"], "cancelled");

    // Turn 2: its daemon is killed while the second step streams.
    server.enqueue(tool_step(200, 0, 20));
    server.enqueue(slow_step());
    c.send("chat", turn.clone()).unwrap();
    c.wait_for("delta").unwrap();
    d.kill9().unwrap();
    let d2 = DaemonProcess::spawn(bin(), &home, &StartOptions::default()).unwrap();
    let mut c = d2.connect().unwrap();

    // Turn 3 finishes.
    server.enqueue(Reply::plain("done").usage(400, 100, 40));
    let all = chat(&mut c, turn.clone());
    assert_eq!(all.last().unwrap()["data"], "done");

    // Every call whose answer arrived counts: 100 + 200 + 400 in, 10 + 20 + 40
    // out (the two cut-off streams never reported theirs).
    let (input, cached, output) = (700, 120, 70);
    let cost = (2.0 * input as f64 + 10.0 * output as f64) / 1e6;
    let session = c
        .ok_json("session.get", json!({"id": sid, "global": true}))
        .unwrap();
    assert_eq!(
        (
            session["totalInputTokens"].as_i64(),
            session["cachedInputTokens"].as_i64(),
            session["outputTokens"].as_i64()
        ),
        (Some(input), Some(cached), Some(output)),
        "{session}"
    );
    // Models started: 2 + 1 (the killed stream's step never reached the log) + 1.
    assert_eq!(session["llmRounds"], 4, "{session}");

    let timeline = c
        .ok_json("session.timeline", json!({"id": sid, "global": true}))
        .unwrap();
    assert_eq!(
        (
            timeline["inputTokens"].as_i64(),
            timeline["outputTokens"].as_i64()
        ),
        (Some(input), Some(output))
    );
    assert!(
        close(timeline["costUsd"].as_f64().unwrap(), cost),
        "{timeline}"
    );

    let usage = c.ok_json("usage.get", json!({})).unwrap();
    assert_eq!(usage.as_array().unwrap().len(), 1, "{usage}");
    // Four attempts: the cancelled stream counts as a call (its provider had
    // not said its tokens yet); the one its killed daemon was reading is
    // known to nobody.
    assert_eq!(
        (
            usage[0]["calls"].as_u64(),
            usage[0]["totalInputTokens"].as_u64(),
            usage[0]["outputTokens"].as_u64()
        ),
        (Some(4), Some(input as u64), Some(output as u64)),
        "{usage}"
    );
    assert!(close(usage[0]["cost"].as_f64().unwrap(), cost), "{usage}");
    drop(c);
    drop(d2);

    // The inspector's header (the session row) and its per-turn table (the
    // ledger) agree, turn by turn as the log numbers them.
    let page = tmp.path().join("export.html");
    let out = Command::new(bin())
        .args([
            "inspect",
            "--export",
            page.to_str().unwrap(),
            "--session",
            &sid,
        ])
        .env("SEEKCLAW_HOME", &home)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let html = std::fs::read_to_string(&page).unwrap();
    let blob = baked(&html);
    let header = &blob["sessions"][0];
    assert_eq!(
        (
            header["inputTokens"].as_i64(),
            header["outputTokens"].as_i64()
        ),
        (Some(input), Some(output))
    );
    assert!(close(header["cost"].as_f64().unwrap(), cost), "{header}");
    let log = blob["logs"].as_object().unwrap().values().next().unwrap();
    let turns: Vec<(u64, u64, u64)> = log["usage"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["calls"].as_u64().unwrap(),
                t["inputTokens"].as_u64().unwrap(),
                t["outputTokens"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(turns, [(2, 100, 10), (1, 200, 20), (1, 400, 40)]);
    // Each ledger turn is a turn of the log (the page numbers them 1, 2, 3).
    let owners: Vec<&str> = log["usage"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["turn"].as_str().unwrap())
        .collect();
    let events = log["events"].as_array().unwrap();
    let terminals: Vec<(&str, &str)> = events
        .iter()
        .filter(|e| e["item"]["type"] == "terminal")
        .map(|e| {
            (
                e["turn"].as_str().unwrap(),
                e["item"]["status"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        terminals,
        [
            (owners[0], "aborted"),
            (owners[1], "interrupted"),
            (owners[2], "finished")
        ]
    );
    // The cancelled step's partial answer carries what it used, too.
    let steps: Vec<&Value> = events
        .iter()
        .filter(|e| e["item"]["type"] == "assistant")
        .collect();
    assert!(
        steps.iter().all(|e| e["item"]["usage"].is_object()),
        "{steps:?}"
    );
}

/// The JSON blob an exported page carries.
fn baked(html: &str) -> Value {
    let start = html
        .find(r#"<script type="application/json" id="seekclaw-data">"#)
        .unwrap();
    let rest = &html[start..];
    let body = &rest[rest.find('>').unwrap() + 1..rest.find("</script>").unwrap()];
    serde_json::from_str(body).unwrap()
}
