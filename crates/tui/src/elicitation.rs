//! An MCP server's form (elicitation) in the approval area: one field per
//! line, Tab/↓ and Shift-Tab/↑ move between them, text and numbers are typed
//! in place, Space toggles a yes/no and picks an option (←/→ move among a
//! list's options), Enter sends (accept), Esc declines, Ctrl-C cancels.
//! Values are checked against the form before they are sent, so a mistake
//! is shown here and the form stays open.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use serde_json::{Map, Value};

use seekclaw_protocol::elicitation::{enum_values, validate};
use seekclaw_protocol::events::ElicitationDetails;

use crate::app::{Action, App};

/// Fields shown at once (the rest scroll with the focus).
const SHOWN_FIELDS: usize = 8;

/// What a field takes.
#[derive(Debug, Clone, PartialEq)]
enum Kind {
    /// Typed text (a format, if any, is shown as a hint).
    Text(Option<String>),
    Number,
    Integer,
    Boolean(bool),
    /// One of `values` (their `labels` shown); `None`: not set.
    Choice {
        values: Vec<String>,
        labels: Vec<String>,
        at: Option<usize>,
    },
    /// Any of `values`; `cursor` is the option ←/→ are on.
    Many {
        values: Vec<String>,
        labels: Vec<String>,
        on: Vec<bool>,
        cursor: usize,
    },
}

/// One field of the form.
#[derive(Debug, Clone, PartialEq)]
struct Field {
    name: String,
    title: String,
    description: Option<String>,
    required: bool,
    kind: Kind,
    /// What was typed (text, number, integer).
    text: String,
}

/// A server's form being filled in.
#[derive(Debug, Clone, PartialEq)]
pub struct Form {
    server: String,
    message: String,
    schema: Value,
    fields: Vec<Field>,
    focus: usize,
    /// Why the last Enter did not send.
    error: Option<String>,
}

impl Form {
    /// The form of an `approval_request` with `kind: "elicitation"`.
    pub fn of(d: &ElicitationDetails) -> Form {
        let schema = &d.requested_schema;
        let required: Vec<&str> = schema["required"]
            .as_array()
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let fields = schema["properties"]
            .as_object()
            .map(|props| {
                props
                    .iter()
                    .map(|(name, f)| field(name, f, required.contains(&name.as_str())))
                    .collect()
            })
            .unwrap_or_default();
        Form {
            server: d.server.clone(),
            message: d.message.clone(),
            schema: schema.clone(),
            fields,
            focus: 0,
            error: None,
        }
    }

