//! The built-in tools, one module per tool or family.

mod bash;
mod capture;
mod edit;
mod glob;
mod grep;
mod html;
mod list_dir;
mod patch;
mod plan;
mod read;
mod remove;
mod subagents;
mod web_fetch;
mod web_search;
mod write;

#[cfg(test)]
pub(crate) mod testing;

use std::sync::Arc;

use schemars::JsonSchema;

use crate::args::schema_of;
use crate::error::ToolError;
use crate::registry::Registry;
use crate::tool::{ToolDefinition, ToolFlags};

pub use bash::{BashOutputTool, BashStopTool, BashTool};
pub use capture::{CaptureScreenTool, capture_method, display_reachable};
pub use edit::{EditFileTool, MultiEditTool};
pub use glob::GlobTool;
pub use grep::GrepTool;
pub use list_dir::ListDirTool;
pub use patch::{APPLY_PATCH, ApplyPatchTool, PATCH_GRAMMAR};
pub use plan::PlanTool;
pub use read::ReadFileTool;
pub use remove::RemoveTool;
pub use subagents::{ExploreTool, ReviewTool};
pub use web_fetch::WebFetchTool;
pub use web_search::{WebSearchTool, engine_unusable};
pub use write::WriteFileTool;

/// Every built-in tool.
pub fn builtin_registry() -> Registry {
    let mut registry = Registry::new();
    registry.register(Arc::new(ReadFileTool::new()));
    registry.register(Arc::new(WriteFileTool::new()));
    registry.register(Arc::new(EditFileTool::new()));
    registry.register(Arc::new(MultiEditTool::new()));
    registry.register(Arc::new(ApplyPatchTool::new()));
    registry.register(Arc::new(RemoveTool::new()));
    registry.register(Arc::new(ListDirTool::new()));
    registry.register(Arc::new(GlobTool::new()));
    registry.register(Arc::new(GrepTool::new()));
    registry.register(Arc::new(BashTool::new()));
    registry.register(Arc::new(BashOutputTool::new()));
    registry.register(Arc::new(BashStopTool::new()));
    registry.register(Arc::new(WebFetchTool::new()));
    registry.register(Arc::new(WebSearchTool::new()));
    registry.register(Arc::new(PlanTool::new()));
    registry.register(Arc::new(CaptureScreenTool::new()));
    registry.register(Arc::new(ExploreTool::new()));
    registry.register(Arc::new(ReviewTool::new()));
    registry
}

/// Reads the world; may run alongside neighbouring reads.
pub(crate) const READS: ToolFlags = ToolFlags {
    mutating: false,
    network: false,
    vision: false,
    display: false,
    parallel_safe: true,
};

/// Changes files or runs commands: one at a time, never in plan/readonly modes.
pub(crate) const MUTATES: ToolFlags = ToolFlags {
    mutating: true,
    network: false,
    vision: false,
    display: false,
    parallel_safe: false,
};

pub(crate) fn definition<T: JsonSchema>(
    name: &str,
    description: &str,
    flags: ToolFlags,
    status_label: &str,
) -> ToolDefinition {
    ToolDefinition {
        name: name.to_string(),
        description: description.to_string(),
        parameters: Arc::new(schema_of::<T>()),
        flags,
        status_label: status_label.to_string(),
        freeform: None,
    }
}

/// Runs file-system work off the async workers.
pub(crate) async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, ToolError> + Send + 'static,
) -> Result<T, ToolError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| ToolError::failed(format!("The tool's worker failed: {e}")))?
}

