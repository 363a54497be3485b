//! `seekclaw sessions list|show|export|import`: the real binary on temp homes,
//! sessions made by real `seekclaw run` turns against the testkit provider.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use seekclaw_testkit::{DaemonProcess, ProviderServer, Reply, StartOptions};
use serde_json::{Value, json};

use crate::support::{bin, project_dir};

pub(super) fn seekclaw_in(cwd: &Path, home: &Path, args: &[&str]) -> Output {
    Command::new(bin())
        .args(args)
        .current_dir(cwd)
        .env("SEEKCLAW_HOME", home)
        .output()
        .unwrap()
}

/// Runs a command that must succeed; its stdout.
pub(super) fn ok(cwd: &Path, home: &Path, args: &[&str]) -> String {
    let out = seekclaw_in(cwd, home, args);
    assert!(
        out.status.success(),
        "seekclaw {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Runs a command that must fail with exit code 1; its stderr.
pub(super) fn fails(cwd: &Path, home: &Path, args: &[&str]) -> String {
    let out = seekclaw_in(cwd, home, args);
    assert_eq!(
        out.status.code(),
        Some(1),
        "seekclaw {args:?}: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    String::from_utf8(out.stderr).unwrap()
}

pub(super) fn config(server: &ProviderServer) -> Value {
    json!({"providers": [{"id": "tk", "kind": "openai", "baseUrl": server.base_url(),
        "models": [{"id": "m1", "inputPricePerMTok": 2.0, "outputPricePerMTok": 10.0}]}]})
}

/// A fresh home under `parent` whose only provider is the testkit `server`.
pub(super) fn home(parent: &Path, name: &str, server: &ProviderServer) -> PathBuf {
    let home = parent.join(name);
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(home.join("config.json"), config(server).to_string()).unwrap();
    home
}

/// Two turns in a workspace: a tool call and an answer, then a follow-up.
/// Returns the session id.
fn two_turns(server: &ProviderServer, home: &Path, ws: &Path) -> String {
    std::fs::write(ws.join("notes.txt"), "the secret word is heliotrope\n").unwrap();
    server.enqueue(
        Reply::new()
            .reasoning("I should read it")
            .tool_call("call_1", "read_file", r#"{"path":"notes.txt"}"#)
            .usage(100, 0, 10),
    );
    server.enqueue(Reply::plain("It is heliotrope.").usage(150, 100, 5));
    let ws_arg = ws.to_str().unwrap();
    ok(
        ws,
        home,
        &["run", "what is the word?", "--workspace", ws_arg],
    );
    let listed: Value =
        serde_json::from_str(&ok(ws, home, &["sessions", "list", "--json"])).unwrap();
    let id = listed[0]["id"].as_str().unwrap().to_string();
    server.enqueue(Reply::plain("You are welcome.").usage(200, 150, 3));
    ok(ws, home, &["run", "thanks", "--session", &id]);
    id
}

#[test]
fn sessions_list_show_export_and_import_round_trip() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let home_a = home(tmp.path(), "home-a", &server);
    let ws = project_dir(tmp.path(), "project");
    let ws_root = std::fs::canonicalize(&ws).unwrap();
    let id = two_turns(&server, &home_a, &ws);

    // list --json: the scope of the current directory.
    let listed: Value =
        serde_json::from_str(&ok(&ws, &home_a, &["sessions", "list", "--json"])).unwrap();
    let rows = listed.as_array().unwrap();
    assert_eq!(rows.len(), 1, "{listed}");
    let row = &rows[0];
    assert_eq!(row["id"], id.as_str());
    assert_eq!(row["title"], "what is the word?");
    assert_eq!(row["workspace"], ws_root.to_str().unwrap());
    assert_eq!(row["turns"], 2);
    assert_eq!(row["outputTokens"], 18);
    assert_eq!(row["inputTokens"], 450);
    assert_eq!(row["tokens"], 468);
    assert!(row["cost"].as_f64().unwrap() > 0.0, "{row}");
    assert!(row["updatedAt"].as_str().unwrap().ends_with("+00:00"));
    // Elsewhere: nothing in the global scope, the session under --all.
    let global = ok(
        tmp.path(),
        &home_a,
        &["sessions", "list", "--global", "--json"],
    );
    assert_eq!(serde_json::from_str::<Value>(&global).unwrap(), json!([]));
    let all: Value = serde_json::from_str(&ok(
        tmp.path(),
        &home_a,
        &["sessions", "list", "--all", "--json"],
    ))
    .unwrap();
    assert_eq!(all, listed);
    // The text listing: a heading, then the row.
    let text = ok(&ws, &home_a, &["sessions", "list"]);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("ID "), "{text}");
    assert!(lines[1].starts_with(&id), "{text}");
    for cell in [
        "  2  ",
        "  468  ",
        "what is the word?",
        ws_root.to_str().unwrap(),
    ] {
        assert!(lines[1].contains(cell), "{cell:?} in {text}");
    }

    // show: the whole log, found from anywhere; each tool row with its
    // summary and duration, and how each turn ended.
    let log = ok(tmp.path(), &home_a, &["sessions", "show", &id]);
    for part in [
        "── user #1\nwhat is the word?",
        "(reasoning) I should read it",
        r#"→ read_file {"path":"notes.txt"} [call_1]"#,
        "heliotrope",
        "── turn done #5",
        "You are welcome.",
    ] {
        assert!(log.contains(part), "{part:?} in {log}");
    }
    let tool_row = log
        .lines()
        .find(|l| l.starts_with("── tool read_file [call_1] ok · "))
        .unwrap_or_else(|| panic!("no tool row in {log}"));
    assert!(
        tool_row.contains(" ms · ") && tool_row.ends_with(" #3"),
        "{tool_row}"
    );
    let events: Value =
        serde_json::from_str(&ok(&ws, &home_a, &["sessions", "show", &id, "--json"])).unwrap();
    let kinds: Vec<&str> = events
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["item"]["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "user",
            "assistant",
            "tool_result",
            "assistant",
            "terminal",
            "user",
            "assistant",
            "terminal"
        ]
    );
    assert!(events[2]["item"]["durationMs"].is_u64(), "{events}");

    // --model-view: the conversation as the model sees it.
    let shown = ok(
        tmp.path(),
        &home_a,
        &["sessions", "show", &id, "--model-view"],
    );
    for part in [
        "── user #1\nwhat is the word?",
        "(reasoning) I should read it",
        r#"→ read_file {"path":"notes.txt"} [call_1]"#,
        "── tool read_file [call_1] ok #3",
        "heliotrope",
        "It is heliotrope.",
        "thanks",
        "You are welcome.",
    ] {
        assert!(shown.contains(part), "{part:?} in {shown}");
    }
    let messages: Value = serde_json::from_str(&ok(
        &ws,
        &home_a,
        &["sessions", "show", &id, "--json", "--model-view"],
    ))
    .unwrap();
    let roles: Vec<&str> = messages
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(
        roles,
        [
            "user",
            "assistant",
            "tool",
            "assistant",
            "user",
            "assistant"
        ]
    );
    assert_eq!(messages[1]["toolCalls"][0]["name"], "read_file");
    assert_eq!(messages[2]["toolName"], "read_file");
    assert_eq!(messages[2]["isError"], false);

    // export: stdout and -o give the same OpenSeek file.
    let exported = ok(&ws, &home_a, &["sessions", "export", &id]);
    let file = tmp.path().join("session.jsonl");
    ok(
        &ws,
        &home_a,
        &["sessions", "export", &id, "-o", file.to_str().unwrap()],
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), exported);
    let lines: Vec<Value> = exported
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // The header carries the system prompt the session's turns were sent.
    let sent: Value = serde_json::from_str(&server.requests().last().unwrap().raw_body).unwrap();
    assert_eq!(sent["messages"][0]["role"], "system");
    let prompt = sent["messages"][0]["content"].as_str().unwrap();
    assert!(!prompt.is_empty());
    assert_eq!(
        lines[0],
        json!({"version": 1, "id": id, "system_prompt": prompt})
    );
    let kinds: Vec<&str> = lines[1..]
        .iter()
        .map(|l| l["item"]["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "user",
            "assistant",
            "tool_result",
            "assistant",
            "terminal",
            "user",
            "assistant",
            "terminal"
        ]
    );
    for (i, l) in lines[1..].iter().enumerate() {
        assert_eq!(l["sequence"], i as u64 + 1);
        assert!(l["ts"].as_i64().unwrap() > 1_700_000_000_000);
    }
    assert_eq!(lines[3]["item"]["payload"]["is_error"], false);
    assert_eq!(
        lines[5]["item"]["payload"],
        json!({"kind": "finished", "message": "It is heliotrope.", "answer_sequence": 4})
    );

    // import into another home's global scope, export again: the same bytes.
    let home_b = home(tmp.path(), "home-b", &server);
    let out = ok(
        tmp.path(),
        &home_b,
        &["sessions", "import", file.to_str().unwrap(), "--global"],
    );
    assert_eq!(out.trim(), id);
    let again = ok(
        tmp.path(),
        &home_b,
        &["sessions", "export", &id, "--global"],
    );
    assert_eq!(again, exported, "export → import → export changed the file");
    let listed_b: Value = serde_json::from_str(&ok(
        tmp.path(),
        &home_b,
        &["sessions", "list", "--global", "--json"],
    ))
    .unwrap();
    assert_eq!(listed_b[0]["title"], "what is the word?");
    assert_eq!(listed_b[0]["turns"], 2);
    assert_eq!(listed_b[0]["workspace"], Value::Null);
    assert_eq!(
        (listed_b[0]["tokens"].as_i64(), listed_b[0]["cost"].as_f64()),
        (Some(0), Some(0.0)),
        "no provider call of this home served it"
    );

    // The id is taken there now: a second import gets a fresh one.
    let out = seekclaw_in(
        tmp.path(),
        &home_b,
        &["sessions", "import", file.to_str().unwrap(), "--global"],
    );
    assert!(out.status.success());
    let second = String::from_utf8(out.stdout).unwrap().trim().to_string();
    assert_ne!(second, id);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(&format!("session {id} exists")),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let copy = ok(
        tmp.path(),
        &home_b,
        &["sessions", "export", &second, "--global"],
    );
    assert_eq!(
        copy.lines().skip(1).collect::<Vec<_>>(),
        exported.lines().skip(1).collect::<Vec<_>>()
    );
    // A named id that is taken is an error.
    let err = fails(
        tmp.path(),
        &home_b,
        &[
            "sessions",
            "import",
            file.to_str().unwrap(),
            "--global",
            "--id",
            &second,
        ],
    );
    assert!(
        err.contains(&format!("session {second} already exists")),
        "{err}"
    );
    // With two copies of the id in home B's scopes, a scope-less show asks for one.
    ok(
        &ws,
        &home_b,
        &[
            "sessions",
            "import",
            file.to_str().unwrap(),
            "--workspace",
            ws.to_str().unwrap(),
        ],
    );
    let err = fails(tmp.path(), &home_b, &["sessions", "show", &id]);
    assert!(err.contains("exists in several scopes"), "{err}");
    let err = fails(tmp.path(), &home_b, &["sessions", "show", "nope"]);
    assert!(
        err.trim()
            .starts_with("seekclaw: session nope not found: no id starts or ends with it"),
        "{err}"
    );

    // The imported session continues with a turn that sees its history.
    server.enqueue(Reply::plain("Still heliotrope."));
    let answer = ok(
        tmp.path(),
        &home_b,
        &["run", "remind me", "--global", "--session", &id],
    );
    assert_eq!(answer.trim(), "Still heliotrope.");
    let last = server.requests().last().unwrap().raw_body.clone();
    for part in ["what is the word?", "It is heliotrope.", "You are welcome."] {
        assert!(last.contains(part), "{part:?} missing from {last}");
    }

    // A running daemon on home B lists and loads it.
    let opts = StartOptions {
        config: Some(config(&server)),
        ..StartOptions::default()
    };
    let daemon = DaemonProcess::spawn(bin(), &home_b, &opts).unwrap();
    let mut c = daemon.connect().unwrap();
    let list = c.ok_json("session.list", json!({"global": true})).unwrap();
    let ids: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["id"].as_str().unwrap())
        .collect();
    assert!(
        ids.contains(&id.as_str()) && ids.contains(&second.as_str()),
        "{list}"
    );
    let got = c
        .ok_json("session.get", json!({"id": id, "global": true}))
        .unwrap();
    let texts: Vec<&str> = got["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["text"].as_str().unwrap())
        .collect();
    assert_eq!(texts.first(), Some(&"what is the word?"));
    assert_eq!(texts.last(), Some(&"Still heliotrope."));
}

