//! `acp`: `seekclaw acp` as an editor sees it (issue 29's targets).
//!
//! - `initialize` answered, from spawn (target < 20 ms);
//! - a trivial prompt's first `session/update` after the provider's first
//!   token (target < 5 ms): the provider is a minimal SSE server in this
//!   process that notes when it flushed the token, the agent's stdout is
//!   read on a thread that stamps each line, on the same clock;
//! - RSS of the idle agent after `initialize` + `session/new`, and after the
//!   prompts (target < 20 MB);
//! - the same through a running daemon (`seekclaw acp` then relays);
//! - with `--opencode BIN` (`BIN acp`) and `--codex-acp BIN` (`BIN`), the
//!   same `initialize` and idle RSS for those agents in the same run (RSS
//!   counts their child processes).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};

use crate::daemon::status_kb;
use crate::stats::{Timings, ms};

const TARGET_INIT_MS: f64 = 20.0;
const TARGET_FIRST_UPDATE_MS: f64 = 5.0;
const TARGET_RSS_MB: f64 = 20.0;

pub struct AcpArgs<'a> {
    pub bin: &'a Path,
    pub runs: usize,
    /// Other ACP agents measured in the same run.
    pub peers: Vec<Peer>,
    pub json: bool,
}

/// Another ACP agent: how it is started.
pub struct Peer {
    pub label: &'static str,
    pub bin: PathBuf,
    pub args: Vec<&'static str>,
}

/// A peer's figures.
struct PeerFigures {
    label: &'static str,
    init: Vec<Duration>,
    idle_rss_kb: u64,
}

pub fn run(args: &AcpArgs<'_>) -> Result<()> {
    if args.runs == 0 {
        bail!("--runs must be at least 1");
    }
    // The agents run in other directories.
    let bin = std::path::absolute(args.bin)?;
    let scratch = tempfile::Builder::new().prefix("sc-bench-acp-").tempdir()?;
    let (home, ws) = (scratch.path().join("home"), scratch.path().join("ws"));
    std::fs::create_dir_all(&home)?;
    std::fs::create_dir_all(&ws)?;
    let provider = TokenServer::start()?;
    let config = json!({"agent": {"maxRepairAttempts": 0}, "providers": [{"id": "tk", "kind": "openai", "baseUrl": provider.url, "models": [{"id": "m1", "contextWindow": 100000}]}]});
    std::fs::write(home.join("config.json"), config.to_string())?;
    let env = [("SEEKCLAW_HOME", home.as_os_str())];
    eprintln!("measuring initialize from spawn ...");
    let mut ours = Vec::new();
    let mut theirs: Vec<PeerFigures> = args
        .peers
        .iter()
        .map(|p| PeerFigures {
            label: p.label,
            init: Vec::new(),
            idle_rss_kb: 0,
        })
        .collect();
    // Each peer gets its own empty HOME (no login, no config of ours).
    let peer_home = |i: usize| scratch.path().join(format!("peer-home-{i}"));
    for _ in 0..args.runs {
        ours.push(initialize_from_spawn(bin.as_os_str(), &["acp"], &env)?);
        for (i, peer) in args.peers.iter().enumerate() {
            let home = peer_home(i);
            std::fs::create_dir_all(&home)?;
            let bin = std::path::absolute(&peer.bin)?;
            let env = [("HOME", home.as_os_str())];
            theirs[i]
                .init
                .push(initialize_from_spawn(bin.as_os_str(), &peer.args, &env)?);
        }
    }
    eprintln!("measuring first session/update after the first token ...");
    let live = first_updates(&bin, &env, &ws, &provider, args.runs)?;
    let relayed = through_daemon(&bin, &home, &ws, &provider, args.runs)?;
    for (i, peer) in args.peers.iter().enumerate() {
        let home = peer_home(i);
        let bin = std::path::absolute(&peer.bin)?;
        theirs[i].idle_rss_kb = idle_rss_kb(&bin, &peer.args, &[("HOME", home.as_os_str())], &ws)?;
    }
    if args.json {
        let mut out = report_json(&ours, &theirs, &live)?;
        out["through_daemon"] = relayed_json(&relayed)?;
        println!("{out}");
        return Ok(());
    }
    report(args, &ours, &theirs, &live)?;
    report_relayed(&relayed)
}

/// The same figures with a daemon running on the home: `seekclaw acp` then
/// relays the editor's connection to it (`connection.upgrade`).
struct Relayed {
    init: Vec<Duration>,
    live: Live,
}

