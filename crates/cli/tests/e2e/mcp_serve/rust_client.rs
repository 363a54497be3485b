//! `seekclaw mcp serve` driven by rmcp's client (progress, cancellation,
//! continuation) and by hand over its pipes (the end of its input ends the
//! running turn, recorded, and the process).

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientRequest, JsonObject, ProgressNotificationParam,
    Request,
};
use rmcp::service::{NotificationContext, PeerRequestOptions, RoleClient, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, ServiceExt};
use seekclaw_testkit::{ProviderServer, Reply};
use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::{counting, workspace};
use crate::support::bin;
use crate::support::serve::home_with;

/// Hands each progress message to the test.
#[derive(Clone)]
struct Progress(mpsc::UnboundedSender<String>);

impl ClientHandler for Progress {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let _ = self.0.send(params.message.unwrap_or_default());
    }
}

fn args(v: Value) -> JsonObject {
    v.as_object().unwrap().clone()
}

async fn call(
    client: &RunningService<RoleClient, Progress>,
    tool: &'static str,
    v: Value,
) -> CallToolResult {
    client
        .peer()
        .call_tool(CallToolRequestParams::new(tool).with_arguments(args(v)))
        .await
        .unwrap()
}

/// Polls `session_list` until the workspace's only session has `turns`
/// ended turns and none running; returns it.
async fn settled(client: &RunningService<RoleClient, Progress>, ws: &str, turns: u64) -> Value {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let listed = call(client, "session_list", json!({"workspace": ws})).await;
        let s = listed.structured_content.unwrap()["sessions"][0].clone();
        if s["running"] == false && s["turns"] == turns {
            return s;
        }
        assert!(Instant::now() < deadline, "session never settled: {s}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[test]
fn rmcp_client_streams_progress_cancels_and_continues() {
    let server = ProviderServer::start().unwrap();
    let (_tmp, home) = home_with(&server);
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace(dir.path());
    let ws = ws.to_str().unwrap().to_string();
    server.enqueue(counting(400, Duration::from_millis(25)));
    server.enqueue(Reply::plain("after cancel"));
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let mut cmd = tokio::process::Command::new(bin());
        cmd.args(["mcp", "serve"]).env("SEEKCLAW_HOME", &home);
        let (tx, mut progress) = mpsc::unbounded_channel();
        let client = Progress(tx)
            .serve(TokioChildProcess::new(cmd).unwrap())
            .await
            .unwrap();
        let info = client.peer().peer_info().unwrap();
        assert_eq!(info.server_info.clone().unwrap().name, "seekclaw");
        assert!(info.capabilities.tools.is_some());
        let tools = client.peer().list_all_tools().await.unwrap();
        assert_eq!(tools.len(), 4);

        // The request carries a progress token (rmcp sets one).
        let params = CallToolRequestParams::new("run_task")
            .with_arguments(args(json!({"prompt": "count slowly", "workspace": ws})));
        let handle = client
            .peer()
            .send_cancellable_request(
                ClientRequest::CallToolRequest(Request::new(params)),
                PeerRequestOptions::no_options(),
            )
            .await
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let m = tokio::time::timeout(left, progress.recv())
                .await
                .expect("progress within 30 s")
                .unwrap();
            if m.starts_with("answering: w") {
                break;
            }
        }
        // While it runs: listed as running, and a second task on the same
        // session is refused with a readable error.
        let listed = call(&client, "session_list", json!({"workspace": ws})).await;
        let running = listed.structured_content.unwrap()["sessions"][0].clone();
        assert_eq!(running["running"], true, "{running}");
        let busy = call(
            &client,
            "run_task",
            json!({"prompt": "also", "workspace": ws, "sessionId": running["sessionId"]}),
        )
        .await;
        assert_eq!(busy.is_error, Some(true), "{busy:?}");
        let busy_text = format!("{:?}", busy.content);
        assert!(
            busy_text.contains("is already running a task (another run_task call)"),
            "{busy_text}"
        );

        let cancelled = Instant::now();
        handle.cancel(Some("changed my mind".into())).await.unwrap();
        let s = settled(&client, &ws, 1).await;
        assert!(
            cancelled.elapsed() < Duration::from_secs(3),
            "cancel took {:?}",
            cancelled.elapsed()
        );
        let sid = s["sessionId"].as_str().unwrap().to_string();

        let next = call(
            &client,
            "run_task",
            json!({"prompt": "go on", "workspace": ws, "sessionId": sid}),
        )
        .await;
        assert_eq!(next.is_error, Some(false), "{next:?}");
        let out = next.structured_content.unwrap();
        assert_eq!(out["answer"], "after cancel");
        assert_eq!(out["sessionId"], sid.as_str());
        let got = call(&client, "session_get", json!({"sessionId": sid})).await;
        let got = got.structured_content.unwrap();
        assert_eq!(got["session"]["turns"], 2);
        let texts: Vec<&str> = got["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["text"].as_str().unwrap())
            .collect();
        assert_eq!(texts[0], "count slowly");
        assert!(texts.contains(&"go on"), "{texts:?}");
        assert_eq!(texts.last(), Some(&"after cancel"));
        client.cancel().await.unwrap();
    });
}

/// `seekclaw mcp serve` over its pipes, one JSON-RPC message per line.
pub(crate) struct Raw {
    pub(crate) child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    lines: Receiver<Value>,
}

