//! `seekclaw run` has nobody to fill in an MCP server's form: it does not
//! announce elicitation, so servers do not offer their eliciting tools, and
//! a server that asks anyway is refused at once; the run never waits.

use std::process::Command;

use seekclaw_testkit::{ProviderServer, Reply, mcp_servers};
use serde_json::{Value, json};

use crate::support::bin;

fn tool_names(request: &Value) -> Vec<String> {
    request["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn run_does_not_announce_elicitation_and_never_waits_for_a_form() {
    let server = ProviderServer::start().unwrap();
    let forms = mcp_servers::elicitation_form_http().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let config = json!({
        "providers": [{"id": "tk", "kind": "openai", "baseUrl": server.base_url(), "models": [{"id": "m1"}]}],
        "agent": {"approvalPolicy": "never"},
        "mcp": {"servers": {
            "everything": mcp_servers::everything_stdio().unwrap().config(),
            "forms": {"transport": "http", "url": forms.url}
        }}
    });
    std::fs::write(home.join("config.json"), config.to_string()).unwrap();
    server.enqueue(Reply::new().tool_call("u1", "mcp__forms__register_user", "{}"));
    server.enqueue(Reply::plain("finished"));
    let out = Command::new(bin())
        .args(["run", "sign me up", "--global"])
        .env("SEEKCLAW_HOME", &home)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "finished");
    let requests = server.requests();
    let names = tool_names(&requests[0].body);
    // server-everything offers its eliciting tool only to a client that
    // announced elicitation; its other tools are there.
    assert!(
        names.iter().any(|n| n == "mcp__everything__echo"),
        "{names:?}"
    );
    assert!(
        !names.iter().any(|n| n.contains("elicitation")),
        "{names:?}"
    );
    let tool = requests[1].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool" && m["tool_call_id"] == "u1")
        .and_then(|m| m["content"].as_str())
        .unwrap()
        .to_string();
    assert!(!tool.contains("Registration successful"), "{tool}");
    assert!(tool.to_lowercase().contains("elicitation"), "{tool}");
}
