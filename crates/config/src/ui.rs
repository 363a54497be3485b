//! `ui` in `config.json`: the wording of what the daemon itself writes for
//! people (workflow labels on the socket, scheduled sessions' titles and run
//! outcomes). Our own front ends (`seekclaw run`, the terminal UI) speak
//! English whatever it says.

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
    /// Unknown keys, kept so a newer config round-trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl UiSettings {
    /// Nothing set (left out of a written file).
    pub fn is_empty(&self) -> bool {
        self.language.is_none() && self.extra.is_empty()
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
}
