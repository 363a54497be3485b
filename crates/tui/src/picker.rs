//! The `/sessions` and `/model` pickers: a modal list with type-to-search.
//! Sessions switch between the workspace's and the global scope (Tab) and
//! show archived ones on request (Ctrl-A); Enter opens the session or
//! switches to the model, Esc closes.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use seekclaw_protocol::api::{CatalogEntry, SessionHeader};

use crate::app::{Action, App};

/// What a picker lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PickerKind {
    /// Sessions of a scope.
    Sessions {
        /// The global scope (else the workspace's).
        global: bool,
        /// Archived sessions are listed too.
        archived: bool,
    },
    /// The model catalog.
    Models,
}

/// One row.
#[derive(Debug, Clone, PartialEq)]
pub struct PickItem {
    /// What Enter acts on: a session id or a model ref.
    pub key: String,
    /// The main text (a title, a model ref).
    pub label: String,
    /// Dimmed text after it.
    pub detail: String,
}

/// An open picker.
#[derive(Debug, Clone, PartialEq)]
pub struct Picker {
    /// What it lists.
    pub kind: PickerKind,
    /// All rows, in the daemon's order.
    pub items: Vec<PickItem>,
    /// The search typed so far.
    pub query: String,
    /// The highlighted row, among [`Picker::shown`].
    pub selected: usize,
}

impl Picker {
    /// The sessions `session.list` returned, each subagent's session right
    /// under its parent's (marked `└`), as `seekclaw sessions list` shows them.
    pub fn sessions(list: &[SessionHeader], global: bool, archived: bool) -> Picker {
        // A fork sits under the session it came from, as a subagent's does.
        let parents: Vec<Option<&str>> = list
            .iter()
            .map(|s| {
                s.parent_id
                    .as_deref()
                    .or(s.forked_from.as_ref().map(|f| f.session_id.as_str()))
            })
            .collect();
        let items: Vec<PickItem> = list
            .iter()
            .map(|s| {
                let id = s.id.clone();
                let title = s.title.as_deref().filter(|t| !t.trim().is_empty());
                let updated = s.updated_at.as_str();
                let mut detail = format!("{id}  {}", updated.get(..16).unwrap_or(updated));
                if s.archived {
                    detail.push_str("  (archived)");
                }
                let label = title
                    .map(|t| seekclaw_config::english_title(t).into_owned())
                    .unwrap_or_else(|| "(untitled)".to_string());
                PickItem {
                    label: match &s.forked_from {
                        Some(_) => format!("⑂ {label}"),
                        None => label,
                    },
                    key: id,
                    detail,
                }
            })
            .collect();
        Picker {
            kind: PickerKind::Sessions { global, archived },
            items: nested(items, &parents),
            query: String::new(),
            selected: 0,
        }
    }

    /// The models `model.catalog` returned; the session's own model (else
    /// the default, the catalog's active one) selected.
    pub fn models(catalog: &[CatalogEntry], session_model: Option<&str>) -> Picker {
        let mut selected = None;
        let mut default = 0;
        let items = catalog
            .iter()
            .enumerate()
            .map(|(i, m)| {
                let mut detail = Vec::new();
                let r = m.model_ref.clone();
                if session_model == Some(r.as_str()) {
                    selected = Some(i);
                    detail.push("this session".to_string());
                }
                if m.active {
                    default = i;
                    detail.push("default".to_string());
                }
                if let Some(alias) = &m.alias {
                    detail.push(format!("alias {alias}"));
                }
                if !m.provider_enabled {
                    detail.push("provider disabled".to_string());
                }
                PickItem {
                    key: r.clone(),
                    label: r,
                    detail: detail.join(", "),
                }
            })
            .collect();
        Picker {
            kind: PickerKind::Models,
            items,
            query: String::new(),
            selected: selected.unwrap_or(default),
        }
    }

    /// The rows the search keeps: every word of it is in the label or the
    /// detail (case-insensitive).
    pub fn shown(&self) -> Vec<&PickItem> {
        let words: Vec<String> = self
            .query
            .split_whitespace()
            .map(str::to_lowercase)
            .collect();
        self.items
            .iter()
            .filter(|item| {
                let hay = format!("{} {}", item.label, item.detail).to_lowercase();
                words.iter().all(|w| hay.contains(w))
            })
            .collect()
    }

    /// The title over the list.
    pub fn title(&self) -> String {
        match self.kind {
            PickerKind::Sessions { global, archived } => format!(
                " Sessions · {} · {} ",
                if global { "global" } else { "this workspace" },
                if archived {
                    "with archived"
                } else {
                    "archived hidden"
                }
            ),
            PickerKind::Models => " Models ".to_string(),
        }
    }

