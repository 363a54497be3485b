//! Reading the daemon's envelopes cheaply, and the request lines the turn
//! benchmarks send. Envelopes start `{"id":N,"event":"name",...` (the daemon
//! writes keys in that order), so timing loops look at those two fields
//! without parsing JSON; checks parse the line fully, outside the timing.

use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};

use crate::daemon::JsonlClient;
use crate::load::parse_id;

/// Events that end a request (reference §2.1: what the desktop treats as terminal).
const TERMINAL: &[&[u8]] = &[b"done", b"cancelled", b"error", b"result", b"pong", b"bye"];

/// The `event` name of an envelope line, without JSON parsing.
pub fn event_name(line: &[u8]) -> Option<&[u8]> {
    const KEY: &[u8] = b"\"event\":\"";
    let at = line.windows(KEY.len()).position(|w| w == KEY)? + KEY.len();
    let rest = line.get(at..)?;
    let end = rest.iter().position(|b| *b == b'"')?;
    rest.get(..end)
}

/// The `(id, event)` of an envelope line.
pub fn id_and_event(line: &[u8]) -> Option<(u64, &[u8])> {
    Some((parse_id(line)?, event_name(line)?))
}

pub fn is_terminal(event: &[u8]) -> bool {
    TERMINAL.contains(&event)
}

/// Lossy text of a line for error messages, cut to a readable length.
pub fn show(line: &[u8]) -> String {
    let text = String::from_utf8_lossy(line);
    let text = text.trim_end();
    match text.char_indices().nth(300) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

/// One request line.
pub fn request(id: u64, method: &str, params: Value) -> String {
    json!({"id": id, "method": method, "params": params}).to_string()
}

/// The params that put a turn or a session in the bench workspace.
pub fn scoped(workspace: &str, mut params: Value) -> Value {
    params["workspace"] = json!(workspace);
    params
}

/// Request ids of one connection, from 1.
#[derive(Debug, Default)]
pub struct Ids(u64);

impl Ids {
    pub fn next(&mut self) -> u64 {
        self.0 += 1;
        self.0
    }
}

/// Sends a request and reads until its terminal envelope, which it returns
/// parsed; an `error` terminal is an error. For setup on an otherwise idle
/// connection: envelopes of other ids are an error too.
pub fn call(client: &mut JsonlClient, ids: &mut Ids, method: &str, params: Value) -> Result<Value> {
    let id = ids.next();
    client.send(&request(id, method, params))?;
    loop {
        let line = client.read_line()?;
        let (got, event) = id_and_event(line)
            .with_context(|| format!("{method}: not an envelope: {}", show(line)))?;
        if got != id {
            bail!(
                "{method}: unexpected envelope of request {got}: {}",
                show(line)
            );
        }
        if !is_terminal(event) {
            continue;
        }
        let env: Value = serde_json::from_slice(line).context("envelope is not JSON")?;
        if env["event"] == "error" {
            bail!("{method} failed: {env}");
        }
        return Ok(env);
    }
}

/// `session.new` in `workspace`: the new session's id.
pub fn new_session(client: &mut JsonlClient, ids: &mut Ids, workspace: &str) -> Result<String> {
    let env = call(client, ids, "session.new", scoped(workspace, json!({})))?;
    env["data"]
        .as_str()
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .with_context(|| format!("session.new answered without an id: {env}"))
}

/// One ping round trip on an idle connection.
pub fn ping(client: &mut JsonlClient, ids: &mut Ids) -> Result<Duration> {
    let id = ids.next();
    let line = format!("{{\"id\":{id},\"method\":\"ping\"}}");
    let start = Instant::now();
    let answer = client.request_line(&line)?;
    let elapsed = start.elapsed();
    match id_and_event(answer) {
        Some((got, b"pong")) if got == id => Ok(elapsed),
        _ => bail!("unexpected answer to ping: {}", show(answer)),
    }
}

/// Pings and returns every line read before the pong: on a connection whose
/// turns all ended, anything here is an event that came after its terminal.
pub fn drain_with_ping(client: &mut JsonlClient, ids: &mut Ids) -> Result<Vec<String>> {
    let id = ids.next();
    client.send(&format!("{{\"id\":{id},\"method\":\"ping\"}}"))?;
    let mut late = Vec::new();
    loop {
        let line = client.read_line()?;
        if id_and_event(line) == Some((id, b"pong".as_slice())) {
            return Ok(late);
        }
        late.push(show(line));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn id_and_event_are_read_without_parsing() {
        let line =
            b"{\"id\":12,\"event\":\"delta\",\"data\":\"x \\\"event\\\":\",\"sessionId\":\"s\"}\n";
        assert_eq!(id_and_event(line), Some((12, b"delta".as_slice())));
        assert_eq!(event_name(b"{\"id\":1}"), None);
        assert_eq!(event_name(b"{\"id\":1,\"event\":\"don"), None);
        assert!(is_terminal(b"done") && is_terminal(b"cancelled") && is_terminal(b"pong"));
        assert!(!is_terminal(b"delta") && !is_terminal(b"workflow"));
    }

    #[test]
    fn request_lines_and_scopes() {
        let line = request(3, "chat", scoped("/w", json!({"message": "hi"})));
        let v: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["id"], 3);
        assert_eq!(v["method"], "chat");
        assert_eq!(v["params"], json!({"message": "hi", "workspace": "/w"}));
        assert_eq!(parse_id(line.as_bytes()), Some(3));
        let mut ids = Ids::default();
        assert_eq!((ids.next(), ids.next()), (1, 2));
    }

    #[test]
    fn show_cuts_long_lines() {
        let long = vec![b'a'; 1000];
        assert_eq!(show(&long).chars().count(), 301);
        assert_eq!(show(b"short\n"), "short");
    }
}
