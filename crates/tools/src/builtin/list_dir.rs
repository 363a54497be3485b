//! `list_dir`: an indented tree of a directory, ignore rules applied.

use schemars::JsonSchema;
use serde::Deserialize;

use super::{READS, blocking, definition, impl_tool};
use crate::args::lenient_u64;
use crate::beneath;
use crate::budget;
use crate::confine::{ConfinedPath, confine};
use crate::error::ToolError;
use crate::tool::{ToolContext, ToolDefinition, ToolOutput};
use crate::walk::confined_walker;

const MAX_ENTRIES: usize = 500;

const DESCRIPTION: &str = "List a directory as an indented tree (`name/` for directories), \
`depth` levels deep (default 2, at most 6). Ignored files (.gitignore, .seekclawignore) and \
build/vendor directories such as node_modules and target are skipped.";

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ListDirArgs {
    /// Directory, relative to the workspace root. Default ".".
    #[serde(default)]
    path: Option<String>,
    /// How many levels to show, 1-6. Default 2.
    #[serde(default, deserialize_with = "lenient_u64")]
    depth: Option<u64>,
}

pub struct ListDirTool {
    def: ToolDefinition,
}

impl ListDirTool {
    pub fn new() -> Self {
        ListDirTool {
            def: definition::<ListDirArgs>("list_dir", DESCRIPTION, READS, "Reading files"),
        }
    }

    async fn run(&self, args: ListDirArgs, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let path = confine(ctx, args.path.as_deref().unwrap_or("."))?;
        let depth = args.depth.unwrap_or(2).clamp(1, 6) as usize;
        let budget = ctx.max_output_chars;
        blocking(move || list(&path, depth, budget)).await
    }
}

impl_tool!(ListDirTool, ListDirArgs);

fn list(path: &ConfinedPath, depth: usize, budget: usize) -> Result<ToolOutput, ToolError> {
    match beneath::metadata(path) {
        Ok(meta) if !meta.is_dir() => {
            return Err(ToolError::failed(format!(
                "{} is a file, not a directory. Use read_file to read it.",
                path.rel
            )));
        }
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(ToolError::failed(format!(
                "Directory not found: {}",
                path.abs.display()
            )));
        }
        Err(e) => return Err(ToolError::io(format!("Cannot list {}", path.rel), e)),
    }
    let mut builder = confined_walker(path, Some(depth));
    builder.sort_by_file_name(|a, b| a.cmp(b));
    let mut out = String::new();
    let mut count = 0;
    let mut stopped = false;
    for entry in builder.build().flatten() {
        if entry.depth() == 0 {
            continue;
        }
        if count == MAX_ENTRIES {
            stopped = true;
            break;
        }
        let name = entry.file_name().to_string_lossy();
        let slash = if entry.file_type().is_some_and(|t| t.is_dir()) {
            "/"
        } else {
            ""
        };
        let indent = "  ".repeat(entry.depth() - 1);
        out.push_str(&format!("{indent}{name}{slash}\n"));
        count += 1;
    }
    if count == 0 {
        out.push_str("(empty directory)\n");
    }
    if stopped {
        out.push_str(&format!(
            "… [stopped after {MAX_ENTRIES} entries; list a subdirectory or use a smaller depth]\n"
        ));
    }
    let out = budget::truncate(&out, budget, "listing");
    Ok(ToolOutput::ok(
        out,
        format!("Listed {count} entries in {}", path.rel),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtin::testing::ws;
    use serde_json::json;

    #[tokio::test]
    async fn tree_with_ignores() {
        let w = ws();
        w.write("Cargo.toml", "");
        w.write("src/main.rs", "");
        w.write("src/bin/tool.rs", "");
        w.write("src/deep/er/x.rs", "");
        w.write("target/debug/app", "");
        w.write("node_modules/x/index.js", "");
        w.write(".gitignore", "*.log\n");
        w.write(".seekclawignore", "secret/\n");
        w.write("secret/key", "");
        w.write("app.log", "");
        let out = w.call(&ListDirTool::new(), json!({})).await;
        assert!(out.success, "{}", out.content);
        assert_eq!(
            out.content,
            ".gitignore\n.seekclawignore\nCargo.toml\nsrc/\n  bin/\n  deep/\n  main.rs\n"
        );
        assert_eq!(out.summary, "Listed 7 entries in .");
        let out = w
            .call(&ListDirTool::new(), json!({"path": "src", "depth": 9}))
            .await;
        assert_eq!(
            out.content,
            "bin/\n  tool.rs\ndeep/\n  er/\n    x.rs\nmain.rs\n"
        );
    }

    #[tokio::test]
    async fn limits_and_errors() {
        let w = ws();
        for i in 0..520 {
            w.write(&format!("many/f{i:04}"), "");
        }
        let out = w.call(&ListDirTool::new(), json!({"path": "many"})).await;
        assert_eq!(out.content.lines().count(), 501);
        assert!(out.content.ends_with(
            "… [stopped after 500 entries; list a subdirectory or use a smaller depth]\n"
        ));

        std::fs::create_dir_all(w.path("empty")).unwrap();
        let out = w.call(&ListDirTool::new(), json!({"path": "empty"})).await;
        assert_eq!(out.content, "(empty directory)\n");
        let out = w.call(&ListDirTool::new(), json!({"path": "nope"})).await;
        assert_eq!(
            out.content,
            format!("Directory not found: {}", w.path("nope").display())
        );
        w.write("f.txt", "");
        let out = w.call(&ListDirTool::new(), json!({"path": "f.txt"})).await;
        assert!(out.content.starts_with("f.txt is a file"));
        let out = w.call(&ListDirTool::new(), json!({"path": "/"})).await;
        assert!(!out.success && out.content.contains("outside the workspace"));
    }
}
