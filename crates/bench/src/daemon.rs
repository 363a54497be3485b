//! The real `seekclaw daemon` as a child process, plus a blocking JSONL client
//! for the request/response measurements (plain std I/O: one request at a
//! time, so an async runtime would only add noise).

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use serde_json::Value;

/// How long a daemon may take to answer its first ping or to exit.
const PROCESS_TIMEOUT: Duration = Duration::from_secs(60);
/// Connect polling interval while waiting for the socket.
const POLL: Duration = Duration::from_millis(1);

/// A running daemon on `home`. Killed on drop if still running.
pub struct DaemonProc {
    pub socket: PathBuf,
    pub stderr_path: PathBuf,
    child: Child,
    spawned_at: Instant,
}

impl DaemonProc {
    /// Spawns `bin daemon` with `SEEKCLAW_HOME=home` and `RUST_LOG=warn`; stderr
    /// goes to `stderr_path`. Does not wait for anything.
    pub fn spawn(bin: &Path, home: &Path, stderr_path: &Path) -> Result<DaemonProc> {
        std::fs::create_dir_all(home)?;
        let stderr = std::fs::File::options()
            .create(true)
            .append(true)
            .open(stderr_path)
            .with_context(|| format!("open {}", stderr_path.display()))?;
        let spawned_at = Instant::now();
        let child = Command::new(bin)
            .arg("daemon")
            .env("SEEKCLAW_HOME", home)
            .env("RUST_LOG", "warn")
            .current_dir(home)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::from(stderr))
            .spawn()
            .with_context(|| format!("spawn {}", bin.display()))?;
        Ok(DaemonProc {
            socket: home.join("daemon.sock"),
            stderr_path: stderr_path.to_path_buf(),
            child,
            spawned_at,
        })
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Polls connect every millisecond, then pings; returns the time from
    /// spawn until the pong arrived, and the connection.
    pub fn wait_answering(&mut self) -> Result<(Duration, JsonlClient)> {
        loop {
            if let Ok(stream) = UnixStream::connect(&self.socket) {
                let mut client = JsonlClient::new(stream)?;
                let line = client.request_line(r#"{"id":1,"method":"ping"}"#)?;
                let elapsed = self.spawned_at.elapsed();
                if !contains(line, b"\"pong\"") {
                    bail!(
                        "unexpected answer to ping: {}",
                        String::from_utf8_lossy(line)
                    );
                }
                return Ok((elapsed, client));
            }
            if let Some(status) = self.child.try_wait()? {
                bail!("daemon exited early ({status}): {}", self.stderr());
            }
            if self.spawned_at.elapsed() > PROCESS_TIMEOUT {
                bail!(
                    "daemon not answering after {PROCESS_TIMEOUT:?}: {}",
                    self.stderr()
                );
            }
            std::thread::sleep(POLL);
        }
    }

    /// Asks the daemon to stop (`shutdown` → `bye`) and waits for the process to exit.
    pub fn shutdown(mut self) -> Result<ExitStatus> {
        let stream = UnixStream::connect(&self.socket).context("connect for shutdown")?;
        let mut client = JsonlClient::new(stream)?;
        let line = client.request_line(r#"{"id":1,"method":"shutdown"}"#)?;
        if !contains(line, b"\"bye\"") {
            bail!(
                "unexpected answer to shutdown: {}",
                String::from_utf8_lossy(line)
            );
        }
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait()? {
                return Ok(status);
            }
            if start.elapsed() > PROCESS_TIMEOUT {
                bail!("daemon did not exit within {PROCESS_TIMEOUT:?} of shutdown");
            }
            std::thread::sleep(POLL);
        }
    }

    /// `(VmRSS, VmHWM)` in bytes from `/proc/<pid>/status`.
    pub fn memory(&self) -> Result<(u64, u64)> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid()))
            .context("read /proc/<pid>/status")?;
        let rss = status_kb(&status, "VmRSS:").context("no VmRSS line")?;
        let hwm = status_kb(&status, "VmHWM:").context("no VmHWM line")?;
        Ok((rss * 1024, hwm * 1024))
    }

    pub fn stderr(&self) -> String {
        std::fs::read_to_string(&self.stderr_path).unwrap_or_default()
    }
}

