//! First run: with no provider configured, the chat opens on a welcome that
//! says what is missing and adds one in place: a preset or a custom
//! OpenAI-/Anthropic-compatible URL, the key typed hidden, saved
//! (`provider.upsert`), tested (`provider.test`), then the chat.

use crossterm::event::{Event, EventStream, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use futures::StreamExt;
use ratatui::Terminal;
use ratatui::backend::Backend;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};
use seekclaw_protocol::api::{
    ModelInput, NoParams, ProviderTestParams, ProviderUpsertParams, Required, Strict,
};
use seekclaw_protocol::method;
use seekclaw_providers::presets::{PRESETS, preset};
use serde_json::Value;

use crate::TuiError;
use crate::client::Connection;

/// The provider id a custom URL is saved under.
const CUSTOM_ID: &str = "custom";

/// What the user picks first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Choice {
    /// A ready-made provider (`seekclaw provider add NAME`).
    Preset(&'static str),
    /// An endpoint of this API kind (`openai` or `anthropic`).
    Custom(&'static str),
}

impl Choice {
    fn label(self) -> String {
        match self {
            Choice::Preset(name) => preset(name)
                .map(|p| format!("{} ({})", p.name.unwrap_or(p.id), p.base_url))
                .unwrap_or_else(|| name.to_string()),
            Choice::Custom("anthropic") => "Custom Anthropic-compatible URL".to_string(),
            Choice::Custom(_) => "Custom OpenAI-compatible URL".to_string(),
        }
    }
}

fn choices() -> Vec<Choice> {
    let mut all: Vec<Choice> = PRESETS.iter().map(|p| Choice::Preset(p)).collect();
    all.push(Choice::Custom("openai"));
    all.push(Choice::Custom("anthropic"));
    all
}

/// Where the flow is.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    Pick,
    Url,
    Key,
    /// A custom endpoint's models, to pick one.
    Models(Vec<String>),
}

/// What a key asks the driver to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Next {
    /// Nothing beyond redrawing.
    Stay,
    /// Save the preset (or the custom model picked) and test it.
    Save,
    /// Save the custom endpoint and list its models.
    ListModels,
    /// Go to the chat without a provider.
    Skip,
    /// Leave.
    Quit,
}

/// How the welcome ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// A provider was added and answered: what to tell the user.
    Added(String),
    /// The user went on without one.
    Skipped,
    /// The user quit.
    Quit,
}

/// The welcome's state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setup {
    step: Step,
    selected: usize,
    choice: Option<Choice>,
    url: String,
    /// Never drawn: only its length is (as dots).
    key: String,
    /// A failure (or progress) line under the step.
    message: Option<(bool, String)>,
    /// A provider was saved (and then failed its test).
    saved: Option<String>,
    /// When the current list appeared: keys typed ahead of it choose nothing.
    shown: crate::deliberate::Deliberate,
}

impl Default for Setup {
    fn default() -> Self {
        Setup::new()
    }
}

impl Setup {
    /// The welcome, on the provider list.
    pub fn new() -> Setup {
        Setup {
            step: Step::Pick,
            selected: 0,
            choice: None,
            url: String::new(),
            key: String::new(),
            message: None,
            saved: None,
            shown: crate::deliberate::Deliberate::new(),
        }
    }

    fn field(&mut self) -> Option<&mut String> {
        match self.step {
            Step::Url => Some(&mut self.url),
            Step::Key => Some(&mut self.key),
            _ => None,
        }
    }

    /// Pasted text goes to the field being typed (a key is usually pasted).
    pub fn paste(&mut self, text: &str) {
        if let Some(field) = self.field() {
            field.push_str(text.trim());
        }
    }

