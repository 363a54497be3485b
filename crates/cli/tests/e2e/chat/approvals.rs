//! `seekclaw chat` asks before a call the approval policy names: the prompt
//! shows the call and its diff; the user picks a choice (↑↓ + Enter, digits,
//! Esc); typed text only ever becomes a rejection reason.

use seekclaw_testkit::{DaemonProcess, ProviderServer, Reply, StartOptions};
use serde_json::{Value, json};

use crate::support::screen::{Screen, WAIT};
use crate::support::turns::setup;

fn asking_daemon(server: &ProviderServer) -> DaemonProcess {
    setup(
        server,
        StartOptions {
            config: Some(json!({"agent": {"approvalPolicy": "on-request"}})),
            ..StartOptions::default()
        },
    )
}

/// The last tool result the model was sent in request `n` (0-based).
fn tool_result(server: &ProviderServer, n: usize) -> String {
    let requests = server.wait_requests(n + 1, WAIT).unwrap();
    let msgs = requests[n].body["messages"].as_array().unwrap().clone();
    let result: &Value = msgs.iter().rev().find(|m| m["role"] == "tool").unwrap();
    result["content"].as_str().unwrap().to_string()
}

/// Regression (issue 26, item 1): y, a and n were shortcuts on an empty
/// editor, so "actually do not delete it" allowed `rm -rf build` for the
/// session. Typed words now only ever reject, with themselves as the reason.
#[test]
fn typed_words_at_the_prompt_reject_with_that_reason_and_nothing_runs() {
    let server = ProviderServer::start().unwrap();
    let reasons = [
        "actually do not delete it",
        "yes but not now",
        "allow me to explain",
    ];
    for i in 0..reasons.len() {
        server.enqueue(Reply::new().tool_call(
            format!("b{i}"),
            "bash",
            r#"{"command":"rm -rf build"}"#,
        ));
        server.enqueue(Reply::plain(format!("Kept it {i}.")));
    }
    let d = asking_daemon(&server);
    let build = d.home.join("global").join("build");
    std::fs::create_dir_all(&build).unwrap();
    std::fs::write(build.join("keep.txt"), "precious").unwrap();
    let screen = Screen::chat(&d.home, &["--global"]);
    screen.wait_for("Ask anything");
    for (i, reason) in reasons.iter().enumerate() {
        screen.submit(&format!("clean up {i}"));
        let asking = screen.wait_for("Allow bash");
        assert!(asking.contains("rm -rf build"), "{asking}");
        assert!(
            asking.contains("  1. Allow once"),
            "nothing preselected: {asking}"
        );
        let status = asking.lines().last().unwrap();
        assert!(status.contains("waiting for your approval"), "{status}");
        screen.seen();
        screen.submit(reason);
        screen.wait_for(&format!("Kept it {i}."));
        assert!(
            build.join("keep.txt").exists(),
            "{reason:?} ran the command"
        );
        let result = tool_result(&server, 2 * i + 1);
        assert!(
            result.ends_with(&format!("The user said: {reason}")),
            "{reason:?}: {result}"
        );
    }
    let end = screen.capture();
    assert!(end.lines().last().unwrap().contains("idle"), "{end}");
    screen.submit("/quit");
    screen.wait_exit();
}

