//! System prompt assembly. The prompt is built from slots in a fixed order,
//! most stable first, so the provider's prompt-prefix cache keeps hitting
//! across the steps of a turn and across turns: base guidance, personality,
//! vision, mode, permissions, project kinds, workspace files, skills, MCP
//! prompts, and last the small `Environment` block (date, model, tools).
//!
//! The files it draws on (overrides, `AGENTS.md`, `MEMORY.md`, project kinds)
//! are read once per turn by [`PromptFiles::read`] (blocking std I/O, run off
//! the async threads); a missing or unreadable file just leaves its slot out.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::io;
use std::path::{Path, PathBuf};

use chrono::NaiveDate;

use crate::instructions::{InstructionScope, Instructions, read_instructions};
use seekclaw_config::AgentMode;

/// Cap for each injected file or fragment (about 10k tokens).
pub const MAX_INJECTED_CHARS: usize = 40_000;

/// Name of the override file in `<ws>/.seekclaw/prompts/` and `$SEEKCLAW_HOME/prompts/`.
pub const SYSTEM_OVERRIDE_FILE: &str = "system.md";

const BASE_SYSTEM: &str = include_str!("prompt/system.md");
const PERSONALITY_PRAGMATIC: &str = include_str!("prompt/personality_pragmatic.md");
const PERSONALITY_FRIENDLY: &str = include_str!("prompt/personality_friendly.md");
const VISION: &str = include_str!("prompt/vision.md");
const MODE_PLAN: &str = include_str!("prompt/mode_plan.md");
const MODE_READONLY: &str = include_str!("prompt/mode_readonly.md");
const MODE_AUTO: &str = include_str!("prompt/mode_auto.md");

/// One short note per project kind; `git` and unknown kinds have none.
const KIND_NOTES: [(&str, &str); 7] = [
    ("dotnet", include_str!("prompt/kinds/dotnet.md")),
    ("go", include_str!("prompt/kinds/go.md")),
    ("node", include_str!("prompt/kinds/node.md")),
    ("python", include_str!("prompt/kinds/python.md")),
    ("rust", include_str!("prompt/kinds/rust.md")),
    ("unity", include_str!("prompt/kinds/unity.md")),
    ("vue", include_str!("prompt/kinds/vue.md")),
];

/// Everything the system prompt depends on. Same input (and same files on
/// disk) → same bytes.
#[derive(Debug, Clone)]
pub struct PromptInput<'a> {
    /// The agent mode (its section of the prompt).
    pub mode: AgentMode,
    /// `pragmatic` (default for anything unknown) or `friendly`.
    pub personality: &'a str,
    /// Global sessions have no project: workspace files are not read.
    pub scope_global: bool,
    /// The turn's working directory (the project root, or the global work dir).
    pub workspace_root: &'a Path,
    /// The network tools may run.
    pub network_enabled: bool,
    /// The shell sandbox in effect, described (`SandboxPolicy::describe`).
    pub sandbox: &'a str,
    /// The project's checks run after a turn's edits.
    pub auto_verify: bool,
    /// `provider/model` of the model answering.
    pub model_ref: &'a str,
    /// The model reads images.
    pub vision: bool,
    /// Active tools; listed sorted in the Environment block.
    pub tool_names: &'a [String],
    /// Date only, so the prompt stays byte-identical for a whole day.
    pub date: NaiveDate,
    /// `std::env::consts::OS`.
    pub os: &'a str,
    /// The skills section, already rendered (inline texts and a list of files).
    pub skills: Option<&'a str>,
    /// Prompt texts fetched from MCP servers.
    pub mcp_prompts: &'a [String],
    /// The turn's prompt files.
    pub files: &'a PromptFiles,
}

/// What a turn's prompt files are read from.
#[derive(Debug, Clone, Copy)]
pub struct PromptSources<'a> {
    /// The SeekClaw home (its `prompts/system.md`, its `AGENTS.md`).
    pub home: Option<&'a Path>,
    /// The workspace root; `None` for the global scope.
    pub workspace: Option<&'a Path>,
    /// The directory the front end was started from (instruction files are
    /// read from the root down to it).
    pub start: Option<&'a Path>,
    /// `instructions` of the config.
    pub instructions: &'a seekclaw_config::InstructionSettings,
}

/// The files a turn's system prompt draws on, read once when the turn starts
/// (the prompt stays the same across its steps, which keeps the provider's
/// prefix cache hitting).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PromptFiles {
    /// `$SEEKCLAW_HOME/prompts/system.md`.
    pub home_override: Option<String>,
    /// `<ws>/.seekclaw/prompts/system.md`; wins over the home one.
    pub workspace_override: Option<String>,
    /// The instruction files (`AGENTS.md` and the like), most general first.
    pub instructions: Instructions,
    /// `<ws>/.seekclaw/memory/MEMORY.md`.
    pub memory: Option<String>,
    /// As from `seekclaw_config::project_kinds`.
    pub project_kinds: Vec<String>,
}

impl PromptFiles {
    /// Reads the prompt's files. Blocking.
    pub fn read(from: &PromptSources<'_>) -> PromptFiles {
        PromptFiles::read_with_sources(from).0
    }

