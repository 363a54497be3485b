//! Diagnostics after an edit (issue 40, item 3) through `seekclaw run`: a
//! real pyright (npm, `scripts/install-test-servers`) reports the type error
//! an edit introduced in the edit's tool result, nothing for an edit that
//! fixes one; a hung server costs at most the bound and is stopped with the
//! run; a missing one is said once; no `lsp` config changes nothing.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use seekclaw_testkit::{ProviderServer, Reply, capability_missing};
use serde_json::{Value, json};

use crate::support::bin;

const APP: &str =
    "def greet(name: str) -> str:\n    return \"hi \" + name\n\n\ncount: int = 1\nlabel: str = 3\n";

struct Project {
    _tmp: tempfile::TempDir,
    home: PathBuf,
    work: PathBuf,
    server: ProviderServer,
}

fn project(lsp: Option<Value>) -> Project {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let work = tmp.path().join("proj");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(work.join(".git")).unwrap();
    std::fs::write(work.join("app.py"), APP).unwrap();
    let mut config = json!({"providers": [{"id": "tk", "kind": "openai", "baseUrl": server.base_url(), "models": [{"id": "m1"}]}]});
    if let Some(lsp) = lsp {
        config["lsp"] = lsp;
    }
    std::fs::write(home.join("config.json"), config.to_string()).unwrap();
    Project {
        _tmp: tmp,
        home,
        work,
        server,
    }
}

impl Project {
    /// `seekclaw run` in the project, `path_dir` first on `PATH`.
    fn run(&self, path_dir: Option<&Path>) -> Output {
        let mut command = Command::new(bin());
        command
            .args(["run", "fix it", "--workspace"])
            .arg(&self.work)
            .env("SEEKCLAW_HOME", &self.home)
            .current_dir(&self.work);
        if let Some(dir) = path_dir {
            let path = std::env::var_os("PATH").unwrap_or_default();
            let mut dirs = vec![dir.to_path_buf()];
            dirs.extend(std::env::split_paths(&path));
            command.env("PATH", std::env::join_paths(dirs).unwrap());
        }
        let out = command.output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }

    /// Scripts one `edit_file` call per `(old, new)` then a closing text.
    fn script(&self, edits: &[(&str, &str)]) {
        for (i, (old, new)) in edits.iter().enumerate() {
            let args = json!({"path": "app.py", "old_string": old, "new_string": new});
            self.server.enqueue(Reply::new().tool_call(
                format!("e{i}"),
                "edit_file",
                args.to_string(),
            ));
        }
        self.server.enqueue(Reply::plain("done"));
    }

