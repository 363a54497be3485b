//! `remove`: delete one file, under its write lock.

use schemars::JsonSchema;
use serde::Deserialize;

use super::{MUTATES, blocking, definition, impl_tool};
use crate::beneath;
use crate::confine::confine;
use crate::error::ToolError;
use crate::fsio::{FileLock, looks_binary, not_found, unified_diff};
use crate::tool::{ToolContext, ToolDefinition, ToolOutput};

const DESCRIPTION: &str = "Delete one file (a symlink is removed itself, not its target). \
Directories are refused.";

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct RemoveArgs {
    /// File path, relative to the workspace root.
    path: String,
}

pub struct RemoveTool {
    def: ToolDefinition,
}

impl RemoveTool {
    pub fn new() -> Self {
        RemoveTool {
            def: definition::<RemoveArgs>("remove", DESCRIPTION, MUTATES, "Editing"),
        }
    }

    async fn run(&self, args: RemoveArgs, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let path = confine(ctx, &args.path)?;
        let lock = FileLock::acquire(ctx, &path.abs).await?;
        let removed = blocking(move || {
            let _lock = lock;
            match beneath::remove(&path) {
                Ok(Some(removed)) => Ok((path, removed)),
                Ok(None) => Err(not_found(&path)),
                Err(e) if e.kind() == std::io::ErrorKind::IsADirectory => {
                    Err(ToolError::failed(format!(
                        "{} is a directory; remove deletes single files only.",
                        path.rel
                    )))
                }
                Err(e) => Err(ToolError::io(format!("Cannot remove {}", path.rel), e)),
            }
        })
        .await;
        let (path, removed) = removed?;
        // The diff shows the removed text; links and binaries have none to show.
        let old = removed
            .bytes
            .filter(|b| !looks_binary(b))
            .and_then(|b| String::from_utf8(b).ok());
        let message = format!("Removed {}", path.rel);
        Ok(ToolOutput {
            diff: old.map(|old| unified_diff(&path.rel, &old, "")),
            file_path: Some(path.rel.clone()),
            mutated: true,
            ..ToolOutput::ok(message.clone(), message)
        })
    }
}

impl_tool!(RemoveTool, RemoveArgs);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtin::testing::ws;
    use serde_json::json;

    #[tokio::test]
    async fn removes_files_only() {
        let w = ws();
        let tool = RemoveTool::new();
        w.write("old.txt", "bye\n");
        let out = w.call(&tool, json!({"path": "old.txt"})).await;
        assert!(out.success, "{}", out.content);
        assert_eq!(out.content, "Removed old.txt");
        assert!(out.mutated && !w.exists("old.txt"));
        assert_eq!(
            out.diff.as_deref(),
            Some("--- a/old.txt\n+++ b/old.txt\n@@ -1 +0,0 @@\n-bye\n")
        );

        let out = w.call(&tool, json!({"path": "old.txt"})).await;
        assert_eq!(
            out.content,
            format!("File not found: {}", w.path("old.txt").display())
        );
        std::fs::create_dir_all(w.path("dir")).unwrap();
        let out = w.call(&tool, json!({"path": "dir"})).await;
        assert_eq!(
            out.content,
            "dir is a directory; remove deletes single files only."
        );
        assert!(w.exists("dir"));
        let out = w.call(&tool, json!({"path": "../x"})).await;
        assert!(!out.success && out.content.contains("leaves the workspace"));
        assert!(w.ctx.locks.snapshot().is_empty());
    }
}