    /// The keys, under the list.
    pub fn help(&self) -> &'static str {
        match self.kind {
            PickerKind::Sessions { .. } => {
                " type to search · ↑↓ · Enter opens · Tab: workspace/global · Ctrl-A: archived · Esc "
            }
            PickerKind::Models => {
                " type to search · ↑↓ · Enter: this session · Ctrl-D: the default for new sessions · Esc "
            }
        }
    }
}

/// `items` with each child right under its parent when the parent is
/// listed (labelled `└ `, deeper ones indented), the order otherwise kept;
/// a child whose parent is not listed (archived, gone) stands on its own.
fn nested(items: Vec<PickItem>, parents: &[Option<&str>]) -> Vec<PickItem> {
    let parent_of = |i: usize| {
        parents
            .get(i)
            .copied()
            .flatten()
            .filter(|p| *p != items[i].key && items.iter().any(|item| item.key == *p))
    };
    let mut done = vec![false; items.len()];
    let mut out = Vec::with_capacity(items.len());
    // Depth-first from each top-level row; `done` stops a cycle.
    let mut stack: Vec<(usize, usize)> = (0..items.len())
        .rev()
        .filter(|&i| parent_of(i).is_none())
        .map(|i| (i, 0))
        .collect();
    loop {
        let Some((i, depth)) = stack.pop() else {
            // Rows only a cycle of parents reaches: listed as they come.
            match done.iter().position(|d| !d) {
                Some(i) => {
                    stack.push((i, 1));
                    continue;
                }
                None => break,
            }
        };
        if std::mem::replace(&mut done[i], true) {
            continue;
        }
        let mut item = items[i].clone();
        if depth > 0 {
            item.label = format!("{}└ {}", "  ".repeat(depth - 1), item.label);
        }
        out.push(item);
        for j in (0..items.len()).rev() {
            if !done[j] && parent_of(j) == Some(items[i].key.as_str()) {
                stack.push((j, depth + 1));
            }
        }
    }
    out
}

impl App {
    /// A key while a picker is open.
    pub(crate) fn picker_key(&mut self, key: KeyEvent) -> Option<Action> {
        let picker = self.picker.as_mut()?;
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let count = picker.shown().len();
        match key.code {
            KeyCode::Esc => self.picker = None,
            KeyCode::Char('c') if ctrl => self.picker = None,
            KeyCode::Char('d') if ctrl && picker.kind == PickerKind::Models => {
                let item = picker.shown().get(picker.selected).map(|i| i.key.clone())?;
                self.picker = None;
                return Some(Action::ModelDefault(item));
            }
            KeyCode::Char('a') if ctrl => {
                if let PickerKind::Sessions { global, archived } = picker.kind {
                    return Some(Action::PickSessions {
                        global,
                        archived: !archived,
                    });
                }
            }
            KeyCode::Tab | KeyCode::BackTab => {
                if let PickerKind::Sessions { global, archived } = picker.kind {
                    return Some(Action::PickSessions {
                        global: !global,
                        archived,
                    });
                }
            }
            KeyCode::Up => picker.selected = picker.selected.saturating_sub(1),
            KeyCode::Down => picker.selected = (picker.selected + 1).min(count.saturating_sub(1)),
            KeyCode::PageUp => picker.selected = picker.selected.saturating_sub(10),
            KeyCode::PageDown => {
                picker.selected = (picker.selected + 10).min(count.saturating_sub(1));
            }
            KeyCode::Backspace => {
                picker.query.pop();
                picker.selected = 0;
            }
            KeyCode::Char(c) if !ctrl => {
                picker.query.push(c);
                picker.selected = 0;
            }
            KeyCode::Enter => {
                let item = picker.shown().get(picker.selected).map(|i| i.key.clone())?;
                let kind = picker.kind.clone();
                self.picker = None;
                return Some(match kind {
                    PickerKind::Sessions { global, .. } => Action::OpenSession { id: item, global },
                    PickerKind::Models => Action::Model(Some(item)),
                });
            }
            _ => {}
        }
        None
    }

    /// Shows `next` in place of the open picker, keeping the search typed.
    pub fn replace_picker(&mut self, mut next: Picker) {
        if let Some(old) = self.picker.take() {
            next.query = old.query;
        }
        self.picker = Some(next);
    }
}

#[cfg(test)]
mod tests {
    use crossterm::event::KeyEvent;
    use serde_json::json;

    use crate::fixtures::{catalog as models, sessions};