    /// A key; what the driver must do next.
    pub fn key(&mut self, key: KeyEvent) -> Next {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        if ctrl && matches!(key.code, KeyCode::Char('c' | 'd')) {
            return Next::Quit;
        }
        let count = match &self.step {
            Step::Pick => choices().len(),
            Step::Models(m) => m.len(),
            _ => 0,
        };
        // A list (the welcome's, the models found) answers only keys typed
        // after it was seen; the fields take what is typed at once.
        if count > 0 && self.shown.typed_ahead() {
            return Next::Stay;
        }
        match key.code {
            KeyCode::Up if count > 0 => self.selected = (self.selected + count - 1) % count,
            KeyCode::Down if count > 0 => self.selected = (self.selected + 1) % count,
            KeyCode::Esc => return self.back(),
            KeyCode::Enter => return self.confirm(),
            KeyCode::Backspace => {
                if let Some(field) = self.field() {
                    field.pop();
                }
            }
            // Ctrl-U clears the field, as in a shell (a mistyped URL or key).
            KeyCode::Char('u') if ctrl => {
                if let Some(field) = self.field() {
                    field.clear();
                }
            }
            KeyCode::Char(c) if !ctrl => {
                if let Some(field) = self.field() {
                    field.push(c);
                }
            }
            _ => {}
        }
        Next::Stay
    }

    fn back(&mut self) -> Next {
        self.message = None;
        match self.step {
            Step::Pick => return Next::Skip,
            Step::Url => self.step = Step::Pick,
            Step::Key => {
                self.step = match self.choice {
                    Some(Choice::Custom(_)) => Step::Url,
                    _ => Step::Pick,
                };
            }
            Step::Models(_) => self.step = Step::Key,
        }
        Next::Stay
    }

    fn confirm(&mut self) -> Next {
        self.message = None;
        match &self.step {
            Step::Pick => {
                let choice = choices()[self.selected.min(choices().len() - 1)];
                self.choice = Some(choice);
                self.step = match choice {
                    Choice::Preset(_) => Step::Key,
                    Choice::Custom(_) => Step::Url,
                };
            }
            Step::Url => {
                let url = self.url.trim();
                if !(url.starts_with("http://") || url.starts_with("https://")) {
                    self.message = Some((
                        true,
                        "The URL must start with http:// or https://".to_string(),
                    ));
                } else {
                    self.step = Step::Key;
                }
            }
            Step::Key => {
                return match self.choice {
                    Some(Choice::Custom(_)) => Next::ListModels,
                    _ => Next::Save,
                };
            }
            Step::Models(models) if !models.is_empty() => return Next::Save,
            Step::Models(_) => {}
        }
        self.selected = 0;
        Next::Stay
    }

    /// The provider id the flow saves.
    fn provider_id(&self) -> String {
        match self.choice {
            Some(Choice::Preset(name)) => preset(name).map_or(name.to_string(), |p| p.id),
            _ => CUSTOM_ID.to_string(),
        }
    }

    /// `provider.upsert` params: the preset's entry, or the custom endpoint
    /// (with its picked model once there is one).
    fn upsert_params(&self) -> ProviderUpsertParams {
        let mut p = ProviderUpsertParams {
            id: Required(self.provider_id()),
            activate_if_none: Some(true),
            ..Default::default()
        };
        if !self.key.trim().is_empty() {
            p.api_key = Some(Value::String(self.key.trim().to_string()));
        }
        match self.choice {
            Some(Choice::Preset(name)) => {
                if let Some(preset) = preset(name) {
                    p.kind = Some(preset.kind.clone());
                    p.name = preset.name.clone();
                    p.base_url = Some(preset.base_url.clone());
                    // Whole models, as config.json holds them (windows, prices, capabilities).
                    let models = preset
                        .models
                        .iter()
                        .map(|m| match serde_json::to_value(m) {
                            Ok(Value::Object(fields)) => ModelInput::Full(fields),
                            _ => ModelInput::Id(m.id.clone()),
                        })
                        .collect();
                    p.models = Some(Strict::new(models));
                }
            }
            Some(Choice::Custom(kind)) => {
                p.kind = Some(kind.to_string());
                p.base_url = Some(self.url.trim().trim_end_matches('/').to_string());
                if let Step::Models(models) = &self.step
                    && let Some(m) = models.get(self.selected)
                {
                    p.models = Some(Strict::new(vec![ModelInput::Id(m.clone())]));
                }
            }
            None => {}
        }
        p
    }