#[test]
fn an_import_skips_a_torn_final_line_and_refuses_a_damaged_one() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let home_a = home(tmp.path(), "home-a", &server);
    let ws = project_dir(tmp.path(), "project");
    let id = two_turns(&server, &home_a, &ws);
    let exported = ok(&ws, &home_a, &["sessions", "export", &id]);
    let lines: Vec<&str> = exported.lines().collect();
    assert_eq!(lines.len(), 9);
    let home_b = home(tmp.path(), "home-b", &server);
    let write = |name: &str, text: &str| {
        let path = tmp.path().join(name);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_string()
    };

    // The last event cut off mid-write (no `\n`): skipped, with a warning.
    let torn_last = &lines[8][..lines[8].len() / 2];
    let torn = format!("{}\n{torn_last}", lines[..8].join("\n"));
    let path = write("torn.jsonl", &torn);
    let out = seekclaw_in(
        tmp.path(),
        &home_b,
        &["sessions", "import", &path, "--global"],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("warning") && stderr.contains("final line 9"),
        "{stderr}"
    );
    let back = ok(
        tmp.path(),
        &home_b,
        &["sessions", "export", &id, "--global"],
    );
    assert_eq!(back, format!("{}\n", lines[..8].join("\n")));

    // A damaged line in the middle: an error naming it, nothing written.
    let stats = |home: &Path| {
        let db = rusqlite::Connection::open(home.join("seekclaw.db")).unwrap();
        let count = |sql: &str| db.query_row(sql, [], |r| r.get::<_, i64>(0)).unwrap();
        (
            count("SELECT COUNT(*) FROM sessions"),
            count("SELECT COUNT(*) FROM session_events"),
        )
    };
    let before = stats(&home_b);
    let mut damaged: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    damaged[3] = damaged[3][..25].to_string();
    let path = write("damaged.jsonl", &(damaged.join("\n") + "\n"));
    let err = fails(
        tmp.path(),
        &home_b,
        &["sessions", "import", &path, "--global", "--id", "fresh"],
    );
    assert!(
        err.starts_with(&format!(
            "seekclaw: {path} is damaged: line 4: invalid JSON"
        )),
        "{err}"
    );
    // Sequences must run on.
    let mut gap: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    gap.remove(2);
    let path = write("gap.jsonl", &(gap.join("\n") + "\n"));
    let err = fails(
        tmp.path(),
        &home_b,
        &["sessions", "import", &path, "--global", "--id", "fresh"],
    );
    assert!(
        err.contains("line 3: sequence 3 does not follow on (expected 2)"),
        "{err}"
    );
    // An unreadable file.
    let err = fails(
        tmp.path(),
        &home_b,
        &["sessions", "import", "/nonexistent/file.jsonl", "--global"],
    );
    assert!(
        err.starts_with("seekclaw: cannot read /nonexistent/file.jsonl"),
        "{err}"
    );
    assert_eq!(stats(&home_b), before, "a failed import wrote something");
}

