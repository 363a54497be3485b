//! The SeekClaw turn engine: runs one agent turn (model ⇄ tools loop) over a
//! session, emitting typed events. Knows no wire and no socket.
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]
#![warn(missing_docs)]

mod always;
mod approval;
mod ask;
mod blocking;
mod ceiling;
mod checkpoints;
mod closing;
mod compaction;
mod context;
mod control;
mod elicitation;
mod events;
mod extras;
mod goal;
mod history;
mod hooks;
mod instructions;
mod observer;
mod opening;
mod prompt;
mod safe_command;
mod sandbox;
mod session_compaction;
mod spend;
mod steer;
mod submit;
mod tool_calls;
mod tool_hooks;
mod transcript;
mod turn;
mod turn_hooks;
mod turn_loop;
mod verify;

pub use approval::{
    AnswerError, ApprovalOutcome, Approvals, Decision, NotPending, Response, Unattended, asks,
    effective_policy,
};
pub use checkpoints::{
    CheckpointCause, CheckpointFile, CheckpointFuture, CheckpointNote, NotTrackedNote, Touched,
    TurnCheckpoints,
};
pub use context::{estimate_text, estimate_tokens};
pub use elicitation::content_of as elicitation_content;
pub use events::{
    AgentEvent, AutoCompaction, ElicitationAsk, FailureKind, GoalStatus, HookFinish, HookRun,
    ReminderKind, Subrun, TurnFailure, TurnOutcome, TurnStatus, WorkflowKind, WorkflowNode,
};
pub use extras::TurnExtras;
pub use goal::{AUTO_TURNS, CONTINUE_PROMPT, GoalMarker, StandingGoal};
pub use history::{conversation, model_messages};
pub use hooks::{TranscriptWriter, TurnPolicy};
pub use instructions::{InstructionFile, Instructions, MAX_IMPORT_DEPTH};
pub use prompt::{PromptFiles, PromptInput, PromptSources, system_prompt};
pub use safe_command::is_safe_command;
pub use sandbox::effective_mode as effective_sandbox_mode;
pub use session_compaction::{Compacted, compact_session, compaction_range};
pub use spend::{OUTPUT_ESTIMATE_CAP, RequestEstimate, SpendGate, SpendVerdict};
pub use steer::{Steer, SteerKind, SteerQueue, TurnFinishing};
pub use submit::{SubmitCheck, SubmitTool};
pub use tool_calls::call_summary;
pub use turn::{Balance, TurnDiagnostics, TurnInput, TurnRuntime, UserImage, owner_id, run_turn};

use seekclaw_providers::Observer;
use seekclaw_providers::usage::AttemptRecord;
use seekclaw_store::{StepUsage, UsageRecord};

/// Keeps only attempt records (side requests such as compaction).
#[derive(Default)]
pub(crate) struct UsageOnly {
    pub records: Vec<AttemptRecord>,
}

impl Observer for UsageOnly {
    fn attempt(&mut self, r: &AttemptRecord) {
        self.records.push(r.clone());
    }
}

/// A step's attempts as its log entry's usage (the cost in nano-USD).
pub fn step_usage(records: &[AttemptRecord]) -> StepUsage {
    records.iter().fold(StepUsage::default(), |mut u, r| {
        u.input_tokens = u.input_tokens.saturating_add(r.usage.total_input_tokens);
        u.cached_input_tokens = u
            .cached_input_tokens
            .saturating_add(r.usage.cached_input_tokens);
        u.output_tokens = u.output_tokens.saturating_add(r.usage.output_tokens);
        u.reasoning_tokens = u.reasoning_tokens.saturating_add(r.usage.reasoning_tokens);
        // `as` saturates: a NaN or negative cost counts as nothing.
        u.cost_nano_usd = u
            .cost_nano_usd
            .saturating_add((r.cost * 1e9).round() as u64);
        u
    })
}

/// An attempt as a `usage_records` row.
pub fn usage_record(r: &AttemptRecord, session_id: Option<&str>) -> UsageRecord {
    UsageRecord {
        provider: r.provider.clone(),
        model: r.model.clone(),
        session_id: session_id.map(str::to_string),
        input_tokens: r.usage.uncached_input_tokens(),
        total_input_tokens: r.usage.total_input_tokens,
        cached_input_tokens: r.usage.cached_input_tokens,
        cache_creation_input_tokens: r.usage.cache_creation_input_tokens,
        output_tokens: r.usage.output_tokens,
        reasoning_tokens: r.usage.reasoning_tokens,
        cost: r.cost,
        elapsed_ms: r.elapsed_ms,
        success: r.success,
    }
}
