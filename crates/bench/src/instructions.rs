//! `instructions`: what instruction files cost a turn (issue 41). In process:
//! reading a 6-level tree's 10 instruction files (the user's, one per folder
//! from the root down, `@imports`) and building the system prompt from them,
//! against the same prompt with no files. Through the real binary (`seekclaw
//! run` in the deepest folder, the testkit provider answering): how much of
//! each model request is a prefix of the next (what a provider's prompt cache
//! reuses) over a multi-step turn and a second turn, with the tree and without.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use seekclaw_agent::{PromptFiles, PromptSources};
use seekclaw_config::InstructionSettings;
use seekclaw_testkit::{ProviderServer, Reply};
use serde_json::{Value, json};

use crate::stats::{Timings, ms};

pub struct InstructionsArgs {
    pub bin: PathBuf,
    pub runs: usize,
    pub json: bool,
}

/// Folders below the root in the generated tree.
const DEPTH: usize = 5;

pub fn run(args: &InstructionsArgs) -> Result<()> {
    let dir = tempfile::tempdir()?;
    let (home, root, deepest, files) = tree(dir.path())?;
    let empty_root = dir.path().join("bare");
    std::fs::create_dir_all(empty_root.join(".git"))?;
    let with = prompt_cost(&home, &root, &deepest, args.runs)?;
    let without = prompt_cost(
        &dir.path().join("nohome"),
        &empty_root,
        &empty_root,
        args.runs,
    )?;
    let reuse_with = prefix_reuse(&args.bin, &home, &deepest)?;
    let bare_home = dir.path().join("bare-home");
    let reuse_without = prefix_reuse(&args.bin, &bare_home, &empty_root)?;
    let min = |r: &[f64]| r.iter().copied().fold(1.0, f64::min);
    if args.json {
        println!(
            "{}",
            json!({
                "instruction_files": files,
                "prompt_build_with_files_ms": ms(with.median),
                "prompt_build_with_files_p95_ms": ms(with.p95),
                "prompt_build_no_files_ms": ms(without.median),
                "prefix_reuse_with_files": reuse_with,
                "prefix_reuse_no_files": reuse_without,
                "prefix_reuse_min_with_files": min(&reuse_with),
            })
        );
        return Ok(());
    }
    println!(
        "system prompt with {files} instruction files ({}-level tree, imports included), read and built: median {:.3} ms, p95 {:.3} ms (no files: {:.3} ms), {} runs",
        DEPTH + 1,
        ms(with.median),
        ms(with.p95),
        ms(without.median),
        args.runs
    );
    let show = |r: &[f64]| {
        r.iter()
            .map(|x| format!("{x:.3}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    println!(
        "prompt-cache prefix reuse between consecutive requests (3-step turn, then a second turn): with the tree {} (min {:.3}); without files {}",
        show(&reuse_with),
        min(&reuse_with),
        show(&reuse_without)
    );
    Ok(())
}

/// The home, the root, the deepest folder and how many instruction files a
/// turn there reads: the user's, one per folder (AGENTS.md or CLAUDE.md),
/// and three imports from the root's.
fn tree(base: &Path) -> Result<(PathBuf, PathBuf, PathBuf, usize)> {
    let home = base.join("home");
    let root = base.join("proj");
    let write = |path: &Path, text: &str| -> Result<()> {
        std::fs::create_dir_all(path.parent().context("no parent")?)?;
        std::fs::write(path, text).with_context(|| path.display().to_string())
    };
    let body = |name: &str| {
        format!(
            "# {name}\n{}\n",
            "- Keep functions short and named for what they do.\n".repeat(40)
        )
    };
    write(&home.join("AGENTS.md"), &body("user"))?;
    std::fs::create_dir_all(root.join(".git"))?;
    write(
        &root.join("AGENTS.md"),
        &format!(
            "{}See @docs/style.md, @docs/testing.md and @docs/review.md.\n",
            body("root")
        ),
    )?;
    for doc in ["style", "testing", "review"] {
        write(&root.join(format!("docs/{doc}.md")), &body(doc))?;
    }
    let mut dir = root.clone();
    for level in 1..=DEPTH {
        dir = dir.join(format!("level{level}"));
        let name = if level % 2 == 0 {
            "CLAUDE.md"
        } else {
            "AGENTS.md"
        };
        write(&dir.join(name), &body(&format!("level {level}")))?;
    }
    // The user's, the root's, five folders', three imports.
    Ok((home, root, dir, 1 + 1 + DEPTH + 3))
}

/// Reading the files and building the prompt, `runs` times (after a warm-up).
fn prompt_cost(home: &Path, root: &Path, start: &Path, runs: usize) -> Result<Timings> {
    let settings = InstructionSettings::default();
    let sources = PromptSources {
        home: Some(home),
        workspace: Some(root),
        start: Some(start),
        instructions: &settings,
    };
    let tools = vec!["read_file".to_string(), "bash".to_string()];
    let build = || {
        let files = PromptFiles::read(&sources);
        let input = seekclaw_agent::PromptInput {
            mode: seekclaw_config::AgentMode::Edit,
            personality: "pragmatic",
            scope_global: false,
            workspace_root: root,
            network_enabled: true,
            sandbox: "workspace-write",
            auto_verify: true,
            model_ref: "tk/m1",
            vision: false,
            tool_names: &tools,
            date: chrono::Local::now().date_naive(),
            os: "linux",
            skills: None,
            mcp_prompts: &[],
            files: &files,
        };
        seekclaw_agent::system_prompt(&input)
    };
    let mut times: Vec<Duration> = Vec::with_capacity(runs);
    let mut length = 0;
    for i in 0..runs + 5 {
        let started = Instant::now();
        let prompt = build();
        if i >= 5 {
            times.push(started.elapsed());
        }
        length = prompt.len();
    }
    if length == 0 {
        bail!("empty prompt");
    }
    Timings::of(&times).context("no runs")
}

/// Through `bin`: a 3-step turn (two reads, then an answer) and a second
/// turn, in `start`. For each request after the first, the share of the
/// previous request's messages (by bytes) it repeats from the start.
fn prefix_reuse(bin: &Path, home: &Path, start: &Path) -> Result<Vec<f64>> {
    let server = ProviderServer::start()?;
    std::fs::create_dir_all(home)?;
    let config = json!({"providers": [{"id": "tk", "kind": "openai", "baseUrl": server.base_url(), "models": [{"id": "m1"}]}]});
    std::fs::write(home.join("config.json"), config.to_string())?;
    let read = |id: &str| Reply::new().tool_call(id, "list_dir", r#"{"path":"."}"#);
    server.enqueue(read("c1"));
    server.enqueue(read("c2"));
    server.enqueue(Reply::plain("first answer"));
    server.enqueue(Reply::plain("second answer"));
    for args in [
        vec!["run", "look around"],
        vec!["run", "--continue", "and again"],
    ] {
        let out = Command::new(bin)
            .args(&args)
            .current_dir(start)
            .env("SEEKCLAW_HOME", home)
            .output()?;
        if !out.status.success() {
            bail!(
                "seekclaw run failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
    let requests: Vec<Vec<String>> = server
        .requests()
        .iter()
        .map(|r| messages(&r.body))
        .collect();
    if requests.len() != 4 {
        bail!(
            "expected 4 model requests, the provider got {}",
            requests.len()
        );
    }
    Ok(requests.windows(2).map(|w| reused(&w[0], &w[1])).collect())
}

/// A request's messages, each serialized.
fn messages(body: &Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .map(|m| m.iter().map(Value::to_string).collect())
        .unwrap_or_default()
}

/// The bytes of `before`'s leading messages that `after` repeats exactly,
/// as a share of all of `before`'s.
fn reused(before: &[String], after: &[String]) -> f64 {
    let total: usize = before.iter().map(String::len).sum();
    let same: usize = before
        .iter()
        .zip(after)
        .take_while(|(a, b)| a == b)
        .map(|(a, _)| a.len())
        .sum();
    same as f64 / total.max(1) as f64
}
