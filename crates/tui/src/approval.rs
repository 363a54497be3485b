//! Approval prompts: a turn's `approval_request` waits here until the user
//! picks a choice (↑/↓ + Enter, or a digit; Esc rejects), or the daemon
//! resolves it (a timeout, a cancel, another client's answer).
//!
//! Typed text never decides: a letter (or a paste) opens the "tell the agent
//! why" step, where the text can only become a rejection reason. A reply
//! like "yes but not now" must reject, never allow.
//!
//! Typing ahead never answers (see [`crate::deliberate`]): keys within the
//! grace after the prompt appears, and text the editor already held, stay
//! the user's draft, and Enter sends that draft (as guidance to the running
//! turn) unless a choice was selected in the prompt itself.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use seekclaw_client::{Event, EventKind};
use seekclaw_protocol::events::ApprovalRequestDetails;

use crate::app::{Action, App};

/// Diff lines shown in a prompt.
const PROMPT_DIFF_LINES: usize = 12;

/// A call waiting for the user's decision.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingApproval {
    /// What `agent.approve` names.
    pub approval_id: String,
    /// The turn's session.
    pub session_id: Option<String>,
    /// The tool.
    pub tool: String,
    /// The call, in one line.
    pub summary: String,
    /// A file edit's diff, or the shell command.
    pub body: Option<String>,
    /// The allow rule "always" saves (`Bash(npm test:*)`) and the config it
    /// goes to (`workspace` or `user`); `None`: not offered for this call.
    pub always: Option<(String, String)>,
    /// An MCP server's form (elicitation) instead of a call to decide.
    pub form: Option<crate::elicitation::Form>,
}

impl PendingApproval {
    fn of(env: &Event, d: &ApprovalRequestDetails) -> PendingApproval {
        PendingApproval {
            approval_id: d.approval_id.clone(),
            session_id: env.session_id.clone(),
            tool: d.tool.clone(),
            summary: d.summary.clone(),
            body: d
                .diff
                .as_deref()
                .or(d.arguments["command"].as_str())
                .map(str::to_string),
            always: d.always_rule.clone().map(|rule| {
                let target = d.always_target.clone().unwrap_or_else(|| "user".into());
                (rule, target)
            }),
            form: d
                .elicitation
                .as_ref()
                .filter(|_| d.kind.as_deref() == Some("elicitation"))
                .map(crate::elicitation::Form::of),
        }
    }
}

/// The prompt's choices, in the order shown (digit = index + 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    /// Run this call.
    AllowOnce,
    /// Run this call and its like for the rest of the session.
    AllowSession,
    /// Do not run it.
    Reject,
    /// Do not run it, and say why (the model reads it).
    RejectWithReason,
    /// Run it, and save the request's allow rule so its like is never asked.
    AllowAlways,
}

/// Every choice, top to bottom, when no rule is offered.
pub const CHOICES: [Choice; 4] = [
    Choice::AllowOnce,
    Choice::AllowSession,
    Choice::Reject,
    Choice::RejectWithReason,
];

/// The choices when the request offers an always rule: the same four, the
/// digits unchanged (3 still rejects whatever the call), then the rule.
pub const CHOICES_ALWAYS: [Choice; 5] = [
    Choice::AllowOnce,
    Choice::AllowSession,
    Choice::Reject,
    Choice::RejectWithReason,
    Choice::AllowAlways,
];

/// Where the reason step goes back to.
const REASON_AT: usize = 3;

impl Choice {
    fn label(self, always: Option<&(String, String)>) -> String {
        match self {
            Choice::AllowOnce => "Allow once".into(),
            Choice::AllowSession => "Allow for this session".into(),
            Choice::Reject => "Reject".into(),
            Choice::RejectWithReason => {
                "Reject and tell the agent why (or just start typing)".into()
            }
            Choice::AllowAlways => match always {
                Some((rule, target)) => {
                    format!("Yes, and always allow `{rule}` (saved in the {target} config)")
                }
                None => "Yes, and always allow".into(),
            },
        }
    }
}

