//! The user's language: our own front ends (`seekclaw run`, `--json`,
//! `--events`) word labels in English; the socket keeps the original's
//! Chinese wording for the desktop unless `ui.language` is `en`, which also
//! words scheduled sessions' titles.

use std::process::Command;

use seekclaw_testkit::{ProviderServer, Reply, StartOptions};
use serde_json::{Value, json};

use crate::support::schedule::{create, wait_event};
use crate::support::turns::{chat, events, setup};
use crate::support::{bin, project_dir};

fn has_chinese(text: &str) -> bool {
    text.chars()
        .any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c) || ('\u{3000}'..='\u{303f}').contains(&c))
        || text.contains('（')
}

fn labels(all: &[Value]) -> Vec<String> {
    events(all, "workflow")
        .iter()
        .map(|e| e["data"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn run_json_and_events_are_worded_in_english() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let config = json!({"providers": [{"id": "tk", "kind": "openai", "baseUrl": server.base_url(), "models": [{"id": "m1"}]}]});
    std::fs::write(home.join("config.json"), config.to_string()).unwrap();
    for flag in ["--json", "--events"] {
        server.enqueue(Reply::new().tool_call("c1", "bash", r#"{"command":"echo hi"}"#));
        server.enqueue(Reply::plain("said hi"));
        let out = Command::new(bin())
            .args(["run", "say hi", "--global", flag])
            .env("SEEKCLAW_HOME", &home)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(!has_chinese(&text), "{flag}: {text}");
        if flag == "--json" {
            let lines: Vec<Value> = text
                .lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect();
            let labels = labels(&lines);
            assert_eq!(
                labels.first().map(String::as_str),
                Some("Start"),
                "{labels:?}"
            );
            assert!(labels.iter().any(|l| l == "bash"), "{labels:?}");
            assert_eq!(
                labels.last().map(String::as_str),
                Some("Done"),
                "{labels:?}"
            );
        }
    }
}

#[test]
fn the_socket_keeps_chinese_labels_unless_ui_language_is_en() {
    let server = ProviderServer::start().unwrap();
    server.enqueue(Reply::plain("hello"));
    let d = setup(&server, StartOptions::default());
    let mut c = d.connect().unwrap();
    let all = chat(&mut c, json!({"message": "hi", "global": true}));
    assert_eq!(
        labels(&all),
        ["开始任务", "思考", "任务完成"],
        "the desktop's wording"
    );

    server.enqueue(Reply::plain("hello"));
    let d = setup(
        &server,
        StartOptions {
            config: Some(json!({"ui": {"language": "en"}})),
            ..Default::default()
        },
    );
    let mut c = d.connect().unwrap();
    let all = chat(&mut c, json!({"message": "hi", "global": true}));
    assert_eq!(labels(&all), ["Start", "Think", "Done"]);
    let text = all.iter().map(Value::to_string).collect::<String>();
    assert!(!has_chinese(&text), "{text}");

    // A scheduled run's session is titled in English too.
    server.set_default(Reply::plain("Triaged."));
    let tmp = tempfile::tempdir().unwrap();
    let ws = project_dir(tmp.path(), "proj");
    let w = ws.display().to_string();
    let t = create(
        &mut c,
        json!({"name": "Triage", "prompt": "triage", "cron": "0 9 * * *", "workspace": w}),
    );
    let id = t["id"].as_str().unwrap().to_string();
    assert_eq!(c.ok("schedule.run", json!({"id": id})).unwrap(), "started");
    wait_event(&mut c, "schedule.updated");
    let sessions = c.ok_json("session.list", json!({"workspace": w})).unwrap();
    let titles: Vec<&str> = sessions
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["title"].as_str())
        .collect();
    assert_eq!(titles, ["Triage (scheduled)"]);
}
