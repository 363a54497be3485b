//! `seekclaw run --concurrency N` (the task in N copies of the workspace,
//! side by side, one summary) and `--task-file/--task-index` (a Kubernetes
//! Indexed Job's pods).

use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant, SystemTime};

use seekclaw_testkit::{ProviderServer, Reply};
use serde_json::Value;

use crate::support::bin;

fn seekclaw(home: &Path, cwd: &Path, args: &[&str]) -> Output {
    Command::new(bin())
        .args(args)
        .current_dir(cwd)
        .env("SEEKCLAW_HOME", home)
        .output()
        .unwrap()
}

fn text(out: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A home whose only provider is the testkit `server`.
fn home_for(server: &ProviderServer, tmp: &Path) -> PathBuf {
    let home = tmp.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let config = serde_json::json!({"providers": [{"id": "tk", "kind": "openai", "baseUrl": server.base_url(), "models": [{"id": "m1"}]}]});
    std::fs::write(home.join("config.json"), config.to_string()).unwrap();
    home
}

fn write(root: &Path, rel: &str, content: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, content).unwrap();
}

/// A project with a build cache, dependencies, a virtualenv and a git
/// worktree pointer, none of which a copy needs (a Node project with no
/// build script: no verify command runs after an edit).
fn project(tmp: &Path) -> PathBuf {
    let ws = tmp.join("proj");
    write(&ws, "package.json", "{\"name\": \"proj\"}\n");
    write(&ws, "src/lib.rs", "pub fn one() -> u32 {\n    1\n}\n");
    write(
        &ws,
        "target/CACHEDIR.TAG",
        "Signature: 8a477f597d28d172789f06886806bc55\n",
    );
    write(&ws, "target/debug/proj", "build output");
    write(
        &ws,
        "node_modules/left-pad/index.js",
        "module.exports = 1;\n",
    );
    write(&ws, "tools/.venv/pyvenv.cfg", "home = /usr/bin\n");
    write(&ws, ".git", "gitdir: /elsewhere/.git/worktrees/proj\n");
    ws
}

/// Every file and folder under `root` with its bytes and modification time:
/// equal before and after means nothing under it was written.
fn snapshot(root: &Path) -> BTreeMap<PathBuf, (Vec<u8>, SystemTime)> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let entry = entry.unwrap();
            let meta = entry.metadata().unwrap();
            let bytes = if meta.is_dir() {
                stack.push(entry.path());
                Vec::new()
            } else {
                std::fs::read(entry.path()).unwrap()
            };
            let rel = entry.path().strip_prefix(root).unwrap().to_path_buf();
            out.insert(rel, (bytes, meta.modified().unwrap()));
        }
    }
    let meta = std::fs::metadata(root).unwrap();
    out.insert(PathBuf::new(), (Vec::new(), meta.modified().unwrap()));
    out
}

