//! Attention signals (docs/attention.md): `ui.statusLine.command`'s line
//! under the prompt (the session's state on its stdin; a slow or failing
//! command never holds up typing; config edits apply live), and `ui.notify`'s
//! bell or OSC 9 only while the terminal is not focused (focus reports sent
//! as the terminal sends them: `CSI O` lost, `CSI I` gained).

use std::path::{Path, PathBuf};

use seekclaw_testkit::{DaemonProcess, ProviderServer, Reply, StartOptions};
use serde_json::{Value, json};

use crate::support::screen::{Screen, WAIT, known_project, session_of};
use crate::support::turns::setup;

fn daemon(server: &ProviderServer, extra: Value) -> DaemonProcess {
    setup(
        server,
        StartOptions {
            config: Some(extra),
            ..StartOptions::default()
        },
    )
}

/// Rewrites `config.json`'s `ui` (as an editor would: beside, then renamed over).
fn set_ui(home: &Path, ui: Value) {
    let path = home.join("config.json");
    let mut config: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    config["ui"] = ui;
    let tmp = home.join(".config.json.edit");
    std::fs::write(&tmp, serde_json::to_vec_pretty(&config).unwrap()).unwrap();
    std::fs::rename(tmp, path).unwrap();
}

/// The row above the status bar.
fn user_row(screen: &str) -> String {
    let rows: Vec<&str> = screen.lines().collect();
    rows[rows.len().saturating_sub(2)].to_string()
}

#[test]
fn the_status_line_command_reads_the_state_and_its_line_shows_under_the_prompt() {
    let server = ProviderServer::start().unwrap();
    server.enqueue(Reply::plain("the answer").usage(120, 0, 30));
    let record = tempfile::tempdir().unwrap();
    let inputs = record.path().join("inputs.jsonl");
    let script = record.path().join("line.sh");
    // Each run's stdin on a line of its own; the line shows its input tokens.
    std::fs::write(
        &script,
        format!(
            "input=$(cat)\nprintf '%s\\n' \"$input\" >> '{}'\n\
             printf 'SL %s\\033[1m bold\\033[0m\\tend\\nsecond line\\n' \
             \"$(printf '%s' \"$input\" | grep -o '\"input\":[0-9]*')\"\n",
            inputs.display()
        ),
    )
    .unwrap();
    let command = format!("sh '{}'", script.display());
    let d = daemon(&server, json!({"ui": {"statusLine": {"command": command}}}));
    let (_dir, project) = known_project(&d, "attn");
    // A repository on a branch of its own.
    std::fs::create_dir_all(project.join(".git")).unwrap();
    std::fs::write(project.join(".git/HEAD"), "ref: refs/heads/feature-x\n").unwrap();
    let screen = Screen::start(&d.home, Some(&project), &["chat"]);
    let first = screen.wait_for("SL \"input\":0");
    let row = user_row(&first);
    assert!(
        row.starts_with("SL \"input\":0 bold end"),
        "the first line, escapes and controls gone: {first}"
    );
    assert!(!first.contains("second line"), "{first}");
    assert!(first.lines().last().unwrap().contains("idle"), "{first}");

    screen.submit("hello");
    let done = screen.wait("the line after the turn", |s| {
        s.contains("the answer") && s.contains("SL \"input\":120")
    });
    let sid = session_of(&screen.wait_idle());
    let last = screen.wait("the idle state's run", |_| {
        last_input(&inputs).is_some_and(|v| v["state"] == "idle" && v["session"] == sid.as_str())
    });
    drop(last);
    let v = last_input(&inputs).unwrap();
    assert_eq!(v["model"], "tk/m1", "{v}");
    assert_eq!(v["tokens"], json!({"input": 120, "output": 30}), "{v}");
    assert_eq!(v["context"], json!({"used": 150, "window": 128000}), "{v}");
    assert!(v["cost"].as_object().unwrap().contains_key("usd"), "{v}");
    assert_eq!(v["budget"], Value::Null, "{v}");
    assert_eq!(v["branch"], "feature-x", "{v}");
    let workspace = PathBuf::from(v["workspace"].as_str().unwrap());
    assert_eq!(
        workspace.canonicalize().unwrap(),
        project.canonicalize().unwrap(),
        "{v}"
    );
    assert!(v["mode"].is_string(), "{v}");
    assert!(done.lines().last().unwrap().contains("tk/m1"), "{done}");

    // A new command applies without a restart; none removes the row.
    set_ui(
        &d.home,
        json!({"statusLine": {"command": "echo second command"}}),
    );
    screen.wait("the new command's line", |s| {
        user_row(s).starts_with("second command")
    });
    set_ui(&d.home, json!({}));
    screen.wait("the row gone", |s| !s.contains("second command"));
    screen.submit("/quit");
    screen.wait_exit();
}

