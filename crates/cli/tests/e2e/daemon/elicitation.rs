//! MCP elicitation through the real daemon: a server's `elicitation/create`
//! during a tool call is an `approval_request` of the turn with the form;
//! `agent.approve` accepts (values checked against the form), declines or
//! cancels, and the server's tool result (what the model reads) says so. A
//! client without approvals, and `seekclaw run`, never leave a server waiting.

use seekclaw_testkit::{Client, ProviderServer, Reply, StartOptions, mcp_servers};
use serde_json::{Value, json};

use crate::support::project_dir;
use crate::support::turns::{events, setup};

const TRIGGER: &str = "mcp__everything__trigger-elicitation-request";

/// A daemon with `server-everything` (stdio) and the SDK's form example
/// (HTTP, when given), asking for no tool approvals: only forms are asked.
fn daemon(server: &ProviderServer, form: Option<&str>) -> seekclaw_testkit::DaemonProcess {
    let mut servers = json!({"everything": mcp_servers::everything_stdio().unwrap().config()});
    if let Some(url) = form {
        servers["forms"] = json!({"transport": "http", "url": url});
    }
    setup(
        server,
        StartOptions {
            config: Some(json!({
                "agent": {"approvalPolicy": "never"},
                "mcp": {"servers": servers}
            })),
            ..StartOptions::default()
        },
    )
}

/// Waits until every server is connected (their tools join turns).
fn wait_connected(c: &mut Client, names: &[&str]) {
    super::mcp::wait_list(c, |rows| {
        names.iter().all(|n| {
            rows.iter()
                .any(|r| r["name"] == *n && r["connected"] == true)
        })
    });
}

/// Reads until chat `id`'s next `approval_request` and returns it.
fn next_request(c: &mut Client, id: i64) -> Value {
    next_request_keeping(c, id, &mut Vec::new())
}

/// [`next_request`], keeping the turn's envelopes read on the way.
fn next_request_keeping(c: &mut Client, id: i64, seen: &mut Vec<Value>) -> Value {
    loop {
        let env = c.next_envelope().unwrap();
        if env["id"].as_i64() == Some(id) {
            assert_ne!(env["event"], "done", "the turn ended without asking");
            if env["event"] == "approval_request" {
                return env;
            }
            seen.push(env);
        }
    }
}

/// The tool message for `call_id` in the provider's request `n`.
fn tool_result(server: &ProviderServer, n: usize, call_id: &str) -> String {
    let body = &server.requests()[n].body;
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool" && m["tool_call_id"] == call_id)
        .and_then(|m| m["content"].as_str())
        .unwrap_or_else(|| panic!("no tool result for {call_id}"))
        .to_string()
}

fn approve(c: &mut Client, id: i64, ask: &Value, answer: Value) -> Value {
    let mut params = json!({"requestId": id, "approvalId": ask["details"]["approvalId"]});
    for (k, v) in answer.as_object().unwrap() {
        params[k] = v.clone();
    }
    c.request("agent.approve", params).unwrap()
}

#[test]
fn a_form_is_asked_checked_and_its_values_reach_the_server() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let ws = project_dir(tmp.path(), "proj");
    server.enqueue(Reply::new().tool_call("e1", TRIGGER, "{}"));
    server.enqueue(Reply::plain("Thanks."));
    let d = daemon(&server, None);
    let mut c = d.connect().unwrap();
    wait_connected(&mut c, &["everything"]);
    let w = ws.display().to_string();
    let id = c
        .send(
            "chat",
            json!({"message": "ask me", "workspace": w, "approvals": true}),
        )
        .unwrap();
    let ask = next_request(&mut c, id);
    let details = &ask["details"];
    assert_eq!(details["kind"], "elicitation", "{ask}");
    assert_eq!(details["callId"], "e1");
    assert_eq!(details["tool"], TRIGGER);
    let form = &details["elicitation"];
    assert_eq!(form["server"], "everything");
    assert_eq!(
        form["message"],
        "Please provide inputs for the following fields:"
    );
    let schema = &form["requestedSchema"];
    assert_eq!(schema["required"], json!(["name"]));
    assert_eq!(schema["properties"]["integer"]["type"], "integer");
    // The server's own field order is kept for the form.
    let order: Vec<&str> = schema["properties"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .take(3)
        .collect();
    assert_eq!(order, ["name", "check", "firstLine"]);

    // Values that do not fit are refused with why; the form still waits.
    let refusals = [
        (
            json!({"action": "accept", "content": {"check": true}}),
            "`name` is required",
        ),
        (
            json!({"action": "accept", "content": {"name": "Ada", "integer": 500}}),
            "`integer` must be at most 100",
        ),
        (
            json!({"action": "accept", "content": {"name": "Ada", "email": "nope"}}),
            "`email` must be an email address",
        ),
        (json!({"decision": "allow_once"}), "`name` is required"),
        (json!({"action": "maybe"}), "accept, decline or cancel"),
    ];
    for (answer, why) in refusals {
        let mut params = json!({"requestId": id, "approvalId": details["approvalId"]});
        for (k, v) in answer.as_object().unwrap() {
            params[k] = v.clone();
        }
        let err = c.err("agent.approve", params).unwrap();
        assert_eq!(err["details"]["code"], "invalid_request", "{err}");
        assert!(
            err["data"].as_str().unwrap().contains(why),
            "{answer}: {err}"
        );
    }
    let ok = approve(
        &mut c,
        id,
        &ask,
        json!({"action": "accept", "content": {"name": "Ada Lovelace", "check": true, "integer": 7}}),
    );
    assert_eq!(ok["data"], "approved", "{ok}");
    let all = c.collect(id).unwrap();
    assert_eq!(all.last().unwrap()["event"], "done", "{all:?}");
    let resolved = events(&all, "approval_resolved");
    assert_eq!(resolved.len(), 1, "{all:?}");
    assert_eq!(resolved[0]["details"]["approvalId"], details["approvalId"]);
    let result = tool_result(&server, 1, "e1");
    for line in [
        "User provided the requested information",
        "- Name: Ada Lovelace",
        "- Agreed to terms: true",
        "- Favorite Integer: 7",
    ] {
        assert!(result.contains(line), "{line} not in {result}");
    }
}

