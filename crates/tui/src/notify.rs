//! `ui.notify`: a bell or a desktop notification (OSC 9 / OSC 777) when a
//! turn ends or an approval (or a server's form) waits, only while the
//! terminal is not focused. Focus comes from the terminal's focus reports
//! (`CSI ?1004 h`); a terminal that never reports counts as focused, so it
//! is never rung at. Inside tmux an OSC is wrapped for tmux's passthrough
//! (`allow-passthrough on`); the bell goes as it is (tmux has its own).

use std::collections::HashSet;
use std::io::Write;

use seekclaw_config::Notify;

use crate::app::App;

/// What calls for the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Signal {
    /// A turn ended (finished, failed or cancelled).
    TurnEnded,
    /// A tool call waits for a decision.
    Approval(String),
    /// An MCP server's form waits to be filled in.
    Form,
}

impl Signal {
    /// The notification's text.
    fn text(&self) -> String {
        match self {
            Signal::TurnEnded => "Turn finished".to_string(),
            Signal::Approval(tool) => format!("Waiting for your approval: {tool}"),
            Signal::Form => "A form waits for you".to_string(),
        }
    }
}

/// Watches the UI's state for moments that call for the user.
#[derive(Debug)]
pub struct Notifier {
    mode: Notify,
    /// The terminal has focus (assumed until it says otherwise).
    focused: bool,
    /// Inside tmux (`$TMUX`): OSCs are wrapped for its passthrough.
    in_tmux: bool,
    /// A turn ran at the last look.
    running: bool,
    /// The approvals pending at the last look.
    pending: HashSet<String>,
}

impl Notifier {
    /// A notifier in `mode`; `in_tmux` from the environment.
    pub fn new(mode: Notify, in_tmux: bool) -> Notifier {
        Notifier {
            mode,
            focused: true,
            in_tmux,
            running: false,
            pending: HashSet::new(),
        }
    }

    /// `ui.notify` changed.
    pub fn set_mode(&mut self, mode: Notify) {
        self.mode = mode;
    }

    /// The terminal gained (true) or lost focus; a key or a click also means
    /// the user is there.
    pub fn focus(&mut self, focused: bool) {
        self.focused = focused;
    }

    /// Looks at `app` after a change: the signal due, if the terminal is not
    /// focused and notifications are on. Each turn's end and each approval
    /// counts once, whether or not it was signalled.
    pub fn observe(&mut self, app: &App) -> Option<Signal> {
        let ended = self.running && app.turn.is_none();
        self.running = app.turn.is_some();
        let new = app
            .approvals
            .iter()
            .find(|a| !self.pending.contains(&a.approval_id))
            .map(|a| match a.form {
                Some(_) => Signal::Form,
                None => Signal::Approval(a.tool.clone()),
            });
        self.pending = app
            .approvals
            .iter()
            .map(|a| a.approval_id.clone())
            .collect();
        let signal = new.or(ended.then_some(Signal::TurnEnded))?;
        (!self.focused && self.mode != Notify::Off).then_some(signal)
    }

    /// Writes `signal` to the terminal (between frames; a failed write is
    /// not worth an error on screen).
    pub fn emit(&self, signal: &Signal) {
        let bytes = encode(self.mode, signal, self.in_tmux);
        if !bytes.is_empty() {
            let mut out = std::io::stdout();
            let _ = out.write_all(&bytes).and_then(|()| out.flush());
        }
    }
}

/// The bytes that signal `signal` in `mode`.
pub fn encode(mode: Notify, signal: &Signal, in_tmux: bool) -> Vec<u8> {
    let text = clean(&signal.text());
    let osc = match mode {
        Notify::Off => return Vec::new(),
        Notify::Bell => return b"\x07".to_vec(),
        Notify::Osc9 => format!("\x1b]9;seekclaw: {text}\x07"),
        Notify::Osc777 => format!("\x1b]777;notify;seekclaw;{text}\x07"),
    };
    match in_tmux {
        // tmux's passthrough: the sequence in a DCS, its ESCs doubled.
        true => format!("\x1bPtmux;{}\x1b\\", osc.replace('\x1b', "\x1b\x1b")).into_bytes(),
        false => osc.into_bytes(),
    }
}

/// Text safe inside an OSC: no control characters, no `;` (OSC 777's separator).
fn clean(text: &str) -> String {
    text.chars()
        .filter(|c| !c.is_control())
        .map(|c| if c == ';' { ',' } else { c })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::approval::PendingApproval;

    fn approval(id: &str) -> PendingApproval {
        PendingApproval {
            approval_id: id.into(),
            session_id: None,
            tool: "bash".into(),
            summary: "ls".into(),
            body: None,
            always: None,
            form: None,
        }
    }

    #[test]
    fn signals_only_while_unfocused_and_each_moment_once() {
        let mut n = Notifier::new(Notify::Bell, false);
        let mut app = App::default();
        app.start_turn(1, "hi");
        assert_eq!(n.observe(&app), None);
        app.turn = None;
        assert_eq!(n.observe(&app), None, "focused: nothing");
        n.focus(false);
        app.start_turn(2, "again");
        assert_eq!(n.observe(&app), None, "a start is no signal");
        app.approvals.push(approval("a1"));
        assert_eq!(n.observe(&app), Some(Signal::Approval("bash".into())));
        assert_eq!(n.observe(&app), None, "the same approval once");
        app.approvals.clear();
        assert_eq!(n.observe(&app), None);
        app.turn = None;
        assert_eq!(n.observe(&app), Some(Signal::TurnEnded));
        assert_eq!(n.observe(&app), None);
        n.set_mode(Notify::Off);
        app.start_turn(3, "off");
        n.observe(&app);
        app.turn = None;
        assert_eq!(n.observe(&app), None, "off says nothing");
    }

    #[test]
    fn encodings_and_the_tmux_wrapper() {
        let ended = Signal::TurnEnded;
        assert_eq!(encode(Notify::Off, &ended, false), b"");
        assert_eq!(encode(Notify::Bell, &ended, true), b"\x07");
        assert_eq!(
            encode(Notify::Osc9, &ended, false),
            b"\x1b]9;seekclaw: Turn finished\x07"
        );
        assert_eq!(
            encode(Notify::Osc777, &Signal::Approval("a;b\x07".into()), false),
            b"\x1b]777;notify;seekclaw;Waiting for your approval: a,b\x07"
        );
        assert_eq!(
            encode(Notify::Osc9, &Signal::Form, true),
            b"\x1bPtmux;\x1b\x1b]9;seekclaw: A form waits for you\x07\x1b\\"
        );
    }
}