#[test]
fn arrows_and_enter_digits_esc_and_the_reason_step_decide() {
    let server = ProviderServer::start().unwrap();
    // Allowed for the session: the second write of the turn is not asked.
    server.enqueue(Reply::new().tool_call(
        "w1",
        "write_file",
        r#"{"path":"a.txt","content":"yes please\n"}"#,
    ));
    server.enqueue(Reply::new().tool_call(
        "w2",
        "write_file",
        r#"{"path":"b.txt","content":"also\n"}"#,
    ));
    server.enqueue(Reply::plain("Both written."));
    for (i, name) in ["one", "two", "three", "four"].iter().enumerate() {
        server.enqueue(Reply::new().tool_call(
            format!("b{i}"),
            "bash",
            json!({"command": format!("echo {name} > {name}.txt")}).to_string(),
        ));
        server.enqueue(Reply::plain(format!("Done with {name}.")));
    }
    let d = asking_daemon(&server);
    let dir = d.home.join("global");
    let screen = Screen::chat(&d.home, &["--global"]);
    screen.wait_for("Ask anything");

    screen.submit("write them");
    let asking = screen.wait_for("Allow write_file");
    assert!(asking.contains("+yes please"), "the diff: {asking}");
    assert!(
        !dir.join("a.txt").exists(),
        "nothing runs before the answer"
    );
    screen.seen();
    screen.keys(&["Down", "Down"]);
    screen.wait_for("› 2. Allow for this session");
    screen.keys(&["Enter"]);
    screen.wait_for("Both written.");
    assert_eq!(
        std::fs::read_to_string(dir.join("a.txt")).unwrap(),
        "yes please\n"
    );
    assert!(dir.join("b.txt").exists());

    // 1 allows once, 3 rejects, Esc rejects.
    for (name, key, runs) in [
        ("one", "1", true),
        ("two", "3", false),
        ("three", "Escape", false),
    ] {
        screen.submit(&format!("make {name}"));
        screen.wait_for(&format!("echo {name} >"));
        screen.seen();
        screen.keys(&[key]);
        screen.wait_for(&format!("Done with {name}."));
        screen.wait_idle();
        assert_eq!(dir.join(format!("{name}.txt")).exists(), runs, "{name}");
    }
    let rejected = tool_result(&server, 6);
    assert!(
        rejected.contains("The user rejected this call"),
        "{rejected}"
    );

    // 4 opens the reason step: the text typed is the reason.
    screen.submit("make four");
    screen.wait_for("echo four >");
    screen.seen();
    screen.keys(&["4"]);
    screen.wait_for("why ›");
    screen.submit("use a temp dir");
    screen.wait_for("Done with four.");
    screen.wait_idle();
    assert!(!dir.join("four.txt").exists());
    assert!(
        tool_result(&server, 10).ends_with("The user said: use a temp dir"),
        "{}",
        tool_result(&server, 10)
    );
    screen.submit("/quit");
    screen.wait_exit();
}

/// Regression (issue 36, item 1): text typed while the turn streamed stayed
/// in the editor when the prompt opened, and the Enter meant to send it
/// allowed the call. Typed ahead, it is sent as guidance and answers nothing;
/// an Enter with nothing selected answers nothing; a selection made in the
/// prompt, then Enter, does.
#[test]
fn an_enter_typed_ahead_sends_the_draft_and_never_allows() {
    let server = ProviderServer::start().unwrap();
    // The model takes a while to ask: the user types meanwhile.
    server.enqueue(
        Reply::new()
            .tool_call("t1", "bash", r#"{"command":"echo ran > ran.txt"}"#)
            .header_delay(std::time::Duration::from_millis(1500)),
    );
    server.enqueue(Reply::plain("Ran it, and noted your remark."));
    let d = asking_daemon(&server);
    let ran = d.home.join("global").join("ran.txt");
    let screen = Screen::chat(&d.home, &["--global"]);
    screen.wait_for("Ask anything");
    screen.submit("run the thing");
    screen.wait_for("run the thing");
    screen.type_text("also check the docs");
    let asking = screen.wait_for("Allow bash");
    // The Enter meant for the draft, at once (typed ahead) or a little later.
    screen.keys(&["Enter"]);
    let after = screen.wait("the draft sent as guidance", |s| {
        !s.lines().any(|l| l.contains("› also check the docs")) && s.contains("also check the docs")
    });
    assert!(
        after.contains("Allow bash"),
        "the prompt stays: {asking}\n{after}"
    );
    assert!(!ran.exists(), "typed-ahead Enter ran the call");
    // Seen, nothing selected: Enter says how to choose, and answers nothing.
    screen.seen();
    screen.keys(&["Enter"]);
    let hint = screen.wait_for("choose first");
    assert!(hint.contains("Allow bash"), "{hint}");
    assert!(!ran.exists());
    // A deliberate choice runs it; the guidance reached the model.
    screen.keys(&["Down"]);
    screen.wait_for("› 1. Allow once");
    screen.keys(&["Enter"]);
    screen.wait_for("Ran it, and noted your remark.");
    screen.wait_idle();
    assert!(ran.exists());
    let requests = server.wait_requests(2, WAIT).unwrap();
    assert!(
        requests[1].body.to_string().contains("also check the docs"),
        "{}",
        requests[1].body
    );
    screen.submit("/quit");
    screen.wait_exit();
}