fn through_daemon(
    bin: &Path,
    home: &Path,
    ws: &Path,
    provider: &TokenServer,
    runs: usize,
) -> Result<Relayed> {
    eprintln!("measuring the same through a running daemon ...");
    let mut daemon = Command::new(bin)
        .arg("daemon")
        .env("SEEKCLAW_HOME", home)
        .current_dir(home)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .context("spawn the daemon")?;
    let measured = (|| -> Result<Relayed> {
        let socket = home.join("daemon.sock");
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::os::unix::net::UnixStream::connect(&socket).is_err() {
            if Instant::now() > deadline {
                bail!("the daemon did not listen within 10 s");
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let env = [("SEEKCLAW_HOME", home.as_os_str())];
        let mut init = Vec::new();
        for _ in 0..runs {
            init.push(initialize_from_spawn(bin.as_os_str(), &["acp"], &env)?);
        }
        let live = first_updates(bin, &env, ws, provider, runs)?;
        Ok(Relayed { init, live })
    })();
    // Our own child, by pid.
    let _ = daemon.kill();
    let _ = daemon.wait();
    measured
}

fn relayed_json(relayed: &Relayed) -> Result<Value> {
    let init = Timings::of(&relayed.init).context("no samples")?;
    let first = Timings::of(&relayed.live.first_update).context("no samples")?;
    Ok(json!({
        "initialize_ms": {"median": ms(init.median), "p95": ms(init.p95), "max": ms(init.max)},
        "first_update_after_token_ms": {"median": ms(first.median), "p95": ms(first.p95), "max": ms(first.max)},
        "relay_idle_rss_mb": relayed.live.idle_rss_kb as f64 / 1024.0,
    }))
}

fn report_relayed(relayed: &Relayed) -> Result<()> {
    let init = Timings::of(&relayed.init).context("no samples")?;
    let first = Timings::of(&relayed.live.first_update).context("no samples")?;
    let mb = |kb: u64| kb as f64 / 1024.0;
    println!("seekclaw acp through a running daemon (same run)");
    print_latencies(&init, &first);
    println!(
        "  RSS of the relay, idle     {:7.1} MB   (the daemon's own is shared by every client)",
        mb(relayed.live.idle_rss_kb)
    );
    Ok(())
}

/// The two latency lines, against their targets.
fn print_latencies(init: &Timings, first: &Timings) {
    println!(
        "  initialize from spawn      med {:7.2} ms  p95 {:7.2} ms  max {:7.2} ms   (target < {TARGET_INIT_MS} ms)",
        ms(init.median),
        ms(init.p95),
        ms(init.max)
    );
    println!(
        "  first update after token   med {:7.3} ms  p95 {:7.3} ms  max {:7.3} ms   (target < {TARGET_FIRST_UPDATE_MS} ms)",
        ms(first.median),
        ms(first.p95),
        ms(first.max)
    );
}

struct Live {
    first_update: Vec<Duration>,
    idle_rss_kb: u64,
    after_prompts_rss_kb: u64,
}

fn report_json(ours: &[Duration], theirs: &[PeerFigures], live: &Live) -> Result<Value> {
    let init = Timings::of(ours).context("no samples")?;
    let first = Timings::of(&live.first_update).context("no samples")?;
    let mb = |kb: u64| kb as f64 / 1024.0;
    let peers: serde_json::Map<String, Value> = theirs
        .iter()
        .filter_map(|p| {
            let t = Timings::of(&p.init)?;
            Some((
                p.label.to_string(),
                json!({"initialize_ms": {"median": ms(t.median), "p95": ms(t.p95)}, "idle_rss_mb": mb(p.idle_rss_kb)}),
            ))
        })
        .collect();
    Ok(json!({
        "initialize_ms": {"median": ms(init.median), "p95": ms(init.p95), "max": ms(init.max)},
        "first_update_after_token_ms": {"median": ms(first.median), "p95": ms(first.p95), "max": ms(first.max)},
        "idle_rss_mb": mb(live.idle_rss_kb),
        "rss_after_prompts_mb": mb(live.after_prompts_rss_kb),
        "peers": peers,
    }))
}

fn report(
    args: &AcpArgs<'_>,
    ours: &[Duration],
    theirs: &[PeerFigures],
    live: &Live,
) -> Result<()> {
    let init = Timings::of(ours).context("no samples")?;
    let first = Timings::of(&live.first_update).context("no samples")?;
    let mb = |kb: u64| kb as f64 / 1024.0;
    println!("seekclaw acp ({} runs)", args.runs);
    print_latencies(&init, &first);
    println!(
        "  RSS idle                   {:7.1} MB   after {} prompts {:7.1} MB   (target < {TARGET_RSS_MB} MB)",
        mb(live.idle_rss_kb),
        args.runs,
        mb(live.after_prompts_rss_kb)
    );
    for peer in theirs {
        let Some(t) = Timings::of(&peer.init) else {
            continue;
        };
        println!("{} (same run)", peer.label);
        println!(
            "  initialize from spawn      med {:7.2} ms  p95 {:7.2} ms  max {:7.2} ms",
            ms(t.median),
            ms(t.p95),
            ms(t.max)
        );
        println!(
            "  RSS idle (with children)   {:7.1} MB",
            mb(peer.idle_rss_kb)
        );
    }
    Ok(())
}

/// An ACP agent process with a stamped line reader.
struct Agent {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<(Instant, Value)>,
    next_id: u64,
}

impl Agent {
    fn spawn(
        bin: &std::ffi::OsStr,
        args: &[&str],
        env: &[(&str, &std::ffi::OsStr)],
        cwd: &Path,
    ) -> Result<Agent> {
        let mut cmd = Command::new(bin);
        cmd.args(args)
            .current_dir(cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd
            .spawn()
            .with_context(|| format!("spawn {bin:?} {args:?}"))?;
        let stdin = child.stdin.take().context("stdin")?;
        let stdout = child.stdout.take().context("stdout")?;
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                let at = Instant::now();
                // Some agents log to stdout before speaking JSON-RPC.
                let Ok(v) = serde_json::from_str::<Value>(&line) else {
                    continue;
                };
                if tx.send((at, v)).is_err() {
                    return;
                }
            }
        });
        Ok(Agent {
            child,
            stdin,
            lines,
            next_id: 0,
        })
    }

    fn request(&mut self, method: &str, params: Value) -> Result<u64> {
        self.next_id += 1;
        let line =
            json!({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params});
        writeln!(self.stdin, "{line}")?;
        self.stdin.flush()?;
        Ok(self.next_id)
    }

    /// Lines up to the answer to `id` (or one `pred` picks), with when it was read.
    fn until(&self, mut pred: impl FnMut(&Value) -> bool) -> Result<(Instant, Value)> {
        loop {
            let (at, v) = self
                .lines
                .recv_timeout(Duration::from_secs(60))
                .context("the agent went quiet for 60 s")?;
            if v.get("error").is_some() {
                bail!("agent error: {v}");
            }
            if pred(&v) {
                return Ok((at, v));
            }
        }
    }

    fn answer(&self, id: u64) -> Result<Value> {
        Ok(self
            .until(|v| v["id"] == id && v.get("method").is_none())?
            .1)
    }
}

