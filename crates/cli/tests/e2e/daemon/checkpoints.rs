//! Checkpoints over the socket (issue 38): `checkpoint.list`/`checkpoint.diff`
//! after a turn that edits files with the file tools and through `bash`,
//! `session.rewind` of the code (byte for byte, conflicts, force, dry run)
//! and of the conversation (the model is sent no rewound message),
//! `session.fork`, `busy` during a turn, the `checkpoint` event on the turn
//! and on `session.watch`, and one clear error per bad request.

use std::path::Path;
use std::time::Duration;

use seekclaw_testkit::{Client, ProviderServer, Reply, StartOptions};
use serde_json::{Value, json};

use crate::support::turns::{chat, events, setup};
use crate::support::{no_sandbox, project_dir};

/// The user messages of a session, `(seq, text)`, as `session.get` shows them.
fn user_messages(c: &mut Client, sid: &str, w: &str) -> Vec<(u64, String)> {
    let s = c
        .ok_json("session.get", json!({"id": sid, "workspace": w}))
        .unwrap();
    s["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user")
        .map(|m| {
            (
                m["seq"].as_u64().unwrap(),
                m["text"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// The `checkpoint` events of a stream, their notes parsed.
fn notes(all: &[Value]) -> Vec<Value> {
    events(all, "checkpoint")
        .iter()
        .map(|e| serde_json::from_str(e["data"].as_str().unwrap()).unwrap())
        .collect()
}

fn read(ws: &Path, name: &str) -> String {
    std::fs::read_to_string(ws.join(name)).unwrap()
}

/// A turn that writes `new.txt`, edits `a.txt` and rewrites `b.txt` with
/// `sed -i`; returns its events.
fn editing_turn(server: &ProviderServer, c: &mut Client, w: &str, sid: Option<&str>) -> Vec<Value> {
    server.enqueue(Reply::new().tool_call(
        "w1",
        "write_file",
        r#"{"path":"new.txt","content":"made by the agent\n"}"#,
    ));
    server.enqueue(Reply::new().tool_call(
        "e1",
        "edit_file",
        r#"{"path":"a.txt","old_string":"two","new_string":"TWO"}"#,
    ));
    server.enqueue(Reply::new().tool_call(
        "b1",
        "bash",
        r#"{"command":"sed -i 's/beta/BETA/' b.txt"}"#,
    ));
    server.enqueue(Reply::plain("edited"));
    let mut params = json!({"message": "edit the files", "workspace": w});
    if let Some(sid) = sid {
        params["sessionId"] = json!(sid);
    }
    let all = chat(c, params);
    assert_eq!(all.last().unwrap()["event"], "done", "{all:?}");
    all
}

fn workspace(tmp: &Path) -> std::path::PathBuf {
    let ws = project_dir(tmp, "proj");
    std::fs::write(ws.join("a.txt"), "one\ntwo\nthree\n").unwrap();
    std::fs::write(ws.join("b.txt"), "alpha\nbeta\n").unwrap();
    ws
}

#[test]
fn a_turns_edits_are_listed_diffed_and_rewound_byte_for_byte() {
    if no_sandbox() {
        return;
    }
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let ws = workspace(tmp.path());
    let w = ws.display().to_string();
    let d = setup(&server, StartOptions::default());
    let mut c = d.connect().unwrap();
    let all = editing_turn(&server, &mut c, &w, None);
    let sid = all[0]["sessionId"].as_str().unwrap().to_string();
    assert_eq!(read(&ws, "a.txt"), "one\nTWO\nthree\n");
    assert_eq!(read(&ws, "b.txt"), "alpha\nBETA\n");

    // The turn streamed its checkpoints: the first before any change, then
    // one per step that changed files (the `sed -i` one included).
    let notes = notes(&all);
    assert!(!notes.is_empty(), "{all:?}");
    assert_eq!(notes[0]["kind"], "turn", "{notes:?}");
    let changed: Vec<&str> = notes
        .iter()
        .flat_map(|n| n["files"].as_array().unwrap())
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    for path in ["new.txt", "a.txt", "b.txt"] {
        assert!(changed.contains(&path), "{path}: {notes:?}");
    }

    let users = user_messages(&mut c, &sid, &w);
    assert_eq!(users[0].1, "edit the files", "{users:?}");
    let turn = users[0].0;
    let list = c
        .ok_json("checkpoint.list", json!({"sessionId": sid, "workspace": w}))
        .unwrap();
    let list = list.as_array().unwrap();
    assert!(list.len() >= 2, "{list:?}");
    assert!(list.iter().all(|r| r["turnSeq"] == turn), "{list:?}");
    let sed = list
        .iter()
        .rev()
        .find(|r| r["filesChanged"] == 1 && !r["full"].as_bool().unwrap())
        .unwrap();
    let diff = c
        .ok_json(
            "checkpoint.diff",
            json!({"sessionId": sid, "workspace": w, "seq": sed["seq"]}),
        )
        .unwrap();
    assert_eq!(diff["seq"], sed["seq"]);
    let file = &diff["files"][0];
    assert_eq!(
        (file["path"].as_str(), file["status"].as_str()),
        (Some("b.txt"), Some("modified")),
        "{diff}"
    );
    let text = file["diff"].as_str().unwrap();
    assert!(text.contains("-beta") && text.contains("+BETA"), "{text}");

    // A dry run answers with the diff and changes nothing.
    let dry = c
        .ok_json(
            "session.rewind",
            json!({"id": sid, "workspace": w, "seq": turn, "restore": "code", "dryRun": true}),
        )
        .unwrap();
    assert_eq!(dry["dryRun"], true);
    let paths: Vec<&str> = dry["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    for path in ["new.txt", "a.txt", "b.txt"] {
        assert!(paths.contains(&path), "{path}: {dry}");
    }
    assert!(
        dry["files"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["diff"].as_str().unwrap().contains("+two"))
    );
    assert_eq!(read(&ws, "a.txt"), "one\nTWO\nthree\n");
    assert!(ws.join("new.txt").exists());

    // The rewind puts every byte back and removes what the agent made; the
    // conversation stays.
    let done = c
        .ok_json(
            "session.rewind",
            json!({"id": sid, "workspace": w, "seq": turn, "restore": "code"}),
        )
        .unwrap();
    assert_eq!(
        (done["dryRun"].as_bool(), done["restore"].as_str()),
        (Some(false), Some("code"))
    );
    assert_eq!(read(&ws, "a.txt"), "one\ntwo\nthree\n");
    assert_eq!(read(&ws, "b.txt"), "alpha\nbeta\n");
    assert!(!ws.join("new.txt").exists());
    assert!(done["prompt"].is_null(), "{done}");
    assert_eq!(user_messages(&mut c, &sid, &w), users);
}

#[test]
fn a_file_the_user_changed_after_the_turn_is_a_conflict_unless_forced() {
    if no_sandbox() {
        return;
    }
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let ws = workspace(tmp.path());
    let w = ws.display().to_string();
    let d = setup(&server, StartOptions::default());
    let mut c = d.connect().unwrap();
    let all = editing_turn(&server, &mut c, &w, None);
    let sid = all[0]["sessionId"].as_str().unwrap().to_string();
    let turn = user_messages(&mut c, &sid, &w)[0].0;
    std::fs::write(ws.join("a.txt"), "the user's own work\n").unwrap();

    let refused = c
        .err(
            "session.rewind",
            json!({"id": sid, "workspace": w, "seq": turn, "restore": "code"}),
        )
        .unwrap();
    assert_eq!(refused["details"]["code"], "conflict", "{refused}");
    assert!(
        refused["data"].as_str().unwrap().contains("a.txt"),
        "{refused}"
    );
    // Nothing changed: not the user's file, not the agent's.
    assert_eq!(read(&ws, "a.txt"), "the user's own work\n");
    assert_eq!(read(&ws, "b.txt"), "alpha\nBETA\n");
    assert!(ws.join("new.txt").exists());
    // A dry run lists it.
    let dry = c
        .ok_json(
            "session.rewind",
            json!({"id": sid, "workspace": w, "seq": turn, "restore": "code", "dryRun": true}),
        )
        .unwrap();
    assert_eq!(dry["conflicts"], json!(["a.txt"]), "{dry}");

    let forced = c
        .ok_json(
            "session.rewind",
            json!({"id": sid, "workspace": w, "seq": turn, "restore": "code", "force": true}),
        )
        .unwrap();
    assert_eq!(forced["conflicts"], json!(["a.txt"]), "{forced}");
    assert_eq!(read(&ws, "a.txt"), "one\ntwo\nthree\n");
    assert_eq!(read(&ws, "b.txt"), "alpha\nbeta\n");

    // Deleting the session deletes its checkpoints.
    let stored = || -> i64 {
        let db = rusqlite::Connection::open(d.home.join("checkpoints.db")).unwrap();
        db.query_row(
            "SELECT COUNT(*) FROM checkpoints WHERE session_id = ?1",
            [&sid],
            |r| r.get(0),
        )
        .unwrap()
    };
    assert!(stored() > 0);
    c.ok("session.delete", json!({"id": sid, "workspace": w}))
        .unwrap();
    assert_eq!(stored(), 0);
}

#[test]
fn a_conversation_rewind_gives_the_prompt_back_and_the_model_never_sees_the_range() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let ws = workspace(tmp.path());
    let w = ws.display().to_string();
    let d = setup(&server, StartOptions::default());
    let mut c = d.connect().unwrap();
    server.enqueue(Reply::plain("first answer"));
    let first = chat(&mut c, json!({"message": "first question", "workspace": w}));
    let sid = first[0]["sessionId"].as_str().unwrap().to_string();
    server.enqueue(Reply::plain("regrettable answer"));
    chat(
        &mut c,
        json!({"message": "regrettable question", "sessionId": sid, "workspace": w}),
    );
    let users = user_messages(&mut c, &sid, &w);
    assert_eq!(users.len(), 2);
    let second = users[1].0;

    let done = c
        .ok_json(
            "session.rewind",
            json!({"id": sid, "workspace": w, "seq": second, "restore": "conversation"}),
        )
        .unwrap();
    assert_eq!(done["prompt"]["text"], "regrettable question", "{done}");
    assert_eq!(done["prompt"]["seq"], second);
    assert!(done["markerSeq"].as_u64().unwrap() > second, "{done}");
    let s = c
        .ok_json("session.get", json!({"id": sid, "workspace": w}))
        .unwrap();
    let texts: Vec<&str> = s["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["text"].as_str().unwrap())
        .collect();
    assert_eq!(texts, ["first question", "first answer"], "{s}");

    server.clear_requests();
    server.enqueue(Reply::plain("better answer"));
    let again = chat(
        &mut c,
        json!({"message": "a better question", "sessionId": sid, "workspace": w}),
    );
    assert_eq!(again.last().unwrap()["data"], "better answer");
    let sent = server.requests()[0].body.to_string();
    assert!(sent.contains("first question") && sent.contains("a better question"));
    assert!(!sent.contains("regrettable"), "{sent}");
}

#[test]
fn a_fork_at_the_second_of_three_messages_holds_what_came_before() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let ws = workspace(tmp.path());
    let w = ws.display().to_string();
    let d = setup(&server, StartOptions::default());
    let mut c = d.connect().unwrap();
    let mut sid = String::new();
    for n in 1..=3 {
        server.enqueue(Reply::plain(format!("answer {n}")));
        let mut params = json!({"message": format!("question {n}"), "workspace": w});
        if n > 1 {
            params["sessionId"] = json!(sid);
        }
        let all = chat(&mut c, params);
        sid = all[0]["sessionId"].as_str().unwrap().to_string();
    }
    let users = user_messages(&mut c, &sid, &w);
    let at = users[1].0;
    let fork = c
        .ok_json(
            "session.fork",
            json!({"id": sid, "workspace": w, "seq": at}),
        )
        .unwrap();
    let new = fork["session"]["id"].as_str().unwrap().to_string();
    assert_ne!(new, sid);
    assert_eq!(
        fork["session"]["forkedFrom"],
        json!({"sessionId": sid, "seq": at})
    );
    assert_eq!(fork["prompt"]["text"], "question 2");
    let list = c.ok_json("session.list", json!({"workspace": w})).unwrap();
    let listed = list
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["id"] == new.as_str())
        .unwrap();
    assert_eq!(listed["forkedFrom"]["sessionId"], sid.as_str());
    let texts: Vec<String> = user_messages(&mut c, &new, &w)
        .into_iter()
        .map(|(_, t)| t)
        .collect();
    assert_eq!(texts, ["question 1"]);
    // The source is untouched.
    assert_eq!(user_messages(&mut c, &sid, &w).len(), 3);
}

#[test]
fn a_rewind_while_a_turn_runs_is_busy_and_bad_requests_get_one_clear_error() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let ws = workspace(tmp.path());
    let w = ws.display().to_string();
    let d = setup(&server, StartOptions::default());
    let mut c = d.connect().unwrap();
    server.enqueue(Reply::plain("answer"));
    let first = chat(&mut c, json!({"message": "hello", "workspace": w}));
    let sid = first[0]["sessionId"].as_str().unwrap().to_string();
    let user = user_messages(&mut c, &sid, &w)[0].0;

    let info = c.ok_json("protocol.info", json!({})).unwrap();
    for m in [
        "checkpoint.list",
        "checkpoint.diff",
        "session.rewind",
        "session.fork",
    ] {
        assert!(
            info["methods"].as_array().unwrap().iter().any(|x| x == m),
            "{m}"
        );
    }
    assert!(
        info["capabilities"]
            .as_array()
            .unwrap()
            .iter()
            .any(|x| x == "checkpoints")
    );

    let cases = [
        (
            "session.rewind",
            json!({"id": sid, "workspace": w}),
            "invalid_request",
            Some("seq"),
        ),
        (
            "session.rewind",
            json!({"id": sid, "workspace": w, "seq": user, "restore": "files"}),
            "invalid_request",
            Some("restore"),
        ),
        (
            "session.fork",
            json!({"workspace": w, "seq": user}),
            "invalid_request",
            Some("id"),
        ),
        (
            "checkpoint.diff",
            json!({"sessionId": sid, "workspace": w}),
            "invalid_request",
            Some("seq"),
        ),
        (
            "checkpoint.list",
            json!({"workspace": w}),
            "invalid_request",
            Some("sessionId"),
        ),
        // The seq of the assistant's answer is not a user message.
        (
            "session.rewind",
            json!({"id": sid, "workspace": w, "seq": user + 1}),
            "invalid_request",
            None,
        ),
        (
            "session.fork",
            json!({"id": sid, "workspace": w, "seq": 9999}),
            "invalid_request",
            None,
        ),
        (
            "session.rewind",
            json!({"id": "nope", "workspace": w, "seq": 1}),
            "not_found",
            None,
        ),
        (
            "checkpoint.list",
            json!({"sessionId": "nope", "workspace": w}),
            "not_found",
            None,
        ),
    ];
    for (method, params, code, param) in cases {
        let id = c.send(method, params.clone()).unwrap();
        let all = c.collect(id).unwrap();
        assert_eq!(all.len(), 1, "{method} {params}: {all:?}");
        let e = &all[0];
        assert_eq!(e["event"], "error", "{method} {params}: {e}");
        assert_eq!(e["details"]["code"], code, "{method} {params}: {e}");
        if let Some(param) = param {
            assert_eq!(e["details"]["param"], param, "{method} {params}: {e}");
        }
        assert!(!e["data"].as_str().unwrap().is_empty());
    }

    // A turn waiting on the model holds the session.
    server.enqueue(Reply::plain("late").header_delay(Duration::from_secs(30)));
    let turn = c
        .send(
            "chat",
            json!({"message": "slow", "sessionId": sid, "workspace": w}),
        )
        .unwrap();
    server.wait_requests(2, Duration::from_secs(20)).unwrap();
    let busy = c
        .err(
            "session.rewind",
            json!({"id": sid, "workspace": w, "seq": user, "restore": "conversation"}),
        )
        .unwrap();
    assert_eq!(busy["details"]["code"], "busy", "{busy}");
    let text = busy["data"].as_str().unwrap();
    assert!(
        text.contains("agent.cancel") && !text.contains("agent.steer"),
        "{text}"
    );
    c.ok("agent.cancel", json!({"requestId": turn})).unwrap();
    let end = c.collect(turn).unwrap();
    assert_eq!(end.last().unwrap()["event"], "cancelled", "{end:?}");
}

#[test]
fn a_watcher_sees_the_turns_checkpoints_and_a_rewinds() {
    if no_sandbox() {
        return;
    }
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let ws = workspace(tmp.path());
    let w = ws.display().to_string();
    let d = setup(&server, StartOptions::default());
    let mut a = d.connect().unwrap();
    let mut watcher = d.connect().unwrap();
    server.enqueue(Reply::plain("hi"));
    let first = chat(&mut a, json!({"message": "hello", "workspace": w}));
    let sid = first[0]["sessionId"].as_str().unwrap().to_string();
    let watch = watcher
        .send("session.watch", json!({"id": sid, "workspace": w}))
        .unwrap();
    // `session.watch` acknowledges nothing until it ends (as in watch.rs).
    std::thread::sleep(Duration::from_millis(200));
    let all = editing_turn(&server, &mut a, &w, Some(&sid));
    let on_turn = notes(&all);
    assert!(!on_turn.is_empty());
    let mut seen = Vec::new();
    loop {
        let env = watcher.next_envelope().unwrap();
        if env["id"] != watch {
            continue;
        }
        let end = env["event"] == "turn_end";
        seen.push(env);
        if end {
            break;
        }
    }
    let watched = notes(&seen);
    assert_eq!(
        watched.iter().map(|n| n["id"].clone()).collect::<Vec<_>>(),
        on_turn.iter().map(|n| n["id"].clone()).collect::<Vec<_>>()
    );
    assert!(seen.iter().all(|e| e["sessionId"] == sid.as_str()));

    // Outside a turn: the rewind's own checkpoint reaches the watcher.
    let turn = user_messages(&mut a, &sid, &w)
        .into_iter()
        .find(|(_, t)| t == "edit the files")
        .unwrap()
        .0;
    let done = a
        .ok_json(
            "session.rewind",
            json!({"id": sid, "workspace": w, "seq": turn, "restore": "code"}),
        )
        .unwrap();
    let rewind_note = done["checkpoint"].clone();
    assert_eq!(rewind_note["kind"], "rewind", "{done}");
    let env = loop {
        let env = watcher.next_envelope().unwrap();
        if env["id"] == watch && env["event"] == "checkpoint" {
            break env;
        }
    };
    let note: Value = serde_json::from_str(env["data"].as_str().unwrap()).unwrap();
    assert_eq!(note["id"], rewind_note["id"]);
    assert_eq!(env["sessionId"], sid.as_str());
}
