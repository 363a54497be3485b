//! Where the file tools read and write text: the disk, or a front end that
//! holds the files' buffers (an ACP editor: the model sees unsaved changes,
//! and its edits land in the editor's undo history). Confinement, locks and
//! approvals stay the tools' own; only the bytes travel elsewhere.

use std::fmt::Debug;
use std::future::Future;
use std::path::Path;
use std::pin::Pin;

use crate::confine::ConfinedPath;
use crate::error::ToolError;

/// A delegated read or write; the error is the front end's message.
pub type FileFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, String>> + Send + 'a>>;

/// Text file access through a front end.
pub trait FileAccess: Send + Sync + Debug {
    /// The whole text of the file at the absolute path `path`.
    fn read_text<'a>(&'a self, path: &'a Path) -> FileFuture<'a, String>;
    /// Replaces (or creates) the file at `path` with `text`.
    fn write_text<'a>(&'a self, path: &'a Path, text: &'a str) -> FileFuture<'a, ()>;
}

/// Reads `path` through `files`, worded as the disk read's errors are.
pub(crate) async fn read(files: &dyn FileAccess, path: &ConfinedPath) -> Result<String, ToolError> {
    files
        .read_text(&path.abs)
        .await
        .map_err(|e| ToolError::failed(format!("Cannot read {}: {e}", path.rel)))
}

/// Writes `path` through `files`.
pub(crate) async fn write(
    files: &dyn FileAccess,
    path: &ConfinedPath,
    text: &str,
) -> Result<(), ToolError> {
    files
        .write_text(&path.abs, text)
        .await
        .map_err(|e| ToolError::failed(format!("Cannot write {}: {e}", path.rel)))
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::path::PathBuf;
    use std::sync::{Arc, Mutex};

    use serde_json::json;

    use super::*;
    use crate::builtin::testing::ws;
    use crate::builtin::{EditFileTool, MultiEditTool, ReadFileTool, WriteFileTool};

    /// An editor's buffers.
    #[derive(Debug, Default)]
    struct Buffers(Mutex<HashMap<PathBuf, String>>);

    impl FileAccess for Buffers {
        fn read_text<'a>(&'a self, path: &'a Path) -> FileFuture<'a, String> {
            let found = self.0.lock().unwrap().get(path).cloned();
            Box::pin(async move { found.ok_or_else(|| "no such buffer".to_string()) })
        }
        fn write_text<'a>(&'a self, path: &'a Path, text: &'a str) -> FileFuture<'a, ()> {
            self.0
                .lock()
                .unwrap()
                .insert(path.to_path_buf(), text.to_string());
            Box::pin(async { Ok(()) })
        }
    }

    #[tokio::test]
    async fn file_tools_use_the_front_ends_buffers() {
        let mut w = ws();
        w.write("a.txt", "disk\n");
        let buffers = Arc::new(Buffers::default());
        buffers
            .0
            .lock()
            .unwrap()
            .insert(w.path("a.txt"), "one\ntwo\n".into());
        w.ctx.files = Some(buffers.clone());
        let read = w.call(&ReadFileTool::new(), json!({"path": "a.txt"})).await;
        assert_eq!(read.content, "1\tone\n2\ttwo\n");
        let edit = json!({"path": "a.txt", "old_string": "two", "new_string": "2"});
        let out = w.call(&EditFileTool::new(), edit).await;
        assert!(out.success, "{}", out.content);
        assert!(out.diff.unwrap().contains("-two\n+2\n"));
        let multi = json!({"path": "a.txt", "edits": [{"old_string": "one", "new_string": "1"}]});
        assert!(w.call(&MultiEditTool::new(), multi).await.success);
        let new = json!({"path": "b.txt", "content": "new\n"});
        let out = w.call(&WriteFileTool::new(), new).await;
        assert_eq!(out.content, "Created b.txt");
        let held = buffers.0.lock().unwrap().clone();
        assert_eq!(held[&w.path("a.txt")], "1\n2\n");
        assert_eq!(held[&w.path("b.txt")], "new\n");
        assert_eq!(w.read("a.txt"), "disk\n", "the disk is left alone");
        assert!(!w.exists("b.txt"));
        let missing = w.call(&ReadFileTool::new(), json!({"path": "c.txt"})).await;
        assert_eq!(missing.content, "Cannot read c.txt: no such buffer");
    }
}
