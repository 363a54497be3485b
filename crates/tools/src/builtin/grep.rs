//! `grep`: a regex search over the workspace on ripgrep's own crates, walking
//! in parallel and honouring the same ignore rules as the other file tools.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

use globset::GlobMatcher;
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::sinks::Lossy;
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder};
use ignore::WalkState;
use schemars::JsonSchema;
use serde::Deserialize;
use tokio_util::sync::CancellationToken;

use super::glob::compile_glob;
use super::{READS, blocking, definition, impl_tool};
use crate::args::lenient_u64;
use crate::beneath;
use crate::budget;
use crate::confine::{ConfinedPath, confine, relative_display};
use crate::error::ToolError;
use crate::tool::{ToolContext, ToolDefinition, ToolOutput};
use crate::walk::walker;

const DEFAULT_MAX_RESULTS: u64 = 100;
const MAX_LINE_CHARS: usize = 400;

const DESCRIPTION: &str = "Search file contents with a regular expression (Rust regex syntax; \
prefix `(?i)` for case-insensitive). Returns `path:line: text`, workspace-relative. Optional \
`glob` filters files (a bare `*.rs` matches at any depth). Ignored files, build/vendor \
directories and binary files are skipped.";

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct GrepArgs {
    /// Regular expression to search for.
    pattern: String,
    /// File or directory to search, relative to the workspace root. Default ".".
    #[serde(default)]
    path: Option<String>,
    /// Only search files matching this glob, e.g. `*.rs` or `src/**/*.ts`.
    #[serde(default)]
    glob: Option<String>,
    /// Maximum matching lines to return, 1-1000. Default 100.
    #[serde(default, deserialize_with = "lenient_u64")]
    max_results: Option<u64>,
}

pub struct GrepTool {
    def: ToolDefinition,
}

impl GrepTool {
    pub fn new() -> Self {
        GrepTool {
            def: definition::<GrepArgs>("grep", DESCRIPTION, READS, "Searching"),
        }
    }

    async fn run(&self, args: GrepArgs, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let target = confine(ctx, args.path.as_deref().unwrap_or("."))?;
        let matcher = RegexMatcherBuilder::new()
            .line_terminator(Some(b'\n'))
            .build(&args.pattern)
            .map_err(|e| ToolError::failed(format!("Invalid regex '{}': {e}", args.pattern)))?;
        let glob = match args.glob.as_deref().map(str::trim) {
            Some(g) if !g.is_empty() => Some(compile_glob(g)?),
            _ => None,
        };
        let search = Search {
            root: ctx.workspace_root.clone(),
            base: target.clone(),
            matcher,
            glob,
            max: args
                .max_results
                .unwrap_or(DEFAULT_MAX_RESULTS)
                .clamp(1, 1000) as usize,
            cancel: ctx.cancel.clone(),
        };
        if !beneath::exists(&target) {
            return Err(ToolError::failed(format!(
                "Path not found: {}",
                target.abs.display()
            )));
        }
        let budget = ctx.max_output_chars;
        let pattern = args.pattern;
        let rel = target.rel;
        blocking(move || {
            let (mut hits, capped) = search.run();
            hits.sort_by(|a, b| a.path.cmp(&b.path).then(a.line.cmp(&b.line)));
            hits.truncate(search.max);
            Ok(render(&hits, capped, search.max, &pattern, &rel, budget))
        })
        .await
    }
}

impl_tool!(GrepTool, GrepArgs);

struct Hit {
    path: String,
    line: u64,
    text: String,
}

struct Search {
    root: PathBuf,
    /// Where the search starts; every file is opened under its confinement.
    base: ConfinedPath,
    matcher: RegexMatcher,
    glob: Option<GlobMatcher>,
    max: usize,
    cancel: CancellationToken,
}

impl Search {
    fn searcher() -> Searcher {
        SearcherBuilder::new()
            // A NUL byte means binary: the file is dropped (reference §6.1).
            .binary_detection(BinaryDetection::quit(0))
            .line_number(true)
            .build()
    }

    /// The hits (in no particular order) and whether the cap stopped the search.
    fn run(&self) -> (Vec<Hit>, bool) {
        let hits = Mutex::new(Vec::new());
        let count = AtomicUsize::new(0);
        if beneath::metadata(&self.base).is_ok_and(|m| m.is_file()) {
            self.search_file(&mut Self::searcher(), &self.base.abs, &hits, &count);
        } else {
            let threads = std::thread::available_parallelism()
                .map_or(2, |n| n.get())
                .min(12);
            walker(&self.base.abs, None)
                .threads(threads)
                .build_parallel()
                .run(|| {
                    let mut searcher = Self::searcher();
                    let (hits, count) = (&hits, &count);
                    Box::new(move |entry| {
                        if count.load(Ordering::Relaxed) >= self.max || self.cancel.is_cancelled() {
                            return WalkState::Quit;
                        }
                        let Ok(entry) = entry else {
                            return WalkState::Continue;
                        };
                        if entry.file_type().is_some_and(|t| t.is_file())
                            && self.wanted(entry.path())
                        {
                            self.search_file(&mut searcher, entry.path(), hits, count);
                        }
                        WalkState::Continue
                    })
                });
        }
        let capped = count.load(Ordering::Relaxed) >= self.max;
        (hits.into_inner().unwrap_or_else(|p| p.into_inner()), capped)
    }

    fn wanted(&self, path: &Path) -> bool {
        match (&self.glob, path.strip_prefix(&self.base.abs)) {
            (Some(glob), Ok(rel)) => glob.is_match(rel),
            _ => true,
        }
    }

