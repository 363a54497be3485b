//! Issue 39 in the terminal UI: the approval prompt's "always allow" choice
//! saves the rule (the next identical call is not asked); a trusted
//! workspace's new hook set is shown and asked about before the chat opens
//! (a typed-ahead Enter never answers it); approved hooks run and show as
//! rows, declined ones stay off.

use std::path::Path;

use seekclaw_testkit::{ProviderServer, Reply, StartOptions};
use serde_json::{Value, json};

use crate::support::screen::{Screen, known_project, row};
use crate::support::turns::setup;

const QUESTION: &str = "Run these hooks?";

/// The workspace's own config: a `PreToolUse` hook on Bash that saves its
/// input (Claude Code's shape).
fn write_hooks(project: &Path) {
    let dir = project.join(".seekclaw");
    std::fs::create_dir_all(&dir).unwrap();
    let hooks = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "cat > \"$CLAUDE_PROJECT_DIR/hook-input.json\""}
    ]}]}});
    std::fs::write(dir.join("config.json"), hooks.to_string()).unwrap();
}

/// A turn that runs `echo ran > ran.txt` then answers `answer`.
fn shell_turn(server: &ProviderServer, id: &str, answer: &str) {
    server.enqueue(Reply::new().tool_call(
        id,
        "bash",
        json!({"command": "echo ran > ran.txt"}).to_string(),
    ));
    server.enqueue(Reply::plain(answer));
}

#[test]
fn always_allow_saves_the_rule_and_the_next_identical_call_is_not_asked() {
    let server = ProviderServer::start().unwrap();
    shell_turn(&server, "c1", "First done.");
    shell_turn(&server, "c2", "Second done.");
    let d = setup(
        &server,
        StartOptions {
            // A user with a rule already (see asks39: with none, the engine
            // offers no rule to save yet).
            config: Some(json!({"agent": {"approvalPolicy": "on-request"},
                "permissions": {"deny": ["Bash(rm -rf /:*)"]}})),
            ..StartOptions::default()
        },
    );
    let (_tmp, project) = known_project(&d, "always");
    let screen = Screen::start(&d.home, Some(&project), &["chat"]);
    screen.wait_for("Ask anything");
    screen.submit("write it");
    let asking = screen.wait_for("5. Yes, and always allow");
    let offer = row(&asking, "5. Yes, and always allow");
    assert!(offer.contains("(saved in the workspace config)"), "{offer}");
    let rule = offer
        .split('`')
        .nth(1)
        .unwrap_or_else(|| panic!("no rule in {offer:?}"))
        .to_string();
    assert!(rule.starts_with("Bash("), "{rule}");
    screen.seen();
    screen.keys(&["5"]);
    screen.wait_for("First done.");
    screen.wait_idle();
    assert!(project.join("ran.txt").exists());
    let config = std::fs::read_to_string(project.join(".seekclaw/config.json")).unwrap();
    let config: Value = serde_json::from_str(&config).unwrap();
    let allow = config["permissions"]["allow"].as_array().cloned();
    assert!(
        allow.unwrap_or_default().iter().any(|r| r == &json!(rule)),
        "{config}"
    );

    // The same call again: it runs without a question.
    std::fs::remove_file(project.join("ran.txt")).unwrap();
    screen.submit("write it again");
    let done = screen.wait_for("Second done.");
    assert!(!done.contains("Allow bash"), "{done}");
    assert!(project.join("ran.txt").exists());
    screen.wait_idle();
    screen.submit("/quit");
    screen.wait_exit();
}

#[test]
fn the_hook_set_is_asked_about_typed_ahead_keys_do_not_answer_and_approving_runs_it() {
    let server = ProviderServer::start().unwrap();
    shell_turn(&server, "c1", "Hooked.");
    let d = setup(&server, StartOptions::default());
    let (_tmp, project) = known_project(&d, "hooked");
    write_hooks(&project);
    let screen = Screen::start(&d.home, Some(&project), &["chat"]);
    let asking = screen.wait_for(QUESTION);
    assert!(
        row(&asking, "PreToolUse [Bash]").contains("hook-input.json"),
        "{asking}"
    );
    // "hello" + Enter typed as the chat opened answers nothing; the text is
    // kept for the chat.
    screen.type_text("hello");
    screen.keys(&["Enter"]);
    screen.wait_for("Kept for the chat: hello");
    screen.seen();
    screen.keys(&["Enter"]);
    screen.wait_for("Choose first");
    assert!(screen.capture().contains(QUESTION));
    screen.keys(&["1"]);
    screen.wait_for("Hooks approved: 1 hook will run.");
    screen.wait_for("› hello");
    screen.keys(&["Enter"]);
    let done = screen.wait_for("Hooked.");
    let hook = row(&done, "hook PreToolUse");
    assert!(
        hook.contains("hook-input.json") && hook.contains("exit 0"),
        "{hook}"
    );
    let input: Value =
        serde_json::from_str(&std::fs::read_to_string(project.join("hook-input.json")).unwrap())
            .unwrap();
    assert_eq!(input["hook_event_name"], "PreToolUse");
    assert_eq!(input["tool_input"]["command"], "echo ran > ran.txt");
    screen.wait_idle();
    screen.submit("/quit");
    screen.wait_exit();

    // Approved: the next chat is not asked.
    let again = Screen::start(&d.home, Some(&project), &["chat"]);
    let shown = again.wait_for("Ask anything");
    assert!(!shown.contains(QUESTION), "{shown}");
    again.submit("/quit");
    again.wait_exit();
}

