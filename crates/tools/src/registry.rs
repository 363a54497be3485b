//! The tool registry: every tool of a turn, sorted by name (a stable prompt prefix),
//! filtered by mode, workspace settings, network and model capabilities.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::tool::{Tool, ToolDefinition};

/// Which tools a step may offer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolFilter {
    /// plan/readonly: mutating tools are removed.
    pub read_only: bool,
    /// Network tools are offered.
    pub network_enabled: bool,
    /// The model takes images (tools that need vision are offered).
    pub vision: bool,
    /// A display is reachable (`capture_screen` is offered).
    pub display: bool,
    /// The workspace's `disabledTools` (and a child turn's refusals).
    pub disabled: Vec<String>,
    /// The turn may start child turns (`explore`, `review` are offered).
    pub subagents: bool,
    /// Which edit tools the model gets: never both families in one request.
    pub edits: EditTools,
}

/// The two ways a model edits part of a file; a request offers one.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum EditTools {
    /// `edit_file` and `multi_edit` (exact text replacements).
    #[default]
    EditFile,
    /// `apply_patch` (Codex's patch format), for the models trained on it.
    ApplyPatch,
}

impl EditTools {
    /// The tools of this family.
    pub fn names(self) -> &'static [&'static str] {
        match self {
            EditTools::EditFile => &["edit_file", "multi_edit"],
            EditTools::ApplyPatch => &[crate::builtin::APPLY_PATCH],
        }
    }

    /// The other family.
    fn other(self) -> EditTools {
        match self {
            EditTools::EditFile => EditTools::ApplyPatch,
            EditTools::ApplyPatch => EditTools::EditFile,
        }
    }
}

/// Tools by name.
#[derive(Clone, Default)]
pub struct Registry {
    tools: BTreeMap<String, Arc<dyn Tool>>,
}

impl Registry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a tool; a later tool with the same name replaces the earlier one.
    pub fn register(&mut self, tool: Arc<dyn Tool>) {
        self.tools.insert(tool.definition().name.clone(), tool);
    }

    /// The tool called `name`, if registered.
    pub fn get(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        self.tools.get(name)
    }

    /// All tools, sorted by name.
    pub fn all(&self) -> impl Iterator<Item = &Arc<dyn Tool>> {
        self.tools.values()
    }

    /// Why `name` may not run under `filter`, if it may not.
    pub fn denial(&self, def: &ToolDefinition, filter: &ToolFilter) -> Option<String> {
        if filter.disabled.iter().any(|d| d == &def.name) {
            return Some(format!(
                "Tool '{}' is disabled in this workspace.",
                def.name
            ));
        }
        if filter.edits.other().names().contains(&def.name.as_str()) {
            return Some(format!(
                "Tool '{}' is not offered to this model: edit files with {} instead.",
                def.name,
                filter.edits.names().join(" or ")
            ));
        }
        if !filter.subagents && crate::children::SUBAGENT_TOOLS.contains(&def.name.as_str()) {
            return Some(format!(
                "Tool '{}' is not available here: a subagent cannot start subagents.",
                def.name
            ));
        }
        if filter.read_only && def.flags.mutating {
            return Some(format!(
                "Tool execution denied: '{}' is not allowed in Plan Mode. Switch mode via '/mode edit' (or agent.mode.switch) to make changes.",
                def.name
            ));
        }
        if def.flags.network && !filter.network_enabled {
            return Some(format!(
                "Tool '{}' needs network access, which is off for this session.",
                def.name
            ));
        }
        if def.flags.vision && !filter.vision {
            return Some(format!("Tool '{}' needs a vision-capable model.", def.name));
        }
        if def.flags.display && !filter.display {
            return Some(format!(
                "Tool '{}' needs a display: neither DISPLAY nor WAYLAND_DISPLAY is set for the daemon.",
                def.name
            ));
        }
        None
    }

    /// The tools a step offers, sorted by name.
    pub fn offered(&self, filter: &ToolFilter) -> Vec<Arc<dyn Tool>> {
        self.tools
            .values()
            .filter(|t| self.denial(t.definition(), filter).is_none())
            .cloned()
            .collect()
    }
}
