//! `edit_file` and `multi_edit`: replacements through the edit matcher (exact
//! text first, unambiguous near misses recovered), under the file's write lock,
//! re-reading the file inside it so an edit never applies to stale text.

use schemars::JsonSchema;
use serde::Deserialize;

use super::{MUTATES, blocking, definition, impl_tool};
use crate::args::lenient_bool;
use crate::confine::{ConfinedPath, confine};
use crate::edit_match;
use crate::error::ToolError;
use crate::fsio::{FileLock, read_text_for_edit, unified_diff, write_atomic};
use crate::tool::{ToolContext, ToolDefinition, ToolOutput};

const EDIT_DESCRIPTION: &str = "Replace exact text in a file. `old_string` must match the file \
exactly (whitespace and indentation included) and be unique unless `replace_all` is true; include \
enough surrounding lines to make it unique. Read the file first.";

const MULTI_DESCRIPTION: &str = "Apply several exact-text replacements to one file in order. Each \
edit works on the result of the previous ones; all are checked before anything is written, so \
either every edit applies or none does.";

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct EditFileArgs {
    /// File path, relative to the workspace root.
    path: String,
    /// The exact text to replace.
    old_string: String,
    /// The replacement text.
    new_string: String,
    /// Replace every occurrence instead of requiring a unique match. Default false.
    #[serde(default, deserialize_with = "lenient_bool")]
    replace_all: Option<bool>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct EditSpec {
    /// The exact text to replace.
    old_string: String,
    /// The replacement text.
    new_string: String,
    /// Replace every occurrence instead of requiring a unique match. Default false.
    #[serde(default, deserialize_with = "lenient_bool")]
    replace_all: Option<bool>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct MultiEditArgs {
    /// File path, relative to the workspace root.
    path: String,
    /// The edits, applied in order.
    edits: Vec<EditSpec>,
}

/// Applies one replacement to `text` through the matcher (the previews use
/// it too, so the diff a person approves is the change written).
fn apply(text: &str, spec: &EditSpec, rel: &str) -> Result<edit_match::Replaced, String> {
    if spec.old_string.is_empty() {
        return Err(
            "old_string is empty. Give the exact text to replace (use write_file to create or overwrite a whole file)."
                .to_string(),
        );
    }
    if spec.old_string == spec.new_string {
        return Err(
            "old_string and new_string are identical; the edit would change nothing.".to_string(),
        );
    }
    let replace_all = spec.replace_all.unwrap_or(false);
    edit_match::replace(text, &spec.old_string, &spec.new_string, replace_all, rel)
        .map_err(|refusal| refusal.0)
}

/// The output of an edit from `before` to `after`.
fn described(path: &ConfinedPath, before: &str, after: &str, message: String) -> ToolOutput {
    ToolOutput {
        diff: Some(unified_diff(&path.rel, before, after)),
        file_path: Some(path.rel.clone()),
        mutated: true,
        ..ToolOutput::ok(message.clone(), message)
    }
}

fn occurrences(n: usize) -> String {
    if n == 1 {
        "1 occurrence".to_string()
    } else {
        format!("{n} occurrences")
    }
}

pub struct EditFileTool {
    def: ToolDefinition,
}

impl EditFileTool {
    pub fn new() -> Self {
        EditFileTool {
            def: definition::<EditFileArgs>("edit_file", EDIT_DESCRIPTION, MUTATES, "Editing"),
        }
    }

    async fn run(&self, args: EditFileArgs, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let path = confine(ctx, &args.path)?;
        let spec = EditSpec {
            old_string: args.old_string,
            new_string: args.new_string,
            replace_all: args.replace_all,
        };
        let edit = move |before: &str, rel: &str| {
            let done = apply(before, &spec, rel).map_err(ToolError::Failed)?;
            let mut message = format!("Edited {rel}: replaced {}", occurrences(done.count));
            if let Some(how) = done.how {
                message.push_str(&format!(" (matched after normalizing {})", how.describe()));
            }
            Ok((done.text, message))
        };
        edited(ctx, path, edit).await
    }
}

impl EditFileTool {
    fn preview_diff(&self, args: EditFileArgs, ctx: &ToolContext) -> Option<String> {
        let path = confine(ctx, &args.path).ok()?;
        let spec = EditSpec {
            old_string: args.old_string,
            new_string: args.new_string,
            replace_all: args.replace_all,
        };
        let before = read_text_for_edit(&path).ok()?;
        let after = apply(&before, &spec, &path.rel).ok()?.text;
        Some(unified_diff(&path.rel, &before, &after))
    }
}

impl_tool!(EditFileTool, EditFileArgs, preview);

pub struct MultiEditTool {
    def: ToolDefinition,
}

impl MultiEditTool {
    pub fn new() -> Self {
        MultiEditTool {
            def: definition::<MultiEditArgs>("multi_edit", MULTI_DESCRIPTION, MUTATES, "Editing"),
        }
    }

    async fn run(&self, args: MultiEditArgs, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let path = confine(ctx, &args.path)?;
        if args.edits.is_empty() {
            return Err(ToolError::InvalidArgs("edits is empty".to_string()));
        }
        let edit = move |before: &str, rel: &str| apply_all(before, &args.edits, rel);
        edited(ctx, path, edit).await
    }
}

/// Runs `edit` on the file under its write lock (re-read inside the lock),
/// writes the result, describes it and appends the diagnostics it introduced.
pub(crate) async fn edited(
    ctx: &ToolContext,
    path: ConfinedPath,
    edit: impl FnOnce(&str, &str) -> Result<(String, String), ToolError> + Send + 'static,
) -> Result<ToolOutput, ToolError> {
    let lock = FileLock::acquire(ctx, &path.abs).await?;
    let (before, after, mut output) = if let Some(files) = &ctx.files {
        let _lock = lock;
        let before = crate::files::read(files.as_ref(), &path).await?;
        let (after, message) = edit(&before, &path.rel)?;
        crate::files::write(files.as_ref(), &path, &after).await?;
        let output = described(&path, &before, &after, message);
        (before, after, output)
    } else {
        // Big files take a while to read, edit, diff and write: off the async
        // workers, with the lock held until the work is done.
        let path = path.clone();
        blocking(move || {
            let _lock = lock;
            let before = read_text_for_edit(&path)?;
            let (after, message) = edit(&before, &path.rel)?;
            write_atomic(&path, after.as_bytes())?;
            let output = described(&path, &before, &after, message);
            Ok((before, after, output))
        })
        .await?
    };
    crate::diagnostics::append(ctx, &path.abs, &before, &after, &mut output).await;
    Ok(output)
}

impl MultiEditTool {
    fn preview_diff(&self, args: MultiEditArgs, ctx: &ToolContext) -> Option<String> {
        let path = confine(ctx, &args.path).ok()?;
        let before = read_text_for_edit(&path).ok()?;
        let mut text = before.clone();
        for spec in &args.edits {
            text = apply(&text, spec, &path.rel).ok()?.text;
        }
        Some(unified_diff(&path.rel, &before, &text))
    }
}

impl_tool!(MultiEditTool, MultiEditArgs, preview);

/// `edits` applied to `before` in order, all or nothing, and the message.
fn apply_all(before: &str, edits: &[EditSpec], rel: &str) -> Result<(String, String), ToolError> {
    let total = edits.len();
    let mut text = before.to_string();
    let mut replaced = 0;
    let mut recovered = Vec::new();
    for (i, spec) in edits.iter().enumerate() {
        let done = apply(&text, spec, rel).map_err(|e| {
            ToolError::failed(format!(
                "Edit {} of {total} failed: {e} No changes were written.",
                i + 1
            ))
        })?;
        if let Some(how) = done.how {
            recovered.push(format!(
                "edit {} after normalizing {}",
                i + 1,
                how.describe()
            ));
        }
        text = done.text;
        replaced += done.count;
    }
    let mut message = format!(
        "Edited {rel}: applied {total} edit{} ({} replaced)",
        if total == 1 { "" } else { "s" },
        occurrences(replaced)
    );
    if !recovered.is_empty() {
        message.push_str(&format!("; matched {}", recovered.join(", ")));
    }
    Ok((text, message))
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
    async fn replaces_a_unique_match() {
        let w = ws();
        w.write("a.rs", "fn a() {}\nfn b() {}\n");
        let out = w
            .call(
                &EditFileTool::new(),
                json!({"path": "a.rs", "old_string": "fn b() {}", "new_string": "fn c() {}"}),
            )
            .await;
        assert!(out.success, "{}", out.content);
        assert_eq!(out.content, "Edited a.rs: replaced 1 occurrence");
        assert_eq!(w.read("a.rs"), "fn a() {}\nfn c() {}\n");
        assert_eq!(
            out.diff.as_deref(),
            Some("--- a/a.rs\n+++ b/a.rs\n@@ -1,2 +1,2 @@\n fn a() {}\n-fn b() {}\n+fn c() {}\n")
        );
        assert!(out.mutated && out.file_path.as_deref() == Some("a.rs"));
    }

    #[tokio::test]
    async fn error_texts() {
        let w = ws();
        w.write("a.txt", "x\nx\ny\n");
        let tool = EditFileTool::new();
        let call = |old: &str, new: &str, all: bool| json!({"path": "a.txt", "old_string": old, "new_string": new, "replace_all": all});
        let out = w.call(&tool, call("zzz", "q", false)).await;
        assert_eq!(
            out.content,
            "old_string not found in a.txt. Read the file again and retry with text copied exactly."
        );
        let out = w.call(&tool, call("x", "q", false)).await;
        assert_eq!(
            out.content,
            "old_string matches 2 places in a.txt (lines 1, 2). Add more surrounding context to make it unique, or set replace_all to true to replace every occurrence."
        );
        let out = w.call(&tool, call("", "q", false)).await;
        assert!(out.content.starts_with("old_string is empty."));
        let out = w.call(&tool, call("y", "y", false)).await;
        assert_eq!(
            out.content,
            "old_string and new_string are identical; the edit would change nothing."
        );
        assert_eq!(w.read("a.txt"), "x\nx\ny\n", "failed edits change nothing");

        let out = w.call(&tool, call("x", "q", true)).await;
        assert_eq!(out.content, "Edited a.txt: replaced 2 occurrences");
        assert_eq!(w.read("a.txt"), "q\nq\ny\n");

        let out = w
            .call(
                &tool,
                json!({"path": "missing.txt", "old_string": "a", "new_string": "b"}),
            )
            .await;
        assert_eq!(
            out.content,
            format!("File not found: {}", w.path("missing.txt").display())
        );
        w.write("bin.dat", b"a\0b");
        let out = w
            .call(
                &tool,
                json!({"path": "bin.dat", "old_string": "a", "new_string": "b"}),
            )
            .await;
        assert!(out.content.contains("looks like a binary file"));
        w.write("latin1.txt", b"caf\xe9");
        let out = w
            .call(
                &tool,
                json!({"path": "latin1.txt", "old_string": "caf", "new_string": "b"}),
            )
            .await;
        assert!(out.content.contains("not valid UTF-8"));
    }

    #[tokio::test]
    async fn crlf_files_take_lf_edits_and_stay_crlf() {
        let w = ws();
        w.write("win.txt", "one\r\ntwo\r\nthree\r\n");
        let out = w
            .call(
                &EditFileTool::new(),
                json!({"path": "win.txt", "old_string": "one\ntwo", "new_string": "one\n2\nextra"}),
            )
            .await;
        assert!(out.success, "{}", out.content);
        assert_eq!(w.read("win.txt"), "one\r\n2\r\nextra\r\nthree\r\n");
    }

    #[tokio::test]
    async fn edit_rereads_the_file_inside_the_lock() {
        let w = ws();
        w.write("shared.txt", "version 1\n");
        let file = w.path("shared.txt");
        let never = CancellationToken::new();
        w.ctx
            .locks
            .acquire(
                &w.root,
                &file,
                "other/99999999",
                Duration::from_secs(1),
                &never,
            )
            .await
            .unwrap();
        let ctx = w.ctx.clone();
        let pending = tokio::spawn(async move {
            EditFileTool::new()
                .execute(
                    json!({"path": "shared.txt", "old_string": "version 2", "new_string": "version 3"}),
                    &ctx,
                )
                .await
        });
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(!pending.is_finished(), "the edit waits for the lock");
        // The other task changes the file while holding the lock, then releases.
        std::fs::write(&file, "version 2\n").unwrap();
        w.ctx.locks.release(&w.root, &file, "other/99999999");
        let out = pending.await.unwrap();
        assert!(out.success, "{}", out.content);
        assert_eq!(w.read("shared.txt"), "version 3\n");
    }

    #[tokio::test]
    async fn two_turns_editing_one_file_lose_no_update() {
        let w = ws();
        w.write("counter.txt", "a\n");
        let mut handles = Vec::new();
        for i in 0..8 {
            let mut ctx = w.ctx.clone();
            ctx.owner = format!("turn{i}/0000000{i}");
            handles.push(tokio::spawn(async move {
                let new = format!("a\nline {i}\n");
                EditFileTool::new()
                    .execute(
                        json!({"path": "counter.txt", "old_string": "a\n", "new_string": new}),
                        &ctx,
                    )
                    .await
            }));
        }
        for handle in handles {
            assert!(handle.await.unwrap().success);
        }
        let text = w.read("counter.txt");
        for i in 0..8 {
            assert!(text.contains(&format!("line {i}\n")), "{text}");
        }
    }

    #[tokio::test]
    async fn multi_edit_applies_in_sequence_with_one_diff() {
        let w = ws();
        w.write("m.txt", "alpha\nbeta\ngamma\n");
        let out = w
            .call(
                &MultiEditTool::new(),
                json!({"path": "m.txt", "edits": [
                    {"old_string": "alpha", "new_string": "ALPHA"},
                    {"old_string": "ALPHA\nbeta", "new_string": "ALPHA\nBETA"},
                    {"old_string": "a", "new_string": "4", "replace_all": true}
                ]}),
            )
            .await;
        assert!(out.success, "{}", out.content);
        assert_eq!(
            out.content,
            "Edited m.txt: applied 3 edits (4 occurrences replaced)"
        );
        assert_eq!(w.read("m.txt"), "ALPHA\nBETA\ng4mm4\n");
        assert_eq!(out.diff.unwrap().matches("@@ ").count(), 1);
    }

    #[tokio::test]
    async fn multi_edit_is_all_or_nothing() {
        let w = ws();
        w.write("m.txt", "alpha\nbeta\n");
        let out = w
            .call(
                &MultiEditTool::new(),
                json!({"path": "m.txt", "edits": [
                    {"old_string": "alpha", "new_string": "ALPHA"},
                    {"old_string": "missing", "new_string": "x"}
                ]}),
            )
            .await;
        assert!(!out.success);
        assert_eq!(
            out.content,
            "Edit 2 of 2 failed: old_string not found in m.txt. Read the file again and retry with text copied exactly. No changes were written."
        );
        assert_eq!(w.read("m.txt"), "alpha\nbeta\n");
        let out = w
            .call(&MultiEditTool::new(), json!({"path": "m.txt", "edits": []}))
            .await;
        assert!(
            out.content
                .starts_with("Invalid tool arguments: edits is empty")
        );
        assert!(w.ctx.locks.snapshot().is_empty());
    }
}
