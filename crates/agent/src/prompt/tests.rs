use std::fs;
use std::path::PathBuf;

use super::*;

/// The prompt files as a turn reads them, with `home_prompts` the home's
/// `prompts` folder.
fn read_files(home_prompts: Option<&Path>, ws: Option<&Path>) -> PromptFiles {
    let settings = seekclaw_config::InstructionSettings::default();
    PromptFiles::read(&PromptSources {
        home: home_prompts.and_then(Path::parent),
        workspace: ws,
        start: None,
        instructions: &settings,
    })
}

struct Owned {
    root: PathBuf,
    home_prompts: Option<PathBuf>,
    kinds: Vec<String>,
    tools: Vec<String>,
    skills: Option<String>,
    mcp: Vec<String>,
    files: PromptFiles,
}

impl Owned {
    fn new(root: &Path) -> Owned {
        Owned {
            root: root.to_path_buf(),
            home_prompts: None,
            kinds: vec!["git".into(), "rust".into()],
            tools: vec!["write_file".into(), "bash".into(), "read_file".into()],
            skills: None,
            mcp: Vec::new(),
            files: PromptFiles::default(),
        }
    }

    /// The prompt input over the files on disk now (the project kinds are `kinds`).
    fn input(&mut self) -> PromptInput<'_> {
        self.files = read_files(self.home_prompts.as_deref(), Some(&self.root));
        self.files.project_kinds = self.kinds.clone();
        PromptInput {
            mode: AgentMode::Edit,
            personality: "pragmatic",
            scope_global: false,
            workspace_root: &self.root,
            network_enabled: true,
            sandbox: "workspace-write (shell commands may write only inside the workspace)",
            auto_verify: true,
            model_ref: "deepseek/deepseek-chat",
            vision: false,
            tool_names: &self.tools,
            date: NaiveDate::from_ymd_opt(2026, 3, 14).unwrap(),
            os: "linux",
            skills: self.skills.as_deref(),
            mcp_prompts: &self.mcp,
            files: &self.files,
        }
    }
}

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

/// Byte offset of `needle`, failing the test with the prompt when absent.
fn pos(prompt: &str, needle: &str) -> usize {
    prompt
        .find(needle)
        .unwrap_or_else(|| panic!("{needle:?} missing from:\n{prompt}"))
}

#[test]
fn slots_come_in_order() {
    let tmp = tempfile::tempdir().unwrap();
    write(&tmp.path().join("AGENTS.md"), "Use tabs.\n");
    write(
        &tmp.path().join(".seekclaw/memory/MEMORY.md"),
        "The API lives in src/api.\n",
    );
    let mut owned = Owned::new(tmp.path());
    owned.skills = Some("# Skills\n\n## review\nCheck for bugs.".into());
    owned.mcp = vec!["Use the db tool for SQL.".into()];
    let mut input = owned.input();
    input.vision = true;
    input.mode = AgentMode::Plan;
    let p = system_prompt(&input);
    let order = [
        "You are SeekClaw",
        "# Personality",
        "# Images",
        "# Mode: plan",
        "# Permissions",
        "# Project notes",
        "# Project instructions",
        "Use tabs.",
        "# Memory",
        "The API lives in src/api.",
        "# Skills",
        "## review\nCheck for bugs.",
        "# Tool server instructions",
        "Use the db tool for SQL.",
        "# Environment",
    ];
    let positions: Vec<usize> = order.iter().map(|n| pos(&p, n)).collect();
    assert!(
        positions.windows(2).all(|w| w[0] < w[1]),
        "out of order: {positions:?}\n{p}"
    );
    assert!(p.ends_with("- Tools: bash, read_file, write_file\n"), "{p}");
    assert!(!p.contains("\n\n\n"), "empty slots must not leave gaps");
}

#[test]
fn optional_slots_are_left_out() {
    let tmp = tempfile::tempdir().unwrap();
    let mut owned = Owned::new(tmp.path());
    owned.kinds = vec!["git".into()];
    let p = system_prompt(&owned.input());
    for absent in [
        "# Images",
        "# Mode:",
        "# Project notes",
        "# Project instructions",
        "# Memory",
        "# Skills",
        "# Tool server instructions",
    ] {
        assert!(!p.contains(absent), "{absent} present:\n{p}");
    }
    assert!(p.contains("- Project kinds: git"));
}

#[test]
fn mode_sections_and_sandbox() {
    let tmp = tempfile::tempdir().unwrap();
    let mut owned = Owned::new(tmp.path());
    let cases = [
        (
            AgentMode::Plan,
            Some("## Proposed Plan"),
            "Sandbox: read-only",
        ),
        (
            AgentMode::Readonly,
            Some("# Mode: read-only"),
            "Sandbox: read-only",
        ),
        (
            AgentMode::Auto,
            Some("# Mode: auto"),
            "Sandbox: workspace-write",
        ),
        (AgentMode::Edit, None, "Sandbox: workspace-write"),
    ];
    for (mode, section, sandbox) in cases {
        let mut input = owned.input();
        input.mode = mode;
        let p = system_prompt(&input);
        match section {
            Some(s) => assert!(p.contains(s), "{mode}: {s} missing"),
            None => assert!(!p.contains("# Mode:"), "edit has no mode section"),
        }
        assert!(p.contains(sandbox), "{mode}: {sandbox}");
        assert!(p.contains("Approval policy: never"));
        assert!(p.contains(&format!("- Mode: {mode}")));
    }
}

