//! The MCP client against real servers: the official `server-everything` (npm)
//! over stdio and Streamable HTTP, and the fixture server on the official Python
//! SDK (tool errors, crashes, slow calls, child processes).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use seekclaw_mcp::{Connection, McpManager, ServerSpec, Timeouts, Transport};
use seekclaw_testkit::mcp_servers::{self, StdioCommand};
use seekclaw_testkit::process_alive as alive;
use seekclaw_tools::{Tool, ToolContext, WriteLocks};
use serde_json::json;
use tokio_util::sync::CancellationToken;

fn stdio_spec(name: &str, cmd: &StdioCommand, cwd: &Path) -> ServerSpec {
    ServerSpec {
        name: name.into(),
        transport: Transport::Stdio {
            command: cmd.command.clone(),
            args: cmd.args.clone(),
            env: Default::default(),
        },
        cwd: cwd.to_path_buf(),
    }
}

fn http_spec(name: &str, url: &str) -> ServerSpec {
    ServerSpec {
        name: name.into(),
        transport: Transport::Http {
            url: url.into(),
            headers: Default::default(),
        },
        cwd: std::env::temp_dir(),
    }
}

fn ctx(dir: &Path) -> ToolContext {
    ToolContext::new(
        dir.to_path_buf(),
        false,
        "s/1".into(),
        Arc::new(WriteLocks::new()),
        Duration::from_secs(5),
        Duration::from_secs(5),
        true,
        20_000,
        CancellationToken::new(),
    )
}

fn tool<'a>(tools: &'a [Arc<dyn Tool>], name: &str) -> &'a Arc<dyn Tool> {
    tools
        .iter()
        .find(|t| t.definition().name == name)
        .unwrap_or_else(|| {
            let names: Vec<_> = tools.iter().map(|t| t.definition().name.clone()).collect();
            panic!("no tool {name} in {names:?}")
        })
}

const T: Duration = Duration::from_secs(30);

#[tokio::test]
async fn everything_over_stdio_lists_calls_and_returns_images() {
    let dir = tempfile::tempdir().unwrap();
    let spec = stdio_spec(
        "everything",
        &mcp_servers::everything_stdio().unwrap(),
        dir.path(),
    );
    let conn = Connection::open(&spec, T).await.unwrap();
    let names: Vec<&str> = conn.tools.iter().map(|t| t.name.as_ref()).collect();
    assert!(names.contains(&"echo"), "{names:?}");
    assert!(names.contains(&"get-sum"), "{names:?}");
    assert!(
        conn.prompts.iter().any(|p| p.name == "simple-prompt"),
        "{:?}",
        conn.prompts
    );
    drop(conn);

    let manager = McpManager::new();
    let turn = manager
        .for_turn(std::slice::from_ref(&spec), Vec::new())
        .await;
    let ctx = ctx(dir.path());
    let echo = tool(&turn.tools, "mcp__everything__echo");
    assert!(!echo.definition().flags.mutating);
    let out = echo.execute(json!({"message": "hi there"}), &ctx).await;
    assert!(out.success, "{out:?}");
    assert!(out.content.contains("hi there"), "{}", out.content);
    let sum = tool(&turn.tools, "mcp__everything__get-sum");
    let out = sum.execute(json!({"a": 2, "b": 40}), &ctx).await;
    assert!(out.content.contains("42"), "{}", out.content);
    let image = tool(&turn.tools, "mcp__everything__get-tiny-image");
    let out = image.execute(json!({}), &ctx).await;
    assert!(out.success, "{out:?}");
    assert_eq!(out.images.len(), 1, "{out:?}");
    assert_eq!(out.images[0].media_type, "image/png");
    assert!(out.content.contains("[image: image/png]"));
    assert!(
        tool(&turn.tools, "mcp__everything__toggle-simulated-logging")
            .definition()
            .flags
            .mutating
    );
    assert!(turn.prompts.iter().any(|p| p.contains("simple-prompt")));
    manager.shutdown().await;
}

#[tokio::test]
async fn everything_over_streamable_http() {
    let server = mcp_servers::everything_http().unwrap();
    echo_through(http_spec("remote", &server.url), "over http").await;
}

/// Connects `spec` through a manager and calls its server's `echo` tool.
async fn echo_through(spec: ServerSpec, message: &str) {
    let manager = McpManager::new();
    let turn = manager
        .for_turn(std::slice::from_ref(&spec), Vec::new())
        .await;
    let status = manager.status(&spec);
    assert!(status.connected, "{status:?}");
    let dir = tempfile::tempdir().unwrap();
    let name = format!("mcp__{}__echo", spec.name);
    let out = tool(&turn.tools, &name)
        .execute(json!({ "message": message }), &ctx(dir.path()))
        .await;
    assert!(out.success && out.content.contains(message), "{out:?}");
    manager.shutdown().await;
}

