//! The line `seekclaw chat` prints once its screen is gone: how to come back
//! to the session it used (`seekclaw --continue`, `seekclaw --resume ID`).
//! The terminal UI does not report which session it ended on, so the store
//! tells: the top-level session of the chat's scopes that changed while it
//! ran, else the one it was asked to open.

use std::path::{Path, PathBuf};

use seekclaw_config::{GLOBAL_SCOPE, Home};
use seekclaw_daemon::Scope;
use seekclaw_store::Store;

/// Sessions a listing reads to find the newest top-level one (children
/// come right before their parent's end).
const SCAN: usize = 50;

/// What the chat's scopes looked like before it opened.
pub struct Before {
    /// Scope keys to look in: the chat's, then the global one (a declined
    /// trust prompt chats globally).
    keys: Vec<String>,
    /// The newest top-level session of each key then: (id, updated at).
    latest: Vec<Option<(String, String)>>,
    /// How the user named the scope: `--global`, `--workspace DIR` or nothing.
    workspace: Option<PathBuf>,
    global: bool,
}

impl Before {
    /// Reads the scopes' newest sessions; `None` when the scope cannot be
    /// told (the chat then says nothing afterwards).
    pub fn read(home: &Home, cwd: &Path, workspace: Option<&Path>, global: bool) -> Option<Before> {
        let scope = Scope::local(home, cwd, workspace, global).ok()?;
        let mut keys = vec![scope.key];
        if !global {
            keys.push(GLOBAL_SCOPE.to_string());
        }
        let store = Store::open_read_only(&home.db_path()).ok();
        let latest = keys
            .iter()
            .map(|k| store.as_ref().and_then(|s| newest(s, k)))
            .collect();
        Some(Before {
            keys,
            latest,
            workspace: workspace.map(|w| seekclaw_config::normalize_path(w, cwd)),
            global,
        })
    }

    /// The hint for the session the chat used, or `None` when there is
    /// none. `asked`: the id it was told to open; `continued`: it opened the
    /// scope's newest (`--continue`).
    pub fn hint(&self, home: &Home, asked: Option<&str>, continued: bool) -> Option<String> {
        let store = Store::open_read_only(&home.db_path()).ok()?;
        let changed = self
            .keys
            .iter()
            .zip(&self.latest)
            .filter_map(|(key, before)| {
                let now = newest(&store, key)?;
                (before.as_ref() != Some(&now)).then(|| (key.clone(), now))
            })
            .max_by(|a, b| a.1.1.cmp(&b.1.1));
        let (key, id) = match changed {
            Some((key, (id, _))) => (key, id),
            None => {
                // Nothing was written: the session it opened, if any.
                let key = self.keys.first()?.clone();
                let id = match (asked, continued) {
                    (Some(id), _) => id.to_string(),
                    (None, true) => self.latest.first()?.as_ref()?.0.clone(),
                    // A new chat that never sent a prompt made no session.
                    (None, false) => return None,
                };
                store.session(&key, &id).ok()??;
                (key, id)
            }
        };
        let flags = if key == GLOBAL_SCOPE {
            " --global".to_string()
        } else if let (Some(dir), false) = (&self.workspace, self.global) {
            format!(" --workspace {}", quoted(&dir.display().to_string()))
        } else {
            String::new()
        };
        // `--continue` opens the scope's newest session: this one only if it is.
        let is_newest = store
            .list_recent(Some(&key), false, Some(1))
            .ok()
            .and_then(|l| l.into_iter().next())
            .is_some_and(|l| l.header.id == id);
        Some(if is_newest {
            format!(
                "Resume this session with `seekclaw{flags} --continue` or `seekclaw{flags} --resume {id}`."
            )
        } else {
            format!("Resume this session with `seekclaw{flags} --resume {id}`.")
        })
    }
}

/// The newest top-level session of scope `key`: (id, updated at).
fn newest(store: &Store, key: &str) -> Option<(String, String)> {
    store
        .list_recent(Some(key), false, Some(SCAN))
        .ok()?
        .into_iter()
        .find(|l| l.header.parent_id.is_none())
        .map(|l| (l.header.id, l.header.updated_at))
}

/// `text` as one shell word.
fn quoted(text: &str) -> String {
    if text
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+,:@".contains(c))
    {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}
