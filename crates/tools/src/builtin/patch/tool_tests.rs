use std::time::Duration;

use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::*;
use crate::builtin::testing::ws;
use crate::tool::Tool;

fn patch(body: &str) -> serde_json::Value {
    json!({ "input": format!("*** Begin Patch\n{body}*** End Patch\n") })
}

#[tokio::test]
async fn adds_updates_deletes_and_moves_in_one_patch() {
    let w = ws();
    w.write("src/a.rs", "fn a() {\n    1\n}\n");
    w.write("old.txt", "bye\n");
    w.write("src/m.rs", "mod m;\nlet x = 1;\n");
    let out = w
        .call(
            &ApplyPatchTool::new(),
            patch(
                "*** Update File: src/a.rs\n@@ fn a() {\n-    1\n+    2\n\
*** Add File: docs/new.md\n+# New\n+text\n\
*** Delete File: old.txt\n\
*** Update File: src/m.rs\n*** Move to: src/n.rs\n@@\n mod m;\n-let x = 1;\n+let x = 2;\n",
            ),
        )
        .await;
    assert!(out.success, "{}", out.content);
    assert_eq!(
        out.content,
        "Updated src/a.rs\nAdded docs/new.md\nDeleted old.txt\nMoved src/m.rs → src/n.rs"
    );
    assert_eq!(out.summary, "Patched 4 files");
    assert_eq!(w.read("src/a.rs"), "fn a() {\n    2\n}\n");
    assert_eq!(w.read("docs/new.md"), "# New\ntext\n");
    assert!(!w.exists("old.txt") && !w.exists("src/m.rs"));
    assert_eq!(w.read("src/n.rs"), "mod m;\nlet x = 2;\n");
    assert_eq!(out.file_path.as_deref(), Some("src/a.rs"));
    let diff = out.diff.unwrap();
    assert!(
        diff.starts_with("--- a/src/a.rs\n+++ b/src/a.rs\n"),
        "{diff}"
    );
    assert!(
        diff.contains("--- a/docs/new.md\n+++ b/docs/new.md\n@@ -0,0 +1,2 @@\n+# New\n+text\n")
    );
    assert!(diff.contains("--- a/old.txt\n+++ b/old.txt\n@@ -1 +0,0 @@\n-bye\n"));
    assert!(diff.contains("--- a/src/m.rs\n+++ b/src/n.rs\n"), "{diff}");
    assert_eq!(out.file_diffs.len(), 4);
    assert_eq!(out.file_diffs[3].0, "src/n.rs");
    let mut touched = out.touched_paths.clone();
    touched.sort();
    assert_eq!(
        touched,
        ["docs/new.md", "old.txt", "src/a.rs", "src/m.rs", "src/n.rs"]
    );
    assert!(out.mutated);
    assert!(w.ctx.locks.snapshot().is_empty(), "every lock released");
}

#[tokio::test]
async fn one_file_patch_reads_like_edit_file() {
    let w = ws();
    w.write("a.txt", "one\ntwo\n");
    let out = w
        .call(
            &ApplyPatchTool::new(),
            patch("*** Update File: a.txt\n@@\n-two\n+2\n"),
        )
        .await;
    assert!(out.success, "{}", out.content);
    assert_eq!(
        (out.content.as_str(), out.summary.as_str()),
        ("Updated a.txt", "Updated a.txt")
    );
    assert_eq!(
        out.diff.as_deref(),
        Some("--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n")
    );
    assert!(out.file_diffs.is_empty());
    assert_eq!(out.touched_paths, ["a.txt"]);
}

#[tokio::test]
async fn the_whole_patch_or_nothing() {
    let w = ws();
    w.write("a.txt", "alpha\n");
    w.write("b.txt", "beta\n");
    let before_locks = w.ctx.locks.snapshot();
    let out = w
        .call(
            &ApplyPatchTool::new(),
            patch(
                "*** Update File: a.txt\n@@\n-alpha\n+ALPHA\n*** Delete File: b.txt\n*** Add File: c.txt\n+c\n\
*** Update File: b.txt\n@@\n-missing\n+x\n",
            ),
        )
        .await;
    assert!(!out.success);
    assert_eq!(out.content, "Cannot update b.txt: file not found.");
    assert_eq!(w.read("a.txt"), "alpha\n");
    assert_eq!(w.read("b.txt"), "beta\n");
    assert!(!w.exists("c.txt"));
    let out = w
        .call(
            &ApplyPatchTool::new(),
            patch("*** Update File: a.txt\n@@\n-alpha\n+ALPHA\n*** Update File: b.txt\n@@\n-gamma\n+x\n"),
        )
        .await;
    assert!(!out.success);
    assert!(
        out.content
            .starts_with("Hunk 1 of 1 for b.txt (patch line 7) failed: "),
        "{}",
        out.content
    );
    assert!(out.content.ends_with("No changes were written."));
    assert_eq!(w.read("a.txt"), "alpha\n");
    assert_eq!(w.ctx.locks.snapshot(), before_locks);
}

