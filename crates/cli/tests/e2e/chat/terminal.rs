//! The chat screen as a whole: streaming and tool rows, steer and cancel,
//! sessions and resize, no terminal, a killed daemon, commands, live turns of
//! other clients, shell context and scrolling.

use std::process::Command;
use std::time::Duration;

use seekclaw_testkit::{DaemonProcess, ProviderServer, Reply, StartOptions};
use serde_json::json;

use crate::support::bin;
use crate::support::screen::{Screen, WAIT, known_project, row, session_of};
use crate::support::turns::setup;

#[test]
fn chat_streams_markdown_and_tool_rows_go_from_running_to_done_with_diffs() {
    let server = ProviderServer::start().unwrap();
    server.enqueue(Reply::new().tool_call(
        "c1",
        "bash",
        json!({"command": "sleep 2; echo slept"}).to_string(),
    ));
    server.enqueue(Reply::new().tool_call(
        "c2",
        "write_file",
        r#"{"path":"notes.txt","content":"hello tui\n"}"#,
    ));
    server.enqueue(
        Reply::new()
            .text("Here is **bold** and `inline`.\n\n")
            .text("```rust\nlet answer = 42;\n```\n\n- 你好 🎉 item\n\n")
            .text("| key | value |\n|---|---|\n| alpha | 1 |\n")
            .usage(120, 0, 30),
    );
    let d = setup(&server, StartOptions::default());
    let screen = Screen::chat(&d.home, &["--global"]);
    screen.wait_for("Ask anything");
    screen.submit("do the thing");

    // The tool row shows while the command sleeps, without a result mark.
    let running = screen.wait_for("bash");
    let bash = row(&running, "bash");
    assert!(!bash.contains('✓') && !bash.contains('✗'), "{running}");
    assert!(bash.contains("sleep 2"), "the summary: {running}");

    // The text can show a frame before the turn's end does.
    let done = screen.wait("the answer and the turn's end", |s| {
        s.contains("Here is bold and inline.")
            && s.lines().last().is_some_and(|l| l.contains("idle"))
    });
    assert!(row(&done, "bash").contains("✓ bash"), "{done}");
    assert!(row(&done, "bash").contains(" s)"), "a duration: {done}");
    assert!(row(&done, "write_file").contains('✓'), "{done}");
    assert!(done.contains("+hello tui"), "the diff: {done}");
    assert!(!done.contains("**"), "Markdown markers are gone: {done}");
    assert!(
        row(&done, "let answer = 42;").starts_with("  let"),
        "{done}"
    );
    assert!(row(&done, "item").contains("• 你好 🎉 item"), "{done}");
    assert!(row(&done, "alpha").contains("alpha │ 1"), "a table: {done}");
    let status = done.lines().last().unwrap();
    assert!(status.contains("tk/m1"), "{status}");
    assert!(status.contains("↑120 ↓30"), "{status}");
    assert!(status.contains("idle"), "{status}");
    screen.submit("/quit");
    screen.wait_exit();
}

#[test]
fn enter_mid_turn_steers_and_ctrl_c_cancels_keeping_the_partial_answer() {
    let server = ProviderServer::start().unwrap();
    let mut first = Reply::new().chunk_delay(Duration::from_millis(100));
    for i in 0..20 {
        first = first.text(format!("part{i} "));
    }
    let mut second = Reply::new().chunk_delay(Duration::from_millis(100));
    for i in 0..60 {
        second = second.text(format!("more{i} "));
    }
    server.enqueue(first);
    server.enqueue(second);
    let d = setup(&server, StartOptions::default());
    let screen = Screen::chat(&d.home, &["--global"]);
    screen.wait_for("Ask anything");
    screen.submit("start");
    screen.wait_for("part1");
    screen.submit("use tabs please");
    let pending = screen.wait_for("steer (pending): use tabs please");
    assert!(pending.contains("running"), "{pending}");

    // The turn takes the guidance in: the next model request carries it.
    let committed = screen.wait_for("↳ use tabs please");
    assert!(!committed.contains("(pending)"), "{committed}");
    let requests = server.wait_requests(2, WAIT).unwrap();
    assert!(requests[1].raw_body.contains("use tabs please"));

    screen.wait_for("more3");
    screen.keys(&["C-c"]);
    let cancelled = screen.wait_for("(cancelled)");
    assert!(
        cancelled.contains("part19"),
        "the first answer stays: {cancelled}"
    );
    assert!(
        cancelled.contains("more3"),
        "the partial answer stays: {cancelled}"
    );
    assert!(!cancelled.contains("more59"), "{cancelled}");
    assert!(cancelled.lines().last().unwrap().contains("idle"));

    // Ctrl-C twice on the idle empty prompt quits.
    screen.keys(&["C-c"]);
    screen.wait_for("Press Ctrl-C again to quit");
    screen.keys(&["C-c"]);
    screen.wait_exit();
}

