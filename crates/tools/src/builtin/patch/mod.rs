//! `apply_patch`: Codex's patch format for the models trained on it (OpenAI
//! GPT, o-series and Codex models). Same matcher, write locks, confinement
//! and diffs as `edit_file`; a patch across several files lands whole or not
//! at all.

mod apply;
mod grammar;
mod parse;

use std::collections::BTreeMap;
use std::path::PathBuf;

use schemars::JsonSchema;
use serde::Deserialize;

use super::{MUTATES, blocking, definition, impl_tool};
use crate::beneath;
use crate::confine::{ConfinedPath, confine};
use crate::error::ToolError;
use crate::fsio::{FileLock, looks_binary, read_if_exists, write_atomic};
use crate::tool::{FreeformFormat, ToolContext, ToolDefinition, ToolOutput};
use apply::{Original, Plan};
use parse::FileOp;

pub use grammar::PATCH_GRAMMAR;

/// The tool's name, as the model and the tool families know it.
pub const APPLY_PATCH: &str = "apply_patch";

const DESCRIPTION: &str = "Edit files with a patch. The patch starts with `*** Begin Patch` and \
ends with `*** End Patch`; in between, one section per file:\n\
`*** Add File: <path>` then the new file's lines, each prefixed with `+`;\n\
`*** Delete File: <path>`;\n\
`*** Update File: <path>`, optionally `*** Move to: <new path>`, then hunks. A hunk starts with \
`@@` (or `@@ <a line it comes after>`, e.g. `@@ def handler(event):`, to place it), then lines \
prefixed ` ` (unchanged context), `-` (removed) or `+` (added). Give about 3 lines of context \
above and below each change, copied exactly; a hunk must match exactly one place. \
`*** End of File` after a hunk's lines marks that it ends the file.\n\
Paths are relative to the workspace root. Every hunk is checked before anything is written: \
either the whole patch applies or nothing changes. Read a file before patching it.\n\
Example:\n*** Begin Patch\n*** Update File: src/app.py\n@@ def greet():\n-    print(\"Hi\")\n+    \
print(\"Hello\")\n*** End Patch";

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct PatchArgs {
    /// The whole patch, from `*** Begin Patch` to `*** End Patch`.
    input: String,
}

pub struct ApplyPatchTool {
    def: ToolDefinition,
}

impl ApplyPatchTool {
    pub fn new() -> Self {
        let mut def = definition::<PatchArgs>(APPLY_PATCH, DESCRIPTION, MUTATES, "Editing");
        def.freeform = Some(FreeformFormat {
            syntax: "lark".to_string(),
            definition: PATCH_GRAMMAR.to_string(),
        });
        ApplyPatchTool { def }
    }

    async fn run(&self, args: PatchArgs, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let ops = parse::parse(&args.input).map_err(|e| ToolError::failed(e.to_string()))?;
        let (paths, moves) = confined(ctx, &ops)?;
        let touched = touched(&paths, &moves);
        // Sorted, so two patches locking the same files never wait on each other in a cycle.
        let mut locks = Vec::with_capacity(touched.len());
        for p in &touched {
            locks.push(FileLock::acquire(ctx, &p.abs).await?);
        }
        let plan = if let Some(files) = &ctx.files {
            let mut originals = BTreeMap::new();
            for p in &touched {
                let original = match p.abs.is_file() {
                    true => Original::Text(crate::files::read(files.as_ref(), p).await?),
                    false => Original::Missing,
                };
                originals.insert(p.abs.clone(), original);
            }
            let plan = apply::plan(&ops, &paths, &moves, &originals).map_err(ToolError::Failed)?;
            for o in &plan.outcomes {
                match &o.after {
                    Some(text) => crate::files::write(files.as_ref(), &o.path, text).await?,
                    None => remove(&o.path)?,
                }
            }
            drop(locks);
            plan
        } else {
            let work = move || {
                let _locks = locks;
                let mut originals = BTreeMap::new();
                for p in &touched {
                    originals.insert(p.abs.clone(), read_original(p)?);
                }
                let plan =
                    apply::plan(&ops, &paths, &moves, &originals).map_err(ToolError::Failed)?;
                // New text first, removals last: a move interrupted half-way
                // leaves two copies, never none.
                for o in plan.outcomes.iter().filter(|o| o.after.is_some()) {
                    write_atomic(&o.path, o.after.as_deref().unwrap_or_default().as_bytes())?;
                }
                for o in plan.outcomes.iter().filter(|o| o.after.is_none()) {
                    remove(&o.path)?;
                }
                Ok(plan)
            };
            blocking(work).await?
        };
        let mut output = described(&plan);
        for o in &plan.outcomes {
            if let Some(after) = &o.after {
                let before = o.before.as_deref().unwrap_or_default();
                crate::diagnostics::append(ctx, &o.path.abs, before, after, &mut output).await;
            }
        }
        Ok(output)
    }

