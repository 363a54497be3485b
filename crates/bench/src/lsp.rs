//! `lsp`: an edit's wall time with a warm language server (pyright) against
//! the same edit with no `lsp` configured, same run (issue 40, item 3).
//!
//! Two daemons, each with its own copy of one Python file. Each turn makes
//! `edits` `edit_file` calls that alternately introduce a type error and fix
//! it (so half the results carry diagnostics); per call, `tool_start` read →
//! `tool_done` read, as a client sees it. The pyright daemon first runs one
//! warm-up turn (server start, first analysis), then turns alternate between
//! the two daemons so both see the same box.
//!
//! Needs the test servers: `bash scripts/install-test-servers`.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use seekclaw_testkit::{ProviderServer, Reply};
use serde_json::{Value, json};

use crate::daemon::{DaemonProc, JsonlClient};
use crate::stats::{Tail, ms};
use crate::turns::setup::{Scratch, config};
use crate::turns::wire::{self, Ids};

pub struct LspArgs<'a> {
    pub bin: &'a Path,
    pub json: bool,
    /// Turns per daemon (after the warm-up).
    pub turns: usize,
    /// `edit_file` calls per turn.
    pub edits: usize,
    /// A previous release's `seekclaw`, timed with no `lsp` alongside.
    pub previous: Option<&'a Path>,
}

const APP: &str = "def greet(name: str) -> str:\n    return \"hi \" + name\n\n\ncount: int = 1\n";
const EDITS: [(&str, &str); 2] = [
    ("count: int = 1", "count: int = \"one\""),
    ("count: int = \"one\"", "count: int = 1"),
];

fn pyright_langserver() -> Result<PathBuf> {
    let bin = seekclaw_testkit::pyright().map_err(anyhow::Error::msg)?;
    Ok(bin.join("pyright-langserver"))
}

struct Side {
    daemon: DaemonProc,
    client: JsonlClient,
    ids: Ids,
    workspace: String,
}

fn start(
    bin: &Path,
    scratch: &Scratch,
    name: &str,
    server: &ProviderServer,
    lsp: Option<Value>,
) -> Result<Side> {
    let home = scratch.dir().join(format!("home-{name}"));
    let work = scratch.dir().join(format!("work-{name}"));
    std::fs::create_dir_all(&home)?;
    std::fs::create_dir_all(work.join(".git"))?;
    std::fs::write(work.join("app.py"), APP)?;
    let mut cfg = config(&server.base_url(), false);
    cfg["agent"] = json!({ "maxSteps": 100_000 });
    if let Some(lsp) = lsp {
        cfg["lsp"] = lsp;
    }
    std::fs::write(home.join("config.json"), serde_json::to_vec_pretty(&cfg)?)?;
    let log = scratch.dir().join(format!("daemon-{name}.stderr"));
    let mut daemon = DaemonProc::spawn(bin, &home, &log)?;
    let (_, client) = daemon
        .wait_answering()
        .with_context(|| format!("start the {name} daemon"))?;
    Ok(Side {
        daemon,
        client,
        ids: Ids::default(),
        workspace: work.display().to_string(),
    })
}

/// One turn of `n` edits; each call's `tool_start` → `tool_done`.
fn edit_turn(side: &mut Side, server: &ProviderServer, n: usize) -> Result<Vec<Duration>> {
    for i in 0..n {
        let (old, new) = EDITS[i % 2];
        let args = json!({"path": "app.py", "old_string": old, "new_string": new});
        server.enqueue(Reply::new().tool_call(format!("e{i}"), "edit_file", args.to_string()));
    }
    server.enqueue(Reply::plain("done"));
    // An even count leaves the file as it was for the next turn.
    let id = side.ids.next();
    side.client.send(&wire::request(
        id,
        "chat",
        wire::scoped(&side.workspace, json!({"message": "edit"})),
    ))?;
    let mut out = Vec::with_capacity(n);
    let mut started: Option<Instant> = None;
    loop {
        let line = side.client.read_line()?;
        let Some((got, event)) = wire::id_and_event(line) else {
            bail!("not an envelope: {}", wire::show(line));
        };
        if got != id {
            continue;
        }
        match event {
            b"tool_start" => started = Some(Instant::now()),
            b"tool_done" => {
                let t = started.take().context("tool_done without tool_start")?;
                out.push(t.elapsed());
                let env: Value = serde_json::from_slice(line)?;
                if env["details"]["success"] != true {
                    bail!("edit failed: {env}");
                }
            }
            e if wire::is_terminal(e) => {
                if e != b"done" {
                    bail!("turn ended with {}", wire::show(line));
                }
                return Ok(out);
            }
            _ => {}
        }
    }
}

