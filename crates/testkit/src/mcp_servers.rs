//! The real MCP servers tests talk to, installed by `scripts/install-test-servers`
//! into `target/test-servers`: the official `server-everything` (npm) and our
//! fixture server on the official Python SDK (PyPI `mcp`).

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

/// The workspace root (two levels above this crate).
pub(crate) fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// `target/test-servers`, where `scripts/install-test-servers` installs.
pub(crate) fn servers_dir() -> PathBuf {
    workspace_root().join("target").join("test-servers")
}

pub(crate) fn require(path: PathBuf) -> Result<PathBuf> {
    if !path.exists() {
        bail!(
            "{} is missing: run `bash scripts/install-test-servers` (scripts/test does)",
            path.display()
        );
    }
    Ok(path)
}

/// A command line that starts an MCP server on stdio.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StdioCommand {
    pub command: String,
    pub args: Vec<String>,
}

impl StdioCommand {
    /// The `mcp.servers` entry for this command.
    pub fn config(&self) -> serde_json::Value {
        serde_json::json!({ "transport": "stdio", "command": self.command, "args": self.args })
    }
}

/// `@modelcontextprotocol/server-everything` over stdio (run by `node` directly,
/// not `npx`, so no registry access happens during tests).
pub fn everything_stdio() -> Result<StdioCommand> {
    Ok(StdioCommand {
        command: "node".into(),
        args: vec![everything_entry()?.display().to_string(), "stdio".into()],
    })
}

fn everything_entry() -> Result<PathBuf> {
    require(
        servers_dir().join("node_modules/@modelcontextprotocol/server-everything/dist/index.js"),
    )
}

fn python() -> Result<PathBuf> {
    require(servers_dir().join("py").join("bin").join("python"))
}

/// The Python of the venv that holds the official MCP Python SDK (`mcp`),
/// for tests that drive seekclaw's own MCP server with the SDK's client.
pub fn sdk_python() -> Result<PathBuf> {
    python()
}

fn fixture_script() -> Result<PathBuf> {
    require(workspace_root().join("crates/testkit/fixtures/mcp_fixture_server.py"))
}

/// Our fixture server (tools add, fail, crash, nap, write_note, spawn_child, whoami, grow, header;
/// prompt house_rules) over stdio.
pub fn fixture_stdio() -> Result<StdioCommand> {
    Ok(StdioCommand {
        command: python()?.display().to_string(),
        args: vec![fixture_script()?.display().to_string(), "stdio".into()],
    })
}

/// A server listening on HTTP, ended when dropped.
pub struct HttpServer {
    child: Child,
    /// The Streamable HTTP endpoint.
    pub url: String,
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub(crate) fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap_or(0)
}

fn wait_listening(port: u16, child: &mut Child) -> Result<()> {
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return Ok(());
        }
        if let Ok(Some(status)) = child.try_wait() {
            bail!("MCP HTTP server exited early: {status}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    bail!("MCP HTTP server did not listen on port {port} within 30 s")
}

/// Starts `command` with `PORT` set and waits until it listens there.
pub(crate) fn listening(command: Command, port: u16) -> Result<HttpServer> {
    listening_at(command, port, "/mcp")
}

/// Like [`listening`], with the endpoint at `path`.
fn listening_at(mut command: Command, port: u16, path: &str) -> Result<HttpServer> {
    let child = command
        .env("PORT", port.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .context("start an MCP server over HTTP")?;
    // Held from here on, so a server that never listens is still ended.
    let mut server = HttpServer {
        url: format!("http://127.0.0.1:{port}{path}"),
        child,
    };
    wait_listening(port, &mut server.child)?;
    Ok(server)
}

/// `server-everything` in Streamable HTTP mode on a free port.
pub fn everything_http() -> Result<HttpServer> {
    let port = free_port();
    let mut command = Command::new("node");
    command.arg(everything_entry()?).arg("streamableHttp");
    listening(command, port)
}

/// The fixture server in Streamable HTTP mode on a free port.
pub fn fixture_http() -> Result<HttpServer> {
    let port = free_port();
    let mut command = Command::new(python()?);
    command
        .arg(fixture_script()?)
        .arg("http")
        .arg(port.to_string());
    listening(command, port)
}

/// `server-everything` in its legacy HTTP+SSE mode (`GET /sse`, `POST /message`).
pub fn everything_sse() -> Result<HttpServer> {
    let port = free_port();
    let mut command = Command::new("node");
    command.arg(everything_entry()?).arg("sse");
    listening_at(command, port, "/sse")
}

/// The MCP TypeScript SDK's own example server that elicits
/// (`elicitationFormExample.js`: tools `register_user`, `create_event`,
/// `update_shipping_address`, each asking the user for a form) over
/// Streamable HTTP on a free port.
pub fn elicitation_form_http() -> Result<HttpServer> {
    let port = free_port();
    let script = require(servers_dir().join(
        "node_modules/@modelcontextprotocol/sdk/dist/esm/examples/server/elicitationFormExample.js",
    ))?;
    let mut command = Command::new("node");
    command.arg(script);
    listening(command, port)
}
