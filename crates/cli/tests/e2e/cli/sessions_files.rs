//! OpenSeek session files that round-trip: hand-written OpenSeek sessions
//! (every item kind and terminal, `fixtures/openseek/sessions`), files this
//! engine wrote after real turns, a whole session root imported at once, and
//! `sessions compact --file` with a summary the user wrote.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use seekclaw_testkit::{ProviderServer, Reply};
use serde_json::Value;

use super::sessions::{fails, home, ok, seekclaw_in};
use crate::support::{bin, project_dir};

const DEMO: &str = "demo-1";
const CLI: &str = "cli-20250708-184000-123";

/// The OpenSeek session root of the fixtures (what `.openseek` holds).
fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/e2e/cli/fixtures/openseek")
}

fn fixture(id: &str) -> String {
    let path = fixtures().join(format!("sessions/{id}/openseek_session-{id}.jsonl"));
    std::fs::read_to_string(path).unwrap()
}

/// Copies a directory tree.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

#[test]
fn an_openseek_root_imports_file_by_file_and_each_file_round_trips_byte_for_byte() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let home_a = home(tmp.path(), "home-a", &server);
    // A project holding `.openseek/sessions/*/openseek_session-*.jsonl`.
    let project = tmp.path().join("old-project");
    copy_tree(&fixtures(), &project.join(".openseek"));
    let out = seekclaw_in(
        tmp.path(),
        &home_a,
        &["sessions", "import", project.to_str().unwrap(), "--global"],
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    // Each imported file on its own line, in path order; the bad one skipped.
    let imported: Vec<(&str, &str)> = stdout
        .lines()
        .map(|l| l.split_once('\t').unwrap())
        .collect();
    let ids: Vec<&str> = imported.iter().map(|(id, _)| *id).collect();
    assert_eq!(ids, [CLI, DEMO], "{stdout}");
    assert!(imported[1].1.ends_with("openseek_session-demo-1.jsonl"));
    assert!(
        stderr.contains("skipped") && stderr.contains("openseek_session-broken.jsonl"),
        "{stderr}"
    );
    assert!(
        stderr.contains("line 3") && stderr.contains("mystery"),
        "{stderr}"
    );
    assert!(stderr.contains("imported 2 of 3 session files"), "{stderr}");
    let err = fails(
        tmp.path(),
        &home_a,
        &["sessions", "show", "broken", "--global"],
    );
    assert!(
        err.contains("not found"),
        "nothing of it was written: {err}"
    );

    // Exported again: the very bytes of each file, header prompt included.
    for id in [DEMO, CLI] {
        let again = ok(tmp.path(), &home_a, &["sessions", "export", id, "--global"]);
        assert_eq!(again, fixture(id), "export → import → export changed {id}");
    }

    // The model view shows OpenSeek's answers kept only in their terminals,
    // not the finish message (its call and result say it), the failure, or the yield.
    let view: Value = serde_json::from_str(&ok(
        tmp.path(),
        &home_a,
        &[
            "sessions",
            "show",
            DEMO,
            "--global",
            "--model-view",
            "--json",
        ],
    ))
    .unwrap();
    let rows: Vec<(u64, &str)> = view
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["seq"].as_u64().unwrap(), m["role"].as_str().unwrap()))
        .collect();
    assert_eq!(rows, [(16, "user"), (17, "user"), (18, "user")], "{view}");

    // A turn on the short session is sent its answer as the model's, then
    // records its own prompt: the export's header follows the latest turn.
    server.enqueue(Reply::plain("hello again"));
    let answer = ok(
        tmp.path(),
        &home_a,
        &["run", "and again", "--global", "--session", CLI],
    );
    assert_eq!(answer.trim(), "hello again");
    let sent: Value = serde_json::from_str(&server.requests()[0].raw_body).unwrap();
    let messages = sent["messages"].as_array().unwrap();
    let roles: Vec<(&str, &str)> = messages[1..]
        .iter()
        .map(|m| {
            (
                m["role"].as_str().unwrap(),
                m["content"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        roles,
        [
            ("user", "say hello"),
            ("assistant", "hello"),
            ("user", "and again")
        ]
    );
    let exported = ok(
        tmp.path(),
        &home_a,
        &["sessions", "export", CLI, "--global"],
    );
    let header: Value = serde_json::from_str(exported.lines().next().unwrap()).unwrap();
    assert_eq!(header["system_prompt"], messages[0]["content"]);

    // The sessions folder itself and the `.openseek` folder import too.
    for dir in [fixtures().join("sessions"), fixtures()] {
        let home_b = tempfile::tempdir().unwrap();
        let out = seekclaw_in(
            tmp.path(),
            home_b.path(),
            &["sessions", "import", dir.to_str().unwrap(), "--global"],
        );
        assert_eq!(String::from_utf8(out.stdout).unwrap().lines().count(), 2);
    }
    let err = fails(
        tmp.path(),
        &home_a,
        &[
            "sessions",
            "import",
            tmp.path().to_str().unwrap(),
            "--global",
        ],
    );
    assert!(err.contains("no OpenSeek session files"), "{err}");
}

#[test]
fn a_turn_ended_by_the_finish_tool_round_trips_byte_for_byte() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let home_a = home(tmp.path(), "home-a", &server);
    let ws = project_dir(tmp.path(), "project");
    server.enqueue(Reply::new().tool_call("call_f", "finish", r#"{"answer":"All done."}"#));
    let ws_arg = ws.to_str().unwrap();
    ok(&ws, &home_a, &["run", "wrap it up", "--workspace", ws_arg]);
    server.enqueue(Reply::plain("Bye."));
    let listed: Value =
        serde_json::from_str(&ok(&ws, &home_a, &["sessions", "list", "--json"])).unwrap();
    let id = listed[0]["id"].as_str().unwrap().to_string();
    ok(&ws, &home_a, &["run", "thanks", "--session", &id]);
    let exported = ok(&ws, &home_a, &["sessions", "export", &id]);
    let lines: Vec<Value> = exported
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
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
            "terminal",
            "user",
            "assistant",
            "terminal"
        ]
    );
    assert_eq!(
        lines[4]["item"]["payload"],
        serde_json::json!({"kind": "finished", "message": "All done."})
    );
    assert_eq!(
        lines[7]["item"]["payload"],
        serde_json::json!({"kind": "finished", "message": "Bye.", "answer_sequence": 6})
    );
    assert!(!lines[0]["system_prompt"].as_str().unwrap().is_empty());

    let home_b = home(tmp.path(), "home-b", &server);
    let file = tmp.path().join("s.jsonl");
    std::fs::write(&file, &exported).unwrap();
    let out = ok(
        tmp.path(),
        &home_b,
        &["sessions", "import", file.to_str().unwrap(), "--global"],
    );
    assert_eq!(out.trim(), id, "the file's id is kept when free");
    let again = ok(
        tmp.path(),
        &home_b,
        &["sessions", "export", &id, "--global"],
    );
    assert_eq!(again, exported, "export → import → export changed the file");
}

#[test]
fn compact_with_a_written_summary_checks_the_range_and_holds_the_session() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let home_a = home(tmp.path(), "home-a", &server);
    let file = fixtures().join(format!("sessions/{DEMO}/openseek_session-{DEMO}.jsonl"));
    ok(
        tmp.path(),
        &home_a,
        &["sessions", "import", file.to_str().unwrap(), "--global"],
    );
    let summary = tmp.path().join("summary.md");
    std::fs::write(&summary, "Refactor planned: split a.mbt.").unwrap();
    let s = summary.to_str().unwrap();
    let compact = |from: &str, to: &str| {
        let args = [
            "sessions", "compact", DEMO, "--global", "--file", s, "--from", from, "--to", to,
        ];
        seekclaw_in(tmp.path(), &home_a, &args)
    };
    for (from, to, why) in [
        ("0", "3", "must run from 1"),
        ("5", "4", "must run from 1"),
        ("17", "20", "the log ends at event 19"),
        (
            "1",
            "2",
            "parts tool call call_1 (event 2) from its result (event 3)",
        ),
    ] {
        let out = compact(from, to);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{from}..{to}: {err}");
        assert!(err.contains(why), "{from}..{to}: {err}");
    }
    let out = compact("17", "19");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8(out.stdout).unwrap().trim(),
        "compacted session demo-1 events 17..19; last_sequence=20"
    );
    let exported = ok(
        tmp.path(),
        &home_a,
        &["sessions", "export", DEMO, "--global"],
    );
    let last: Value = serde_json::from_str(exported.lines().last().unwrap()).unwrap();
    assert_eq!(
        last["item"],
        serde_json::json!({"kind": "summary", "payload": {"content": "Refactor planned: split a.mbt.",
            "from_sequence": 17, "to_sequence": 19}})
    );
    // --file needs its range; an empty summary is refused.
    let out = seekclaw_in(
        tmp.path(),
        &home_a,
        &["sessions", "compact", DEMO, "--global", "--file", s],
    );
    assert_eq!(out.status.code(), Some(2));
    std::fs::write(&summary, " \n").unwrap();
    let err = String::from_utf8(compact("1", "3").stderr).unwrap();
    assert!(err.contains("the summary is empty"), "{err}");

    // While a turn runs on the session (another process), it is busy.
    std::fs::write(&summary, "x").unwrap();
    server.enqueue(Reply::plain("slow").header_delay(Duration::from_secs(4)));
    let mut turn = Command::new(bin())
        .args(["run", "go on", "--global", "--session", DEMO])
        .current_dir(tmp.path())
        .env("SEEKCLAW_HOME", &home_a)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while server.requests().is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let err = String::from_utf8(compact("1", "3").stderr).unwrap();
    assert!(err.contains("running a turn"), "{err}");
    assert!(turn.wait().unwrap().success());
    let out = compact("1", "3");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