#[tokio::test]
async fn add_on_an_existing_file_and_ambiguous_hunks_are_refused() {
    let w = ws();
    w.write("a.txt", "x\ny\nx\ny\n");
    let tool = ApplyPatchTool::new();
    let out = w.call(&tool, patch("*** Add File: a.txt\n+new\n")).await;
    assert_eq!(
        out.content,
        "Cannot add a.txt: it already exists. Use `*** Update File: a.txt` to change it (or delete it first)."
    );
    let out = w
        .call(&tool, patch("*** Update File: a.txt\n@@\n x\n-y\n+z\n"))
        .await;
    assert!(
        !out.success && out.content.contains("matches 2 places in a.txt"),
        "{}",
        out.content
    );
    assert_eq!(w.read("a.txt"), "x\ny\nx\ny\n");
    // Deleting and re-adding in one patch is a rewrite.
    let out = w
        .call(
            &tool,
            patch("*** Delete File: a.txt\n*** Add File: a.txt\n+fresh\n"),
        )
        .await;
    assert!(out.success, "{}", out.content);
    assert_eq!(w.read("a.txt"), "fresh\n");
    let out = w
        .call(
            &tool,
            patch("*** Update File: a.txt\n*** Move to: a.txt\n@@\n-fresh\n+again\n"),
        )
        .await;
    assert!(out.success, "{}", out.content);
    w.write("b.txt", "b\n");
    let out = w
        .call(
            &tool,
            patch("*** Update File: a.txt\n*** Move to: b.txt\n@@\n-again\n+x\n"),
        )
        .await;
    assert_eq!(
        out.content,
        "Cannot move a.txt to b.txt: it already exists."
    );
}

#[tokio::test]
async fn conventions_are_kept() {
    let w = ws();
    w.write("crlf.txt", "one\r\ntwo\r\nthree\r\n");
    w.write("bom.txt", "\u{feff}first\nsecond\n");
    w.write("nonl.txt", "a\nb");
    let out = w
        .call(
            &ApplyPatchTool::new(),
            patch(
                "*** Update File: crlf.txt\n@@\n one\n-two\n+2\n+2b\n\
*** Update File: bom.txt\n@@\n-first\n+1st\n\
*** Update File: nonl.txt\n@@\n a\n-b\n+c\n",
            ),
        )
        .await;
    assert!(out.success, "{}", out.content);
    assert_eq!(w.read("crlf.txt"), "one\r\n2\r\n2b\r\nthree\r\n");
    assert_eq!(w.read("bom.txt"), "\u{feff}1st\nsecond\n");
    assert_eq!(w.read("nonl.txt"), "a\nc");
}

#[tokio::test]
async fn paths_are_confined_and_errors_are_clear() {
    let w = ws();
    let tool = ApplyPatchTool::new();
    let out = w
        .call(&tool, patch("*** Add File: ../escape.txt\n+x\n"))
        .await;
    assert!(
        !out.success && out.content.contains("leaves the workspace"),
        "{}",
        out.content
    );
    let out = w
        .call(
            &tool,
            json!({"input": "*** Begin Patch\n*** Update File: a\nbad\n*** End Patch"}),
        )
        .await;
    assert!(
        out.content.starts_with("Invalid patch, line 3: "),
        "{}",
        out.content
    );
    let out = w.call(&tool, patch("*** Delete File: nope.txt\n")).await;
    assert_eq!(out.content, "Cannot delete nope.txt: file not found.");
    w.write("bin.dat", b"a\0b");
    let out = w
        .call(&tool, patch("*** Update File: bin.dat\n@@\n-a\n+b\n"))
        .await;
    assert!(
        out.content.contains("looks like a binary file"),
        "{}",
        out.content
    );
    let out = w.call(&tool, patch("*** Delete File: bin.dat\n")).await;
    assert!(out.success && !w.exists("bin.dat"), "{}", out.content);
    assert!(w.ctx.locks.snapshot().is_empty());
}