    fn preview_diff(&self, args: PatchArgs, ctx: &ToolContext) -> Option<String> {
        let ops = parse::parse(&args.input).ok()?;
        let (paths, moves) = confined(ctx, &ops).ok()?;
        let mut originals = BTreeMap::new();
        for p in touched(&paths, &moves) {
            originals.insert(p.abs.clone(), read_original(&p).ok()?);
        }
        let plan = apply::plan(&ops, &paths, &moves, &originals).ok()?;
        Some(plan.diffs.iter().map(|(_, d)| d.as_str()).collect())
    }
}

impl_tool!(ApplyPatchTool, PatchArgs, preview);

/// Every operation's source and destination, confined.
type Confined = (Vec<ConfinedPath>, Vec<Option<ConfinedPath>>);

fn confined(ctx: &ToolContext, ops: &[FileOp]) -> Result<Confined, ToolError> {
    let mut paths = Vec::with_capacity(ops.len());
    let mut moves = Vec::with_capacity(ops.len());
    for op in ops {
        paths.push(confine(ctx, op.path())?);
        moves.push(match op {
            FileOp::Update {
                move_to: Some(dest),
                ..
            } => Some(confine(ctx, dest)?),
            _ => None,
        });
    }
    Ok((paths, moves))
}

/// Each file the patch touches once, sorted by absolute path.
fn touched(paths: &[ConfinedPath], moves: &[Option<ConfinedPath>]) -> Vec<ConfinedPath> {
    let mut all: BTreeMap<PathBuf, ConfinedPath> = BTreeMap::new();
    for p in paths.iter().chain(moves.iter().flatten()) {
        all.entry(p.abs.clone()).or_insert_with(|| p.clone());
    }
    all.into_values().collect()
}

/// A file's text as the patch may see it.
fn read_original(path: &ConfinedPath) -> Result<Original, ToolError> {
    let Some(bytes) = read_if_exists(path)? else {
        return Ok(Original::Missing);
    };
    if looks_binary(&bytes) {
        return Ok(Original::Opaque(format!(
            "Cannot update {}: it looks like a binary file (NUL byte in the first 8 KB).",
            path.rel
        )));
    }
    Ok(match String::from_utf8(bytes) {
        Ok(text) => Original::Text(text),
        Err(_) => Original::Opaque(format!(
            "Cannot update {}: it is not valid UTF-8 text. Use bash to change files in other encodings.",
            path.rel
        )),
    })
}

/// Deletes a file as `remove` does (a symlink itself, never a directory).
fn remove(path: &ConfinedPath) -> Result<(), ToolError> {
    match beneath::remove(path) {
        Ok(_) => Ok(()),
        Err(e) => Err(ToolError::io(format!("Cannot delete {}", path.rel), e)),
    }
}

/// The tool's result: a line per operation, every file's diff.
fn described(plan: &Plan) -> ToolOutput {
    let message = plan.messages.join("\n");
    let summary = match plan.messages.as_slice() {
        [one] => one.clone(),
        many => format!("Patched {} files", many.len()),
    };
    let diff: String = plan.diffs.iter().map(|(_, d)| d.as_str()).collect();
    ToolOutput {
        diff: Some(diff),
        file_path: plan.diffs.first().map(|(p, _)| p.clone()),
        file_diffs: if plan.diffs.len() > 1 {
            plan.diffs.clone()
        } else {
            Vec::new()
        },
        touched_paths: plan.outcomes.iter().map(|o| o.path.rel.clone()).collect(),
        mutated: true,
        ..ToolOutput::ok(message, summary)
    }
}

#[cfg(test)]
#[path = "tool_tests.rs"]
mod tests;