impl Drop for Agent {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn initialize_from_spawn(
    bin: &std::ffi::OsStr,
    args: &[&str],
    env: &[(&str, &std::ffi::OsStr)],
) -> Result<Duration> {
    let start = Instant::now();
    let mut agent = Agent::spawn(bin, args, env, Path::new("/"))?;
    let id = agent.request(
        "initialize",
        json!({"protocolVersion": 1, "clientCapabilities": {}}),
    )?;
    let (at, v) = agent.until(|v| v["id"] == id)?;
    if v["result"]["protocolVersion"] != 1 {
        bail!("unexpected initialize answer: {v}");
    }
    Ok(at - start)
}

fn first_updates(
    bin: &Path,
    env: &[(&str, &std::ffi::OsStr)],
    ws: &Path,
    provider: &TokenServer,
    runs: usize,
) -> Result<Live> {
    let mut agent = Agent::spawn(bin.as_os_str(), &["acp"], env, ws)?;
    let id = agent.request(
        "initialize",
        json!({"protocolVersion": 1, "clientCapabilities": {}}),
    )?;
    agent.answer(id)?;
    let id = agent.request("session/new", json!({"cwd": ws, "mcpServers": []}))?;
    let sid = agent.answer(id)?["result"]["sessionId"]
        .as_str()
        .context("no sessionId")?
        .to_string();
    std::thread::sleep(Duration::from_secs(1));
    let idle_rss_kb = tree_rss_kb(agent.child.id());
    // The provider may have served an earlier measurement of the same run.
    let before = provider.tokens_sent();
    let mut first_update = Vec::new();
    for i in 0..runs {
        let id = agent.request(
            "session/prompt",
            json!({"sessionId": sid, "prompt": [{"type": "text", "text": "say hi"}]}),
        )?;
        let (at, _) =
            agent.until(|v| v["params"]["update"]["sessionUpdate"] == "agent_message_chunk")?;
        let answer = agent.answer(id)?;
        if answer["result"]["stopReason"] != "end_turn" {
            bail!("prompt {i} ended {answer}");
        }
        let token = provider
            .token_at(before + i)
            .context("the provider sent no token")?;
        first_update.push(at.saturating_duration_since(token));
    }
    std::thread::sleep(Duration::from_millis(500));
    Ok(Live {
        first_update,
        idle_rss_kb,
        after_prompts_rss_kb: tree_rss_kb(agent.child.id()),
    })
}

fn idle_rss_kb(
    bin: &Path,
    args: &[&str],
    env: &[(&str, &std::ffi::OsStr)],
    ws: &Path,
) -> Result<u64> {
    let mut agent = Agent::spawn(bin.as_os_str(), args, env, ws)?;
    let id = agent.request(
        "initialize",
        json!({"protocolVersion": 1, "clientCapabilities": {}}),
    )?;
    agent.answer(id)?;
    let id = agent.request("session/new", json!({"cwd": ws, "mcpServers": []}))?;
    // An agent that wants a login (codex-acp) refuses the session: its
    // idle figure is then after `initialize` alone.
    while let Ok((_, v)) = agent.lines.recv_timeout(Duration::from_secs(60)) {
        if v["id"] == id {
            break;
        }
    }
    std::thread::sleep(Duration::from_secs(2));
    Ok(tree_rss_kb(agent.child.id()))
}

/// VmRSS of `pid` and its descendants.
fn tree_rss_kb(pid: u32) -> u64 {
    let mut total = 0;
    let mut todo = vec![pid];
    while let Some(p) = todo.pop() {
        if let Ok(status) = std::fs::read_to_string(format!("/proc/{p}/status")) {
            total += status_kb(&status, "VmRSS:").unwrap_or(0);
        }
        let Ok(dir) = std::fs::read_dir("/proc") else {
            continue;
        };
        for entry in dir.flatten() {
            let Some(child) = entry
                .file_name()
                .to_str()
                .and_then(|s| s.parse::<u32>().ok())
            else {
                continue;
            };
            let stat = std::fs::read_to_string(format!("/proc/{child}/stat")).unwrap_or_default();
            let ppid = stat
                .rsplit(')')
                .next()
                .and_then(|rest| rest.split_whitespace().nth(1))
                .and_then(|s| s.parse::<u32>().ok());
            if ppid == Some(p) {
                todo.push(child);
            }
        }
    }
    total
}

/// A minimal OpenAI-compatible streaming provider: one token, then the end;
/// it notes when each reply's token was flushed.
struct TokenServer {
    url: String,
    tokens: Arc<Mutex<Vec<Instant>>>,
}

impl TokenServer {
    fn start() -> Result<TokenServer> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let url = format!("http://{}/v1", listener.local_addr()?);
        let tokens = Arc::new(Mutex::new(Vec::new()));
        let noted = tokens.clone();
        std::thread::spawn(move || {
            for conn in listener.incoming().flatten() {
                let noted = noted.clone();
                std::thread::spawn(move || {
                    let _ = serve_conn(conn, &noted);
                });
            }
        });
        Ok(TokenServer { url, tokens })
    }

