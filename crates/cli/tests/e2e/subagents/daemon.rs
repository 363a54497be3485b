//! Subagents over the daemon's socket: the child's session and events,
//! concurrency with the log in call order, cancel, a failing child, the
//! per-turn budget, and `review` without a goal.

use std::time::{Duration, Instant};

use seekclaw_testkit::{ProviderServer, Reply, StartOptions, wait_until};
use serde_json::{Value, json};

use crate::support::project_dir;
use crate::support::turns::{chat, events, setup, strings};

fn explore(id: &str, query: &str) -> (String, String, String) {
    (
        id.to_string(),
        "explore".to_string(),
        json!({ "query": query }).to_string(),
    )
}

/// A reply making `calls` in one step.
fn calls(calls: &[(String, String, String)]) -> Reply {
    calls
        .iter()
        .fold(Reply::new(), |r, (id, name, args)| {
            r.tool_call(id, name, args)
        })
        .usage(100, 0, 10)
        .finish("tool_calls")
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
fn an_explore_child_has_its_own_linked_session_and_bracketing_events() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let ws = project_dir(tmp.path(), "proj");
    server.enqueue(calls(&[explore("call_1", "where is alpha-q defined?")]));
    server.enqueue(
        // The same place twice, in backticks and brackets, at a sentence's end.
        Reply::plain("alpha-q is defined at `src/a.rs:3`, see (src/a.rs:3).")
            .usage(200, 0, 20)
            .when_body_contains("alpha-q defined"),
    );
    server.enqueue(Reply::plain("It is in src/a.rs.").usage(300, 0, 5));
    let d = setup(&server, StartOptions::default());
    let mut c = d.connect().unwrap();
    let w = ws.display().to_string();
    let all = chat(&mut c, json!({"message": "Find it", "workspace": w}));
    assert_eq!(all.last().unwrap()["event"], "done", "{all:?}");
    let parent = all[0]["sessionId"].as_str().unwrap().to_string();
    let started = &events(&all, "subrun_started")[0];
    let finished = &events(&all, "subrun_finished")[0];
    let child = started["details"]["id"].as_str().unwrap().to_string();
    assert_eq!(child, format!("{parent}-sr-1"));
    assert_eq!(started["details"]["kind"], "explore");
    assert_eq!(started["data"], "where is alpha-q defined?");
    assert_eq!(
        started["sessionId"],
        parent.as_str(),
        "on the parent's stream"
    );
    assert_eq!(
        (
            finished["details"]["id"].as_str(),
            finished["details"]["status"].as_str(),
            finished["details"]["steps"].as_u64(),
            finished["details"]["tokens"].as_u64(),
        ),
        (Some(child.as_str()), Some("done"), Some(1), Some(220))
    );
    // Bracketed inside the tool call, before the turn's end.
    let pos = |name: &str| all.iter().position(|e| e["event"] == name).unwrap();
    assert!(pos("tool_start") < pos("subrun_started"));
    assert!(pos("subrun_finished") < pos("tool_done"));
    let done = &events(&all, "tool_done")[0];
    assert_eq!(done["details"]["success"], true, "{done}");
    assert_eq!(done["data"], "Explored: 1 citation");
    // The child's usage rolls up into the parent turn's usage events.
    let usage: u64 = events(&all, "usage")
        .iter()
        .map(|u| u["details"]["totalInputTokens"].as_u64().unwrap())
        .sum();
    assert_eq!(usage, 100 + 200 + 300, "{:?}", events(&all, "usage"));
    // The child's own request: its instructions, a read-only tool set.
    let child_req = server
        .requests()
        .into_iter()
        .find(|r| r.raw_body.contains("You are a read-only scout subagent"))
        .unwrap();
    let tools = offered(&child_req.body);
    assert!(tools.contains(&"read_file".to_string()) && tools.contains(&"bash".to_string()));
    for denied in [
        "write_file",
        "edit_file",
        "remove",
        "explore",
        "review",
        "bash_output",
    ] {
        assert!(!tools.contains(&denied.to_string()), "{denied}: {tools:?}");
    }
    let parent_tools = offered(&server.requests()[0].body);
    assert!(
        parent_tools.contains(&"explore".to_string())
            && parent_tools.contains(&"review".to_string())
    );
    // The parent's log has the answer as the tool's result.
    let p = c
        .ok_json("session.get", json!({"id": parent, "workspace": w}))
        .unwrap();
    let tool = p["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .unwrap()
        .clone();
    assert!(
        tool["text"].as_str().unwrap().contains("src/a.rs:3"),
        "{tool}"
    );
    assert_eq!(p["children"], json!([child]));
    assert!(p.get("parentId").is_none());
    // The child's session names its parent, in session.get and session.list.
    let s = c
        .ok_json("session.get", json!({"id": child, "workspace": w}))
        .unwrap();
    assert_eq!(s["parentId"], parent.as_str());
    assert_eq!(
        s["messages"][1]["text"],
        "alpha-q is defined at `src/a.rs:3`, see (src/a.rs:3)."
    );
    let list = c.ok_json("session.list", json!({"workspace": w})).unwrap();
    let listed = list
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["id"] == child.as_str())
        .unwrap()
        .clone();
    assert_eq!(listed["parentId"], parent.as_str());
    // Titled by its errand, not by its instructions.
    let title = listed["title"].as_str().unwrap();
    assert!(title.starts_with("explore: "), "{title}");
}