#[test]
fn new_sessions_resume_and_a_resize_reflows() {
    let server = ProviderServer::start().unwrap();
    let words: Vec<String> = (1..=40).map(|i| format!("w{i:02}")).collect();
    server.enqueue(Reply::plain(words.join(" ")));
    server.enqueue(Reply::plain("second answer"));
    let d = setup(&server, StartOptions::default());
    let screen = Screen::chat(&d.home, &["--global"]);
    screen.wait_for("Ask anything");
    screen.submit("first question");
    let wide = screen.wait_for("w40");
    // 25 four-column words fill the 100 columns.
    assert!(row(&wide, "w01").contains("w25"), "{wide}");
    assert!(row(&wide, "w40").starts_with("w26"), "{wide}");
    let first_sid = session_of(&wide);

    screen.tmux(&["resize-window", "-t", "main", "-x", "60", "-y", "30"]);
    let narrow = screen.wait("the reflow", |s| s.lines().any(|l| l.starts_with("w16")));
    assert!(!row(&narrow, "w01").contains("w16"), "{narrow}");
    assert!(narrow.lines().all(|l| l.chars().count() <= 60), "{narrow}");

    screen.submit("/new");
    let fresh = screen.wait_for("New session");
    assert!(
        !fresh.contains("w01"),
        "the old conversation is gone: {fresh}"
    );
    let second_sid = session_of(&fresh);
    assert_ne!(first_sid, second_sid);
    screen.submit("another question");
    screen.wait_for("second answer");
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert!(
        !requests[1].raw_body.contains("first question"),
        "the new session starts empty"
    );

    screen.submit("/sessions");
    let list = screen.wait_for("Sessions · global");
    assert!(
        list.contains(&first_sid) && list.contains(&second_sid),
        "{list}"
    );
    screen.keys(&["Escape"]);
    screen.wait("the picker closes", |s| !s.contains("Sessions ·"));
    screen.submit(&format!("/resume {first_sid}"));
    let resumed = screen.wait(&format!("session {first_sid}"), |s| {
        s.lines().last().unwrap_or_default().contains(&first_sid)
    });
    assert!(resumed.contains("› first question"), "{resumed}");
    assert!(resumed.contains("w40"), "{resumed}");
    assert!(!resumed.contains("second answer"), "{resumed}");
    screen.submit("/quit");
    screen.wait_exit();

    // --continue opens the latest session of the scope.
    let again = Screen::chat(&d.home, &["--global", "--continue"]);
    let shown = again.wait_for("second answer");
    assert!(
        shown.lines().last().unwrap().contains(&second_sid),
        "{shown}"
    );
    again.submit("/quit");
    again.wait_exit();
}