    fn tokens_sent(&self) -> usize {
        self.tokens.lock().map_or(0, |t| t.len())
    }

    fn token_at(&self, i: usize) -> Option<Instant> {
        self.tokens.lock().ok()?.get(i).copied()
    }
}

fn serve_conn(mut conn: TcpStream, noted: &Mutex<Vec<Instant>>) -> Result<()> {
    conn.set_nodelay(true)?;
    let mut reader = BufReader::new(conn.try_clone()?);
    loop {
        let mut length = 0usize;
        let mut request_line = String::new();
        if reader.read_line(&mut request_line)? == 0 {
            return Ok(());
        }
        loop {
            let mut header = String::new();
            reader.read_line(&mut header)?;
            if header.trim().is_empty() {
                break;
            }
            if let Some((k, v)) = header.split_once(':')
                && k.eq_ignore_ascii_case("content-length")
            {
                length = v.trim().parse().unwrap_or(0);
            }
        }
        let mut body = vec![0; length];
        reader.read_exact(&mut body)?;
        if !request_line.contains("/chat/completions") {
            conn.write_all(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n")?;
            continue;
        }
        conn.write_all(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n")?;
        let token = r#"data: {"id":"c","object":"chat.completion.chunk","created":0,"model":"m1","choices":[{"index":0,"delta":{"role":"assistant","content":"hi"},"finish_reason":null}]}"#;
        write_chunk(&mut conn, &format!("{token}\n\n"))?;
        if let Ok(mut n) = noted.lock() {
            n.push(Instant::now());
        }
        std::thread::sleep(Duration::from_millis(20));
        let end = r#"data: {"id":"c","object":"chat.completion.chunk","created":0,"model":"m1","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":1,"total_tokens":11}}"#;
        write_chunk(&mut conn, &format!("{end}\n\ndata: [DONE]\n\n"))?;
        conn.write_all(b"0\r\n\r\n")?;
        conn.flush()?;
    }
}

fn write_chunk(conn: &mut TcpStream, data: &str) -> Result<()> {
    conn.write_all(format!("{:x}\r\n{data}\r\n", data.len()).as_bytes())?;
    conn.flush()?;
    Ok(())
}