#[test]
fn declining_the_hook_set_keeps_the_hooks_off_and_asks_again_until_approved_with_slash_hooks() {
    let server = ProviderServer::start().unwrap();
    shell_turn(&server, "c1", "Unhooked.");
    shell_turn(&server, "c2", "Hooked now.");
    let d = setup(&server, StartOptions::default());
    let (_tmp, project) = known_project(&d, "declined");
    write_hooks(&project);
    let screen = Screen::start(&d.home, Some(&project), &["chat"]);
    screen.wait_for(QUESTION);
    screen.seen();
    screen.keys(&["2"]);
    screen.wait_for("hooks are off for this chat");
    screen.submit("go");
    let done = screen.wait_for("Unhooked.");
    assert!(!done.contains("hook PreToolUse"), "{done}");
    assert!(project.join("ran.txt").exists(), "the call ran");
    assert!(
        !project.join("hook-input.json").exists(),
        "the hook did not run"
    );
    screen.wait_idle();
    screen.submit("/quit");
    screen.wait_exit();

    // Asked again; declined again, then approved from the chat.
    let again = Screen::start(&d.home, Some(&project), &["chat"]);
    again.wait_for(QUESTION);
    again.seen();
    again.keys(&["2"]);
    again.wait_for("hooks are off for this chat");
    again.submit("/hooks");
    let listed = again.wait_for("`/hooks approve` runs them");
    assert!(
        row(&listed, "PreToolUse [Bash]").contains("PreToolUse [Bash] · workspace · off · cat"),
        "{listed}"
    );
    again.submit("/hooks approve");
    again.wait_for("Approved: the workspace's hooks run from the next turn.");
    again.submit("go again");
    let done = again.wait_for("Hooked now.");
    assert!(row(&done, "hook PreToolUse").contains("exit 0"), "{done}");
    assert!(project.join("hook-input.json").exists(), "the hook ran");
    again.wait_idle();
    again.submit("/quit");
    again.wait_exit();
}

#[test]
fn a_new_session_ends_the_last_with_clear_and_quitting_with_prompt_input_exit() {
    let server = ProviderServer::start().unwrap();
    server.set_default(Reply::plain("Noted."));
    let tmp = tempfile::tempdir().unwrap();
    let log = tmp.path().join("ends.jsonl");
    // Claude Code's SessionEnd logger: one JSON line per ended session.
    let logger = format!("(cat; echo) >> {}", log.display());
    let d = setup(
        &server,
        StartOptions {
            config: Some(
                json!({"hooks": {"importClaude": false, "SessionEnd": [{"hooks": [
                    {"type": "command", "command": logger}
                ]}]}}),
            ),
            ..StartOptions::default()
        },
    );
    let (_tmp, project) = known_project(&d, "ends");
    let screen = Screen::start(&d.home, Some(&project), &["chat"]);
    screen.wait_for("Ask anything");
    screen.submit("first");
    screen.wait_for("Noted.");
    screen.wait_idle();
    screen.submit("/new");
    screen.wait_for("New session");
    screen.submit("second");
    // Its answer is on screen (the turn ended) before the chat quits.
    screen.wait("the second answer", |s| {
        s.split("› second")
            .nth(1)
            .is_some_and(|after| after.contains("Noted."))
    });
    screen.wait_idle();
    screen.submit("/quit");
    screen.wait_exit();
    let ends = || -> Vec<Value> {
        std::fs::read_to_string(&log)
            .unwrap_or_default()
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    seekclaw_testkit::wait_until(
        "two SessionEnd runs",
        std::time::Duration::from_secs(20),
        || ends().len() >= 2,
    );
    let reasons: Vec<String> = ends()
        .iter()
        .map(|e| e["reason"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(reasons, ["clear", "prompt_input_exit"], "{:?}", ends());
    let ids: Vec<Value> = ends().iter().map(|e| e["session_id"].clone()).collect();
    assert_ne!(ids[0], ids[1], "each session ends once");
}
