//! The file tools through the editor (`fs/read_text_file`,
//! `fs/write_text_file`) when the client offers both: the model reads
//! unsaved buffers and its edits land in the editor's undo history.

use std::path::Path;

use seekclaw_tools::{FileAccess, FileFuture};
use serde_json::{Value, json};

use crate::rpc::Peer;

/// One session's file access through the client.
pub struct EditorFiles {
    peer: Peer,
    session_id: String,
}

impl std::fmt::Debug for EditorFiles {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EditorFiles")
            .field("session_id", &self.session_id)
            .finish()
    }
}

impl EditorFiles {
    /// Access for `session_id` over `peer`.
    pub fn new(peer: Peer, session_id: String) -> EditorFiles {
        EditorFiles { peer, session_id }
    }
}

/// Whether the client's `initialize` offers both file methods.
pub fn offered(initialize_params: &Value) -> bool {
    let fs = &initialize_params["clientCapabilities"]["fs"];
    fs["readTextFile"].as_bool() == Some(true) && fs["writeTextFile"].as_bool() == Some(true)
}

impl FileAccess for EditorFiles {
    fn read_text<'a>(&'a self, path: &'a Path) -> FileFuture<'a, String> {
        Box::pin(async move {
            let params = json!({"sessionId": self.session_id, "path": path.display().to_string()});
            let answer = self
                .peer
                .request("fs/read_text_file", params)
                .await
                .map_err(|e| format!("the editor could not read it ({})", e.message))?;
            answer["content"]
                .as_str()
                .map(str::to_string)
                .ok_or_else(|| "the editor's answer has no text content".to_string())
        })
    }

    fn write_text<'a>(&'a self, path: &'a Path, text: &'a str) -> FileFuture<'a, ()> {
        Box::pin(async move {
            let params = json!({"sessionId": self.session_id, "path": path.display().to_string(), "content": text});
            self.peer
                .request("fs/write_text_file", params)
                .await
                .map(|_| ())
                .map_err(|e| format!("the editor could not write it ({})", e.message))
        })
    }
}