impl Drop for DaemonProc {
    fn drop(&mut self) {
        // Only our own child, by its handle; a daemon that already exited is left alone.
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// The number of kB on a `/proc/<pid>/status` line such as `VmRSS:   1234 kB`.
pub fn status_kb(status: &str, key: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with(key))?;
    line.get(key.len()..)?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// One blocking connection, one request at a time. Lines are kept as bytes:
/// UTF-8 checking a multi-MB answer is client cost, not daemon cost.
pub struct JsonlClient {
    writer: UnixStream,
    reader: BufReader<UnixStream>,
    line: Vec<u8>,
}

impl JsonlClient {
    pub fn new(stream: UnixStream) -> Result<JsonlClient> {
        stream.set_read_timeout(Some(PROCESS_TIMEOUT))?;
        Ok(JsonlClient {
            writer: stream.try_clone()?,
            reader: BufReader::with_capacity(1024 * 1024, stream),
            line: Vec::new(),
        })
    }

    pub fn connect(socket: &Path) -> Result<JsonlClient> {
        let stream =
            UnixStream::connect(socket).with_context(|| format!("connect {}", socket.display()))?;
        JsonlClient::new(stream)
    }

    /// Sends one request line and returns the first answer line (a
    /// request/response method answers with exactly one terminal line).
    pub fn request_line(&mut self, request: &str) -> Result<&[u8]> {
        self.send(request)?;
        self.read_line()
    }

    /// Writes one request line (`\n` appended) in a single write.
    pub fn send(&mut self, request: &str) -> Result<()> {
        let mut out = Vec::with_capacity(request.len() + 1);
        out.extend_from_slice(request.as_bytes());
        out.push(b'\n');
        self.writer.write_all(&out)?;
        Ok(())
    }

    /// Writes bytes holding one or more complete request lines as they are.
    pub fn send_raw(&mut self, lines: &[u8]) -> Result<()> {
        self.writer.write_all(lines)?;
        Ok(())
    }

    /// Reads the next line, `\n` included (streams: one envelope per call).
    pub fn read_line(&mut self) -> Result<&[u8]> {
        self.line.clear();
        if self.reader.read_until(b'\n', &mut self.line)? == 0 {
            bail!("connection closed by the server");
        }
        Ok(&self.line)
    }

    /// The last answer line read, `\n` included.
    pub fn last_line(&self) -> &[u8] {
        &self.line
    }

    /// Sends a request and returns the wall time until its answer was read in
    /// full, plus the answer envelope parsed (parsing is outside the timing).
    pub fn timed(&mut self, request: &str) -> Result<(Duration, Value)> {
        let start = Instant::now();
        self.request_line(request)?;
        let elapsed = start.elapsed();
        let env: Value = serde_json::from_slice(&self.line).context("answer is not JSON")?;
        if env["event"] == "error" {
            bail!("{request} failed: {}", env);
        }
        Ok((elapsed, env))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_kb_lines_of_proc_status() {
        let s = "Name:\tx\nVmHWM:\t   20480 kB\nVmRSS:\t    8192 kB\n";
        assert_eq!(status_kb(s, "VmRSS:"), Some(8192));
        assert_eq!(status_kb(s, "VmHWM:"), Some(20480));
        assert_eq!(status_kb(s, "VmSwap:"), None);
        let own = std::fs::read_to_string("/proc/self/status").unwrap();
        assert!(status_kb(&own, "VmRSS:").unwrap() > 0);
    }

    #[test]
    fn client_reads_one_line_per_request() {
        let (a, b) = UnixStream::pair().unwrap();
        let server = std::thread::spawn(move || {
            let mut r = BufReader::new(b.try_clone().unwrap());
            let mut w = b;
            let mut line = String::new();
            r.read_line(&mut line).unwrap();
            w.write_all(b"{\"id\":1,\"event\":\"result\",\"data\":\"[]\"}\n")
                .unwrap();
            line
        });
        let mut c = JsonlClient::new(a).unwrap();
        let (_, env) = c.timed(r#"{"id":1,"method":"session.list"}"#).unwrap();
        assert_eq!(env["data"], "[]");
        assert!(c.last_line().ends_with(b"}\n"));
        assert!(contains(c.last_line(), b"\"result\""));
        assert!(!contains(c.last_line(), b"\"pong\""));
        assert_eq!(
            server.join().unwrap(),
            "{\"id\":1,\"method\":\"session.list\"}\n"
        );
    }
}
