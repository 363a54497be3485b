//! MCP OAuth through the real binary: a server behind the official TypeScript
//! SDK's OAuth 2.1 authorization server (crates/testkit/fixtures/
//! oauth_mcp_server.mjs) is `needs_login`, `seekclaw mcp login` logs in with a
//! `$BROWSER` that approves unattended, the daemon's turns call its tool, a
//! rejected token is refreshed, a refused refresh asks to log in again, and
//! `mcp logout` forgets the login. No token is ever written outside `mcp-auth/`.

use std::path::Path;
use std::process::{Command, Output};

use seekclaw_testkit::oauth_server::{browser_script, oauth_http};
use seekclaw_testkit::{Client, ProviderServer, Reply, StartOptions};
use serde_json::{Value, json};

use super::mcp::wait_list;
use crate::support::turns::{chat, setup};
use crate::support::{bin, project_dir};

fn secure(rows: &[Value]) -> Value {
    rows.iter()
        .find(|r| r["name"] == "secure")
        .cloned()
        .unwrap_or(Value::Null)
}

fn cli(home: &Path, cwd: &Path, browser: &Path, args: &[&str]) -> Output {
    Command::new(bin())
        .args(args)
        .current_dir(cwd)
        .env("SEEKCLAW_HOME", home)
        .env("BROWSER", browser)
        .output()
        .unwrap()
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// A turn whose model calls `whoami_oauth`; the tool's answer as the model saw it.
fn whoami_turn(
    server: &ProviderServer,
    c: &mut Client,
    ws: &Path,
    call: &str,
) -> (String, Vec<Value>) {
    server.clear_requests();
    server.enqueue(Reply::new().tool_call(call, "mcp__secure__whoami_oauth", "{}"));
    server.enqueue(Reply::plain("done"));
    let events = chat(
        c,
        json!({"message": "who am I", "workspace": ws.display().to_string()}),
    );
    let requests = server.requests();
    let answer = requests
        .last()
        .and_then(|r| r.body["messages"].as_array().cloned())
        .unwrap_or_default()
        .into_iter()
        .find(|m| m["role"] == "tool" && m["tool_call_id"] == call)
        .and_then(|m| m["content"].as_str().map(str::to_string))
        .unwrap_or_else(|| panic!("no tool result for {call}: {events:?}"));
    (answer, events)
}

/// The access and refresh tokens in the home's token store now.
fn stored_tokens(home: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(home.join("mcp-auth")).unwrap() {
        let file: Value =
            serde_json::from_slice(&std::fs::read(entry.unwrap().path()).unwrap()).unwrap();
        let tokens = &file["credentials"]["token_response"];
        for key in ["access_token", "refresh_token"] {
            if let Some(t) = tokens[key].as_str() {
                out.push(t.to_string());
            }
        }
    }
    out
}

/// Every file under `dir` except the token store, as text.
fn files_outside_store(dir: &Path, out: &mut Vec<(String, String)>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.file_name().is_some_and(|n| n == "mcp-auth") {
            continue;
        }
        if path.is_dir() {
            files_outside_store(&path, out);
        } else if let Ok(bytes) = std::fs::read(&path) {
            out.push((
                path.display().to_string(),
                String::from_utf8_lossy(&bytes).to_string(),
            ));
        }
    }
}

