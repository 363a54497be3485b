//! `seekclaw mcp serve`: the engine as an MCP server over stdio, driven by
//! the official MCP Python SDK's client and by rmcp's client, against the
//! testkit provider and the real store.

mod rust_client;
mod sdk;

use std::path::{Path, PathBuf};
use std::time::Duration;

use seekclaw_testkit::Reply;

/// A reply streaming `w0 w1 …` (`n` words), one every `delay`.
pub(crate) fn counting(n: usize, delay: Duration) -> Reply {
    (0..n).fold(Reply::new().chunk_delay(delay), |r, i| {
        r.text(format!("w{i} "))
    })
}

/// A project directory with a file the agent reads.
pub(crate) fn workspace(parent: &Path) -> PathBuf {
    let ws = crate::support::project_dir(parent, "proj");
    std::fs::write(ws.join("notes.txt"), "the word is plover\n").unwrap();
    ws
}