    /// The values as the server gets them (unset optional fields left out),
    /// or why they cannot be sent.
    fn content(&self) -> Result<Map<String, Value>, String> {
        let mut out = Map::new();
        for f in &self.fields {
            let value = match &f.kind {
                Kind::Text(_) if f.text.is_empty() => continue,
                Kind::Text(_) => Value::from(f.text.clone()),
                Kind::Number | Kind::Integer if f.text.trim().is_empty() => continue,
                Kind::Number => match f.text.trim().parse::<f64>() {
                    Ok(n) => serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number),
                    Err(_) => return Err(format!("`{}` must be a number", f.title)),
                },
                Kind::Integer => match f.text.trim().parse::<i64>() {
                    Ok(n) => Value::from(n),
                    Err(_) => return Err(format!("`{}` must be a whole number", f.title)),
                },
                Kind::Boolean(on) => Value::Bool(*on),
                Kind::Choice { at: None, .. } => continue,
                Kind::Choice {
                    values,
                    at: Some(i),
                    ..
                } => Value::from(values[*i].clone()),
                Kind::Many { values, on, .. } => Value::from(
                    values
                        .iter()
                        .zip(on)
                        .filter(|(_, on)| **on)
                        .map(|(v, _)| v.clone())
                        .collect::<Vec<_>>(),
                ),
            };
            out.insert(f.name.clone(), value);
        }
        validate(&self.schema, &out).map_err(|why| self.titled(&why))?;
        Ok(out)
    }

    /// The engine's message names fields by key: shown with their titles.
    fn titled(&self, why: &str) -> String {
        self.fields.iter().fold(why.to_string(), |s, f| {
            s.replace(&format!("`{}`", f.name), &format!("`{}`", f.title))
        })
    }

    fn key(&mut self, key: KeyEvent) {
        self.error = None;
        let n = self.fields.len().max(1);
        let Some(field) = self.fields.get_mut(self.focus) else {
            return;
        };
        match (key.code, &mut field.kind) {
            (KeyCode::Tab | KeyCode::Down, _) => self.focus = (self.focus + 1) % n,
            (KeyCode::BackTab | KeyCode::Up, _) => self.focus = (self.focus + n - 1) % n,
            (KeyCode::Char(' ') | KeyCode::Left | KeyCode::Right, Kind::Boolean(on)) => {
                *on = !*on;
            }
            (KeyCode::Char(' ') | KeyCode::Right, Kind::Choice { values, at, .. }) => {
                *at = next(*at, values.len(), field.required, true);
            }
            (KeyCode::Left, Kind::Choice { values, at, .. }) => {
                *at = next(*at, values.len(), field.required, false);
            }
            (KeyCode::Right, Kind::Many { values, cursor, .. }) => {
                *cursor = (*cursor + 1) % values.len().max(1);
            }
            (KeyCode::Left, Kind::Many { values, cursor, .. }) => {
                let len = values.len().max(1);
                *cursor = (*cursor + len - 1) % len;
            }
            (KeyCode::Char(' '), Kind::Many { on, cursor, .. }) => {
                if let Some(o) = on.get_mut(*cursor) {
                    *o = !*o;
                }
            }
            (KeyCode::Backspace, Kind::Text(_) | Kind::Number | Kind::Integer) => {
                field.text.pop();
            }
            (KeyCode::Char(c), Kind::Text(_) | Kind::Number | Kind::Integer) => field.text.push(c),
            _ => {}
        }
    }

    /// A paste goes into the focused typed field.
    fn paste(&mut self, text: &str) {
        if let Some(f) = self.fields.get_mut(self.focus)
            && matches!(f.kind, Kind::Text(_) | Kind::Number | Kind::Integer)
        {
            f.text.push_str(&text.replace(['\r', '\n'], " "));
        }
    }

    fn lines(&self, waiting: usize) -> (Vec<Line<'static>>, usize) {
        let bold = Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD);
        let dim = Style::new().fg(Color::DarkGray);
        let mut out = vec![Line::from(vec![
            Span::styled(format!("? {} asks: ", self.server), bold),
            Span::raw(self.message.clone()),
            Span::styled(
                if waiting > 0 {
                    format!("  (+{waiting} waiting)")
                } else {
                    String::new()
                },
                dim,
            ),
        ])];
        let head = out.len();
        // A long form shows a window of fields around the focus, so the
        // message and the keys stay in view on a small terminal.
        let first = self
            .focus
            .saturating_sub(SHOWN_FIELDS / 2)
            .min(self.fields.len().saturating_sub(SHOWN_FIELDS));
        let last = (first + SHOWN_FIELDS).min(self.fields.len());
        if first > 0 {
            out.push(Line::styled(format!("  … {first} more above"), dim));
        }
        for (i, f) in self.fields.iter().enumerate().take(last).skip(first) {
            let focused = i == self.focus;
            let mark = if focused { "› " } else { "  " };
            let star = if f.required { "*" } else { "" };
            let mut spans = vec![
                Span::styled(mark, bold),
                Span::raw(format!("{}{star}: ", f.title)),
            ];
            let value = shown(f);
            spans.push(if focused {
                Span::styled(value, Style::new().add_modifier(Modifier::REVERSED))
            } else {
                Span::raw(value)
            });
            if focused && let Some(d) = &f.description {
                spans.push(Span::styled(format!("  {d}"), dim));
            }
            out.push(Line::from(spans));
        }
        if last < self.fields.len() {
            out.push(Line::styled(
                format!("  … {} more below", self.fields.len() - last),
                dim,
            ));
        }
        if let Some(e) = &self.error {
            out.push(Line::styled(
                format!("  ✗ {e}"),
                Style::new().fg(Color::Red),
            ));
        }
        out.push(Line::styled(
            "Tab/↑↓ move · Space toggles/picks (←→ options) · Enter sends · Esc declines · Ctrl-C cancels",
            Style::new().fg(Color::Yellow),
        ));
        let tail = out.len() - head;
        (out, tail)
    }
}

