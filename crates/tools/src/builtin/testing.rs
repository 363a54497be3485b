//! Test fixtures: a real workspace in a temp dir and a context over it.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::locks::WriteLocks;
use crate::tool::{Tool, ToolContext, ToolOutput};

pub(crate) struct Ws {
    pub _dir: tempfile::TempDir,
    pub root: PathBuf,
    pub ctx: ToolContext,
}

pub(crate) fn ws() -> Ws {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap().join("ws");
    std::fs::create_dir_all(&root).unwrap();
    let ctx = ToolContext::new(
        root.clone(),
        false,
        "s1/0000aaaa".to_string(),
        Arc::new(WriteLocks::new()),
        Duration::from_secs(5),
        Duration::from_secs(60),
        true,
        60_000,
        CancellationToken::new(),
    );
    Ws {
        _dir: dir,
        root,
        ctx,
    }
}

impl Ws {
    pub fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    pub fn write(&self, rel: &str, content: impl AsRef<[u8]>) {
        let path = self.path(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, content).unwrap();
    }

    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path(rel)).unwrap()
    }

    pub fn exists(&self, rel: &str) -> bool {
        Path::new(&self.path(rel)).exists()
    }

    pub async fn call(&self, tool: &dyn Tool, args: Value) -> ToolOutput {
        tool.execute(args, &self.ctx).await
    }
}
