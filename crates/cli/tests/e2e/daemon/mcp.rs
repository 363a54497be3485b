//! MCP through the real daemon against real servers: the official
//! `server-everything` (npm) and the fixture server on the official Python SDK.

use std::path::Path;
use std::time::{Duration, Instant};

use seekclaw_testkit::{Client, ProviderServer, Reply, StartOptions};
use seekclaw_testkit::{mcp_servers, process_alive as alive};
use serde_json::{Value, json};

use crate::support::project_dir;
use crate::support::turns::{chat, events, setup};

/// Polls `mcp.list` until `ready` holds for it (servers connect in the background).
pub(crate) fn wait_list(c: &mut Client, mut ready: impl FnMut(&[Value]) -> bool) -> Vec<Value> {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let list = c.ok_json("mcp.list", json!({})).unwrap();
        let rows = list.as_array().cloned().unwrap_or_default();
        if ready(&rows) {
            return rows;
        }
        assert!(
            Instant::now() < deadline,
            "mcp.list never got ready: {list}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn row<'a>(rows: &'a [Value], name: &str) -> &'a Value {
    rows.iter()
        .find(|r| r["name"] == name)
        .unwrap_or_else(|| panic!("{name} not in {rows:?}"))
}

fn connected(rows: &[Value], name: &str) -> bool {
    rows.iter()
        .any(|r| r["name"] == name && r["connected"] == true)
}

fn write_servers_file(ws: &Path, servers: Value) {
    let dir = ws.join(".seekclaw/mcp");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("servers.json"),
        json!({ "servers": servers }).to_string(),
    )
    .unwrap();
}

fn tool_names(request: &Value) -> Vec<String> {
    request["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
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

fn tool_message<'a>(request: &'a Value, call_id: &str) -> &'a str {
    request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool" && m["tool_call_id"] == call_id)
        .and_then(|m| m["content"].as_str())
        .unwrap_or_else(|| panic!("no tool result for {call_id}"))
}

#[test]
fn servers_from_three_sources_are_listed_with_status_and_without_env_values() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = project_dir(tmp.path(), "proj");
    let mut everything = mcp_servers::everything_stdio().unwrap().config();
    everything["env"] = json!({"SECRET_TOKEN": "hunter2-very-secret"});
    write_servers_file(
        &ws,
        json!({ "fx": mcp_servers::fixture_stdio().unwrap().config() }),
    );
    std::fs::write(
        ws.join(".seekclaw/config.json"),
        json!({"mcp": {"servers": {
            "off": {"command": "node", "enabled": false},
            "broken": {"transport": "websocket", "url": "ws://x"}
        }}})
        .to_string(),
    )
    .unwrap();
    let d = crate::support::start_with(StartOptions {
        config: Some(json!({"mcp": {"servers": {"everything": everything}}})),
        cwd: Some(ws.clone()),
        ..StartOptions::default()
    });
    let mut c = d.connect().unwrap();
    let rows = wait_list(&mut c, |r| connected(r, "everything") && connected(r, "fx"));
    let names: Vec<&str> = rows.iter().map(|r| r["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["broken", "everything", "fx", "off"]);
    let e = row(&rows, "everything");
    let keys: Vec<&str> = e.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "name",
            "scope",
            "transport",
            "command",
            "args",
            "url",
            "envKeys",
            "enabled",
            "connected",
            "toolCount",
            "error",
            "status",
            "headerKeys"
        ]
    );
    assert_eq!(e["scope"], "global");
    assert_eq!(e["envKeys"], json!(["SECRET_TOKEN"]));
    assert!(e["toolCount"].as_u64().unwrap() >= 10, "{e}");
    assert_eq!(e["error"], Value::Null);
    let fx = row(&rows, "fx");
    assert_eq!(
        (fx["scope"].as_str(), fx["toolCount"].as_u64()),
        (Some("workspace"), Some(9))
    );
    let broken = row(&rows, "broken");
    assert_eq!(broken["connected"], false);
    assert_eq!(
        broken["error"],
        "MCP server 'broken' has an invalid transport/command/url combination"
    );
    assert_eq!(row(&rows, "off")["enabled"], false);
    assert_eq!(row(&rows, "off")["connected"], false);
    let doctor = c.ok("doctor", json!({})).unwrap();
    assert!(
        doctor.contains("[OK] MCP everything: connected (stdio)"),
        "{doctor}"
    );
    assert!(
        doctor.contains("[FAIL] MCP broken: MCP server 'broken' has an invalid"),
        "{doctor}"
    );
    assert!(
        !doctor.contains("MCP off"),
        "disabled servers are not checked: {doctor}"
    );
    let raw = c.request("mcp.list", json!({})).unwrap().to_string();
    assert!(
        !raw.contains("hunter2"),
        "env values must never be returned"
    );
    assert!(!d.stderr().contains("hunter2"));
}

