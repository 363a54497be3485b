//! `seekclaw chat` asks before a call the approval policy names: the prompt
//! shows the call and its diff; y runs it, a typed reason rejects it.

use seekclaw_testkit::{ProviderServer, Reply, StartOptions};
use serde_json::json;

use super::Screen;
use crate::chat::setup;

#[test]
fn an_approval_prompt_shows_the_diff_and_y_or_a_reason_decides() {
    let server = ProviderServer::start().unwrap();
    server.enqueue(Reply::new().tool_call(
        "w1",
        "write_file",
        r#"{"path":"approved.txt","content":"yes please\n"}"#,
    ));
    server.enqueue(Reply::plain("Wrote it."));
    server.enqueue(Reply::new().tool_call("b1", "bash", r#"{"command":"rm -f approved.txt"}"#));
    server.enqueue(Reply::plain("Left it."));
    let d = setup(
        &server,
        StartOptions {
            config: Some(json!({"agent": {"approvalPolicy": "on-request"}})),
            ..StartOptions::default()
        },
    );
    let screen = Screen::chat(&d.home, &["--global"]);
    screen.wait_for("Ask anything");
    screen.submit("write it");
    let asking = screen.wait_for("Allow write_file");
    assert!(asking.contains("+yes please"), "the diff: {asking}");
    assert!(asking.contains("[y] allow once"), "{asking}");
    let file = d.home.join("global").join("approved.txt");
    assert!(!file.exists(), "nothing runs before the answer");
    screen.type_text("y");
    screen.wait_for("Wrote it.");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "yes please\n");

    screen.submit("now remove it");
    screen.wait_for("Allow bash");
    screen.submit("keep the file");
    screen.wait_for("Left it.");
    assert!(file.exists(), "the rejected command did not run");
    let requests = server.requests();
    let msgs = requests[3].body["messages"].as_array().unwrap();
    let result = msgs.iter().rev().find(|m| m["role"] == "tool").unwrap();
    assert!(
        result["content"]
            .as_str()
            .unwrap()
            .ends_with("The user said: keep the file"),
        "{result}"
    );
    screen.submit("/quit");
    screen.wait_exit();
}
