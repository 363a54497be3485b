//! `inspect`: the real `seekclaw inspect` on the big home (10,000 sessions,
//! 1,000,000 events) plus one 5,000-event session. Server answers (the
//! sidebar, the 5,000-event log, a model view, a search) against the same
//! server's static stylesheet (the transport floor, same run); the live tail
//! from a committed append to its SSE message; the page interactive in
//! headless Chromium (navigation start to the log drawn) against the same
//! page on a 100-event session; idle RSS.

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use seekclaw_store::{
    AssistantMessage, EventItem, NewSession, Store, TerminalStatus, ToolCall, ToolResult,
    TurnTerminal, UserMessage,
};
use serde_json::{Value, json};

use crate::http;
use crate::inspect_page;
use crate::populate::SCOPE;
use crate::startup::prepare_home;
use crate::stats::{Tail, ms};

/// The 5,000-event session this bench adds to the home.
const BIG_SESSION: &str = "20260104-000000-b15e55";
const BIG_EVENTS: usize = 5_000;
/// A session of the populated home with the usual 100 events.
const SMALL_SESSION: &str = "20260102-000112-000048";

pub struct InspectArgs<'a> {
    pub bin: &'a Path,
    pub home: Option<PathBuf>,
    /// Timed requests per endpoint.
    pub runs: usize,
    /// Appends timed through the live tail.
    pub tails: usize,
    /// Page loads timed in Chromium (per page).
    pub loads: usize,
    pub json: bool,
}

/// The running server; its process group is killed on drop.
struct Server {
    child: Child,
    port: u16,
    url: String,
    cookie: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        // SAFETY: a signal to the process group this bench created (never <= 1).
        let pgid = self.child.id() as i32;
        if pgid > 1 {
            unsafe { libc::kill(-pgid, libc::SIGKILL) };
        }
        let _ = self.child.wait();
    }
}

impl Server {
    fn start(bin: &Path, home: &Path) -> Result<Server> {
        use std::os::unix::process::CommandExt;
        let mut child = Command::new(bin)
            .args(["inspect", "--port", "0"])
            .env("SEEKCLAW_HOME", home)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .context("spawn seekclaw inspect")?;
        let mut line = String::new();
        let out = child.stdout.take().context("no stdout")?;
        std::io::BufReader::new(out).read_line(&mut line)?;
        let url = line.trim().to_string();
        let rest = url
            .strip_prefix("http://127.0.0.1:")
            .with_context(|| format!("unexpected URL {url:?}"))?;
        let port: u16 = rest.split('/').next().unwrap_or_default().parse()?;
        let token = url.split("token=").nth(1).unwrap_or_default().to_string();
        Ok(Server {
            child,
            port,
            url,
            cookie: format!("Cookie: seekclaw_inspect={token}"),
        })
    }

    fn get(&self, path: &str) -> Result<Vec<u8>> {
        let answer = http::request(
            self.port,
            "GET",
            path,
            std::slice::from_ref(&self.cookie),
            None,
        )?;
        if answer.status != 200 {
            bail!("GET {path}: HTTP {}", answer.status);
        }
        Ok(answer.body)
    }

    /// `runs` timed GETs after one warm-up; `check` sees the last body.
    fn time(&self, path: &str, runs: usize, check: impl Fn(&Value) -> bool) -> Result<Tail> {
        let body = self.get(path)?;
        let v: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        if !path.ends_with(".css") && !check(&v) {
            bail!("GET {path}: unexpected answer");
        }
        let mut samples = Vec::with_capacity(runs);
        for _ in 0..runs {
            let t = Instant::now();
            self.get(path)?;
            samples.push(t.elapsed());
        }
        Tail::of(&samples).context("no samples")
    }

    fn rss_kb(&self) -> Result<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))?;
        crate::daemon::status_kb(&status, "VmRSS:").context("no VmRSS")
    }
}

