//! `ui` in `config.json`: the wording of what the daemon itself writes for
//! people (workflow labels on the socket, scheduled sessions' titles and run
//! outcomes). Our own front ends (`seekclaw run`, the terminal UI) speak
//! English whatever it says. Also the terminal UI's attention signals: a
//! status-line command (`ui.statusLine`) and notifications (`ui.notify`).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// `ui`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct UiSettings {
    /// `zh` (the default: the original daemon's wording, which the desktop
    /// shows) or `en`; any other value reads as the default.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    /// The terminal UI's status-line command.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status_line: Option<StatusLineSettings>,
    /// How the terminal UI calls for attention while its terminal is not
    /// focused; unset reads as [`Notify::Bell`]. A value this version does
    /// not know falls back to the default (with a config warning).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notify: Option<Notify>,
    /// Unknown keys, kept so a newer config round-trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `ui.statusLine`: a command whose first line of output the terminal UI
/// shows under its prompt.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct StatusLineSettings {
    /// Run with `sh -c` in the chat's workspace, the session's state as JSON
    /// on its stdin; blank or unset: no status line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// Also run this often (seconds, at least 1) while nothing changes, for a
    /// line that shows outside state (a clock, the git status); unset: only
    /// when the session's state changes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refresh_seconds: Option<u64>,
    /// Unknown keys, kept so a newer config round-trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `ui.notify`: the signal for a turn's end or a waiting approval while the
/// terminal is not focused.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Notify {
    /// Nothing.
    Off,
    /// The terminal bell (BEL).
    #[default]
    Bell,
    /// A desktop notification by OSC 9 (iTerm2, WezTerm, Windows Terminal,
    /// kitty, foot, Ghostty).
    Osc9,
    /// A desktop notification by OSC 777 (rxvt-unicode, VTE terminals such
    /// as GNOME Terminal, foot, WezTerm).
    Osc777,
}

impl UiSettings {
    /// Nothing set (left out of a written file).
    pub fn is_empty(&self) -> bool {
        self.language.is_none()
            && self.status_line.is_none()
            && self.notify.is_none()
            && self.extra.is_empty()
    }

    /// The status-line command, when one is set (not blank).
    pub fn status_command(&self) -> Option<&str> {
        self.status_line
            .as_ref()?
            .command
            .as_deref()
            .filter(|c| !c.trim().is_empty())
    }

    /// The periodic re-run of the status line, when asked for (at least 1 s).
    pub fn status_refresh(&self) -> Option<std::time::Duration> {
        let secs = self.status_line.as_ref()?.refresh_seconds?;
        Some(std::time::Duration::from_secs(secs.max(1)))
    }

    /// `notify`, with its default.
    pub fn notify(&self) -> Notify {
        self.notify.unwrap_or_default()
    }

    /// The language `language` names.
    pub fn language(&self) -> UiLanguage {
        match self.language.as_deref().map(str::trim) {
            Some(l)
                if l.eq_ignore_ascii_case("en") || l.to_ascii_lowercase().starts_with("en-") =>
            {
                UiLanguage::En
            }
            _ => UiLanguage::Zh,
        }
    }
}

/// The language of the daemon's own wording.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum UiLanguage {
    /// Chinese, as the original daemon (and so the desktop) has it.
    #[default]
    Zh,
    /// English.
    En,
}

/// The suffix the original daemon (and `ui.language` `zh`) gives scheduled
/// runs' session titles.
const SCHEDULED_ZH: &str = "（计划任务）";

/// A session title as our own front ends show it: a scheduled run's Chinese
/// suffix (stored for the desktop) reads ` (scheduled)`.
pub fn english_title(title: &str) -> std::borrow::Cow<'_, str> {
    match title.strip_suffix(SCHEDULED_ZH) {
        Some(task) => format!("{task} (scheduled)").into(),
        None => title.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scheduled_titles_read_in_english() {
        assert_eq!(english_title("Nightly（计划任务）"), "Nightly (scheduled)");
        assert_eq!(english_title("Fix the parser"), "Fix the parser");
    }

    #[test]
    fn only_english_switches() {
        let ui = |l: Option<&str>| UiSettings {
            language: l.map(str::to_string),
            ..Default::default()
        };
        assert_eq!(ui(None).language(), UiLanguage::Zh);
        assert_eq!(ui(Some("zh")).language(), UiLanguage::Zh);
        assert_eq!(ui(Some("EN")).language(), UiLanguage::En);
        assert_eq!(ui(Some("en-GB")).language(), UiLanguage::En);
        assert_eq!(ui(Some("fr")).language(), UiLanguage::Zh);
        assert!(ui(None).is_empty());
    }

    #[test]
    fn attention_keys_read_with_their_defaults() {
        let ui: UiSettings = serde_json::from_value(serde_json::json!({
            "statusLine": {"command": "  ", "refreshSeconds": 0},
            "notify": "osc777"
        }))
        .unwrap();
        assert_eq!(ui.status_command(), None, "blank is unset");
        assert_eq!(ui.status_refresh(), Some(std::time::Duration::from_secs(1)));
        assert_eq!(ui.notify(), Notify::Osc777);
        assert!(!ui.is_empty());
        let unset = UiSettings::default();
        assert_eq!(unset.notify(), Notify::Bell);
        assert_eq!(unset.status_refresh(), None);
        let set: UiSettings =
            serde_json::from_value(serde_json::json!({"statusLine": {"command": "echo hi"}}))
                .unwrap();
        assert_eq!(set.status_command(), Some("echo hi"));
    }

    #[test]
    fn an_unknown_notify_value_falls_back_alone() {
        let tree = serde_json::json!({"ui": {"notify": "loud", "language": "en"}});
        let loaded: crate::Loaded<crate::Config> =
            crate::jsonfile::typed_tree(std::path::Path::new("config.json"), &tree).unwrap();
        assert_eq!(loaded.value.ui.notify(), Notify::Bell);
        assert_eq!(loaded.value.ui.language(), UiLanguage::En);
        assert!(
            loaded.warnings.iter().any(|w| w.path == "ui.notify"),
            "{:?}",
            loaded.warnings
        );
        // A typo in the status line's keys is said; `ui`'s own unknown keys are not.
        let tree = serde_json::json!({"ui": {"theme": "dark", "statusLine": {"comand": "x"}}});
        let loaded: crate::Loaded<crate::Config> =
            crate::jsonfile::typed_tree(std::path::Path::new("config.json"), &tree).unwrap();
        let paths: Vec<&str> = loaded.warnings.iter().map(|w| w.path.as_str()).collect();
        assert_eq!(paths, ["ui.statusLine.comand"]);
    }
}