    fn failed(&mut self, why: String) {
        self.message = Some((true, why));
    }

    /// The screen's lines.
    pub fn lines(&self) -> Vec<Line<'static>> {
        let bold = Style::new().add_modifier(Modifier::BOLD);
        let keys = Style::new().fg(Color::Yellow);
        let mut out = vec![
            Line::styled("Welcome to seekclaw", bold),
            Line::raw(""),
            Line::raw(
                "No model provider is configured yet, so nothing can answer you. Add one now \
                 (or later with `seekclaw provider add`; see `seekclaw provider add --help`).",
            ),
            Line::raw(""),
        ];
        let name = self.choice.map(Choice::label).unwrap_or_default();
        let hint = match &self.step {
            Step::Pick => {
                out.push(Line::styled("Choose a provider:", bold));
                let all = choices();
                out.extend(list(all.iter().map(|c| c.label()), self.selected));
                "↑↓ select · Enter confirms · Esc: skip for now · Ctrl-C quits"
            }
            Step::Url => {
                out.push(Line::styled(format!("{name}: the API's base URL"), bold));
                out.push(Line::raw(format!("› {}", self.url)));
                "e.g. http://localhost:8000/v1 · Enter continues · Esc goes back"
            }
            Step::Key => {
                out.push(Line::styled(
                    format!("{name}: the API key (hidden; kept in config.json on this machine)"),
                    bold,
                ));
                out.push(Line::raw(format!(
                    "› {}",
                    "•".repeat(self.key.chars().count())
                )));
                "paste or type it · Enter saves and tests (empty: no key) · Esc goes back"
            }
            Step::Models(models) => {
                out.push(Line::styled(format!("{name}: choose a model"), bold));
                out.extend(list(models.iter().cloned(), self.selected));
                "↑↓ select · Enter saves and tests · Esc goes back"
            }
        };
        out.push(Line::raw(""));
        if let Some((error, text)) = &self.message {
            let color = if *error { Color::Red } else { Color::Green };
            out.push(Line::styled(text.clone(), Style::new().fg(color)));
        }
        out.push(Line::styled(hint, keys));
        out
    }
}

fn list(items: impl Iterator<Item = String>, selected: usize) -> Vec<Line<'static>> {
    items
        .enumerate()
        .map(|(i, label)| {
            if i == selected {
                Line::from(vec![
                    Span::styled("› ", Style::new().fg(Color::Yellow)),
                    Span::styled(label, Style::new().add_modifier(Modifier::REVERSED)),
                ])
            } else {
                Line::raw(format!("  {label}"))
            }
        })
        .collect()
}

/// Whether the daemon has no provider at all (a first run).
pub async fn needed(conn: &Connection) -> Result<bool, TuiError> {
    let providers = conn.call::<method::ProviderList>(&NoParams {}).await?;
    Ok(providers.is_empty())
}

