//! `tui`: the release `seekclaw chat` in a pseudo-terminal (see `pty`),
//! against a running daemon and the testkit provider.
//!
//! - First paint: spawn → the screen shows the prompt hint; baseline in the
//!   same run: a bare process start (`/bin/true`).
//! - A 2,000-delta answer streamed at full speed: frames drawn (synchronized
//!   updates), frames per second, the chat's CPU time and the wall time; its
//!   final screen against the same answer streamed slowly.
//! - Enter → answer on screen for a trivial prompt (the turn's final frame),
//!   against the same turn through the socket in the same run.
//! - Keypress → echo in the editor while a long answer streams (p50/p99).
//! - Idle: context switches (wake-ups) and CPU per second of a settled chat,
//!   fresh and after a turn.
//! - RSS after opening a session of 5,000 messages, against a new session's.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use seekclaw_testkit::{ProviderServer, Reply};
use serde_json::json;

use crate::cpu::{Threads, cpu_ns};
use crate::daemon::{DaemonProc, status_kb};
use crate::populate::{BIG_SESSION_ID, HomeShape, populate};
use crate::pty::{Pty, Seen, screen};
use crate::stats::{Tail, Timings, ms};

#[path = "tui_answer.rs"]
mod answer;

const COLS: u16 = 100;
const ROWS: u16 = 30;
const WAIT: Duration = Duration::from_secs(60);
/// What the editor shows when empty: the first frame is drawn.
const HINT: &str = "Ask anything";
const TARGET_PAINT_MS: f64 = 30.0;
const TARGET_FPS: f64 = 1000.0 / 16.0;
const TARGET_ECHO_P99_MS: f64 = 16.0;
const TARGET_RSS_MB: f64 = 25.0;
const TARGET_ANSWER_MS: f64 = 10.0;

pub struct TuiArgs<'a> {
    pub bin: &'a Path,
    pub json: bool,
    pub paints: usize,
    pub deltas: usize,
    pub keys: usize,
    pub answers: usize,
    pub idle_secs: f64,
    pub messages: usize,
}

/// One chat's run of a streamed answer.
struct Stream {
    wall: Duration,
    cpu: Duration,
    frames: usize,
    /// The shortest time between two frames of the stream (Enter's own
    /// frame, drawn at once for the key, and the turn's last frame, drawn at
    /// once for its end, left out).
    min_gap: Option<Duration>,
    bytes: usize,
    screen: String,
}

/// Wake-ups and CPU of a settled chat over a window.
struct Idle {
    wakeups_per_s: f64,
    cpu_ms_per_s: f64,
    frames: usize,
}

