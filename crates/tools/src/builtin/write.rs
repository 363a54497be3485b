//! `write_file`: create or overwrite a file, under its write lock.

use schemars::JsonSchema;
use serde::Deserialize;

use super::{MUTATES, blocking, definition, impl_tool};
use crate::confine::{ConfinedPath, confine};
use crate::error::ToolError;
use crate::fsio::{FileLock, read_if_exists, unified_diff, write_atomic};
use crate::tool::{ToolContext, ToolDefinition, ToolOutput};

const DESCRIPTION: &str = "Create a file or overwrite it completely with `content`. Parent directories \
are created. Prefer edit_file or multi_edit to change part of an existing file.";

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct WriteFileArgs {
    /// File path, relative to the workspace root.
    path: String,
    /// The complete new content of the file.
    content: String,
}

pub struct WriteFileTool {
    def: ToolDefinition,
}

impl WriteFileTool {
    pub fn new() -> Self {
        WriteFileTool {
            def: definition::<WriteFileArgs>("write_file", DESCRIPTION, MUTATES, "Editing"),
        }
    }

    async fn run(&self, args: WriteFileArgs, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let path = confine(ctx, &args.path)?;
        let lock = FileLock::acquire(ctx, &path.abs).await?;
        if let Some(files) = &ctx.files {
            let _lock = lock;
            // Whether it exists is the disk's answer (the client has no
            // "not found"); its text is the editor's.
            let old = match path.abs.is_file() {
                true => Some(crate::files::read(files.as_ref(), &path).await?),
                false => None,
            };
            crate::files::write(files.as_ref(), &path, &args.content).await?;
            let mut output = described(&path, old.as_deref(), &args.content);
            let before = old.unwrap_or_default();
            crate::diagnostics::append(ctx, &path.abs, &before, &args.content, &mut output).await;
            return Ok(output);
        }
        // Off the async workers, the lock held until the write is done.
        let (abs, content) = (path.abs.clone(), args.content.clone());
        let (mut output, before) = blocking(move || {
            let _lock = lock;
            write(&path, &args.content)
        })
        .await?;
        crate::diagnostics::append(ctx, &abs, &before, &content, &mut output).await;
        Ok(output)
    }
}

impl WriteFileTool {
    fn preview_diff(&self, args: WriteFileArgs, ctx: &ToolContext) -> Option<String> {
        let path = confine(ctx, &args.path).ok()?;
        let old = read_if_exists(&path).ok()?;
        let old_text = old
            .as_deref()
            .map(String::from_utf8_lossy)
            .unwrap_or_default();
        Some(unified_diff(&path.rel, &old_text, &args.content))
    }
}

impl_tool!(WriteFileTool, WriteFileArgs, preview);

/// Writes `content` and describes it; also the text it replaced (empty for a
/// new file), for the diagnostics of the change.
fn write(path: &ConfinedPath, content: &str) -> Result<(ToolOutput, String), ToolError> {
    let old = read_if_exists(path)?;
    write_atomic(path, content.as_bytes())?;
    let old_text = old.as_deref().map(String::from_utf8_lossy);
    let output = described(path, old_text.as_deref(), content);
    Ok((output, old_text.map(|t| t.into_owned()).unwrap_or_default()))
}

/// The output of a write that replaced `old` (`None`: a new file).
fn described(path: &ConfinedPath, old: Option<&str>, content: &str) -> ToolOutput {
    let old_text = old.unwrap_or_default();
    let verb = if old.is_some() {
        "Overwrote"
    } else {
        "Created"
    };
    let message = format!("{verb} {}", path.rel);
    ToolOutput {
        diff: Some(unified_diff(&path.rel, old_text, content)),
        file_path: Some(path.rel.clone()),
        mutated: true,
        ..ToolOutput::ok(message.clone(), message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtin::testing::ws;
    use crate::tool::Tool;
    use serde_json::json;
    use std::time::Duration;
    use tokio_util::sync::CancellationToken;

    #[tokio::test]
    async fn creates_then_overwrites_with_diffs() {
        let w = ws();
        let tool = WriteFileTool::new();
        let out = w
            .call(
                &tool,
                json!({"path": "src/new/a.txt", "content": "one\ntwo\n"}),
            )
            .await;
        assert!(out.success, "{}", out.content);
        assert_eq!(out.content, "Created src/new/a.txt");
        assert_eq!(out.file_path.as_deref(), Some("src/new/a.txt"));
        assert!(out.mutated);
        assert_eq!(
            out.diff.as_deref(),
            Some("--- a/src/new/a.txt\n+++ b/src/new/a.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n")
        );
        assert_eq!(w.read("src/new/a.txt"), "one\ntwo\n");

        let out = w
            .call(
                &tool,
                json!({"path": "src/new/a.txt", "content": "one\n2\n"}),
            )
            .await;
        assert_eq!(out.content, "Overwrote src/new/a.txt");
        assert!(out.diff.unwrap().contains("-two\n+2\n"));
        assert!(
            w.ctx.locks.snapshot().is_empty(),
            "the lock is released after the write"
        );
    }

    #[tokio::test]
    async fn previews_the_diff_without_writing() {
        let w = ws();
        w.write("a.txt", "one\n");
        let tool = WriteFileTool::new();
        let args = json!({"path": "a.txt", "content": "two\n"});
        let diff = tool.preview(&args, &w.ctx).unwrap();
        assert!(diff.contains("-one\n+two\n"), "{diff}");
        assert_eq!(w.read("a.txt"), "one\n");
        assert!(
            tool.preview(&json!({"path": "../x", "content": ""}), &w.ctx)
                .is_none()
        );
    }

    #[tokio::test]
    async fn refuses_paths_outside_the_workspace() {
        let w = ws();
        let out = w
            .call(
                &WriteFileTool::new(),
                json!({"path": "../escape.txt", "content": "x"}),
            )
            .await;
        assert!(!out.success);
        assert!(!w.root.parent().unwrap().join("escape.txt").exists());
        let outside = w.root.parent().unwrap().join("abs.txt");
        let out = w
            .call(
                &WriteFileTool::new(),
                json!({"path": outside, "content": "x"}),
            )
            .await;
        assert!(out.content.contains("is outside the workspace"));
        let mut allowed = w.ctx.clone();
        allowed.allow_outside_workspace = true;
        let out = WriteFileTool::new()
            .execute(json!({"path": outside, "content": "x"}), &allowed)
            .await;
        assert!(out.success, "{}", out.content);
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "x");
    }

    #[tokio::test]
    async fn a_lock_held_by_another_turn_times_out_naming_the_holder() {
        let w = ws();
        let file = w.path("busy.txt");
        w.ctx
            .locks
            .acquire(
                &w.root,
                &file,
                "other/12345678",
                Duration::from_secs(1),
                &CancellationToken::new(),
            )
            .await
            .unwrap();
        let mut ctx = w.ctx.clone();
        ctx.lock_timeout = Duration::from_millis(50);
        let out = WriteFileTool::new()
            .execute(json!({"path": "busy.txt", "content": "x"}), &ctx)
            .await;
        assert!(!out.success);
        assert_eq!(
            out.content,
            "Write lock timeout: busy.txt is being edited by another task (other/12345678). Wait for it to finish, re-read the latest file content, then retry."
        );
        assert!(!w.exists("busy.txt"));
    }
}
