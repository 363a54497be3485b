//! `session.search`: full-text search over the real socket after real turns
//! against the testkit provider: user, assistant and tool text; the scope
//! rules (a workspace, `global`, neither = every scope); the match marks;
//! FTS syntax in a query as plain text; archived and deleted sessions; bad
//! params; listed in `protocol.info`.

use seekclaw_protocol::api::{Required, SessionSearchParams};
use seekclaw_protocol::method;
use seekclaw_testkit::{Client, ProviderServer, Reply, StartOptions};
use serde_json::{Value, json};

use crate::support::project_dir;
use crate::support::turns::{chat, events, setup};

/// `(sessionId, seq, kind)` of each hit, in order.
fn rows(hits: &Value) -> Vec<(String, u64, String)> {
    hits.as_array()
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
}

fn search(c: &mut Client, params: Value) -> Value {
    c.ok_json("session.search", params).unwrap()
}

fn turn(c: &mut Client, params: Value) {
    let all = chat(c, params);
    assert!(events(&all, "error").is_empty(), "{all:?}");
}

#[test]
fn search_finds_turn_text_in_every_scope_newest_first() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let ws = project_dir(tmp.path(), "project");
    std::fs::write(ws.join("notes.txt"), "the zebra grazes at dawn\n").unwrap();
    let ws_root = std::fs::canonicalize(&ws).unwrap();
    let wsp = ws.to_str().unwrap();
    server.enqueue(Reply::new().tool_call("c1", "read_file", r#"{"path":"notes.txt"}"#));
    server.enqueue(Reply::plain("The zebra is in the notes."));
    server.enqueue(Reply::plain("A global zebra answer."));
    let d = setup(&server, StartOptions::default());
    let mut c = d.connect().unwrap();
    let ws_sid = c.ok("session.new", json!({"workspace": wsp})).unwrap();
    turn(
        &mut c,
        json!({"message": "where is the zebra?", "sessionId": ws_sid, "workspace": wsp}),
    );
    let g_sid = c.ok("session.new", json!({"global": true})).unwrap();
    turn(
        &mut c,
        json!({"message": "tell me (zebra) facts", "sessionId": g_sid, "global": true}),
    );

    // Neither scope named: every scope, the newer session first, later
    // events first; the tool call's empty step and the terminals are not text.
    let all = search(&mut c, json!({"query": "zebra"}));
    let (g, w) = (g_sid.as_str(), ws_sid.as_str());
    let expected: Vec<(String, u64, String)> = [
        (g, 2, "assistant"),
        (g, 1, "user"),
        (w, 4, "assistant"),
        (w, 3, "tool_result"),
        (w, 1, "user"),
    ]
    .iter()
    .map(|(s, q, k)| (s.to_string(), *q, k.to_string()))
    .collect();
    assert_eq!(rows(&all), expected, "{all}");
    assert_eq!(
        all[0],
        json!({"sessionId": g, "seq": 2, "kind": "assistant",
               "snippet": "A global «zebra» answer.", "title": "tell me (zebra) facts",
               "archived": false})
    );
    assert_eq!(all[2]["workspace"], ws_root.to_str().unwrap());
    assert_eq!(all[2]["title"], "where is the zebra?");
    assert!(
        all[3]["snippet"]
            .as_str()
            .unwrap()
            .contains("the «zebra» grazes"),
        "{all}"
    );

    // A workspace, the global scope, a limit, several words.
    assert_eq!(
        rows(&search(&mut c, json!({"query": "zebra", "workspace": wsp}))),
        expected[2..]
    );
    assert_eq!(
        rows(&search(&mut c, json!({"query": "zebra", "global": true}))),
        expected[..2]
    );
    assert_eq!(
        rows(&search(&mut c, json!({"query": "zebra", "limit": 1}))),
        expected[..1]
    );
    assert_eq!(
        rows(&search(&mut c, json!({"query": "ZEBRA notes"}))),
        expected[2..3]
    );
    assert_eq!(
        rows(&search(&mut c, json!({"query": "zeb*", "global": true}))).len(),
        2
    );
    let typed = c
        .call::<method::SessionSearch>(&SessionSearchParams {
            query: Required("facts".into()),
            global: Some(true),
            ..Default::default()
        })
        .unwrap();
    assert_eq!((typed.len(), typed[0].seq), (1, 1));
    assert_eq!(typed[0].snippet, "tell me (zebra) «facts»");

    // FTS syntax is plain text: never an error.
    for q in [
        "\"zebra", "zebra)", "(zebra)", "-zebra", "zebra:", "zebra*)",
    ] {
        let hits = search(&mut c, json!({"query": q, "global": true}));
        assert!(!rows(&hits).is_empty(), "{q}: {hits}");
    }
    // Operators are words to find like any other.
    for q in [
        "NEAR(zebra facts)",
        "zebra AND",
        "zebra OR cat",
        "NOT zebra",
        "body:zebra",
    ] {
        assert_eq!(search(&mut c, json!({"query": q})), json!([]), "{q}");
    }
    assert_eq!(
        rows(&search(&mut c, json!({"query": "zebra OR answer"}))).len(),
        0
    );
    assert_eq!(
        rows(&search(&mut c, json!({"query": "^zebra^ answer"}))).len(),
        1
    );
    for q in ["*", "\"\"", "( )", "-"] {
        assert_eq!(search(&mut c, json!({"query": q})), json!([]), "{q}");
    }

    // Archived sessions are found (and say so); deleted ones are gone.
    c.ok("session.archive", json!({"id": w, "workspace": wsp}))
        .unwrap();
    let hits = search(&mut c, json!({"query": "grazes"}));
    assert_eq!(hits[0]["archived"], true, "{hits}");
    assert_eq!(
        c.ok("session.delete", json!({"id": g, "global": true}))
            .unwrap(),
        g
    );
    assert_eq!(
        rows(&search(&mut c, json!({"query": "zebra"}))),
        expected[2..]
    );

    let info = c.ok_json("protocol.info", json!({})).unwrap();
    assert!(
        info["methods"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m == "session.search")
    );
}

#[test]
fn bad_search_params_are_errors() {
    let server = ProviderServer::start().unwrap();
    let d = setup(&server, StartOptions::default());
    let mut c = d.connect().unwrap();
    let err = c.err("session.search", json!({})).unwrap();
    assert_eq!(err["data"], "params.query is required");
    assert_eq!(err["details"]["code"], "invalid_request");
    for limit in [json!(0), json!(501), json!(-1), json!("ten")] {
        let err = c
            .err("session.search", json!({"query": "x", "limit": limit}))
            .unwrap();
        assert_eq!(err["details"]["param"], "limit", "{limit}: {err}");
    }
    let missing = std::env::temp_dir().join("definitely-missing-seekclaw-dir");
    let err = c
        .err(
            "session.search",
            json!({"query": "x", "workspace": missing.display().to_string()}),
        )
        .unwrap();
    assert_eq!(err["details"]["code"], "not_found");
}