/// Three runs, each its own copy and session and its own change; the
/// original is byte-for-byte untouched and the skipped folders are not copied.
#[test]
fn a_fleet_of_three_changes_only_its_copies() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let home = home_for(&server, tmp.path());
    let ws = project(tmp.path());
    let before = snapshot(&ws);
    // Each run's first request takes one of these (the header delay keeps
    // them all waiting until the three first requests are in); every later
    // request is answered by the default.
    for name in ["a", "b", "c"] {
        let call = format!(r#"{{"path":"{name}.txt","content":"made by {name}\n"}}"#);
        server.enqueue(
            Reply::new()
                .tool_call(format!("w_{name}"), "write_file", call)
                .usage(100, 0, 10)
                .header_delay(Duration::from_secs(2)),
        );
    }
    server.set_default(Reply::plain("wrote it").usage(150, 0, 5));
    let fleet = tmp.path().join("fleet");
    let out = seekclaw(
        &home,
        tmp.path(),
        &[
            "run",
            "--concurrency",
            "3",
            "--workspace",
            ws.to_str().unwrap(),
            "--fleet-dir",
            fleet.to_str().unwrap(),
            "--json",
            "write a file",
        ],
    );
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    let report: Value = serde_json::from_str(&stdout).expect("one JSON document");
    assert_eq!(report["status"], "done", "{report:#}");
    assert_eq!(report["concurrency"], 3);
    assert_eq!(report["task"], "write a file");
    let fleet = std::fs::canonicalize(&fleet).unwrap();
    assert_eq!(report["fleet_dir"], fleet.to_str().unwrap());
    let runs = report["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 3);
    let mut sessions = BTreeSet::new();
    let mut written = BTreeSet::new();
    for (i, run) in runs.iter().enumerate() {
        let copy = fleet.join(format!("run-{}", i + 1));
        assert_eq!(run["copy"], format!("run-{}", i + 1));
        assert_eq!(run["path"], copy.to_str().unwrap());
        assert_eq!(run["status"], "done", "{run:#}");
        assert_eq!(run["answer"], "wrote it");
        assert_eq!(run["steps"], 2, "{run:#}");
        assert_eq!(
            (run["input_tokens"].as_u64(), run["output_tokens"].as_u64()),
            (Some(250), Some(15)),
            "{run:#}"
        );
        assert!(sessions.insert(run["session"].as_str().unwrap().to_string()));
        // Its own change, and only it.
        assert_eq!(run["files_changed"], 1, "{run:#}");
        assert_eq!(
            (run["insertions"].as_u64(), run["deletions"].as_u64()),
            (Some(1), Some(0))
        );
        let change = &run["changes"][0];
        assert_eq!(change["change"], "added");
        let file = change["path"].as_str().unwrap().to_string();
        let name = file.trim_end_matches(".txt");
        assert_eq!(
            std::fs::read_to_string(copy.join(&file)).unwrap(),
            format!("made by {name}\n")
        );
        written.insert(file);
        // The copy has the sources, not what was skipped.
        assert!(copy.join("src/lib.rs").is_file());
        assert!(copy.join("package.json").is_file());
        for skipped in ["target", "node_modules", "tools/.venv", ".git"] {
            assert!(!copy.join(skipped).exists(), "{skipped} was copied");
        }
    }
    assert_eq!(
        written.into_iter().collect::<Vec<_>>(),
        ["a.txt", "b.txt", "c.txt"]
    );
    let skipped: Vec<&str> = report["copy"]["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        skipped,
        [".git", "node_modules", "target", "tools/.venv"],
        "{report:#}"
    );
    assert_eq!(report["copy"]["files"], 2, "{report:#}");
    assert_eq!(snapshot(&ws), before, "the original was written");
    assert!(!ws.join("a.txt").exists());

    // Each session lives in its copy's scope.
    let out = seekclaw(&home, tmp.path(), &["sessions", "list", "--all", "--json"]);
    let rows: Value = serde_json::from_slice(&out.stdout).unwrap();
    for session in &sessions {
        let row = rows
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == session.as_str())
            .unwrap_or_else(|| panic!("session {session} not listed: {rows:#}"));
        let workspace = row["workspace"].as_str().unwrap();
        assert!(
            workspace.starts_with(fleet.to_str().unwrap()),
            "{workspace}"
        );
    }
    assert_eq!(server.requests().len(), 6);
}

/// Without `--fleet-dir` the copies go beside the workspace; a person gets
/// each answer, the table and where the copies are.
#[test]
fn the_summary_table_names_each_copy_and_where_they_are() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let home = home_for(&server, tmp.path());
    let ws = project(tmp.path());
    server.set_default(Reply::plain("nothing to change").usage(120, 0, 8));
    let out = seekclaw(&home, &ws, &["run", "--concurrency", "2", "look around"]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(lines.contains(&"── run-1 (done) ──"), "{stdout}");
    assert!(lines.contains(&"nothing to change"), "{stdout}");
    let head = lines
        .iter()
        .position(|l| l.starts_with("COPY"))
        .unwrap_or_else(|| panic!("no table: {stdout}"));
    let words = |l: &str| l.split_whitespace().map(String::from).collect::<Vec<_>>();
    assert_eq!(
        words(lines[head]),
        [
            "COPY", "STATUS", "STEPS", "TOKENS", "COST", "FILES", "DIFF", "SESSION"
        ]
    );
    for (i, line) in lines[head + 1..head + 3].iter().enumerate() {
        let cells = words(line);
        assert_eq!(
            cells[..8],
            [
                format!("run-{}", i + 1),
                "done".into(),
                "1".into(),
                "128".into(),
                "-".into(),
                "0".into(),
                "+0".into(),
                "-0".into()
            ],
            "{line}"
        );
    }
    let kept = lines
        .iter()
        .find(|l| l.starts_with("copies kept in "))
        .unwrap_or_else(|| panic!("{stdout}"));
    let dir = kept
        .trim_start_matches("copies kept in ")
        .split(" (")
        .next()
        .unwrap();
    let dir = Path::new(dir);
    let parent = std::fs::canonicalize(tmp.path()).unwrap();
    assert_eq!(dir.parent().unwrap(), parent, "{kept}");
    assert!(
        dir.file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .starts_with("proj-fleet-"),
        "{kept}"
    );
    assert!(dir.join("run-1/src/lib.rs").is_file());
    assert!(dir.join("run-2/src/lib.rs").is_file());
    assert!(
        stdout.contains("left out: .git (a git worktree pointer"),
        "{stdout}"
    );
}

