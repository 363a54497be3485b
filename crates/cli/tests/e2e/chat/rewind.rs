//! Rewind and fork in the terminal UI (issue 38): Esc Esc on the empty
//! prompt lists the session's prompts with their file changes; picking one
//! and "code and conversation" restores the file, drops the rewound turn
//! and puts its prompt back into the editor; a file the user changed since
//! is listed and only overwritten when chosen; `/fork` opens a fork.

use std::path::Path;

use seekclaw_testkit::{ProviderServer, Reply, StartOptions};
use serde_json::json;

use crate::support::screen::{Screen, row, session_of};
use crate::support::turns::setup;

fn write(server: &ProviderServer, id: &str, content: &str, answer: &str) {
    server.enqueue(Reply::new().tool_call(
        id,
        "write_file",
        json!({"path": "notes.txt", "content": content}).to_string(),
    ));
    server.enqueue(Reply::plain(answer));
}

/// Two turns in the global scope: "write first" makes notes.txt `first`,
/// "change it please" makes it `second` (it was `original`).
fn two_turns(server: &ProviderServer, screen: &Screen, dir: &Path) {
    write(server, "c1", "first\n", "Wrote it.");
    write(server, "c2", "second\n", "Changed it.");
    screen.wait_for("Ask anything");
    screen.submit("write first");
    screen.wait_for("Wrote it.");
    screen.wait_idle();
    screen.submit("change it please");
    screen.wait_for("Changed it.");
    screen.wait_idle();
    assert_eq!(
        std::fs::read_to_string(dir.join("notes.txt")).unwrap(),
        "second\n"
    );
}

/// Esc, then Esc again once the first one was taken.
fn esc_esc(screen: &Screen) {
    screen.keys(&["Escape"]);
    screen.wait_for("Esc again");
    screen.keys(&["Escape"]);
}

/// The editor's line (above the status bar).
fn editor_line(screen: &str) -> String {
    let lines: Vec<&str> = screen.lines().collect();
    lines[lines.len().saturating_sub(2)].to_string()
}

#[test]
fn esc_esc_rewinds_code_and_conversation_and_the_prompt_comes_back_to_resend() {
    let server = ProviderServer::start().unwrap();
    let d = setup(&server, StartOptions::default());
    let dir = d.home.join("global");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("notes.txt"), "original\n").unwrap();
    let screen = Screen::chat(&d.home, &["--global"]);
    two_turns(&server, &screen, &dir);

    // Each turn's checkpoint showed as a dim line under its tool row.
    let turns = screen.capture();
    assert_eq!(
        turns.matches("checkpoint · 1 file +1 −1").count(),
        2,
        "{turns}"
    );
    esc_esc(&screen);
    let list = screen.wait_for("Rewind to before which prompt?");
    // Keys right behind the list appearing choose nothing.
    screen.keys(&["Up", "Enter"]);
    // Below the transcript: the list, newest last and selected.
    let listed = list.split("Rewind to before which prompt?").nth(1).unwrap();
    assert!(
        row(listed, "write first").contains("+1 −1 in 1 file"),
        "{list}"
    );
    let newest = row(listed, "change it please");
    assert!(newest.contains("+1 −1 in 1 file"), "{list}");
    assert!(newest.starts_with('›'), "newest selected: {list}");
    screen.seen();
    assert!(screen.capture().contains("Rewind to before which prompt?"));
    screen.keys(&["Enter"]);
    let ask = screen.wait("the question, whole", |s| {
        s.contains("Rewind to before «change it please»:") && s.contains("4. Cancel")
    });
    assert!(
        ask.contains("1. Restore the code and the conversation"),
        "{ask}"
    );
    screen.seen();
    screen.keys(&["1"]);
    let done = screen.wait_for("⟲ Rewound the code and the conversation");
    assert_eq!(
        std::fs::read_to_string(dir.join("notes.txt")).unwrap(),
        "first\n"
    );
    assert!(done.contains("Restored 1 file"), "{done}");
    assert!(
        !done.contains("Changed it."),
        "the rewound turn is gone: {done}"
    );
    assert!(done.contains("Wrote it."), "the turn before stays: {done}");
    let editor = screen.settled(editor_line);
    assert!(editor.contains("› change it please"), "{editor}");

    // Enter sends it again; the model is not sent the rewound answer.
    server.enqueue(Reply::plain("Resent and answered."));
    screen.keys(&["Enter"]);
    screen.wait_for("Resent and answered.");
    let sent = server.requests();
    let last = sent.last().unwrap().body.to_string();
    assert!(!last.contains("Changed it."), "{last}");
    assert!(last.contains("Wrote it."), "{last}");
    screen.submit("/quit");
    screen.wait_exit();
}

