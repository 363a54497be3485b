//! The daemon connection: one socket for everything (as the desktop), over
//! `seekclaw-client`'s async client. A request made with
//! [`Connection::call`] gets its terminal envelope back directly; every other
//! envelope (a turn's stream, broadcasts, answers to [`Connection::send`]) goes
//! to the UI's channel in arrival order, as the client's [`Event`]s (read
//! with [`Event::kind`]).

use std::path::Path;
use std::time::Duration;

use seekclaw_client::{AsyncClient, ClientError, Event, MethodType};
use tokio::sync::mpsc;

use crate::TuiError;

/// Admin calls answer quickly; a daemon silent this long is stuck.
const CALL_TIMEOUT: Duration = Duration::from_secs(60);

/// A connection to the daemon.
pub struct Connection(AsyncClient);

impl Connection {
    /// Connects to the socket at `path`; the envelopes not claimed by a
    /// [`Connection::call`] arrive on the returned channel, which closes when
    /// the daemon closes the connection.
    pub async fn connect(
        path: &Path,
    ) -> std::io::Result<(Connection, mpsc::UnboundedReceiver<Event>)> {
        let (client, unclaimed) = AsyncClient::connect(path).await.map_err(|e| match e {
            ClientError::Connect { source, .. } | ClientError::Io(source) => source,
            other => std::io::Error::other(other.to_string()),
        })?;
        Ok((Connection(client), unclaimed))
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

    /// A typed call whose JSON result is read as `T`, the UI's own lenient
    /// view of it (a session's timeline skips entry kinds it does not draw).
    pub async fn call_as<M: MethodType, T: serde::de::DeserializeOwned>(
        &self,
        params: &M::Params,
    ) -> Result<T, TuiError> {
        self.0
            .call_as::<M, T>(params, Some(CALL_TIMEOUT))
            .await
            .map_err(|e| tui_error(seekclaw_client::method_name::<M>(), e))
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
        ClientError::Daemon(d) if d.code == Some(seekclaw_protocol::ErrorCode::Conflict) => {
            TuiError::Conflict(d.message)
        }
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
