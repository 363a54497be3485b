//! Tools as data: a definition (name, description, JSON schema, flags) plus an
//! executor. The agent sees only this interface.

use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use seekclaw_config::WebSearchSettings;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::jobs::Jobs;
use crate::locks::WriteLocks;
use crate::sandbox::SandboxPolicy;

/// What a tool is allowed to do, for filtering by mode and session settings.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ToolFlags {
    /// Changes files or runs commands: removed in plan/readonly modes; calls run one at a time.
    pub mutating: bool,
    /// Reaches the network: only when the session's `networkEnabled`.
    pub network: bool,
    /// Needs a vision model.
    pub vision: bool,
    /// Needs a reachable display (`capture_screen`).
    pub display: bool,
    /// May run concurrently with neighbouring parallel-safe calls of the same step.
    pub parallel_safe: bool,
}

/// A tool as the model and the registry see it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDefinition {
    /// The name the model calls it by.
    pub name: String,
    /// What it does, for the model.
    pub description: String,
    /// JSON Schema object of the arguments; shared, so offering the tool at
    /// every step does not copy the schema.
    pub parameters: Arc<Value>,
    /// What it may do.
    pub flags: ToolFlags,
    /// Short status shown while it runs (`Reading files`, `Running command`, …).
    pub status_label: String,
    /// Called with raw text in this grammar instead of JSON where the
    /// provider supports it (OpenAI's custom tools); elsewhere a function
    /// tool whose only argument is `input`, that text.
    pub freeform: Option<FreeformFormat>,
}

/// The grammar of a freeform tool's input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FreeformFormat {
    /// `lark` (or `regex`).
    pub syntax: String,
    /// The grammar itself.
    pub definition: String,
}

/// An image a tool returns to the model (base64, no data-URL prefix).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolImage {
    /// `image/png`, `image/jpeg`, ...
    pub media_type: String,
    /// The image bytes in base64.
    pub data_base64: String,
}

/// The result of one call.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolOutput {
    /// False when the tool failed or refused.
    pub success: bool,
    /// What the model reads (already within the output budget).
    pub content: String,
    /// One line for clients (`tool_done` data), e.g. `Read 120 lines from src/a.rs`.
    pub summary: String,
    /// Unified diff of a file change (`file_diff` event).
    pub diff: Option<String>,
    /// Workspace-relative path of the changed file (the first, when several).
    pub file_path: Option<String>,
    /// When a call changed several files (`apply_patch`): each one's path and
    /// diff, in order; `diff` then holds them all.
    pub file_diffs: Vec<(String, String)>,
    /// Every path the call wrote or deleted when more than `file_path`
    /// (a patch's files, both ends of a move), for checkpoints.
    pub touched_paths: Vec<String>,
    /// Images for the model (e.g. `read_file` of a picture).
    pub images: Vec<ToolImage>,
    /// A status line to echo to clients (the `plan` tool's checklist).
    pub status: Option<String>,
    /// True when the call changed files (drives verify-and-repair).
    pub mutated: bool,
    /// The arguments did not fit the tool's schema: nothing ran.
    pub invalid_args: bool,
}

impl ToolOutput {
    /// A successful result.
    pub fn ok(content: impl Into<String>, summary: impl Into<String>) -> Self {
        ToolOutput {
            success: true,
            content: content.into(),
            summary: summary.into(),
            ..ToolOutput::default()
        }
    }

    /// A failed result; its first line is the summary.
    pub fn error(message: impl Into<String>) -> Self {
        let message = message.into();
        let summary = message
            .lines()
            .next()
            .unwrap_or_default()
            .chars()
            .take(160)
            .collect();
        ToolOutput {
            success: false,
            content: message,
            summary,
            ..ToolOutput::default()
        }
    }
}

