//! The shell sandbox through the real daemon: a scripted model calls `bash`
//! with escape attempts, each refused under the default `workspace-write`;
//! the daemon's `config.json` and socket stay out of reach; the network off
//! means no loopback connect; leftovers die with the turn; `agent.sandbox`
//! and a workspace's setting reach the turn; doctor reports the kernel.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use seekclaw_testkit::{
    DaemonProcess, ProviderServer, Reply, StartOptions, capability_missing, program_missing,
};
use serde_json::{Value, json};

use crate::support::no_sandbox;
use crate::support::turns::{chat, setup};

/// Runs one turn whose model calls `bash` with `command`; returns what the
/// tool answered (the tool message of the model's second request) and the
/// whole turn.
fn bash_turn(
    server: &ProviderServer,
    d: &DaemonProcess,
    params: Value,
    command: &str,
) -> (String, Vec<Value>) {
    let before = server.requests().len();
    let args = json!({ "command": command });
    server.enqueue(Reply::new().tool_call("b1", "bash", args.to_string()));
    server.enqueue(Reply::plain("done"));
    let mut c = d.connect().unwrap();
    let turn = chat(&mut c, params);
    assert_eq!(turn.last().unwrap()["event"], "done", "{turn:?}");
    let requests = server.requests();
    let second = &requests[before + 1].body;
    // The last tool message: earlier turns of the session come before it.
    let tool = second["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rfind(|m| m["role"] == "tool")
        .unwrap()["content"]
        .as_str()
        .unwrap()
        .to_string();
    (tool, turn)
}

struct Dirs {
    _tmp: tempfile::TempDir,
    ws: PathBuf,
    outside: PathBuf,
}

fn dirs() -> Dirs {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    let outside = tmp.path().join("outside");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("existing"), "keep me").unwrap();
    Dirs {
        ws: ws.canonicalize().unwrap(),
        outside: outside.canonicalize().unwrap(),
        _tmp: tmp,
    }
}

fn escape_script(outside: &Path, home: &Path) -> String {
    let (out, home) = (outside.display(), home.display());
    format!(
        r#"
echo in > inside.txt && echo W_IN
echo t > "$TMPDIR/t.txt" && echo W_TMP
echo n > /dev/null && echo W_NULL
echo x > {out}/abs 2>/dev/null && echo ESC_ABS
echo x > ../outside/dotdot 2>/dev/null && echo ESC_DOTDOT
ln -s {out} link && (echo x > link/sym) 2>/dev/null && echo ESC_SYMLINK
echo x > /proc/self/root{out}/proc 2>/dev/null && echo ESC_PROC_ROOT
truncate -s 0 {out}/existing 2>/dev/null && echo ESC_TRUNCATE
cat {home}/config.json 2>/dev/null && echo ESC_READ_CONFIG
cat /proc/self/root{home}/config.json 2>/dev/null && echo ESC_READ_PROC
ln {home}/config.json hard 2>/dev/null && echo ESC_HARDLINK
echo '{{}}' > {home}/config.json 2>/dev/null && echo ESC_WRITE_CONFIG
true
"#
    )
}

#[test]
fn escape_attempts_through_a_turn_are_refused() {
    if no_sandbox() {
        return;
    }
    let server = ProviderServer::start().unwrap();
    let d = setup(&server, StartOptions::default());
    let dirs = dirs();
    let w = dirs.ws.display().to_string();
    let (tool, _) = bash_turn(
        &server,
        &d,
        json!({"message": "try", "workspace": w}),
        &escape_script(&dirs.outside, &d.home),
    );
    for ok in ["W_IN", "W_TMP", "W_NULL"] {
        assert!(tool.contains(ok), "{ok} missing:\n{tool}");
    }
    assert!(!tool.contains("ESC_"), "escaped:\n{tool}");
    assert!(!tool.contains("sk-tk"), "the API key leaked:\n{tool}");
    let names: Vec<_> = std::fs::read_dir(&dirs.outside)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["existing"]);
    let config = std::fs::read_to_string(d.home.join("config.json")).unwrap();
    assert!(config.contains("sk-tk"), "config.json intact");
    // The prompt names the sandbox in effect.
    let system = server.requests()[0].body["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(system.contains("- Sandbox: workspace-write"), "{system}");
}