#[test]
fn decline_cancel_and_an_old_clients_reject_reach_the_server() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let ws = project_dir(tmp.path(), "proj");
    for call in ["d1", "c1", "r1"] {
        server.enqueue(Reply::new().tool_call(call, TRIGGER, "{}"));
    }
    server.enqueue(Reply::plain("Fine."));
    let d = daemon(&server, None);
    let mut c = d.connect().unwrap();
    wait_connected(&mut c, &["everything"]);
    let w = ws.display().to_string();
    let id = c
        .send(
            "chat",
            json!({"message": "ask me", "workspace": w, "approvals": true}),
        )
        .unwrap();
    let answers = [
        (json!({"action": "decline"}), "rejected"),
        (json!({"action": "cancel"}), "rejected"),
        // A client that knows only decisions: reject declines.
        (json!({"decision": "reject"}), "rejected"),
    ];
    let mut seen = Vec::new();
    for (answer, said) in answers {
        let ask = next_request_keeping(&mut c, id, &mut seen);
        assert_eq!(ask["details"]["kind"], "elicitation");
        let ok = approve(&mut c, id, &ask, answer);
        assert_eq!(ok["data"], said, "{ok}");
    }
    seen.extend(c.collect(id).unwrap());
    let all = seen;
    assert_eq!(all.last().unwrap()["event"], "done", "{all:?}");
    let outcomes: Vec<String> =
        crate::support::turns::strings(&all, "approval_resolved", &["data"]);
    assert_eq!(outcomes, ["reject", "cancelled", "reject"]);
    let last = server.requests().len() - 1;
    let declined = tool_result(&server, last, "d1");
    assert!(declined.contains("User declined"), "{declined}");
    assert!(declined.contains(r#""action": "decline""#), "{declined}");
    let cancelled = tool_result(&server, last, "c1");
    assert!(cancelled.contains("User cancelled"), "{cancelled}");
    let rejected = tool_result(&server, last, "r1");
    assert!(rejected.contains("User declined"), "{rejected}");
}

#[test]
fn a_client_without_approvals_declines_at_once() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let ws = project_dir(tmp.path(), "proj");
    server.enqueue(Reply::new().tool_call("e1", TRIGGER, "{}"));
    server.enqueue(Reply::plain("Fine."));
    let d = daemon(&server, None);
    let mut c = d.connect().unwrap();
    wait_connected(&mut c, &["everything"]);
    let w = ws.display().to_string();
    let all = crate::support::turns::chat(&mut c, json!({"message": "ask me", "workspace": w}));
    assert_eq!(all.last().unwrap()["event"], "done", "{all:?}");
    assert!(events(&all, "approval_request").is_empty(), "{all:?}");
    let result = tool_result(&server, 1, "e1");
    assert!(result.contains("User declined"), "{result}");
}

#[test]
fn the_sdk_example_server_gets_its_form_over_http() {
    let server = ProviderServer::start().unwrap();
    let forms = mcp_servers::elicitation_form_http().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let ws = project_dir(tmp.path(), "proj");
    server.enqueue(Reply::new().tool_call("u1", "mcp__forms__register_user", "{}"));
    server.enqueue(Reply::plain("Registered."));
    let d = daemon(&server, Some(&forms.url));
    let mut c = d.connect().unwrap();
    wait_connected(&mut c, &["forms"]);
    let w = ws.display().to_string();
    let id = c
        .send(
            "chat",
            json!({"message": "sign me up", "workspace": w, "approvals": true}),
        )
        .unwrap();
    let ask = next_request(&mut c, id);
    let form = &ask["details"]["elicitation"];
    assert_eq!(form["server"], "forms");
    assert_eq!(
        form["requestedSchema"]["required"],
        json!(["username", "email", "password"])
    );
    let short = c
        .err(
            "agent.approve",
            json!({"requestId": id, "approvalId": ask["details"]["approvalId"], "action": "accept",
                   "content": {"username": "ad", "email": "ada@example.com", "password": "correct horse"}}),
        )
        .unwrap();
    assert!(
        short["data"]
            .as_str()
            .unwrap()
            .contains("`username` must be at least 3 characters"),
        "{short}"
    );
    let ok = approve(
        &mut c,
        id,
        &ask,
        json!({"action": "accept", "content": {"username": "ada", "email": "ada@example.com",
               "password": "correct horse", "newsletter": true, "role": "designer",
               "interests": ["ai", "backend"]}}),
    );
    assert_eq!(ok["data"], "approved", "{ok}");
    let all = c.collect(id).unwrap();
    assert_eq!(all.last().unwrap()["event"], "done", "{all:?}");
    let result = tool_result(&server, 1, "u1");
    for line in [
        "Registration successful!",
        "Username: ada",
        "Email: ada@example.com",
        "Newsletter: Yes",
    ] {
        assert!(result.contains(line), "{line} not in {result}");
    }
}
