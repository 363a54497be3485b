//! `seekclaw doctor` (with and without a daemon, `--json`) and `seekclaw init`
//! (issue 26, item 7).

use std::path::Path;
use std::process::{Command, Output, Stdio};

use seekclaw_testkit::{DaemonProcess, ProviderServer, StartOptions};
use serde_json::{Value, json};

use crate::support::{bin, project_dir};

fn seekclaw(home: &Path, cwd: &Path, args: &[&str]) -> Output {
    Command::new(bin())
        .args(args)
        .env("SEEKCLAW_HOME", home)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .unwrap()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn checks(home: &Path, cwd: &Path) -> Vec<Value> {
    let out = seekclaw(home, cwd, &["doctor", "--json"]);
    let all: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    all.as_array().unwrap().clone()
}

fn level<'a>(checks: &'a [Value], name: &str) -> &'a str {
    checks
        .iter()
        .find(|c| c["name"] == name)
        .and_then(|c| c["level"].as_str())
        .unwrap_or_else(|| panic!("no {name} in {checks:?}"))
}

#[test]
fn a_new_user_is_told_what_fails_and_how_to_fix_it_and_init_settles_the_optional() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let project = project_dir(tmp.path(), "proj");

    let out = seekclaw(&home, &project, &["doctor"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "a failure exits 1: {text}");
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with("seekclaw doctor — home ")
            && lines[0].contains("checked in this process (no daemon is running)"),
        "{text}"
    );
    assert!(text.contains("FAIL  Provider Config"), "{text}");
    assert!(
        text.contains("fix: add one: `seekclaw provider add deepseek` (it asks for the key"),
        "{text}"
    );
    assert!(text.contains("INFO  SeekClaw Metadata Dir"), "{text}");
    assert!(text.contains("INFO  Workspace Memory"), "{text}");
    assert!(text.contains("INFO  Daemon"), "{text}");
    // No config.json yet: not "OK" beside a file that is not there.
    assert!(!home.join("config.json").exists());
    let config_row = text
        .lines()
        .find(|l| l.contains("Config File config.json"))
        .unwrap();
    assert!(
        config_row.starts_with("INFO") && config_row.contains("does not exist yet"),
        "{text}"
    );
    assert!(
        text.lines()
            .last()
            .unwrap()
            .starts_with("1 check(s) failed"),
        "{text}"
    );
    // Every failure has a fix, and the commands it names exist.
    let all = checks(&home, &project);
    for check in &all {
        if check["level"] == "fail" {
            let fix = check["fix"].as_str().unwrap_or_else(|| panic!("{check}"));
            assert!(!fix.is_empty());
        }
    }

    // `seekclaw init`, which the INFO rows name, exists and never overwrites.
    let out = seekclaw(&home, &project.join("src"), &["init"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout(&out).contains(".seekclaw/memory/MEMORY.md"));
    let memory = project.join(".seekclaw/memory/MEMORY.md");
    std::fs::write(&memory, "# mine\n").unwrap();
    std::fs::write(
        project.join(".seekclaw/config.json"),
        "{\"mode\": \"plan\"}\n",
    )
    .unwrap();
    let out = seekclaw(&home, &project, &["init"]);
    assert!(out.status.success());
    assert!(
        stdout(&out).contains("already initialized"),
        "{}",
        stdout(&out)
    );
    assert_eq!(std::fs::read_to_string(&memory).unwrap(), "# mine\n");
    assert_eq!(
        std::fs::read_to_string(project.join(".seekclaw/config.json")).unwrap(),
        "{\"mode\": \"plan\"}\n"
    );
    let all = checks(&home, &project);
    assert_eq!(level(&all, "SeekClaw Metadata Dir"), "ok");
    assert_eq!(level(&all, "Workspace Memory"), "ok");
}

#[test]
fn the_same_checks_run_with_and_without_a_daemon() {
    let server = ProviderServer::start().unwrap();
    server.set_models(["m1"]);
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let project = project_dir(tmp.path(), "proj");
    std::fs::create_dir_all(&home).unwrap();
    let config = json!({"providers": [{
        "id": "tk", "kind": "openai", "baseUrl": server.base_url(), "apiKey": "sk-tk",
        "models": [{"id": "m1"}]
    }]});
    std::fs::write(home.join("config.json"), config.to_string()).unwrap();
    let out = seekclaw(&home, &project, &["init"]);
    assert!(out.status.success());

    let here = checks(&home, &project);
    let out = seekclaw(&home, &project, &["doctor"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));

    // The daemon started elsewhere: the doctor still checks the project it runs in.
    let _d = DaemonProcess::spawn(bin(), &home, &StartOptions::default()).unwrap();
    let through = checks(&home, &project);
    let root = through
        .iter()
        .find(|c| c["name"] == "Workspace Root")
        .unwrap();
    assert_eq!(root["detail"], project.display().to_string());
    let names = |all: &[Value]| -> Vec<String> {
        all.iter()
            .map(|c| c["name"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(names(&here), names(&through));
    assert_eq!(level(&here, "Daemon"), "info");
    assert_eq!(level(&through, "Daemon"), "ok");
    assert_eq!(level(&through, "Provider tk"), "ok");
    assert_eq!(level(&here, "Provider tk"), "ok");
    let out = seekclaw(&home, &project, &["doctor"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.lines()
            .next()
            .unwrap()
            .contains("checked through the running daemon"),
        "{text}"
    );
    assert!(
        text.contains("All checks passed.") || text.contains("No failures;"),
        "{text}"
    );
}

#[test]
fn init_prints_each_gitignore_line_it_adds_and_how_to_undo_it() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let project = project_dir(tmp.path(), "proj");
    std::fs::write(project.join(".gitignore"), "target\nlogs/\n").unwrap();
    let out = seekclaw(&home, &project, &["init"]);
    let text = stdout(&out);
    assert!(out.status.success(), "{text}");
    let gitignore = project.join(".gitignore");
    assert_eq!(
        std::fs::read_to_string(&gitignore).unwrap(),
        "target\nlogs/\n\n# SeekClaw\n.seekclaw/\n.session/\n.cache/\n"
    );
    assert!(
        text.contains(&format!(
            "appended to {} (so the agent's local files stay out of git):\n  # SeekClaw\n  .seekclaw/\n  .session/\n  .cache/\nTo undo, delete these 4 line(s) and the blank line above them at the end of {}; `seekclaw init --no-gitignore` leaves .gitignore alone.\n",
            gitignore.display(),
            gitignore.display()
        )),
        "{text}"
    );
    // `--no-gitignore` leaves a project's file alone, and says nothing of it.
    let other = project_dir(tmp.path(), "other");
    let out = seekclaw(&home, &other, &["init", "--no-gitignore"]);
    assert!(out.status.success());
    assert!(!other.join(".gitignore").exists());
    assert!(!stdout(&out).contains(".gitignore"), "{}", stdout(&out));
    // A created file is named as such, with its undo.
    let out = seekclaw(&home, &other, &["init"]);
    let text = stdout(&out);
    assert!(text.contains("created "), "{text}");
    assert!(text.contains("(it did not exist before)"), "{text}");
    assert!(!text.contains("already initialized"), "{text}");
    // The help says it too.
    let help = stdout(&seekclaw(&home, &other, &["init", "--help"]));
    assert!(
        help.contains(".gitignore") && help.contains("--no-gitignore"),
        "{help}"
    );
}
