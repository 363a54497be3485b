//! `plugins`: daemon ready time (spawn → first `pong`) with 5 plugins
//! installed, each bringing a skill, a hook and a stdio MCP server (the
//! Python SDK fixture) that connects in the background, against a home with
//! none, alternating in the same run (issue 41: "unchanged against none").
//! A third side has the same 5 servers in `config.json` and no plugins: the
//! servers' own start apart from the plugin machinery. Also reported: how
//! long after spawn the plugins' 5 servers are all connected.
//!
//! Needs the test servers: `bash scripts/install-test-servers`.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use seekclaw_testkit::mcp_servers;
use serde_json::{Value, json};

use crate::daemon::{DaemonProc, JsonlClient};
use crate::stats::{Tail, ms};

pub struct PluginsArgs<'a> {
    pub bin: &'a Path,
    pub json: bool,
    pub runs: usize,
    pub plugins: usize,
}

/// A plugin folder `name` under `dir` with a skill, a hook and the fixture server.
fn write_plugin(dir: &Path, name: &str) -> Result<std::path::PathBuf> {
    let root = dir.join(name);
    let fixture = mcp_servers::fixture_stdio()?;
    let files = [
        (
            "plugin.json".to_string(),
            json!({"name": name, "version": "1.0.0"}).to_string(),
        ),
        (
            "skills/tips/SKILL.md".to_string(),
            format!("---\nname: tips\n---\nTips from {name}."),
        ),
        (
            "hooks/hooks.json".to_string(),
            json!({"hooks": {"PreToolUse": [{"matcher": "Bash",
                "hooks": [{"type": "command", "command": "true"}]}]}})
            .to_string(),
        ),
        (
            ".mcp.json".to_string(),
            json!({"mcpServers": {"fx": {"command": fixture.command, "args": fixture.args}}})
                .to_string(),
        ),
    ];
    for (rel, text) in files {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().context("no parent")?)?;
        std::fs::write(path, text)?;
    }
    Ok(root)
}

/// `seekclaw plugin add DIR --yes` into `home`.
fn install(bin: &Path, home: &Path, dir: &Path) -> Result<()> {
    let out = Command::new(bin)
        .args(["plugin", "add"])
        .arg(dir)
        .arg("--yes")
        .env("SEEKCLAW_HOME", home)
        .current_dir(home)
        .stdin(Stdio::null())
        .output()?;
    if !out.status.success() {
        bail!("plugin add: {}", String::from_utf8_lossy(&out.stderr));
    }
    Ok(())
}

