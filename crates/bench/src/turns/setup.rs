//! What every turn benchmark starts from: a scratch directory with a small
//! workspace, a testkit provider server, and a fresh daemon whose only provider
//! is that server (each section gets its own daemon, so peak RSS and
//! connection counts belong to one section).

use std::path::Path;

use anyhow::{Context, Result};
use seekclaw_testkit::ProviderServer;
use serde_json::{Value, json};

use crate::daemon::{DaemonProc, JsonlClient};

/// The file the tool-calling turns read.
pub const SMALL_FILE: &str = "small.txt";
const SMALL_TEXT: &str = "alpha\nbeta\ngamma\n";

/// The scratch directory of one `turns` run.
pub struct Scratch {
    dir: tempfile::TempDir,
    workspace: String,
}

impl Scratch {
    pub fn new() -> Result<Scratch> {
        let dir = tempfile::Builder::new()
            .prefix("sc-bench-turns-")
            .tempdir()?;
        let ws = dir.path().join("ws");
        std::fs::create_dir_all(&ws)?;
        std::fs::write(ws.join(SMALL_FILE), SMALL_TEXT)?;
        let workspace = ws
            .to_str()
            .context("the temp directory path is not UTF-8")?
            .to_string();
        Ok(Scratch { dir, workspace })
    }

    /// The workspace every turn runs in (`workspace` param).
    pub fn workspace(&self) -> &str {
        &self.workspace
    }

    pub fn dir(&self) -> &Path {
        self.dir.path()
    }
}

/// `config.json` with the testkit server as the only provider. Retries are
/// fast so a fault shows up as an error quickly instead of as a slow turn.
pub fn config(base_url: &str, http2: bool) -> Value {
    json!({
        "providers": [{
            "id": "tk", "kind": "openai", "baseUrl": base_url, "apiKey": "sk-bench",
            "http2PriorKnowledge": http2, "timeoutSeconds": 120,
            "models": [{"id": "m1", "contextWindow": 128000, "maxOutput": 4096}],
        }],
        "routing": {"retry": {"baseDelaySeconds": 0.01, "maxDelaySeconds": 0.05}},
    })
}

/// A daemon for one section: its home lives under the scratch directory.
pub struct SectionDaemon {
    pub daemon: DaemonProc,
}

impl SectionDaemon {
    /// Writes the config for `server` and starts the daemon; returns it with
    /// the connection that got its first pong.
    pub fn start(
        bin: &Path,
        scratch: &Scratch,
        name: &str,
        server: &ProviderServer,
        http2: bool,
    ) -> Result<(SectionDaemon, JsonlClient)> {
        Self::start_config(bin, scratch, name, &config(&server.base_url(), http2))
    }

    /// [`SectionDaemon::start`] with a config of the caller's.
    pub fn start_config(
        bin: &Path,
        scratch: &Scratch,
        name: &str,
        config: &Value,
    ) -> Result<(SectionDaemon, JsonlClient)> {
        let home = scratch.dir().join(format!("home-{name}"));
        std::fs::create_dir_all(&home)?;
        let cfg = serde_json::to_vec_pretty(config)?;
        std::fs::write(home.join("config.json"), cfg)?;
        let log = scratch.dir().join(format!("daemon-{name}.stderr"));
        let mut daemon = DaemonProc::spawn(bin, &home, &log)?;
        let (_, client) = daemon
            .wait_answering()
            .with_context(|| format!("start the {name} daemon"))?;
        Ok((SectionDaemon { daemon }, client))
    }

    pub fn connect(&self) -> Result<JsonlClient> {
        JsonlClient::connect(&self.daemon.socket)
    }

    /// Shuts the daemon down; returns its stderr (warnings and errors only).
    pub fn finish(self) -> Result<String> {
        let stderr = self.daemon.stderr();
        self.daemon.shutdown().context("daemon shutdown")?;
        Ok(stderr)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_names_the_server_and_the_transport() {
        let c = config("http://127.0.0.1:9", true);
        let p = &c["providers"][0];
        assert_eq!(p["baseUrl"], "http://127.0.0.1:9");
        assert_eq!(p["http2PriorKnowledge"], true);
        assert_eq!(p["models"][0]["id"], "m1");
        assert_eq!(
            config("x", false)["providers"][0]["http2PriorKnowledge"],
            false
        );
    }

    #[test]
    fn scratch_holds_the_workspace_file() {
        let s = Scratch::new().unwrap();
        let text = std::fs::read_to_string(Path::new(s.workspace()).join(SMALL_FILE)).unwrap();
        assert_eq!(text, SMALL_TEXT);
    }
}