pub fn run(args: &TuiArgs<'_>) -> Result<()> {
    let scratch = tempfile::Builder::new().prefix("sc-bench-tui-").tempdir()?;
    let home = scratch.path().join("home");
    std::fs::create_dir_all(&home)?;
    let server = ProviderServer::start()?;
    let config = json!({
        "providers": [{"id": "tk", "kind": "openai", "baseUrl": server.base_url(),
                        "models": [{"id": "m1", "contextWindow": 1000000000}]}]
    });
    std::fs::write(home.join("config.json"), config.to_string())?;
    eprintln!("writing a session of {} messages ...", args.messages);
    populate(
        &home.join("seekclaw.db"),
        HomeShape {
            sessions: 1,
            events: args.messages,
            big_messages: args.messages,
        },
    )?;
    let mut daemon = DaemonProc::spawn(args.bin, &home, &scratch.path().join("daemon.err"))?;
    daemon.wait_answering()?;
    let chat = Chat {
        bin: args.bin,
        home: home.clone(),
    };

    eprintln!("timing {} first paints ...", args.paints);
    let process_start = crate::startup::time_bin_true()?;
    let mut paints = Vec::with_capacity(args.paints);
    for _ in 0..args.paints {
        let pty = chat.spawn(&[])?;
        paints.push(pty.wait_text(HINT, WAIT)? - pty.spawned_at);
        pty.stop()?;
    }
    let paints = Timings::of(&paints).context("no paints")?;

    eprintln!("streaming {} deltas fast and slowly ...", args.deltas);
    server.enqueue(answer(args.deltas, None));
    let fast = chat.stream()?;
    server.enqueue(answer(args.deltas, Some(Duration::from_millis(2))));
    let slow = chat.stream()?;
    let same_screen = fast.screen == slow.screen;

    eprintln!(
        "timing {} trivial answers, on screen and through the socket ...",
        args.answers
    );
    let (socket_answers, screen_answers) =
        answer::answers(&chat, &server, &home.join("daemon.sock"), args.answers)?;
    let socket_answers = Timings::of(&socket_answers).context("no socket answers")?;
    let screen_answers = Timings::of(&screen_answers).context("no answers")?;

    eprintln!(
        "timing {} keypresses during a stream, then idle ...",
        args.keys
    );
    let idle_secs = Duration::from_secs_f64(args.idle_secs);
    let fresh = chat.spawn(&[])?;
    fresh.wait_text(HINT, WAIT)?;
    let idle_fresh = idle(&fresh, idle_secs)?;
    fresh.stop()?;
    server.enqueue(answer(args.keys * 200, Some(Duration::from_millis(1))));
    let (echo, streaming_at_end, idle_after) = keys(&chat, args.keys, idle_secs)?;
    let echo = Tail::of(&echo).context("no keys")?;

    eprintln!("opening the {}-message session ...", args.messages);
    let (rss_new, _) = rss(&chat, &[], HINT)?;
    let last = format!("Step {} done", args.messages.saturating_sub(1) / 4);
    let (rss_big, hwm_big) = rss(&chat, &["--session", BIG_SESSION_ID], &last)?;
    daemon.shutdown()?;

    let fps = |s: &Stream| s.frames as f64 / s.wall.as_secs_f64();
    let mb = |kb: u64| kb as f64 / 1024.0;
    if args.json {
        let stream = |s: &Stream| {
            json!({"wallMs": ms(s.wall), "cpuMs": ms(s.cpu), "frames": s.frames,
                   "framesPerSec": fps(s), "bytes": s.bytes,
                   "minGapMs": s.min_gap.map(ms)})
        };
        let timings = |t: &Timings| json!({"median": ms(t.median), "p95": ms(t.p95), "min": ms(t.min), "max": ms(t.max)});
        let idle = |i: &Idle| json!({"wakeupsPerSec": i.wakeups_per_s, "cpuMsPerSec": i.cpu_ms_per_s, "frames": i.frames});
        let out = json!({
            "processStartMs": ms(process_start.median),
            "firstPaintMs": {"median": ms(paints.median), "p95": ms(paints.p95), "max": ms(paints.max)},
            "stream": {"deltas": args.deltas, "fast": stream(&fast), "slow": stream(&slow), "sameFinalScreen": same_screen},
            "answerMs": {"n": args.answers, "screen": timings(&screen_answers), "socket": timings(&socket_answers)},
            "echoMs": {"n": echo.n, "p50": ms(echo.p50), "p99": ms(echo.p99), "max": ms(echo.max), "streamingAtEnd": streaming_at_end},
            "idle": {"fresh": idle(&idle_fresh), "afterTurn": idle(&idle_after)},
            "rssMb": {"newSession": mb(rss_new), "bigSession": mb(rss_big), "bigSessionHwm": mb(hwm_big), "messages": args.messages},
        });
        println!("{out}");
        return Ok(());
    }
    println!("seekclaw chat in a {COLS}x{ROWS} pty, daemon running");
    println!(
        "  bare process start (/bin/true)      median {:>7.2} ms",
        ms(process_start.median)
    );
    println!(
        "  first paint (spawn → prompt hint)   median {:>7.2} ms  p95 {:>7.2} ms  (target < {TARGET_PAINT_MS} ms; {} runs)",
        ms(paints.median),
        ms(paints.p95),
        args.paints
    );
    for (name, s) in [("full speed", &fast), ("slow (2 ms)", &slow)] {
        println!(
            "  {} deltas, {name:<11}       {:>5} frames in {:>7.1} ms = {:>5.1} frames/s; shortest gap between stream frames {} (target ≥ 16 ms, i.e. ≤ {TARGET_FPS} frames/s); CPU {:>6.1} ms; {} bytes",
            args.deltas,
            s.frames,
            ms(s.wall),
            fps(s),
            s.min_gap.map_or_else(
                || "n/a (one frame)".to_string(),
                |g| format!("{:.1} ms", ms(g))
            ),
            ms(s.cpu),
            s.bytes
        );
    }
    println!(
        "  final screen, fast vs slow stream   {}",
        if same_screen {
            "identical"
        } else {
            "DIFFERENT"
        }
    );
    if !same_screen {
        println!("--- fast\n{}\n--- slow\n{}", fast.screen, slow.screen);
    }
    println!(
        "  Enter → answer on screen            median {:>6.2} ms  p95 {:>6.2} ms  (target < {TARGET_ANSWER_MS} ms; {} runs)",
        ms(screen_answers.median),
        ms(screen_answers.p95),
        args.answers
    );
    println!(
        "    baseline: socket chat → done      median {:>6.2} ms  p95 {:>6.2} ms  (same turns, same run)",
        ms(socket_answers.median),
        ms(socket_answers.p95)
    );
    println!(
        "  keypress → echo while streaming     p50 {:>6.2} ms  p99 {:>6.2} ms  max {:>6.2} ms  (target p99 < {TARGET_ECHO_P99_MS} ms; {} keys{})",
        ms(echo.p50),
        ms(echo.p99),
        ms(echo.max),
        echo.n,
        if streaming_at_end {
            ""
        } else {
            "; the stream ended before the last key"
        }
    );
    for (name, i) in [("fresh", &idle_fresh), ("after a turn", &idle_after)] {
        println!(
            "  idle, {name:<13}                {:>6.2} wake-ups/s  {:>6.3} ms CPU/s  {} frames  (target 0 wake-ups/s)",
            i.wakeups_per_s, i.cpu_ms_per_s, i.frames
        );
    }
    println!(
        "  RSS, new session                    {:>7.1} MB",
        mb(rss_new)
    );
    println!(
        "  RSS, {}-message session           {:>7.1} MB  (peak {:.1} MB; target < {TARGET_RSS_MB} MB)",
        args.messages,
        mb(rss_big),
        mb(hwm_big)
    );
    Ok(())
}

