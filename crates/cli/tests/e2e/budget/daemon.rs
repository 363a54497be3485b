//! Budgets over the daemon's socket.

use seekclaw_testkit::{ProviderServer, Reply};
use serde_json::{Value, json};

use super::{answer, daemon, tool_step};
use crate::support::project_dir;
use crate::support::schedule::{create, wait_event};
use crate::support::turns::{chat, events};

fn terminal(all: &[Value]) -> &Value {
    all.last().unwrap()
}

fn assert_budget_stop(all: &[Value], says: &str) -> String {
    let end = terminal(all);
    assert_eq!(end["event"], "error", "{end}");
    assert_eq!(end["details"]["code"], "budget", "{end}");
    let data = end["data"].as_str().unwrap().to_string();
    assert!(data.contains(says), "{data}");
    assert!(
        data.contains("budget.set") && data.contains("go on"),
        "{data}"
    );
    data
}

#[test]
fn a_session_budget_stops_before_the_request_that_would_cross_it_and_a_raise_goes_on() {
    let server = ProviderServer::start().unwrap();
    let d = daemon(&server, json!({"session": 0.23}));
    let mut c = d.connect().unwrap();
    let sid = c.ok("session.new", json!({"global": true})).unwrap();
    for n in 1..=5 {
        server.enqueue(tool_step(n));
    }
    // $0 + $0.10, $0.05 + $0.10, $0.10 + $0.10 fit in $0.23; with $0.15
    // spent the fourth request would not: it is never sent.
    let all = chat(
        &mut c,
        json!({"message": "list it five times", "sessionId": sid, "global": true}),
    );
    let data = assert_budget_stop(&all, "the session budget is $0.2300 and $0.1500 is spent");
    assert!(
        data.contains(&format!("seekclaw budget set session 0.46 --session {sid}")),
        "{data}"
    );
    assert_eq!(server.requests().len(), 3);
    assert_eq!(events(&all, "tool_done").len(), 3, "every step's tool ran");

    // Still stopped while the budget is what it was.
    let all = chat(
        &mut c,
        json!({"message": "go on", "sessionId": sid, "global": true}),
    );
    assert_budget_stop(&all, "session budget");
    assert_eq!(server.requests().len(), 3);

    // Raised for this session: "go on" finishes the work.
    let view = c
        .ok_json(
            "budget.set",
            json!({"scope": "session", "usd": 1.0, "sessionId": sid, "global": true}),
        )
        .unwrap();
    assert_eq!(view["budgets"][0]["source"], "session", "{view}");
    assert_eq!(view["budgets"][0]["usd"], 1.0, "{view}");
    server.enqueue(answer("all five listed"));
    let all = chat(
        &mut c,
        json!({"message": "go on", "sessionId": sid, "global": true}),
    );
    assert_eq!(terminal(&all)["event"], "done", "{all:?}");
    assert_eq!(terminal(&all)["data"], "all five listed");
    let requests = server.requests();
    assert_eq!(requests.len(), 6);
    // Nothing was lost: the turn that went on sent the stopped turn's calls.
    let resumed = &requests[3].raw_body;
    assert!(
        resumed.contains("call_3") && resumed.contains("go on"),
        "{resumed}"
    );
    let view = c
        .ok_json("budget.get", json!({"sessionId": sid, "global": true}))
        .unwrap();
    let spent = view["budgets"][0]["spentUsd"].as_f64().unwrap();
    assert!((spent - 0.30).abs() < 1e-9, "{view}");
}

#[test]
fn the_daily_budget_spans_sessions_and_warns_first() {
    let server = ProviderServer::start().unwrap();
    let d = daemon(&server, json!({"day": 0.27, "warnAt": 0.4}));
    let mut c = d.connect().unwrap();
    server.enqueue(tool_step(1));
    server.enqueue(tool_step(2));
    server.enqueue(answer("first session done"));
    let a = c.ok("session.new", json!({"global": true})).unwrap();
    let all = chat(
        &mut c,
        json!({"message": "one", "sessionId": a, "global": true}),
    );
    assert_eq!(terminal(&all)["event"], "done", "{all:?}");
    assert!(events(&all, "reminder").is_empty(), "{all:?}");

    // Another session: $0.15 spent today, so its first request ($0.25 in
    // all) goes with a warning (past 40 %), its second ($0.30) does not.
    server.enqueue(tool_step(3));
    server.enqueue(tool_step(4));
    let b = c.ok("session.new", json!({"global": true})).unwrap();
    let all = chat(
        &mut c,
        json!({"message": "two", "sessionId": b, "global": true}),
    );
    let warned = events(&all, "reminder");
    assert_eq!(warned.len(), 1, "{all:?}");
    assert_eq!(warned[0]["details"]["kind"], "budget");
    assert!(
        warned[0]["data"]
            .as_str()
            .unwrap()
            .contains("of the daily budget of $0.2700 is spent"),
        "{warned:?}"
    );
    assert_budget_stop(&all, "the daily budget is $0.2700 and $0.2000 is spent");
    assert_eq!(server.requests().len(), 4);

    // usage.get has today's and this month's spend.
    let usage = c.ok_json("usage.get", json!({})).unwrap();
    let today = usage[0]["todayCostUsd"].as_f64().unwrap();
    let month = usage[0]["monthCostUsd"].as_f64().unwrap();
    assert!(
        (today - 0.20).abs() < 1e-9 && (month - 0.20).abs() < 1e-9,
        "{usage}"
    );
}