impl Raw {
    pub(crate) fn start(home: &std::path::Path) -> Raw {
        let mut child = Command::new(bin())
            .args(["mcp", "serve"])
            .env("SEEKCLAW_HOME", home)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let v: Value = serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line}"));
                if tx.send(v).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        Raw {
            child,
            stdin,
            lines,
        }
    }

    pub(crate) fn send(&mut self, v: Value) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{v}").unwrap();
        stdin.flush().unwrap();
    }

    /// The response to request `id` (notifications before it are skipped).
    pub(crate) fn response(&self, id: u64) -> Value {
        loop {
            let v = self
                .lines
                .recv_timeout(Duration::from_secs(30))
                .expect("a response within 30 s");
            if v["id"] == id {
                return v;
            }
        }
    }

    pub(crate) fn initialize(&mut self) -> Value {
        self.send(
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "e2e", "version": "1"}}}),
        );
        let r = self.response(0);
        self.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        r
    }

    pub(crate) fn call(&mut self, id: u64, tool: &str, arguments: Value) {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}}));
    }

    pub(crate) fn close_stdin(&mut self) {
        drop(self.stdin.take());
    }
}

/// How a test stops the server in the middle of a turn.
enum Stop {
    /// Close its stdin (how stdio clients stop a server).
    Eof,
    /// SIGTERM.
    Term,
}

/// Stops the server while a `run_task` streams: the process exits promptly
/// and cleanly, and the turn's end is in the store.
fn stopped_mid_turn(stop: Stop) {
    let server = ProviderServer::start().unwrap();
    let (_tmp, home) = home_with(&server);
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace(dir.path());
    server.enqueue(counting(400, Duration::from_millis(25)));
    let mut raw = Raw::start(&home);
    raw.initialize();
    // A malformed line and a bad call first: neither ends the connection.
    raw.send(json!("not a request"));
    raw.call(1, "session_get", json!({"sessionId": 7}));
    let bad = raw.response(1);
    assert_eq!(bad["result"]["isError"], true, "{bad}");
    raw.call(2, "run_task", json!({"prompt": "count", "workspace": ws}));
    server.wait_requests(1, Duration::from_secs(30)).unwrap();
    let stopped = Instant::now();
    match stop {
        Stop::Eof => raw.close_stdin(),
        Stop::Term => {
            let pid = raw.child.id() as i32;
            assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
        }
    }
    let deadline = stopped + Duration::from_secs(10);
    let status = loop {
        if let Some(status) = raw.child.try_wait().unwrap() {
            break status;
        }
        assert!(
            Instant::now() < deadline,
            "still running 10 s after the stop"
        );
        std::thread::sleep(Duration::from_millis(10));
    };
    assert!(status.success(), "{status:?}");
    assert!(
        stopped.elapsed() < Duration::from_secs(3),
        "{:?}",
        stopped.elapsed()
    );

    // The turn's end is in the store: a new server lists it, not running.
    let mut again = Raw::start(&home);
    again.initialize();
    again.call(1, "session_list", json!({"workspace": ws}));
    let listed = again.response(1);
    let s = &listed["result"]["structuredContent"]["sessions"][0];
    assert_eq!(s["running"], false, "{listed}");
    assert_eq!(s["turns"], 1, "{listed}");
    again.close_stdin();
    assert!(again.child.wait().unwrap().success());
}

#[test]
fn closing_stdin_cancels_the_running_task_records_it_and_exits() {
    stopped_mid_turn(Stop::Eof);
}

#[test]
fn sigterm_cancels_the_running_task_records_it_and_exits() {
    stopped_mid_turn(Stop::Term);
}

/// A job that ends after its `run_task` turn reaches the session's log, and
/// the next `run_task` on the session reads it.
#[test]
fn a_job_that_ends_after_its_task_reaches_the_log_and_the_next_task() {
    let server = ProviderServer::start().unwrap();
    let (_tmp, home) = home_with(&server);
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace(dir.path());
    let ws = ws.to_str().unwrap().to_string();
    server.enqueue(Reply::new().tool_call(
        "b1",
        "bash",
        r#"{"command":"sleep 0.5; echo bgdone","run_in_background":true}"#,
    ));
    server.enqueue(Reply::plain("started it"));
    server.enqueue(Reply::plain("it finished"));
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let mut cmd = tokio::process::Command::new(bin());
        cmd.args(["mcp", "serve"]).env("SEEKCLAW_HOME", &home);
        let (tx, _progress) = mpsc::unbounded_channel();
        let client = Progress(tx)
            .serve(TokioChildProcess::new(cmd).unwrap())
            .await
            .unwrap();
        let first = call(
            &client,
            "run_task",
            json!({"prompt": "start a job", "workspace": ws}),
        )
        .await;
        let first = first.structured_content.unwrap();
        let sid = first["sessionId"].as_str().unwrap().to_string();
        let (home, sid2, ws2) = (home.clone(), sid.clone(), ws.clone());
        tokio::task::spawn_blocking(move || {
            crate::support::wait_in_log(
                &home,
                &sid2,
                &["--workspace", &ws2],
                "bg-1 finished (exit=0)",
            )
        })
        .await
        .unwrap();
        let next = call(
            &client,
            "run_task",
            json!({"prompt": "and?", "workspace": ws, "sessionId": sid}),
        )
        .await;
        assert_eq!(next.structured_content.unwrap()["status"], "done");
        client.cancel().await.unwrap();
    });
    let last = server.requests().last().unwrap().body.to_string();
    assert!(last.contains("bg-1 finished (exit=0)"), "{last}");
}
