//! The chat asks once whether to trust a folder that is not yet a known
//! project; trusting registers it (`project.upsert`), declining quits or
//! chats in a global session. `/` gets a message, not a question.

use std::path::Path;

use seekclaw_testkit::{ProviderServer, Reply, StartOptions};
use serde_json::json;

use crate::support::project_dir;
use crate::support::screen::Screen;
use crate::support::turns::setup;

const QUESTION: &str = "Do you trust the files in this folder?";

fn project_paths(d: &seekclaw_testkit::DaemonProcess) -> Vec<String> {
    let mut c = d.connect().unwrap();
    let list = c.ok_json("project.list", json!({})).unwrap();
    list.as_array()
        .unwrap()
        .iter()
        .map(|p| p["path"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn an_unknown_folder_is_asked_about_once_and_trusting_registers_its_root() {
    let server = ProviderServer::start().unwrap();
    server.enqueue(Reply::plain("working here"));
    let d = setup(&server, StartOptions::default());
    let tmp = tempfile::tempdir().unwrap();
    let project = project_dir(tmp.path(), "fresh");
    let screen = Screen::start(&d.home, Some(&project.join("src")), &["chat"]);
    let asking = screen.wait_for(QUESTION);
    assert!(asking.contains(&project.display().to_string()), "{asking}");
    assert!(
        asking.contains("  1. Yes, trust this folder"),
        "nothing preselected: {asking}"
    );
    assert!(project_paths(&d).is_empty(), "nothing registered yet");
    // Regression (issue 36, item 1): "hello" + Enter typed as the chat
    // opened trusted the folder and dropped the text. Typed ahead, or seen
    // but with nothing selected, Enter answers nothing; the text is kept.
    screen.type_text("hello");
    screen.keys(&["Enter"]);
    screen.wait_for("Kept for the chat: hello");
    screen.seen();
    screen.keys(&["Enter"]);
    screen.wait_for("Choose first");
    assert!(screen.capture().contains(QUESTION));
    assert!(project_paths(&d).is_empty(), "nothing registered yet");
    screen.keys(&["1"]);
    screen.wait_for("› hello");
    assert_eq!(project_paths(&d), [project.display().to_string()]);
    screen.keys(&["Enter"]);
    screen.wait_for("working here");
    screen.wait_idle();
    screen.submit("/quit");
    screen.wait_exit();

    // Known now: no question again, from the root or below it.
    for dir in [project.clone(), project.join("src")] {
        let again = Screen::start(&d.home, Some(&dir), &["chat"]);
        let shown = again.wait_for("Ask anything");
        assert!(!shown.contains(QUESTION), "{shown}");
        again.submit("/quit");
        again.wait_exit();
    }
}

#[test]
fn declining_quits_or_chats_in_a_global_session() {
    let server = ProviderServer::start().unwrap();
    server.enqueue(Reply::plain("no folder here"));
    let d = setup(&server, StartOptions::default());
    let tmp = tempfile::tempdir().unwrap();
    let project = project_dir(tmp.path(), "stranger");

    let screen = Screen::start(&d.home, Some(&project), &["chat"]);
    screen.wait_for(QUESTION);
    screen.seen();
    screen.keys(&["3"]);
    screen.wait_exit();
    assert!(project_paths(&d).is_empty());

    let screen = Screen::start(&d.home, Some(&project), &["chat"]);
    screen.wait_for(QUESTION);
    screen.seen();
    screen.keys(&["Down", "Down", "Enter"]);
    screen.wait_for("Ask anything");
    screen.submit("hello");
    screen.wait_for("no folder here");
    screen.wait_idle();
    assert!(project_paths(&d).is_empty());
    let mut c = d.connect().unwrap();
    let global = c.ok_json("session.list", json!({"global": true})).unwrap();
    assert_eq!(global.as_array().unwrap().len(), 1, "{global}");
    screen.submit("/quit");
    screen.wait_exit();
}

#[test]
fn the_root_directory_gets_a_clear_message_not_a_trust_question() {
    let server = ProviderServer::start().unwrap();
    let d = setup(&server, StartOptions::default());
    let screen = Screen::start_then(
        &d.home,
        Some(Path::new("/")),
        &["chat"],
        "; echo \"[exit $?]\"; sleep 60",
    );
    let shown = screen.wait_for("[exit 1]");
    assert!(!shown.contains(QUESTION), "{shown}");
    assert!(shown.contains("is not a project folder"), "{shown}");
    assert!(shown.contains("--workspace DIR"), "{shown}");
    assert!(project_paths(&d).is_empty());
}