#[test]
fn permissions_reflect_network_and_verify() {
    let tmp = tempfile::tempdir().unwrap();
    let mut owned = Owned::new(tmp.path());
    let p = system_prompt(&owned.input());
    assert!(p.contains("- Network: enabled"));
    assert!(p.contains("- Auto-verify: on"));
    let mut input = owned.input();
    input.network_enabled = false;
    input.auto_verify = false;
    let p = system_prompt(&input);
    assert!(p.contains("- Network: disabled"));
    assert!(p.contains("- Auto-verify: off"));
    // Read-only modes never verify: nothing is changed.
    let mut input = owned.input();
    input.mode = AgentMode::Readonly;
    assert!(system_prompt(&input).contains("- Auto-verify: off"));
}

#[test]
fn personality_choice() {
    let tmp = tempfile::tempdir().unwrap();
    let mut owned = Owned::new(tmp.path());
    let mut input = owned.input();
    input.personality = " Friendly ";
    assert!(system_prompt(&input).contains(PERSONALITY_FRIENDLY.trim()));
    input.personality = "grumpy";
    assert!(system_prompt(&input).contains(PERSONALITY_PRAGMATIC.trim()));
}

#[test]
fn project_kind_notes() {
    let tmp = tempfile::tempdir().unwrap();
    let mut owned = Owned::new(tmp.path());
    owned.kinds = ["git", "node", "vue", "node", "cobol", "rust"]
        .map(String::from)
        .to_vec();
    let p = system_prompt(&owned.input());
    assert_eq!(p.matches("Node.js:").count(), 1, "deduplicated");
    let (node, vue, rust) = (pos(&p, "Node.js:"), pos(&p, "Vue:"), pos(&p, "Rust:"));
    assert!(node < vue && vue < rust, "kinds keep the detected order");
    assert!(p.contains("- Project kinds: git, node, vue, node, cobol, rust"));
    for (kind, _) in KIND_NOTES {
        owned.kinds = vec![kind.to_string()];
        assert!(
            system_prompt(&owned.input()).contains("# Project notes"),
            "{kind}"
        );
    }
}

#[test]
fn agents_and_memory_are_injected_and_capped() {
    let tmp = tempfile::tempdir().unwrap();
    let long = format!("HEAD-MARK{}TAIL-MARK", "x".repeat(60_000));
    write(&tmp.path().join("AGENTS.md"), &long);
    write(&tmp.path().join(".seekclaw/memory/MEMORY.md"), &long);
    let mut owned = Owned::new(tmp.path());
    let p = system_prompt(&owned.input());
    // AGENTS.md is within the instruction budget (64 KiB): whole. Memory is
    // capped by dropping its middle.
    assert!(p.contains("## AGENTS.md\nHEAD-MARK"));
    assert_eq!(p.matches("HEAD-MARK").count(), 2);
    assert_eq!(p.matches("TAIL-MARK").count(), 2);
    assert_eq!(p.matches("middle section trimmed").count(), 1);
    assert!(p.chars().count() < 60_000 + MAX_INJECTED_CHARS + 10_000);
}

#[test]
fn global_scope_skips_workspace_files() {
    let tmp = tempfile::tempdir().unwrap();
    write(&tmp.path().join("AGENTS.md"), "AGENTS-TEXT");
    write(
        &tmp.path().join(".seekclaw/memory/MEMORY.md"),
        "MEMORY-TEXT",
    );
    write(
        &tmp.path().join(".seekclaw/prompts/system.md"),
        "WS-OVERRIDE",
    );
    let mut owned = Owned::new(tmp.path());
    let mut input = owned.input();
    input.scope_global = true;
    let p = system_prompt(&input);
    for absent in ["AGENTS-TEXT", "MEMORY-TEXT", "WS-OVERRIDE", "- Workspace:"] {
        assert!(!p.contains(absent), "{absent} in global prompt");
    }
    assert!(p.contains("You are SeekClaw"));
    assert!(p.contains("- Scope: global"));
    assert!(!p.contains("Auto-verify: on"));
}

#[test]
fn deterministic() {
    let tmp = tempfile::tempdir().unwrap();
    write(&tmp.path().join("AGENTS.md"), "Rules.");
    let mut owned = Owned::new(tmp.path());
    let first = system_prompt(&owned.input());
    assert_eq!(first, system_prompt(&owned.input()));
    // Caller order of tools does not matter.
    owned.tools.reverse();
    assert_eq!(first, system_prompt(&owned.input()));
    // The date is the only time-dependent part.
    let mut input = owned.input();
    input.date = NaiveDate::from_ymd_opt(2026, 3, 15).unwrap();
    let next_day = system_prompt(&input);
    assert_ne!(first, next_day);
    assert_eq!(
        first.replace("2026-03-14", "2026-03-15"),
        next_day,
        "only the date line differs"
    );
}

