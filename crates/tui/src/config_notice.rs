//! One notice when the daemon cannot use the home's config files as written
//! (`config.status`): a `config.json` that is not JSON (the daemon keeps the
//! configuration it read before, or refuses turns), or fields it ignored.

use seekclaw_protocol::api::{ConfigStatusView, NoParams};
use seekclaw_protocol::method;

use crate::app::App;
use crate::client::Connection;

/// Asks the daemon once; says nothing when all is well or it cannot tell
/// (a daemon without `config.status`).
pub(crate) async fn show(conn: &Connection, app: &mut App) {
    let Ok(status) = conn.call::<method::ConfigStatus>(&NoParams {}).await else {
        return;
    };
    if let Some(text) = notice(&status) {
        app.error(text);
    }
}

/// The notice for a `config.status` result; `None` when both files read cleanly.
pub(crate) fn notice(status: &ConfigStatusView) -> Option<String> {
    if status.ok {
        return None;
    }
    let mut lines = Vec::new();
    for file in &status.files {
        if let Some(error) = &file.error {
            let consequence = match (file.name.as_str(), status.using_last_good) {
                ("config.json", true) => {
                    "the daemon keeps the configuration it read before; changes are refused until it is fixed"
                }
                ("config.json", false) => "turns and changes are refused until it is fixed",
                _ => "its defaults are in use",
            };
            lines.push(format!("Cannot read {error} — {consequence}."));
        }
        if !file.warnings.is_empty() {
            lines.push(format!(
                "{}: ignored as written (defaults apply): {}",
                file.name,
                file.warnings.join("; ")
            ));
        }
    }
    (!lines.is_empty()).then(|| lines.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_broken_file_and_ignored_fields_are_said_and_a_clean_one_is_not() {
        let read = |v| serde_json::from_value::<ConfigStatusView>(v).unwrap();
        let clean = read(json!({"ok": true, "usingLastGood": false, "files": []}));
        assert_eq!(notice(&clean), None);
        let broken = read(json!({"ok": false, "usingLastGood": true, "files": [
            {"name": "config.json", "path": "/h/config.json",
             "error": "/h/config.json: line 3, column 3: expected comma", "warnings": []},
            {"name": "state.json", "path": "/h/state.json", "warnings": ["x: unknown field"]}
        ]}));
        let text = notice(&broken).unwrap();
        assert_eq!(
            text,
            "Cannot read /h/config.json: line 3, column 3: expected comma — the daemon keeps the configuration it read before; changes are refused until it is fixed.\nstate.json: ignored as written (defaults apply): x: unknown field"
        );
    }
}
