//! The daemon connection: one socket for everything (as the desktop), over
//! `seekclaw-client`'s async client. A request made with
//! [`Connection::call`] gets its terminal envelope back directly; every other
//! envelope (a turn's stream, broadcasts, answers to [`Connection::send`]) goes
//! to the UI's channel in arrival order.

use std::path::Path;
use std::time::Duration;

use seekclaw_client::{AsyncClient, ClientError, MethodType};
use seekclaw_protocol::event;
use serde_json::Value;
use tokio::sync::mpsc;

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
        seekclaw_client::Event::parse(line).ok().map(Envelope::from)
    }

    /// Whether it ends its request (every request gets exactly one).
    pub fn is_terminal(&self) -> bool {
        event::is_terminal(&self.event)
    }
}

/// A connection to the daemon.
pub struct Connection(AsyncClient);

impl Connection {
    /// Connects to the socket at `path`; the envelopes not claimed by a
    /// [`Connection::call`] arrive on the returned channel, which closes when
    /// the daemon closes the connection.
    pub async fn connect(
        path: &Path,
    ) -> std::io::Result<(Connection, mpsc::UnboundedReceiver<Envelope>)> {
        let (client, mut unclaimed) = AsyncClient::connect(path).await.map_err(|e| match e {
            ClientError::Connect { source, .. } | ClientError::Io(source) => source,
            other => std::io::Error::other(other.to_string()),
        })?;
        // The UI reads its own envelope shape (details `Null` when absent).
        let (tx, rx) = mpsc::unbounded_channel();
        tokio::spawn(async move {
            while let Some(env) = unclaimed.recv().await {
                if tx.send(Envelope::from(env)).is_err() {
                    break;
                }
            }
        });
        Ok((Connection(client), rx))
    }

    /// The `data` of a request's terminal envelope, or the daemon's error.
    async fn data_within<P: serde::Serialize + ?Sized>(
        &self,
        method: &str,
        params: &P,
        limit: Duration,
    ) -> Result<String, TuiError> {
        let env = self
            .0
            .request_within(method, params, Some(limit))
            .await
            .map_err(|e| tui_error(method, e))?;
        match env.as_error() {
            Some(e) => Err(TuiError::Daemon(e.message)),
            None => Ok(env.data),
        }
    }

    /// A typed call: `M`'s params in, its result out (the method table says
    /// both).
    pub async fn call<M: MethodType>(&self, params: &M::Params) -> Result<M::Result, TuiError> {
        self.call_within::<M>(params, CALL_TIMEOUT).await
    }

    /// [`Connection::call`] with its own time limit.
    pub async fn call_within<M: MethodType>(
        &self,
        params: &M::Params,
        limit: Duration,
    ) -> Result<M::Result, TuiError> {
        self.0
            .call_within::<M>(params, limit)
            .await
            .map_err(|e| tui_error(seekclaw_client::method_name::<M>(), e))
    }

    /// A typed call whose `data` is kept as sent (for readers of raw JSON).
    pub async fn call_data<M: MethodType>(&self, params: &M::Params) -> Result<String, TuiError> {
        self.data_within(seekclaw_client::method_name::<M>(), params, CALL_TIMEOUT)
            .await
    }

    /// Sends a request of `M` whose envelopes go to the channel; returns its id.
    pub async fn send<M: MethodType>(&self, params: &M::Params) -> Result<i64, TuiError> {
        self.0
            .send::<M>(params)
            .await
            .map_err(|e| tui_error(seekclaw_client::method_name::<M>(), e))
    }
}

/// The UI's words for a client failure.
fn tui_error(method: &str, e: ClientError) -> TuiError {
    match e {
        ClientError::Daemon(d) => TuiError::Daemon(d.message),
        ClientError::Timeout { .. } => TuiError::Timeout(method.to_string()),
        ClientError::BadResult { .. }
        | ClientError::BadLine { .. }
        | ClientError::Encode { .. } => TuiError::BadResult(method.to_string()),
        ClientError::Connect { .. } | ClientError::Io(_) | ClientError::Closed => {
            TuiError::Disconnected
        }
    }
}

impl From<seekclaw_client::Event> for Envelope {
    fn from(e: seekclaw_client::Event) -> Envelope {
        Envelope {
            id: e.id,
            event: e.event,
            data: e.data,
            session_id: e.session_id,
            details: e.details.unwrap_or(Value::Null),
        }
    }
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