/// An answer of `deltas` small pieces, a paragraph break every 100, ending
/// in `END.`; `delay` between pieces (none: full speed).
fn answer(deltas: usize, delay: Option<Duration>) -> Reply {
    let mut reply = Reply::new();
    if let Some(d) = delay {
        reply = reply.chunk_delay(d);
    }
    for i in 0..deltas.saturating_sub(1) {
        let piece = if i % 100 == 99 {
            format!("w{i}\n\n")
        } else {
            format!("w{i} ")
        };
        reply = reply.text(piece);
    }
    reply.text("END.").usage(1000, 0, deltas as u64)
}

struct Chat<'a> {
    bin: &'a Path,
    home: PathBuf,
}

impl Chat<'_> {
    /// `seekclaw chat --global ARGS` in a new pty.
    fn spawn(&self, args: &[&str]) -> Result<Pty> {
        let mut cmd = Command::new(self.bin);
        cmd.args(["chat", "--global"])
            .args(args)
            .env("SEEKCLAW_HOME", &self.home)
            .env("TERM", "xterm-256color")
            .current_dir(&self.home);
        Pty::spawn(cmd, COLS, ROWS)
    }

    /// Sends a prompt once the chat is up; times its answer to the end.
    fn stream(&self) -> Result<Stream> {
        let mut pty = self.spawn(&[])?;
        pty.wait_text(HINT, WAIT)?;
        // The prompt is typed before the count starts: only Enter's frame and
        // the stream's are counted.
        pty.write(b"go")?;
        pty.wait("the prompt typed", WAIT, |s| editor_is(s, "› go"))?;
        std::thread::sleep(Duration::from_millis(200));
        let (frames, bytes) = {
            let s = pty.seen();
            (s.frames, s.bytes)
        };
        let cpu = cpu_ns(Threads::Process(pty.pid()));
        let start = Instant::now();
        pty.write(b"\r")?;
        let end = pty.wait("the answer's end", WAIT, |s| {
            let text = screen(s);
            text.contains("END.") && status(&text).contains("idle")
        })?;
        // The turn's last frame is drawn; what follows would be idle time.
        let cpu = Duration::from_nanos(cpu_ns(Threads::Process(pty.pid())).saturating_sub(cpu));
        let seen = pty.seen();
        let times = &seen.frame_times[frames.min(seen.frame_times.len())..];
        // Enter's frame and the turn's last one are drawn at once, unpaced.
        let stream = times
            .get(1..times.len().saturating_sub(1))
            .unwrap_or_default();
        let min_gap = stream
            .iter()
            .zip(stream.iter().skip(1))
            .map(|(a, b)| b.duration_since(*a))
            .min();
        let out = Stream {
            wall: end - start,
            cpu,
            min_gap,
            frames: seen.frames - frames,
            bytes: seen.bytes - bytes,
            screen: normalized(&screen(&seen)),
        };
        drop(seen);
        pty.stop()?;
        Ok(out)
    }
}

/// The status bar (the last row).
fn status(screen: &str) -> &str {
    screen.lines().last().unwrap_or_default()
}