pub fn run(args: &InspectArgs<'_>) -> Result<()> {
    if args.runs == 0 || args.tails == 0 {
        bail!("--runs and --tails must be at least 1");
    }
    let scratch = tempfile::Builder::new()
        .prefix("sc-bench-inspect-")
        .tempdir()?;
    let home_path = match &args.home {
        Some(h) => std::path::absolute(h)?,
        None => scratch.path().join("home"),
    };
    let home = prepare_home(&home_path)?;
    let store = Store::open(&home.path.join("seekclaw.db"))?;
    add_big_session(&store)?;

    let server = Server::start(args.bin, &home.path)?;
    std::thread::sleep(Duration::from_millis(500));
    let idle_kb = server.rss_kb()?;

    eprintln!("requests ...");
    let big = format!("/api/sessions/{BIG_SESSION}");
    let floor = server.time("/app.css", args.runs, |_| true)?;
    let first_screen = server.time("/api/sessions?limit=300", args.runs, |v| {
        v.as_array().is_some_and(|a| a.len() == 300)
    })?;
    let sidebar = server.time("/api/sessions", args.runs, |v| {
        v.as_array().is_some_and(|a| a.len() >= 10_000)
    })?;
    let events = server.time(&format!("{big}/events?scope={SCOPE}"), args.runs, |v| {
        v["events"]
            .as_array()
            .is_some_and(|e| e.len() >= BIG_EVENTS)
    })?;
    let model = server.time(
        &format!("{big}/model?scope={SCOPE}&seq={}", BIG_EVENTS - 1),
        args.runs,
        |v| v["messages"].as_array().is_some_and(|m| !m.is_empty()),
    )?;
    let search = server.time("/api/search?q=configuration", args.runs, |v| {
        v.as_array().is_some_and(|h| !h.is_empty())
    })?;
    eprintln!("live tail ...");
    let tail = time_tail(&server, &store, args.tails)?;
    let serving_kb = server.rss_kb()?;

    eprintln!("page loads in chromium ...");
    let pages = inspect_page::time_loads(
        &server.url,
        &[SMALL_SESSION, BIG_SESSION],
        args.loads,
        scratch.path(),
    )?;
    let figures = Figures {
        floor,
        first_screen,
        sidebar,
        events,
        model,
        search,
        tail,
        idle_kb,
        serving_kb,
        pages,
    };
    if args.json {
        println!("{}", figures.to_json(&home.path));
    } else {
        figures.print(&home.path, args.runs);
    }
    Ok(())
}

/// Appends one event at a time and waits for the tail's message carrying it.
fn time_tail(server: &Server, store: &Store, n: usize) -> Result<Tail> {
    let last = store.last_seq(SCOPE, BIG_SESSION)?;
    let path = format!("/api/sessions/{BIG_SESSION}/tail?scope={SCOPE}&after={last}");
    let mut sse = http::stream(server.port, &path, std::slice::from_ref(&server.cookie))?;
    let mut samples = Vec::with_capacity(n);
    for i in 0..n {
        // A random phase against the server's poll, as a real append has.
        std::thread::sleep(Duration::from_millis(37 + (i as u64 * 53) % 97));
        let item = EventItem::User(UserMessage {
            text: format!("tail probe {i}"),
            images: Vec::new(),
        });
        let t = Instant::now();
        store.append_events(SCOPE, BIG_SESSION, None, &[item])?;
        let want = format!("tail probe {i}\"");
        loop {
            let mut line = String::new();
            if sse.read_line(&mut line)? == 0 {
                bail!("the tail closed");
            }
            if line.starts_with("data:") && line.contains(&want) {
                break;
            }
        }
        samples.push(t.elapsed());
    }
    Tail::of(&samples).context("no samples")
}