#[test]
fn sessions_search_finds_turn_text_by_scope() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let home = home(tmp.path(), "home", &server);
    let ws = project_dir(tmp.path(), "project");
    let id = two_turns(&server, &home, &ws);
    server.enqueue(Reply::plain("Heliotrope is a flower.").usage(10, 0, 5));
    ok(
        tmp.path(),
        &home,
        &["run", "what is heliotrope?", "--global"],
    );
    let global: Value = serde_json::from_str(&ok(
        tmp.path(),
        &home,
        &["sessions", "list", "--global", "--json"],
    ))
    .unwrap();
    let gid = global[0]["id"].as_str().unwrap().to_string();

    let hits = |args: &[&str]| -> Vec<(String, u64, String)> {
        let mut full = vec!["sessions", "search"];
        full.extend_from_slice(args);
        full.push("--json");
        let v: Value = serde_json::from_str(&ok(tmp.path(), &home, &full)).unwrap();
        v.as_array()
            .unwrap()
            .iter()
            .map(|h| {
                (
                    h["sessionId"].as_str().unwrap().to_string(),
                    h["seq"].as_u64().unwrap(),
                    h["kind"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };
    // No scope: every scope, the newer session first, later events first.
    let all = hits(&["heliotrope"]);
    let expected: Vec<(String, u64, String)> = [
        (gid.as_str(), 2, "assistant"),
        (gid.as_str(), 1, "user"),
        (id.as_str(), 4, "assistant"),
        (id.as_str(), 3, "tool_result"),
    ]
    .iter()
    .map(|(s, q, k)| (s.to_string(), *q, k.to_string()))
    .collect();
    assert_eq!(all, expected);
    let ws_arg = ws.to_str().unwrap();
    assert_eq!(hits(&["heliotrope", "--workspace", ws_arg]), expected[2..]);
    assert_eq!(hits(&["heliotrope", "--global"]), expected[..2]);
    assert_eq!(hits(&["heliotrope", "--limit", "1"]), expected[..1]);
    assert_eq!(hits(&["welcome"]), [(id.clone(), 7, "assistant".into())]);
    // FTS syntax is text: no error, and nothing searchable finds nothing.
    assert_eq!(hits(&["(heliotrope*"]).len(), 4);
    assert!(hits(&["\"NEAR(-:"]).is_empty());

    // The table: a heading, then session, seq, kind and the marked snippet.
    let text = ok(tmp.path(), &home, &["sessions", "search", "flower"]);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(
        lines[0].starts_with("SESSION ") && lines[0].contains("SNIPPET"),
        "{text}"
    );
    assert!(lines[1].starts_with(&gid), "{text}");
    assert!(
        lines[1].contains("  2  ") && lines[1].contains("assistant"),
        "{text}"
    );
    assert!(lines[1].ends_with("Heliotrope is a «flower»."), "{text}");
    // No match: nothing on stdout, a note on stderr, success.
    let none = seekclaw_in(tmp.path(), &home, &["sessions", "search", "zzzz"]);
    assert!(none.status.success() && none.stdout.is_empty());
    assert!(String::from_utf8_lossy(&none.stderr).contains("no matches"));
    // A limit out of range is a usage error.
    let bad = seekclaw_in(
        tmp.path(),
        &home,
        &["sessions", "search", "x", "--limit", "0"],
    );
    assert_eq!(bad.status.code(), Some(2));
}
