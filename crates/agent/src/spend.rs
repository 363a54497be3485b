//! The spend check before each model request: the turn estimates what the
//! request will cost and asks the engine's [`SpendGate`] (which knows the
//! budgets and what was spent) whether it may go out. The policy is the
//! engine's; the loop only asks, shows warnings and stops.

use std::sync::Arc;

use seekclaw_config::Model;
use seekclaw_providers::types::ChatRequest;

use crate::context;
use crate::events::{AgentEvent, FailureKind, ReminderKind, TurnFailure};
use crate::turn::{Counters, TurnCtx};

/// Output tokens a request is assumed to produce at most when the model's
/// own limit is larger: a model's full `maxOutput` (64k for some) would stop
/// a modest budget long before any answer is that long.
pub const OUTPUT_ESTIMATE_CAP: u64 = 4096;

/// What a model request is expected to cost, before it is sent.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RequestEstimate {
    /// The model it most likely goes to (its id).
    pub model: String,
    /// Estimated prompt tokens (system prompt, tools, history).
    pub input_tokens: u64,
    /// The output tokens allowed for (the model's `maxOutput`, capped).
    pub output_tokens: u64,
    /// USD at the model's prices (0 for an unpriced model).
    pub usd: f64,
    /// The model has a price; else its tokens count against token budgets.
    pub priced: bool,
    /// USD this turn spent that the ledger does not hold yet.
    pub pending_usd: f64,
    /// Unpriced tokens this turn used that the ledger does not hold yet.
    pub pending_tokens: u64,
}

impl RequestEstimate {
    /// The estimate of `request` going to `model`, with the turn's unwritten spend.
    pub fn of(model: &Model, request: &ChatRequest, pending: (f64, u64)) -> RequestEstimate {
        let tools: u64 = request
            .tools
            .iter()
            .map(|t| {
                context::estimate_text(&t.name)
                    + context::estimate_text(&t.description)
                    + context::estimate_text(&t.parameters.to_string())
            })
            .sum();
        let input_tokens = context::estimate_text(&request.system)
            + tools
            + context::estimate_all(&request.messages);
        let output_tokens = request
            .max_output
            .unwrap_or(model.max_output)
            .clamp(1, OUTPUT_ESTIMATE_CAP);
        let priced = model.input_price_per_mtok > 0.0 || model.output_price_per_mtok > 0.0;
        let usd = (input_tokens as f64 * model.input_price_per_mtok
            + output_tokens as f64 * model.output_price_per_mtok)
            / 1_000_000.0;
        RequestEstimate {
            model: model.id.clone(),
            input_tokens,
            output_tokens,
            usd,
            priced,
            pending_usd: pending.0,
            pending_tokens: pending.1,
        }
    }

    /// Tokens the request counts against a token budget.
    pub fn tokens(&self) -> u64 {
        self.input_tokens.saturating_add(self.output_tokens)
    }
}

/// The gate's answer.
#[derive(Debug, Clone, PartialEq)]
pub enum SpendVerdict {
    /// The request may go out; each text is a budget nearing its end (the
    /// gate says each once per budget and session).
    Go(Vec<String>),
    /// The request would exceed a budget: the turn stops before it, with
    /// this text (the budget, what was spent, how to raise it).
    Stop(String),
}

/// The engine's budgets as a turn asks them. Blocking: it reads the ledger.
pub trait SpendGate: Send + Sync + std::fmt::Debug {
    /// Whether the request estimated as `estimate` may go out.
    fn check(&self, estimate: &RequestEstimate) -> SpendVerdict;
}

/// Asks the turn's gate (if any) about the next request to `model`.
/// `Err`: the turn ends with a `budget` failure before the request.
pub(crate) async fn check(
    cx: &TurnCtx<'_>,
    model: &Model,
    request: &ChatRequest,
    counters: &Counters,
) -> Result<(), TurnFailure> {
    let Some(gate) = cx.input.budget.clone() else {
        return Ok(());
    };
    let pending = counters.unwritten.iter().fold((0.0, 0u64), |(usd, t), r| {
        let tokens = match r.cost > 0.0 {
            true => 0,
            false => r.total_input_tokens.saturating_add(r.output_tokens),
        };
        (usd + r.cost.max(0.0), t.saturating_add(tokens))
    });
    let estimate = RequestEstimate::of(model, request, pending);
    let verdict = ask(gate, estimate).await;
    match verdict {
        SpendVerdict::Go(warnings) => {
            for text in warnings {
                cx.emit(AgentEvent::Reminder {
                    kind: ReminderKind::Budget,
                    text,
                });
            }
            Ok(())
        }
        SpendVerdict::Stop(message) => Err(TurnFailure::new(FailureKind::Budget, message)),
    }
}

async fn ask(gate: Arc<dyn SpendGate>, estimate: RequestEstimate) -> SpendVerdict {
    // A gate that cannot be asked (its thread died) lets the request go:
    // a budget never fails a turn for its own fault.
    crate::blocking::run_now(move || gate.check(&estimate))
        .await
        .unwrap_or(SpendVerdict::Go(Vec::new()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use seekclaw_providers::types::ChatMessage;

    fn model(input: f64, output: f64) -> Model {
        Model {
            id: "m".into(),
            max_output: 100_000,
            input_price_per_mtok: input,
            output_price_per_mtok: output,
            ..Model::default()
        }
    }

    #[test]
    fn estimate_prices_the_prompt_and_the_capped_output() {
        let request = ChatRequest {
            system: "x".repeat(4000),
            messages: vec![ChatMessage::User {
                text: "y".repeat(400),
                images: Vec::new(),
            }],
            ..ChatRequest::default()
        };
        let e = RequestEstimate::of(&model(1.0, 10.0), &request, (0.5, 0));
        assert!(e.priced);
        assert_eq!(e.output_tokens, OUTPUT_ESTIMATE_CAP);
        assert!(e.input_tokens >= 1100, "{}", e.input_tokens);
        let expected = (e.input_tokens as f64 + 10.0 * OUTPUT_ESTIMATE_CAP as f64) / 1e6;
        assert!((e.usd - expected).abs() < 1e-12);
        assert_eq!(e.pending_usd, 0.5);
        let small = Model {
            max_output: 100,
            ..model(1.0, 1.0)
        };
        assert_eq!(
            RequestEstimate::of(&small, &request, (0.0, 0)).output_tokens,
            100
        );
    }

    #[test]
    fn an_unpriced_model_costs_tokens_not_dollars() {
        let e = RequestEstimate::of(&model(0.0, 0.0), &ChatRequest::default(), (0.0, 7));
        assert!(!e.priced);
        assert_eq!(e.usd, 0.0);
        assert_eq!(e.tokens(), e.input_tokens + OUTPUT_ESTIMATE_CAP);
        assert_eq!(e.pending_tokens, 7);
    }
}
