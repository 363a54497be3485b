//! A front end's own closing tool (`seekclaw review`'s `submit_review`): the
//! turn ends when a call passes the front end's check, with the text the
//! check returns as its answer; a call that fails is an error result the
//! model reads and fixes. A plain answer is sent back (a few times) until the
//! tool is called, so a headless front end gets its structured result.

use std::fmt;
use std::sync::Arc;

use seekclaw_providers::ToolSpec;
use serde_json::Value;

/// How many plain answers are sent back before the turn ends without a call.
pub(crate) const SUBMIT_NUDGES: u32 = 2;

/// The check of a submit call: the answer it ends the turn with, or what is
/// wrong with its arguments (for the model).
pub type SubmitCheck = dyn Fn(&Value) -> Result<String, String> + Send + Sync;

/// A closing tool a front end offers in place of `finish`.
#[derive(Clone)]
pub struct SubmitTool {
    pub(crate) spec: ToolSpec,
    pub(crate) check: Arc<SubmitCheck>,
}

impl SubmitTool {
    /// A tool `name` taking arguments of the JSON schema `parameters`.
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        parameters: Value,
        check: Arc<SubmitCheck>,
    ) -> SubmitTool {
        SubmitTool {
            spec: ToolSpec {
                name: name.into(),
                description: description.into(),
                parameters: Arc::new(parameters),
                freeform: None,
            },
            check,
        }
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.spec.name
    }

    /// What the model is told when it answers without calling the tool.
    pub(crate) fn nudge(&self) -> String {
        format!(
            "[{name} required]\nThis task ends only with a {name} tool call; a plain answer is not read. Call {name} now with your result.",
            name = self.spec.name
        )
    }
}

impl fmt::Debug for SubmitTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SubmitTool")
            .field("name", &self.spec.name)
            .finish_non_exhaustive()
    }
}