/// The last run's stdin, as JSON.
fn last_input(path: &Path) -> Option<Value> {
    let text = std::fs::read_to_string(path).ok()?;
    serde_json::from_str(text.lines().last()?).ok()
}

#[test]
fn a_slow_or_failing_status_line_command_never_holds_up_the_chat() {
    let server = ProviderServer::start().unwrap();
    server.enqueue(Reply::plain("still answering"));
    let d = daemon(
        &server,
        json!({"ui": {"statusLine": {"command": "sleep 5; echo late"}}}),
    );
    let screen = Screen::chat(&d.home, &["--global"]);
    screen.wait_for("Ask anything");
    // Typed while the command sleeps: echoed before its run is given up on.
    screen.type_text("typed at once");
    let typed = screen.wait_for("typed at once");
    assert!(!typed.contains("no answer within"), "{typed}");
    assert!(!typed.contains("late"), "{typed}");
    screen.keys(&["C-u"]);
    let gave_up = screen.wait_for("status line: no answer within 3 s");
    assert!(!gave_up.contains("late"), "{gave_up}");

    // A failing one says why, dimmed, in the same row; turns go on.
    set_ui(
        &d.home,
        json!({"statusLine": {"command": "echo 'no such thing' >&2; exit 7"}}),
    );
    screen.wait_for("status line: exit 7: no such thing");
    screen.submit("go on");
    screen.wait_for("still answering");
    screen.wait_idle();
    screen.submit("/quit");
    screen.wait_exit();
}

/// A tmux pane's output, as the program wrote it.
struct Tap {
    file: PathBuf,
    _dir: tempfile::TempDir,
}

impl Tap {
    fn on(screen: &Screen) -> Tap {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("pane.out");
        std::fs::write(&file, b"").unwrap();
        screen.tmux(&[
            "pipe-pane",
            "-t",
            "main",
            "-O",
            &format!("cat >> '{}'", file.display()),
        ]);
        Tap { file, _dir: dir }
    }

    fn bytes(&self) -> Vec<u8> {
        std::fs::read(&self.file).unwrap_or_default()
    }

    fn count(&self, needle: &[u8]) -> usize {
        self.bytes()
            .windows(needle.len())
            .filter(|w| *w == needle)
            .count()
    }

