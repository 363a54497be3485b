//! The report tool's checks, the exit codes (0 clean, 1 no report, 2 a
//! blocker), the base defaults and the text output, on a real repository
//! with a branch.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use seekclaw_testkit::{ProviderServer, Reply};
use serde_json::{Value, json};

use crate::support::bin;

/// A repository with `main` (one file) and a checked-out `feature` branch
/// that changes it and adds another; and a seekclaw home on `server`.
pub(super) struct Repo {
    _tmp: tempfile::TempDir,
    pub(super) dir: PathBuf,
    home: PathBuf,
}

pub(super) fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

pub(super) fn repo(server: &ProviderServer) -> Repo {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("repo");
    std::fs::create_dir_all(dir.join("src")).unwrap();
    git(&dir, &["init", "-q"]);
    std::fs::write(
        dir.join("src/lib.rs"),
        "pub fn add(a: u32, b: u32) -> u32 {\n    a + b\n}\n",
    )
    .unwrap();
    git(&dir, &["add", "."]);
    git(&dir, &["commit", "-q", "-m", "base"]);
    git(&dir, &["checkout", "-q", "-b", "feature"]);
    std::fs::write(
        dir.join("src/lib.rs"),
        "pub fn add(a: u32, b: u32) -> u32 {\n    a - b\n}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("src/new.rs"),
        "pub fn div(a: u32, b: u32) -> u32 {\n    a / b\n}\n",
    )
    .unwrap();
    git(&dir, &["add", "."]);
    git(&dir, &["commit", "-q", "-m", "feature"]);
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let config = json!({"providers": [{"id": "tk", "kind": "openai", "baseUrl": server.base_url(), "models": [{"id": "m1"}]}]});
    std::fs::write(home.join("config.json"), config.to_string()).unwrap();
    Repo {
        _tmp: tmp,
        dir,
        home,
    }
}

impl Repo {
    pub(super) fn review(&self, args: &[&str]) -> Output {
        Command::new(bin())
            .arg("review")
            .args(args)
            .env("SEEKCLAW_HOME", &self.home)
            .current_dir(&self.dir)
            .output()
            .unwrap()
    }
}

pub(super) fn submit(id: &str, args: Value) -> Reply {
    Reply::new()
        .tool_call(id, "submit_review", args.to_string())
        .finish("tool_calls")
}

fn finding(file: &str, line: u64, severity: &str) -> Value {
    json!({"file": file, "line": line, "severity": severity, "category": "correctness",
           "title": "subtraction where addition is meant", "detail": "add returns a - b", "suggestion": "use a + b"})
}