#[test]
fn the_daemon_socket_is_unreachable_from_bash() {
    if no_sandbox() {
        return;
    }
    // python3 speaks to the Unix socket from inside the sandbox.
    if capability_missing("python3", program_missing("python3")) {
        return;
    }
    let server = ProviderServer::start().unwrap();
    let d = setup(&server, StartOptions::default());
    let dirs = dirs();
    // Would ask the daemon for `doctor` if it got through.
    let probe = format!(
        "python3 - <<'EOF' 2>&1\nimport socket\ns = socket.socket(socket.AF_UNIX)\ns.connect({:?})\ns.sendall(b'{{\"id\":1,\"method\":\"doctor\"}}\\n')\nprint('REPLY', s.recv(200))\nEOF\ntrue",
        d.socket.display().to_string()
    );
    let (tool, _) = bash_turn(
        &server,
        &d,
        json!({"message": "talk to the daemon", "workspace": dirs.ws.display().to_string()}),
        &probe,
    );
    assert!(!tool.contains("REPLY"), "reached the daemon:\n{tool}");
    assert!(
        tool.contains("Connection refused")
            || tool.contains("ConnectionRefused")
            || tool.contains("Permission denied")
            || tool.contains("PermissionError"),
        "{tool}"
    );
}

#[test]
fn with_the_network_off_a_loopback_connect_is_refused() {
    if no_sandbox() {
        return;
    }
    let server = ProviderServer::start().unwrap();
    let d = setup(&server, StartOptions::default());
    let dirs = dirs();
    let w = dirs.ws.display().to_string();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let command = format!("(exec 3<>/dev/tcp/127.0.0.1/{port}) 2>&1 && echo CONNECTED; true");
    let mut c = d.connect().unwrap();
    let sid = c
        .ok(
            "session.new",
            json!({"workspace": w, "networkEnabled": false}),
        )
        .unwrap();
    let (tool, _) = bash_turn(
        &server,
        &d,
        json!({"message": "connect", "workspace": w, "sessionId": sid}),
        &command,
    );
    assert!(!tool.contains("CONNECTED"), "{tool}");
    assert!(tool.contains("Permission denied"), "{tool}");
    // The same command in a session with the network on connects (the probe works).
    let sid = c
        .ok(
            "session.new",
            json!({"workspace": w, "networkEnabled": true}),
        )
        .unwrap();
    let (tool, _) = bash_turn(
        &server,
        &d,
        json!({"message": "connect", "workspace": w, "sessionId": sid}),
        &command,
    );
    assert!(tool.contains("CONNECTED"), "{tool}");
}

