//! `export`: `seekclaw inspect --export` of one long session (STEPS model
//! steps in turns of 30: a tool call and its ~2 KB result each, then the
//! turn's answer; a recorded system prompt and tool list) against `seekclaw sessions
//! export` of the same session (the log itself as a session file: linear in
//! the session by construction; same run), at STEPS/3 and STEPS steps. It
//! reports each file's size and time and how each grows from STEPS/3 to
//! STEPS steps: a file linear in the session grows about 3x, one that bakes
//! each step's whole model view (the old export) about 9x. `--baseline-bin`
//! exports the same homes with another `seekclaw` (a previous build) too.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use seekclaw_store::{
    AssistantMessage, EventItem, NewSession, StepUsage, Store, TerminalStatus, ToolCall,
    ToolResult, TurnTerminal, UserMessage,
};
use serde_json::{Value, json};

use crate::populate::SCOPE;
use crate::stats::ms;

const SESSION: &str = "20260105-000000-e4b0e7";
/// Steps per turn of the generated session.
const TURN_STEPS: usize = 30;

pub struct ExportArgs<'a> {
    pub bin: &'a Path,
    /// Another `seekclaw` to export the same homes with (a previous build).
    pub baseline_bin: Option<PathBuf>,
    pub steps: usize,
    /// Timed exports per binary and size (after one warm-up).
    pub runs: usize,
    pub json: bool,
}

/// One exporter on one home: its file's size and median time.
struct Measured {
    bytes: u64,
    median: Duration,
}

pub fn run(args: &ExportArgs<'_>) -> Result<()> {
    if args.runs == 0 || args.steps < 3 {
        bail!("--runs must be at least 1 and --steps at least 3");
    }
    let scratch = tempfile::Builder::new()
        .prefix("sc-bench-export-")
        .tempdir()?;
    let sizes = [args.steps / 3, args.steps];
    let mut rows: Vec<(String, [Measured; 2])> = Vec::new();
    let mut homes = Vec::new();
    for steps in sizes {
        let home = scratch.path().join(format!("home-{steps}"));
        std::fs::create_dir_all(&home)?;
        add_session(&Store::open(&home.join("seekclaw.db"))?, steps)?;
        homes.push(home);
    }
    let out = scratch.path().join("out");
    let session_file = |bin: &Path, home: &Path, to: &Path| -> Command {
        let mut cmd = Command::new(bin);
        cmd.args(["sessions", "export", SESSION, "--global", "--output"])
            .arg(to)
            .env("SEEKCLAW_HOME", home);
        cmd
    };
    let page = |bin: &Path, home: &Path| -> Command {
        let mut cmd = Command::new(bin);
        cmd.args(["inspect", "--export"])
            .arg(&out)
            .args(["--session", SESSION])
            .env("SEEKCLAW_HOME", home);
        cmd
    };
    let mut measure = |name: &str, make: &dyn Fn(&Path) -> Command| -> Result<()> {
        eprintln!("{name} ...");
        let a = time(&mut || make(&homes[0]), &out, args.runs)?;
        let b = time(&mut || make(&homes[1]), &out, args.runs)?;
        rows.push((name.to_string(), [a, b]));
        Ok(())
    };
    measure("sessions export (baseline)", &|h| {
        session_file(args.bin, h, &out)
    })?;
    measure("inspect --export", &|h| page(args.bin, h))?;
    if let Some(old) = &args.baseline_bin {
        // Its own homes: an older build may not open this one's database.
        let old_homes = [0, 1].map(|i| scratch.path().join(format!("old-home-{i}")));
        for (home, old_home) in homes.iter().zip(&old_homes) {
            let file = old_home.with_extension("jsonl");
            run_ok(&mut session_file(args.bin, home, &file))?;
            std::fs::create_dir_all(old_home)?;
            run_ok(
                Command::new(old)
                    .args(["sessions", "import", "--global"])
                    .arg(&file)
                    .env("SEEKCLAW_HOME", old_home),
            )?;
        }
        measure("inspect --export (--baseline-bin)", &|h| {
            let i = usize::from(h != homes[0].as_path());
            page(old, &old_homes[i])
        })?;
    }
    if args.json {
        let rows: Vec<Value> = rows
            .iter()
            .map(|(name, [a, b])| {
                json!({
                    "name": name,
                    "steps": sizes,
                    "bytes": [a.bytes, b.bytes],
                    "medianMs": [ms(a.median), ms(b.median)],
                    "sizeGrowth": b.bytes as f64 / a.bytes.max(1) as f64,
                })
            })
            .collect();
        println!(
            "{}",
            json!({"bench": "export", "runs": args.runs, "rows": rows})
        );
        return Ok(());
    }
    println!(
        "inspect --export of one session, {} and {} steps ({} runs each, median):",
        sizes[0], sizes[1], args.runs
    );
    println!(
        "  {:<36} {:>12} {:>12} {:>8} {:>10} {:>10}",
        "", "bytes", "bytes", "growth", "ms", "ms"
    );
    let base = &rows[0].1[1];
    for (name, [a, b]) in &rows {
        println!(
            "  {:<36} {:>12} {:>12} {:>7.2}x {:>10.1} {:>10.1}",
            name,
            a.bytes,
            b.bytes,
            b.bytes as f64 / a.bytes.max(1) as f64,
            ms(a.median),
            ms(b.median)
        );
    }
    for (name, [_, b]) in rows.iter().skip(1) {
        println!(
            "  {name} at {} steps: {:.2}x the session file's size, {:.2}x its time",
            sizes[1],
            b.bytes as f64 / base.bytes.max(1) as f64,
            ms(b.median) / ms(base.median).max(1e-9)
        );
    }
    Ok(())
}