#[test]
fn adjacent_explores_run_concurrently_and_are_logged_in_call_order() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let ws = project_dir(tmp.path(), "proj");
    server.enqueue(calls(&[
        explore("call_a", "alpha-q please"),
        explore("call_b", "beta-q please"),
    ]));
    // The first child is answered only once the second child's request has
    // arrived too (3 requests: the parent's and both children's): a
    // sequential run would hold it 10 s. The second answers at once, so it
    // finishes first.
    server.enqueue(
        Reply::plain("alpha at a.rs:1")
            .when_body_contains("alpha-q please")
            .after_requests(3)
            .header_delay(Duration::from_millis(200)),
    );
    server.enqueue(Reply::plain("beta at b.rs:2").when_body_contains("beta-q please"));
    server.enqueue(Reply::plain("both found"));
    let d = setup(&server, StartOptions::default());
    let mut c = d.connect().unwrap();
    let w = ws.display().to_string();
    let began = Instant::now();
    let all = chat(&mut c, json!({"message": "Find both", "workspace": w}));
    let took = began.elapsed();
    assert_eq!(all.last().unwrap()["data"], "both found", "{all:?}");
    assert!(took < Duration::from_secs(8), "not concurrent: {took:?}");
    let reqs = server.requests();
    let a = reqs
        .iter()
        .position(|r| r.raw_body.contains("alpha-q please"))
        .unwrap();
    let b = reqs
        .iter()
        .position(|r| r.raw_body.contains("beta-q please"))
        .unwrap();
    assert_eq!(
        (a.min(b), a.max(b)),
        (1, 2),
        "both children asked before either answered"
    );
    // The beta child finished first …
    let finished = strings(&all, "subrun_finished", &["data"]);
    assert_eq!(finished, ["beta-q please", "alpha-q please"]);
    // … but the log holds the results in call order, as a sequential run would.
    let sid = all[0]["sessionId"].as_str().unwrap();
    let s = c
        .ok_json("session.get", json!({"id": sid, "workspace": w}))
        .unwrap();
    let results: Vec<(String, String)> = s["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| {
            (
                m["toolCallId"].as_str().unwrap().to_string(),
                m["text"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        results,
        [
            ("call_a".to_string(), "alpha at a.rs:1".to_string()),
            ("call_b".to_string(), "beta at b.rs:2".to_string())
        ]
    );
    assert_eq!(s["children"].as_array().unwrap().len(), 2);
}

#[test]
fn cancelling_the_parent_cancels_the_child() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let ws = project_dir(tmp.path(), "proj");
    server.enqueue(calls(&[explore("call_1", "gamma-q")]));
    server.enqueue(
        Reply::plain("too late")
            .when_body_contains("gamma-q")
            .header_delay(Duration::from_secs(30)),
    );
    let d = setup(&server, StartOptions::default());
    let mut c = d.connect().unwrap();
    let w = ws.display().to_string();
    let chat_id = c
        .send("chat", json!({"message": "Look", "workspace": w}))
        .unwrap();
    wait_until("the child's request", Duration::from_secs(10), || {
        server.requests().len() >= 2
    });
    let began = Instant::now();
    assert_eq!(
        c.ok("agent.cancel", json!({})).unwrap(),
        "cancellation requested for 1 active turns"
    );
    let all = c.collect(chat_id).unwrap();
    assert!(began.elapsed() < Duration::from_secs(10));
    assert_eq!(all.last().unwrap()["event"], "cancelled", "{all:?}");
    let finished = &events(&all, "subrun_finished")[0];
    assert_eq!(finished["details"]["status"], "cancelled");
    let child = finished["details"]["id"].as_str().unwrap();
    // The child wrote its own end: an aborted turn, and no turn runs on it.
    let s = c
        .ok_json("session.timeline", json!({"id": child, "workspace": w}))
        .unwrap();
    assert!(
        s.to_string().contains("aborted") || s.to_string().contains("cancel"),
        "{s}"
    );
}