/// Until `mcp.list` shows `want` servers, all connected; the time since spawn.
fn connected(client: &mut JsonlClient, since: Instant, want: usize) -> Result<Duration> {
    loop {
        let line = client.request_line(r#"{"id":2,"method":"mcp.list"}"#)?;
        let env: Value = serde_json::from_slice(line)?;
        let rows: Value = serde_json::from_str(env["data"].as_str().unwrap_or("[]"))?;
        let rows = rows.as_array().cloned().unwrap_or_default();
        if rows.len() == want && rows.iter().all(|r| r["connected"] == true) {
            return Ok(since.elapsed());
        }
        if since.elapsed() > Duration::from_secs(60) {
            bail!("plugin servers did not connect: {rows:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

pub fn run(args: &PluginsArgs<'_>) -> Result<()> {
    let scratch = tempfile::Builder::new()
        .prefix("sc-bench-plugins-")
        .tempdir()?;
    let home = |name: &str| -> Result<std::path::PathBuf> {
        let dir = scratch.path().join(name);
        std::fs::create_dir_all(&dir)?;
        Ok(dir)
    };
    let (none, with, configured) = (
        home("home-none")?,
        home("home-plugins")?,
        home("home-config")?,
    );
    let fixture = mcp_servers::fixture_stdio()?.config();
    let mut servers = serde_json::Map::new();
    for i in 0..args.plugins {
        let dir = write_plugin(&scratch.path().join("src"), &format!("bench{i}"))?;
        install(args.bin, &with, &dir)?;
        servers.insert(format!("fx{i}"), fixture.clone());
    }
    std::fs::write(
        configured.join("config.json"),
        serde_json::to_vec_pretty(&json!({"mcp": {"servers": servers}}))?,
    )?;
    let mut ready = [Vec::new(), Vec::new(), Vec::new()];
    let mut all_connected = Vec::new();
    // Alternating, so every side sees the same machine load; each side's
    // servers are connected (then end with their daemon) before the next
    // starts, and the order rotates: the side after one whose servers are
    // still exiting is not always the same.
    let sides = [&none, &configured, &with];
    for run in 0..args.runs {
        for side in (0..3).map(|i| (i + run) % 3) {
            let dir = sides[side];
            let log = scratch.path().join(format!("side{side}-{run}.stderr"));
            let mut d = DaemonProc::spawn(args.bin, dir, &log)?;
            let since = Instant::now();
            let (answered, mut client) = d.wait_answering()?;
            ready[side].push(answered);
            if side > 0 {
                let all = connected(&mut client, since, args.plugins)?;
                if side == 2 {
                    all_connected.push(all);
                }
            }
            drop(d);
        }
    }
    // What plugins add to the daemon's start apart from their servers:
    // reading the installed state and every plugin folder, in this process.
    let reads: Vec<Duration> = (0..200)
        .map(|_| {
            let start = Instant::now();
            let installed = seekclaw_plugins::Installation::read(&with, None, false);
            std::hint::black_box(seekclaw_plugins::mcp_servers(&installed));
            start.elapsed()
        })
        .collect();
    let tail = |s: &[Duration]| Tail::of(s).context("no runs");
    let read = tail(&reads)?;
    let (n, k, w) = (tail(&ready[0])?, tail(&ready[1])?, tail(&ready[2])?);
    let c = tail(&all_connected)?;
    let ratio = ms(w.p50) / ms(n.p50).max(f64::EPSILON);
    let vs_config = ms(w.p50) / ms(k.p50).max(f64::EPSILON);
    if args.json {
        let out = json!({
            "bench": "plugins",
            "runs": args.runs,
            "plugins": args.plugins,
            "readyNoneMs": {"p50": ms(n.p50), "max": ms(n.max)},
            "readySameServersInConfigMs": {"p50": ms(k.p50), "max": ms(k.max)},
            "readyWithPluginsMs": {"p50": ms(w.p50), "max": ms(w.max)},
            "readyRatio": ratio,
            "readyRatioVsConfig": vs_config,
            "allServersConnectedMs": {"p50": ms(c.p50), "max": ms(c.max)},
            "readInstalledPluginsMs": {"p50": ms(read.p50), "max": ms(read.max)},
        });
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(());
    }
    println!(
        "daemon ready (spawn → pong), {} runs alternating:",
        args.runs
    );
    let row = |label: &str, t: &Tail, note: String| {
        println!(
            "  {label:<38} p50 {:8.1} ms  max {:8.1} ms{note}",
            ms(t.p50),
            ms(t.max)
        );
    };
    row("no plugins, no servers", &n, String::new());
    row(
        &format!("{} servers in config.json", args.plugins),
        &k,
        String::new(),
    );
    row(
        &format!("{} plugins (a server each)", args.plugins),
        &w,
        format!("  ({ratio:.2}x none, {vs_config:.2}x config)"),
    );
    println!(
        "  the plugins' {} servers all connected p50 {:8.1} ms after spawn (in the background)",
        args.plugins,
        ms(c.p50)
    );
    println!(
        "  reading the {} installed plugins (state + folders) p50 {:.3} ms (in-process, 200 reads)",
        args.plugins,
        ms(read.p50)
    );
    Ok(())
}