/// Runs the welcome until a provider answers, or the user skips or quits.
pub async fn run<B: Backend>(
    terminal: &mut Terminal<B>,
    keys: &mut EventStream,
    conn: &Connection,
) -> Result<Outcome, TuiError>
where
    B::Error: Into<std::io::Error>,
{
    let mut setup = Setup::new();
    loop {
        draw(terminal, &setup)?;
        let next = match keys.next().await {
            Some(Ok(Event::Key(k))) if k.kind != KeyEventKind::Release => setup.key(k),
            Some(Ok(Event::Paste(text))) => {
                setup.paste(&text);
                Next::Stay
            }
            Some(Ok(_)) => Next::Stay,
            Some(Err(e)) => return Err(TuiError::Terminal(e)),
            None => Next::Quit,
        };
        match next {
            Next::Stay => {}
            // What was saved stays: say so rather than "no provider".
            Next::Skip => {
                return Ok(match setup.saved {
                    Some(id) => Outcome::Added(format!(
                        "{id} is saved, but its test failed: /doctor checks it again."
                    )),
                    None => Outcome::Skipped,
                });
            }
            Next::Quit => return Ok(Outcome::Quit),
            Next::ListModels => {
                setup.message = Some((false, "Listing the endpoint's models…".into()));
                draw(terminal, &setup)?;
                match list_models(&setup).await {
                    Ok(models) if !models.is_empty() => {
                        setup.message = None;
                        setup.selected = 0;
                        setup.step = Step::Models(models);
                        setup.shown = crate::deliberate::Deliberate::new();
                        setup.shown = crate::deliberate::Deliberate::new();
                    }
                    Ok(_) => setup.failed("The endpoint lists no models.".into()),
                    Err(e) => setup.failed(format!("Cannot list the models: {e}")),
                }
            }
            Next::Save => {
                setup.message = Some((false, "Saving and testing the connection…".into()));
                draw(terminal, &setup)?;
                match save_and_test(conn, &setup).await {
                    Ok(done) => return Ok(Outcome::Added(done)),
                    Err((saved, e)) => {
                        if saved {
                            setup.saved = Some(setup.provider_id());
                        }
                        setup.failed(e);
                    }
                }
            }
        }
    }
}

fn draw<B: Backend>(terminal: &mut Terminal<B>, setup: &Setup) -> Result<(), TuiError>
where
    B::Error: Into<std::io::Error>,
{
    terminal
        .draw(|f| {
            let area = f.area();
            f.render_widget(
                Paragraph::new(setup.lines()).wrap(Wrap { trim: false }),
                area,
            );
        })
        .map(|_| ())
        .map_err(|e| TuiError::Terminal(e.into()))
}

/// Lists a custom endpoint's models (`GET {baseUrl}/models`) from here:
/// the daemon keeps no provider without a model, and none is chosen yet.
async fn list_models(setup: &Setup) -> Result<Vec<String>, String> {
    let Some(Choice::Custom(kind)) = setup.choice else {
        return Ok(Vec::new());
    };
    let provider = seekclaw_config::Provider {
        id: CUSTOM_ID.to_string(),
        kind: kind.to_string(),
        base_url: setup.url.trim().trim_end_matches('/').to_string(),
        api_key: Some(setup.key.trim().to_string()).filter(|k| !k.is_empty()),
        ..seekclaw_config::Provider::default()
    };
    let pool = seekclaw_providers::transport::HttpPool::new();
    seekclaw_providers::models::list_models(
        &pool,
        &provider,
        None,
        seekclaw_providers::models::LIST_TIMEOUT,
    )
    .await
    .map_err(|e| e.to_string())
}

