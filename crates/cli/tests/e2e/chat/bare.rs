//! `seekclaw` without a command takes every `chat` flag and a first prompt
//! (`seekclaw --continue`, `seekclaw --global "…"`); a one-word typo of a
//! command is not sent to a model. Quitting the chat says how to resume its
//! session, and the `/sessions` picker nests subagents' sessions.

use std::process::{Command, Output};

use seekclaw_testkit::{ProviderServer, Reply, StartOptions};

use crate::support::bin;
use crate::support::screen::{Screen, row, session_of};
use crate::support::turns::setup;

fn seekclaw(home: &std::path::Path, args: &[&str]) -> Output {
    Command::new(bin())
        .args(args)
        .env("SEEKCLAW_HOME", home)
        .current_dir(home)
        .output()
        .unwrap()
}

#[test]
fn the_bare_command_takes_the_chats_flags_and_a_first_prompt() {
    let server = ProviderServer::start().unwrap();
    server.enqueue(Reply::plain("first answer"));
    server.enqueue(Reply::plain("second answer"));
    let d = setup(&server, StartOptions::default());
    // `seekclaw --global "prompt"`, piped: the answer.
    let out = seekclaw(&d.home, &["--global", "say something"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "first answer\n");
    // `seekclaw --global --continue "…"`: the same session goes on.
    let out = seekclaw(&d.home, &["--global", "--continue", "and then?"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "second answer\n");
    let second = server.requests()[1].body.to_string();
    assert!(
        second.contains("say something") && second.contains("first answer"),
        "the second turn continued the first: {second}"
    );
    // `-c` is `--continue`; without a prompt and a terminal, the chat's
    // own error (not a usage error).
    let out = seekclaw(&d.home, &["-c", "--global"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("stdout is not a terminal"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A mistyped command is refused, not sent to the model.
    let before = server.requests().len();
    let out = seekclaw(&d.home, &["sesions"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("unknown command `sesions` (did you mean `seekclaw sessions`?)"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(server.requests().len(), before);
    // The help says it.
    let help = String::from_utf8_lossy(&seekclaw(&d.home, &["--help"]).stdout).into_owned();
    assert!(
        help.contains("Usage: seekclaw [OPTIONS] [PROMPT]") && help.contains("--continue"),
        "{help}"
    );
}

/// The screen with wrapped lines joined (a hint is longer than the 100 columns).
fn unwrapped(screen: &Screen) -> String {
    screen.tmux(&["capture-pane", "-p", "-J", "-t", "main"])
}

#[test]
fn quitting_the_chat_says_how_to_resume_its_session() {
    let server = ProviderServer::start().unwrap();
    server.enqueue(Reply::plain("hint answer"));
    let d = setup(&server, StartOptions::default());
    let tail = "; echo \"[exit $?]\"; sleep 60";
    // A chat that never sent anything made no session: no hint.
    let idle = Screen::start_then(&d.home, None, &["--global"], tail);
    idle.wait_for("Ask anything");
    idle.submit("/quit");
    let done = idle.wait_for("[exit 0]");
    assert!(!done.contains("Resume"), "{done}");

    let screen = Screen::start_then(&d.home, None, &["--global"], tail);
    screen.wait_for("Ask anything");
    screen.submit("hello there");
    let shown = screen.wait_for("hint answer");
    screen.wait_idle();
    let sid = session_of(&shown);
    screen.submit("/quit");
    screen.wait_for("[exit 0]");
    let text = unwrapped(&screen);
    assert!(
        text.contains(&format!(
            "Resume this session with `seekclaw --global --continue` or `seekclaw --global --resume {sid}`."
        )),
        "{text}"
    );
    // The hint works: `seekclaw --global --resume ID` opens it, and quitting
    // it again says the same.
    let again = Screen::start_then(&d.home, None, &["--global", "--resume", &sid], tail);
    again.wait_for("hint answer");
    again.wait_idle();
    again.submit("/quit");
    again.wait_for("[exit 0]");
    let text = unwrapped(&again);
    assert!(text.contains(&format!("--resume {sid}`.")), "{text}");
}

#[test]
fn the_sessions_picker_nests_a_subagents_session_under_its_parent() {
    let server = ProviderServer::start().unwrap();
    server.enqueue(Reply::plain("an older answer"));
    server.enqueue(
        Reply::new()
            .tool_call("call_1", "explore", r#"{"query":"zeta-q"}"#)
            .finish("tool_calls"),
    );
    server.enqueue(Reply::plain("zeta at z.rs:4").when_body_contains("zeta-q"));
    server.enqueue(Reply::plain("found it"));
    let d = setup(&server, StartOptions::default());
    for prompt in ["older question", "look for zeta"] {
        let out = seekclaw(&d.home, &["run", "--global", prompt]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let screen = Screen::start(&d.home, None, &["--global"]);
    screen.wait_for("Ask anything");
    screen.submit("/sessions");
    let picker = screen.wait_for("Sessions · global");
    let child = row(&picker, "zeta-q");
    assert!(child.contains("└ "), "{picker}");
    let lines: Vec<&str> = picker.lines().collect();
    let at = |text: &str| lines.iter().position(|l| l.contains(text)).unwrap();
    assert_eq!(at("zeta-q"), at("look for zeta") + 1, "{picker}");
    assert!(at("older question") > at("zeta-q"), "{picker}");
    assert!(!row(&picker, "look for zeta").contains('└'), "{picker}");
}
