use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::json;

use super::*;
use crate::builtin::builtin_registry;
use crate::builtin::testing::ws;
use crate::confine::confine_to;

fn confined(root: &Path, rel: &str) -> ConfinedPath {
    confine_to(root, false, rel).unwrap()
}

#[test]
fn atomic_writes_keep_permissions_and_write_through_links() {
    let w = ws();
    w.write("run.sh", "old");
    let file = w.path("run.sh");
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755)).unwrap();
    write_atomic(&confined(&w.root, "run.sh"), b"new").unwrap();
    assert_eq!(w.read("run.sh"), "new");
    let mode = std::fs::metadata(&file).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o755);

    // A relative and an absolute link, both inside: written through.
    symlink("run.sh", w.path("rel.sh")).unwrap();
    symlink(&file, w.path("abs.sh")).unwrap();
    for (link, text) in [("rel.sh", "via rel"), ("abs.sh", "via abs")] {
        write_atomic(&confined(&w.root, link), text.as_bytes()).unwrap();
        assert!(
            std::fs::symlink_metadata(w.path(link))
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(w.read("run.sh"), text);
        let mut read = String::new();
        std::io::Read::read_to_string(&mut open(&confined(&w.root, link)).unwrap(), &mut read)
            .unwrap();
        assert_eq!(read, text);
    }
    // Missing folders are made.
    write_atomic(&confined(&w.root, "a/b/c.txt"), b"deep").unwrap();
    assert_eq!(w.read("a/b/c.txt"), "deep");
    let leftovers: Vec<_> = std::fs::read_dir(&w.root)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains("seekclaw-tmp"))
        .collect();
    assert!(leftovers.is_empty());
}

#[test]
fn a_link_that_leads_out_is_refused_at_open_time() {
    let w = ws();
    let outside = w.root.parent().unwrap().join("outside.txt");
    std::fs::write(&outside, "secret").unwrap();
    // Checked while the name was a plain file; a link by the time it is opened.
    w.write("f", "inside");
    let path = confined(&w.root, "f");
    std::fs::remove_file(w.path("f")).unwrap();
    symlink(&outside, w.path("f")).unwrap();
    assert_eq!(
        open(&path).unwrap_err().kind(),
        std::io::ErrorKind::PermissionDenied
    );
    assert!(write_atomic(&path, b"pwned").is_err());
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "secret");
    // A folder swapped for a link: nothing below it is removed or listed.
    std::fs::create_dir(w.path("d")).unwrap();
    let inner = confined(&w.root, "d/outside.txt");
    std::fs::remove_dir(w.path("d")).unwrap();
    symlink(w.root.parent().unwrap(), w.path("d")).unwrap();
    assert!(remove(&inner).is_err());
    assert!(!exists(&inner));
    assert!(outside.exists());
}

/// Swaps two names atomically, over and over, until told to stop.
fn flipper(a: &Path, b: &Path, stop: Arc<AtomicBool>) -> std::thread::JoinHandle<u64> {
    let (a, b) = (a.to_path_buf(), b.to_path_buf());
    std::thread::spawn(move || {
        let mut flips = 0;
        while !stop.load(Ordering::Relaxed) {
            let swapped = rustix::fs::renameat_with(
                rustix::fs::CWD,
                &a,
                rustix::fs::CWD,
                &b,
                rustix::fs::RenameFlags::EXCHANGE,
            );
            if swapped.is_ok() {
                flips += 1;
            }
        }
        flips
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flipping_symlink_never_leads_a_tool_outside() {
    let w = ws();
    let outside = w.root.parent().unwrap().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    let secret = outside.join("secret-name.txt");
    std::fs::write(&secret, "TOPSECRET\n").unwrap();
    // `f` flips between a file and a link to the secret; `d` between a
    // folder and a link to the outside folder.
    w.write("f", "INSIDE\n");
    symlink(&secret, w.path(".f-link")).unwrap();
    w.write("d/inside.txt", "INSIDE\n");
    symlink(&outside, w.path(".d-link")).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let flips = [
        flipper(&w.path("f"), &w.path(".f-link"), stop.clone()),
        flipper(&w.path("d"), &w.path(".d-link"), stop.clone()),
    ];
    let tools = builtin_registry();
    let calls = [
        ("read_file", json!({"path": "f"})),
        ("write_file", json!({"path": "f", "content": "INSIDE\n"})),
        (
            "edit_file",
            json!({"path": "f", "old_string": "TOPSECRET", "new_string": "PWNED"}),
        ),
        (
            "multi_edit",
            json!({"path": "f", "edits": [{"old_string": "TOPSECRET", "new_string": "PWNED"}]}),
        ),
        ("remove", json!({"path": "d/secret-name.txt"})),
        (
            "write_file",
            json!({"path": "d/planted.txt", "content": "x"}),
        ),
        ("read_file", json!({"path": "d/secret-name.txt"})),
        ("list_dir", json!({"path": "d"})),
        ("glob", json!({"pattern": "**/*.txt"})),
        ("grep", json!({"pattern": "TOP[S]ECRET"})),
    ];
    let mut succeeded = 0;
    for i in 0..2000 {
        let (name, args) = &calls[i % calls.len()];
        let out = tools.get(name).unwrap().execute(args.clone(), &w.ctx).await;
        // A refusal may name where a link leads (confinement says so); no
        // result shows what is there.
        let shows_outside = out.success && out.content.contains("secret-name");
        assert!(
            !out.content.contains("TOPSECRET") && !shows_outside,
            "{name} leaked: {}",
            out.content
        );
        if out.success && *name == "read_file" {
            succeeded += 1;
        }
    }
    stop.store(true, Ordering::Relaxed);
    let flipped: u64 = flips.into_iter().map(|f| f.join().unwrap()).sum();
    assert!(flipped > 1000, "the names flipped only {flipped} times");
    assert!(succeeded > 0, "no read went through at all");
    assert_eq!(std::fs::read_to_string(&secret).unwrap(), "TOPSECRET\n");
    let names: Vec<_> = std::fs::read_dir(&outside)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        names,
        ["secret-name.txt"],
        "nothing planted or removed outside"
    );
}