/// Where the prompt's user is: choosing, or typing a rejection reason.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Asking {
    /// The highlighted choice (an index into [`CHOICES`]); shown only once
    /// the user has moved it.
    pub selected: usize,
    /// When the prompt appeared, and whether a choice was selected in it.
    pub guard: crate::deliberate::Deliberate,
    /// The reason step is open; it holds the prompt draft the editor had,
    /// given back when the step closes (the reason is typed in the editor).
    pub reason_draft: Option<String>,
}

impl App {
    /// `approval_request` / `approval_resolved` of the open session's turn;
    /// false for any other envelope.
    pub(crate) fn on_approval_envelope(&mut self, env: &Event, kind: &EventKind) -> bool {
        match kind {
            EventKind::ApprovalRequest(request) => {
                if self.approvals.is_empty() {
                    // The prompt appears now: its grace starts now.
                    self.asking = Asking::default();
                }
                self.approvals.push(PendingApproval::of(env, request));
                self.mark_waited_frame();
                self.scroll = 0;
                true
            }
            EventKind::ApprovalResolved(resolved) => {
                let id = resolved.approval_id.as_str();
                if self.approvals.first().is_some_and(|a| a.approval_id == id) {
                    self.close_asking();
                }
                self.approvals.retain(|a| a.approval_id != id);
                if env.data == "timeout" {
                    self.notice("(no answer in time: the call was not run)");
                }
                true
            }
            _ => false,
        }
    }

    /// Whether the reason step is open (the editor holds the reason).
    pub fn typing_reason(&self) -> bool {
        !self.approvals.is_empty() && self.asking.reason_draft.is_some()
    }

    /// Drops every prompt (the turn ended, the session changed).
    pub(crate) fn clear_approvals(&mut self) {
        self.close_asking();
        self.approvals.clear();
    }

    /// Resets the prompt's state for the next one; a reason step gives the
    /// editor its draft back.
    fn close_asking(&mut self) {
        if let Some(draft) = self.asking.reason_draft.take() {
            self.editor.clear();
            self.editor.paste(&draft);
        }
        self.asking = Asking::default();
    }

    /// Opens the reason step: the editor's draft is put aside.
    pub(crate) fn open_reason(&mut self) {
        if self.asking.reason_draft.is_none() {
            let draft = self.editor.text();
            self.editor.clear();
            self.asking.reason_draft = Some(draft);
            self.completion = None;
        }
    }