#[test]
fn oauth_login_turns_refresh_refused_refresh_and_logout() {
    let fixture = oauth_http(3600).unwrap();
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let ws = project_dir(tmp.path(), "proj");
    let browser = browser_script(tmp.path()).unwrap();
    let d = setup(
        &server,
        StartOptions {
            config: Some(
                json!({"mcp": {"servers": {"secure": {"transport": "http", "url": fixture.url()}}}}),
            ),
            cwd: Some(ws.clone()),
            ..StartOptions::default()
        },
    );
    let mut c = d.connect().unwrap();
    let mut seen = String::new();

    // The 401 makes it wait for a login, with what to run.
    let rows = wait_list(&mut c, |r| secure(r)["auth"] == "needs_login");
    let row = secure(&rows);
    assert_eq!(
        (row["status"].as_str(), row["connected"].as_bool()),
        (Some("needs_login"), Some(false))
    );
    assert!(
        row["error"]
            .as_str()
            .unwrap()
            .contains("run `seekclaw mcp login secure`"),
        "{row}"
    );

    // The CLI logs in: discovery, dynamic registration, PKCE, browser, loopback.
    let out = cli(&d.home, &ws, &browser, &["mcp", "login", "secure"]);
    seen.push_str(&text(&out));
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("/authorize?"),
        "the URL is printed: {}",
        text(&out)
    );
    assert!(
        text(&out).contains("Logged in to MCP server 'secure'"),
        "{}",
        text(&out)
    );
    let stats = fixture.stats().unwrap();
    assert_eq!(
        (
            stats["registrations"].as_u64(),
            stats["codeExchanges"].as_u64()
        ),
        (Some(1), Some(1)),
        "{stats}"
    );
    let mut tokens = stored_tokens(&d.home);
    assert_eq!(tokens.len(), 2, "access and refresh token stored");

    // The daemon picks the login up by itself and turns call the tool.
    wait_list(&mut c, |r| {
        secure(r)["auth"] == "authorized" && secure(r)["connected"] == true
    });
    let (answer, events) = whoami_turn(&server, &mut c, &ws, "o1");
    assert!(answer.contains("authorized client"), "{answer}");
    seen.push_str(&serde_json::to_string(&events).unwrap());

    // The server stops accepting the access token: refreshed on the 401, call retried.
    fixture.admin("expire-access").unwrap();
    let (answer, events) = whoami_turn(&server, &mut c, &ws, "o2");
    assert!(answer.contains("authorized client"), "{answer}");
    assert!(fixture.stat("refreshes") >= 1, "{:?}", fixture.stats());
    seen.push_str(&serde_json::to_string(&events).unwrap());
    tokens.extend(stored_tokens(&d.home));

    // The refresh token dies too: the call says to log in again, so does mcp.list.
    fixture.admin("revoke-refresh").unwrap();
    fixture.admin("expire-access").unwrap();
    let (answer, events) = whoami_turn(&server, &mut c, &ws, "o3");
    assert!(
        answer.contains("log in again") && answer.contains("seekclaw mcp login secure"),
        "{answer}"
    );
    seen.push_str(&serde_json::to_string(&events).unwrap());
    let rows = wait_list(&mut c, |r| secure(r)["status"] == "login_required");
    assert_eq!(secure(&rows)["auth"], "login_required");
    let doctor = cli(&d.home, &ws, &browser, &["doctor", "--json"]);
    seen.push_str(&text(&doctor));
    let checks: Value = serde_json::from_slice(&doctor.stdout).unwrap();
    let row = checks
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "MCP secure")
        .unwrap_or_else(|| panic!("no MCP secure row: {checks}"))
        .clone();
    assert_eq!(row["level"], "warn", "{row}");
    assert_eq!(row["fix"], "run `seekclaw mcp login secure`", "{row}");

    // Logout forgets the login; the server needs one again.
    let out = cli(&d.home, &ws, &browser, &["mcp", "logout", "secure"]);
    seen.push_str(&text(&out));
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        std::fs::read_dir(d.home.join("mcp-auth")).unwrap().count(),
        0
    );
    wait_list(&mut c, |r| secure(r)["auth"] == "needs_login");
    seen.push_str(&c.ok_json("mcp.list", json!({})).unwrap().to_string());

    // No token outside the store: not in config.json, logs, the database,
    // the daemon's stderr, the events or any command's output.
    let mut files = Vec::new();
    files_outside_store(&d.home, &mut files);
    files.push((
        "daemon stderr".into(),
        std::fs::read_to_string(&d.stderr_path).unwrap_or_default(),
    ));
    files.push(("captured output and events".into(), seen));
    assert!(files.iter().any(|(p, _)| p.ends_with("config.json")));
    assert!(tokens.len() >= 4, "{tokens:?}");
    for token in &tokens {
        for (path, content) in &files {
            assert!(
                !content.contains(token.as_str()),
                "a token leaked into {path}"
            );
        }
    }
}

#[test]
fn mcp_login_runs_the_flow_in_the_daemon_for_front_ends() {
    let fixture = oauth_http(3600).unwrap();
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let ws = project_dir(tmp.path(), "proj");
    let d = setup(
        &server,
        StartOptions {
            config: Some(
                json!({"mcp": {"servers": {"secure": {"transport": "http", "url": fixture.url()}}}}),
            ),
            cwd: Some(ws.clone()),
            ..StartOptions::default()
        },
    );
    let mut c = d.connect().unwrap();
    wait_list(&mut c, |r| secure(r)["auth"] == "needs_login");
    let started = c.ok_json("mcp.login", json!({"name": "secure"})).unwrap();
    assert_eq!(started["name"], "secure");
    let auth_url = started["authUrl"].as_str().unwrap();
    assert!(auth_url.contains("code_challenge_method=S256"), "{started}");
    assert!(started["redirectPort"].as_u64().unwrap() > 0);
    // The user's browser (here: curl following the redirect) approves.
    let status = Command::new("curl")
        .args(["-s", "-L", "-o", "/dev/null", auth_url])
        .status()
        .unwrap();
    assert!(status.success());
    let rows = wait_list(&mut c, |r| secure(r)["connected"] == true);
    assert_eq!(secure(&rows)["auth"], "authorized");
    let (answer, _) = whoami_turn(&server, &mut c, &ws, "d1");
    assert!(answer.contains("authorized client"), "{answer}");
    // An unknown name is not found.
    let err = c.err("mcp.login", json!({"name": "nope"})).unwrap();
    assert_eq!(err["details"]["code"], "not_found", "{err}");
    c.ok_json("mcp.logout", json!({"name": "secure"})).unwrap();
    wait_list(&mut c, |r| secure(r)["auth"] == "needs_login");
}
