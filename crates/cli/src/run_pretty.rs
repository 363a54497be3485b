//! `seekclaw run` on a terminal: the turn printed with the chat's look
//! (Markdown, ✓/✗ tool rows with durations, diffs) and a closing usage line,
//! through `seekclaw_tui::print`. Piped output stays plain (see `run`).

#[cfg(unix)]
pub use terminal::Pretty;

#[cfg(unix)]
mod terminal {
    use std::io::{IsTerminal, Stdout};

    use seekclaw_agent::{AgentEvent, TurnOutcome};
    use seekclaw_config::{Config, Home, read_json_lenient};
    use seekclaw_providers::types::TokenUsage;
    use seekclaw_tui::print::{Printer, terminal_height, terminal_width};

    /// The printer of a run whose stdout is a terminal.
    pub struct Pretty {
        printer: Printer<Stdout>,
        /// The config's models and their prices (`None`: no cost is counted).
        config: Option<Config>,
    }

    impl Pretty {
        /// A printer when stdout is a terminal; `None` when it is piped.
        pub fn open(home: &Home) -> Option<Pretty> {
            let stdout = std::io::stdout();
            if !stdout.is_terminal() {
                return None;
            }
            Some(Pretty {
                printer: Printer::new(stdout, terminal_width()).live(terminal_height()),
                config: read_json_lenient::<Config>(&home.config_path())
                    .ok()
                    .flatten(),
            })
        }

        /// Prints what `ev` shows (write errors end nothing: the turn goes on).
        pub fn event(&mut self, ev: AgentEvent) {
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
                    provider,
                    model,
                    input_tokens,
                    output_tokens,
                    total_input_tokens,
                    cached_input_tokens,
                    ..
                } => {
                    // The router's own formula over the config's prices, as
                    // `usage.get` records it (cache writes are the rest of the
                    // input that is neither plain nor a cache read).
                    let usage = TokenUsage {
                        total_input_tokens,
                        cached_input_tokens,
                        cache_creation_input_tokens: total_input_tokens
                            .saturating_sub(cached_input_tokens)
                            .saturating_sub(input_tokens),
                        output_tokens,
                    };
                    let cost = self
                        .config
                        .as_ref()
                        .and_then(|c| c.provider(&provider)?.model(&model))
                        .filter(|m| m.input_price_per_mtok > 0.0 || m.output_price_per_mtok > 0.0)
                        .map(|m| seekclaw_providers::usage::cost(m, &usage));
                    p.usage(input_tokens, output_tokens, cost);
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
                ev @ (AgentEvent::Failover { .. } | AgentEvent::Retry { .. }) => {
                    p.notice(&seekclaw_daemon::model_notice(&ev).unwrap_or_default())
                }
                _ => Ok(()),
            };
        }

        /// Redraws the spinner while the run waits.
        pub fn tick(&mut self) {
            let _ = self.printer.tick();
        }

        /// The rest of the answer and the closing usage line.
        pub fn finish(&mut self, outcome: &TurnOutcome) {
            let answer = match outcome {
                TurnOutcome::Done(text) | TurnOutcome::Cancelled(text) => text.as_str(),
                TurnOutcome::Failed(_) | TurnOutcome::Unsaved { .. } => "",
            };
            let _ = self.printer.finish(answer);
        }
    }
}

/// Without the terminal UI crate (non-unix) runs always print plain.
#[cfg(not(unix))]
pub struct Pretty;

#[cfg(not(unix))]
impl Pretty {
    pub fn open(_home: &seekclaw_config::Home) -> Option<Pretty> {
        None
    }

    pub fn event(&mut self, _ev: seekclaw_agent::AgentEvent) {}

    pub fn tick(&mut self) {}

    pub fn finish(&mut self, _outcome: &seekclaw_agent::TurnOutcome) {}
}
