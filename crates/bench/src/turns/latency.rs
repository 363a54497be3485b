//! Latencies of single turns on one connection, each against that
//! connection's ping round trip measured in the same loop:
//! `agent.cancel` → `cancelled` (mid model stream, and while a `bash` tool
//! runs `sleep 30`), and `chat` → its first envelope (`workflow start`).

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use seekclaw_testkit::{ProviderServer, Reply};
use serde_json::{Value, json};

use super::procs;
use super::relay::delta_reply;
use super::setup::{Scratch, SectionDaemon};
use super::wire::{self, Ids};
use crate::daemon::JsonlClient;

/// How long the tool's `sleep` may take to show up, and to go away after the cancel.
const PROCESS_WAIT: Duration = Duration::from_secs(5);
const SLEEP_ARGV: [&str; 2] = ["sleep", "30"];
/// Sessions the first-event turns rotate over (each with a turn of history first).
const FIRST_EVENT_SESSIONS: usize = 10;

/// Where a turn is when it gets cancelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CancelPoint {
    /// During a model stream with 50 ms between chunks.
    SlowStream,
    /// While `bash` runs `sleep 30`.
    Sleep,
}

impl CancelPoint {
    pub fn label(self) -> &'static str {
        match self {
            CancelPoint::SlowStream => "mid-stream (chunk delay 50 ms)",
            CancelPoint::Sleep => "during bash `sleep 30`",
        }
    }
}

pub struct CancelFigures {
    pub point: CancelPoint,
    pub ping: Vec<Duration>,
    /// `agent.cancel` written → the chat's `cancelled` read.
    pub to_cancelled: Vec<Duration>,
    /// `agent.cancel` written → its own `result` read.
    pub to_result: Vec<Duration>,
    /// Sleep mode: `agent.cancel` written → the `sleep` process gone.
    pub to_process_gone: Vec<Duration>,
    /// `sleep` processes still running `PROCESS_WAIT` after the cancel (killed by the bench).
    pub leftover_processes: usize,
    pub problems: Vec<String>,
    pub daemon_stderr: String,
}

pub fn cancel(
    bin: &Path,
    scratch: &Scratch,
    point: CancelPoint,
    turns: usize,
) -> Result<CancelFigures> {
    let server = ProviderServer::start()?;
    match point {
        CancelPoint::SlowStream => {
            // Far longer than any cancel: 400 chunks × 50 ms = 20 s.
            let (reply, _) = delta_reply(400, "slow");
            server.set_default(reply.chunk_delay(Duration::from_millis(50)));
        }
        CancelPoint::Sleep => {
            server.set_default(Reply::new().tool_call(
                "call_1",
                "bash",
                r#"{"command":"sleep 30"}"#,
            ));
        }
    }
    let name = match point {
        CancelPoint::SlowStream => "cancel-stream",
        CancelPoint::Sleep => "cancel-sleep",
    };
    let (daemon, mut client) = SectionDaemon::start(bin, scratch, name, &server, true)?;
    let pid = daemon.daemon.pid();
    let mut ids = Ids::default();
    let mut f = CancelFigures {
        point,
        ping: Vec::with_capacity(turns),
        to_cancelled: Vec::with_capacity(turns),
        to_result: Vec::with_capacity(turns),
        to_process_gone: Vec::new(),
        leftover_processes: 0,
        problems: Vec::new(),
        daemon_stderr: String::new(),
    };
    for turn in 0..turns {
        let sid = wire::new_session(&mut client, &mut ids, scratch.workspace())?;
        f.ping.push(wire::ping(&mut client, &mut ids)?);
        if let Err(e) = cancel_once(
            &mut client,
            &mut ids,
            scratch.workspace(),
            &sid,
            pid,
            &mut f,
        ) {
            f.problems.push(format!("turn {turn}: {e:#}"));
            // The connection's state is unknown now; carry on with a fresh one.
            client = daemon.connect()?;
            ids = Ids::default();
        }
    }
    drop(client);
    f.daemon_stderr = daemon.finish()?;
    Ok(f)
}

fn cancel_once(
    client: &mut JsonlClient,
    ids: &mut Ids,
    workspace: &str,
    sid: &str,
    daemon_pid: u32,
    f: &mut CancelFigures,
) -> Result<()> {
    let chat = ids.next();
    let params = wire::scoped(workspace, json!({"message": "cancel me", "sessionId": sid}));
    client.send(&wire::request(chat, "chat", params))?;
    let trigger: &[u8] = match f.point {
        CancelPoint::SlowStream => b"delta",
        CancelPoint::Sleep => b"tool_start",
    };
    loop {
        let line = client.read_line()?;
        match wire::id_and_event(line) {
            Some((id, event)) if id == chat && event == trigger => break,
            Some((id, event)) if id == chat && wire::is_terminal(event) => {
                bail!(
                    "the turn ended before it could be cancelled: {}",
                    wire::show(line)
                )
            }
            Some(_) => {}
            None => bail!("not an envelope: {}", wire::show(line)),
        }
    }
    let sleeper = match f.point {
        CancelPoint::SlowStream => None,
        CancelPoint::Sleep => Some(wait_for_sleep(daemon_pid)?),
    };

    let cancel = ids.next();
    let start = Instant::now();
    client.send(&wire::request(
        cancel,
        "agent.cancel",
        json!({"requestId": chat}),
    ))?;
    let (mut result_at, mut terminal) = (None, None);
    while result_at.is_none() || terminal.is_none() {
        let line = client.read_line()?;
        let at = start.elapsed();
        let Some((id, event)) = wire::id_and_event(line) else {
            bail!("not an envelope: {}", wire::show(line));
        };
        if !wire::is_terminal(event) {
            continue;
        }
        let env: Value = serde_json::from_slice(line).context("terminal is not JSON")?;
        if id == cancel {
            if env["data"] != format!("cancellation requested for {chat}") {
                bail!("agent.cancel answered {env}");
            }
            result_at = Some(at);
        } else if id == chat {
            if env["event"] != "cancelled" {
                bail!("the cancelled turn ended with {env}");
            }
            terminal = Some(at);
        }
    }
    let (Some(result_at), Some(terminal)) = (result_at, terminal) else {
        bail!("cancel loop ended without both answers");
    };
    f.to_result.push(result_at);
    f.to_cancelled.push(terminal);
    if let Some(pid) = sleeper {
        match wait_gone(pid, start) {
            Some(gone) => f.to_process_gone.push(gone),
            None => {
                f.leftover_processes += 1;
                procs::kill(pid);
            }
        }
    }
    let late = wire::drain_with_ping(client, ids)?;
    if !late.is_empty() {
        f.problems.push(format!(
            "{} envelopes after the terminal, first: {}",
            late.len(),
            late[0]
        ));
    }
    Ok(())
}