#[test]
fn a_failing_child_is_a_failed_tool_result_and_the_parent_finishes() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let ws = project_dir(tmp.path(), "proj");
    server.enqueue(calls(&[explore("call_1", "delta-q")]));
    server.enqueue(
        Reply::http_error(
            400,
            json!({"error": {"message": "bad child request"}}),
            None,
        )
        .when_body_contains("delta-q"),
    );
    server.enqueue(Reply::plain("I will look myself."));
    let d = setup(&server, StartOptions::default());
    let mut c = d.connect().unwrap();
    let w = ws.display().to_string();
    let all = chat(&mut c, json!({"message": "Look", "workspace": w}));
    assert_eq!(all.last().unwrap()["event"], "done", "{all:?}");
    assert_eq!(all.last().unwrap()["data"], "I will look myself.");
    let done = &events(&all, "tool_done")[0];
    assert_eq!(done["details"]["success"], false);
    assert!(
        done["data"]
            .as_str()
            .unwrap()
            .contains("explore subagent failed"),
        "{done}"
    );
    assert_eq!(
        events(&all, "subrun_finished")[0]["details"]["status"],
        "failed"
    );
    let last = server.requests().last().unwrap().raw_body.clone();
    assert!(last.contains("bad child request"), "the model reads why");
}

#[test]
fn the_eleventh_subagent_call_of_a_turn_is_refused() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let ws = project_dir(tmp.path(), "proj");
    let batch: Vec<_> = (1..=11)
        .map(|i| explore(&format!("call_{i}"), &format!("question {i}")))
        .collect();
    server.enqueue(calls(&batch));
    server.enqueue(Reply::plain("done myself").when_body_contains("budget exhausted"));
    server.set_default(Reply::plain("found at x.rs:1"));
    let d = setup(&server, StartOptions::default());
    let mut c = d.connect().unwrap();
    let w = ws.display().to_string();
    let all = chat(&mut c, json!({"message": "Many", "workspace": w}));
    assert_eq!(all.last().unwrap()["data"], "done myself", "{all:?}");
    let dones = events(&all, "tool_done");
    let refused: Vec<&Value> = dones
        .iter()
        .filter(|d| d["details"]["success"] == false)
        .collect();
    assert_eq!((dones.len(), refused.len()), (11, 1), "{dones:?}");
    assert_eq!(refused[0]["details"]["callId"], "call_11");
    assert!(
        refused[0]["data"]
            .as_str()
            .unwrap()
            .contains("budget exhausted")
    );
    assert_eq!(events(&all, "subrun_started").len(), 10);
}