#[test]
fn a_bad_report_goes_back_to_the_model_and_a_blocker_exits_2() {
    let server = ProviderServer::start().unwrap();
    let r = repo(&server);
    // A line past the end, then a file outside the repository, then a good one.
    server.enqueue(submit(
        "c1",
        json!({"findings": [finding("src/lib.rs", 9, "blocker")], "summary": "s"}),
    ));
    server.enqueue(submit(
        "c2",
        json!({"findings": [finding("/etc/passwd", 1, "blocker")], "summary": "s"}),
    ));
    server.enqueue(submit(
        "c3",
        json!({"findings": [finding("src/new.rs", 2, "medium"), finding("src/lib.rs", 2, "blocker")],
               "summary": "add is broken", "tests": "not_run"}),
    ));
    let out = r.review(&["--json"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    let lines: Vec<&[u8]> = out
        .stdout
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    assert_eq!(
        lines.len(),
        1,
        "exactly one report: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    let report: Value = serde_json::from_slice(lines[0]).unwrap();
    assert_eq!(report["schema_version"], 1);
    assert_eq!(report["scope"]["base"], "main");
    assert_eq!(report["scope"]["head"], "HEAD");
    assert_eq!(
        report["scope"]["files"],
        json!(["src/lib.rs", "src/new.rs"])
    );
    assert_eq!(
        report["findings"][0]["severity"], "blocker",
        "worst first: {report}"
    );
    assert_eq!(report["findings"][0]["file"], "src/lib.rs");
    assert_eq!(report["findings"][0]["line"], 2);
    assert_eq!(report["findings"][0]["suggestion"], "use a + b");
    assert_eq!(report["summary"], "add is broken");
    assert_eq!(
        report["stats"],
        json!({"files_reviewed": 2, "findings": 2, "build": "not_run", "tests": "not_run"})
    );

    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    // The model saw the diff, read-only tools and the report tool only.
    let first = &requests[0].body;
    let tools: Vec<&str> = first["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert!(
        tools.contains(&"submit_review") && tools.contains(&"read_file"),
        "{tools:?}"
    );
    for mutating in ["write_file", "edit_file", "bash", "finish"] {
        assert!(!tools.contains(&mutating), "{mutating} offered: {tools:?}");
    }
    assert!(
        first.to_string().contains("-    a + b\\n+    a - b"),
        "the diff is in the prompt"
    );
    // Each rejection reached the model as an error result naming the fix.
    let tool_text = |i: usize| {
        let messages = requests[i].body["messages"].as_array().unwrap();
        messages.last().unwrap()["content"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    assert!(
        tool_text(1).contains("line 9 is outside `src/lib.rs` (3 lines)"),
        "{}",
        tool_text(1)
    );
    assert!(
        tool_text(2).contains("not a file in the repository"),
        "{}",
        tool_text(2)
    );
    // The review changed nothing.
    assert_eq!(
        std::fs::read_to_string(r.dir.join("src/lib.rs")).unwrap(),
        "pub fn add(a: u32, b: u32) -> u32 {\n    a - b\n}\n"
    );
}

#[test]
fn a_clean_report_exits_0_and_reads_as_text() {
    let server = ProviderServer::start().unwrap();
    let r = repo(&server);
    server.enqueue(submit("c1", json!({"findings": [finding("src/new.rs", 2, "low")], "summary": "Division by zero is possible.", "build": "pass"})));
    let out = r.review(&["--base", "main"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.starts_with("Review of main...HEAD (2 files)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("LOW      src/new.rs:2  [correctness] subtraction"),
        "{stdout}"
    );
    assert!(stdout.contains("suggestion: use a + b"), "{stdout}");
    assert!(
        stdout.contains("1 low · build: pass · tests: not run"),
        "{stdout}"
    );
}

#[test]
fn a_model_that_never_submits_is_reminded_then_no_report_exits_1() {
    let server = ProviderServer::start().unwrap();
    let r = repo(&server);
    server.set_default(Reply::plain("Looks fine to me."));
    let out = r.review(&["--json"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(out.stdout.is_empty(), "no report printed");
    assert!(stderr.contains("no report: the model ended without calling submit_review (it answered: Looks fine to me.)"), "{stderr}");
    // Two reminders, then the turn ended.
    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    let last = requests[2].body["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert!(
        last["content"]
            .as_str()
            .unwrap()
            .contains("Call submit_review now"),
        "{last}"
    );
}

#[test]
fn bases_default_to_the_upstream_then_main_and_bad_ones_are_clear() {
    let server = ProviderServer::start().unwrap();
    let r = repo(&server);
    server.set_default(submit("c", json!({"findings": [], "summary": "fine"})));
    // No upstream: main.
    let out = r.review(&["--json"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["scope"]["base"], "main");
    // The branch's upstream wins over main.
    git(&r.dir, &["branch", "-q", "base2", "main"]);
    git(&r.dir, &["branch", "-q", "--set-upstream-to=base2"]);
    let out = r.review(&["--json"]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["scope"]["base"], "base2");
    // Nothing to review: a report without asking the model.
    let before = server.requests().len();
    let out = r.review(&["--json", "--base", "HEAD"]);
    assert_eq!(out.status.code(), Some(0));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["scope"]["files"], json!([]));
    assert_eq!(report["summary"], "No changes between HEAD and HEAD.");
    assert_eq!(server.requests().len(), before);
    // Errors: no such base, not a repository.
    let out = r.review(&["--base", "nope"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("the base `nope` is not a commit"));
    let elsewhere = tempfile::tempdir().unwrap();
    let out = r.review(&["--workspace", elsewhere.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not inside a git repository"));
}
