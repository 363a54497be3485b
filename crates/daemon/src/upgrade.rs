//! `connection.upgrade`: a connection's first request may switch it to
//! another protocol served over the daemon's engine (`seekclaw acp` through
//! a running daemon, so an editor's turns are the daemon's: watched, listed
//! and shared with every other client). The binary registers each protocol's
//! server, so the daemon imports no other front end.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use seekclaw_engine::Engine;
use seekclaw_protocol::{Envelope, ErrorCode, MethodError, Request, method};
use tokio::io::{AsyncBufRead, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio_util::sync::CancellationToken;

use crate::connections::Connections;
use crate::framing::{LineReader, write_all_or_stall};

/// What an upgraded connection reads: the daemon's buffered reader, holding
/// whatever the client sent right behind its upgrade request.
pub type UpgradeInput = Box<dyn AsyncBufRead + Send + Unpin>;
/// Where an upgraded connection writes.
pub type UpgradeOutput = Box<dyn AsyncWrite + Send + Unpin>;
/// What a protocol's server returns: the connection's whole life.
pub type UpgradeFuture = BoxFuture<'static, ()>;
/// A protocol's server: runs until its input ends or the token (the
/// daemon's shutdown) fires.
pub type UpgradeServer =
    dyn Fn(Engine, UpgradeInput, UpgradeOutput, CancellationToken) -> UpgradeFuture + Send + Sync;

/// The protocols a connection may switch to, by name.
#[derive(Clone, Default)]
pub struct Upgrades {
    servers: BTreeMap<String, Arc<UpgradeServer>>,
}

impl std::fmt::Debug for Upgrades {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.servers.keys()).finish()
    }
}

impl Upgrades {
    /// Adds the protocol `name`, served by `server`.
    pub fn with<F>(mut self, name: &str, server: F) -> Upgrades
    where
        F: Fn(Engine, UpgradeInput, UpgradeOutput, CancellationToken) -> UpgradeFuture
            + Send
            + Sync
            + 'static,
    {
        self.servers.insert(name.to_string(), Arc::new(server));
        self
    }

    /// The answer to a first request `connection.upgrade`: the server (when
    /// the protocol is served) and the envelope to write, its acknowledgement
    /// or the error.
    pub(crate) fn accept(&self, req: &Request) -> (Option<Arc<UpgradeServer>>, Envelope) {
        let params = match req.params.read::<method::ConnectionUpgrade>() {
            Ok(params) => params,
            Err(e) => return (None, Envelope::error(req.id, &e)),
        };
        let name = params.protocol.trimmed();
        let name = name.as_str();
        match self.servers.get(name) {
            Some(server) => {
                tracing::info!(protocol = name, "connection upgraded");
                let ack = Envelope::result(req.id, format!("upgraded to {name}"));
                (Some(server.clone()), ack)
            }
            None => {
                let offered: Vec<&str> = self.servers.keys().map(String::as_str).collect();
                let offered = if offered.is_empty() {
                    "none".to_string()
                } else {
                    offered.join(", ")
                };
                let err = MethodError {
                    param: Some("protocol".into()),
                    ..MethodError::new(
                        ErrorCode::NotFound,
                        format!(
                            "No protocol {name:?} to upgrade to (this daemon serves: {offered})"
                        ),
                    )
                };
                (None, Envelope::error(req.id, &err))
            }
        }
    }
}

/// A connection whose first request upgraded it, handing over to the server.
pub(crate) struct Upgraded<'a> {
    /// The engine the server runs its sessions on.
    pub engine: &'a Engine,
    /// The daemon's open connections, which count this one as a client.
    pub connections: &'a Connections,
    /// How long a write may wait for a client that does not read.
    pub stall: Duration,
    pub id: u64,
    /// Fires at the daemon's shutdown: the server ends its sessions.
    pub closing: &'a CancellationToken,
    /// Fires at a hard stop: the server is abandoned.
    pub kill: &'a CancellationToken,
}

impl Upgraded<'_> {
    /// Writes the acknowledgement (`pending`), then runs the server over the
    /// connection until it ends. The connection takes no more broadcasts but
    /// counts as a client, so an on-demand daemon stays up for an editor.
    pub(crate) async fn serve<R, W>(
        self,
        server: Arc<UpgradeServer>,
        reader: LineReader<BufReader<R>>,
        mut output: W,
        pending: Vec<u8>,
    ) where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        let _client = self.connections.upgrade(self.id);
        if !write_all_or_stall(&mut output, &pending, self.stall).await
            || output.flush().await.is_err()
        {
            return;
        }
        // The upgrade line was read whole, so nothing is half-read here.
        let Some(input) = reader.into_inner() else {
            return;
        };
        let serving = server(
            self.engine.clone(),
            Box::new(input),
            Box::new(output),
            self.closing.clone(),
        );
        tokio::select! {
            _ = serving => {}
            _ = self.kill.cancelled() => {}
        }
        self.closing.cancel();
        tracing::debug!(conn = self.id, "upgraded connection closed");
    }
}