/// Adds the 5,000-event session (turns of user, tool call, result, answer,
/// terminal) unless an earlier run did.
fn add_big_session(store: &Store) -> Result<()> {
    if store.session(SCOPE, BIG_SESSION)?.is_some() {
        return Ok(());
    }
    store.create_session(&NewSession {
        scope: SCOPE.into(),
        id: BIG_SESSION.into(),
        workspace: None,
        title: Some("5,000 events".into()),
        reasoning_level: "high".into(),
        network_enabled: true,
    })?;
    let filler = "the configuration loader validates every field and reports a typed error; ";
    let mut items = Vec::with_capacity(BIG_EVENTS);
    let mut turn = 0;
    while items.len() < BIG_EVENTS {
        turn += 1;
        let call = format!("call_{turn}");
        let turn_items = [
            EventItem::User(UserMessage {
                text: format!("turn {turn}: {}", filler.repeat(2)),
                images: Vec::new(),
            }),
            EventItem::Assistant(AssistantMessage {
                text: String::new(),
                tool_calls: vec![ToolCall {
                    id: call.clone(),
                    name: "read_file".into(),
                    arguments_json: format!(r#"{{"path":"src/file_{turn}.rs"}}"#),
                }],
                ..Default::default()
            }),
            EventItem::ToolResult(ToolResult {
                tool_call_id: call,
                tool_name: "read_file".into(),
                output: filler.repeat(12),
                success: true,
                ..Default::default()
            }),
            EventItem::Assistant(AssistantMessage {
                text: filler.repeat(3),
                ..Default::default()
            }),
            EventItem::Terminal(TurnTerminal {
                status: TerminalStatus::Finished,
                text: String::new(),
            }),
        ];
        items.extend(turn_items);
    }
    items.truncate(BIG_EVENTS);
    store.append_events(SCOPE, BIG_SESSION, None, &items)?;
    Ok(())
}

struct Figures {
    floor: Tail,
    first_screen: Tail,
    sidebar: Tail,
    events: Tail,
    model: Tail,
    search: Tail,
    tail: Tail,
    idle_kb: u64,
    serving_kb: u64,
    pages: Vec<inspect_page::Loads>,
}

fn tail_json(t: &Tail) -> Value {
    json!({"n": t.n, "p50Ms": ms(t.p50), "p99Ms": ms(t.p99), "maxMs": ms(t.max)})
}

impl Figures {
    fn rows(&self) -> [(&'static str, &Tail, Option<f64>); 7] {
        [
            ("static stylesheet (baseline)", &self.floor, None),
            (
                "sidebar first screen (300 of 10,000)",
                &self.first_screen,
                Some(100.0),
            ),
            ("sidebar: all 10,000+ sessions", &self.sidebar, Some(100.0)),
            ("5,000-event session log", &self.events, Some(50.0)),
            ("model view at step 5,000", &self.model, None),
            ("search, common word", &self.search, Some(50.0)),
            ("live tail: append to SSE message", &self.tail, Some(200.0)),
        ]
    }

    fn to_json(&self, home: &Path) -> Value {
        let rows: Vec<Value> = self
            .rows()
            .iter()
            .map(|(name, t, target)| json!({"name": name, "tail": tail_json(t), "targetP99Ms": target}))
            .collect();
        let pages: Vec<Value> = self
            .pages
            .iter()
            .map(inspect_page::Loads::to_json)
            .collect();
        json!({
            "bench": "inspect",
            "home": home.display().to_string(),
            "rows": rows,
            "pages": pages,
            "idleRssKb": self.idle_kb,
            "servingRssKb": self.serving_kb,
        })
    }

    fn print(&self, home: &Path, runs: usize) {
        println!();
        println!("inspect: home {} , {runs} runs per request", home.display());
        println!(
            "{:<36} | {:>9} {:>9} {:>9} | target p99",
            "ms", "p50", "p99", "max"
        );
        println!("{}", "-".repeat(36 + 3 + 29 + 15));
        for (name, t, target) in self.rows() {
            let mark = target.map_or(String::new(), |ms_target| {
                let met = if ms(t.p99) < ms_target {
                    "met"
                } else {
                    "MISSED"
                };
                format!("< {ms_target} ms {met}")
            });
            println!(
                "{name:<36} | {:>9.2} {:>9.2} {:>9.2} | {mark}",
                ms(t.p50),
                ms(t.p99),
                ms(t.max)
            );
        }
        for p in &self.pages {
            p.print();
        }
        println!(
            "idle RSS {:.1} MB (target < 20 MB: {}), after serving all of the above {:.1} MB",
            self.idle_kb as f64 / 1024.0,
            if self.idle_kb < 20 * 1024 {
                "met"
            } else {
                "MISSED"
            },
            self.serving_kb as f64 / 1024.0
        );
    }
}
