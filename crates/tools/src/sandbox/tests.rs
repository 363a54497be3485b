//! Real bash under the sandbox, through the `bash` tool: each escape refused,
//! the allowed writes still working.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;

use super::*;
use crate::builtin::BashTool;
use crate::builtin::testing::{Ws, ws};
use crate::tool::{Tool, ToolOutput};

/// Whether the kernel can sandbox; where it cannot, the test skips (saying
/// so), or fails if `SEEKCLAW_TEST_REQUIRE` names `sandbox`.
fn supported() -> bool {
    !seekclaw_testkit::capability_missing("sandbox", SandboxSupport::probe_cheap().missing())
}

/// A workspace whose context is sandboxed, with a fake daemon home (holding
/// a `config.json`) and a directory outside both, all under the temp dir.
struct Fixture {
    w: Ws,
    home: PathBuf,
    outside: PathBuf,
}

fn fixture(mode: SandboxMode, network: bool) -> Fixture {
    let mut w = ws();
    let base = w.root.parent().unwrap().to_path_buf();
    let home = base.join("home");
    let outside = base.join("outside");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(home.join("config.json"), "SECRET-KEY").unwrap();
    std::fs::write(outside.join("existing"), "keep me").unwrap();
    w.ctx.sandbox = Arc::new(SandboxPolicy::new(mode, &w.root, &home, network));
    Fixture { w, home, outside }
}

async fn bash(w: &Ws, command: &str) -> ToolOutput {
    BashTool::new()
        .execute(json!({ "command": command }), &w.ctx)
        .await
}

#[test]
fn the_temp_dir_never_contains_the_home() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let p = SandboxPolicy::new(SandboxMode::WorkspaceWrite, tmp.path(), &home, true);
    let temp = p.writable_temp.unwrap();
    let home = home.canonicalize().unwrap();
    assert!(
        !home.starts_with(&temp) && !temp.starts_with(&home),
        "{temp:?}"
    );
    // A home elsewhere leaves the system temp dir writable.
    let p = SandboxPolicy::new(
        SandboxMode::WorkspaceWrite,
        tmp.path(),
        Path::new("/nonexistent/seekclaw-home"),
        true,
    );
    assert_eq!(
        p.writable_temp.unwrap(),
        std::env::temp_dir().canonicalize().unwrap()
    );
}

#[tokio::test]
async fn escapes_are_refused_and_allowed_writes_work() {
    if !supported() {
        return;
    }
    let f = fixture(SandboxMode::WorkspaceWrite, true);
    let (home, out) = (f.home.display(), f.outside.display());
    let script = format!(
        r#"
echo in > inside.txt && echo W_IN
echo t > "$TMPDIR/t.txt" && echo W_TMP
echo n > /dev/null && echo W_NULL
mkdir -p sub/deep && echo d > sub/deep/f && echo W_DEEP
echo x > {out}/abs 2>/dev/null && echo ESC_ABS
echo x > ../outside/dotdot 2>/dev/null && echo ESC_DOTDOT
ln -s {out} link && (echo x > link/sym) 2>/dev/null && echo ESC_SYMLINK
echo x > /proc/self/root{out}/proc 2>/dev/null && echo ESC_PROC_ROOT
truncate -s 0 {out}/existing 2>/dev/null && echo ESC_TRUNCATE
mv {out}/existing ./stolen 2>/dev/null && echo ESC_MOVE
rm -f {out}/existing 2>/dev/null && echo ESC_REMOVE
cat {home}/config.json 2>/dev/null && echo ESC_READ
cat /proc/self/root{home}/config.json 2>/dev/null && echo ESC_READ_PROC
ln {home}/config.json ./hard 2>/dev/null && echo ESC_HARDLINK
echo x >> {home}/config.json 2>/dev/null && echo ESC_HOME_WRITE
echo x > /etc/seekclaw-escape 2>/dev/null && echo ESC_ETC
cat /etc/hostname >/dev/null && echo R_ETC
ls {home} >/dev/null && echo R_LIST
true
"#
    );
    let mounts = std::fs::read_to_string("/proc/self/mountinfo").unwrap();
    let o = bash(&f.w, &script).await;
    assert!(o.success, "{}", o.content);
    // The socket masks stayed in the command's mount namespace.
    assert_eq!(
        std::fs::read_to_string("/proc/self/mountinfo").unwrap(),
        mounts
    );
    for ok in ["W_IN", "W_TMP", "W_NULL", "W_DEEP", "R_ETC", "R_LIST"] {
        assert!(o.content.contains(ok), "{ok} missing:\n{}", o.content);
    }
    assert!(!o.content.contains("ESC_"), "escaped:\n{}", o.content);
    assert!(!o.content.contains("SECRET-KEY"), "{}", o.content);
    assert_eq!(f.w.read("inside.txt"), "in\n");
    let names: Vec<_> = std::fs::read_dir(&f.outside)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["existing"]);
    assert_eq!(
        std::fs::read_to_string(f.outside.join("existing")).unwrap(),
        "keep me"
    );
    assert_eq!(
        std::fs::read_to_string(f.home.join("config.json")).unwrap(),
        "SECRET-KEY"
    );
    assert!(!Path::new("/etc/seekclaw-escape").exists());
}

