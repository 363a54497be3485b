//! A dirty working tree is reviewed with the commits by default (and said
//! so), never reported clean over changes nobody reviewed; `--committed`
//! reviews the commits only and names what it left out.

use seekclaw_testkit::{ProviderServer, Reply};
use serde_json::{Value, json};

use super::headless::{git, repo, submit};

#[test]
fn uncommitted_and_untracked_changes_are_reviewed_by_default_and_said_so() {
    let server = ProviderServer::start().unwrap();
    let r = repo(&server);
    // An unstaged edit, a staged one and an untracked file, over the branch.
    std::fs::write(
        r.dir.join("src/new.rs"),
        "pub fn div(a: u32, b: u32) -> u32 {\n    a / (b - b)\n}\n",
    )
    .unwrap();
    std::fs::write(r.dir.join("src/staged.rs"), "pub const S: u8 = 1;\n").unwrap();
    git(&r.dir, &["add", "src/staged.rs"]);
    std::fs::write(r.dir.join("notes.txt"), "untracked line\n").unwrap();
    server.enqueue(submit(
        "c1",
        json!({"findings": [{"file": "notes.txt", "line": 1, "severity": "low", "category": "style",
               "title": "stray notes", "detail": "an untracked file"}], "summary": "ok"}),
    ));
    let out = r.review(&["--json"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("reviewing main...HEAD and the uncommitted changes in 3 files (notes.txt, src/new.rs, src/staged.rs)"),
        "{stderr}"
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["scope"]["head"], "working tree");
    assert_eq!(
        report["scope"]["files"],
        json!(["notes.txt", "src/lib.rs", "src/new.rs", "src/staged.rs"])
    );
    assert_eq!(
        report["scope"]["uncommitted"],
        json!(["notes.txt", "src/new.rs", "src/staged.rs"])
    );
    // The model saw the commits and every uncommitted change.
    let prompt = server.requests()[0].body.to_string();
    for part in [
        "-    a + b\\n+    a - b",
        "+    a / (b - b)",
        "+pub const S: u8 = 1;",
        "+untracked line",
        "the uncommitted changes (staged, unstaged and untracked files)",
    ] {
        assert!(prompt.contains(part), "{part} not in the prompt");
    }
    assert_eq!(report["findings"][0]["file"], "notes.txt");
}

#[test]
fn a_dirty_tree_with_no_commits_is_reviewed_not_called_clean() {
    let server = ProviderServer::start().unwrap();
    let r = repo(&server);
    std::fs::write(
        r.dir.join("src/lib.rs"),
        "pub fn add(a: u32, b: u32) -> u32 {\n    a * b\n}\n",
    )
    .unwrap();
    server.enqueue(submit(
        "c1",
        json!({"findings": [], "summary": "Looked at the edit."}),
    ));
    // `--base HEAD`: no commits to review, only the edit.
    let out = r.review(&["--base", "HEAD"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(server.requests().len(), 1, "the model was asked");
    assert!(
        stdout.starts_with("Review of HEAD...HEAD and the uncommitted changes (1 file)"),
        "{stdout}"
    );
    assert!(!stdout.contains("No changes"), "{stdout}");
    assert!(
        server.requests()[0].body.to_string().contains("+    a * b"),
        "the edit is in the prompt"
    );

    // `--committed`: the commits only, and the edit named as not reviewed.
    let out = r.review(&["--base", "HEAD", "--committed"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(server.requests().len(), 1, "nothing committed to review");
    assert!(
        stdout.contains(
            "Not reviewed: the uncommitted changes in src/lib.rs (drop --committed to include them)"
        ),
        "{stdout}"
    );
    assert!(!stdout.to_lowercase().contains("no findings"), "{stdout}");
    assert!(
        stdout.contains("nothing reviewed · build: not run"),
        "{stdout}"
    );
    assert!(
        stdout.contains("No committed changes between HEAD and HEAD; the uncommitted changes in 1 file were not reviewed (--committed)."),
        "{stdout}"
    );
    assert!(
        stderr.contains("not reviewing the uncommitted changes in 1 file (src/lib.rs)"),
        "{stderr}"
    );
    let out = r.review(&["--base", "HEAD", "--committed", "--json"]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["scope"]["head"], "HEAD");
    assert_eq!(report["scope"]["uncommitted"], json!(["src/lib.rs"]));
}

#[test]
fn a_clean_tree_reviews_the_commits_as_before() {
    let server = ProviderServer::start().unwrap();
    let r = repo(&server);
    server.set_default(Reply::plain("unused"));
    let out = r.review(&["--json", "--base", "HEAD"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["scope"]["head"], "HEAD");
    assert_eq!(report["scope"]["uncommitted"], json!([]));
    assert_eq!(server.requests().len(), 0);
}

/// A branch with no upstream in a repository with neither `main` nor
/// `master`: its uncommitted changes are reviewed (against `HEAD`) rather
/// than refused for want of a base.
#[test]
fn with_no_branch_to_compare_with_the_uncommitted_changes_are_reviewed() {
    let server = ProviderServer::start().unwrap();
    let r = repo(&server);
    for base in ["main", "master"] {
        let _ = std::process::Command::new("git")
            .args(["branch", "-q", "-D", base])
            .current_dir(&r.dir)
            .output();
    }
    std::fs::write(
        r.dir.join("src/lib.rs"),
        "pub fn add(a: u32, b: u32) -> u32 {\n    a * b\n}\n",
    )
    .unwrap();
    server.enqueue(submit(
        "c1",
        json!({"findings": [], "summary": "Looked at the edit."}),
    ));
    let out = r.review(&["--json"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("reviewing HEAD...HEAD and the uncommitted changes in 1 file (src/lib.rs)"),
        "{stderr}"
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["scope"]["uncommitted"], json!(["src/lib.rs"]));
    assert!(
        server.requests()[0].body.to_string().contains("+    a * b"),
        "the edit reached the model"
    );
}