/// The screen as it looks: rows without trailing blanks (a cell cleared and
/// a space written differ to vt100, not to the eye), without the session id
/// (each run has its own session).
fn normalized(screen: &str) -> String {
    let mut lines: Vec<String> = screen.lines().map(|l| l.trim_end().to_string()).collect();
    if let Some(last) = lines.last_mut()
        && let Some((_, rest)) = last.split_once('│')
    {
        *last = rest.to_string();
    }
    lines.join("\n")
}

/// Keypress → echo latencies while an answer streams: each key types a
/// letter (timed until the editor shows it), then Backspace clears it.
/// Then the turn is cancelled and the settled chat measured idle.
fn keys(chat: &Chat<'_>, n: usize, idle_secs: Duration) -> Result<(Vec<Duration>, bool, Idle)> {
    let mut pty = chat.spawn(&[])?;
    pty.wait_text(HINT, WAIT)?;
    pty.write(b"go\r")?;
    pty.wait_text("w10 ", WAIT)?;
    let mut samples = Vec::with_capacity(n);
    for i in 0..n {
        let c = char::from(b'a' + (i % 26) as u8);
        let typed = format!("↳ {c}");
        let start = Instant::now();
        pty.write(&[c as u8])?;
        let shown = pty.wait("the echo", WAIT, |s| editor_is(s, &typed))?;
        samples.push(shown - start);
        pty.write(b"\x7f")?;
        pty.wait("the editor cleared", WAIT, |s| {
            editor_is(s, &format!("↳ {HINT}"))
        })?;
    }
    let streaming = status(&screen(&pty.seen())).contains("running");
    pty.write(b"\x03")?; // Ctrl-C cancels the turn
    pty.wait("the turn's end", WAIT, |s| {
        status(&screen(s)).contains("idle")
    })?;
    let after = idle(&pty, idle_secs)?;
    pty.stop()?;
    Ok((samples, streaming, after))
}

/// Whether the editor's row (above the status bar) starts with `text` and
/// holds nothing more than it.
fn editor_is(seen: &Seen, text: &str) -> bool {
    let screen = screen(seen);
    let rows: Vec<&str> = screen.lines().collect();
    rows.len() >= 2 && rows[rows.len() - 2].trim_end().starts_with(text) && {
        let row = rows[rows.len() - 2].trim_end();
        row == text || row.starts_with(&format!("{text} ·"))
    }
}

/// Settles for a second, then counts the chat's context switches (each a
/// wake-up: voluntary ones are the event loop waking) and CPU over `window`.
fn idle(pty: &Pty, window: Duration) -> Result<Idle> {
    std::thread::sleep(Duration::from_secs(1));
    let pid = pty.pid();
    let frames = pty.seen().frames;
    let (woke, cpu) = (switches(pid)?, cpu_ns(Threads::Process(pid)));
    std::thread::sleep(window);
    let (woke2, cpu2) = (switches(pid)?, cpu_ns(Threads::Process(pid)));
    let secs = window.as_secs_f64();
    Ok(Idle {
        wakeups_per_s: woke2.saturating_sub(woke) as f64 / secs,
        cpu_ms_per_s: cpu2.saturating_sub(cpu) as f64 / 1e6 / secs,
        frames: pty.seen().frames - frames,
    })
}

/// Context switches (voluntary + involuntary) over all threads of `pid`.
fn switches(pid: u32) -> Result<u64> {
    let mut total = 0;
    for task in std::fs::read_dir(format!("/proc/{pid}/task"))? {
        let status = std::fs::read_to_string(task?.path().join("status"))?;
        total += status_kb(&status, "voluntary_ctxt_switches:").unwrap_or(0)
            + status_kb(&status, "nonvoluntary_ctxt_switches:").unwrap_or(0);
    }
    Ok(total)
}

/// `(VmRSS, VmHWM)` in KiB of a chat opened with `args` once it shows `text`.
fn rss(chat: &Chat<'_>, args: &[&str], text: &str) -> Result<(u64, u64)> {
    let pty = chat.spawn(args)?;
    pty.wait_text(text, WAIT)?;
    std::thread::sleep(Duration::from_millis(500));
    let status = std::fs::read_to_string(format!("/proc/{}/status", pty.pid()))?;
    let rss = status_kb(&status, "VmRSS:").context("no VmRSS")?;
    let hwm = status_kb(&status, "VmHWM:").context("no VmHWM")?;
    pty.stop()?;
    if rss == 0 {
        bail!("no RSS read");
    }
    Ok((rss, hwm))
}
