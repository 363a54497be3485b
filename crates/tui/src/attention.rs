//! The chat's attention signals (docs/attention.md): the `ui.statusLine`
//! command's row and `ui.notify`, read from the home's `config.json` when
//! the chat opens and again whenever it changes (a file that does not read
//! keeps the settings in use).

use std::time::Duration;

use seekclaw_config::{Config, Home, UiSettings};
use seekclaw_protocol::api::NoParams;
use seekclaw_protocol::method;
use tokio::time::Instant;

use crate::app::App;
use crate::client::Connection;
use crate::notify::Notifier;
use crate::status_line::{Runner, Shown, StatusInput};

/// A mode the daemon does not tell this soon is left as it was.
const LIMIT: Duration = Duration::from_secs(2);

/// The status-line runner, the notifier and what the status line's input
/// needs beyond the [`App`].
pub struct Attention {
    /// Runs `ui.statusLine.command`.
    pub status: Runner,
    /// Rings or notifies.
    pub notifier: Notifier,
    /// The effective agent mode (asked only while a status line is set).
    mode: Option<String>,
}

impl Attention {
    /// The settings of `home`'s config (defaults when it does not read).
    pub fn new(home: &Home, app: &mut App) -> Attention {
        let in_tmux = std::env::var_os("TMUX").is_some_and(|v| !v.is_empty());
        let ui = read(home).unwrap_or_default();
        let mut attention = Attention {
            status: Runner::default(),
            notifier: Notifier::new(ui.notify(), in_tmux),
            mode: None,
        };
        attention.apply(&ui, app);
        attention
    }

    /// Reads the config again (it changed on disk).
    pub fn reload(&mut self, home: &Home, app: &mut App) {
        if let Some(ui) = read(home) {
            self.apply(&ui, app);
        }
    }

    fn apply(&mut self, ui: &UiSettings, app: &mut App) {
        self.notifier.set_mode(ui.notify());
        self.status
            .configure(ui.status_command(), ui.status_refresh());
        match (self.status.enabled(), &app.status_text) {
            (false, _) => app.status_text = None,
            (true, None) => app.status_text = Some(Shown::default()),
            (true, Some(_)) => {}
        }
    }

    /// Asks the daemon for what the status line shows that the UI does not
    /// track (the agent mode); nothing without a status line.
    pub async fn refresh(&mut self, conn: &Connection, app: &App) {
        if !self.status.enabled() || app.disconnected {
            return;
        }
        if let Ok(mode) = conn
            .call_within::<method::AgentModeGet>(&NoParams {}, LIMIT)
            .await
        {
            self.mode = Some(mode.text);
        }
    }

    /// Starts a status-line run when due; when to look again. Nothing (no
    /// state built) without a status line.
    pub fn poll(&mut self, app: &App) -> Option<Instant> {
        let mode = self.mode.as_deref();
        let root = app.root.as_deref();
        self.status.poll(Instant::now(), root, || {
            let branch = root.and_then(crate::status_line::git_branch);
            StatusInput::of(app, mode, branch)
        })
    }

    /// After the UI's state changed: a bell or notification when one is due.
    pub fn observe(&mut self, app: &App) {
        if let Some(signal) = self.notifier.observe(app) {
            self.notifier.emit(&signal);
        }
    }
}

/// The `ui` settings of `home`'s config; `None` when it does not read.
fn read(home: &Home) -> Option<UiSettings> {
    seekclaw_config::load_json_file::<Config>(&home.config_path())
        .ok()
        .map(|loaded| loaded.value.ui)
}
