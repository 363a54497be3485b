//! `soak`: does the daemon keep memory per turn? N small turns (each one
//! `read_file` call and then D streamed deltas) run one after another on one
//! connection (or, with `--reconnect`, each on its own connection, as a
//! CLI would) against the real daemon and the testkit provider, and the
//! daemon's anonymous memory (`RssAnon`, what the heap and stacks hold, not
//! the mapped binary) is read after a warm-up, after the N turns and after
//! idling. Two variants, each on its own daemon: every turn on the same
//! session (truncated back to empty every few turns so the requests stay
//! small) and every turn on a new session. Also the daemon's idle RSS: VmRSS
//! two seconds after it answered its first ping, with no client connected.
//! Target (issue 37): after the warm-up, 10,000 turns add less than 2 MiB.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use seekclaw_testkit::{ProviderServer, Reply};
use serde_json::{Value, json};

use crate::daemon::{DaemonProc, JsonlClient, status_kb};
use crate::turns::relay::delta_reply;
use crate::turns::setup::{SMALL_FILE, Scratch, SectionDaemon};
use crate::turns::wire::{self, Ids};

/// How long the daemon idles, without a client, before the idle RSS reading.
const IDLE_WAIT: Duration = Duration::from_secs(2);
/// Same-session turns between truncations of the session back to empty.
const TRUNCATE_EVERY: usize = 20;
/// Turns between progress lines on stderr.
const PROGRESS_EVERY: usize = 1000;

/// Where the turns of a variant go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Variant {
    /// Every turn continues one session.
    Same,
    /// Every turn opens a new session.
    New,
}

impl Variant {
    fn label(self) -> &'static str {
        match self {
            Variant::Same => "same session",
            Variant::New => "new session per turn",
        }
    }
}

pub struct SoakArgs<'a> {
    pub bin: &'a Path,
    pub json: bool,
    pub turns: usize,
    pub warmup: usize,
    pub deltas: usize,
    pub idle_secs: u64,
    pub variants: Vec<Variant>,
    /// Every turn on a new connection.
    pub reconnect: bool,
}

/// One process's memory, in bytes, from `/proc/<pid>/status`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Memory {
    pub anon: u64,
    pub rss: u64,
}

impl Memory {
    fn of(daemon: &DaemonProc) -> Result<Memory> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", daemon.pid()))
            .context("read /proc/<pid>/status")?;
        Ok(Memory {
            anon: status_kb(&status, "RssAnon:").context("no RssAnon line")? * 1024,
            rss: status_kb(&status, "VmRSS:").context("no VmRSS line")? * 1024,
        })
    }
}

pub struct VariantFigures {
    pub variant: Variant,
    pub turns: usize,
    /// After the warm-up turns.
    pub warm: Memory,
    /// After the measured turns.
    pub after: Memory,
    /// After idling `idle_secs` with the connection still open.
    pub idle: Memory,
    pub peak_rss: u64,
    pub wall: Duration,
}

impl VariantFigures {
    /// Anonymous memory the measured turns added (negative: returned).
    pub fn added(&self) -> i64 {
        self.after.anon as i64 - self.warm.anon as i64
    }

    pub fn added_per_turn(&self) -> f64 {
        self.added() as f64 / self.turns.max(1) as f64
    }
}

pub fn run(args: &SoakArgs<'_>) -> Result<()> {
    if args.turns == 0 {
        bail!("--turns must be at least 1");
    }
    let scratch = Scratch::new()?;
    eprintln!("idle daemon ...");
    let idle = idle_memory(args.bin, &scratch)?;
    let variants = if args.variants.is_empty() {
        vec![Variant::Same, Variant::New]
    } else {
        args.variants.clone()
    };
    let mut figures = Vec::new();
    for variant in variants {
        eprintln!(
            "{}: {} warm-up + {} turns ...",
            variant.label(),
            args.warmup,
            args.turns
        );
        figures.push(soak(args, &scratch, variant)?);
    }
    if args.json {
        println!("{}", to_json(args, idle, &figures));
    } else {
        print(args, idle, &figures);
    }
    Ok(())
}