fn field(name: &str, f: &Value, required: bool) -> Field {
    let title = f["title"].as_str().unwrap_or(name).to_string();
    let default = &f["default"];
    let labels = |f: &Value, values: &[String]| -> Vec<String> {
        let named = f["enumNames"].as_array();
        let titled = f["oneOf"].as_array().or(f["anyOf"].as_array());
        values
            .iter()
            .enumerate()
            .map(|(i, v)| {
                named
                    .and_then(|n| n.get(i))
                    .and_then(Value::as_str)
                    .or_else(|| {
                        titled.and_then(|t| {
                            t.iter()
                                .find(|o| o["const"] == *v)
                                .and_then(|o| o["title"].as_str())
                        })
                    })
                    .unwrap_or(v)
                    .to_string()
            })
            .collect()
    };
    let mut text = String::new();
    let kind = match f["type"].as_str().unwrap_or("string") {
        "boolean" => Kind::Boolean(default.as_bool().unwrap_or(false)),
        "number" => Kind::Number,
        "integer" => Kind::Integer,
        "array" => {
            let values = enum_values(&f["items"]).unwrap_or_default();
            let picked: Vec<&str> = default
                .as_array()
                .map(|d| d.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            Kind::Many {
                labels: labels(&f["items"], &values),
                on: values
                    .iter()
                    .map(|v| picked.contains(&v.as_str()))
                    .collect(),
                values,
                cursor: 0,
            }
        }
        _ => match enum_values(f) {
            Some(values) if !values.is_empty() => {
                let at = default
                    .as_str()
                    .and_then(|d| values.iter().position(|v| v == d))
                    .or(required.then_some(0));
                Kind::Choice {
                    labels: labels(f, &values),
                    values,
                    at,
                }
            }
            _ => Kind::Text(f["format"].as_str().map(str::to_string)),
        },
    };
    if matches!(kind, Kind::Text(_) | Kind::Number | Kind::Integer) {
        text = match default {
            Value::String(s) => s.clone(),
            Value::Number(n) => n.to_string(),
            _ => String::new(),
        };
    }
    Field {
        name: name.to_string(),
        title,
        description: f["description"].as_str().map(str::to_string),
        required,
        kind,
        text,
    }
}

/// The next (or previous) option; an optional field passes through "not set".
fn next(at: Option<usize>, len: usize, required: bool, forward: bool) -> Option<usize> {
    if len == 0 {
        return None;
    }
    let slots = if required { len } else { len + 1 };
    // Slot `len` is "not set".
    let now = at.unwrap_or(len).min(slots - 1);
    let moved = if forward {
        (now + 1) % slots
    } else {
        (now + slots - 1) % slots
    };
    (moved < len).then_some(moved)
}

fn shown(f: &Field) -> String {
    match &f.kind {
        Kind::Text(format) if f.text.is_empty() => match format {
            Some(fmt) => format!("_ ({fmt})"),
            None => "_".into(),
        },
        Kind::Number | Kind::Integer if f.text.is_empty() => "_".into(),
        Kind::Text(_) | Kind::Number | Kind::Integer => format!("{}_", f.text),
        Kind::Boolean(on) => if *on { "[x] yes" } else { "[ ] no" }.into(),
        Kind::Choice { labels, at, .. } => match at {
            Some(i) => format!("‹ {} ›", labels[*i]),
            None => "‹ not set ›".into(),
        },
        Kind::Many {
            labels, on, cursor, ..
        } => labels
            .iter()
            .zip(on)
            .enumerate()
            .map(|(i, (l, on))| {
                let b = if *on { "[x]" } else { "[ ]" };
                if i == *cursor {
                    format!("›{b} {l}")
                } else {
                    format!("{b} {l}")
                }
            })
            .collect::<Vec<_>>()
            .join("  "),
    }
}

impl App {
    /// The first prompt's form, if it is one.
    fn form_mut(&mut self) -> Option<&mut Form> {
        self.approvals.first_mut()?.form.as_mut()
    }

    /// A key while a form is the first prompt: `None` when it is not.
    pub(crate) fn form_key(&mut self, key: KeyEvent) -> Option<Option<Action>> {
        self.approvals.first()?.form.as_ref()?;
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        // Typed ahead of the form: the editor's, as at any prompt (a Ctrl-C
        // then still cancels the turn).
        if self.asking.guard.typed_ahead() {
            return match key.code {
                KeyCode::Char(_) | KeyCode::Enter | KeyCode::Backspace => None,
                _ => Some(None),
            };
        }
        if ctrl && key.code == KeyCode::Char('c') {
            return Some(self.answer_form("cancel", None));
        }
        if ctrl {
            return None;
        }
        match key.code {
            KeyCode::Esc => Some(self.answer_form("decline", None)),
            KeyCode::Enter => {
                let form = self.form_mut()?;
                match form.content() {
                    Ok(content) => Some(self.answer_form("accept", Some(Value::Object(content)))),
                    Err(why) => {
                        form.error = Some(why);
                        Some(None)
                    }
                }
            }
            KeyCode::PageUp | KeyCode::PageDown => None,
            _ => {
                self.form_mut()?.key(key);
                Some(None)
            }
        }
    }

    /// Pasted text at a form goes into its focused field; `false`: no form.
    pub(crate) fn form_paste(&mut self, text: &str) -> bool {
        match self.form_mut() {
            Some(form) => {
                form.paste(text);
                true
            }
            None => false,
        }
    }

    fn answer_form(&mut self, action: &'static str, content: Option<Value>) -> Option<Action> {
        let pending = self.approvals.remove(0);
        self.asking = crate::approval::Asking::default();
        Some(Action::Elicit {
            approval_id: pending.approval_id,
            session_id: pending.session_id,
            action,
            content,
        })
    }

    /// The form's lines and how many of the last must stay in view; `None`
    /// when the first prompt is not a form.
    pub(crate) fn form_lines(&self) -> Option<(Vec<Line<'static>>, usize)> {
        let form = self.approvals.first()?.form.as_ref()?;
        Some(form.lines(self.approvals.len() - 1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::deliberate::{Deliberate, GRACE};
    use seekclaw_client::Event;
    use serde_json::json;
    use std::time::Instant;

    fn form_request() -> Event {
        Event {
            seq: None,
            id: 3,
            event: "approval_request".into(),
            data: "Sign up".into(),
            session_id: Some("s1".into()),
            details: Some(
                json!({"approvalId": "ap_1", "callId": "c", "tool": "mcp__f__t",
                "summary": "Sign up", "arguments": {}, "kind": "elicitation",
                "elicitation": {"server": "f", "message": "Sign up", "requestedSchema": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string", "title": "Name", "minLength": 2},
                        "age": {"type": "integer", "title": "Age", "maximum": 150},
                        "news": {"type": "boolean", "title": "News"},
                        "role": {"type": "string", "title": "Role",
                            "oneOf": [{"const": "dev", "title": "Developer"}, {"const": "ops", "title": "Operator"}]},
                        "tags": {"type": "array", "title": "Tags", "items": {"type": "string", "enum": ["a", "b"]}}
                    },
                    "required": ["name"]}}}),
            ),
        }
    }

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn ready() -> App {
        let mut app = App::default();
        let env = form_request();
        assert!(app.on_approval_envelope(&env, &env.kind()));
        app.asking.guard = Deliberate::shown_at(Instant::now() - GRACE * 2);
        app
    }

    fn typed(app: &mut App, text: &str) {
        for c in text.chars() {
            assert_eq!(app.on_key(key(KeyCode::Char(c))), None);
        }
    }

    fn screen(app: &App) -> Vec<String> {
        app.approval_lines()
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    #[test]
    fn fields_are_filled_in_and_enter_sends_checked_values() {
        let mut app = ready();
        let lines = screen(&app);
        assert_eq!(lines[0], "? f asks: Sign up");
        assert_eq!(lines[1], "› Name*: _");
        assert_eq!(lines[2], "  Age: _");
        assert_eq!(lines[3], "  News: [ ] no");
        assert_eq!(lines[4], "  Role: ‹ not set ›");
        assert_eq!(lines[5], "  Tags: ›[ ] a  [ ] b");
        // Enter with the required field empty: said, and the form stays.
        assert_eq!(app.on_key(key(KeyCode::Enter)), None);
        assert!(screen(&app).iter().any(|l| l == "  ✗ `Name` is required"));
        typed(&mut app, "Ada");
        app.on_key(key(KeyCode::Tab));
        typed(&mut app, "2x");
        assert_eq!(app.on_key(key(KeyCode::Enter)), None);
        assert!(
            screen(&app)
                .iter()
                .any(|l| l.contains("`Age` must be a whole number"))
        );
        app.on_key(key(KeyCode::Backspace));
        app.on_key(key(KeyCode::Down));
        typed(&mut app, " ");
        app.on_key(key(KeyCode::Down));
        app.on_key(key(KeyCode::Right));
        app.on_key(key(KeyCode::Right));
        app.on_key(key(KeyCode::Down));
        app.on_key(key(KeyCode::Right));
        typed(&mut app, " ");
        assert!(
            screen(&app).iter().any(|l| l == "  Role: ‹ Operator ›"),
            "{:?}",
            screen(&app)
        );
        assert_eq!(
            app.on_key(key(KeyCode::Enter)),
            Some(Action::Elicit {
                approval_id: "ap_1".into(),
                session_id: Some("s1".into()),
                action: "accept",
                content: Some(
                    json!({"name": "Ada", "age": 2, "news": true, "role": "ops", "tags": ["b"]})
                ),
            })
        );
        assert!(app.approvals.is_empty());
    }

    #[test]
    fn esc_declines_and_ctrl_c_cancels_the_form_not_the_turn() {
        let mut app = ready();
        assert_eq!(
            app.on_key(key(KeyCode::Esc)),
            Some(Action::Elicit {
                approval_id: "ap_1".into(),
                session_id: Some("s1".into()),
                action: "decline",
                content: None,
            })
        );
        let mut app = ready();
        let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert!(matches!(
            app.on_key(ctrl_c),
            Some(Action::Elicit {
                action: "cancel",
                ..
            })
        ));
    }

    #[test]
    fn keys_typed_ahead_of_the_form_stay_the_editors() {
        let mut app = App::default();
        let env = form_request();
        app.on_approval_envelope(&env, &env.kind());
        typed(&mut app, "hi");
        assert_eq!(app.editor.text(), "hi");
        assert_eq!(app.on_key(key(KeyCode::Esc)), None);
        assert_eq!(app.approvals.len(), 1);
    }
}