#[tokio::test]
async fn read_only_writes_nothing_but_devices() {
    if !supported() {
        return;
    }
    let f = fixture(SandboxMode::ReadOnly, true);
    let o = bash(
        &f.w,
        "echo x > /dev/null && echo W_NULL; echo x > inside.txt 2>/dev/null && echo ESC_WS; \
         echo x > \"$TMPDIR/t\" 2>/dev/null && echo ESC_TMP; cat /etc/hostname >/dev/null && echo R_ETC; true",
    )
    .await;
    assert!(
        o.content.contains("W_NULL") && o.content.contains("R_ETC"),
        "{}",
        o.content
    );
    assert!(!o.content.contains("ESC_"), "{}", o.content);
    assert!(!f.w.exists("inside.txt"));
}

#[tokio::test]
async fn off_runs_as_before() {
    let f = fixture(SandboxMode::Off, true);
    let out = f.outside.join("abs");
    let o = bash(
        &f.w,
        &format!(
            "echo x > {} && cat {}/config.json",
            out.display(),
            f.home.display()
        ),
    )
    .await;
    assert!(
        o.success && o.content.contains("SECRET-KEY"),
        "{}",
        o.content
    );
    assert!(out.exists());
}

/// `exec 3<>/dev/tcp/…` as bash connects to a loopback port the test listens on.
async fn connects(network: bool) -> String {
    let f = fixture(SandboxMode::WorkspaceWrite, network);
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let o = bash(
        &f.w,
        &format!("(exec 3<>/dev/tcp/127.0.0.1/{port}) 2>&1 && echo CONNECTED; true"),
    )
    .await;
    o.content
}

#[tokio::test]
async fn network_off_refuses_a_loopback_connect() {
    if !supported() {
        return;
    }
    let off = connects(false).await;
    assert!(!off.contains("CONNECTED"), "{off}");
    assert!(off.contains("Permission denied"), "{off}");
    let on = connects(true).await;
    assert!(on.contains("CONNECTED"), "network on: {on}");
}

#[tokio::test]
async fn the_daemon_socket_is_unreachable() {
    if !supported() {
        return;
    }
    let f = fixture(SandboxMode::WorkspaceWrite, true);
    let sock = f.home.join("daemon.sock");
    let _listener = std::os::unix::net::UnixListener::bind(&sock).unwrap();
    // The same fixture with sandbox off connects, so the probe itself works.
    let probe = format!(
        "python3 -c 'import socket; s = socket.socket(socket.AF_UNIX); s.connect(\"{}\"); print(\"CONNECTED\")' 2>&1; true",
        sock.display()
    );
    if seekclaw_testkit::capability_missing("python3", seekclaw_testkit::program_missing("python3"))
    {
        return;
    }
    let o = bash(&f.w, &probe).await;
    assert!(!o.content.contains("CONNECTED"), "{}", o.content);
    if SandboxSupport::probe().namespaces == Some(true) {
        // Masked by the mount namespace (other Unix sockets stay usable),
        // not refused by the no-namespace fallback.
        assert!(o.content.contains("ConnectionRefused"), "{}", o.content);
    }
    let mut off = fixture(SandboxMode::Off, true);
    off.w.ctx.sandbox = Arc::new(SandboxPolicy::off());
    let o = bash(&off.w, &probe).await;
    assert!(o.content.contains("CONNECTED"), "{}", o.content);
}

