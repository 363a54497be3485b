//! `glob`: files matching a pattern, newest first.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use globset::{GlobBuilder, GlobMatcher};
use schemars::JsonSchema;
use serde::Deserialize;

use super::{READS, blocking, definition, impl_tool};
use crate::beneath;
use crate::budget;
use crate::confine::{ConfinedPath, confine, relative_display};
use crate::error::ToolError;
use crate::tool::{ToolContext, ToolDefinition, ToolOutput};
use crate::walk::confined_walker;

const MAX_RESULTS: usize = 200;
/// Files examined at most: the walk of a huge tree stops here.
const MAX_FILES: usize = 50_000;

const DESCRIPTION: &str = "Find files by glob pattern (case-insensitive), e.g. `**/*.rs` or \
`src/**/test_*.py`; a pattern without `/` matches file names at any depth. Returns \
workspace-relative paths, most recently modified first, at most 200. Ignored files are skipped.";

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct GlobArgs {
    /// Glob pattern, relative to `path`.
    pattern: String,
    /// Directory to search, relative to the workspace root. Default ".".
    #[serde(default)]
    path: Option<String>,
}

pub struct GlobTool {
    def: ToolDefinition,
}

impl GlobTool {
    pub fn new() -> Self {
        GlobTool {
            def: definition::<GlobArgs>("glob", DESCRIPTION, READS, "Searching"),
        }
    }

    async fn run(&self, args: GlobArgs, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let base = confine(ctx, args.path.as_deref().unwrap_or("."))?;
        let matcher = compile_glob(&args.pattern)?;
        let root = ctx.workspace_root.clone();
        let budget = ctx.max_output_chars;
        blocking(move || find(&root, &base, &args.pattern, &matcher, budget)).await
    }
}

impl_tool!(GlobTool, GlobArgs);

/// A case-insensitive matcher for paths relative to the search base; a pattern
/// with no `/` matches at any depth.
pub(crate) fn compile_glob(pattern: &str) -> Result<GlobMatcher, ToolError> {
    let trimmed = pattern.trim().trim_start_matches("./");
    if trimmed.is_empty() {
        return Err(ToolError::InvalidArgs("pattern is empty".to_string()));
    }
    let full = if trimmed.contains('/') {
        trimmed.to_string()
    } else {
        format!("**/{trimmed}")
    };
    GlobBuilder::new(&full)
        .case_insensitive(true)
        .literal_separator(true)
        .build()
        .map(|g| g.compile_matcher())
        .map_err(|e| ToolError::failed(format!("Invalid glob pattern '{pattern}': {e}")))
}

fn find(
    root: &Path,
    base: &ConfinedPath,
    pattern: &str,
    matcher: &GlobMatcher,
    budget: usize,
) -> Result<ToolOutput, ToolError> {
    if !beneath::metadata(base).is_ok_and(|m| m.is_dir()) {
        return Err(ToolError::failed(format!(
            "Directory not found: {}",
            base.abs.display()
        )));
    }
    let mut found: Vec<(SystemTime, PathBuf)> = Vec::new();
    let mut examined = 0;
    for entry in confined_walker(base, None).build().flatten() {
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        examined += 1;
        if examined > MAX_FILES {
            break;
        }
        let Ok(rel) = entry.path().strip_prefix(&base.abs) else {
            continue;
        };
        if matcher.is_match(rel) {
            let modified = entry
                .metadata()
                .ok()
                .and_then(|m| m.modified().ok())
                .unwrap_or(SystemTime::UNIX_EPOCH);
            found.push((modified, entry.into_path()));
        }
    }
    if found.is_empty() {
        return Ok(ToolOutput::ok(
            format!("No files match {pattern} in {}", base.rel),
            format!("Found 0 files matching {pattern}"),
        ));
    }
    found.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    let total = found.len();
    let mut out: String = found
        .iter()
        .take(MAX_RESULTS)
        .map(|(_, p)| format!("{}\n", relative_display(root, p)))
        .collect();
    if total > MAX_RESULTS {
        out.push_str(&format!(
            "… [{} more files match; narrow the pattern or the path]\n",
            total - MAX_RESULTS
        ));
    }
    if examined > MAX_FILES {
        out.push_str(&format!("… [stopped after examining {MAX_FILES} files]\n"));
    }
    Ok(ToolOutput::ok(
        budget::truncate(&out, budget, "results"),
        format!("Found {total} files matching {pattern}"),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtin::testing::ws;
    use serde_json::json;
    use std::time::Duration;

    fn set_mtime(path: &Path, secs_ago: u64) {
        let file = std::fs::File::options().write(true).open(path).unwrap();
        file.set_modified(SystemTime::now() - Duration::from_secs(secs_ago))
            .unwrap();
    }

    #[tokio::test]
    async fn newest_first_case_insensitive_and_ignores_applied() {
        let w = ws();
        w.write("src/old.rs", "");
        w.write("src/nested/NEW.RS", "");
        w.write("src/mid.rs", "");
        w.write("README.md", "");
        w.write("target/gen.rs", "");
        w.write("gen/skip.rs", "");
        w.write(".gitignore", "gen/\n");
        w.write("private.rs", "");
        w.write(".seekclawignore", "private.rs\n");
        set_mtime(&w.path("src/old.rs"), 300);
        set_mtime(&w.path("src/mid.rs"), 200);
        set_mtime(&w.path("src/nested/NEW.RS"), 100);
        let out = w.call(&GlobTool::new(), json!({"pattern": "*.rs"})).await;
        assert!(out.success, "{}", out.content);
        assert_eq!(out.content, "src/nested/NEW.RS\nsrc/mid.rs\nsrc/old.rs\n");
        assert_eq!(out.summary, "Found 3 files matching *.rs");

        let out = w
            .call(
                &GlobTool::new(),
                json!({"pattern": "*.rs", "path": "src/nested"}),
            )
            .await;
        assert_eq!(out.content, "src/nested/NEW.RS\n");
        let out = w
            .call(&GlobTool::new(), json!({"pattern": "src/*.rs"}))
            .await;
        assert_eq!(out.content, "src/mid.rs\nsrc/old.rs\n");
        let out = w.call(&GlobTool::new(), json!({"pattern": "*.py"})).await;
        assert_eq!(out.content, "No files match *.py in .");
    }

    #[tokio::test]
    async fn at_most_200_results_and_bad_patterns() {
        let w = ws();
        for i in 0..230 {
            w.write(&format!("d/f{i}.txt"), "");
        }
        let out = w
            .call(&GlobTool::new(), json!({"pattern": "**/*.txt"}))
            .await;
        assert_eq!(out.content.lines().count(), 201);
        assert!(
            out.content
                .ends_with("… [30 more files match; narrow the pattern or the path]\n")
        );
        let out = w.call(&GlobTool::new(), json!({"pattern": "a[b"})).await;
        assert!(!out.success && out.content.starts_with("Invalid glob pattern 'a[b'"));
        let out = w
            .call(&GlobTool::new(), json!({"pattern": "*", "path": "../.."}))
            .await;
        assert!(!out.success);
    }
}