pub fn run(args: &LspArgs<'_>) -> Result<()> {
    let edits = args.edits.max(2) & !1;
    let langserver = pyright_langserver()?;
    let scratch = Scratch::new()?;
    let server = ProviderServer::start()?;
    let lsp = json!({"servers": {"pyright": {"command": [langserver, "--stdio"]}}});
    let mut none = start(args.bin, &scratch, "none", &server, None)?;
    let mut warm = start(args.bin, &scratch, "pyright", &server, Some(lsp))?;
    let mut previous = match args.previous {
        Some(bin) => Some(start(bin, &scratch, "previous", &server, None)?),
        None => None,
    };

    // Warm-up: pyright starts and analyses the file; the baseline pays its own first use too.
    let started = Instant::now();
    let first = edit_turn(&mut warm, &server, 2)?;
    let cold_turn = started.elapsed();
    edit_turn(&mut none, &server, 2)?;
    if let Some(side) = previous.as_mut() {
        edit_turn(side, &server, 2)?;
    }

    server.clear_requests();
    let (mut base, mut with, mut before) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..args.turns {
        base.extend(edit_turn(&mut none, &server, edits)?);
        with.extend(edit_turn(&mut warm, &server, edits)?);
        if let Some(side) = previous.as_mut() {
            before.extend(edit_turn(side, &server, edits)?);
        }
    }
    let before = Tail::of(&before);
    // The results the model got back that carried diagnostics (only the pyright side's can).
    let reported = server
        .requests()
        .iter()
        .filter(|r| {
            r.body["messages"]
                .as_array()
                .and_then(|m| m.last())
                .and_then(|m| m["content"].as_str())
                .is_some_and(|c| c.contains("Diagnostics after this edit (pyright)"))
        })
        .count();
    let (base, with) = (
        Tail::of(&base).context("no samples")?,
        Tail::of(&with).context("no samples")?,
    );
    let Side { daemon, client, .. } = none;
    drop(client);
    daemon.shutdown()?;
    let Side { daemon, client, .. } = warm;
    drop(client);
    daemon.shutdown()?;
    if let Some(Side { daemon, client, .. }) = previous {
        drop(client);
        daemon.shutdown()?;
    }

    let report = json!({
        "edit_ms": {
            "no_lsp": {"p50": ms(base.p50), "p99": ms(base.p99), "n": base.n},
            "warm_pyright": {"p50": ms(with.p50), "p99": ms(with.p99), "n": with.n},
            "added_p50": ms(with.p50) - ms(base.p50),
            "previous_no_lsp": before.as_ref().map(|b| json!({"p50": ms(b.p50), "p99": ms(b.p99), "n": b.n})),
        },
        "first_edit_cold_ms": first.first().map(|d| ms(*d)),
        "warm_up_turn_ms": ms(cold_turn),
        "results_with_diagnostics": reported,
    });
    if args.json {
        println!("{report}");
        return Ok(());
    }
    println!(
        "Diagnostics after an edit (pyright, {edits} edits per turn, every other one introduces an error)"
    );
    println!(
        "  edit, no lsp          p50 {:.3} ms  p99 {:.3} ms  (n={})",
        ms(base.p50),
        ms(base.p99),
        base.n
    );
    println!(
        "  edit, warm pyright    p50 {:.3} ms  p99 {:.3} ms  (n={}, {reported} with diagnostics)",
        ms(with.p50),
        ms(with.p99),
        with.n
    );
    println!("  added p50 {:+.3} ms", ms(with.p50) - ms(base.p50));
    if let Some(b) = &before {
        println!(
            "  edit, previous release, no lsp  p50 {:.3} ms  p99 {:.3} ms  (n={})",
            ms(b.p50),
            ms(b.p99),
            b.n
        );
    }
    if let Some(d) = first.first() {
        println!(
            "  first edit (pyright cold: start + first analysis) {:.0} ms",
            ms(*d)
        );
    }
    Ok(())
}