    /// The tool results the model got back, in order.
    fn results(&self) -> Vec<String> {
        self.server
            .requests()
            .iter()
            .skip(1)
            .map(|r| {
                let messages = r.body["messages"].as_array().unwrap();
                messages.last().unwrap()["content"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string()
            })
            .collect()
    }
}

fn pyright_bin() -> Option<PathBuf> {
    match seekclaw_testkit::pyright() {
        Ok(bin) => Some(bin),
        Err(why) => {
            capability_missing(seekclaw_testkit::PYRIGHT, Some(why));
            None
        }
    }
}

#[test]
fn pyright_reports_the_error_an_edit_introduced_and_none_for_a_fix() {
    let Some(pyright) = pyright_bin() else { return };
    // A generous bound: pyright starts cold here; a warm edit takes far less.
    let p = project(Some(
        json!({"servers": {"pyright": {}}, "waitMilliseconds": 60000}),
    ));
    p.script(&[
        ("count: int = 1", "count: int = \"one\""),
        ("label: str = 3", "label: str = \"three\""),
    ]);
    p.run(Some(&pyright));
    let results = p.results();
    assert_eq!(results.len(), 2, "{results:?}");
    let introduced = &results[0];
    assert!(
        introduced.ends_with(concat!(
            "\n\nDiagnostics after this edit (pyright):\n",
            " app.py:5:14 error: Type \"Literal['one']\" is not assignable to declared type \"int\"\n",
            "    \"Literal['one']\" is not assignable to \"int\" [reportAssignmentType]"
        )),
        "{introduced}"
    );
    // The error that was there before the edit is not the edit's.
    assert!(!introduced.contains("app.py:6:"), "{introduced}");
    assert_eq!(introduced.matches(" error: ").count(), 1, "{introduced}");
    // Fixing an error introduces none (the first edit's error is still there: not new).
    let fixed = &results[1];
    assert!(fixed.starts_with("Edited app.py"), "{fixed}");
    assert!(!fixed.contains("Diagnostics"), "{fixed}");
    assert_eq!(
        std::fs::read_to_string(p.work.join("app.py")).unwrap(),
        APP.replace("= 1", "= \"one\"")
            .replace("= 3", "= \"three\"")
    );
}

#[test]
fn a_hung_server_costs_at_most_the_bound_and_ends_with_the_run() {
    let pid_file = tempfile::NamedTempFile::new().unwrap();
    // Never reads its input nor answers `initialize`.
    let hang = format!("echo $$ > '{}'; exec sleep 600", pid_file.path().display());
    let p = project(Some(json!({
        "servers": {"hang": {"command": ["sh", "-c", hang], "languages": ["python"]}},
        "waitMilliseconds": 300
    })));
    p.script(&[
        ("count: int = 1", "count: int = 2"),
        ("count: int = 2", "count: int = 5"),
        ("count: int = 5", "count: int = 4"),
    ]);
    let started = Instant::now();
    p.run(None);
    // Three edits and the run's own work; a hang past the bound would never end.
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "{:?}",
        started.elapsed()
    );
    let results = p.results();
    assert_eq!(results.len(), 3, "{results:?}");
    for result in &results {
        assert!(result.starts_with("Edited app.py"), "{result}");
        assert!(!result.contains("Diagnostics"), "{result}");
    }
    let pid: u32 = std::fs::read_to_string(pid_file.path())
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let gone = (0..100).any(|_| {
        let alive = seekclaw_testkit::process_alive(pid);
        if alive {
            std::thread::sleep(Duration::from_millis(50));
        }
        !alive
    });
    assert!(gone, "the language server outlived `seekclaw run`");
}

#[test]
fn a_missing_server_is_said_once_and_doctor_names_it() {
    let p = project(Some(
        json!({"servers": {"pyright": {"command": "seekclaw-no-such-langserver --stdio"}}}),
    ));
    p.script(&[
        ("count: int = 1", "count: int = 2"),
        ("count: int = 2", "count: int = 5"),
    ]);
    p.run(None);
    let results = p.results();
    assert!(
        results[0].ends_with("\n\nno diagnostics: seekclaw-no-such-langserver not found"),
        "{}",
        results[0]
    );
    assert!(!results[1].contains("no diagnostics"), "{}", results[1]);

    let out = Command::new(bin())
        .args(["doctor", "--json"])
        .env("SEEKCLAW_HOME", &p.home)
        .current_dir(&p.work)
        .output()
        .unwrap();
    let checks: Value = serde_json::from_slice(&out.stdout).unwrap();
    let row = checks
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "LSP pyright")
        .unwrap_or_else(|| panic!("{checks:#}"));
    assert_eq!(row["level"], "warn", "{row}");
    assert!(
        row["detail"]
            .as_str()
            .unwrap()
            .contains("seekclaw-no-such-langserver not found"),
        "{row}"
    );
}

#[test]
fn a_server_written_directly_under_lsp_is_used_too() {
    // The shape other tools write: `"lsp": {"NAME": {"command", "languages"}}`.
    let p = project(Some(json!({"mine": {
        "command": ["seekclaw-no-such-langserver", "--stdio"],
        "languages": ["python"]
    }})));
    p.script(&[("count: int = 1", "count: int = 2")]);
    p.run(None);
    let results = p.results();
    assert!(
        results[0].ends_with("\n\nno diagnostics: seekclaw-no-such-langserver not found"),
        "{}",
        results[0]
    );
}