/// Processes whose command line holds `marker`.
fn with_marker(marker: &str) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        let state = stat.rsplit(')').next().unwrap_or("").trim_start();
        if String::from_utf8_lossy(&cmdline).contains(marker) && !state.starts_with('Z') {
            found.push(pid);
        }
    }
    found
}

#[tokio::test]
async fn leftovers_that_left_the_group_die_with_the_turn() {
    if !supported() {
        return;
    }
    let namespaces = SandboxSupport::probe().namespaces == Some(true);
    let missing = (!namespaces).then(|| "no PID namespaces here".to_string());
    if seekclaw_testkit::capability_missing("namespaces", missing) {
        return;
    }
    let f = fixture(SandboxMode::WorkspaceWrite, true);
    // The command is PID 2 of its own namespace (ours is 1).
    let o = bash(&f.w, "echo $$").await;
    assert_eq!(
        o.content.split_whitespace().next(),
        Some("2"),
        "{}",
        o.content
    );
    // Unique durations mark the processes.
    let o = bash(
        &f.w,
        "setsid sleep 987.25 >/dev/null 2>&1 < /dev/null & \
         (sleep 987.5 >/dev/null 2>&1 &) ; echo started",
    )
    .await;
    assert!(o.success, "{}", o.content);
    let start = Instant::now();
    while with_marker("987.25").is_empty() || with_marker("987.5").is_empty() {
        assert!(start.elapsed() < Duration::from_secs(5), "never started");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    f.w.ctx.cancel.cancel();
    f.w.ctx.jobs.end_turn();
    let start = Instant::now();
    while !(with_marker("987.25").is_empty() && with_marker("987.5").is_empty()) {
        assert!(
            start.elapsed() < Duration::from_secs(2),
            "leftovers survived the turn"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test]
async fn timeouts_and_exit_codes_still_work() {
    if !supported() {
        return;
    }
    let f = fixture(SandboxMode::WorkspaceWrite, true);
    let o = bash(&f.w, "echo out; echo err >&2; exit 3").await;
    assert!(!o.success && o.content.contains("out") && o.content.contains("err"));
    assert!(
        o.content.contains("exit 3") || o.content.contains("3"),
        "{}",
        o.content
    );
    let t = Instant::now();
    let o = BashTool::new()
        .execute(
            json!({"command": "sleep 30", "timeout_seconds": 1}),
            &f.w.ctx,
        )
        .await;
    assert!(!o.success, "{}", o.content);
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
    let o = bash(&f.w, "kill -9 $$").await;
    assert!(!o.success, "{}", o.content);
}

#[test]
fn a_kernel_that_cannot_sandbox_fails_closed_naming_the_setting() {
    let tmp = tempfile::tempdir().unwrap();
    let p = SandboxPolicy::new(SandboxMode::WorkspaceWrite, tmp.path(), tmp.path(), true);
    for (abi, seccomp, needle) in [
        (0, true, "Landlock (ABI 3+, Linux 6.2+) is not available"),
        (2, true, "Landlock ABI 2 is too old"),
        (7, false, "seccomp filters are not available"),
    ] {
        let support = SandboxSupport {
            landlock_abi: abi,
            seccomp,
            namespaces: None,
        };
        let err = match p.prepare_on(support) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("prepared on {support:?}"),
        };
        assert!(err.contains(needle), "{err}");
        assert!(err.contains("agent.sandbox = \"workspace-write\""), "{err}");
        assert!(err.contains("agent.sandbox to \"off\""), "{err}");
        assert!(err.contains("not run"), "{err}");
    }
    // Off never needs the kernel.
    assert!(SandboxPolicy::off().prepare().is_ok());
}

#[test]
fn a_policy_and_its_clones_build_the_rules_once() {
    if !supported() {
        return;
    }
    let f = fixture(SandboxMode::WorkspaceWrite, false);
    let policy = (*f.w.ctx.sandbox).clone();
    let first = policy.prepare().unwrap().enter.unwrap();
    let again = f.w.ctx.sandbox.prepare().unwrap().enter.unwrap();
    assert!(
        Arc::ptr_eq(&first, &again),
        "clones share the prepared rules"
    );
    let fresh = SandboxPolicy::new(SandboxMode::WorkspaceWrite, &f.w.root, &f.home, false);
    let other = fresh.prepare().unwrap().enter.unwrap();
    assert!(
        !Arc::ptr_eq(&first, &other),
        "a new policy (a new turn) builds its own"
    );
}
