//! `hooks`: what the user's policy costs, in process against the testkit's
//! real HTTP provider (issue 39). Baseline in the same run: the same turn
//! (five `read_file` steps, then an answer) on an engine with no hooks,
//! interleaved with turns on one whose `PreToolUse` hook (`true`) runs on
//! every tool; the difference over five calls is the overhead per call.
//! Also: deciding a compound command against a 100-rule set, and reading
//! the policy files at a turn's start.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use seekclaw_agent::{Approvals, TurnOutcome};
use seekclaw_config::Home;
use seekclaw_engine::{
    Engine, Scope, SessionTarget, TurnControls, TurnOrigin, TurnOverrides, TurnRequest,
};
use seekclaw_policy::{Call, Layer, Policy, Verdict};
use seekclaw_testkit::{ProviderServer, Reply};
use serde_json::{Value, json};

use crate::stats::{Timings, ms};

pub struct HooksArgs {
    pub turns: usize,
    pub json: bool,
}

/// Tool calls per measured turn.
const CALLS: usize = 5;

pub fn run(args: &HooksArgs) -> Result<()> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    rt.block_on(measure(args))
}

async fn measure(args: &HooksArgs) -> Result<()> {
    let dir = tempfile::tempdir()?;
    let server = ProviderServer::start()?;
    let plain = engine(dir.path(), "plain", &server, Value::Null).await?;
    let hooked = engine(
        dir.path(),
        "hooked",
        &server,
        json!({"PreToolUse": [{"hooks": [{"type": "command", "command": "true"}]}]}),
    )
    .await?;
    let (mut base, mut with) = (Vec::new(), Vec::new());
    for round in 0..args.turns + 2 {
        let a = turn(&plain, &server).await?;
        let b = turn(&hooked, &server).await?;
        if round >= 2 {
            base.push(a);
            with.push(b);
        }
    }
    let base = Timings::of(&base).context("no samples")?;
    let with = Timings::of(&with).context("no samples")?;
    let per_call = (ms(with.median) - ms(base.median)) / CALLS as f64;
    let (rules, decide) = decide_cost(dir.path())?;
    let (load, check) = load_cost(dir.path())?;
    if args.json {
        println!(
            "{}",
            json!({
                "turn_no_hooks_ms": ms(base.median),
                "turn_pretooluse_true_ms": ms(with.median),
                "overhead_per_tool_call_ms": per_call,
                "rules": rules.len(),
                "decide_compound_us": decide.as_secs_f64() * 1e6,
                "policy_load_us": load.as_secs_f64() * 1e6,
                "policy_unchanged_check_us": check.as_secs_f64() * 1e6,
            })
        );
        return Ok(());
    }
    println!(
        "turn ({CALLS} read_file calls), median of {}: no hooks {:.2} ms, PreToolUse `true` on every tool {:.2} ms",
        args.turns,
        ms(base.median),
        ms(with.median)
    );
    println!("  hook overhead per tool call: {per_call:.2} ms (target < 3 ms)");
    println!(
        "rules: deciding a compound command against {} rules: {:.1} µs (target < 50 µs)",
        rules.len(),
        decide.as_secs_f64() * 1e6
    );
    println!(
        "policy: read and compiled from its files {:.0} µs (once per change); a turn's check that none changed {:.1} µs",
        load.as_secs_f64() * 1e6,
        check.as_secs_f64() * 1e6
    );
    Ok(())
}

async fn engine(root: &Path, name: &str, server: &ProviderServer, hooks: Value) -> Result<Engine> {
    let home = Home::at(root.join(name).join("home"));
    home.ensure()?;
    let work = root.join(name).join("work");
    std::fs::create_dir_all(&work)?;
    std::fs::write(work.join("a.txt"), "alpha\n")?;
    let mut config = json!({
        "providers": [{
            "id": "tk", "kind": "openai", "baseUrl": server.base_url(), "apiKey": "sk-tk",
            "models": [{"id": "m1", "contextWindow": 128000, "maxOutput": 4096}]
        }],
        "agent": {"autoVerify": false},
        "checkpoints": {"enabled": false},
    });
    if !hooks.is_null() {
        config["hooks"] = hooks;
    }
    std::fs::write(home.config_path(), config.to_string())?;
    Ok(Engine::open(home).await?)
}