#[tokio::test]
async fn waits_for_every_files_lock_and_previews() {
    let w = ws();
    w.write("a.txt", "a\n");
    w.write("b.txt", "b1\n");
    let never = CancellationToken::new();
    let b = w.path("b.txt");
    w.ctx
        .locks
        .acquire(&w.root, &b, "other/1", Duration::from_secs(1), &never)
        .await
        .unwrap();
    let args = patch("*** Update File: a.txt\n@@\n-a\n+A\n*** Update File: b.txt\n@@\n-b2\n+B\n");
    let tool = ApplyPatchTool::new();
    let preview = tool.preview(&args, &w.ctx);
    assert_eq!(preview, None, "b.txt does not hold b2 yet");
    let ctx = w.ctx.clone();
    let call = args.clone();
    let pending = tokio::spawn(async move { ApplyPatchTool::new().execute(call, &ctx).await });
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(!pending.is_finished(), "waits for b.txt's lock");
    std::fs::write(&b, "b2\n").unwrap();
    let preview = tool.preview(&args, &w.ctx).unwrap();
    assert!(
        preview.contains("-a\n+A\n") && preview.contains("-b2\n+B\n"),
        "{preview}"
    );
    w.ctx.locks.release(&w.root, &b, "other/1");
    let out = pending.await.unwrap();
    assert!(out.success, "{}", out.content);
    assert_eq!(
        (w.read("a.txt"), w.read("b.txt")),
        ("A\n".into(), "B\n".into())
    );
    assert!(w.ctx.locks.snapshot().is_empty());
}

#[test]
fn offered_as_freeform_with_an_input_schema() {
    let tool = ApplyPatchTool::new();
    let def = tool.definition();
    assert_eq!(def.name, "apply_patch");
    assert!(def.flags.mutating);
    assert_eq!(def.parameters["required"], json!(["input"]));
    let freeform = def.freeform.as_ref().unwrap();
    assert_eq!(freeform.syntax, "lark");
    assert_eq!(freeform.definition, PATCH_GRAMMAR);
}

#[tokio::test]
async fn edits_go_through_the_front_ends_buffers() {
    use std::collections::HashMap;
    use std::path::{Path, PathBuf};
    use std::sync::{Arc, Mutex};

    use crate::files::{FileAccess, FileFuture};

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

    let mut w = ws();
    w.write("a.txt", "disk\n");
    let buffers = Arc::new(Buffers::default());
    buffers
        .0
        .lock()
        .unwrap()
        .insert(w.path("a.txt"), "one\ntwo\n".into());
    w.ctx.files = Some(buffers.clone());
    let out = w
        .call(
            &ApplyPatchTool::new(),
            patch("*** Update File: a.txt\n@@\n-two\n+2\n*** Add File: b.txt\n+new\n"),
        )
        .await;
    assert!(out.success, "{}", out.content);
    let held = buffers.0.lock().unwrap().clone();
    assert_eq!(held[&w.path("a.txt")], "one\n2\n");
    assert_eq!(held[&w.path("b.txt")], "new\n");
    assert_eq!(w.read("a.txt"), "disk\n", "the disk is left alone");
    assert!(w.ctx.locks.snapshot().is_empty());
}

#[tokio::test]
async fn diagnostics_are_asked_for_every_written_file() {
    use std::path::{Path, PathBuf};
    use std::sync::{Arc, Mutex};

    use crate::diagnostics::{Diagnostics, DiagnosticsFuture};

    #[derive(Default)]
    struct Seen(Mutex<Vec<PathBuf>>);
    impl Diagnostics for Seen {
        fn after_edit<'a>(
            &'a self,
            abs: &'a Path,
            _before: &'a str,
            after: &'a str,
        ) -> DiagnosticsFuture<'a> {
            self.0.lock().unwrap().push(abs.to_path_buf());
            let report = after
                .contains("bad")
                .then(|| format!("error in {}", abs.display()));
            Box::pin(async move { report })
        }
    }

    let mut w = ws();
    w.write("a.py", "x = 1\n");
    w.write("gone.py", "y\n");
    let seen = Arc::new(Seen::default());
    w.ctx.diagnostics = Some(seen.clone());
    let out = w
        .call(
            &ApplyPatchTool::new(),
            patch("*** Update File: a.py\n@@\n-x = 1\n+x = bad\n*** Add File: b.py\n+ok\n*** Delete File: gone.py\n"),
        )
        .await;
    assert!(out.success, "{}", out.content);
    let mut asked = seen.0.lock().unwrap().clone();
    asked.sort();
    assert_eq!(
        asked,
        [w.path("a.py"), w.path("b.py")],
        "not the deleted file"
    );
    assert!(
        out.content
            .ends_with(&format!("\n\nerror in {}", w.path("a.py").display())),
        "{}",
        out.content
    );
}
