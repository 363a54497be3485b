//! The OAuth-guarded MCP fixture (`fixtures/oauth_mcp_server.mjs`): the
//! official TypeScript SDK's authorization server (`mcpAuthRouter`) and bearer
//! guard in front of a Streamable HTTP MCP server with one tool,
//! `whoami_oauth`. Plus a "browser" for `$BROWSER` that follows the
//! authorization URL back to the client's loopback listener, unattended.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

use crate::mcp_servers::{HttpServer, free_port, listening, require, servers_dir, workspace_root};

/// The running fixture; ended when dropped.
pub struct OAuthServer {
    server: HttpServer,
    port: u16,
}

/// One raw HTTP answer.
#[derive(Debug, Clone)]
pub struct RawResponse {
    pub status: u16,
    /// Header lines, lowercased names.
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl RawResponse {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Starts the fixture on a free port; access tokens live `token_ttl_secs`.
pub fn oauth_http(token_ttl_secs: u64) -> Result<OAuthServer> {
    let script = require(workspace_root().join("crates/testkit/fixtures/oauth_mcp_server.mjs"))?;
    require(servers_dir().join("node_modules/@modelcontextprotocol/sdk/package.json"))?;
    let port = free_port();
    let mut command = Command::new("node");
    command
        .arg(script)
        .env("SERVERS_DIR", servers_dir())
        .env("TOKEN_TTL", token_ttl_secs.to_string());
    Ok(OAuthServer {
        server: listening(command, port)?,
        port,
    })
}

impl OAuthServer {
    /// The MCP endpoint (`/mcp`).
    pub fn url(&self) -> &str {
        &self.server.url
    }

    /// The fixture's counters (`registrations`, `authorizations`,
    /// `codeExchanges`, `refreshes`, `refreshRefused`, `rejectedTokens`).
    pub fn stats(&self) -> Result<serde_json::Value> {
        let r = self.request("GET", "/admin/stats", &[], "")?;
        serde_json::from_str(&r.body).context("stats body")
    }

    /// A counter of [`stats`](Self::stats).
    pub fn stat(&self, name: &str) -> u64 {
        self.stats()
            .ok()
            .and_then(|s| s[name].as_u64())
            .unwrap_or(0)
    }

    /// `revoke-refresh` (every refresh token dies) or `expire-access`.
    pub fn admin(&self, what: &str) -> Result<()> {
        let r = self.request("POST", &format!("/admin/{what}"), &[], "")?;
        if r.status != 200 {
            bail!("admin {what}: HTTP {}", r.status);
        }
        Ok(())
    }

    /// A raw HTTP/1.1 request to the fixture (no redirect is followed).
    pub fn request(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &str,
    ) -> Result<RawResponse> {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port))?;
        let mut head = format!(
            "{method} {path} HTTP/1.1\r\nhost: 127.0.0.1:{}\r\nconnection: close\r\ncontent-length: {}\r\n",
            self.port,
            body.len()
        );
        for (k, v) in headers {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
        head.push_str("\r\n");
        stream.write_all(head.as_bytes())?;
        stream.write_all(body.as_bytes())?;
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw)?;
        let text = String::from_utf8_lossy(&raw).to_string();
        let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
        let mut lines = head.lines();
        let status = lines
            .next()
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|s| s.parse().ok())
            .context("status line")?;
        let headers = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
            .collect();
        Ok(RawResponse {
            status,
            headers,
            body: body.to_string(),
        })
    }
}

/// Writes an executable `$BROWSER` into `dir` that GETs the URL it is given
/// and follows the redirects (to the client's loopback listener), as a user's
/// browser would after the user approved; it logs each URL to `browser.log`.
pub fn browser_script(dir: &Path) -> Result<PathBuf> {
    let path = dir.join("browser.sh");
    let log = dir.join("browser.log");
    std::fs::write(
        &path,
        format!(
            "#!/bin/sh\necho \"$1\" >> '{}'\nexec curl -s -L -o /dev/null \"$1\"\n",
            log.display()
        ),
    )?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))?;
    }
    Ok(path)
}