    /// [`PromptFiles::read`], and every path the outcome depends on.
    pub fn read_with_sources(from: &PromptSources<'_>) -> (PromptFiles, Vec<PathBuf>) {
        let workspace = from.workspace;
        let home_prompts = from.home.map(|h| h.join("prompts"));
        let in_ws =
            |rel: &[&str]| workspace.map(|ws| rel.iter().fold(ws.to_path_buf(), |p, c| p.join(c)));
        let ws_override = in_ws(&[".seekclaw", "prompts", SYSTEM_OVERRIDE_FILE]);
        let memory = in_ws(&[".seekclaw", "memory", "MEMORY.md"]);
        let home_override = home_prompts.as_ref().map(|d| d.join(SYSTEM_OVERRIDE_FILE));
        let names = from.instructions.names();
        let (instructions, mut sources) = read_instructions(&InstructionScope {
            home: from.home,
            workspace,
            start: from.start,
            names: &names,
            max_bytes: from.instructions.budget(),
        });
        let files = PromptFiles {
            home_override: home_override.as_deref().and_then(read_text),
            workspace_override: ws_override.as_deref().and_then(read_text),
            instructions,
            memory: memory.as_deref().and_then(read_text),
            project_kinds: workspace
                .map(seekclaw_config::project_kinds)
                .unwrap_or_default(),
        };
        sources.extend([home_override, ws_override, memory].into_iter().flatten());
        if let Some(ws) = workspace {
            sources.extend(seekclaw_config::project_kind_sources(ws));
        }
        (files, sources)
    }
}

/// The full system prompt for one model request.
pub fn system_prompt(input: &PromptInput) -> String {
    let files = input.files;
    let in_workspace = !input.scope_global;
    let base = files
        .workspace_override
        .as_deref()
        .filter(|_| in_workspace)
        .or(files.home_override.as_deref());
    let mut slots: Vec<Cow<'_, str>> = Vec::new();
    slots.push(match base {
        Some(text) => cap_text(text, MAX_INJECTED_CHARS),
        None => Cow::Borrowed(BASE_SYSTEM),
    });
    slots.push(Cow::Borrowed(personality(input.personality)));
    if input.vision {
        slots.push(Cow::Borrowed(VISION));
    }
    if let Some(section) = mode_section(input.mode) {
        slots.push(Cow::Borrowed(section));
    }
    slots.push(Cow::Owned(permissions(input)));
    if let Some(notes) = kind_notes(&files.project_kinds) {
        slots.push(Cow::Owned(notes));
    }
    if let Some(section) = instructions_section(&files.instructions, in_workspace) {
        slots.push(Cow::Owned(section));
    }
    if in_workspace && let Some(memory) = files.memory.as_deref().map(memory_section) {
        slots.push(Cow::Owned(memory));
    }
    if let Some(skills) = input.skills.map(str::trim).filter(|s| !s.is_empty()) {
        slots.push(Cow::Borrowed(skills));
    }
    if let Some(mcp) = mcp_section(input.mcp_prompts) {
        slots.push(Cow::Owned(mcp));
    }
    slots.push(Cow::Owned(environment(input)));
    join_slots(&slots)
}

/// `text` cut to at most `max_chars` characters by dropping the middle, so both
/// the start (usually the important rules) and the end (often the latest notes)
/// survive.
pub fn cap_text(text: &str, max_chars: usize) -> Cow<'_, str> {
    let total = text.chars().count();
    if total <= max_chars {
        return Cow::Borrowed(text);
    }
    // Room for the marker line, whose digits depend on the omitted count.
    let marker_room = 80;
    let keep = max_chars.saturating_sub(marker_room);
    let head = keep / 2;
    let tail = keep - head;
    let omitted = total - head - tail;
    let head_end = byte_index(text, head);
    let tail_start = byte_index(text, total - tail);
    let mut out = String::with_capacity(head_end + (text.len() - tail_start) + marker_room);
    out.push_str(&text[..head_end]);
    let _ = write!(
        out,
        "\n\n[... middle section trimmed: {omitted} characters omitted ...]\n\n"
    );
    out.push_str(&text[tail_start..]);
    Cow::Owned(out)
}

/// Byte offset of the `n`th character (or the end).
fn byte_index(text: &str, n: usize) -> usize {
    text.char_indices().nth(n).map_or(text.len(), |(i, _)| i)
}

fn join_slots(slots: &[Cow<'_, str>]) -> String {
    let mut out = String::new();
    for slot in slots {
        let slot = slot.trim();
        if slot.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push_str("\n\n");
        }
        out.push_str(slot);
    }
    out.push('\n');
    out
}

fn personality(name: &str) -> &'static str {
    if name.trim().eq_ignore_ascii_case("friendly") {
        PERSONALITY_FRIENDLY
    } else {
        PERSONALITY_PRAGMATIC
    }
}

fn mode_section(mode: AgentMode) -> Option<&'static str> {
    match mode {
        AgentMode::Plan => Some(MODE_PLAN),
        AgentMode::Readonly => Some(MODE_READONLY),
        AgentMode::Auto => Some(MODE_AUTO),
        AgentMode::Edit => None,
    }
}