    fn search_file(
        &self,
        searcher: &mut Searcher,
        path: &Path,
        hits: &Mutex<Vec<Hit>>,
        count: &AtomicUsize,
    ) {
        // Opened beneath the workspace root: a name swapped for a link to
        // elsewhere since the walk saw it is not searched.
        let Ok(file) = beneath::open(&beneath::below(&self.base, path)) else {
            return;
        };
        if !file.metadata().is_ok_and(|m| m.is_file()) {
            return;
        }
        let mut found = Vec::new();
        let _ = searcher.search_file(
            &self.matcher,
            &file,
            Lossy(|line, text| {
                found.push((
                    line,
                    budget::cut_line(text.trim_end_matches(['\n', '\r']), MAX_LINE_CHARS),
                ));
                Ok(count.fetch_add(1, Ordering::Relaxed) + 1 < self.max)
            }),
        );
        if found.is_empty() {
            return;
        }
        let rel = relative_display(&self.root, path);
        // Hits are pushed whole, so those of a searcher that panicked still count.
        let mut hits = hits.lock().unwrap_or_else(PoisonError::into_inner);
        hits.extend(found.into_iter().map(|(line, text)| Hit {
            path: rel.clone(),
            line,
            text,
        }));
    }
}

fn render(
    hits: &[Hit],
    capped: bool,
    max: usize,
    pattern: &str,
    rel: &str,
    budget: usize,
) -> ToolOutput {
    if hits.is_empty() {
        return ToolOutput::ok(
            format!("No matches for {pattern} in {rel}"),
            format!("No matches for {pattern}"),
        );
    }
    let mut out: String = hits
        .iter()
        .map(|h| format!("{}:{}: {}\n", h.path, h.line, h.text))
        .collect();
    if capped {
        out.push_str(&format!(
            "… [stopped at max_results={max}; narrow the pattern, path or glob to see the rest]\n"
        ));
    }
    let files = {
        let mut paths: Vec<&str> = hits.iter().map(|h| h.path.as_str()).collect();
        paths.dedup();
        paths.len()
    };
    ToolOutput::ok(
        budget::truncate(&out, budget, "matches"),
        format!(
            "Found {} match{} in {files} file{}",
            hits.len(),
            if hits.len() == 1 { "" } else { "es" },
            if files == 1 { "" } else { "s" }
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtin::testing::ws;
    use serde_json::json;

    #[tokio::test]
    async fn finds_matches_with_ignores_and_binaries_skipped() {
        let w = ws();
        w.write("src/a.rs", "fn main() {\n    let needle = 1;\n}\n");
        w.write("src/b.py", "needle = 2\n");
        w.write("target/out.rs", "needle\n");
        w.write("node_modules/x.js", "needle\n");
        w.write("logs/app.log", "needle\n");
        w.write(".gitignore", "logs/\n");
        w.write("private/key.txt", "needle\n");
        w.write(".seekclawignore", "private/\n");
        w.write("blob.bin", b"needle\0\x01\x02");
        let out = w.call(&GrepTool::new(), json!({"pattern": "needle"})).await;
        assert!(out.success, "{}", out.content);
        assert_eq!(
            out.content,
            "src/a.rs:2:     let needle = 1;\nsrc/b.py:1: needle = 2\n"
        );
        assert_eq!(out.summary, "Found 2 matches in 2 files");

        let out = w
            .call(
                &GrepTool::new(),
                json!({"pattern": "needle", "glob": "*.py"}),
            )
            .await;
        assert_eq!(out.content, "src/b.py:1: needle = 2\n");
        let out = w
            .call(
                &GrepTool::new(),
                json!({"pattern": "NEEDLE", "path": "src/a.rs"}),
            )
            .await;
        assert_eq!(out.content, "No matches for NEEDLE in src/a.rs");
        let out = w
            .call(
                &GrepTool::new(),
                json!({"pattern": "(?i)NEEDLE", "path": "src/a.rs"}),
            )
            .await;
        assert_eq!(out.content, "src/a.rs:2:     let needle = 1;\n");
    }

    #[tokio::test]
    async fn caps_results_and_long_lines() {
        let w = ws();
        let text: String = (0..50).map(|i| format!("hit {i}\n")).collect();
        w.write("many.txt", &text);
        w.write("long.txt", format!("hit {}\n", "y".repeat(1000)));
        let out = w
            .call(
                &GrepTool::new(),
                json!({"pattern": "hit", "path": "many.txt", "max_results": 5}),
            )
            .await;
        assert_eq!(out.content.lines().count(), 6);
        assert!(out.content.starts_with("many.txt:1: hit 0\n"));
        assert!(out.content.ends_with(
            "… [stopped at max_results=5; narrow the pattern, path or glob to see the rest]\n"
        ));
        let out = w
            .call(
                &GrepTool::new(),
                json!({"pattern": "hit y", "path": "long.txt"}),
            )
            .await;
        assert!(out.content.ends_with("… [+604 chars]\n"), "{}", out.content);
    }

    #[tokio::test]
    async fn errors() {
        let w = ws();
        let out = w
            .call(&GrepTool::new(), json!({"pattern": "(unclosed"}))
            .await;
        assert!(!out.success && out.content.starts_with("Invalid regex '(unclosed'"));
        let out = w
            .call(&GrepTool::new(), json!({"pattern": "x", "path": "nope"}))
            .await;
        assert_eq!(
            out.content,
            format!("Path not found: {}", w.path("nope").display())
        );
        let out = w
            .call(&GrepTool::new(), json!({"pattern": "root", "path": "/etc"}))
            .await;
        assert!(out.content.contains("outside the workspace"));
    }
}