#[test]
fn overrides_replace_the_base_slot() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    let home = tmp.path().join("home/prompts");
    fs::create_dir_all(&ws).unwrap();
    let overrides = |ws: Option<&Path>| {
        let files = read_files(Some(&home), ws);
        (files.home_override, files.workspace_override)
    };
    assert_eq!(overrides(Some(&ws)), (None, None));

    write(&home.join("system.md"), "HOME-BASE\n");
    assert_eq!(overrides(Some(&ws)), (Some("HOME-BASE\n".into()), None));
    write(&ws.join(".seekclaw/prompts/system.md"), "WS-BASE");
    assert_eq!(overrides(Some(&ws)).1.as_deref(), Some("WS-BASE"));
    assert_eq!(overrides(None), (Some("HOME-BASE\n".into()), None));
    // Empty files are ignored.
    write(&ws.join(".seekclaw/prompts/system.md"), " \n");
    assert_eq!(overrides(Some(&ws)).1, None);
    write(&ws.join(".seekclaw/prompts/system.md"), "WS-BASE");

    let mut owned = Owned::new(&ws);
    owned.home_prompts = Some(home.clone());
    let p = system_prompt(&owned.input());
    assert!(p.starts_with("WS-BASE\n\n# Personality"), "{p}");
    assert!(!p.contains("You are SeekClaw"));

    // Global scope: only the home override applies.
    let mut input = owned.input();
    input.scope_global = true;
    assert!(system_prompt(&input).starts_with("HOME-BASE\n\n"));
    // No home given: the workspace override still applies.
    owned.home_prompts = None;
    assert!(system_prompt(&owned.input()).starts_with("WS-BASE\n\n"));
}

#[test]
fn cap_text_keeps_head_and_tail() {
    assert_eq!(cap_text("short", 10), "short");
    let text: String = (0..1000)
        .map(|i| char::from(b'a' + (i % 26) as u8))
        .collect();
    let capped = cap_text(&text, 300);
    assert!(capped.chars().count() <= 300, "{}", capped.chars().count());
    assert!(capped.starts_with(&text[..100]));
    assert!(capped.ends_with(&text[text.len() - 100..]));
    assert!(capped.contains("middle section trimmed: 780 characters omitted"));
    // Multi-byte characters are cut on character boundaries.
    let wide = "é中🙂".repeat(500);
    let capped = cap_text(&wide, 200);
    assert!(capped.chars().count() <= 200);
    assert!(capped.starts_with("é中🙂"));
    assert!(capped.ends_with("é中🙂"));
}

#[test]
fn environment_block() {
    let tmp = tempfile::tempdir().unwrap();
    let mut owned = Owned::new(tmp.path());
    owned.tools.clear();
    let p = system_prompt(&owned.input());
    let env = &p[pos(&p, "# Environment")..];
    assert!(env.contains("- Date: 2026-03-14\n"));
    assert!(env.contains("- OS: linux\n"));
    assert!(env.contains(&format!("- Workspace: {}\n", tmp.path().display())));
    assert!(env.contains("- Model: deepseek/deepseek-chat\n"));
    assert!(env.contains("- Tools: none"));
}

#[test]
fn prompt_files_are_read_from_home_and_workspace() {
    let tmp = tempfile::tempdir().unwrap();
    let (ws, home) = (tmp.path().join("ws"), tmp.path().join("home"));
    write(&home.join("prompts/system.md"), "HOME");
    write(&ws.join(".seekclaw/prompts/system.md"), "WS");
    write(&ws.join("AGENTS.md"), "AGENTS");
    write(&ws.join(".seekclaw/memory/MEMORY.md"), "MEMORY");
    write(&ws.join("Cargo.toml"), "[package]");
    let files = read_files(Some(&home.join("prompts")), Some(&ws));
    assert_eq!(files.home_override.as_deref(), Some("HOME"));
    assert_eq!(files.workspace_override.as_deref(), Some("WS"));
    assert_eq!(files.instructions.files.len(), 1);
    assert_eq!(files.instructions.files[0].text, "AGENTS");
    assert_eq!(files.memory.as_deref(), Some("MEMORY"));
    assert_eq!(files.project_kinds, ["rust"]);
    // The global scope reads no workspace: only the home override.
    let global = read_files(Some(&home.join("prompts")), None);
    assert_eq!(global.home_override.as_deref(), Some("HOME"));
    assert_eq!(global.workspace_override, None);
    assert!(global.instructions.files.is_empty());
    assert_eq!(global.memory, None);
    assert!(global.project_kinds.is_empty());
}
