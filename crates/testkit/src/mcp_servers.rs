//! The real MCP servers tests talk to, installed by `scripts/install-test-servers`
//! into `target/test-servers`: the official `server-everything` (npm) and our
//! fixture server on the official Python SDK (PyPI `mcp`).

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The workspace root (two levels above this crate).
fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

fn servers_dir() -> PathBuf {
    workspace_root().join("target").join("test-servers")
}

fn require(path: PathBuf) -> PathBuf {
    assert!(
        path.exists(),
        "{} is missing: run `bash scripts/install-test-servers` (scripts/test does)",
        path.display()
    );
    path
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
pub fn everything_stdio() -> StdioCommand {
    let entry = require(
        servers_dir().join("node_modules/@modelcontextprotocol/server-everything/dist/index.js"),
    );
    StdioCommand {
        command: "node".into(),
        args: vec![entry.display().to_string(), "stdio".into()],
    }
}

fn python() -> PathBuf {
    require(servers_dir().join("py").join("bin").join("python"))
}

fn fixture_script() -> PathBuf {
    require(workspace_root().join("crates/testkit/fixtures/mcp_fixture_server.py"))
}

/// Our fixture server (tools add, fail, crash, nap, write_note, spawn_child, whoami, grow, header;
/// prompt house_rules) over stdio.
pub fn fixture_stdio() -> StdioCommand {
    StdioCommand {
        command: python().display().to_string(),
        args: vec![fixture_script().display().to_string(), "stdio".into()],
    }
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

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap_or(0)
}

fn wait_listening(port: u16, child: &mut Child) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return;
        }
        if let Ok(Some(status)) = child.try_wait() {
            panic!("MCP HTTP server exited early: {status}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("MCP HTTP server did not listen on port {port} within 30 s");
}

/// `server-everything` in Streamable HTTP mode on a free port.
pub fn everything_http() -> HttpServer {
    let entry = require(
        servers_dir().join("node_modules/@modelcontextprotocol/server-everything/dist/index.js"),
    );
    let port = free_port();
    let mut child = Command::new("node")
        .arg(entry)
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start server-everything over HTTP");
    wait_listening(port, &mut child);
    HttpServer {
        child,
        url: format!("http://127.0.0.1:{port}/mcp"),
    }
}

/// The fixture server in Streamable HTTP mode on a free port.
pub fn fixture_http() -> HttpServer {
    let port = free_port();
    let mut child = Command::new(python())
        .arg(fixture_script())
        .arg("http")
        .arg(port.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the fixture server over HTTP");
    wait_listening(port, &mut child);
    HttpServer {
        child,
        url: format!("http://127.0.0.1:{port}/mcp"),
    }
}