/// Saves the provider, then probes it: `Ok` with what to tell the user, or
/// why it failed (the entry stays saved; a new key replaces its key).
/// The error says whether the entry was saved.
async fn save_and_test(conn: &Connection, setup: &Setup) -> Result<String, (bool, String)> {
    let id = setup.provider_id();
    conn.call::<method::ProviderUpsert>(&setup.upsert_params())
        .await
        .map_err(|e| (false, format!("Cannot save it: {e}")))?;
    let test = ProviderTestParams {
        id: Some(id.clone()),
    };
    let probes = conn
        .call::<method::ProviderTest>(&test)
        .await
        .map_err(|e| (true, format!("Cannot test it: {e}")))?;
    let probe = probes.first();
    let detail = probe.map_or("no answer", |p| p.detail.as_str());
    if let Some(probe) = probe.filter(|p| p.online && detail == "ok") {
        Ok(format!(
            "Added {id}: it answered in {} ms. Ask anything (/model picks another model).",
            probe.latency_ms
        ))
    } else {
        Err((
            true,
            format!(
                "The test failed: {detail}. Check the key or URL (Enter tries again, Esc goes back)."
            ),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The welcome, on screen for a while.
    fn seen_setup() -> Setup {
        let mut s = Setup::new();
        s.shown = crate::deliberate::Deliberate::shown_at(
            std::time::Instant::now() - crate::deliberate::GRACE * 2,
        );
        s
    }

    /// Regression (issue 36, item 1): keys typed as the welcome appears
    /// choose nothing.
    #[test]
    fn keys_typed_ahead_of_the_welcome_choose_nothing() {
        let mut s = Setup::new();
        assert_eq!(s.key(key(KeyCode::Down)), Next::Stay);
        assert_eq!(s.key(key(KeyCode::Enter)), Next::Stay);
        assert_eq!(s.key(key(KeyCode::Esc)), Next::Stay);
        assert_eq!(s.step, Step::Pick);
        assert_eq!(s.selected, 0);
    }

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn typed(setup: &mut Setup, text: &str) {
        for c in text.chars() {
            assert_eq!(setup.key(key(KeyCode::Char(c))), Next::Stay);
        }
    }

    #[test]
    fn a_preset_asks_for_the_key_hidden_then_saves() {
        let mut s = seen_setup();
        assert_eq!(s.key(key(KeyCode::Enter)), Next::Stay);
        assert_eq!(s.step, Step::Key);
        typed(&mut s, "sk-secret");
        let shown: String = s.lines().iter().map(ToString::to_string).collect();
        assert!(
            !shown.contains("sk-secret") && shown.contains("•••••••••"),
            "{shown}"
        );
        assert_eq!(s.key(key(KeyCode::Enter)), Next::Save);
        let p = serde_json::to_value(s.upsert_params()).unwrap();
        assert_eq!(
            (p["id"].as_str(), p["apiKey"].as_str()),
            (Some("deepseek"), Some("sk-secret"))
        );
        assert!(p["models"].as_array().is_some_and(|m| !m.is_empty()), "{p}");
        // Esc goes back to the list; Esc there skips.
        assert_eq!(s.key(key(KeyCode::Esc)), Next::Stay);
        assert_eq!(s.key(key(KeyCode::Esc)), Next::Skip);
    }

    #[test]
    fn a_custom_url_needs_a_scheme_then_lists_and_picks_a_model() {
        let mut s = seen_setup();
        for _ in 0..PRESETS.len() {
            s.key(key(KeyCode::Down));
        }
        assert_eq!(s.key(key(KeyCode::Enter)), Next::Stay);
        assert_eq!(s.step, Step::Url);
        typed(&mut s, "localhost:8000/v1");
        assert_eq!(s.key(key(KeyCode::Enter)), Next::Stay);
        assert_eq!(s.step, Step::Url, "refused without a scheme");
        let shown: String = s.lines().iter().map(ToString::to_string).collect();
        assert!(shown.contains("must start with http"), "{shown}");
        // Ctrl-U clears what was typed.
        s.key(KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL));
        assert_eq!(s.url, "");
        typed(&mut s, "http://localhost:8000/v1/");
        assert_eq!(s.key(key(KeyCode::Enter)), Next::Stay);
        s.paste(" k1 ");
        assert_eq!(s.key(key(KeyCode::Enter)), Next::ListModels);
        s.step = Step::Models(vec!["a".into(), "b".into()]);
        s.key(key(KeyCode::Down));
        assert_eq!(s.key(key(KeyCode::Enter)), Next::Save);
        let p = serde_json::to_value(s.upsert_params()).unwrap();
        assert_eq!(p["baseUrl"], "http://localhost:8000/v1");
        assert_eq!(p["kind"], "openai");
        assert_eq!(p["apiKey"], "k1");
        assert_eq!(p["models"], json!(["b"]));
    }
}
