//! `seekclaw serve` driven over its stdin/stdout, and a home for it.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use seekclaw_protocol::openseek::EventLine;
use seekclaw_testkit::ProviderServer;
use serde_json::{Value, json};

use super::bin;

/// A home whose only provider is the testkit `server`.
pub(crate) fn home_with(server: &ProviderServer) -> (tempfile::TempDir, std::path::PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    // No verify-repair steps: `--max-steps` is then the exact request cap.
    let config = json!({"agent": {"maxRepairAttempts": 0}, "providers": [{"id": "tk", "kind": "openai", "baseUrl": server.base_url(), "models": [{"id": "m1", "contextWindow": 100000}]}]});
    std::fs::write(home.join("config.json"), config.to_string()).unwrap();
    (tmp, home)
}

pub(crate) struct Serve {
    pub(crate) child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Value>,
}

impl Serve {
    pub(crate) fn start(home: &std::path::Path, args: &[&str]) -> Serve {
        let mut child = Command::new(bin())
            .arg("serve")
            .args(args)
            .env("SEEKCLAW_HOME", home)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let v: Value = serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line}"));
                // Every line is a protocol event that reads back as the
                // protocol type and is written again byte for byte.
                let back = EventLine::parse(line.as_bytes())
                    .unwrap_or_else(|| panic!("not an openseek::EventLine: {line}"));
                assert_eq!(serde_json::to_string(&back).unwrap(), line);
                if tx.send(v).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        Serve {
            child,
            stdin,
            lines,
        }
    }

    pub(crate) fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    pub(crate) fn next(&self) -> Value {
        let v = self
            .lines
            .recv_timeout(Duration::from_secs(30))
            .expect("an event within 30 s");
        check_envelope(&v);
        v
    }

    /// Events up to and including the first named `name`.
    pub(crate) fn until(&self, name: &str) -> Vec<Value> {
        let mut seen = Vec::new();
        loop {
            let v = self.next();
            let done = v["event"] == name;
            seen.push(v);
            if done {
                return seen;
            }
        }
    }

    /// Closes stdin, collects the rest and the exit code.
    pub(crate) fn finish(mut self) -> (Vec<Value>, Option<i32>) {
        drop(self.stdin.take());
        let mut rest = Vec::new();
        while let Ok(v) = self.lines.recv_timeout(Duration::from_secs(30)) {
            check_envelope(&v);
            rest.push(v);
        }
        (rest, self.child.wait().unwrap().code())
    }
}

/// The envelope fields come first and are typed (reference §2.1).
pub(crate) fn check_envelope(v: &Value) {
    let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
    assert_eq!(keys[..3], ["timestamp", "level", "event"], "{v}");
    assert!(v["timestamp"].as_str().unwrap().ends_with('Z'), "{v}");
    assert!(
        ["INFO", "WARN", "ERROR"].contains(&v["level"].as_str().unwrap()),
        "{v}"
    );
}