/// Runs `cmd` to a successful end.
fn run_ok(cmd: &mut Command) -> Result<()> {
    let done = cmd.output().context("run seekclaw")?;
    if !done.status.success() {
        bail!(
            "{cmd:?} failed: {}",
            String::from_utf8_lossy(&done.stderr).trim()
        );
    }
    Ok(())
}

/// One warm-up, then `runs` timed runs of the command `make` builds; the
/// size of the file it wrote to `out`.
fn time(make: &mut dyn FnMut() -> Command, out: &Path, runs: usize) -> Result<Measured> {
    let mut samples = Vec::with_capacity(runs);
    for i in 0..=runs {
        let mut cmd = make();
        let t = Instant::now();
        let done = cmd.output().context("run seekclaw")?;
        let took = t.elapsed();
        if !done.status.success() {
            bail!(
                "{cmd:?} failed: {}",
                String::from_utf8_lossy(&done.stderr).trim()
            );
        }
        if i > 0 {
            samples.push(took);
        }
    }
    samples.sort();
    Ok(Measured {
        bytes: std::fs::metadata(out)?.len(),
        median: samples[samples.len() / 2],
    })
}

/// The session: `steps` steps in turns of TURN_STEPS (`read_file` calls and
/// their results, then an answer and the terminal).
fn add_session(store: &Store, steps: usize) -> Result<()> {
    store.create_session(&NewSession {
        scope: SCOPE.into(),
        id: SESSION.into(),
        workspace: None,
        title: Some(format!("{steps} steps")),
        reasoning_level: "high".into(),
        network_enabled: true,
    })?;
    let prompt = "You are seekclaw, a coding agent. Work in the workspace; ".repeat(150);
    let tools: Vec<Value> = (0..16)
        .map(|i| {
            json!({"name": format!("tool_{i}"), "description": "Does one thing well. ".repeat(10),
                "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}})
        })
        .collect();
    store.record_system_prompt(
        SCOPE,
        SESSION,
        &prompt,
        Some(&Value::Array(tools).to_string()),
    )?;
    let filler =
        "fn load(path: &Path) -> Result<Config> { let text = read(path)?; parse(&text) }\n";
    let usage = Some(StepUsage {
        input_tokens: 12_000,
        cached_input_tokens: 8_000,
        output_tokens: 200,
        reasoning_tokens: 50,
        cost_nano_usd: 1_000_000,
    });
    let mut items = Vec::new();
    for step in 0..steps {
        if step % TURN_STEPS == 0 {
            items.push(EventItem::User(UserMessage {
                text: format!(
                    "turn {}: fix the configuration loader",
                    step / TURN_STEPS + 1
                ),
                images: Vec::new(),
            }));
        }
        // A turn's last step answers; the others read a file.
        if step % TURN_STEPS == TURN_STEPS - 1 || step + 1 == steps {
            let answer = "The loader now reports a typed error for every field.";
            items.push(EventItem::Assistant(AssistantMessage {
                text: answer.into(),
                model_ref: Some("tk/m1".into()),
                usage,
                ..AssistantMessage::default()
            }));
            items.push(EventItem::Terminal(TurnTerminal {
                status: TerminalStatus::Finished,
                text: answer.into(),
            }));
            continue;
        }
        let call = format!("call_{step}");
        items.push(EventItem::Assistant(AssistantMessage {
            text: format!("Reading file {step} next."),
            model_ref: Some("tk/m1".into()),
            tool_calls: vec![ToolCall {
                id: call.clone(),
                name: "read_file".into(),
                arguments_json: format!(r#"{{"path":"src/file_{step}.rs"}}"#),
            }],
            usage,
            ..AssistantMessage::default()
        }));
        items.push(EventItem::ToolResult(ToolResult {
            tool_call_id: call,
            tool_name: "read_file".into(),
            success: true,
            output: filler.repeat(25),
            summary: Some(format!("src/file_{step}.rs")),
            duration_ms: Some(3),
            ..ToolResult::default()
        }));
    }
    store.append_events(SCOPE, SESSION, None, &items)?;
    Ok(())
}