#[test]
fn a_process_left_behind_dies_with_the_turn() {
    if no_sandbox() {
        return;
    }
    let server = ProviderServer::start().unwrap();
    let d = setup(&server, StartOptions::default());
    let dirs = dirs();
    let (tool, _) = bash_turn(
        &server,
        &d,
        json!({"message": "leave one", "workspace": dirs.ws.display().to_string()}),
        "setsid sleep 60.0444 >/dev/null 2>&1 </dev/null & \
         (sleep 60.0555 >/dev/null 2>&1 </dev/null &); sleep 0.2; echo left",
    );
    assert!(tool.contains("left"), "{tool}");
    // The turn is over (`done` came): nothing it started is left.
    let start = Instant::now();
    while [pids("sleep 60.0444"), pids("sleep 60.0555")]
        .iter()
        .any(|p| !p.is_empty())
    {
        assert!(
            start.elapsed() < Duration::from_secs(3),
            "a process outlived its turn"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Live processes whose command line is `marker`.
fn pids(marker: &str) -> Vec<u32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| {
            let pid: u32 = e.file_name().to_str()?.parse().ok()?;
            let cmdline = std::fs::read(e.path().join("cmdline")).ok()?;
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            let stat = std::fs::read_to_string(e.path().join("stat")).ok()?;
            let zombie = stat
                .rsplit(')')
                .next()
                .unwrap_or("")
                .trim_start()
                .starts_with('Z');
            (cmdline.trim() == marker && !zombie).then_some(pid)
        })
        .collect()
}

#[test]
fn the_setting_reaches_turns_and_a_workspace_only_tightens_it() {
    if no_sandbox() {
        return;
    }
    let server = ProviderServer::start().unwrap();
    let d = setup(
        &server,
        StartOptions {
            config: Some(json!({"agent": {"sandbox": "off"}})),
            ..StartOptions::default()
        },
    );
    let dirs = dirs();
    let w = dirs.ws.display().to_string();
    let target = dirs.outside.join("written");
    let command = format!(
        "echo x > {} && echo WROTE_OUTSIDE; echo y > inside.txt && echo WROTE_INSIDE; true",
        target.display()
    );
    // Off: the daemon's rights.
    let (tool, _) = bash_turn(
        &server,
        &d,
        json!({"message": "a", "workspace": w}),
        &command,
    );
    assert!(tool.contains("WROTE_OUTSIDE"), "{tool}");
    std::fs::remove_file(&target).unwrap();
    // A workspace asking for read-only gets it.
    let meta = dirs.ws.join(".seekclaw");
    std::fs::create_dir_all(&meta).unwrap();
    std::fs::write(meta.join("config.json"), r#"{"sandbox":"read-only"}"#).unwrap();
    let (tool, _) = bash_turn(
        &server,
        &d,
        json!({"message": "b", "workspace": w}),
        &command,
    );
    assert!(
        !tool.contains("WROTE_OUTSIDE") && !tool.contains("WROTE_INSIDE"),
        "{tool}"
    );
    assert!(!target.exists());
    let system = server.requests().last().unwrap().body["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(system.contains("- Sandbox: read-only"), "{system}");
}

#[test]
fn a_workspace_cannot_loosen_the_sandbox() {
    if no_sandbox() {
        return;
    }
    let server = ProviderServer::start().unwrap();
    let d = setup(&server, StartOptions::default());
    let dirs = dirs();
    let w = dirs.ws.display().to_string();
    // The sandboxed shell may write this file; it must not lift its own sandbox.
    let meta = dirs.ws.join(".seekclaw");
    std::fs::create_dir_all(&meta).unwrap();
    std::fs::write(meta.join("config.json"), r#"{"sandbox":"off"}"#).unwrap();
    let target = dirs.outside.join("written");
    let command = format!("echo x > {} && echo WROTE_OUTSIDE; true", target.display());
    let (tool, _) = bash_turn(
        &server,
        &d,
        json!({"message": "a", "workspace": w}),
        &command,
    );
    assert!(!tool.contains("WROTE_OUTSIDE"), "{tool}");
    assert!(!target.exists());
}

#[test]
fn doctor_reports_the_sandbox() {
    let server = ProviderServer::start().unwrap();
    let d = setup(&server, StartOptions::default());
    let mut c = d.connect().unwrap();
    let text = c.ok("doctor", json!({})).unwrap();
    let line = text
        .lines()
        .find(|l| l.contains("Shell Sandbox"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(line.contains("agent.sandbox = workspace-write"), "{line}");
    assert!(line.contains("Landlock"), "{line}");
    let missing = seekclaw_tools::SandboxSupport::probe_cheap().missing();
    assert!(
        missing.is_none() || !seekclaw_testkit::required("sandbox"),
        "SEEKCLAW_TEST_REQUIRE names `sandbox`, but it is missing: {missing:?}"
    );
    if missing.is_none() {
        assert!(
            line.starts_with("[OK]") && line.contains("enforced"),
            "{line}"
        );
    } else {
        assert!(line.starts_with("[FAIL]"), "{line}");
    }
}
