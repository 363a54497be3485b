//! `seekclaw run` piped: the answer as plain text on stdout, each model
//! step's text a paragraph of its own (steps never run together), and one
//! line per tool call on stderr, with a second line marking a call that
//! failed or was refused (not run).

use std::io::Write;

use seekclaw_agent::{AgentEvent, TurnOutcome};
use seekclaw_protocol::wording;

use super::RunOutput;

/// A run printed plain: the answer to `out`, tool calls and notes to `err`.
pub struct PlainOutput<O: Write, E: Write> {
    plain: Plain,
    out: O,
    err: E,
}

impl<O: Write, E: Write> PlainOutput<O, E> {
    pub fn new(out: O, err: E) -> Self {
        PlainOutput {
            plain: Plain::new(),
            out,
            err,
        }
    }
}

impl<O: Write, E: Write> RunOutput for PlainOutput<O, E> {
    fn event(&mut self, _session: &str, ev: AgentEvent) {
        self.plain.event(ev, &mut self.out, &mut self.err);
    }

    fn finish(&mut self, _session: &str, outcome: TurnOutcome) {
        let _ = writeln!(self.out);
        let _ = self.out.flush();
        if matches!(outcome, TurnOutcome::Cancelled(_)) {
            let _ = writeln!(self.err, "(cancelled)");
        }
    }

    fn stopped(&mut self) {
        let _ = writeln!(self.out);
        let _ = self.out.flush();
        let _ = writeln!(self.err, "(cancelled; stopped waiting for the turn to end)");
    }
}

/// The line a failover or a retry shows (another model, price and
/// destination, or a wait), in the shared wording; `None` for other events.
pub fn model_notice(ev: &AgentEvent) -> Option<String> {
    match ev {
        AgentEvent::Failover {
            failed, error, to, ..
        } => Some(wording::failover_notice(failed, error, to)),
        AgentEvent::Retry {
            model,
            attempt,
            max_attempts,
            reason,
            delay_ms,
            ..
        } => Some(wording::retry_notice(
            model,
            *attempt,
            *max_attempts,
            reason,
            *delay_ms,
        )),
        _ => None,
    }
}

/// A finished hook run's line, in the shared wording.
fn hook_line(run: &seekclaw_agent::HookRun) -> Option<String> {
    let end = run.finished.as_ref()?;
    Some(wording::hook_line(
        &run.event,
        &run.command,
        &end.decision,
        end.exit_code,
        end.duration_ms,
        end.message.as_deref(),
    ))
}

/// The plain printer's memory between events.
#[derive(Debug, Default)]
pub struct Plain {
    /// The model step whose text prints now.
    step: u32,
    /// The last answer text printed ended its line (or none was printed).
    at_line_start: bool,
    /// The last text ended in a blank line.
    at_paragraph: bool,
    /// Some answer text was printed.
    printed: bool,
    /// A new step began since the last text: its first text starts a paragraph.
    new_step: bool,
}

impl Plain {
    pub fn new() -> Plain {
        Plain {
            at_line_start: true,
            ..Plain::default()
        }
    }

    /// Prints what `ev` shows: answer text to `out`, tool calls to `err`.
    pub fn event(&mut self, ev: AgentEvent, out: &mut impl Write, err: &mut impl Write) {
        match ev {
            AgentEvent::ModelStart { step, .. } => {
                // A failover restarts the same step: no new paragraph.
                if step > self.step {
                    self.step = step;
                    self.new_step = self.printed;
                }
            }
            AgentEvent::Delta(d) if !d.is_empty() => {
                if std::mem::take(&mut self.new_step) && !self.at_paragraph {
                    let gap = if self.at_line_start { "\n" } else { "\n\n" };
                    let _ = out.write_all(gap.as_bytes());
                }
                let _ = out.write_all(d.as_bytes());
                self.printed = true;
                self.at_line_start = d.ends_with('\n');
                self.at_paragraph = d.ends_with("\n\n") || (d == "\n" && self.at_paragraph);
            }
            AgentEvent::ToolStart { name, summary, .. } => {
                let _ = writeln!(err, "{}[{name}] {summary}", self.fresh_line());
            }
            AgentEvent::ToolDone {
                name,
                success: false,
                duration_ms,
                summary,
                ..
            } => {
                // A call that never ran (denied, needing an approval nobody
                // can give, bad arguments, unknown tool) ends in no time.
                let how = if duration_ms == 0.0 {
                    "refused (not run)"
                } else {
                    "failed"
                };
                let _ = writeln!(err, "[{name}] {how}: {summary}");
            }
            AgentEvent::HookFinished(run) => {
                if let Some(line) = hook_line(&run) {
                    let _ = writeln!(err, "{}[{line}]", self.fresh_line());
                }
            }
            ev => {
                if let Some(notice) = model_notice(&ev) {
                    // A failover or a retry: another model (price, destination) or a wait.
                    let _ = writeln!(err, "{}[{notice}]", self.fresh_line());
                }
            }
        }
        let _ = out.flush();
    }

    /// `\n` when the answer stopped mid-line: stdout and stderr often share
    /// a terminal, and a tool line must not continue the answer's.
    fn fresh_line(&self) -> &'static str {
        if self.at_line_start { "" } else { "\n" }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(n: u32) -> AgentEvent {
        AgentEvent::ModelStart {
            provider: "p".into(),
            model: "m".into(),
            step: n,
        }
    }

    fn run(events: Vec<AgentEvent>) -> (String, String) {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let mut plain = Plain::new();
        for ev in events {
            plain.event(ev, &mut out, &mut err);
        }
        (
            String::from_utf8(out).unwrap(),
            String::from_utf8(err).unwrap(),
        )
    }

    fn done(name: &str, success: bool, ms: f64, summary: &str) -> AgentEvent {
        AgentEvent::ToolDone {
            call_id: "c".into(),
            name: name.into(),
            success,
            duration_ms: ms,
            summary: summary.into(),
            output: String::new(),
        }
    }

    #[test]
    fn each_steps_text_is_its_own_paragraph() {
        let (out, _) = run(vec![
            step(1),
            AgentEvent::Delta("Step one.".into()),
            step(2),
            AgentEvent::Delta("Step two".into()),
            AgentEvent::Delta(" done.".into()),
            step(3),
            AgentEvent::Delta("Three\n".into()),
            step(4),
            AgentEvent::Delta("Four\n\n".into()),
            step(5),
            AgentEvent::Delta("Five".into()),
        ]);
        assert_eq!(out, "Step one.\n\nStep two done.\n\nThree\n\nFour\n\nFive");
        // A step without text (tool calls only) adds no blank line, nor does
        // a failover's restart of a step.
        let (out, _) = run(vec![
            step(1),
            step(2),
            AgentEvent::Delta("Only.".into()),
            step(2),
            AgentEvent::Delta(" Same".into()),
        ]);
        assert_eq!(out, "Only. Same");
    }

    #[test]
    fn failed_and_refused_calls_are_marked() {
        let start = |name: &str| AgentEvent::ToolStart {
            call_id: "c".into(),
            name: name.into(),
            summary: "x".into(),
        };
        let (_, err) = run(vec![
            start("read_file"),
            done("read_file", true, 1.5, "3 lines"),
            start("bash"),
            done("bash", false, 20.0, "exit code 1"),
            AgentEvent::Delta("mid".into()),
            start("write_file"),
            done("write_file", false, 0.0, "This call needs approval"),
        ]);
        assert_eq!(
            err,
            "[read_file] x\n[bash] x\n[bash] failed: exit code 1\n\n[write_file] x\n[write_file] refused (not run): This call needs approval\n"
        );
    }
}