    use super::*;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    #[test]
    fn sessions_search_by_title_and_open_the_selected_one() {
        let mut app = App::default();
        let list = sessions(json!([
            {"id": "s1", "title": "Fix the parser", "updatedAt": "2026-01-02T10:00:00Z", "archived": false},
            {"id": "s2", "title": "Write docs", "updatedAt": "2026-01-01T10:00:00Z", "archived": false},
            {"id": "s3", "title": null, "updatedAt": "2026-01-01T09:00:00Z", "archived": true},
        ]));
        app.picker = Some(Picker::sessions(&list, false, false));
        for c in "DOC".chars() {
            assert_eq!(app.on_key(key(KeyCode::Char(c))), None);
        }
        let shown: Vec<_> = app
            .picker
            .as_ref()
            .unwrap()
            .shown()
            .iter()
            .map(|i| i.key.clone())
            .collect();
        assert_eq!(shown, ["s2"]);
        assert_eq!(
            app.on_key(key(KeyCode::Enter)),
            Some(Action::OpenSession {
                id: "s2".into(),
                global: false
            })
        );
        assert!(app.picker.is_none());
    }

    #[test]
    fn child_sessions_sit_under_their_parent() {
        let list = sessions(json!([
            {"id": "c1", "title": "explore: where", "updatedAt": "2026-01-03T10:00:00Z", "parentId": "p1"},
            {"id": "p2", "title": "Other", "updatedAt": "2026-01-02T11:00:00Z"},
            {"id": "p1", "title": "Fix it", "updatedAt": "2026-01-02T10:00:00Z"},
            {"id": "c2", "title": "review: all", "updatedAt": "2026-01-01T10:00:00Z", "parentId": "p1"},
            {"id": "o1", "title": "orphan", "updatedAt": "2026-01-01T09:00:00Z", "parentId": "gone"},
            {"id": "g1", "title": "deeper", "updatedAt": "2026-01-01T08:00:00Z", "parentId": "c1"},
        ]));
        let picker = Picker::sessions(&list, false, false);
        let rows: Vec<(&str, &str)> = picker
            .items
            .iter()
            .map(|i| (i.key.as_str(), i.label.as_str()))
            .collect();
        assert_eq!(
            rows,
            [
                ("p2", "Other"),
                ("p1", "Fix it"),
                ("c1", "└ explore: where"),
                ("g1", "  └ deeper"),
                ("c2", "└ review: all"),
                ("o1", "orphan"),
            ]
        );
    }

    #[test]
    fn a_fork_sits_under_its_source_marked() {
        let list = sessions(json!([
            {"id": "f1", "title": "Fix it (fork)", "updatedAt": "2026-01-03T10:00:00Z",
             "forkedFrom": {"sessionId": "p1", "seq": 3}},
            {"id": "p1", "title": "Fix it", "updatedAt": "2026-01-02T10:00:00Z"},
        ]));
        let picker = Picker::sessions(&list, false, false);
        let rows: Vec<(&str, &str)> = picker
            .items
            .iter()
            .map(|i| (i.key.as_str(), i.label.as_str()))
            .collect();
        assert_eq!(rows, [("p1", "Fix it"), ("f1", "└ ⑂ Fix it (fork)")]);
    }

    #[test]
    fn tab_and_ctrl_a_ask_for_another_list_and_esc_closes() {
        let mut app = App::default();
        app.picker = Some(Picker::sessions(&[], false, false));
        assert_eq!(
            app.on_key(key(KeyCode::Tab)),
            Some(Action::PickSessions {
                global: true,
                archived: false
            })
        );
        assert_eq!(
            app.on_key(KeyEvent::new(KeyCode::Char('a'), KeyModifiers::CONTROL)),
            Some(Action::PickSessions {
                global: false,
                archived: true
            })
        );
        app.on_key(key(KeyCode::Char('x')));
        app.replace_picker(Picker::sessions(&[], true, false));
        assert_eq!(app.picker.as_ref().unwrap().query, "x", "the search stays");
        app.on_key(key(KeyCode::Esc));
        assert!(app.picker.is_none());
    }

    #[test]
    fn models_start_on_the_active_one_and_enter_switches() {
        let mut app = App::default();
        let catalog = models(json!([
            {"ref": "a/one", "active": false, "providerEnabled": true, "alias": null},
            {"ref": "b/two", "active": true, "providerEnabled": true, "alias": "t"},
        ]));
        app.picker = Some(Picker::models(&catalog, None));
        assert_eq!(app.picker.as_ref().unwrap().selected, 1);
        app.on_key(key(KeyCode::Up));
        assert_eq!(
            app.on_key(key(KeyCode::Enter)),
            Some(Action::Model(Some("a/one".into())))
        );
        // The session's own model is selected; Ctrl-D makes one the default.
        app.picker = Some(Picker::models(&catalog, Some("a/one")));
        assert_eq!(app.picker.as_ref().unwrap().selected, 0);
        assert_eq!(app.picker.as_ref().unwrap().items[0].detail, "this session");
        app.on_key(key(KeyCode::Down));
        assert_eq!(
            app.on_key(KeyEvent::new(KeyCode::Char('d'), KeyModifiers::CONTROL)),
            Some(Action::ModelDefault("b/two".into()))
        );
    }
}
