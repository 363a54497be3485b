//! What the status bar says about the model and the config stays true while
//! the chat is open: the model a new turn will use (the session's own, else
//! the default, which another window or `seekclaw model use` may change),
//! and whether `config.json` reads. Both are asked again (two local calls)
//! when a config file changes (`config_watch`) and at a turn's end, so a
//! file that breaks or is fixed shows without a restart, and an idle chat
//! never polls.

use std::time::Duration;

use seekclaw_protocol::api::NoParams;
use seekclaw_protocol::method;

use crate::app::App;
use crate::client::Connection;

/// A refresh the daemon does not answer this soon is skipped (the UI never waits on it).
const LIMIT: Duration = Duration::from_secs(2);

/// The home's config files as last read (`config.status`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ConfigState {
    /// The notice the last read called for (`None`: both read cleanly);
    /// unset until the first read.
    notice: Option<Option<String>>,
    /// `config.json` does not read: with the configuration read before in
    /// use (`Some(true)`) or none (`Some(false)`, turns refused).
    broken: Option<bool>,
}

impl App {
    /// The model a new turn on this session uses, when known.
    pub fn next_model(&self) -> Option<&str> {
        self.session_model
            .as_deref()
            .or(self.default_model.as_deref())
    }

    /// The status bar's model: the one answering while a turn runs
    /// (`model_start`), else the one a new turn will use.
    pub fn model_label(&self) -> Option<String> {
        let shown = match &self.turn {
            Some(_) => self.model.as_deref().or(self.next_model()),
            None => self.next_model().or(self.model.as_deref()),
        };
        match shown {
            Some(m) => Some(m.to_string()),
            None if self.any_model == Some(false) => Some("no model configured".to_string()),
            None => None,
        }
    }

    /// The status bar's word on a `config.json` that does not read.
    pub fn config_label(&self) -> Option<&'static str> {
        match self.config.broken? {
            true => Some("config.json unreadable (last good in use)"),
            false => Some("config.json unreadable (turns refused)"),
        }
    }

    /// Takes in a `config.status` answer; a change since the last one is
    /// said in the conversation (the first is said by [`crate::config_notice`]).
    pub(crate) fn set_config_status(&mut self, status: &seekclaw_protocol::api::ConfigStatusView) {
        let notice = crate::config_notice::notice(status);
        self.config.broken = status
            .files
            .iter()
            .any(|f| f.name == "config.json" && f.error.is_some())
            .then_some(status.using_last_good);
        let before = self.config.notice.replace(notice.clone());
        match (before, notice) {
            (Some(before), now) if before == now => {}
            (None, _) => {}
            (Some(_), Some(text)) => self.error(text),
            (Some(_), None) => self.notice("The config files read cleanly again."),
        }
    }
}

/// Asks `config.status` again (quietly when the daemon cannot say).
pub(crate) async fn refresh_config(conn: &Connection, app: &mut App) {
    if let Ok(status) = conn
        .call_within::<method::ConfigStatus>(&NoParams {}, LIMIT)
        .await
    {
        app.set_config_status(&status);
    }
}

/// Asks the config's state and the model catalog (the default model, the
/// prices) again.
pub(crate) async fn refresh(conn: &Connection, app: &mut App) {
    refresh_config(conn, app).await;
    if let Ok(catalog) = crate::actions::catalog(conn).await {
        app.set_catalog(&catalog);
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn status(v: serde_json::Value) -> seekclaw_protocol::api::ConfigStatusView {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn the_bar_shows_the_model_a_new_turn_uses() {
        let mut app = App::default();
        assert_eq!(app.model_label(), None, "not known yet");
        app.set_catalog(&[]);
        assert_eq!(app.model_label().as_deref(), Some("no model configured"));
        app.set_catalog(&crate::fixtures::catalog(json!([
            {"ref": "tk/m1", "active": true},
            {"ref": "tk/m2", "active": false},
        ])));
        assert_eq!(app.model_label().as_deref(), Some("tk/m1"));
        app.session_model = Some("tk/m2".into());
        assert_eq!(app.model_label().as_deref(), Some("tk/m2"));
        // While a turn runs: the model answering it.
        app.start_turn(1, "hi");
        assert_eq!(app.model_label().as_deref(), Some("tk/m2"));
        app.model = Some("tk/m1".into());
        assert_eq!(app.model_label().as_deref(), Some("tk/m1"));
        app.turn = None;
        assert_eq!(app.model_label().as_deref(), Some("tk/m2"));
    }

    #[test]
    fn a_config_that_breaks_or_is_fixed_is_said_once_each_time() {
        let mut app = App::default();
        let fine = status(json!({"ok": true, "usingLastGood": false, "files": []}));
        let broken = status(json!({"ok": false, "usingLastGood": true, "files": [
            {"name": "config.json", "path": "/h/config.json",
             "error": "/h/config.json: line 2, column 1: expected comma", "warnings": []}
        ]}));
        app.set_config_status(&fine);
        assert!(app.entries.is_empty(), "the first read is said elsewhere");
        app.set_config_status(&broken);
        app.set_config_status(&broken);
        assert_eq!(app.entries.len(), 1, "{:?}", app.entries);
        assert_eq!(
            app.config_label(),
            Some("config.json unreadable (last good in use)")
        );
        app.set_config_status(&fine);
        assert_eq!(app.entries.len(), 2);
        assert_eq!(app.config_label(), None);
    }
}
