//! The daemon's lifecycle (as the desktop's, reference §10.1): connect; if no
//! daemon answers, start `seekclaw daemon --on-demand` detached from the
//! terminal and probe until it does. On exit nothing is stopped: the daemon
//! may serve other windows, and one started on demand exits by itself once no
//! client is left (so a Ctrl-C or `kill -9` of this UI leaves none behind).

use std::fs::OpenOptions;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use seekclaw_client::Event;
use seekclaw_config::Home;
use seekclaw_protocol::api::NoParams;
use seekclaw_protocol::method;
use tokio::sync::mpsc;

use crate::TuiError;
use crate::client::Connection;

/// Probes after a spawn: the first after 120 ms, then every 250 ms (about 6 s).
const PROBES: u32 = 24;
const PROBE_INTERVAL: Duration = Duration::from_millis(250);
const FIRST_PROBE: Duration = Duration::from_millis(120);
/// Reconnecting after the connection closed: 5 tries, 700 ms apart.
const RECONNECTS: u32 = 5;
const RECONNECT_INTERVAL: Duration = Duration::from_millis(700);
/// How long a probe's `ping` may take.
const PING_TIMEOUT: Duration = Duration::from_millis(1600);

/// A connected daemon, and the process when this client started it.
pub struct Daemon {
    /// The connection every request goes over.
    pub conn: Connection,
    /// Envelopes not claimed by a call.
    pub events: mpsc::UnboundedReceiver<Event>,
    started: Option<Child>,
}

impl Daemon {
    /// Connects to the daemon of `home`, starting one when none answers.
    pub async fn connect_or_start(home: &Home) -> Result<Daemon, TuiError> {
        if let Some((conn, events)) = probe(home).await {
            return Ok(Daemon {
                conn,
                events,
                started: None,
            });
        }
        let mut child = spawn(home)?;
        tokio::time::sleep(FIRST_PROBE).await;
        for _ in 0..PROBES {
            if let Some((conn, events)) = probe(home).await {
                return Ok(Daemon {
                    conn,
                    events,
                    started: Some(child),
                });
            }
            if let Ok(Some(status)) = child.try_wait() {
                return Err(TuiError::DaemonExited(status.to_string(), log_path(home)));
            }
            tokio::time::sleep(PROBE_INTERVAL).await;
        }
        let _ = child.kill();
        let _ = child.wait();
        Err(TuiError::DaemonSilent(log_path(home)))
    }

    /// After the connection closed: probes 5 times 700 ms apart (as the
    /// desktop reconnects); a daemon this client started that has exited, or
    /// no daemon answering at all, is replaced by a new one started here.
    pub async fn reconnect(&mut self, home: &Home) -> Result<(), TuiError> {
        let ours_exited = self
            .started
            .as_mut()
            .is_some_and(|child| matches!(child.try_wait(), Ok(Some(_))));
        if !ours_exited {
            for _ in 0..RECONNECTS {
                tokio::time::sleep(RECONNECT_INTERVAL).await;
                if let Some((conn, events)) = probe(home).await {
                    self.conn = conn;
                    self.events = events;
                    return Ok(());
                }
            }
        }
        let fresh = Daemon::connect_or_start(home).await?;
        let old = std::mem::replace(self, fresh);
        if let Some(mut child) = old.started {
            // Ours is gone (or unreachable); reap it rather than leave a zombie.
            let _ = child.kill();
            let _ = child.wait();
        }
        Ok(())
    }

    /// Whether this client started the daemon.
    pub fn started_here(&self) -> bool {
        self.started.is_some()
    }

    /// Leaves: only disconnects, never sends `shutdown` (another window may
    /// be running a turn on this daemon). One this client started exits on
    /// its own once no client is left; the process is not waited for.
    pub async fn close(self) {
        drop(self);
    }
}

/// A connection whose `ping` is answered, or `None`.
async fn probe(home: &Home) -> Option<(Connection, mpsc::UnboundedReceiver<Event>)> {
    let (conn, events) = Connection::connect(&home.socket_path()).await.ok()?;
    conn.call_within::<method::Ping>(&NoParams {}, PING_TIMEOUT)
        .await
        .ok()?;
    Some((conn, events))
}

fn log_path(home: &Home) -> std::path::PathBuf {
    home.logs_dir().join("daemon-chat.log")
}

/// `<this executable> daemon --on-demand` in its own process group (a Ctrl-C
/// in the terminal is not its), stdin closed, output appended to
/// `logs/daemon-chat.log`.
fn spawn(home: &Home) -> Result<Child, TuiError> {
    let exe = std::env::current_exe().map_err(TuiError::Spawn)?;
    std::fs::create_dir_all(home.logs_dir()).map_err(TuiError::Spawn)?;
    let log = OpenOptions::new()
        .create(true)
        .append(true)
        .open(log_path(home))
        .map_err(TuiError::Spawn)?;
    let log2 = log.try_clone().map_err(TuiError::Spawn)?;
    Command::new(exe)
        .args(["daemon", "--on-demand"])
        .env("SEEKCLAW_HOME", home.root())
        .stdin(Stdio::null())
        .stdout(log)
        .stderr(log2)
        .process_group(0)
        .spawn()
        .map_err(TuiError::Spawn)
}