#[tokio::test]
async fn tool_errors_crashes_and_timeouts_are_failed_results() {
    let dir = tempfile::tempdir().unwrap();
    let spec = stdio_spec("fx", &mcp_servers::fixture_stdio().unwrap(), dir.path());
    let manager = McpManager::new();
    manager.set_timeouts(Timeouts {
        connect: T,
        call: Duration::from_secs(2),
    });
    let turn = manager
        .for_turn(std::slice::from_ref(&spec), Vec::new())
        .await;
    let ctx = ctx(dir.path());
    let out = tool(&turn.tools, "mcp__fx__add")
        .execute(json!({"a": 1, "b": 2}), &ctx)
        .await;
    assert!(out.success && out.content.trim() == "3", "{out:?}");
    assert!(
        tool(&turn.tools, "mcp__fx__write_note")
            .definition()
            .flags
            .mutating
    );
    assert!(
        turn.prompts.iter().any(|p| p.contains("FIXTURE RULE")),
        "{:?}",
        turn.prompts
    );

    let out = tool(&turn.tools, "mcp__fx__fail")
        .execute(json!({"message": "boom 17"}), &ctx)
        .await;
    assert!(!out.success && out.content.contains("boom 17"), "{out:?}");

    let started = Instant::now();
    let out = tool(&turn.tools, "mcp__fx__nap")
        .execute(json!({"seconds": 10}), &ctx)
        .await;
    assert!(
        !out.success && out.content.contains("timed out after 2s"),
        "{out:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(5));

    let started = Instant::now();
    let out = tool(&turn.tools, "mcp__fx__crash")
        .execute(json!({}), &ctx)
        .await;
    assert!(!out.success, "{out:?}");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    // The crash shows in the status, then the server comes back on its own.
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut saw_error = false;
    loop {
        let status = manager.status(&spec);
        saw_error |= status
            .error
            .as_deref()
            .is_some_and(|e| e.contains("exited"));
        if saw_error && status.connected {
            break;
        }
        assert!(Instant::now() < deadline, "no reconnect: {status:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let out = tool(&turn.tools, "mcp__fx__add")
        .execute(json!({"a": 5, "b": 5}), &ctx)
        .await;
    assert!(out.success && out.content.trim() == "10", "{out:?}");
    manager.shutdown().await;
}

#[tokio::test]
async fn shutdown_leaves_no_processes_behind() {
    let dir = tempfile::tempdir().unwrap();
    let spec = stdio_spec("fx", &mcp_servers::fixture_stdio().unwrap(), dir.path());
    let manager = McpManager::new();
    let turn = manager
        .for_turn(std::slice::from_ref(&spec), Vec::new())
        .await;
    let ctx = ctx(dir.path());
    let out = tool(&turn.tools, "mcp__fx__whoami")
        .execute(json!({}), &ctx)
        .await;
    let server_pid: u32 = out
        .content
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        out.content
            .contains(dir.path().file_name().unwrap().to_str().unwrap())
    );
    let out = tool(&turn.tools, "mcp__fx__spawn_child")
        .execute(json!({}), &ctx)
        .await;
    let child_pid: u32 = out.content.trim().parse().unwrap();
    assert!(alive(server_pid) && alive(child_pid));
    manager.shutdown().await;
    let deadline = Instant::now() + Duration::from_secs(5);
    while alive(server_pid) || alive(child_pid) {
        assert!(
            Instant::now() < deadline,
            "server or its child still running"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn a_server_that_cannot_start_reports_why() {
    let dir = tempfile::tempdir().unwrap();
    let spec = stdio_spec(
        "ghost",
        &StdioCommand {
            command: "/nonexistent/mcp-server".into(),
            args: vec![],
        },
        dir.path(),
    );
    let manager = McpManager::new();
    let turn = manager
        .for_turn(std::slice::from_ref(&spec), Vec::new())
        .await;
    assert!(turn.tools.is_empty());
    let status = manager.status(&spec);
    assert!(!status.connected);
    let error = status.error.unwrap_or_default();
    assert!(
        error.contains("ghost") && error.contains("/nonexistent/mcp-server"),
        "{error}"
    );
    manager.shutdown().await;
}

#[tokio::test]
async fn a_changed_tool_list_is_picked_up() {
    let dir = tempfile::tempdir().unwrap();
    let spec = stdio_spec("fx", &mcp_servers::fixture_stdio().unwrap(), dir.path());
    let manager = McpManager::new();
    let turn = manager
        .for_turn(std::slice::from_ref(&spec), Vec::new())
        .await;
    let before = manager.status(&spec).tool_count;
    assert!(
        !turn
            .tools
            .iter()
            .any(|t| t.definition().name == "mcp__fx__extra")
    );
    let out = tool(&turn.tools, "mcp__fx__grow")
        .execute(json!({}), &ctx(dir.path()))
        .await;
    assert!(out.success, "{out:?}");
    let deadline = Instant::now() + Duration::from_secs(10);
    while manager.status(&spec).tool_count != before + 1 {
        assert!(Instant::now() < deadline, "tools/list_changed not handled");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let next = manager
        .for_turn(std::slice::from_ref(&spec), Vec::new())
        .await;
    let out = tool(&next.tools, "mcp__fx__extra")
        .execute(json!({}), &ctx(dir.path()))
        .await;
    assert!(out.success && out.content.contains("extra here"), "{out:?}");
    manager.shutdown().await;
}

/// `sse` entries try Streamable HTTP, then the legacy HTTP+SSE transport.
#[tokio::test]
async fn legacy_sse_servers_connect_through_the_fallback() {
    let server = mcp_servers::everything_sse().unwrap();
    let spec = ServerSpec {
        name: "old".into(),
        transport: Transport::Sse {
            url: server.url.clone(),
            headers: Default::default(),
        },
        cwd: std::env::temp_dir(),
    };
    echo_through(spec, "over legacy sse").await;
}
