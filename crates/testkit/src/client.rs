use std::collections::{HashMap, VecDeque};
use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};

const TERMINAL: &[&str] = &["pong", "bye", "result", "done", "cancelled", "error"];

/// A blocking JSONL client for tests.
pub struct Client {
    writer: UnixStream,
    reader: BufReader<UnixStream>,
    next_id: i64,
    /// Envelopes read while waiting for another id.
    pending: VecDeque<Value>,
    /// The method of each request sent (by id), to check its answers.
    sent: HashMap<i64, String>,
}

impl Client {
    pub fn connect(socket: &Path) -> Result<Client> {
        let stream =
            UnixStream::connect(socket).with_context(|| format!("connect {}", socket.display()))?;
        stream.set_read_timeout(Some(Duration::from_secs(30)))?;
        Ok(Client {
            writer: stream.try_clone()?,
            reader: BufReader::new(stream),
            next_id: 1,
            pending: VecDeque::new(),
            sent: HashMap::new(),
        })
    }

    pub fn set_read_timeout(&self, t: Duration) -> Result<()> {
        self.writer.set_read_timeout(Some(t))?;
        Ok(())
    }

    pub fn stream(&self) -> &UnixStream {
        &self.writer
    }

    pub fn send_raw(&mut self, bytes: &[u8]) -> Result<()> {
        self.note_requests(bytes);
        self.writer.write_all(bytes)?;
        Ok(())
    }

    /// Remembers the id and method of each well-formed request line in `bytes`.
    fn note_requests(&mut self, bytes: &[u8]) {
        for line in bytes.split(|b| *b == b'\n') {
            let Ok(v) = serde_json::from_slice::<Value>(line) else {
                continue;
            };
            if let Some(method) = v.get("method").and_then(Value::as_str) {
                let id = match v.get("id") {
                    None | Some(Value::Null) => Some(0),
                    Some(id) => id.as_i64(),
                };
                if let Some(id) = id {
                    self.sent.insert(id, method.to_string());
                }
            }
        }
    }

    /// Sends a request and returns its id.
    pub fn send(&mut self, method: &str, params: Value) -> Result<i64> {
        let id = self.next_id;
        self.next_id += 1;
        let mut line = serde_json::to_vec(&json!({"id": id, "method": method, "params": params}))?;
        line.push(b'\n');
        self.sent.insert(id, method.to_string());
        self.writer.write_all(&line)?;
        Ok(id)
    }

    /// Reads the next envelope line from the socket (raw text kept in `_raw`).
    pub fn read_line(&mut self) -> Result<String> {
        let mut line = String::new();
        let n = self.reader.read_line(&mut line)?;
        if n == 0 {
            bail!("connection closed by the daemon");
        }
        #[cfg(feature = "schema-check")]
        crate::schema_check::check_line(&line, &self.sent);
        Ok(line)
    }

    pub fn next_envelope(&mut self) -> Result<Value> {
        if let Some(v) = self.pending.pop_front() {
            return Ok(v);
        }
        let line = self.read_line()?;
        serde_json::from_str(&line).with_context(|| format!("not JSON: {line}"))
    }

    /// Reads until an envelope with event `name` arrives and returns it (envelopes
    /// read on the way are dropped).
    pub fn wait_for(&mut self, name: &str) -> Result<Value> {
        loop {
            let env = self.next_envelope()?;
            if env["event"] == name {
                return Ok(env);
            }
        }
    }

    /// Reads until the terminal envelope of `id`; returns every envelope of `id`
    /// (the terminal last). Envelopes of other ids are kept for later reads.
    pub fn collect(&mut self, id: i64) -> Result<Vec<Value>> {
        let mut out = Vec::new();
        let mut skipped = VecDeque::new();
        let mut queued: VecDeque<Value> = std::mem::take(&mut self.pending);
        loop {
            let env = match queued.pop_front() {
                Some(v) => v,
                None => {
                    let line = self.read_line()?;
                    serde_json::from_str(&line).with_context(|| format!("not JSON: {line}"))?
                }
            };
            if env["id"].as_i64() == Some(id) {
                let terminal = env["event"].as_str().is_some_and(|e| TERMINAL.contains(&e));
                out.push(env);
                if terminal {
                    skipped.extend(queued);
                    self.pending = skipped;
                    return Ok(out);
                }
            } else {
                skipped.push_back(env);
            }
        }
    }

    /// Sends a request and returns its terminal envelope.
    pub fn request(&mut self, method: &str, params: Value) -> Result<Value> {
        let id = self.send(method, params)?;
        let mut all = self.collect(id)?;
        all.pop().context("no terminal envelope")
    }

    /// A request that must succeed: returns `data`.
    pub fn ok(&mut self, method: &str, params: Value) -> Result<String> {
        let env = self.request(method, params)?;
        match env["event"].as_str() {
            Some("error") => bail!("{method} failed: {env}"),
            _ => Ok(env["data"].as_str().unwrap_or_default().to_string()),
        }
    }

    /// A request whose `data` is JSON: returns it parsed.
    pub fn ok_json(&mut self, method: &str, params: Value) -> Result<Value> {
        let data = self.ok(method, params)?;
        serde_json::from_str(&data).with_context(|| format!("{method} data is not JSON: {data}"))
    }

    /// A request that must fail: returns the error envelope.
    pub fn err(&mut self, method: &str, params: Value) -> Result<Value> {
        let env = self.request(method, params)?;
        if env["event"] != "error" {
            bail!("{method} was expected to fail: {env}");
        }
        Ok(env)
    }
}