/// Implements `Tool` for a struct with a `def` field and an
/// `async fn run(&self, Args, &ToolContext) -> Result<ToolOutput, ToolError>`.
macro_rules! impl_tool {
    ($tool:ty, $args:ty) => {
        $crate::builtin::impl_tool!($tool, $args, {});
    };
    ($tool:ty, $args:ty, preview) => {
        $crate::builtin::impl_tool!($tool, $args, {
            fn preview(
                &self,
                args: &serde_json::Value,
                ctx: &$crate::tool::ToolContext,
            ) -> Option<String> {
                let args = $crate::args::parse_args::<$args>(args.clone()).ok()?;
                self.preview_diff(args, ctx)
            }
        });
    };
    ($tool:ty, $args:ty, { $($extra:tt)* }) => {
        impl $crate::tool::Tool for $tool {
            $($extra)*

            fn definition(&self) -> &$crate::tool::ToolDefinition {
                &self.def
            }

            fn execute<'a>(
                &'a self,
                args: serde_json::Value,
                ctx: &'a $crate::tool::ToolContext,
            ) -> $crate::tool::ToolFuture<'a> {
                Box::pin(async move {
                    let result = match $crate::args::parse_args::<$args>(args) {
                        Ok(args) => self.run(args, ctx).await,
                        Err(err) => Err(err),
                    };
                    $crate::error::into_output(result)
                })
            }
        }

        impl Default for $tool {
            fn default() -> Self {
                Self::new()
            }
        }
    };
}
pub(crate) use impl_tool;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::ToolFilter;

    fn names(registry: &Registry, filter: &ToolFilter) -> Vec<String> {
        registry
            .offered(filter)
            .iter()
            .map(|t| t.definition().name.clone())
            .collect()
    }

    #[test]
    fn all_tools_sorted_by_name() {
        let registry = builtin_registry();
        let all = names(
            &registry,
            &ToolFilter {
                network_enabled: true,
                ..ToolFilter::default()
            },
        );
        assert_eq!(
            all,
            [
                "bash",
                "bash_output",
                "bash_stop",
                "edit_file",
                "glob",
                "grep",
                "list_dir",
                "multi_edit",
                "plan",
                "read_file",
                "remove",
                "web_fetch",
                "web_search",
                "write_file"
            ]
        );
        for tool in registry.all() {
            let def = tool.definition();
            assert_eq!(def.parameters["type"], "object", "{}", def.name);
            assert!(!def.description.is_empty() && !def.status_label.is_empty());
        }
    }

    #[test]
    fn read_only_mode_removes_mutating_tools_and_bash() {
        let registry = builtin_registry();
        let filter = ToolFilter {
            read_only: true,
            network_enabled: true,
            ..ToolFilter::default()
        };
        assert_eq!(
            names(&registry, &filter),
            [
                "bash_output",
                "glob",
                "grep",
                "list_dir",
                "plan",
                "read_file",
                "web_fetch",
                "web_search"
            ]
        );
        let bash = registry.get("bash").unwrap();
        assert_eq!(
            registry.denial(bash.definition(), &filter).unwrap(),
            "Tool execution denied: 'bash' is not allowed in Plan Mode. Switch mode via '/mode edit' (or agent.mode.switch) to make changes."
        );
    }

    #[test]
    fn subagent_tools_are_offered_only_to_a_turn_that_can_start_children() {
        let registry = builtin_registry();
        let with = ToolFilter {
            subagents: true,
            read_only: true,
            ..ToolFilter::default()
        };
        let offered = names(&registry, &with);
        assert!(
            offered.contains(&"explore".to_string()) && offered.contains(&"review".to_string())
        );
        let explore = registry.get("explore").unwrap().definition();
        assert!(explore.flags.parallel_safe && !explore.flags.mutating);
        assert_eq!(explore.parameters["required"], serde_json::json!(["query"]));
        let without = names(&registry, &ToolFilter::default());
        assert!(!without.iter().any(|n| n == "explore" || n == "review"));
        assert_eq!(
            registry.denial(explore, &ToolFilter::default()).unwrap(),
            "Tool 'explore' is not available here: a subagent cannot start subagents."
        );
    }

    #[test]
    fn network_off_and_disabled_tools_are_removed() {
        let registry = builtin_registry();
        let filter = ToolFilter {
            disabled: vec!["grep".into(), "plan".into()],
            ..ToolFilter::default()
        };
        let offered = names(&registry, &filter);
        assert!(!offered.contains(&"web_fetch".to_string()));
        assert!(!offered.contains(&"grep".to_string()) && !offered.contains(&"plan".to_string()));
        assert!(offered.contains(&"bash".to_string()));
        let web = registry.get("web_fetch").unwrap();
        assert!(web.definition().flags.network);
    }

    #[test]
    fn capture_screen_needs_vision_and_a_display() {
        let registry = builtin_registry();
        let shown = |vision, display| {
            names(
                &registry,
                &ToolFilter {
                    vision,
                    display,
                    ..ToolFilter::default()
                },
            )
            .contains(&"capture_screen".to_string())
        };
        assert!(shown(true, true));
        assert!(!shown(false, true) && !shown(true, false));
        let capture = registry.get("capture_screen").unwrap().definition();
        let no_display = ToolFilter {
            vision: true,
            ..ToolFilter::default()
        };
        assert_eq!(
            registry.denial(capture, &no_display).unwrap(),
            "Tool 'capture_screen' needs a display: neither DISPLAY nor WAYLAND_DISPLAY is set for the daemon."
        );
        assert!(!capture.flags.mutating && !capture.flags.network);
        let search = registry.get("web_search").unwrap().definition();
        assert!(search.flags.network && search.flags.parallel_safe);
        assert_eq!(search.parameters["required"], serde_json::json!(["query"]));
    }

    #[test]
    fn one_edit_family_per_request() {
        let registry = builtin_registry();
        let patch = ToolFilter {
            edits: crate::registry::EditTools::ApplyPatch,
            ..ToolFilter::default()
        };
        let offered = names(&registry, &patch);
        assert!(offered.contains(&"apply_patch".to_string()));
        assert!(
            !offered
                .iter()
                .any(|n| n == "edit_file" || n == "multi_edit")
        );
        assert!(offered.contains(&"write_file".to_string()));
        let plain = names(&registry, &ToolFilter::default());
        assert!(
            plain.contains(&"edit_file".to_string()) && plain.contains(&"multi_edit".to_string())
        );
        assert!(!plain.contains(&"apply_patch".to_string()));
        let edit = registry.get("edit_file").unwrap().definition();
        assert_eq!(
            registry.denial(edit, &patch).unwrap(),
            "Tool 'edit_file' is not offered to this model: edit files with apply_patch instead."
        );
        let apply = registry.get("apply_patch").unwrap().definition();
        assert_eq!(
            registry.denial(apply, &ToolFilter::default()).unwrap(),
            "Tool 'apply_patch' is not offered to this model: edit files with edit_file or multi_edit instead."
        );
        let read_only = ToolFilter {
            read_only: true,
            ..patch
        };
        assert!(!names(&registry, &read_only).contains(&"apply_patch".to_string()));
    }

    #[test]
    fn flags_and_labels() {
        let registry = builtin_registry();
        let flags = |n: &str| registry.get(n).unwrap().definition().flags;
        for n in [
            "write_file",
            "edit_file",
            "multi_edit",
            "apply_patch",
            "remove",
            "bash",
        ] {
            assert!(flags(n).mutating && !flags(n).parallel_safe, "{n}");
        }
        for n in ["read_file", "list_dir", "glob", "grep", "web_fetch"] {
            assert!(!flags(n).mutating && flags(n).parallel_safe, "{n}");
        }
        assert!(!flags("plan").mutating && !flags("plan").parallel_safe);
        let label = |n: &str| registry.get(n).unwrap().definition().status_label.clone();
        assert_eq!(label("read_file"), "Reading files");
        assert_eq!(label("edit_file"), "Editing");
        assert_eq!(label("grep"), "Searching");
        assert_eq!(label("bash"), "Running command");
        assert_eq!(label("web_fetch"), "Fetching web page");
        assert_eq!(label("plan"), "Planning");
    }
}
