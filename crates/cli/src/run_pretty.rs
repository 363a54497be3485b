//! `seekclaw run` on a terminal: the turn printed with the chat's look
//! (Markdown, ✓/✗ tool rows with durations, diffs) and a closing usage line,
//! through `seekclaw_tui::print`. Piped output stays plain (see `run`).

#[cfg(unix)]
pub use terminal::Pretty;

#[cfg(unix)]
mod terminal {
    use std::io::{IsTerminal, Stdout};

    use seekclaw_agent::{AgentEvent, TurnOutcome};
    use seekclaw_exec::run::RunOutput;
    use seekclaw_tui::print::{Printer, terminal_height, terminal_width};

    /// The printer of a run whose stdout is a terminal.
    pub struct Pretty {
        printer: Printer<Stdout>,
    }

    impl Pretty {
        /// A printer when stdout is a terminal; `None` when it is piped.
        pub fn open() -> Option<Pretty> {
            let stdout = std::io::stdout();
            if !stdout.is_terminal() {
                return None;
            }
            Some(Pretty {
                printer: Printer::new(stdout, terminal_width()).live(terminal_height()),
            })
        }
    }

    impl RunOutput for Pretty {
        /// Prints what `ev` shows (write errors end nothing: the turn goes on).
        fn event(&mut self, _session: &str, ev: AgentEvent) {
            let p = &mut self.printer;
            let _ = match ev {
                AgentEvent::Delta(d) => p.delta(&d),
                AgentEvent::ModelStart {
                    step,
                    provider,
                    model,
                } => p
                    .step(step)
                    .and_then(|()| p.waiting(format!("waiting for {provider}/{model}"))),
                AgentEvent::Usage {
                    input_tokens,
                    output_tokens,
                    cost_usd,
                    ..
                } => {
                    p.usage(input_tokens, output_tokens, cost_usd);
                    Ok(())
                }
                AgentEvent::ToolStart {
                    call_id,
                    name,
                    summary,
                } => p.tool_start(&call_id, &name, &summary),
                AgentEvent::FileDiff { call_id, diff, .. } => {
                    p.file_diff(&call_id, &diff);
                    Ok(())
                }
                AgentEvent::ToolDone {
                    call_id,
                    name,
                    success,
                    duration_ms,
                    summary,
                    ..
                } => p.tool_done(&call_id, &name, success, duration_ms, &summary),
                AgentEvent::HookFinished(run) => p.hook(&super::hook_row(&run)),
                ev @ (AgentEvent::Failover { .. } | AgentEvent::Retry { .. }) => {
                    p.notice(&seekclaw_exec::model_notice(&ev).unwrap_or_default())
                }
                // The instruction files were cut to the budget (once a session).
                AgentEvent::Reminder {
                    kind: seekclaw_agent::ReminderKind::Instructions,
                    text,
                } => p.notice(&text),
                _ => Ok(()),
            };
        }

        fn ticks(&self) -> bool {
            true
        }

        /// Redraws the spinner while the run waits.
        fn tick(&mut self) {
            let _ = self.printer.tick();
        }

        /// The rest of the answer, `(cancelled)` after Ctrl-C (as the chat
        /// shows it), and the closing usage line.
        fn finish(&mut self, _session: &str, outcome: TurnOutcome) {
            let answer = match &outcome {
                TurnOutcome::Done(text) => text.as_str(),
                TurnOutcome::Cancelled(_) => {
                    let _ = self.printer.notice("(cancelled)");
                    ""
                }
                TurnOutcome::Failed(_) | TurnOutcome::Unsaved { .. } => "",
            };
            let _ = self.printer.finish(answer);
        }

        /// A second Ctrl-C: the run stops waiting for the turn's end.
        fn stopped(&mut self) {
            let _ = self
                .printer
                .notice("(cancelled; stopped waiting for the turn to end)");
        }
    }
}

/// Without the terminal UI crate (non-unix) runs always print plain.
#[cfg(not(unix))]
pub struct Pretty;

#[cfg(not(unix))]
impl Pretty {
    pub fn open() -> Option<Pretty> {
        None
    }
}

#[cfg(not(unix))]
impl seekclaw_exec::run::RunOutput for Pretty {
    fn event(&mut self, _session: &str, _ev: seekclaw_agent::AgentEvent) {}

    fn finish(&mut self, _session: &str, _outcome: seekclaw_agent::TurnOutcome) {}

    fn stopped(&mut self) {}
}

/// A finished hook run as the chat's hook row (dim, or highlighted with its message).
fn hook_row(run: &seekclaw_agent::HookRun) -> seekclaw_tui::hooks::HookRow {
    seekclaw_tui::hooks::HookRow {
        run_id: run.run_id.clone(),
        event: run.event.clone(),
        command: run.command.clone(),
        finished: run.finished.as_ref().map(|f| seekclaw_tui::hooks::HookEnd {
            exit_code: f.exit_code,
            duration_ms: f.duration_ms,
            decision: f.decision.clone(),
            message: f.message.clone(),
        }),
    }
}
