//! The daemon connection: one socket for everything (as the desktop), requests
//! numbered from 1, envelopes read by one task. A request made with
//! [`Connection::call`] gets its terminal envelope back directly; every other
//! envelope (a turn's stream, broadcasts, answers to [`Connection::send`]) goes
//! to the UI's channel in arrival order.

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use seekclaw_protocol::event;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::UnixStream;
use tokio::net::unix::OwnedWriteHalf;
use tokio::sync::{mpsc, oneshot};

use crate::TuiError;

/// Admin calls answer quickly; a daemon silent this long is stuck.
const CALL_TIMEOUT: Duration = Duration::from_secs(60);

/// One response line of the daemon.
#[derive(Debug, Clone, PartialEq)]
pub struct Envelope {
    /// The request id it answers (0 for broadcasts).
    pub id: i64,
    /// The event name (`delta`, `done`, …).
    pub event: String,
    /// Always a string on the wire.
    pub data: String,
    /// The session a turn's event belongs to.
    pub session_id: Option<String>,
    /// The event's details, `Null` when absent.
    pub details: Value,
}

impl Envelope {
    /// Parses one line; `None` when it is not an envelope.
    pub fn parse(line: &str) -> Option<Envelope> {
        let v: Value = serde_json::from_str(line).ok()?;
        Some(Envelope {
            id: v.get("id").and_then(Value::as_i64).unwrap_or(0),
            event: v.get("event")?.as_str()?.to_string(),
            data: v
                .get("data")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
            session_id: v
                .get("sessionId")
                .and_then(Value::as_str)
                .map(str::to_string),
            details: v.get("details").cloned().unwrap_or(Value::Null),
        })
    }

    /// Whether it ends its request (every request gets exactly one).
    pub fn is_terminal(&self) -> bool {
        event::is_terminal(&self.event)
    }
}

type Waiters = Arc<Mutex<HashMap<i64, oneshot::Sender<Envelope>>>>;

/// A connection to the daemon.
pub struct Connection {
    writer: tokio::sync::Mutex<OwnedWriteHalf>,
    next_id: AtomicI64,
    waiters: Waiters,
}

impl Connection {
    /// Connects to the socket at `path`; the envelopes not claimed by a
    /// [`Connection::call`] arrive on the returned channel, which closes when
    /// the daemon closes the connection.
    pub async fn connect(
        path: &Path,
    ) -> std::io::Result<(Connection, mpsc::UnboundedReceiver<Envelope>)> {
        let stream = UnixStream::connect(path).await?;
        let (read, write) = stream.into_split();
        let waiters: Waiters = Arc::default();
        let (tx, rx) = mpsc::unbounded_channel();
        tokio::spawn(read_envelopes(BufReader::new(read), waiters.clone(), tx));
        Ok((
            Connection {
                writer: tokio::sync::Mutex::new(write),
                next_id: AtomicI64::new(1),
                waiters,
            },
            rx,
        ))
    }

    /// Sends a request whose envelopes go to the channel; returns its id.
    pub async fn send(&self, method: &str, params: Value) -> Result<i64, TuiError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        self.write(id, method, params).await?;
        Ok(id)
    }

    /// Sends a request and waits for its terminal envelope: its `data`, or
    /// [`TuiError::Daemon`] with the daemon's message on `error`.
    pub async fn call(&self, method: &str, params: Value) -> Result<String, TuiError> {
        self.call_within(method, params, CALL_TIMEOUT).await
    }

    /// [`Connection::call`] with its own time limit.
    pub async fn call_within(
        &self,
        method: &str,
        params: Value,
        limit: Duration,
    ) -> Result<String, TuiError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        lock(&self.waiters).insert(id, tx);
        if let Err(e) = self.write(id, method, params).await {
            lock(&self.waiters).remove(&id);
            return Err(e);
        }
        let env = match tokio::time::timeout(limit, rx).await {
            Ok(Ok(env)) => env,
            Ok(Err(_)) => return Err(TuiError::Disconnected),
            Err(_) => {
                lock(&self.waiters).remove(&id);
                return Err(TuiError::Timeout(method.to_string()));
            }
        };
        if env.event == event::ERROR {
            return Err(TuiError::Daemon(env.data));
        }
        Ok(env.data)
    }

    /// [`Connection::call`] for results whose `data` is JSON.
    pub async fn call_json(&self, method: &str, params: Value) -> Result<Value, TuiError> {
        let data = self.call(method, params).await?;
        serde_json::from_str(&data).map_err(|_| TuiError::BadResult(method.to_string()))
    }

    /// A call whose `data` is JSON, read straight into `T`.
    pub async fn call_typed<T: serde::de::DeserializeOwned>(
        &self,
        method: &str,
        params: Value,
    ) -> Result<T, TuiError> {
        let data = self.call(method, params).await?;
        serde_json::from_str(&data).map_err(|_| TuiError::BadResult(method.to_string()))
    }

    async fn write(&self, id: i64, method: &str, params: Value) -> Result<(), TuiError> {
        let mut line = json!({"id": id, "method": method, "params": params}).to_string();
        line.push('\n');
        let mut w = self.writer.lock().await;
        w.write_all(line.as_bytes())
            .await
            .map_err(|_| TuiError::Disconnected)?;
        w.flush().await.map_err(|_| TuiError::Disconnected)
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // The map stays consistent whatever a panicking holder did (insert/remove only).
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

async fn read_envelopes(
    mut reader: BufReader<tokio::net::unix::OwnedReadHalf>,
    waiters: Waiters,
    tx: mpsc::UnboundedSender<Envelope>,
) {
    let mut line = String::new();
    loop {
        line.clear();
        match reader.read_line(&mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let Some(env) = Envelope::parse(&line) else {
            continue;
        };
        let waiter = if env.is_terminal() {
            lock(&waiters).remove(&env.id)
        } else {
            None
        };
        match waiter {
            Some(w) => {
                let _ = w.send(env);
            }
            // A call's non-terminal envelopes are not the UI's business.
            None if lock(&waiters).contains_key(&env.id) => {}
            None => {
                if tx.send(env).is_err() {
                    break;
                }
            }
        }
    }
    // Pending calls fail with Disconnected when their senders drop.
    lock(&waiters).clear();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_envelopes() {
        let e = Envelope::parse(
            r#"{"id":2,"event":"tool_start","data":"read_file","sessionId":"s","details":{"callId":"c1"}}"#,
        )
        .unwrap();
        assert_eq!(e.id, 2);
        assert_eq!(e.event, "tool_start");
        assert_eq!(e.session_id.as_deref(), Some("s"));
        assert_eq!(e.details["callId"], "c1");
        assert!(!e.is_terminal());
        assert!(
            Envelope::parse(r#"{"id":1,"event":"done","data":"x"}"#)
                .unwrap()
                .is_terminal()
        );
        assert!(Envelope::parse("not json").is_none());
    }
}