#[test]
fn upsert_remove_and_reload_reconnect_and_write_the_right_file() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = project_dir(tmp.path(), "proj");
    let d = crate::support::start_with(StartOptions {
        cwd: Some(ws.clone()),
        ..StartOptions::default()
    });
    let mut c = d.connect().unwrap();
    assert_eq!(c.ok_json("mcp.list", json!({})).unwrap(), json!([]));
    let list = c
        .ok_json(
            "mcp.upsert",
            json!({"name": "fx", "server": mcp_servers::fixture_stdio().unwrap().config()}),
        )
        .unwrap();
    // Answered after the reconnect: already connected.
    assert_eq!(list[0]["connected"], true, "{list}");
    assert_eq!(list[0]["toolCount"], 9);
    assert_eq!(list[0]["scope"], "workspace");
    let file: Value = serde_json::from_str(
        &std::fs::read_to_string(ws.join(".seekclaw/mcp/servers.json")).unwrap(),
    )
    .unwrap();
    assert!(file["servers"]["fx"]["command"].is_string(), "{file}");

    let list = c
        .ok_json(
            "mcp.upsert",
            json!({"name": "everything", "scope": "global", "server": mcp_servers::everything_stdio().unwrap().config()}),
        )
        .unwrap();
    assert!(connected(list.as_array().unwrap(), "everything"), "{list}");
    let config: Value =
        serde_json::from_str(&std::fs::read_to_string(d.home.join("config.json")).unwrap())
            .unwrap();
    assert!(config["mcp"]["servers"]["everything"].is_object());

    let err = c
        .err(
            "mcp.upsert",
            json!({"name": "x", "scope": "team", "server": {}}),
        )
        .unwrap();
    assert_eq!(err["data"], "MCP scope must be workspace or global");
    let err = c.err("mcp.upsert", json!({"name": "x"})).unwrap();
    assert_eq!(err["data"], "params.server is required");
    let err = c
        .err(
            "mcp.upsert",
            json!({"name": "x", "server": {"transport": "sse", "url": "/relative"}}),
        )
        .unwrap();
    assert_eq!(
        err["data"],
        "MCP server 'x' has an invalid transport/command/url combination"
    );
    let err = c
        .err("mcp.upsert", json!({"name": "x", "server": {"command": 5}}))
        .unwrap();
    assert!(
        err["data"].as_str().unwrap().starts_with("Invalid request"),
        "{err}"
    );

    // What mcp.list cannot show survives an upsert built from it: env values.
    let mut with_env = mcp_servers::fixture_stdio().unwrap().config();
    with_env["env"] = json!({"FX_TOKEN": "tok-keep-me"});
    c.ok_json("mcp.upsert", json!({"name": "fx", "server": with_env}))
        .unwrap();
    let mut toggled = mcp_servers::fixture_stdio().unwrap().config();
    toggled["env"] = json!({"FX_TOKEN": ""});
    toggled["enabled"] = json!(false);
    let list = c
        .ok_json("mcp.upsert", json!({"name": "fx", "server": toggled}))
        .unwrap();
    let fx = row(list.as_array().unwrap(), "fx");
    assert_eq!(
        (fx["enabled"].as_bool(), fx["connected"].as_bool()),
        (Some(false), Some(false))
    );
    let file = std::fs::read_to_string(ws.join(".seekclaw/mcp/servers.json")).unwrap();
    assert!(file.contains("tok-keep-me"), "{file}");
    toggled["enabled"] = json!(true);
    c.ok_json("mcp.upsert", json!({"name": "fx", "server": toggled}))
        .unwrap();

    let list = c.ok_json("mcp.reload", json!({})).unwrap();
    assert!(
        list.as_array()
            .unwrap()
            .iter()
            .all(|r| r["connected"] == true),
        "{list}"
    );

    let err = c.err("mcp.remove", json!({"name": "nope"})).unwrap();
    assert_eq!(err["data"], "MCP server not found in workspace scope: nope");
    let err = c
        .err("mcp.remove", json!({"name": "fx", "scope": "global"}))
        .unwrap();
    assert_eq!(err["data"], "MCP server not found in global scope: fx");
    let list = c.ok_json("mcp.remove", json!({"name": "fx"})).unwrap();
    let names: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["everything"]);
}

