//! Who may connect, and nothing slow holding others up.

use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::process::Command;

use serde_json::json;

use crate::start;

/// Connects as `uid`, sends a ping and prints everything read until EOF.
const PEER: &str = r#"
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
try:
    s.sendall(b'{"id":1,"method":"ping"}\n')
except OSError:
    pass
s.settimeout(5)
out = b''
while True:
    try:
        chunk = s.recv(4096)
    except OSError:
        break
    if not chunk:
        break
    out += chunk
sys.stdout.write(out.decode())
"#;

#[test]
fn only_the_owner_connects_even_through_a_loosened_socket() {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("skipped: needs root to connect as another user");
        return;
    }
    let d = start();
    // Everything on the way to the socket opened up, as a careless chmod would.
    let open = |p: &std::path::Path, mode| {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap()
    };
    open(d.home.parent().unwrap(), 0o755);
    open(&d.home, 0o755);
    open(&d.socket, 0o666);
    let out = Command::new("python3")
        .arg("-c")
        .arg(PEER)
        .arg(&d.socket)
        .uid(65534)
        .gid(65534)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains(r#""code":"forbidden""#), "{text}");
    assert!(!text.contains("pong"), "{text}");
    // The owner (and root) still get in.
    let mut c = d.connect().unwrap();
    assert_eq!(c.request("ping", json!({})).unwrap()["event"], "pong");
}