    /// The first prompt's choices (the always rule only when it offers one).
    pub(crate) fn choices(&self) -> &'static [Choice] {
        match self.approvals.first() {
            Some(p) if p.always.is_some() => &CHOICES_ALWAYS,
            _ => &CHOICES,
        }
    }

    /// A key while a prompt is open; `None` when the key is the editor's.
    pub(crate) fn approval_key(&mut self, key: KeyEvent) -> Option<Option<Action>> {
        if self.approvals.first()?.form.is_some() {
            return self.form_key(key);
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let alt = key.modifiers.contains(KeyModifiers::ALT);
        // Ctrl-C still cancels the turn; the other Ctrl keys are the UI's.
        if ctrl {
            return None;
        }
        if self.asking.reason_draft.is_some() {
            return self.reason_key(key, alt);
        }
        if self.asking.guard.typed_ahead() {
            return self.typed_ahead_key(key);
        }
        let choices = self.choices();
        let count = choices.len();
        let last_digit = char::from(b'0' + count as u8);
        let drafting = !self.editor.is_empty();
        match key.code {
            KeyCode::Up | KeyCode::BackTab => {
                self.asking.selected = (self.asking.selected + count - 1) % count;
                self.asking.guard.pick();
            }
            KeyCode::Down => {
                if self.asking.guard.picked() {
                    self.asking.selected = (self.asking.selected + 1) % count;
                }
                self.asking.guard.pick();
            }
            KeyCode::Enter if !alt && self.asking.guard.enter_confirms() => {
                return Some(self.choose(choices[self.asking.selected.min(count - 1)]));
            }
            // Not a choice made here: the draft typed ahead is sent as the
            // user meant (guidance for the running turn); nothing is answered.
            KeyCode::Enter if drafting => return None,
            KeyCode::Enter => {
                self.hint = Some(format!("choose first: ↑↓ then Enter, or 1-{last_digit}"));
            }
            // A draft in progress goes on: its digits and letters are text.
            KeyCode::Char(_) | KeyCode::Backspace | KeyCode::Delete if drafting => return None,
            KeyCode::Left | KeyCode::Right | KeyCode::Home | KeyCode::End if drafting => {
                return None;
            }
            KeyCode::Char(c @ '1'..='9') if !alt && c <= last_digit => {
                let at = usize::from(c as u8 - b'1');
                self.asking.selected = at;
                self.asking.guard.pick();
                return Some(self.choose(choices[at]));
            }
            KeyCode::Esc => return Some(self.choose(Choice::Reject)),
            KeyCode::Tab => self.open_reason(),
            // Any other text starts a reason: it can only ever reject.
            KeyCode::Char(c) if !alt => {
                self.open_reason();
                self.editor.insert(c);
            }
            // Scrolling stays possible while the prompt waits.
            KeyCode::PageUp | KeyCode::PageDown => return None,
            _ => {}
        }
        Some(None)
    }

    /// A key within the grace after the prompt appeared: it was typed for
    /// the editor (text, Enter sending it), never for the prompt.
    fn typed_ahead_key(&mut self, key: KeyEvent) -> Option<Option<Action>> {
        match key.code {
            KeyCode::Char(_)
            | KeyCode::Enter
            | KeyCode::Backspace
            | KeyCode::Delete
            | KeyCode::Left
            | KeyCode::Right
            | KeyCode::Home
            | KeyCode::End
            | KeyCode::PageUp
            | KeyCode::PageDown => None,
            _ => Some(None),
        }
    }

    /// A key in the reason step: Enter rejects with the text, Esc goes back
    /// to the choices; everything else edits the reason.
    fn reason_key(&mut self, key: KeyEvent, alt: bool) -> Option<Option<Action>> {
        let shift = key.modifiers.contains(KeyModifiers::SHIFT);
        match key.code {
            KeyCode::Enter if !alt && !shift => {
                let reason = self.editor.text().trim().to_string();
                let reason = (!reason.is_empty()).then_some(reason);
                Some(self.decide("reject", reason))
            }
            KeyCode::Esc => {
                // Back to the same prompt: its grace is long over.
                let guard = self.asking.guard;
                self.close_asking();
                self.asking.guard = guard;
                self.asking.guard.pick();
                self.asking.selected = REASON_AT;
                Some(None)
            }
            // The history holds prompts, not reasons.
            KeyCode::Up | KeyCode::Down => Some(None),
            _ => None,
        }
    }

    fn choose(&mut self, choice: Choice) -> Option<Action> {
        match choice {
            Choice::AllowOnce => self.decide("allow_once", None),
            Choice::AllowSession => self.decide("allow_session", None),
            Choice::AllowAlways => self.decide("allow_always", None),
            Choice::Reject => self.decide("reject", None),
            Choice::RejectWithReason => {
                self.open_reason();
                None
            }
        }
    }

    /// Answers the first prompt; the next one (if any) starts fresh.
    fn decide(&mut self, decision: &'static str, message: Option<String>) -> Option<Action> {
        if self.approvals.is_empty() {
            return None;
        }
        let pending = self.approvals.remove(0);
        self.close_asking();
        Some(Action::Approve {
            approval_id: pending.approval_id,
            session_id: pending.session_id,
            decision,
            message,
        })
    }

    /// The prompt's lines (empty when nothing waits): the call and its
    /// diff, then the choices, whose [`App::approval_tail`] last lines must
    /// stay in view.
    pub fn approval_lines(&self) -> Vec<Line<'static>> {
        let Some(p) = self.approvals.first() else {
            return Vec::new();
        };
        if let Some((lines, _)) = self.form_lines() {
            return lines;
        }
        let bold = Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD);
        let mut out = vec![Line::from(vec![
            Span::styled("⚠ Allow ", bold),
            Span::styled(p.tool.clone(), bold),
            Span::raw(format!(" {}", p.summary.lines().next().unwrap_or_default())),
            Span::styled(
                if self.approvals.len() > 1 {
                    format!("  (+{} waiting)", self.approvals.len() - 1)
                } else {
                    String::new()
                },
                Style::new().fg(Color::DarkGray),
            ),
        ])];
        if let Some(body) = &p.body {
            crate::render::conversation::diff_lines(&mut out, body, PROMPT_DIFF_LINES, "");
        }
        out.extend(self.approval_choices());
        out
    }

    /// How many of [`App::approval_lines`]' last lines are the choices.
    pub fn approval_tail(&self) -> usize {
        if let Some((_, tail)) = self.form_lines() {
            return tail;
        }
        self.approval_choices().len()
    }

    fn approval_choices(&self) -> Vec<Line<'static>> {
        let keys = Style::new().fg(Color::Yellow);
        if self.asking.reason_draft.is_some() {
            return vec![Line::styled(
                "Rejecting: type why below (the agent reads it) · Enter rejects · Esc goes back",
                keys,
            )];
        }
        let always = self.approvals.first().and_then(|p| p.always.as_ref());
        let choices = self.choices();
        let mut out: Vec<Line<'static>> = choices
            .iter()
            .enumerate()
            .map(|(i, choice)| {
                let text = format!("{}. {}", i + 1, choice.label(always));
                if self.asking.guard.picked() && i == self.asking.selected {
                    Line::from(vec![
                        Span::styled("› ", keys.add_modifier(Modifier::BOLD)),
                        Span::styled(text, Style::new().add_modifier(Modifier::REVERSED)),
                    ])
                } else {
                    Line::raw(format!("  {text}"))
                }
            })
            .collect();
        out.push(Line::styled(
            if self.asking.guard.picked() {
                format!(
                    "↑↓ select · Enter confirms · 1-{} pick · Esc rejects · typing starts a reason",
                    choices.len()
                )
            } else if self.editor.is_empty() {
                format!(
                    "↑↓ then Enter, or 1-{}, to choose · Esc rejects · typing starts a reason",
                    choices.len()
                )
            } else {
                "↑↓ then Enter to choose · Enter sends your draft as guidance · Esc rejects".into()
            },
            keys,
        ));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::deliberate::{Deliberate, GRACE};
    use serde_json::json;
    use std::time::Instant;

    /// An envelope offered to the approval prompt, read as the UI reads it.
    fn offer(app: &mut App, env: &Event) -> bool {
        app.on_approval_envelope(env, &env.kind())
    }

    /// The prompt has been on screen for a while: keys now are deliberate.
    fn seen(app: &mut App) {
        app.asking.guard = Deliberate::shown_at(Instant::now() - GRACE * 2);
    }

    fn request(id: &str) -> Event {
        Event {
            seq: None,
            id: 3,
            event: "approval_request".into(),
            data: "command: rm x".into(),
            session_id: Some("s1".into()),
            details: Some(json!({"approvalId": id, "callId": "c", "tool": "bash",
                "summary": "command: rm x", "arguments": {"command": "rm x"}})),
        }
    }

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn approve(id: &str, decision: &'static str, message: Option<&str>) -> Option<Action> {
        Some(Action::Approve {
            approval_id: id.into(),
            session_id: Some("s1".into()),
            decision,
            message: message.map(str::to_string),
        })
    }

    /// Types `text` then Enter; the action Enter gave.
    fn answer(app: &mut App, text: &str) -> Option<Action> {
        for c in text.chars() {
            assert_eq!(app.on_key(key(KeyCode::Char(c))), None, "{c:?} decided");
        }
        app.on_key(key(KeyCode::Enter))
    }

    #[test]
    fn typed_text_only_ever_rejects_with_itself_as_the_reason() {
        for text in [
            "actually do not delete it",
            "yes but not now",
            "allow me to explain",
            "no, keep it",
            "1",
        ] {
            let mut app = App::default();
            app.editor.insert_str("a draft steer");
            offer(&mut app, &request("ap_1"));
            seen(&mut app);
            // The draft is given up for a reason by Tab.
            assert_eq!(app.on_key(key(KeyCode::Tab)), None);
            let typed = text;
            assert_eq!(
                answer(&mut app, typed),
                approve("ap_1", "reject", Some(text))
            );
            assert!(app.approvals.is_empty());
            assert_eq!(app.editor.text(), "a draft steer", "the draft is back");
        }
    }

    #[test]
    fn arrows_and_enter_or_digits_choose_and_esc_rejects() {
        let mut app = App::default();
        for id in ["ap_1", "ap_2", "ap_3", "ap_4", "ap_5"] {
            offer(&mut app, &request(id));
        }
        seen(&mut app);
        assert!(app.approval_lines()[0].to_string().contains("(+4 waiting)"));
        // Nothing is highlighted until the user selects.
        assert!(
            !app.approval_lines()
                .iter()
                .any(|l| l.to_string().starts_with("› "))
        );
        assert_eq!(app.on_key(key(KeyCode::Down)), None);
        assert_eq!(app.on_key(key(KeyCode::Down)), None);
        let selected: Vec<String> = app
            .approval_lines()
            .iter()
            .map(ToString::to_string)
            .filter(|l| l.starts_with("› "))
            .collect();
        assert_eq!(selected, ["› 2. Allow for this session"]);
        assert_eq!(
            app.on_key(key(KeyCode::Enter)),
            approve("ap_1", "allow_session", None)
        );
        // The next prompt has its own grace and selection; Up from nothing
        // selected goes to the last choice.
        seen(&mut app);
        assert_eq!(app.on_key(key(KeyCode::Enter)), None, "nothing selected");
        assert_eq!(app.approvals.len(), 4);
        assert_eq!(app.on_key(key(KeyCode::Up)), None);
        assert_eq!(app.on_key(key(KeyCode::Up)), None);
        assert_eq!(
            app.on_key(key(KeyCode::Enter)),
            approve("ap_2", "reject", None)
        );
        seen(&mut app);
        assert_eq!(
            app.on_key(key(KeyCode::Char('1'))),
            approve("ap_3", "allow_once", None)
        );
        seen(&mut app);
        assert_eq!(
            app.on_key(key(KeyCode::Esc)),
            approve("ap_4", "reject", None)
        );
        seen(&mut app);
        // 4 opens the reason step; Esc goes back to the choices.
        assert_eq!(app.on_key(key(KeyCode::Char('4'))), None);
        assert!(app.typing_reason());
        assert_eq!(app.on_key(key(KeyCode::Char('x'))), None);
        assert_eq!(app.on_key(key(KeyCode::Esc)), None);
        assert!(!app.typing_reason() && app.editor.is_empty());
        assert_eq!(
            app.on_key(key(KeyCode::Char('3'))),
            approve("ap_5", "reject", None)
        );
        assert!(app.approval_lines().is_empty());
    }

    #[test]
    fn a_resolution_elsewhere_closes_the_prompt_and_gives_the_draft_back() {
        let mut app = App::default();
        offer(&mut app, &request("ap_1"));
        seen(&mut app);
        app.editor.insert_str("draft");
        app.on_key(key(KeyCode::Tab));
        app.on_key(key(KeyCode::Char('w')));
        assert_eq!(app.editor.text(), "w");
        let resolved = Event {
            seq: None,
            id: 3,
            event: "approval_resolved".into(),
            data: "timeout".into(),
            session_id: Some("s1".into()),
            details: Some(json!({"approvalId": "ap_1", "callId": "c", "outcome": "timeout"})),
        };
        assert!(offer(&mut app, &resolved));
        assert!(app.approvals.is_empty() && !app.typing_reason());
        assert!(app.approval_lines().is_empty());
        assert_eq!(app.editor.text(), "draft");
    }

    fn request_with_rule(id: &str) -> Event {
        let mut env = request(id);
        if let Some(d) = env.details.as_mut() {
            d["alwaysRule"] = json!("Bash(rm x)");
            d["alwaysTarget"] = json!("workspace");
        }
        env
    }

    #[test]
    fn an_offered_rule_is_choice_five_and_the_other_digits_keep_their_meaning() {
        let mut app = App::default();
        offer(&mut app, &request_with_rule("ap_1"));
        offer(&mut app, &request("ap_2"));
        let lines: Vec<String> = app
            .approval_lines()
            .iter()
            .map(ToString::to_string)
            .collect();
        assert!(
            lines.contains(
                &"  5. Yes, and always allow `Bash(rm x)` (saved in the workspace config)"
                    .to_string()
            ),
            "{lines:?}"
        );
        // Typed ahead, 5 is the editor's, as every key.
        assert_eq!(app.on_key(key(KeyCode::Char('5'))), None);
        assert_eq!(app.editor.text(), "5");
        app.editor.clear();
        seen(&mut app);
        assert_eq!(
            app.on_key(key(KeyCode::Char('5'))),
            approve("ap_1", "allow_always", None)
        );
        // Without a rule there is no fifth choice: 5 starts a reason.
        seen(&mut app);
        assert!(
            !app.approval_lines()
                .iter()
                .any(|l| l.to_string().contains("5."))
        );
        assert_eq!(app.on_key(key(KeyCode::Char('5'))), None);
        assert!(app.typing_reason());
        // Up from nothing selected on a rule request reaches the rule.
        let mut app = App::default();
        offer(&mut app, &request_with_rule("ap_3"));
        seen(&mut app);
        app.on_key(key(KeyCode::Up));
        assert_eq!(
            app.on_key(key(KeyCode::Enter)),
            approve("ap_3", "allow_always", None)
        );
    }

    /// Regression (issue 36, item 1): text typed while the turn streamed
    /// stayed in the editor, and the Enter meant to send it allowed the call.
    #[test]
    fn typed_ahead_keys_and_an_unselected_enter_never_answer() {
        let turn = |app: &mut App| app.start_turn(7, "go");
        // Keys within the grace are the editor's: text, then Enter sends it.
        let mut app = App::default();
        turn(&mut app);
        offer(&mut app, &request("ap_1"));
        for c in "1yes".chars() {
            assert_eq!(app.on_key(key(KeyCode::Char(c))), None);
        }
        assert_eq!(
            app.on_key(key(KeyCode::Down)),
            None,
            "no selection in the grace"
        );
        assert_eq!(
            app.on_key(key(KeyCode::Esc)),
            None,
            "no rejection in the grace"
        );
        assert_eq!(app.editor.text(), "1yes");
        assert_eq!(
            app.on_key(key(KeyCode::Enter)),
            Some(Action::Steer("1yes".into()))
        );
        assert_eq!(app.approvals.len(), 1, "still asking");
        assert!(!app.asking.guard.picked());

        // A draft typed before the prompt: after the grace, its Enter still sends it.
        let mut app = App::default();
        turn(&mut app);
        app.editor.insert_str("also fix the tests");
        offer(&mut app, &request("ap_1"));
        seen(&mut app);
        assert_eq!(
            app.on_key(key(KeyCode::Char('2'))),
            None,
            "a digit of the draft"
        );
        assert_eq!(
            app.on_key(key(KeyCode::Enter)),
            Some(Action::Steer("also fix the tests2".into()))
        );
        assert_eq!(app.approvals.len(), 1, "still asking");

        // An empty editor: Enter with nothing selected answers nothing.
        assert_eq!(app.on_key(key(KeyCode::Enter)), None);
        assert_eq!(app.approvals.len(), 1);
        assert!(
            app.hint
                .as_deref()
                .unwrap_or_default()
                .contains("choose first")
        );
        // A selection made in the prompt, then Enter: that is an answer.
        assert_eq!(app.on_key(key(KeyCode::Down)), None);
        assert!(
            app.approval_lines()
                .iter()
                .any(|l| l.to_string() == "› 1. Allow once")
        );
        assert_eq!(
            app.on_key(key(KeyCode::Enter)),
            approve("ap_1", "allow_once", None)
        );
    }
}