/// Ctrl-C cancels every run: each ends `cancelled`, exit 130, copies kept.
#[test]
fn ctrl_c_cancels_every_run_of_the_fleet() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let home = home_for(&server, tmp.path());
    let ws = project(tmp.path());
    let mut slow = Reply::new().chunk_delay(Duration::from_millis(100));
    for i in 0..200 {
        slow = slow.text(format!("w{i} "));
    }
    server.set_default(slow);
    let fleet = tmp.path().join("fleet");
    let mut child = Command::new(bin())
        .args(["run", "--concurrency", "3", "--json", "count slowly"])
        .args(["--fleet-dir", fleet.to_str().unwrap()])
        .current_dir(&ws)
        .env("SEEKCLAW_HOME", &home)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // All three are streaming their answers.
    server.wait_requests(3, Duration::from_secs(30)).unwrap();
    std::thread::sleep(Duration::from_millis(500));
    let sent = Instant::now();
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    let mut stdout = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    let status = child.wait().unwrap();
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert!(
        sent.elapsed() < Duration::from_secs(10),
        "the runs did not stop on Ctrl-C: {:?}",
        sent.elapsed()
    );
    assert_eq!(status.code(), Some(130), "{stdout}\n{stderr}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["status"], "cancelled", "{report:#}");
    for run in report["runs"].as_array().unwrap() {
        assert_eq!(run["status"], "cancelled", "{run:#}");
        let partial = run["answer"].as_str().unwrap();
        assert!(partial.starts_with("w0 "), "{partial}");
        assert!(!partial.contains("w199"), "{partial}");
    }
    for i in 1..=3 {
        assert!(fleet.join(format!("run-{i}/src/lib.rs")).is_file());
    }
    assert!(stderr.contains("the copies stay in"), "{stderr}");
    assert_eq!(server.requests().len(), 3);
}

/// A fleet folder inside the workspace, an unknown model, one copy or a
/// session to continue: refused before anything is copied.
#[test]
fn bad_fleets_are_refused_before_anything_is_copied() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let home = home_for(&server, tmp.path());
    let ws = project(tmp.path());
    let before = snapshot(&ws);
    let out = seekclaw(
        &home,
        &ws,
        &["run", "--concurrency", "2", "--fleet-dir", "copies", "hi"],
    );
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("is inside the workspace"), "{stderr}");
    assert_eq!(snapshot(&ws), before);

    // A model the config does not have: refused before any copy is made.
    let out = seekclaw(
        &home,
        &ws,
        &["run", "--concurrency", "2", "--model", "nope/m9", "hi"],
    );
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("nope/m9"), "{stderr}");
    let beside: Vec<String> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        !beside.iter().any(|n| n.contains("fleet")),
        "copies were made: {beside:?}"
    );

    let out = seekclaw(&home, &ws, &["run", "--concurrency", "1", "hi"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).1.contains("--concurrency"), "{}", text(&out).1);
    let out = seekclaw(
        &home,
        &ws,
        &["run", "--concurrency", "2", "--session", "s1", "hi"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(server.requests().is_empty());
}

/// A pod's task: line N of the list (or element N of a JSON array); an
/// index out of range, a missing file or an empty task is a clear error.
#[test]
fn the_task_list_mode_runs_the_indexed_task() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let home = home_for(&server, tmp.path());
    let ws = project(tmp.path());
    let tasks = tmp.path().join("tasks.txt");
    std::fs::write(&tasks, "first task\nsecond task\n\nfourth task\n").unwrap();
    let file = tasks.to_str().unwrap();
    server.enqueue(Reply::plain("did the second"));
    let out = seekclaw(
        &home,
        &ws,
        &["run", "--json", "--task-file", file, "--task-index", "1"],
    );
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    let last: Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    assert_eq!(
        (last["event"].as_str(), last["data"].as_str()),
        (Some("done"), Some("did the second"))
    );
    let sent = &server.requests()[0].raw_body;
    assert!(sent.contains("second task"), "{sent}");
    assert!(!sent.contains("first task"), "{sent}");

    let cases: [(&[&str], &str); 4] = [
        (
            &["--task-file", file, "--task-index", "4"],
            &format!(
                "task index 4 is out of range: the task file {file} holds 4 task(s), indexes 0 to 3"
            ),
        ),
        (
            &["--task-file", file, "--task-index", "2"],
            &format!("task 2 of {file} (line 3) is empty"),
        ),
        (
            &["--task-file", "/nonexistent/tasks.txt", "--task-index", "0"],
            "cannot read the task file /nonexistent/tasks.txt: No such file or directory",
        ),
        (&["--task-file", file], "--task-index"),
    ];
    for (args, wanted) in cases {
        let out = seekclaw(&home, &ws, &[&["run"], args].concat());
        let (_, stderr) = text(&out);
        assert_ne!(out.status.code(), Some(0), "{args:?}");
        assert!(stderr.contains(wanted), "{args:?}: {stderr}");
    }

    let json = tmp.path().join("tasks.json");
    std::fs::write(&json, r#"["one", "two\nlines"]"#).unwrap();
    server.enqueue(Reply::plain("ok"));
    let out = seekclaw(
        &home,
        &ws,
        &[
            "run",
            "--task-file",
            json.to_str().unwrap(),
            "--task-index",
            "1",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out).1);
    let sent = &server.requests()[1].body;
    let user = sent["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .unwrap();
    assert!(user.to_string().contains("two\\nlines"), "{user}");
    assert_eq!(server.requests().len(), 2, "no request for a bad task");
}

/// The summary says how to take a copy's changes back and remove the
/// copies; `fleet apply` takes a copy's changes (not reverting what the
/// user changed since), refuses a file changed on both sides unless
/// `--force`, and `fleet clean` removes the fleet.
#[test]
fn a_chosen_copy_is_applied_to_the_original_and_the_fleet_cleaned() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let home = home_for(&server, tmp.path());
    let ws = project(tmp.path());
    write(&ws, "notes/old.md", "old notes\n");
    write(&ws, "extra.txt", "as copied\n");
    server.set_default(Reply::plain("done"));
    let out = seekclaw(&home, &ws, &["run", "--concurrency", "2", "look around"]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    let kept = stdout
        .lines()
        .find(|l| l.starts_with("copies kept in "))
        .unwrap_or_else(|| panic!("{stdout}"));
    let dir = PathBuf::from(
        kept.trim_start_matches("copies kept in ")
            .split(" (")
            .next()
            .unwrap(),
    );
    assert!(
        stdout.contains(&format!("seekclaw fleet apply {}/run-N", dir.display())),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!(
            "remove the copies: seekclaw fleet clean {}",
            dir.display()
        )),
        "{stdout}"
    );
    // What the runs did (written here), and the user's own edit since.
    let (run1, run2) = (dir.join("run-1"), dir.join("run-2"));
    write(&run1, "src/lib.rs", "pub fn one() -> u32 {\n    11\n}\n");
    write(&run1, "new.txt", "from run 1\n");
    std::fs::remove_dir_all(run1.join("notes")).unwrap();
    write(&run2, "src/lib.rs", "pub fn one() -> u32 {\n    22\n}\n");
    write(&run2, "new2.txt", "from run 2\n");
    write(&ws, "extra.txt", "the user's edit\n");

    let listed = seekclaw(&home, &ws, &["fleet", "list"]);
    let (listed, _) = text(&listed);
    let row = listed
        .lines()
        .find(|l| l.starts_with(dir.to_str().unwrap()))
        .unwrap_or_else(|| panic!("{listed}"));
    assert!(
        row.ends_with("look around") && row.contains("  2  "),
        "{row}"
    );

    // A dry run, by the copy's bare name (the newest fleet's): nothing written.
    let before = snapshot(&ws);
    let out = seekclaw(&home, &ws, &["fleet", "apply", "run-1", "--dry-run"]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    for line in [
        "  A new.txt",
        "  D notes/old.md",
        "  M src/lib.rs",
        "dry run: nothing was written.",
    ] {
        assert!(stdout.contains(line), "{line}: {stdout}");
    }
    assert!(!stdout.contains("extra.txt"), "{stdout}");
    assert_eq!(snapshot(&ws), before);

    let out = seekclaw(&home, &ws, &["fleet", "apply", run1.to_str().unwrap()]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stdout.contains("applied 3 change(s)"), "{stdout}");
    let read = |rel: &str| std::fs::read_to_string(ws.join(rel)).ok();
    assert_eq!(
        read("src/lib.rs").as_deref(),
        Some("pub fn one() -> u32 {\n    11\n}\n")
    );
    assert_eq!(read("new.txt").as_deref(), Some("from run 1\n"));
    assert!(!ws.join("notes").exists());
    assert_eq!(
        read("extra.txt").as_deref(),
        Some("the user's edit\n"),
        "not reverted"
    );
    assert!(
        ws.join("target/debug/proj").is_file(),
        "skipped folders are left alone"
    );

    // run-2 changed src/lib.rs too, which the original now differs in: refused whole.
    let out = seekclaw(&home, &ws, &["fleet", "apply", run2.to_str().unwrap()]);
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("1 file(s) changed both by run-2 and in the original since the fleet copied it; nothing was applied:\n  src/lib.rs"),
        "{stderr}"
    );
    assert!(!ws.join("new2.txt").exists());
    let out = seekclaw(
        &home,
        &ws,
        &["fleet", "apply", "--force", run2.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out).1);
    assert_eq!(
        read("src/lib.rs").as_deref(),
        Some("pub fn one() -> u32 {\n    22\n}\n")
    );
    assert_eq!(read("new2.txt").as_deref(), Some("from run 2\n"));

    // Clean: a dry run, then the fleet goes; a folder that is no fleet stays.
    let out = seekclaw(&home, &ws, &["fleet", "clean", "--dry-run"]);
    assert!(
        text(&out)
            .0
            .contains(&format!("would remove {}", dir.display()))
    );
    assert!(dir.is_dir());
    let out = seekclaw(&home, &ws, &["fleet", "clean", ws.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out).1.contains("is not a fleet folder"),
        "{}",
        text(&out).1
    );
    let out = seekclaw(&home, &ws, &["fleet", "clean"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out).1);
    assert!(text(&out).0.contains(&format!("removed {}", dir.display())));
    assert!(!dir.exists());
    assert!(ws.join("src/lib.rs").is_file());
    let out = seekclaw(&home, &ws, &["fleet", "list"]);
    assert!(text(&out).1.contains("no fleets of"), "{}", text(&out).1);
}

/// Each copy's background job dies with the fleet: its session's log says
/// so, for the turn that continues it.
#[test]
fn a_fleets_jobs_stopped_at_exit_reach_each_copys_log() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let home = home_for(&server, tmp.path());
    let ws = project(tmp.path());
    for name in ["a", "b"] {
        let call = format!(
            r#"{{"command":"exec sleep 60.05{}","run_in_background":true}}"#,
            name.len()
        );
        server.enqueue(
            Reply::new()
                .tool_call(format!("b_{name}"), "bash", call)
                .header_delay(Duration::from_secs(1)),
        );
    }
    server.set_default(Reply::plain("started it"));
    let fleet = tmp.path().join("fleet");
    let out = seekclaw(
        &home,
        tmp.path(),
        &[
            "run",
            "--concurrency",
            "2",
            "--workspace",
            ws.to_str().unwrap(),
            "--fleet-dir",
            fleet.to_str().unwrap(),
            "--json",
            "start a job",
        ],
    );
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    let report: Value = serde_json::from_str(&stdout).expect("one JSON document");
    let fleet = std::fs::canonicalize(&fleet).unwrap();
    for (i, run) in report["runs"].as_array().unwrap().iter().enumerate() {
        let sid = run["session"].as_str().unwrap_or_else(|| panic!("{run}"));
        let copy = fleet.join(format!("run-{}", i + 1));
        crate::support::wait_in_log(
            &home,
            sid,
            &["--workspace", copy.to_str().unwrap()],
            "bg-1 was stopped unfinished",
        );
    }
}