#[test]
fn a_file_the_user_changed_is_listed_and_only_overwritten_when_chosen() {
    let server = ProviderServer::start().unwrap();
    let d = setup(&server, StartOptions::default());
    let dir = d.home.join("global");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("notes.txt"), "original\n").unwrap();
    let screen = Screen::chat(&d.home, &["--global"]);
    two_turns(&server, &screen, &dir);
    std::fs::write(dir.join("notes.txt"), "mine now\n").unwrap();

    screen.submit("/rewind");
    screen.wait_for("Rewind to before which prompt?");
    screen.seen();
    screen.keys(&["Enter"]);
    screen.wait_for("4. Cancel");
    screen.seen();
    screen.keys(&["3"]); // the code only
    let asked = screen.wait_for("1. Overwrite them");
    assert!(asked.contains("changed after that point"), "{asked}");
    assert!(asked.lines().any(|l| l.trim() == "notes.txt"), "{asked}");
    assert_eq!(
        std::fs::read_to_string(dir.join("notes.txt")).unwrap(),
        "mine now\n",
        "nothing changes before the answer"
    );
    // Typed ahead: no choice; then Cancel keeps the user's file.
    screen.keys(&["1"]);
    screen.seen();
    assert_eq!(
        std::fs::read_to_string(dir.join("notes.txt")).unwrap(),
        "mine now\n"
    );
    screen.keys(&["2"]);
    screen.wait("the question to close", |s| !s.contains("Overwrite them"));
    assert_eq!(
        std::fs::read_to_string(dir.join("notes.txt")).unwrap(),
        "mine now\n"
    );

    // Asked again and told to overwrite: the agent's earlier version.
    screen.submit("/rewind");
    screen.wait_for("Rewind to before which prompt?");
    screen.seen();
    screen.keys(&["Enter"]);
    screen.wait_for("4. Cancel");
    screen.seen();
    screen.keys(&["3"]);
    screen.wait_for("1. Overwrite them");
    screen.seen();
    screen.keys(&["1"]);
    let done = screen.wait_for("⟲ Rewound the code");
    assert!(done.contains("Overwrote"), "{done}");
    assert_eq!(
        std::fs::read_to_string(dir.join("notes.txt")).unwrap(),
        "first\n"
    );
    assert!(
        done.contains("Changed it."),
        "the conversation stays: {done}"
    );
    screen.submit("/quit");
    screen.wait_exit();
}

#[test]
fn fork_opens_a_new_session_at_the_chosen_prompt_and_says_so() {
    let server = ProviderServer::start().unwrap();
    let d = setup(&server, StartOptions::default());
    let dir = d.home.join("global");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("notes.txt"), "original\n").unwrap();
    let screen = Screen::chat(&d.home, &["--global"]);
    two_turns(&server, &screen, &dir);
    let source = session_of(&screen.capture());

    screen.submit("/fork");
    screen.wait_for("Fork to before which prompt?");
    screen.seen();
    screen.keys(&["Enter"]); // the newest: the default
    let ask = screen.wait("the question, whole", |s| {
        s.contains("Fork to before «change it please»:") && s.contains("3. Cancel")
    });
    assert!(ask.contains("2. Fork and restore the code"), "{ask}");
    screen.seen();
    screen.keys(&["1"]);
    let done = screen.wait_for("⑂ Forked session");
    let fork = session_of(&done);
    assert_ne!(fork, source, "{done}");
    assert!(done.contains(&format!("into session {fork}")), "{done}");
    assert!(done.contains(&format!("/resume {source}")), "{done}");
    assert!(!done.contains("Changed it."), "{done}");
    assert!(screen.settled(editor_line).contains("› change it please"));
    assert_eq!(
        std::fs::read_to_string(dir.join("notes.txt")).unwrap(),
        "second\n",
        "a conversation fork leaves the files"
    );
    let mut c = d.connect().unwrap();
    let list = c.ok_json("session.list", json!({"global": true})).unwrap();
    let header = list
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == fork.as_str())
        .unwrap()
        .clone();
    assert_eq!(
        header["forkedFrom"]["sessionId"],
        source.as_str(),
        "{header}"
    );
    // Ctrl-C empties the editor (the prompt put back) before quitting.
    screen.keys(&["C-c"]);
    screen.submit("/quit");
    screen.wait_exit();
}
