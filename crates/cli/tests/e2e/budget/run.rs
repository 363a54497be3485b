//! `seekclaw run --max-cost`: the turn stops before the request that would
//! exceed it, with its own exit code and terminal event.

use std::process::Command;

use seekclaw_testkit::ProviderServer;

use super::{config, tool_step};
use crate::support::bin;

fn home_for(server: &ProviderServer) -> (tempfile::TempDir, std::path::PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let config = config(server, serde_json::json!({}));
    std::fs::write(home.join("config.json"), config.to_string()).unwrap();
    (tmp, home)
}

#[test]
fn run_max_cost_stops_with_exit_code_3_and_budget_exhausted() {
    let server = ProviderServer::start().unwrap();
    let (_tmp, home) = home_for(&server);
    for n in 1..=3 {
        server.enqueue(tool_step(n));
    }
    // $0.10 fits in $0.12; with $0.05 spent the second request would not.
    let out = Command::new(bin())
        .args(["run", "list it", "--global", "--max-cost", "0.12"])
        .env("SEEKCLAW_HOME", &home)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("the session budget is $0.1200 and $0.0500 is spent"),
        "{stderr}"
    );
    assert_eq!(server.requests().len(), 1);

    // `--events`: the OpenSeek stream ends with `budget_exhausted`.
    server.clear_requests();
    let out = Command::new(bin())
        .args([
            "run",
            "list it",
            "--global",
            "--max-cost",
            "0.12",
            "--events",
        ])
        .env("SEEKCLAW_HOME", &home)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let last: serde_json::Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    assert_eq!(last["event"], "budget_exhausted", "{stdout}");
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn a_fleet_splits_max_cost_over_its_copies() {
    let server = ProviderServer::start().unwrap();
    let (tmp, home) = home_for(&server);
    let ws = crate::support::project_dir(tmp.path(), "proj");
    server.set_default(tool_step(1));
    // $0.24 over two copies is $0.12 each: one request each ($0.10), not
    // the three each that $0.24 would allow.
    let out = Command::new(bin())
        .args([
            "run",
            "--concurrency",
            "2",
            "--max-cost",
            "0.24",
            "--json",
            "list it",
        ])
        .arg("--workspace")
        .arg(&ws)
        .env("SEEKCLAW_HOME", &home)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let report: serde_json::Value = serde_json::from_str(&stdout).expect("one JSON document");
    let runs = report["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2, "{report:#}");
    for run in runs {
        assert_eq!(run["status"], "budget_exhausted", "{run:#}");
        let error = run["error"].as_str().unwrap();
        assert!(error.contains("session budget is $0.1200"), "{error}");
    }
    assert_eq!(server.requests().len(), 2);
}

#[test]
fn serve_max_cost_ends_the_turn_with_budget_exhausted_and_serves_on() {
    let server = ProviderServer::start().unwrap();
    let (_tmp, home) = home_for(&server);
    server.set_default(tool_step(1));
    let mut serve = crate::support::serve::Serve::start(&home, &["--global", "--max-cost", "0.12"]);
    serve.send(r#"{"command":"prompt","text":"list it","submission_id":"p-1"}"#);
    let events = serve.until("budget_exhausted");
    let end = events.last().unwrap();
    assert_eq!(end["level"], "WARN");
    assert_eq!(end["submission_id"], "p-1");
    assert!(
        end["error"]
            .as_str()
            .unwrap()
            .contains("the session budget is $0.1200 and $0.0500 is spent"),
        "{end}"
    );
    assert_eq!(server.requests().len(), 1);
    let (_, code) = serve.finish();
    assert_eq!(code, Some(0));
}
