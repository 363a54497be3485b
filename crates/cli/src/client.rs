//! The CLI's connection to a running daemon: `seekclaw-client` with the
//! CLI's policy on top (a clear "no daemon" message, a read time limit).
//! Starting an on-demand daemon is the caller's business, not this one's.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Result, anyhow};
use seekclaw_client::{Client, ClientError, MethodType};
use seekclaw_config::Home;
use seekclaw_protocol::ErrorCode;

/// Admin calls answer quickly; a daemon silent this long is stuck.
const READ_TIMEOUT: Duration = Duration::from_secs(60);

/// One connection to the daemon.
pub struct DaemonClient(Client);

impl DaemonClient {
    /// Connects to the daemon of `home`; a clear error when none runs.
    pub fn connect(home: &Home) -> Result<DaemonClient> {
        open(home).map_err(|e| not_running(home, &e))
    }

    /// Connects when a daemon answers on the socket of `home`; `None` when none
    /// does (no socket, or one left by a daemon that died).
    pub fn running(home: &Home) -> Option<DaemonClient> {
        open(home).ok()
    }

    /// A typed call: `M`'s params in, its result out; an `error` envelope
    /// becomes an error with the daemon's message.
    pub fn call<M: MethodType>(&mut self, params: &M::Params) -> Result<M::Result> {
        self.0.call::<M>(params).map_err(described::<M>)
    }

    /// [`Self::call`], with the error's code when the daemon sent one (a
    /// `conflict` gets its own hint).
    pub fn call_coded<M: MethodType>(
        &mut self,
        params: &M::Params,
    ) -> std::result::Result<M::Result, (Option<ErrorCode>, anyhow::Error)> {
        self.0
            .call::<M>(params)
            .map_err(|e| (e.code(), described::<M>(e)))
    }

    /// A call whose `data` is kept as sent (`--json` output prints it
    /// whole, fields this CLI does not know included).
    pub fn call_data<M: MethodType>(&mut self, params: &M::Params) -> Result<String> {
        let id = self.0.send::<M>(params).map_err(described::<M>)?;
        let env = self.0.terminal(id).map_err(described::<M>)?;
        match env.as_error() {
            Some(e) => Err(anyhow!(e.message)),
            None => Ok(env.data),
        }
    }
}

/// The daemon's own message for its errors; context for the others.
fn described<M: MethodType>(e: ClientError) -> anyhow::Error {
    let method = seekclaw_client::method_name::<M>();
    match e {
        ClientError::Daemon(d) => anyhow!(d.message),
        ClientError::Closed => {
            anyhow!("the daemon closed the connection before answering {method}")
        }
        other => {
            anyhow::Error::new(other).context(format!("no answer from the daemon to {method}"))
        }
    }
}

fn open(home: &Home) -> Result<DaemonClient, ClientError> {
    let mut client = Client::connect(socket(home))?;
    client.set_read_timeout(Some(READ_TIMEOUT))?;
    Ok(DaemonClient(client))
}

#[cfg(unix)]
fn socket(home: &Home) -> PathBuf {
    home.socket_path()
}

#[cfg(windows)]
fn socket(_home: &Home) -> PathBuf {
    PathBuf::from(r"\\.\pipe\seekclaw")
}

fn not_running(home: &Home, err: &ClientError) -> anyhow::Error {
    let why = match err {
        ClientError::Connect { source, .. } => source.to_string(),
        other => other.to_string(),
    };
    anyhow!(
        "no seekclaw daemon is running for {} ({why}); start one with `seekclaw daemon`",
        home.root().display()
    )
}