/// Polls until the daemon has a `sleep 30` descendant; returns its pid.
fn wait_for_sleep(daemon_pid: u32) -> Result<u32> {
    let start = Instant::now();
    loop {
        if let Some(pid) = procs::descendants_running(daemon_pid, &SLEEP_ARGV).first() {
            return Ok(*pid);
        }
        if start.elapsed() > PROCESS_WAIT {
            bail!("no `sleep 30` process under the daemon {PROCESS_WAIT:?} after tool_start");
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Polls until `pid` has ended; its time since `since`, or `None` if it outlived the wait.
fn wait_gone(pid: u32, since: Instant) -> Option<Duration> {
    loop {
        if !procs::alive(pid) {
            return Some(since.elapsed());
        }
        if since.elapsed() > PROCESS_WAIT {
            return None;
        }
        std::thread::sleep(Duration::from_micros(200));
    }
}

pub struct FirstEventFigures {
    pub ping: Vec<Duration>,
    /// `chat` written → its first envelope read.
    pub first_event: Vec<Duration>,
    /// `chat` written → `done` read (a one-chunk reply), for scale.
    pub to_done: Vec<Duration>,
    pub problems: Vec<String>,
    pub daemon_stderr: String,
}

pub fn first_event(bin: &Path, scratch: &Scratch, turns: usize) -> Result<FirstEventFigures> {
    let server = ProviderServer::start()?;
    server.set_default(Reply::plain("ok"));
    let (daemon, mut client) = SectionDaemon::start(bin, scratch, "first-event", &server, true)?;
    let mut ids = Ids::default();
    let mut sessions = Vec::with_capacity(FIRST_EVENT_SESSIONS);
    for _ in 0..FIRST_EVENT_SESSIONS {
        let sid = wire::new_session(&mut client, &mut ids, scratch.workspace())?;
        // A turn of history first: these are existing sessions, not empty ones.
        timed_turn(&mut client, &mut ids, scratch.workspace(), &sid)?;
        sessions.push(sid);
    }
    let mut f = FirstEventFigures {
        ping: Vec::with_capacity(turns),
        first_event: Vec::with_capacity(turns),
        to_done: Vec::with_capacity(turns),
        problems: Vec::new(),
        daemon_stderr: String::new(),
    };
    for (turn, sid) in sessions.iter().cycle().take(turns).enumerate() {
        f.ping.push(wire::ping(&mut client, &mut ids)?);
        match timed_turn(&mut client, &mut ids, scratch.workspace(), sid) {
            Ok((first, done)) => {
                f.first_event.push(first);
                f.to_done.push(done);
            }
            Err(e) => f.problems.push(format!("turn {turn}: {e:#}")),
        }
    }
    drop(client);
    f.daemon_stderr = daemon.finish()?;
    Ok(f)
}

/// One chat: (time to its first envelope, which must be `workflow start`;
/// time to its `done`).
fn timed_turn(
    client: &mut JsonlClient,
    ids: &mut Ids,
    workspace: &str,
    sid: &str,
) -> Result<(Duration, Duration)> {
    let chat = ids.next();
    let line = wire::request(
        chat,
        "chat",
        wire::scoped(workspace, json!({"message": "hi", "sessionId": sid})),
    );
    let start = Instant::now();
    client.send(&line)?;
    let first_line = client.read_line()?;
    let first = start.elapsed();
    let env: Value = serde_json::from_slice(first_line).context("first envelope is not JSON")?;
    if env["id"] != chat || env["event"] != "workflow" || env["details"]["kind"] != "start" {
        bail!("first envelope is not the chat's workflow start: {env}");
    }
    loop {
        let line = client.read_line()?;
        match wire::id_and_event(line) {
            Some((id, event)) if id == chat && wire::is_terminal(event) => {
                if event != b"done" {
                    bail!("turn ended with {}", wire::show(line));
                }
                return Ok((first, start.elapsed()));
            }
            Some(_) => {}
            None => bail!("not an envelope: {}", wire::show(line)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ended_child_counts_as_gone_before_it_is_reaped() {
        let mut child = std::process::Command::new("/bin/true").spawn().unwrap();
        let since = Instant::now();
        let gone = wait_gone(child.id(), since).unwrap();
        assert!(gone < PROCESS_WAIT);
        child.wait().unwrap();
        assert!(!procs::alive(child.id()));
    }
}