#[test]
fn a_model_without_a_price_counts_tokens_and_says_so() {
    let server = ProviderServer::start().unwrap();
    let d = daemon(&server, json!({"tokens": {"session": 50000}}));
    let mut c = d.connect().unwrap();
    server.enqueue(
        Reply::new()
            .tool_call("c1", "list_dir", r#"{"path":"."}"#)
            .usage(100_000, 0, 10),
    );
    server.enqueue(answer("never asked"));
    let sid = c.ok("session.new", json!({"global": true})).unwrap();
    let all = chat(
        &mut c,
        json!({"message": "go", "sessionId": sid, "global": true, "model": "tk/free"}),
    );
    let data = assert_budget_stop(&all, "session token budget is 50000 tokens");
    assert!(data.contains("free has no price"), "{data}");
    assert!(data.contains("100010 tokens is spent"), "{data}");
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn a_scheduled_run_honours_its_budget_and_its_tasks_own() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let ws = project_dir(tmp.path(), "proj");
    let d = daemon(&server, json!({"schedule": 0.12}));
    let mut c = d.connect().unwrap();
    let t = create(
        &mut c,
        json!({"name": "Nightly", "prompt": "list twice", "cron": "0 3 * * *",
               "workspace": ws.display().to_string()}),
    );
    let id = t["id"].as_str().unwrap().to_string();
    let ended = |c: &mut seekclaw_testkit::Client| loop {
        let ev = wait_event(c, "schedule.updated");
        if ev["details"]["status"] != "running" {
            return ev;
        }
    };
    server.enqueue(tool_step(1));
    server.enqueue(tool_step(2));
    assert_eq!(c.ok("schedule.run", json!({"id": id})).unwrap(), "started");
    let ev = ended(&mut c);
    assert_eq!(ev["details"]["status"], "error", "{ev}");
    let error = ev["details"]["error"].as_str().unwrap_or_default();
    assert!(error.contains("scheduled run budget is $0.1200"), "{ev}");
    assert!(error.contains(&format!("--task {id}")), "{ev}");
    assert_eq!(server.requests().len(), 1);

    // The task's own budget is over the config's.
    c.ok_json(
        "budget.set",
        json!({"scope": "schedule", "usd": 1.0, "taskId": id}),
    )
    .unwrap();
    server.enqueue(answer("listed"));
    assert_eq!(c.ok("schedule.run", json!({"id": id})).unwrap(), "started");
    let ev = ended(&mut c);
    assert_eq!(ev["details"]["status"], "success", "{ev}");
    assert_eq!(server.requests().len(), 3);
}

#[test]
fn budget_methods_read_and_write_the_config_and_refuse_bad_values() {
    let server = ProviderServer::start().unwrap();
    let d = daemon(&server, json!({}));
    let mut c = d.connect().unwrap();
    let view = c.ok_json("budget.get", json!({})).unwrap();
    assert_eq!(view["budgets"], json!([]), "{view}");
    assert_eq!(view["warnAt"], 0.8);

    let view = c
        .ok_json(
            "budget.set",
            json!({"scope": "day", "usd": 5.0, "tokens": 1000}),
        )
        .unwrap();
    let day: Vec<&Value> = view["budgets"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["scope"] == "day")
        .collect();
    assert_eq!(day.len(), 2, "{view}");
    assert_eq!(day[0]["usd"], 5.0);
    assert_eq!(day[0]["remainingUsd"], 5.0);
    assert_eq!(day[1]["tokens"], 1000);
    let written: Value =
        serde_json::from_str(&std::fs::read_to_string(d.home.join("config.json")).unwrap())
            .unwrap();
    assert_eq!(
        written["budgets"],
        json!({"day": 5.0, "tokens": {"day": 1000}})
    );
    // Removed with no amount.
    c.ok_json("budget.set", json!({"scope": "day"})).unwrap();
    let view = c.ok_json("budget.get", json!({})).unwrap();
    assert_eq!(view["budgets"], json!([]), "{view}");

    let bad = c
        .err("budget.set", json!({"scope": "week", "usd": 1.0}))
        .unwrap();
    assert_eq!(bad["details"]["param"], "scope", "{bad}");
    let bad = c
        .err("budget.set", json!({"scope": "day", "usd": -1.0}))
        .unwrap();
    assert_eq!(bad["details"]["param"], "usd", "{bad}");
    let bad = c
        .err("budget.set", json!({"scope": "project", "tokens": 5}))
        .unwrap();
    assert_eq!(bad["details"]["param"], "tokens", "{bad}");
    let missing = c
        .err("budget.get", json!({"sessionId": "nope", "global": true}))
        .unwrap();
    assert_eq!(missing["details"]["code"], "not_found", "{missing}");
}
