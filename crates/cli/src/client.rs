//! A tiny blocking JSONL client for CLI commands that act on the running daemon.

use std::io::{BufRead, BufReader, Read, Write};
use std::time::Duration;

use anyhow::{Context, Result, anyhow, bail};
use seekclaw_config::Home;
use seekclaw_protocol::event;
use serde_json::{Value, json};

/// Admin calls answer quickly; a daemon silent this long is stuck.
const READ_TIMEOUT: Duration = Duration::from_secs(60);

/// One connection to the daemon.
pub struct DaemonClient {
    reader: BufReader<Box<dyn Read + Send>>,
    writer: Box<dyn Write + Send>,
    next_id: i64,
}

impl DaemonClient {
    /// Connects to the daemon of `home`; a clear error when none runs.
    pub fn connect(home: &Home) -> Result<DaemonClient> {
        open(home)
            .map(DaemonClient::over)
            .map_err(|e| not_running(home, e))
    }

    /// Connects when a daemon answers on the socket of `home`; `None` when none
    /// does (no socket, or one left by a daemon that died).
    pub fn running(home: &Home) -> Option<DaemonClient> {
        open(home).ok().map(DaemonClient::over)
    }

    fn over((reader, writer): Halves) -> DaemonClient {
        DaemonClient {
            reader: BufReader::new(reader),
            writer,
            next_id: 1,
        }
    }

    /// Sends one request and returns the `data` of its `result`; an `error`
    /// envelope becomes an error with the daemon's message.
    pub fn call(&mut self, method: &str, params: Value) -> Result<String> {
        let id = self.next_id;
        self.next_id += 1;
        let mut line = serde_json::to_vec(&json!({"id": id, "method": method, "params": params}))?;
        line.push(b'\n');
        self.writer
            .write_all(&line)
            .and_then(|()| self.writer.flush())
            .context("cannot send the request to the daemon")?;
        loop {
            let mut text = String::new();
            let n = self
                .reader
                .read_line(&mut text)
                .context("no answer from the daemon")?;
            if n == 0 {
                bail!("the daemon closed the connection before answering {method}");
            }
            let env: Value = serde_json::from_str(&text)
                .with_context(|| format!("the daemon sent a line that is not JSON: {text}"))?;
            // Broadcasts (id 0) and other requests' events are not ours.
            if env["id"].as_i64() != Some(id) {
                continue;
            }
            let event = env["event"].as_str().unwrap_or_default();
            // Every request gets exactly one terminal event.
            if !event::is_terminal(event) {
                continue;
            }
            let data = env["data"].as_str().unwrap_or_default().to_string();
            if event == event::ERROR {
                return Err(anyhow!(data));
            }
            return Ok(data);
        }
    }

    /// [`DaemonClient::call`] for results whose data is JSON.
    pub fn call_json(&mut self, method: &str, params: Value) -> Result<Value> {
        let data = self.call(method, params)?;
        serde_json::from_str(&data)
            .with_context(|| format!("{method} answered with data that is not JSON: {data}"))
    }
}

fn not_running(home: &Home, err: std::io::Error) -> anyhow::Error {
    anyhow!(
        "no seekclaw daemon is running for {} ({err}); start one with `seekclaw daemon`",
        home.root().display()
    )
}

type Halves = (Box<dyn Read + Send>, Box<dyn Write + Send>);

#[cfg(unix)]
fn open(home: &Home) -> std::io::Result<Halves> {
    let stream = std::os::unix::net::UnixStream::connect(home.socket_path())?;
    stream.set_read_timeout(Some(READ_TIMEOUT))?;
    let writer = crate::pipes::NoSignalWriter(stream.try_clone()?);
    Ok((Box::new(stream), Box::new(writer)))
}

#[cfg(windows)]
fn open(_home: &Home) -> std::io::Result<Halves> {
    // A byte-mode named pipe opens like a file.
    let pipe = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(r"\\.\pipe\seekclaw")?;
    let _ = READ_TIMEOUT;
    Ok((Box::new(pipe.try_clone()?), Box::new(pipe)))
}
