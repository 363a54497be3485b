//! Real processes: exit codes, process-group kills, background jobs, cancellation.

use std::time::{Duration, Instant};

use serde_json::json;

use super::*;
use crate::builtin::testing::ws;
use crate::tool::Tool;

/// Live means present and not a zombie (a zombie has already died).
fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let state = stat.rsplit(')').next().unwrap_or("").trim_start();
            !state.starts_with('Z') && !state.starts_with('X')
        }
        Err(_) => false,
    }
}

/// Also `kill -0`, as a shell would check.
fn kill0(pid: u32) -> bool {
    std::process::Command::new("/bin/sh")
        .arg("-c")
        .arg(format!("kill -0 {pid} 2>/dev/null"))
        .status()
        .unwrap()
        .success()
}

fn pids(text: &str) -> Vec<u32> {
    text.lines().filter_map(|l| l.trim().parse().ok()).collect()
}

async fn all_dead_within(pids: &[u32], limit: Duration) -> Duration {
    let start = Instant::now();
    while pids.iter().any(|&p| alive(p)) {
        assert!(
            start.elapsed() < limit,
            "still alive after {limit:?}: {pids:?}"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    start.elapsed()
}

#[tokio::test]
async fn success_failure_and_stderr() {
    let w = ws();
    let bash = BashTool::new();
    let out = w.call(&bash, json!({"command": "echo hello"})).await;
    assert!(out.success);
    assert_eq!(out.content, "hello\n");
    assert_eq!(out.summary, "echo hello → exit 0");
    assert!(!out.mutated, "bash does not claim file changes");

    let out = w
        .call(&bash, json!({"command": "echo oops >&2; exit 3"}))
        .await;
    assert!(!out.success);
    assert_eq!(out.content, "Exit code 3\noops\n");
    assert_eq!(out.summary, "echo oops >&2; exit 3 → exit 3");

    let out = w.call(&bash, json!({"command": "true"})).await;
    assert_eq!(out.content, "(no output)");
    let out = w.call(&bash, json!({"command": "printf 'caf\\xe9'"})).await;
    assert_eq!(out.content, "caf\u{fffd}");
    let long = format!("echo {}", "a".repeat(100));
    let out = w.call(&bash, json!({ "command": long })).await;
    assert_eq!(out.summary, format!("echo {}… → exit 0", "a".repeat(55)));
}

#[tokio::test]
async fn cwd_is_confined() {
    let w = ws();
    std::fs::create_dir_all(w.path("sub")).unwrap();
    let bash = BashTool::new();
    let out = w.call(&bash, json!({"command": "pwd", "cwd": "sub"})).await;
    assert_eq!(out.content.trim(), w.path("sub").display().to_string());
    let out = w.call(&bash, json!({"command": "pwd"})).await;
    assert_eq!(out.content.trim(), w.root.display().to_string());
    let out = w.call(&bash, json!({"command": "pwd", "cwd": ".."})).await;
    assert!(!out.success && out.content.contains("leaves the workspace"));
    let out = w
        .call(&bash, json!({"command": "pwd", "cwd": "missing"}))
        .await;
    assert_eq!(
        out.content,
        format!("cwd does not exist: {}", w.path("missing").display())
    );
    let out = w.call(&bash, json!({"command": "  "})).await;
    assert!(
        out.content
            .starts_with("Invalid tool arguments: command is empty")
    );
}

#[tokio::test]
async fn timeout_kills_the_whole_group() {
    let w = ws();
    let started = Instant::now();
    let out = w
        .call(
            &BashTool::new(),
            json!({"command": "sleep 30 & echo $!; sleep 30 & echo $!; wait", "timeout_seconds": 1}),
        )
        .await;
    assert!(started.elapsed() < Duration::from_secs(3));
    assert!(!out.success);
    assert!(
        out.content
            .starts_with("Timed out after 1 s; the command and its process group were killed.\n"),
        "{}",
        out.content
    );
    assert!(out.summary.ends_with("→ timed out"));
    let children = pids(&out.content);
    assert_eq!(children.len(), 2, "{}", out.content);
    all_dead_within(&children, Duration::from_millis(500)).await;
    assert!(children.iter().all(|&p| !kill0(p) || !alive(p)));
}

#[tokio::test]
async fn background_job_incremental_output_and_stop() {
    let w = ws();
    let bash = BashTool::with_foreground_wait(Duration::from_millis(300));
    let out = w
        .call(
            &bash,
            json!({"command": "echo first; sleep 0.6; echo second; sleep 30 & echo $!; wait"}),
        )
        .await;
    assert!(out.success, "{}", out.content);
    assert!(
        out.content
            .starts_with("Still running after 0.3 s; in the background as job bg-1.")
    );
    assert!(
        out.content.ends_with("Output so far:\nfirst\n"),
        "{}",
        out.content
    );
    assert!(out.summary.ends_with("→ background bg-1"));

    tokio::time::sleep(Duration::from_millis(700)).await;
    let reader = BashOutputTool::new();
    let out = w.call(&reader, json!({"job_id": "bg-1"})).await;
    assert!(out.success);
    assert!(
        out.content.starts_with("Job bg-1 is still running"),
        "{}",
        out.content
    );
    let lines: Vec<&str> = out.content.lines().skip(1).collect();
    assert_eq!(lines[0], "second", "only new output: {}", out.content);
    let child = pids(&out.content);
    assert_eq!(child.len(), 1);
    let out = w.call(&reader, json!({"job_id": "bg-1"})).await;
    assert!(out.content.ends_with("(no new output)"));

    let out = w
        .call(&BashStopTool::new(), json!({"job_id": "bg-1"}))
        .await;
    assert!(out.success);
    assert!(out.content.starts_with("Stopped job bg-1."));
    all_dead_within(&child, Duration::from_millis(500)).await;
    let out = w.call(&reader, json!({"job_id": "bg-1"})).await;
    assert!(
        out.content
            .starts_with("Job bg-1 has ended: Stopped by bash_stop."),
        "{}",
        out.content
    );
    assert!(!w.ctx.jobs.list()[0].running);

    let out = w.call(&reader, json!({"job_id": "bg-9"})).await;
    assert_eq!(
        out.content,
        "No background job with id 'bg-9'. Known jobs: bg-1."
    );
}

#[tokio::test]
async fn bash_output_can_wait_for_the_end() {
    let w = ws();
    let out = w
        .call(
            &BashTool::new(),
            json!({"command": "sleep 0.3; echo done; exit 4", "run_in_background": true}),
        )
        .await;
    assert!(
        out.content
            .starts_with("Started in the background as job bg-1.")
    );
    let out = w
        .call(
            &BashOutputTool::new(),
            json!({"job_id": "bg-1", "wait_seconds": 5}),
        )
        .await;
    assert!(!out.success);
    assert_eq!(out.content, "Job bg-1 has ended: Exit code 4\ndone\n");
    assert_eq!(out.summary, "bg-1 → exit 4");
}

#[tokio::test]
async fn stop_escalates_to_sigkill_for_a_term_ignoring_job() {
    let w = ws();
    let out = w
        .call(
            &BashTool::new(),
            json!({"command": "trap '' TERM; sleep 30 & echo $!; wait", "run_in_background": true}),
        )
        .await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    let out2 = w
        .call(&BashOutputTool::new(), json!({"job_id": "bg-1"}))
        .await;
    let child = pids(&format!("{}\n{}", out.content, out2.content));
    assert_eq!(child.len(), 1);
    let started = Instant::now();
    let out = w
        .call(&BashStopTool::new(), json!({"job_id": "bg-1"}))
        .await;
    let took = started.elapsed();
    assert!(out.content.starts_with("Stopped job bg-1."));
    assert!(
        took >= Duration::from_millis(1900) && took < Duration::from_secs(4),
        "{took:?}"
    );
    all_dead_within(&child, Duration::from_millis(300)).await;
}

#[tokio::test]
async fn cancel_kills_foreground_commands_within_200ms() {
    let w = ws();
    let ctx = w.ctx.clone();
    let run = tokio::spawn(async move {
        BashTool::new()
            .execute(
                json!({"command": "trap '' TERM; sleep 30 & echo $!; sleep 30 & echo $!; wait"}),
                &ctx,
            )
            .await
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    let started = Instant::now();
    w.ctx.cancel.cancel();
    let out = run.await.unwrap();
    let returned = started.elapsed();
    assert!(returned < Duration::from_millis(200), "{returned:?}");
    assert!(!out.success);
    assert!(
        out.content
            .starts_with("Cancelled; the command and its process group were killed.")
    );
    let children = pids(&out.content);
    assert_eq!(children.len(), 2, "{}", out.content);
    all_dead_within(
        &children,
        Duration::from_millis(200) - returned.min(Duration::from_millis(150)),
    )
    .await;
}

#[tokio::test]
async fn the_turn_end_kills_leftovers_but_background_jobs_live_on() {
    let w = ws();
    let bash = BashTool::new();
    // A foreground command that leaves a descendant behind.
    let out = w
        .call(
            &bash,
            json!({"command": "sleep 30 >/dev/null 2>&1 & echo $!"}),
        )
        .await;
    assert!(out.success, "{}", out.content);
    let victims = pids(&out.content);
    let out = w
        .call(
            &bash,
            json!({"command": "sleep 30 & echo $!; wait", "run_in_background": true}),
        )
        .await;
    assert!(out.success);
    // The job prints its child's pid once its shell runs: already in the start
    // answer's "Output so far", or later (slow on a loaded box) as new output.
    let start = Instant::now();
    let mut seen = out.content;
    let child = loop {
        if let Some(&pid) = pids(&seen).first() {
            break pid;
        }
        assert!(start.elapsed() < Duration::from_secs(20), "{seen}");
        tokio::time::sleep(Duration::from_millis(20)).await;
        seen = w
            .call(&BashOutputTool::new(), json!({"job_id": "bg-1"}))
            .await
            .content;
    };
    assert_eq!(victims.len(), 1, "{victims:?}");
    assert!(alive(victims[0]) && alive(child));
    w.ctx.cancel.cancel();
    w.ctx.jobs.end_turn();
    all_dead_within(&victims, Duration::from_millis(200)).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(alive(child), "a background job outlives the turn");
    let info = w.ctx.jobs.list();
    assert_eq!((info[0].id.as_str(), info[0].running), ("bg-1", true));
    // The session's table torn down: the job and its group die.
    assert_eq!(w.ctx.jobs.kill_all(), 1);
    all_dead_within(&[child], Duration::from_millis(200)).await;
}

#[tokio::test]
async fn a_background_job_that_ends_on_its_own_is_announced() {
    let w = ws();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let mut ctx = w.ctx.clone();
    ctx.jobs = std::sync::Arc::new(crate::Jobs::with_notify(std::sync::Arc::new(move |n| {
        let _ = tx.send(n);
    })));
    let bash = BashTool::new();
    let out = bash
        .execute(
            json!({"command": "sleep 0.3; echo finished; exit 4", "run_in_background": true}),
            &ctx,
        )
        .await;
    assert!(
        out.content.contains("It outlives this turn"),
        "{}",
        out.content
    );
    ctx.cancel.cancel();
    ctx.jobs.end_turn();
    let notice = tokio::time::timeout(Duration::from_secs(10), rx.recv())
        .await
        .expect("a notice")
        .unwrap();
    assert_eq!(notice.job_id, "bg-1");
    assert_eq!(
        notice.text,
        "background job bg-1 finished (exit=4): `sleep 0.3; echo finished; exit 4` — read its output with bash_output (job_id=\"bg-1\")."
    );
    // Its output is still there after the turn; a stopped job is not announced.
    let read = BashOutputTool::new()
        .execute(json!({"job_id": "bg-1", "wait_ms": 5000}), &ctx)
        .await;
    assert!(
        read.content.contains("finished") && read.content.contains("Exit code 4"),
        "{}",
        read.content
    );
    // The next turn, with its own token.
    ctx.cancel = tokio_util::sync::CancellationToken::new();
    let out = bash
        .execute(
            json!({"command": "sleep 30", "run_in_background": true}),
            &ctx,
        )
        .await;
    assert!(out.success);
    BashStopTool::new()
        .execute(json!({"job_id": "bg-2"}), &ctx)
        .await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(rx.try_recv().is_err(), "bash_stop is not announced");
}

#[tokio::test]
async fn a_background_job_flooding_past_the_cap_is_killed_and_announced() {
    let w = ws();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let mut ctx = w.ctx.clone();
    ctx.jobs = std::sync::Arc::new(crate::Jobs::with_notify(std::sync::Arc::new(move |n| {
        let _ = tx.send(n);
    })));
    let out = BashTool::new()
        .execute(
            json!({"command": "yes flood", "run_in_background": true}),
            &ctx,
        )
        .await;
    assert!(out.success);
    let notice = tokio::time::timeout(Duration::from_secs(20), rx.recv())
        .await
        .expect("a notice")
        .unwrap();
    assert!(
        notice.text.contains("killed: flooded past the output cap"),
        "{}",
        notice.text
    );
}

#[tokio::test]
async fn kill_all_ends_every_job_and_later_calls_still_work() {
    let w = ws();
    let bash = BashTool::new();
    let out = w
        .call(
            &bash,
            json!({"command": "sleep 30 & echo $!; wait", "run_in_background": true}),
        )
        .await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    let more = w
        .call(&BashOutputTool::new(), json!({"job_id": "bg-1"}))
        .await;
    let child = pids(&format!("{}\n{}", out.content, more.content));
    assert_eq!(w.ctx.jobs.kill_all(), 1);
    all_dead_within(&child, Duration::from_millis(200)).await;
    let out = w.call(&bash, json!({"command": "echo again"})).await;
    assert_eq!(out.content, "again\n");
}

#[tokio::test]
async fn a_flood_of_output_stays_within_budget() {
    let w = ws();
    let mut ctx = w.ctx.clone();
    ctx.max_output_chars = 4000;
    let out = BashTool::new()
        .execute(
            json!({"command": "echo start; head -c 30000000 /dev/zero | tr '\\0' x; echo; echo end"}),
            &ctx,
        )
        .await;
    assert!(
        out.success,
        "{}",
        &out.content[..200.min(out.content.len())]
    );
    assert!(out.content.chars().count() <= 4000, "{}", out.content.len());
    assert!(out.content.starts_with("start\n"));
    assert!(out.content.ends_with("\nend\n"));
    assert!(out.content.contains("[output truncated: "));
}

#[tokio::test]
async fn a_gigabyte_of_output_costs_bounded_memory() {
    let w = ws();
    let out = w
        .call(
            &BashTool::new(),
            json!({"command": "echo begin; head -c 1000000000 /dev/zero | tr '\\0' y; echo; echo finish"}),
        )
        .await;
    assert!(out.success);
    assert!(out.content.chars().count() <= w.ctx.max_output_chars);
    assert!(out.content.starts_with("begin\n"));
    assert!(out.content.ends_with("\nfinish\n"));
    assert!(
        out.content.contains("bytes of output dropped")
            || out.content.contains("[output truncated: ")
    );
}

#[tokio::test]
async fn a_table_is_empty_once_its_turn_ends_without_a_background_job() {
    let w = ws();
    assert!(w.ctx.jobs.is_empty());
    let bash = BashTool::new();
    bash.execute(json!({"command": "true"}), &w.ctx).await;
    assert!(!w.ctx.jobs.is_empty(), "a running turn's command is held");
    w.ctx.jobs.end_turn();
    assert!(
        w.ctx.jobs.is_empty(),
        "foreground commands go with their turn"
    );
    bash.execute(
        json!({"command": "sleep 30", "run_in_background": true}),
        &w.ctx,
    )
    .await;
    w.ctx.jobs.end_turn();
    assert!(!w.ctx.jobs.is_empty(), "a background job keeps the table");
    assert_eq!(w.ctx.jobs.kill_all(), 1);
}