#[test]
fn without_lsp_config_an_edit_reports_as_before() {
    let p = project(None);
    p.script(&[("count: int = 1", "count: int = \"one\"")]);
    p.run(None);
    let results = p.results();
    assert!(results[0].starts_with("Edited app.py"), "{}", results[0]);
    assert!(!results[0].contains("iagnostics"), "{}", results[0]);
    let out = Command::new(bin())
        .args(["doctor", "--json"])
        .env("SEEKCLAW_HOME", &p.home)
        .current_dir(&p.work)
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&out.stdout).contains("LSP"));
}

/// The daemon keeps one pyright per workspace for every session on it,
/// `doctor` shows it running, and it ends with the daemon.
#[test]
fn sessions_on_one_workspace_share_one_server_that_ends_with_the_daemon() {
    use crate::support::turns::{chat, setup};
    let Some(pyright) = pyright_bin() else { return };
    let server = ProviderServer::start().unwrap();
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs = vec![pyright];
    dirs.extend(std::env::split_paths(&path));
    let mut d = setup(
        &server,
        seekclaw_testkit::StartOptions {
            config: Some(json!({"lsp": {"servers": {"pyright": {}}, "waitMilliseconds": 60000}})),
            env: vec![(
                "PATH".into(),
                std::env::join_paths(dirs)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned(),
            )],
            ..Default::default()
        },
    );
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("proj");
    std::fs::create_dir_all(ws.join(".git")).unwrap();
    std::fs::write(ws.join("app.py"), APP).unwrap();
    let w = ws.display().to_string();
    let mut c = d.connect().unwrap();
    let lsp_row = |c: &mut seekclaw_testkit::Client| {
        let checks = c.ok_json("doctor.run", json!({"workspace": w})).unwrap();
        checks
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == "LSP pyright")
            .cloned()
            .unwrap_or_else(|| panic!("{checks:#}"))
    };
    assert!(
        lsp_row(&mut c)["detail"]
            .as_str()
            .unwrap()
            .starts_with("not started"),
        "{}",
        lsp_row(&mut c)
    );
    let mut pids = Vec::new();
    for (i, (old, new)) in [
        ("count: int = 1", "count: int = \"one\""),
        ("greet(name: str) -> str", "greet(name: str) -> int"),
    ]
    .into_iter()
    .enumerate()
    {
        server.clear_requests();
        server.enqueue(Reply::new().tool_call(
            format!("e{i}"),
            "edit_file",
            json!({"path": "app.py", "old_string": old, "new_string": new}).to_string(),
        ));
        server.enqueue(Reply::plain("done"));
        // A new session each time: the server is the workspace's, not the session's.
        let all = chat(&mut c, json!({"message": "edit", "workspace": w}));
        assert_eq!(all.last().unwrap()["event"], "done", "{all:?}");
        let requests = server.requests();
        let result = requests[1].body["messages"]
            .as_array()
            .unwrap()
            .last()
            .unwrap()["content"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(
            result.contains("Diagnostics after this edit (pyright):"),
            "{result}"
        );
        let row = lsp_row(&mut c);
        assert_eq!(row["level"], "ok", "{row}");
        let detail = row["detail"].as_str().unwrap().to_string();
        assert!(
            detail.starts_with(&format!("running for {w} (pid ")),
            "{detail}"
        );
        let pid: u32 = detail
            .rsplit("(pid ")
            .next()
            .unwrap()
            .trim_end_matches(')')
            .parse()
            .unwrap();
        pids.push(pid);
    }
    assert_eq!(pids[0], pids[1], "one server for both sessions");
    d.signal(libc::SIGTERM).unwrap();
    d.wait_exit(Duration::from_secs(30)).unwrap();
    let gone = (0..100).any(|_| {
        let alive = seekclaw_testkit::process_alive(pids[0]);
        if alive {
            std::thread::sleep(Duration::from_millis(50));
        }
        !alive
    });
    assert!(gone, "pyright outlived the daemon");
}
