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
