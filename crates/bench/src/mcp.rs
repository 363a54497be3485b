//! `mcp`: the MCP figures (issue 6), each against a baseline from the same run.
//!
//! - accept: fresh connect + ping round trips on a daemon with three stdio MCP
//!   servers configured, while they connect and once connected, against a daemon
//!   with none;
//! - first event: `chat` → first envelope with the three servers connected,
//!   against the daemon with none;
//! - call overhead: a turn's MCP tool call as the client sees it (`tool_start` →
//!   `tool_done`) against calling the same server directly with the same client
//!   library (rmcp) from this process.
//!
//! Needs the test servers: `bash scripts/install-test-servers`.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use seekclaw_mcp::{Connection, ServerSpec, Transport};
use seekclaw_testkit::mcp_servers;
use seekclaw_testkit::{ProviderServer, Reply};
use serde_json::{Value, json};

use crate::daemon::{DaemonProc, JsonlClient};
use crate::stats::{Tail, ms};
use crate::turns::setup::{Scratch, config};
use crate::turns::wire::{self, Ids};

const TARGET_FIRST_EVENT_MS: f64 = 10.0;
const TARGET_CALL_OVERHEAD_MS: f64 = 2.0;

pub struct McpArgs<'a> {
    pub bin: &'a Path,
    pub json: bool,
    /// Fresh connections timed per phase.
    pub accepts: usize,
    pub first_events: usize,
    pub calls: usize,
}

/// Three stdio servers: two `server-everything` (Node) and the Python fixture.
fn three_servers() -> Result<Value> {
    let everything = mcp_servers::everything_stdio()?.config();
    Ok(json!({
        "everything": everything,
        "everything2": everything,
        "fixture": mcp_servers::fixture_stdio()?.config(),
    }))
}

/// A daemon whose config has the testkit provider and `servers`.
fn start(
    bin: &Path,
    scratch: &Scratch,
    name: &str,
    server: &ProviderServer,
    servers: Value,
) -> Result<(DaemonProc, JsonlClient)> {
    let home = scratch.dir().join(format!("home-{name}"));
    std::fs::create_dir_all(&home)?;
    let mut cfg = config(&server.base_url(), false);
    cfg["mcp"] = json!({ "servers": servers });
    // The call-overhead turn makes one MCP call per step.
    cfg["agent"] = json!({ "maxSteps": 100_000 });
    std::fs::write(home.join("config.json"), serde_json::to_vec_pretty(&cfg)?)?;
    let log = scratch.dir().join(format!("daemon-{name}.stderr"));
    let mut daemon = DaemonProc::spawn(bin, &home, &log)?;
    let (_, client) = daemon
        .wait_answering()
        .with_context(|| format!("start the {name} daemon"))?;
    Ok((daemon, client))
}

/// `n` fresh connections, each connect + one ping.
fn accepts(socket: &Path, n: usize) -> Result<Vec<Duration>> {
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let start = Instant::now();
        let mut c = JsonlClient::connect(socket)?;
        let answer = c.request_line(r#"{"id":1,"method":"ping"}"#)?;
        out.push(start.elapsed());
        if !String::from_utf8_lossy(answer).contains("pong") {
            bail!("no pong: {}", String::from_utf8_lossy(answer));
        }
    }
    Ok(out)
}