/// One turn of [`CALLS`] one-call steps and an answer; its wall time.
async fn turn(engine: &Engine, server: &ProviderServer) -> Result<Duration> {
    for i in 0..CALLS {
        server.enqueue(Reply::new().tool_call(
            format!("c{i}"),
            "read_file",
            json!({"path": "a.txt"}).to_string(),
        ));
    }
    server.enqueue(Reply::plain("done"));
    let work = engine.home.root().parent().context("home")?.join("work");
    let request = TurnRequest {
        scope: Scope::of_root(&work),
        session: SessionTarget::New { id: None },
        message: "read".into(),
        images: Vec::new(),
        reasoning: None,
        overrides: TurnOverrides::default(),
        controls: TurnControls::new(Approvals::default()),
        origin: TurnOrigin::new("bench"),
    };
    let started = Instant::now();
    let outcome = engine.start_turn(request).await?.outcome().await;
    let took = started.elapsed();
    anyhow::ensure!(matches!(outcome, TurnOutcome::Done(_)), "turn: {outcome:?}");
    Ok(took)
}

/// 100 rules of every kind, written to a user config; the median time to
/// decide one compound command against them.
fn decide_cost(root: &Path) -> Result<(Vec<String>, Duration)> {
    let mut rules = Vec::new();
    for i in 0..40 {
        rules.push(format!("Bash(tool{i} run:*)"));
    }
    for i in 0..20 {
        rules.push(format!("Read(./data{i}/**)"));
        rules.push(format!("Edit(src/mod{i}/**)"));
    }
    for i in 0..10 {
        rules.push(format!("WebFetch(domain:site{i}.example)"));
        rules.push(format!("mcp__server{i}__*"));
    }
    let home = Home::at(root.join("rules").join("home"));
    home.ensure()?;
    let (allow, deny) = rules.split_at(90);
    let mut allow = allow.to_vec();
    allow.extend([
        "Bash(npm test:*)".to_string(),
        "Bash(git diff:*)".into(),
        "Bash(cat:*)".into(),
    ]);
    std::fs::write(
        home.config_path(),
        json!({"permissions": {"allow": allow, "deny": deny}}).to_string(),
    )?;
    let cwd = root.join("rules");
    let policy = Policy::load(&seekclaw_policy::Scope {
        home: &home,
        workspace: Some(&cwd),
        cwd: &cwd,
        trusted: true,
    });
    anyhow::ensure!(policy.problems.is_empty(), "{:?}", policy.problems);
    let args =
        json!({"command": "npm test -- --ci && git diff HEAD~1 | cat src/main.rs > out.txt"});
    let call = Call {
        tool: "bash",
        args: &args,
        cwd: &cwd,
        workspace: Some(&cwd),
    };
    let decided = policy
        .rules
        .decide(&call)
        .map(|m| (m.verdict, m.rule.layer));
    anyhow::ensure!(
        decided == Some((Verdict::Allow, Layer::User)),
        "{decided:?}"
    );
    let mut samples = Vec::new();
    for _ in 0..200 {
        let started = Instant::now();
        for _ in 0..100 {
            std::hint::black_box(policy.rules.decide(&call));
        }
        samples.push(started.elapsed() / 100);
    }
    let all: Vec<String> = allow.into_iter().chain(deny.iter().cloned()).collect();
    Ok((all, Timings::of(&samples).context("no samples")?.median))
}

/// Reading the policy from its files (the user config with the rules, a
/// workspace config, the managed file's absence), and what a turn pays when
/// none changed: a stat of each (the engine keeps what it compiled).
fn load_cost(root: &Path) -> Result<(Duration, Duration)> {
    let home = Home::at(root.join("rules").join("home"));
    let cwd = root.join("rules");
    let scope = seekclaw_policy::Scope {
        home: &home,
        workspace: Some(&cwd),
        cwd: &cwd,
        trusted: true,
    };
    let (mut load, mut check) = (Vec::new(), Vec::new());
    for _ in 0..100 {
        let started = Instant::now();
        std::hint::black_box(Policy::load(&scope));
        load.push(started.elapsed());
        let started = Instant::now();
        for f in seekclaw_policy::source_files(&scope) {
            std::hint::black_box(std::fs::metadata(f).ok());
        }
        check.push(started.elapsed());
    }
    Ok((
        Timings::of(&load).context("no samples")?.median,
        Timings::of(&check).context("no samples")?.median,
    ))
}
