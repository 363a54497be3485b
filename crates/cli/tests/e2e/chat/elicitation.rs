//! `seekclaw chat` shows an MCP server's form (elicitation) in its approval
//! area: the fields with their defaults, typed values, Enter sends them to
//! the server; Esc declines and Ctrl-C cancels the form (not the turn).

use seekclaw_testkit::{ProviderServer, Reply, StartOptions, mcp_servers};
use serde_json::json;

use crate::support::screen::{Screen, WAIT};
use crate::support::turns::setup;

const TRIGGER: &str = "mcp__everything__trigger-elicitation-request";

/// The tool result for `call_id` the model was sent in request `n`.
fn tool_result(server: &ProviderServer, n: usize, call_id: &str) -> String {
    let requests = server.wait_requests(n + 1, WAIT).unwrap();
    requests[n].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool" && m["tool_call_id"] == call_id)
        .and_then(|m| m["content"].as_str())
        .unwrap()
        .to_string()
}

#[test]
fn the_form_shows_its_fields_and_typed_values_reach_the_server() {
    let server = ProviderServer::start().unwrap();
    server.enqueue(Reply::new().tool_call("e1", TRIGGER, "{}"));
    server.enqueue(Reply::plain("Thanks, Ada."));
    server.enqueue(Reply::new().tool_call("e2", TRIGGER, "{}"));
    server.enqueue(Reply::new().tool_call("e3", TRIGGER, "{}"));
    server.enqueue(Reply::plain("Nothing then."));
    let d = setup(
        &server,
        StartOptions {
            config: Some(json!({
                "agent": {"approvalPolicy": "never"},
                "mcp": {"servers": {"everything": mcp_servers::everything_stdio().unwrap().config()}}
            })),
            ..StartOptions::default()
        },
    );
    let mut c = d.connect().unwrap();
    crate::daemon::mcp::wait_list(&mut c, |rows| {
        rows.iter()
            .any(|r| r["name"] == "everything" && r["connected"] == true)
    });
    let screen = Screen::chat(&d.home, &["--global"]);
    screen.wait_for("Ask anything");
    screen.submit("ask me");
    // The whole form drawn: its last field line, then the status bar.
    let form = screen.wait("the form", |s| {
        s.contains("everything asks:")
            && s.contains("more below")
            && s.lines()
                .last()
                .is_some_and(|l| l.contains("waiting for your approval"))
    });
    assert!(
        form.contains("Please provide inputs for the following fields"),
        "{form}"
    );
    // The server's fields, its defaults filled in; the required one marked.
    for shown in [
        "› String*: _",
        "Boolean: [ ] no",
        "String with default: It was a dark",
    ] {
        assert!(form.contains(shown), "{shown:?} not in\n{form}");
    }
    assert!(form.contains("more below"), "{form}");
    assert!(
        form.contains("Enter sends · Esc declines · Ctrl-C cancels"),
        "{form}"
    );
    let status = form.lines().last().unwrap();
    assert!(status.contains("waiting for your approval"), "{status}");
    screen.seen();
    // Enter with the required field empty: said on the form, nothing sent.
    screen.keys(&["Enter"]);
    screen.wait_for("✗ `String` is required");
    screen.type_text("Ada Lovelace");
    screen.keys(&["Tab", "Space"]);
    screen.wait_for("Boolean: [x] yes");
    screen.keys(&["Enter"]);
    screen.wait_for("Thanks, Ada.");
    let result = tool_result(&server, 1, "e1");
    for line in [
        "- Name: Ada Lovelace",
        "- Agreed to terms: true",
        "- Favorite Integer: 42",
    ] {
        assert!(result.contains(line), "{line} not in {result}");
    }

    // Esc declines; Ctrl-C cancels the form and the turn goes on.
    screen.submit("ask again");
    screen.wait_for("everything asks:");
    screen.seen();
    screen.keys(&["Escape"]);
    screen.wait("the second form", |s| {
        s.contains("everything asks:") && server.requests().len() >= 4
    });
    screen.seen();
    screen.keys(&["C-c"]);
    screen.wait_for("Nothing then.");
    assert!(tool_result(&server, 3, "e2").contains("User declined"));
    assert!(tool_result(&server, 4, "e3").contains("User cancelled"));
    let end = screen.wait_idle();
    assert!(!end.contains("cancelled by"), "{end}");
    screen.submit("/quit");
    screen.wait_exit();
}
