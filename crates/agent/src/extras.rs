//! What a turn gets beyond the built-in tools: MCP tools and server prompts,
//! the skills section and the prompt files. They are resolved after the turn's
//! first event is out, because MCP servers may still be connecting when a turn
//! starts.

use std::path::PathBuf;
use std::sync::Arc;

use seekclaw_tools::{Registry, Tool};

use crate::prompt::PromptFiles;

/// What a turn gets from MCP servers, skills and the prompt's files.
#[derive(Default)]
pub struct TurnExtras {
    /// MCP tools (`mcp__<server>__<tool>`), added to the built-in registry.
    pub tools: Vec<Arc<dyn Tool>>,
    /// Prompt texts from the MCP servers (the prompt's MCP slot).
    pub mcp_prompts: Vec<String>,
    /// The rendered skills section.
    pub skills_prompt: Option<String>,
    /// Files outside the workspace that `read_file` may open (listed skill files).
    pub readable_files: Vec<PathBuf>,
    /// What the system prompt reads from disk (overrides, AGENTS.md, memory,
    /// project kinds), read once for the whole turn.
    pub prompt_files: PromptFiles,
}

/// The extras merged into the turn's view.
pub(crate) struct Resolved {
    pub registry: Registry,
    pub extras: TurnExtras,
}

impl Resolved {
    pub fn new(builtin: &Registry, extras: TurnExtras) -> Resolved {
        let mut registry = builtin.clone();
        for tool in &extras.tools {
            registry.register(tool.clone());
        }
        Resolved { registry, extras }
    }
}