#[test]
fn review_without_a_goal_needs_a_focus_and_returns_tagged_findings() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let ws = project_dir(tmp.path(), "proj");
    server.enqueue(calls(&[("call_1".into(), "review".into(), "{}".into())]));
    server.enqueue(calls(&[(
        "call_2".into(),
        "review".into(),
        json!({"focus": "the epsilon parser"}).to_string(),
    )]));
    server.enqueue(
        Reply::plain(
            "[high] src/p.rs:9 — overflow: the length is not checked\n[nit] src/p.rs:2 — naming: x",
        )
        .when_body_contains("epsilon parser"),
    );
    server.enqueue(Reply::plain("reviewed"));
    let d = setup(&server, StartOptions::default());
    let mut c = d.connect().unwrap();
    let w = ws.display().to_string();
    let all = chat(&mut c, json!({"message": "Review it", "workspace": w}));
    assert_eq!(all.last().unwrap()["data"], "reviewed", "{all:?}");
    let dones = events(&all, "tool_done");
    assert_eq!(dones[0]["details"]["success"], false);
    assert!(
        dones[0]["data"]
            .as_str()
            .unwrap()
            .starts_with("error: no standing goal exists — pass `focus`"),
        "{}",
        dones[0]
    );
    assert_eq!(dones[1]["details"]["success"], true);
    assert_eq!(dones[1]["data"], "Reviewed: 1 high, 1 nit");
    let started = events(&all, "subrun_started");
    assert_eq!(started.len(), 1, "the refused call started no child");
    assert_eq!(started[0]["details"]["kind"], "review");
}

#[test]
fn a_watcher_sees_the_subruns_and_review_audits_the_standing_goal() {
    let server = ProviderServer::start().unwrap();
    let d = setup(&server, StartOptions::default());
    let mut a = d.connect().unwrap();
    let mut w = d.connect().unwrap();
    server.enqueue(Reply::plain("first"));
    let first = chat(&mut a, json!({"message": "hello", "global": true}));
    let sid = first.last().unwrap()["sessionId"]
        .as_str()
        .unwrap()
        .to_string();
    a.ok(
        "goal.set",
        json!({"id": sid, "global": true, "text": "ship the omega parser"}),
    )
    .unwrap();
    let watch = w
        .send("session.watch", json!({"id": sid, "global": true}))
        .unwrap();
    // `session.watch` acknowledges nothing until it ends: give it a moment.
    std::thread::sleep(Duration::from_millis(200));
    server.enqueue(calls(&[("r1".into(), "review".into(), "{}".into())]));
    server.enqueue(
        Reply::plain("[low] src/o.rs:1 — doc: missing").when_body_contains("Standing goal:"),
    );
    server.enqueue(Reply::plain("reviewed against the goal"));
    // The goal check before finishing: the model answers the same.
    server.enqueue(Reply::plain("reviewed against the goal"));
    let turn = chat(
        &mut a,
        json!({"message": "check", "sessionId": sid, "global": true}),
    );
    assert_eq!(
        turn.last().unwrap()["data"],
        "reviewed against the goal",
        "{turn:?}"
    );
    assert_eq!(events(&turn, "tool_done")[0]["data"], "Reviewed: 1 low");
    let child_req = server
        .requests()
        .into_iter()
        .find(|r| r.raw_body.contains("You are a code-review subagent"))
        .unwrap();
    assert!(child_req.raw_body.contains("ship the omega parser"));
    let mut seen = Vec::new();
    loop {
        let env = w.next_envelope().unwrap();
        if env["id"] != watch {
            continue;
        }
        let end = env["event"] == "turn_end";
        seen.push(env);
        if end {
            break;
        }
    }
    let names: Vec<&str> = seen
        .iter()
        .filter_map(|e| e["event"].as_str())
        .filter(|n| n.starts_with("subrun_"))
        .collect();
    assert_eq!(names.first(), Some(&"subrun_started"), "{seen:?}");
    assert_eq!(names.last(), Some(&"subrun_finished"), "{seen:?}");
    let finished = seen
        .iter()
        .find(|e| e["event"] == "subrun_finished")
        .unwrap();
    assert_eq!(
        (
            finished["details"]["kind"].as_str(),
            finished["details"]["status"].as_str()
        ),
        (Some("review"), Some("done"))
    );
    assert_eq!(finished["data"], "ship the omega parser");
}