/// Opens `workspace` and waits until every MCP server there is connected.
fn open_and_wait(client: &mut JsonlClient, ids: &mut Ids, workspace: &str) -> Result<Duration> {
    let start = Instant::now();
    wire::call(client, ids, "workspace.open", json!({"path": workspace}))?;
    loop {
        let env = wire::call(client, ids, "mcp.list", json!({}))?;
        let rows: Value = serde_json::from_str(env["data"].as_str().unwrap_or("[]"))?;
        let rows = rows.as_array().cloned().unwrap_or_default();
        if !rows.is_empty() && rows.iter().all(|r| r["connected"] == true) {
            return Ok(start.elapsed());
        }
        if start.elapsed() > Duration::from_secs(60) {
            bail!("MCP servers did not connect: {rows:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// `chat` → first envelope (which must be the turn's `workflow start`), then to `done`.
fn first_events(
    client: &mut JsonlClient,
    ids: &mut Ids,
    workspace: &str,
    n: usize,
) -> Result<Vec<Duration>> {
    let sid = wire::new_session(client, ids, workspace)?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let id = ids.next();
        let line = wire::request(
            id,
            "chat",
            wire::scoped(workspace, json!({"message": "hi", "sessionId": sid})),
        );
        let start = Instant::now();
        client.send(&line)?;
        let first = client.read_line()?;
        out.push(start.elapsed());
        if wire::event_name(first) != Some(b"workflow".as_slice()) {
            bail!("first envelope is not workflow: {}", wire::show(first));
        }
        wait_terminal(client, id)?;
    }
    Ok(out)
}

fn wait_terminal(client: &mut JsonlClient, id: u64) -> Result<()> {
    loop {
        let line = client.read_line()?;
        match wire::id_and_event(line) {
            Some((got, event)) if got == id && wire::is_terminal(event) => {
                if event != b"done" {
                    bail!("turn ended with {}", wire::show(line));
                }
                return Ok(());
            }
            Some(_) => {}
            None => bail!("not an envelope: {}", wire::show(line)),
        }
    }
}

/// One turn calling `mcp__everything__echo` `n` times (one call per step):
/// per call, `tool_start` read → `tool_done` read.
fn daemon_calls(
    client: &mut JsonlClient,
    ids: &mut Ids,
    server: &ProviderServer,
    workspace: &str,
    n: usize,
) -> Result<Vec<Duration>> {
    for i in 0..n {
        server.enqueue(Reply::new().tool_call(
            format!("e{i}"),
            "mcp__everything__echo",
            r#"{"message":"bench"}"#,
        ));
    }
    server.enqueue(Reply::plain("done"));
    let id = ids.next();
    client.send(&wire::request(
        id,
        "chat",
        wire::scoped(workspace, json!({"message": "echo"})),
    ))?;
    let mut out = Vec::with_capacity(n);
    let mut started: Option<Instant> = None;
    loop {
        let line = client.read_line()?;
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
                    bail!("MCP call failed: {env}");
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

/// The same server called directly from this process with rmcp.
fn direct_calls(workspace: &str, n: usize) -> Result<Vec<Duration>> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    rt.block_on(async {
        let cmd = mcp_servers::everything_stdio()?;
        let spec = ServerSpec {
            name: "everything".into(),
            transport: Transport::Stdio {
                command: cmd.command,
                args: cmd.args,
                env: Default::default(),
            },
            cwd: workspace.into(),
        };
        let conn = Connection::open(&spec, Duration::from_secs(60)).await?;
        let caller = conn.caller();
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            let mut args = serde_json::Map::new();
            args.insert("message".into(), json!("bench"));
            let start = Instant::now();
            caller.call("echo", args).await?;
            out.push(start.elapsed());
        }
        conn.stop();
        Ok(out)
    })
}

fn tail(samples: &[Duration]) -> Result<Tail> {
    Tail::of(samples).context("no samples")
}

pub fn run(args: &McpArgs<'_>) -> Result<()> {
    let scratch = Scratch::new()?;
    let ws = scratch.workspace().to_string();
    let server = ProviderServer::start()?;
    server.set_default(Reply::plain("ok"));

    // Baseline: no MCP servers.
    let (none, mut c0) = start(args.bin, &scratch, "none", &server, json!({}))?;
    let mut ids0 = Ids::default();
    // Warm-up, so the baseline is not paying for first-use costs the other side skips.
    accepts(&none.socket, args.accepts)?;
    let accept_none = tail(&accepts(&none.socket, args.accepts)?)?;
    let first_none = tail(&first_events(&mut c0, &mut ids0, &ws, args.first_events)?)?;

    // Three stdio servers: accepts while they connect, then once connected.
    let (three, mut c3) = start(args.bin, &scratch, "three", &server, three_servers()?)?;
    let accept_connecting = tail(&accepts(&three.socket, args.accepts)?)?;
    let mut ids3 = Ids::default();
    let connected_after = open_and_wait(&mut c3, &mut ids3, &ws)?;
    // Connected: alternate with the baseline daemon so both see the same box.
    let (mut none_again, mut connected) = (Vec::new(), Vec::new());
    for _ in 0..10 {
        none_again.extend(accepts(&none.socket, args.accepts.div_ceil(10))?);
        connected.extend(accepts(&three.socket, args.accepts.div_ceil(10))?);
    }
    let accept_none_alt = tail(&none_again)?;
    let accept_connected = tail(&connected)?;
    let first_three = tail(&first_events(&mut c3, &mut ids3, &ws, args.first_events)?)?;

    // Call overhead: daemon turn vs direct rmcp, the direct side measured twice
    // (before and after) so drift on the box shows.
    let direct_before = direct_calls(&ws, args.calls)?;
    let via_daemon = tail(&daemon_calls(&mut c3, &mut ids3, &server, &ws, args.calls)?)?;
    let direct_after = direct_calls(&ws, args.calls)?;
    let direct = tail(&[direct_before, direct_after].concat())?;
    let overhead = ms(via_daemon.p50) - ms(direct.p50);
    drop((c0, c3));
    none.shutdown()?;
    three.shutdown()?;

    let report = json!({
        "accept_ms": {
            "none": {"p50": ms(accept_none.p50), "p99": ms(accept_none.p99)},
            "three_connecting": {"p50": ms(accept_connecting.p50), "p99": ms(accept_connecting.p99)},
            "none_alternating": {"p50": ms(accept_none_alt.p50), "p99": ms(accept_none_alt.p99)},
            "three_connected": {"p50": ms(accept_connected.p50), "p99": ms(accept_connected.p99)},
        },
        "servers_connected_after_ms": ms(connected_after),
        "first_event_ms": {
            "none": {"p50": ms(first_none.p50), "p99": ms(first_none.p99)},
            "three": {"p50": ms(first_three.p50), "p99": ms(first_three.p99), "target": TARGET_FIRST_EVENT_MS},
        },
        "mcp_call_ms": {
            "daemon": {"p50": ms(via_daemon.p50), "p99": ms(via_daemon.p99)},
            "direct": {"p50": ms(direct.p50), "p99": ms(direct.p99)},
            "overhead_p50": overhead,
            "target": TARGET_CALL_OVERHEAD_MS,
        },
    });
    if args.json {
        println!("{report}");
        return Ok(());
    }
    println!("MCP (3 stdio servers: 2× server-everything, 1× Python fixture)");
    println!(
        "  accept+ping, none        p50 {:.3} ms  p99 {:.3} ms  (n={})",
        ms(accept_none.p50),
        ms(accept_none.p99),
        accept_none.n
    );
    println!(
        "  accept+ping, connecting  p50 {:.3} ms  p99 {:.3} ms  ({:.2}× none)",
        ms(accept_connecting.p50),
        ms(accept_connecting.p99),
        ms(accept_connecting.p50) / ms(accept_none.p50)
    );
    println!(
        "  accept+ping, none (alt.) p50 {:.3} ms  p99 {:.3} ms  (alternating with the next line)",
        ms(accept_none_alt.p50),
        ms(accept_none_alt.p99)
    );
    println!(
        "  accept+ping, connected   p50 {:.3} ms  p99 {:.3} ms  ({:.2}× none alt.)",
        ms(accept_connected.p50),
        ms(accept_connected.p99),
        ms(accept_connected.p50) / ms(accept_none_alt.p50)
    );
    println!(
        "  servers connected {:.0} ms after workspace.open",
        ms(connected_after)
    );
    println!(
        "  first event, none        p50 {:.3} ms  p99 {:.3} ms",
        ms(first_none.p50),
        ms(first_none.p99)
    );
    println!(
        "  first event, 3 servers   p50 {:.3} ms  p99 {:.3} ms  (target < {TARGET_FIRST_EVENT_MS} ms)",
        ms(first_three.p50),
        ms(first_three.p99)
    );
    println!(
        "  echo call, daemon turn   p50 {:.3} ms  p99 {:.3} ms  (n={})",
        ms(via_daemon.p50),
        ms(via_daemon.p99),
        via_daemon.n
    );
    println!(
        "  echo call, direct rmcp   p50 {:.3} ms  p99 {:.3} ms  (n={})",
        ms(direct.p50),
        ms(direct.p99),
        direct.n
    );
    println!("  overhead p50 {overhead:+.3} ms (target < {TARGET_CALL_OVERHEAD_MS} ms)");
    Ok(())
}