#[test]
fn chat_without_a_terminal_prints_the_answer() {
    let server = ProviderServer::start().unwrap();
    server.enqueue(Reply::new().text("piped ").text("answer"));
    let d = setup(&server, StartOptions::default());
    let out = Command::new(bin())
        .args(["chat", "--global", "say it"])
        .env("SEEKCLAW_HOME", &d.home)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "piped answer\n");

    // Ctrl-C (SIGINT) cancels the turn; what streamed so far is printed.
    let mut slow = Reply::new().chunk_delay(Duration::from_millis(100));
    for i in 0..50 {
        slow = slow.text(format!("bit{i} "));
    }
    server.enqueue(slow);
    let mut child = Command::new(bin())
        .args(["chat", "--global", "go slowly"])
        .env("SEEKCLAW_HOME", &d.home)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 4];
    std::io::Read::read_exact(&mut stdout, &mut first).unwrap();
    assert_eq!(&first, b"bit0");
    // SAFETY: a signal to the child this test spawned.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stdout, &mut rest).unwrap();
    let status = child.wait().unwrap();
    assert!(!status.success());
    assert!(rest.ends_with('\n') && !rest.contains("bit49"), "{rest}");
    let mut c = d.connect().unwrap();
    assert_eq!(c.request("ping", json!({})).unwrap()["event"], "pong");

    let out = Command::new(bin())
        .args(["chat", "--global"])
        .env("SEEKCLAW_HOME", &d.home)
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("stdout is not a terminal"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_killed_daemon_is_survived_and_nothing_typed_is_lost() {
    let server = ProviderServer::start().unwrap();
    server.enqueue(Reply::plain("before the crash"));
    server.enqueue(Reply::plain("after the restart"));
    let mut d = setup(&server, StartOptions::default());
    let _home_dir = d.take_tempdir();
    let home = d.home.clone();
    let screen = Screen::chat(&home, &["--global"]);
    screen.wait_for("Ask anything");
    screen.submit("one");
    let before = screen.wait_for("before the crash");
    let sid = session_of(&before);
    screen.type_text("half typed");
    // The chat has it (echoed) before the daemon dies.
    screen.wait_for("› half typed");
    d.kill9().unwrap();
    let _d2 = DaemonProcess::spawn(bin(), &home, &StartOptions::default()).unwrap();
    let after = screen.wait_for("Reconnected to the daemon.");
    assert!(after.contains("› one"), "reloaded from the store: {after}");
    assert!(after.contains("before the crash"), "{after}");
    assert!(
        after.contains("› half typed"),
        "the prompt is kept: {after}"
    );
    assert_eq!(session_of(&after), sid);
    screen.type_text(" now");
    screen.keys(&["Enter"]);
    screen.wait_for("after the restart");
    let requests = server.requests();
    assert!(
        requests[1].raw_body.contains("before the crash"),
        "same session"
    );
    assert!(requests[1].raw_body.contains("half typed now"));
    screen.submit("/quit");
    screen.wait_exit();
}

#[test]
fn bare_seekclaw_is_chat_in_the_current_project_and_pgup_scrolls_back() {
    let server = ProviderServer::start().unwrap();
    let items: Vec<String> = (1..=80).map(|i| format!("- line{i:02}")).collect();
    server.enqueue(Reply::plain(items.join("\n")));
    let d = setup(&server, StartOptions::default());
    let (_dir, project) = known_project(&d, "proj");
    let screen = Screen::start(&d.home, Some(&project), &[]);
    screen.wait_for("Ask anything");
    screen.submit("list them");
    let bottom = screen.wait_for("line80");
    assert!(!bottom.contains("line01"), "{bottom}");

    screen.keys(&["PPage"]);
    let up = screen.wait("a page up", |s| !s.contains("line80"));
    assert!(up.lines().last().unwrap().contains("scrolled"), "{up}");
    screen.keys(&["PPage", "PPage", "PPage", "PPage"]);
    let top = screen.wait_for("› list them");
    assert!(top.contains("line01"), "{top}");
    screen.keys(&["NPage", "NPage", "NPage", "NPage", "NPage"]);
    let back = screen.wait_for("line80");
    assert!(!back.lines().last().unwrap().contains("scrolled"), "{back}");

    // The session is the project's.
    let mut c = d.connect().unwrap();
    let list = c
        .ok_json("session.list", json!({"workspace": project}))
        .unwrap();
    assert_eq!(list.as_array().unwrap().len(), 1, "{list}");
    assert_eq!(list[0]["id"].as_str().unwrap(), session_of(&back));
    screen.submit("/quit");
    screen.wait_exit();
}

#[test]
fn reasoning_folds_and_model_mode_compact_and_copy_commands_work() {
    let server = ProviderServer::start().unwrap();
    server.enqueue(
        Reply::new()
            .reasoning("thinking hard\nsecond thought")
            .text("answer **one**"),
    );
    server.enqueue(Reply::plain("the summary text"));
    let d = setup(&server, StartOptions::default());
    let screen = Screen::chat(&d.home, &["--global"]);
    screen.tmux(&["set-option", "-s", "set-clipboard", "on"]);
    screen.wait_for("Ask anything");
    screen.submit("think");
    let shown = screen.wait_for("answer one");
    assert!(shown.contains("thinking hard"), "{shown}");
    screen.keys(&["C-t"]);
    let folded = screen.wait_for("▸ reasoning, 2 lines (Ctrl-T shows)");
    assert!(!folded.contains("thinking hard"), "{folded}");

    screen.submit("/copy");
    screen.wait_for("Copied the last answer (14 chars).");
    assert_eq!(screen.tmux(&["show-buffer"]), "answer **one**");

    screen.submit("/model");
    let models = screen.wait_for("Models");
    assert!(models.contains("› tk/m1  default"), "{models}");
    assert!(models.contains("  tk/eyes"), "{models}");
    // Typing on before the picker closes would read as Alt-keys.
    screen.keys(&["Escape"]);
    screen.wait("the picker closes", |s| !s.contains("┌ Models"));
    screen.submit("/model tk/eyes");
    screen.wait_for("This session now uses tk/eyes");

    screen.submit("/mode readonly");
    screen.wait_for("Mode: readonly");
    screen.submit("/mode");
    screen.wait_for("Mode: readonly (/mode");

    screen.submit("/compact");
    let compacted = screen.wait_for("the summary text");
    assert!(compacted.contains("Compacted; the next turn starts from this summary:"));
    screen.submit("/quit");
    screen.wait_exit();
}

#[test]
fn goal_reasoning_mcp_usage_and_doctor_commands_reach_the_daemon() {
    let server = ProviderServer::start().unwrap();
    server.enqueue(Reply::new().text("counted").usage(100, 0, 10));
    let d = setup(&server, StartOptions::default());
    let screen = Screen::chat(&d.home, &["--global"]);
    screen.wait_for("Ask anything");
    screen.submit("/goal ship the release");
    screen.wait_for("Goal: ship the release");
    let sid = session_of(&screen.capture());
    let mut c = d.connect().unwrap();
    let goal = c
        .ok_json("goal.get", json!({"id": sid, "global": true}))
        .unwrap();
    assert_eq!(goal["goal"], "ship the release");
    screen.submit("/goal clear");
    screen.wait_for("No goal set");
    screen.submit("/reasoning HIGH");
    screen.wait_for("Reasoning level: high");
    let header = c
        .ok_json("session.get", json!({"id": sid, "global": true}))
        .unwrap();
    assert_eq!(header["reasoningLevel"], "high");

    screen.submit("count");
    screen.wait_for("counted");
    screen.submit("/usage");
    let usage = screen.wait_for("Usage, all time:");
    assert!(
        row(&usage, "tk/m1").contains("1 calls (0 failed), 100 in, 10 out"),
        "{usage}"
    );
    screen.submit("/mcp");
    screen.wait_for("No MCP servers configured.");
    screen.submit("/doctor");
    let doctor = screen.wait_for("[OK]");
    assert!(doctor.contains("tk"), "{doctor}");
    screen.submit("/quit");
    screen.wait_exit();
}

/// `session.watch` in the UI: a turn another client runs on the open session
/// shows as it streams, also when the UI opens the session mid-turn; the
/// UI's own turns are not shown twice.
#[test]
fn turns_of_other_clients_on_the_open_session_show_live() {
    let server = ProviderServer::start().unwrap();
    let d = setup(&server, StartOptions::default());
    let mut other = d.connect().unwrap();
    server.enqueue(Reply::plain("first answer"));
    let first =
        crate::support::turns::chat(&mut other, json!({"message": "hello", "global": true}));
    let sid = first.last().unwrap()["sessionId"]
        .as_str()
        .unwrap()
        .to_string();
    let screen = Screen::chat(&d.home, &["--global", "--session", &sid]);
    screen.wait_for("first answer");

    let words: Vec<String> = (0..12).map(|i| format!("remote{i:02}")).collect();
    let slow = words.iter().fold(
        Reply::new().chunk_delay(Duration::from_millis(120)),
        |r, w| r.text(format!("{w} ")),
    );
    server.enqueue(slow);
    let turn = other
        .send(
            "chat",
            json!({"message": "question from elsewhere", "sessionId": sid, "global": true}),
        )
        .unwrap();
    screen.wait_for("question from elsewhere");
    screen.wait_for("remote03");
    // A second UI opened mid-turn picks the turn up where it is.
    let late = Screen::chat(&d.home, &["--global", "--session", &sid]);
    late.wait_for("remote09");
    let _ = other.collect(turn).unwrap();
    screen.wait_for("remote11");
    late.wait_for("remote11");

    // The UI's own turn shows once.
    server.enqueue(Reply::plain("local answer"));
    screen.submit("local question");
    screen.wait_for("local answer");
    // A window, not an ordering: long enough for the watch's copy of the turn
    // to have arrived too (it must not show twice).
    std::thread::sleep(Duration::from_millis(500));
    let again = screen.capture();
    assert_eq!(again.matches("local answer").count(), 1, "{again}");
    assert_eq!(again.matches("local question").count(), 1, "{again}");
    screen.submit("/quit");
    screen.wait_exit();
    late.submit("/quit");
    late.wait_exit();
}

/// `!cmd` runs here and its output goes with the next message; the mouse
/// wheel scrolls the conversation.
#[test]
fn shell_commands_give_context_and_the_wheel_scrolls() {
    let server = ProviderServer::start().unwrap();
    let items: Vec<String> = (1..=60).map(|i| format!("- item{i:02}")).collect();
    server.enqueue(Reply::plain(items.join("\n")));
    let d = setup(&server, StartOptions::default());
    let (_dir, project) = known_project(&d, "shellproj");
    std::fs::write(project.join("marker.txt"), "").unwrap();
    let screen = Screen::start(&d.home, Some(&project), &["chat"]);
    screen.wait_for("Ask anything");
    screen.submit("!ls; echo shell-said-hi");
    // The typed line shows "shell-said-hi" too: wait for the command's row
    // and its output, not the echo of the keys.
    screen.wait_for("$ ls; echo shell-said-hi");
    let shown = screen.wait_for("marker.txt");
    assert!(
        shown.contains("marker.txt"),
        "it ran in the chat's directory: {shown}"
    );
    screen.submit("what did it say?");
    screen.wait_for("item60");
    screen.wait_idle();
    let body = server.requests()[0].raw_body.clone();
    assert!(body.contains("<user_shell_command>"), "{body}");
    assert!(
        body.contains("shell-said-hi") && body.contains("what did it say?"),
        "{body}"
    );

    // SGR mouse reports: wheel up (64) and down (65).
    screen.type_text("\x1b[<64;10;10M\x1b[<64;10;10M\x1b[<64;10;10M");
    let up = screen.wait("the wheel scrolled up", |s| !s.contains("item60"));
    assert!(up.lines().last().unwrap().contains("scrolled"), "{up}");
    screen.type_text("\x1b[<65;10;10M\x1b[<65;10;10M\x1b[<65;10;10M\x1b[<65;10;10M");
    screen.wait_for("item60");
    screen.wait_idle();
    screen.submit("/quit");
    screen.wait_exit();
}

/// A background job that ends after its turn: the engine logs it for the
/// next turn, and the chat that ran it says so.
#[test]
fn a_job_that_ends_after_the_turn_is_shown_in_the_chat() {
    let server = ProviderServer::start().unwrap();
    server.enqueue(Reply::new().tool_call(
        "b1",
        "bash",
        json!({"command": "sleep 1; echo bgdone", "run_in_background": true}).to_string(),
    ));
    server.enqueue(Reply::plain("started it"));
    let d = setup(&server, StartOptions::default());
    let screen = Screen::chat(&d.home, &["--global"]);
    screen.wait_for("Ask anything");
    screen.submit("start a job");
    screen.wait_for("started it");
    screen.wait_for("background job bg-1 finished (exit=0)");
    screen.wait_idle();
    screen.submit("/quit");
    screen.wait_exit();
}