/// VmRSS and RssAnon of a fresh daemon `IDLE_WAIT` after its first pong,
/// its only connection closed.
fn idle_memory(bin: &Path, scratch: &Scratch) -> Result<Memory> {
    let server = ProviderServer::start()?;
    let (daemon, client) = SectionDaemon::start(bin, scratch, "soak-idle", &server, false)?;
    drop(client);
    std::thread::sleep(IDLE_WAIT);
    let memory = Memory::of(&daemon.daemon)?;
    daemon.finish()?;
    Ok(memory)
}

fn soak(args: &SoakArgs<'_>, scratch: &Scratch, variant: Variant) -> Result<VariantFigures> {
    let server = ProviderServer::start()?;
    let name = match variant {
        Variant::Same => "soak-same",
        Variant::New => "soak-new",
    };
    let (daemon, mut c) = SectionDaemon::start(args.bin, scratch, name, &server, false)?;
    let (answer, _) = delta_reply(args.deltas, "d");
    let mut turns = Turns {
        reconnect: args.reconnect.then(|| daemon.daemon.socket.clone()),
        server: &server,
        ids: Ids::default(),
        workspace: scratch.workspace(),
        answer,
        deltas: args.deltas,
        variant,
        session: None,
        done: 0,
    };
    turns.run(&mut c, args.warmup)?;
    let warm = Memory::of(&daemon.daemon)?;
    let start = Instant::now();
    for chunk in chunks(args.turns, PROGRESS_EVERY) {
        turns.run(&mut c, chunk)?;
        let now = Memory::of(&daemon.daemon)?;
        eprintln!(
            "  {:>6} turns: RssAnon {:.2} MiB",
            turns.done - args.warmup,
            mib(now.anon)
        );
    }
    let wall = start.elapsed();
    let after = Memory::of(&daemon.daemon)?;
    std::thread::sleep(Duration::from_secs(args.idle_secs));
    let idle = Memory::of(&daemon.daemon)?;
    let (_, peak_rss) = daemon.daemon.memory()?;
    drop(c);
    let stderr = daemon.finish()?;
    if !stderr.trim().is_empty() {
        eprintln!("daemon stderr ({name}):\n{stderr}");
    }
    Ok(VariantFigures {
        variant,
        turns: args.turns,
        warm,
        after,
        idle,
        peak_rss,
        wall,
    })
}

/// `total` split in pieces of at most `size`.
fn chunks(total: usize, size: usize) -> impl Iterator<Item = usize> {
    let size = size.max(1);
    (0..total.div_ceil(size)).map(move |i| size.min(total - i * size))
}

/// The turns of one variant on one connection.
struct Turns<'a> {
    /// The socket to connect to for every turn (else the shared connection).
    reconnect: Option<std::path::PathBuf>,
    server: &'a ProviderServer,
    ids: Ids,
    workspace: &'a str,
    answer: Reply,
    deltas: usize,
    variant: Variant,
    session: Option<String>,
    done: usize,
}