fn permissions(input: &PromptInput) -> String {
    // Read-only modes withhold the shell and every mutating tool.
    let sandbox = if input.mode.is_read_only() {
        "read-only (files and the system must not be changed)"
    } else {
        input.sandbox
    };
    let network = if input.network_enabled {
        "enabled"
    } else {
        "disabled (web tools are unavailable; do not try to reach the network from the shell either)"
    };
    let verify = if input.auto_verify && !input.mode.is_read_only() && !input.scope_global {
        "on (after you change files, the runtime runs the project's build check and reports failures back to you)"
    } else {
        "off (verify your changes yourself)"
    };
    format!(
        "# Permissions\n\
         - Approval policy: never. Tool calls run without asking the user, so judge for yourself whether an action is safe and reversible.\n\
         - Sandbox: {sandbox}\n\
         - Network: {network}\n\
         - Auto-verify: {verify}"
    )
}

fn kind_notes(kinds: &[String]) -> Option<String> {
    let mut seen: Vec<&str> = Vec::new();
    let mut out = String::from("# Project notes");
    for kind in kinds {
        let kind = kind.trim();
        let Some((name, note)) = KIND_NOTES
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(kind))
        else {
            continue;
        };
        if seen.contains(name) {
            continue;
        }
        seen.push(name);
        out.push_str("\n\n");
        out.push_str(note.trim());
    }
    (!seen.is_empty()).then_some(out)
}

/// The instruction files, most general first, each under its own heading.
fn instructions_section(instructions: &Instructions, in_workspace: bool) -> Option<String> {
    let mut out = String::from(
        "# Project instructions\n\
         Instruction files (AGENTS.md and the like) written by the user and the project's maintainers, from the most general to the most specific: where they disagree, the later one (nearer the working directory) wins. Follow them unless the user says otherwise.",
    );
    let mut any = false;
    let shown = instructions
        .files
        .iter()
        .filter(|f| (f.user || in_workspace) && !f.text.trim().is_empty());
    for file in shown {
        any = true;
        let _ = write!(out, "\n\n## {}\n{}", file.label, file.text.trim());
        if file.truncated {
            let _ = write!(
                out,
                "\n[… the rest of {} is left out: the instruction files exceed instructions.maxBytes]",
                file.label
            );
        }
    }
    any.then_some(out)
}

fn memory_section(text: &str) -> String {
    format!(
        "# Memory\n\
         Notes kept in `.seekclaw/memory/MEMORY.md` from earlier sessions in this workspace. They may be out of date; check them against the code when it matters.\n\n{}",
        cap_text(text.trim(), MAX_INJECTED_CHARS)
    )
}

fn mcp_section(prompts: &[String]) -> Option<String> {
    let mut out =
        String::from("# Tool server instructions\nGuidance supplied by the connected MCP servers.");
    let mut any = false;
    for text in prompts.iter().map(|t| t.trim()).filter(|t| !t.is_empty()) {
        any = true;
        out.push_str("\n\n");
        out.push_str(&cap_text(text, MAX_INJECTED_CHARS));
    }
    any.then_some(out)
}

fn environment(input: &PromptInput) -> String {
    let mut tools: Vec<&str> = input.tool_names.iter().map(String::as_str).collect();
    tools.sort_unstable();
    tools.dedup();
    let kinds: Vec<&str> = input
        .files
        .project_kinds
        .iter()
        .map(|k| k.trim())
        .filter(|k| !k.is_empty())
        .collect();
    let mut out = String::from("# Environment\n");
    let _ = writeln!(out, "- Date: {}", input.date);
    let _ = writeln!(out, "- OS: {}", input.os);
    if input.scope_global {
        let _ = writeln!(
            out,
            "- Scope: global (no project is open; {} is a scratch directory)",
            input.workspace_root.display()
        );
    } else {
        let _ = writeln!(out, "- Scope: workspace");
        let _ = writeln!(out, "- Workspace: {}", input.workspace_root.display());
        let kinds = if kinds.is_empty() {
            "general".to_string()
        } else {
            kinds.join(", ")
        };
        let _ = writeln!(out, "- Project kinds: {kinds}");
    }
    let _ = writeln!(out, "- Mode: {}", input.mode);
    let _ = writeln!(out, "- Model: {}", input.model_ref);
    let tools = if tools.is_empty() {
        "none".to_string()
    } else {
        tools.join(", ")
    };
    let _ = write!(out, "- Tools: {tools}");
    out
}

/// A file's text; `None` when missing, empty or unreadable (logged).
pub(crate) fn read_text(path: &Path) -> Option<String> {
    match std::fs::read(path) {
        Ok(bytes) => {
            let text = String::from_utf8_lossy(&bytes).into_owned();
            (!text.trim().is_empty()).then_some(text)
        }
        Err(e)
            if matches!(
                e.kind(),
                io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
            ) =>
        {
            None
        }
        Err(e) => {
            tracing::warn!(path = %path.display(), error = %e, "prompt file unreadable; skipped");
            None
        }
    }
}

pub(crate) mod summary;

#[cfg(test)]
mod tests;