    /// Waits until `needle` was written `n` times.
    fn wait_count(&self, needle: &[u8], n: usize) {
        let start = std::time::Instant::now();
        while self.count(needle) < n {
            assert!(
                start.elapsed() < WAIT,
                "{} of {needle:?} written, waited for {n}",
                self.count(needle)
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }
}

fn focus_lost(screen: &Screen) {
    screen.tmux(&["send-keys", "-t", "main", "-H", "1b", "5b", "4f"]);
}

fn focus_gained(screen: &Screen) {
    screen.tmux(&["send-keys", "-t", "main", "-H", "1b", "5b", "49"]);
}

/// A turn whose bash call waits for `gate` to exist, then answers `answer`.
fn gated_turn(server: &ProviderServer, id: &str, gate: &Path, answer: &str) {
    let command = format!(
        "while [ ! -e '{}' ]; do sleep 0.05; done; echo through",
        gate.display()
    );
    server.enqueue(Reply::new().tool_call(id, "bash", json!({"command": command}).to_string()));
    server.enqueue(Reply::plain(answer));
}

#[test]
fn the_bell_rings_at_a_turns_end_only_while_the_terminal_is_not_focused() {
    let server = ProviderServer::start().unwrap();
    let gates = tempfile::tempdir().unwrap();
    let gate = |n: u32| gates.path().join(format!("go{n}"));
    server.enqueue(Reply::plain("focused answer"));
    gated_turn(&server, "g2", &gate(2), "away answer");
    gated_turn(&server, "g3", &gate(3), "back answer");
    gated_turn(&server, "g4", &gate(4), "away again");
    // `bell` is the default.
    let d = daemon(&server, json!({}));
    // The pane outlives the chat: what it wrote last is read too.
    let screen = Screen::start_then(
        &d.home,
        None,
        &["chat", "--global"],
        "; echo '[ended]'; sleep 60",
    );
    screen.wait_for("Ask anything");
    let tap = Tap::on(&screen);

    // Focused: no bell.
    screen.submit("one");
    screen.wait_for("focused answer");
    screen.wait_idle();

    // Away while the turn runs: its end rings.
    // (The turn waits on its gate, so the report is read before it ends.)
    screen.submit("two");
    focus_lost(&screen);
    screen.seen();
    std::fs::write(gate(2), "").unwrap();
    screen.wait_for("away answer");
    tap.wait_count(b"\x07", 1);

    // Away and back before the end: no bell.
    screen.submit("three");
    focus_lost(&screen);
    focus_gained(&screen);
    screen.seen();
    std::fs::write(gate(3), "").unwrap();
    screen.wait_for("back answer");
    screen.wait_idle();

    // Away again: a second bell, and only the second (the focused turns
    // before it, written earlier, rang none).
    screen.submit("four");
    focus_lost(&screen);
    screen.seen();
    std::fs::write(gate(4), "").unwrap();
    screen.wait_for("away again");
    tap.wait_count(b"\x07", 2);
    screen.wait_idle();
    assert_eq!(tap.count(b"\x07"), 2);
    screen.submit("/quit");
    screen.wait_for("[ended]");
    // Focus reports are turned off again on the way out.
    let out = tap.bytes();
    assert!(
        out.windows(8).any(|w| w == b"\x1b[?1004l"),
        "focus reporting restored"
    );
}

#[test]
fn an_approval_waiting_while_away_sends_osc9_through_tmux() {
    let server = ProviderServer::start().unwrap();
    // The call comes a moment after the prompt: the focus report is read first.
    server.enqueue(
        Reply::new()
            .header_delay(std::time::Duration::from_millis(1500))
            .tool_call("a1", "bash", r#"{"command":"rm -rf build"}"#),
    );
    server.enqueue(Reply::plain("ran it"));
    let d = daemon(
        &server,
        json!({"agent": {"approvalPolicy": "on-request"}, "ui": {"notify": "osc9"}}),
    );
    let screen = Screen::chat(&d.home, &["--global"]);
    screen.wait_for("Ask anything");
    let tap = Tap::on(&screen);
    screen.submit("run it");
    focus_lost(&screen);
    screen.wait_for("Allow bash");
    // Inside tmux the OSC goes through its passthrough wrapper.
    let osc = b"\x1bPtmux;\x1b\x1b]9;seekclaw: Waiting for your approval: bash\x07\x1b\\";
    tap.wait_count(osc, 1);
    // Answering is being here: the turn's end that follows is not signalled.
    screen.seen();
    screen.keys(&["1"]);
    screen.wait_for("ran it");
    screen.wait_idle();
    assert_eq!(tap.count(b"]9;"), 1);
    assert_eq!(
        tap.count(b"\x07"),
        1,
        "no bell besides the OSC's terminator"
    );
    screen.submit("/quit");
    screen.wait_exit();
}