impl Turns<'_> {
    fn run(&mut self, shared: &mut JsonlClient, n: usize) -> Result<()> {
        for _ in 0..n {
            let mut own = match &self.reconnect {
                Some(socket) => Some(JsonlClient::connect(socket)?),
                None => None,
            };
            let c = own.as_mut().unwrap_or(&mut *shared);
            let sid = self.session_for_next(c)?;
            self.turn(c, &sid)?;
            self.done += 1;
            // The bench's own record of requests must not grow either.
            self.server.clear_requests();
        }
        Ok(())
    }

    /// The session of the next turn: a new one, or the one session,
    /// emptied every `TRUNCATE_EVERY` turns.
    fn session_for_next(&mut self, c: &mut JsonlClient) -> Result<String> {
        let existing = match (self.variant, &self.session) {
            (Variant::Same, Some(sid)) => Some(sid.clone()),
            _ => None,
        };
        let Some(sid) = existing else {
            let sid = wire::new_session(c, &mut self.ids, self.workspace)?;
            self.session = Some(sid.clone());
            return Ok(sid);
        };
        if self.done > 0 && self.done.is_multiple_of(TRUNCATE_EVERY) {
            let params = wire::scoped(self.workspace, json!({"id": sid, "keepCount": 0}));
            wire::call(c, &mut self.ids, "session.truncate", params)?;
        }
        Ok(sid)
    }

    /// One turn: `read_file`, then the streamed answer; checks it ended
    /// `done` with every delta.
    fn turn(&mut self, c: &mut JsonlClient, sid: &str) -> Result<()> {
        self.server.enqueue(Reply::new().tool_call(
            "call_1",
            "read_file",
            format!(r#"{{"path":"{SMALL_FILE}"}}"#),
        ));
        self.server.enqueue(self.answer.clone());
        let id = self.ids.next();
        let params = wire::scoped(self.workspace, json!({"message": "go", "sessionId": sid}));
        c.send(&wire::request(id, "chat", params))?;
        let mut deltas = 0;
        loop {
            let line = c.read_line()?;
            let (got, event) = wire::id_and_event(line)
                .with_context(|| format!("not an envelope: {}", wire::show(line)))?;
            if got != id {
                bail!("envelope of another request: {}", wire::show(line));
            }
            match event {
                b"delta" => deltas += 1,
                b"done" => break,
                e if wire::is_terminal(e) => bail!("turn ended badly: {}", wire::show(line)),
                _ => {}
            }
        }
        if deltas < self.deltas {
            bail!("turn streamed {deltas} deltas, want {}", self.deltas);
        }
        Ok(())
    }
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

fn print(args: &SoakArgs<'_>, idle: Memory, figures: &[VariantFigures]) {
    println!(
        "soak: turns of one read_file call + {} deltas, {}, {} warm-up turns",
        args.deltas,
        if args.reconnect {
            "a new connection per turn"
        } else {
            "one connection"
        },
        args.warmup
    );
    println!(
        "  idle daemon, {} s after its first pong, no client: VmRSS {:.2} MiB, RssAnon {:.2} MiB (target VmRSS <= 15 MiB)",
        IDLE_WAIT.as_secs(),
        mib(idle.rss),
        mib(idle.anon)
    );
    for f in figures {
        println!(
            "  {:<22} RssAnon after warm-up {:7.2} MiB, after {} turns {:7.2} MiB, {} s idle {:7.2} MiB",
            f.variant.label(),
            mib(f.warm.anon),
            f.turns,
            mib(f.after.anon),
            args.idle_secs,
            mib(f.idle.anon),
        );
        println!(
            "  {:<22} added {:+.2} MiB ({:+.0} B/turn; target < 2 MiB per 10,000 turns), VmRSS {:.2} MiB, peak {:.2} MiB, {:.0} turns/s",
            "",
            f.added() as f64 / (1024.0 * 1024.0),
            f.added_per_turn(),
            mib(f.after.rss),
            mib(f.peak_rss),
            f.turns as f64 / f.wall.as_secs_f64().max(1e-9),
        );
    }
}

fn to_json(args: &SoakArgs<'_>, idle: Memory, figures: &[VariantFigures]) -> Value {
    let variants: Vec<Value> = figures
        .iter()
        .map(|f| {
            json!({
                "variant": format!("{:?}", f.variant).to_lowercase(),
                "turns": f.turns,
                "warmAnonBytes": f.warm.anon,
                "afterAnonBytes": f.after.anon,
                "idleAnonBytes": f.idle.anon,
                "addedAnonBytes": f.added(),
                "addedBytesPerTurn": f.added_per_turn(),
                "afterRssBytes": f.after.rss,
                "peakRssBytes": f.peak_rss,
                "turnsPerSecond": f.turns as f64 / f.wall.as_secs_f64().max(1e-9),
            })
        })
        .collect();
    json!({
        "deltas": args.deltas,
        "warmup": args.warmup,
        "idleSeconds": args.idle_secs,
        "reconnect": args.reconnect,
        "idleDaemonRssBytes": idle.rss,
        "idleDaemonAnonBytes": idle.anon,
        "variants": variants,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_cover_the_total() {
        assert_eq!(
            chunks(2500, 1000).collect::<Vec<_>>(),
            vec![1000, 1000, 500]
        );
        assert_eq!(chunks(3, 1000).collect::<Vec<_>>(), vec![3]);
        assert_eq!(chunks(0, 1000).count(), 0);
    }

    #[test]
    fn growth_is_after_minus_warm() {
        let f = VariantFigures {
            variant: Variant::Same,
            turns: 4,
            warm: Memory { anon: 1000, rss: 0 },
            after: Memory { anon: 800, rss: 0 },
            idle: Memory::default(),
            peak_rss: 0,
            wall: Duration::from_secs(1),
        };
        assert_eq!(f.added(), -200);
        assert_eq!(f.added_per_turn(), -50.0);
    }
}