/// A turn whose model calls MCP tools: a result, a tool error, a crash mid-call.
#[test]
fn a_turn_calls_mcp_tools_and_survives_their_failures() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let ws = project_dir(tmp.path(), "proj");
    server.enqueue(Reply::new().tool_call("c1", "mcp__fx__add", r#"{"a":2,"b":40}"#));
    server.enqueue(Reply::new().tool_call("c2", "mcp__fx__fail", r#"{"message":"disk on fire"}"#));
    server.enqueue(Reply::new().tool_call("c3", "mcp__fx__crash", "{}"));
    server.enqueue(Reply::plain("All done."));
    let d = setup(
        &server,
        StartOptions {
            config: Some(json!({"mcp": {"servers": {
                "fx": mcp_servers::fixture_stdio().unwrap().config(),
                "everything": mcp_servers::everything_stdio().unwrap().config()
            }}})),
            cwd: Some(ws.clone()),
            ..StartOptions::default()
        },
    );
    let mut c = d.connect().unwrap();
    let all = chat(
        &mut c,
        json!({"message": "use the tools", "workspace": ws.display().to_string()}),
    );
    assert_eq!(all.last().unwrap()["event"], "done", "{all:?}");
    assert_eq!(all.last().unwrap()["data"], "All done.");
    let done: Vec<(String, bool)> = events(&all, "tool_done")
        .iter()
        .map(|e| {
            (
                e["details"]["callId"].as_str().unwrap().to_string(),
                e["details"]["success"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        done,
        [
            ("c1".into(), true),
            ("c2".into(), false),
            ("c3".into(), false)
        ]
    );
    assert_eq!(events(&all, "tool_start")[0]["data"], "mcp__fx__add");
    let requests = server.requests();
    let first = &requests[0].body;
    let names = tool_names(first);
    for expected in [
        "mcp__fx__add",
        "mcp__fx__write_note",
        "mcp__everything__echo",
        "read_file",
    ] {
        assert!(
            names.iter().any(|n| n == expected),
            "{expected} missing in {names:?}"
        );
    }
    let system = first["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("FIXTURE RULE"), "MCP prompt slot: {system}");
    let last = &requests[3].body;
    assert_eq!(tool_message(last, "c1").trim(), "42");
    assert!(tool_message(last, "c2").contains("disk on fire"));
    assert!(
        tool_message(last, "c3").contains("mcp__fx__crash")
            || tool_message(last, "c3").contains("crash")
    );
    // The crashed server shows why, then comes back by itself.
    let mut saw_error = false;
    wait_list(&mut c, |rows| {
        let fx = rows.iter().find(|r| r["name"] == "fx");
        saw_error |= fx.is_some_and(|r| r["error"].as_str().is_some_and(|e| e.contains("exited")));
        fx.is_some_and(|r| r["connected"] == true) && saw_error
    });
}

#[test]
fn plan_mode_hides_mutating_mcp_tools() {
    let server = ProviderServer::start().unwrap();
    server.enqueue(Reply::plain("ok"));
    let tmp = tempfile::tempdir().unwrap();
    let ws = project_dir(tmp.path(), "proj");
    std::fs::create_dir_all(ws.join(".seekclaw")).unwrap();
    std::fs::write(ws.join(".seekclaw/config.json"), r#"{"mode": "plan"}"#).unwrap();
    write_servers_file(
        &ws,
        json!({ "fx": mcp_servers::fixture_stdio().unwrap().config() }),
    );
    let d = setup(
        &server,
        StartOptions {
            cwd: Some(ws.clone()),
            ..StartOptions::default()
        },
    );
    let mut c = d.connect().unwrap();
    chat(
        &mut c,
        json!({"message": "look only", "workspace": ws.display().to_string()}),
    );
    let names = tool_names(&server.requests()[0].body);
    assert!(names.iter().any(|n| n == "mcp__fx__whoami"), "{names:?}");
    for hidden in [
        "mcp__fx__write_note",
        "mcp__fx__spawn_child",
        "mcp__fx__add",
    ] {
        assert!(
            !names.iter().any(|n| n == hidden),
            "{hidden} offered: {names:?}"
        );
    }
    assert!(!names.iter().any(|n| n == "write_file"), "{names:?}");
}

#[test]
fn streamable_http_servers_work_in_turns() {
    let http = mcp_servers::fixture_http().unwrap();
    let server = ProviderServer::start().unwrap();
    server.enqueue(Reply::new().tool_call("h1", "mcp__remote__add", r#"{"a":20,"b":3}"#));
    server.enqueue(Reply::new().tool_call("h2", "mcp__remote__header", r#"{"name":"x-api-key"}"#));
    server.enqueue(Reply::new().tool_call(
        "h3",
        "mcp__remote__header",
        r#"{"name":"authorization"}"#,
    ));
    server.enqueue(Reply::plain("23"));
    let tmp = tempfile::tempdir().unwrap();
    let ws = project_dir(tmp.path(), "proj");
    let d = setup(
        &server,
        StartOptions {
            cwd: Some(ws.clone()),
            ..StartOptions::default()
        },
    );
    let mut c = d.connect().unwrap();
    let list = c
        .ok_json(
            "mcp.upsert",
            json!({"name": "remote", "scope": "global", "server": {
                "transport": "http", "url": http.url,
                "headers": {"X-Api-Key": "k-secret-77", "Authorization": "Bearer tok-secret-88"}
            }}),
        )
        .unwrap();
    assert_eq!(list[0]["connected"], true, "{list}");
    assert_eq!(list[0]["transport"], "http");
    assert_eq!(list[0]["headerKeys"], json!(["Authorization", "X-Api-Key"]));
    assert!(
        !list.to_string().contains("secret"),
        "header values stay in the daemon"
    );
    let all = chat(
        &mut c,
        json!({"message": "add", "workspace": ws.display().to_string()}),
    );
    assert_eq!(all.last().unwrap()["data"], "23");
    let last = &server.requests()[3].body;
    assert_eq!(tool_message(last, "h1").trim(), "23");
    assert_eq!(tool_message(last, "h2").trim(), "k-secret-77");
    assert_eq!(tool_message(last, "h3").trim(), "Bearer tok-secret-88");
}

/// Turns of one workspace share one server process; a workspace switch replaces
/// the servers; shutdown leaves no server (or server child) behind.
#[test]
fn connections_are_shared_switched_and_cleaned_up() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let a = project_dir(tmp.path(), "alpha");
    let b = project_dir(tmp.path(), "beta");
    write_servers_file(
        &a,
        json!({ "fa": mcp_servers::fixture_stdio().unwrap().config() }),
    );
    write_servers_file(
        &b,
        json!({ "fb": mcp_servers::fixture_stdio().unwrap().config() }),
    );
    for id in ["w1", "w2"] {
        server.enqueue(Reply::new().tool_call(id, "mcp__fa__whoami", "{}"));
        server.enqueue(Reply::plain("ok"));
    }
    server.enqueue(Reply::new().tool_call("s1", "mcp__fa__spawn_child", "{}"));
    server.enqueue(Reply::plain("ok"));
    let mut d = setup(
        &server,
        StartOptions {
            cwd: Some(a.clone()),
            ..StartOptions::default()
        },
    );
    let mut c = d.connect().unwrap();
    let w = a.display().to_string();
    for _ in 0..3 {
        let all = chat(&mut c, json!({"message": "who", "workspace": w}));
        assert_eq!(all.last().unwrap()["event"], "done", "{all:?}");
    }
    let reqs = server.requests();
    let pid_of = |text: &str| -> u32 { text.split_whitespace().next().unwrap().parse().unwrap() };
    let p1 = pid_of(tool_message(&reqs[1].body, "w1"));
    let p2 = pid_of(tool_message(&reqs[3].body, "w2"));
    assert_eq!(p1, p2, "both turns used the same server process");
    assert!(tool_message(&reqs[1].body, "w1").ends_with("alpha"));
    let child = tool_message(&reqs[5].body, "s1")
        .trim()
        .parse::<u32>()
        .unwrap();
    assert!(alive(p1) && alive(child));

    let info = c
        .ok_json("workspace.open", json!({"path": b.display().to_string()}))
        .unwrap();
    assert!(info["path"].as_str().unwrap().ends_with("beta"));
    let rows = c.ok_json("mcp.list", json!({})).unwrap();
    assert_eq!(rows.as_array().unwrap().len(), 1, "{rows}");
    assert_eq!(
        (rows[0]["name"].as_str(), rows[0]["connected"].as_bool()),
        (Some("fb"), Some(true))
    );
    wait_gone(&[p1, child]);

    // The new workspace's server, found through /proc, must die with the daemon.
    let fb = fixture_pids(&b);
    assert_eq!(fb.len(), 1, "{fb:?}");
    c.request("shutdown", json!({})).unwrap();
    d.wait_exit(Duration::from_secs(15)).unwrap();
    wait_gone(&fb);
}

/// Pids of fixture servers running in `cwd`.
fn fixture_pids(cwd: &Path) -> Vec<u32> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        let dir = std::fs::read_link(format!("/proc/{pid}/cwd")).unwrap_or_default();
        if String::from_utf8_lossy(&cmdline).contains("mcp_fixture_server.py")
            && dir == cwd
            && alive(pid)
        {
            out.push(pid);
        }
    }
    out
}

fn wait_gone(pids: &[u32]) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while pids.iter().any(|p| alive(*p)) {
        assert!(Instant::now() < deadline, "still running: {pids:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}
