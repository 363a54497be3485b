//! `plan`: the model's short checklist, echoed to clients as a status line.
//! Stateless: each call replaces the whole plan.

use schemars::JsonSchema;
use serde::Deserialize;

use super::{definition, impl_tool};
use crate::error::ToolError;
use crate::tool::{ToolContext, ToolDefinition, ToolFlags, ToolOutput};

const MAX_STEPS: usize = 30;
const MAX_STEP_CHARS: usize = 200;

const DESCRIPTION: &str = "Keep a short checklist for multi-step work. Send the whole list each \
time, with each step pending, in_progress or completed; at most one step may be in_progress. \
An empty list clears the plan.";

/// Not mutating, but ordered: a plan update must not race the calls around it.
const FLAGS: ToolFlags = ToolFlags {
    mutating: false,
    network: false,
    vision: false,
    display: false,
    parallel_safe: false,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum StepStatus {
    Pending,
    InProgress,
    Completed,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct PlanStep {
    /// What this step does, one short line.
    step: String,
    /// pending, in_progress or completed.
    status: StepStatus,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct PlanArgs {
    /// The whole plan, in order.
    steps: Vec<PlanStep>,
}

pub struct PlanTool {
    def: ToolDefinition,
}

impl PlanTool {
    pub fn new() -> Self {
        PlanTool {
            def: definition::<PlanArgs>("plan", DESCRIPTION, FLAGS, "Planning"),
        }
    }

    async fn run(&self, args: PlanArgs, _ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let steps = args.steps;
        if steps.is_empty() {
            return Ok(ToolOutput {
                status: Some("Plan cleared.".to_string()),
                ..ToolOutput::ok("Plan cleared.", "Plan cleared")
            });
        }
        if steps.len() > MAX_STEPS {
            return Err(ToolError::failed(format!(
                "A plan has at most {MAX_STEPS} steps ({} given). Merge steps into larger ones.",
                steps.len()
            )));
        }
        for (i, s) in steps.iter().enumerate() {
            let text = s.step.trim();
            if text.is_empty() {
                return Err(ToolError::failed(format!("Step {} is empty.", i + 1)));
            }
            if text.contains('\n') || text.chars().count() > MAX_STEP_CHARS {
                return Err(ToolError::failed(format!(
                    "Step {} must be one line of at most {MAX_STEP_CHARS} characters.",
                    i + 1
                )));
            }
        }
        let active = steps
            .iter()
            .filter(|s| s.status == StepStatus::InProgress)
            .count();
        if active > 1 {
            return Err(ToolError::failed(format!(
                "At most one step may be in_progress ({active} are). Mark finished steps completed and the rest pending."
            )));
        }
        let done = steps
            .iter()
            .filter(|s| s.status == StepStatus::Completed)
            .count();
        let mut checklist = format!("Plan ({done}/{} completed)", steps.len());
        for s in &steps {
            let mark = match s.status {
                StepStatus::Completed => "[x]",
                StepStatus::InProgress => "[>]",
                StepStatus::Pending => "[ ]",
            };
            checklist.push_str(&format!("\n{mark} {}", s.step.trim()));
        }
        let summary = match steps.iter().find(|s| s.status == StepStatus::InProgress) {
            Some(current) => format!("Plan {done}/{}: {}", steps.len(), current.step.trim()),
            None => format!("Plan {done}/{}", steps.len()),
        };
        Ok(ToolOutput {
            status: Some(checklist.clone()),
            ..ToolOutput::ok(checklist, summary)
        })
    }
}

impl_tool!(PlanTool, PlanArgs);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtin::testing::ws;
    use serde_json::json;

    #[tokio::test]
    async fn checklist_and_status() {
        let w = ws();
        let out = w
            .call(
                &PlanTool::new(),
                json!({"steps": [
                    {"step": "Read the parser", "status": "completed"},
                    {"step": "Fix the bug", "status": "in_progress"},
                    {"step": "Run the tests", "status": "pending"}
                ]}),
            )
            .await;
        assert!(out.success, "{}", out.content);
        let expected =
            "Plan (1/3 completed)\n[x] Read the parser\n[>] Fix the bug\n[ ] Run the tests";
        assert_eq!(out.content, expected);
        assert_eq!(out.status.as_deref(), Some(expected));
        assert_eq!(out.summary, "Plan 1/3: Fix the bug");
        assert!(!out.mutated);
    }

    #[tokio::test]
    async fn validation() {
        let w = ws();
        let tool = PlanTool::new();
        let out = w
            .call(
                &tool,
                json!({"steps": [{"step": "a", "status": "in_progress"}, {"step": "b", "status": "in_progress"}]}),
            )
            .await;
        assert!(!out.success);
        assert!(
            out.content
                .starts_with("At most one step may be in_progress (2 are).")
        );
        let out = w
            .call(&tool, json!({"steps": [{"step": "a", "status": "doing"}]}))
            .await;
        assert!(
            out.content
                .starts_with("Invalid tool arguments: unknown variant `doing`"),
            "{}",
            out.content
        );
        let out = w
            .call(
                &tool,
                json!({"steps": [{"step": " ", "status": "pending"}]}),
            )
            .await;
        assert_eq!(out.content, "Step 1 is empty.");
        let out = w.call(&tool, json!({"steps": []})).await;
        assert_eq!(
            (out.success, out.status.as_deref()),
            (true, Some("Plan cleared."))
        );
    }
}