/// Everything a call may use. One per turn; cheap to clone.
#[derive(Clone)]
pub struct ToolContext {
    /// Paths resolve against this root and may not leave it (unless allowed).
    pub workspace_root: PathBuf,
    /// Paths may leave the workspace root.
    pub allow_outside_workspace: bool,
    /// Lock owner of the turn: `<sessionId>/<8 hex>`.
    pub owner: String,
    /// The daemon-wide write locks.
    pub locks: Arc<WriteLocks>,
    /// How long a write waits for its file's lock.
    pub lock_timeout: Duration,
    /// Default time limit of a `bash` command.
    pub bash_timeout: Duration,
    /// The session allows network tools.
    pub network_enabled: bool,
    /// Output budget per result, in characters.
    pub max_output_chars: usize,
    /// Fires when the turn is cancelled or ends: running work stops.
    pub cancel: CancellationToken,
    /// The turn's shell commands and background jobs (`bash`, `bash_output`, `bash_stop`).
    pub jobs: Arc<Jobs>,
    /// Absolute paths of files outside the workspace that `read_file` may open
    /// (skill files the prompt lists by path).
    pub readable_files: Arc<[PathBuf]>,
    /// What shell commands (`bash`, background jobs) may touch; [`ToolContext::new`]
    /// leaves it off, the turn sets the configured one.
    pub sandbox: Arc<SandboxPolicy>,
    /// `agent.webSearch`: the engine `web_search` asks, its URL and key.
    pub web_search: Arc<WebSearchSettings>,
    /// Where tools keep files for later (`capture_screen`'s PNGs go under
    /// `screenshots/`); `None`: a directory under the system temp dir.
    pub cache_dir: Option<PathBuf>,
    /// How large an image a tool may hand the model (the model's limits).
    pub image_limits: ImageLimits,
    /// Where file tools read and write text: the disk when `None`, else a
    /// front end that holds the buffers (an ACP editor).
    pub files: Option<Arc<dyn crate::files::FileAccess>>,
    /// Starts child turns (`explore`, `review`); `None` in a child turn and
    /// wherever no engine runs the turn.
    pub children: Option<Arc<dyn crate::children::ChildTurns>>,
    /// Subagent calls this turn made so far (at most
    /// [`crate::children::MAX_SUBRUNS_PER_TURN`] run).
    pub subruns: Arc<std::sync::atomic::AtomicU32>,
    /// Reports the errors an edit introduced (the engine's language
    /// servers); `None`: no diagnostics.
    pub diagnostics: Option<Arc<dyn crate::diagnostics::Diagnostics>>,
    /// Puts a tool's question (an MCP server's elicitation) to the person of
    /// the turn, bound to the running call; `None`: nobody can answer, so
    /// such questions are declined at once.
    pub elicit: Option<Arc<dyn crate::elicit::Elicit>>,
}

/// The largest image a model takes without scaling it down itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImageLimits {
    /// Longest side, in pixels.
    pub max_long_edge: u32,
    /// Width × height.
    pub max_pixels: u64,
}

impl ImageLimits {
    /// Anthropic's documented limit (1568 px long edge, about 1.15 megapixels):
    /// larger images are scaled down by the API anyway, at a cost in time.
    pub const ANTHROPIC: ImageLimits = ImageLimits {
        max_long_edge: 1568,
        max_pixels: 1_150_000,
    };
    /// OpenAI's high-detail limit (2048 px long edge, 768 px short side).
    pub const OPENAI: ImageLimits = ImageLimits {
        max_long_edge: 2048,
        max_pixels: 2048 * 768,
    };

    /// The size `width`×`height` becomes: scaled down, aspect kept, to fit
    /// both limits; never scaled up.
    pub fn fit(&self, width: u32, height: u32) -> (u32, u32) {
        let (w, h) = (f64::from(width.max(1)), f64::from(height.max(1)));
        let by_edge = f64::from(self.max_long_edge.max(1)) / w.max(h);
        let by_area = (self.max_pixels.max(1) as f64 / (w * h)).sqrt();
        let scale = by_edge.min(by_area).min(1.0);
        if scale >= 1.0 {
            return (width, height);
        }
        let fit = |v: f64| ((v * scale).floor() as u32).max(1);
        (fit(w), fit(h))
    }
}

impl Default for ImageLimits {
    fn default() -> Self {
        ImageLimits::ANTHROPIC
    }
}

impl ToolContext {
    /// A context with a fresh, empty job table.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        workspace_root: PathBuf,
        allow_outside_workspace: bool,
        owner: String,
        locks: Arc<WriteLocks>,
        lock_timeout: Duration,
        bash_timeout: Duration,
        network_enabled: bool,
        max_output_chars: usize,
        cancel: CancellationToken,
    ) -> Self {
        ToolContext {
            workspace_root,
            allow_outside_workspace,
            owner,
            locks,
            lock_timeout,
            bash_timeout,
            network_enabled,
            max_output_chars,
            cancel,
            jobs: Arc::new(Jobs::new()),
            readable_files: Arc::from(Vec::new()),
            sandbox: Arc::new(SandboxPolicy::off()),
            web_search: Arc::new(WebSearchSettings::default()),
            cache_dir: None,
            image_limits: ImageLimits::default(),
            files: None,
            children: None,
            subruns: Arc::default(),
            diagnostics: None,
            elicit: None,
        }
    }
}

/// The future a tool call runs as.
pub type ToolFuture<'a> = Pin<Box<dyn Future<Output = ToolOutput> + Send + 'a>>;

/// A tool: its definition and how to run it. Errors are results (`success:false`),
/// never panics or turn failures.
pub trait Tool: Send + Sync {
    /// Name, description, schema and flags.
    fn definition(&self) -> &ToolDefinition;
    /// Runs the call with `args` (the model's JSON arguments).
    fn execute<'a>(&'a self, args: Value, ctx: &'a ToolContext) -> ToolFuture<'a>;
    /// The unified diff the call would make, shown to a person deciding on
    /// it; `None` when the tool changes no file or the call would fail.
    /// Reads the file once, without its write lock: a preview, not a promise.
    fn preview(&self, _args: &Value, _ctx: &ToolContext) -> Option<String> {
        None
    }
}
