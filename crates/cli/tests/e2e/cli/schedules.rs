//! `seekclaw schedule` as a newcomer meets it (issue 36, item 11): `add`
//! works in the project of the current directory as `run` and `chat` do;
//! through a daemon started on demand it warns that the task runs only while
//! that daemon is up, and how to keep one running; `list` reads the store
//! when no daemon runs.

use std::path::Path;
use std::process::{Command, Output};

use seekclaw_testkit::{DaemonProcess, StartOptions};
use serde_json::Value;

use crate::support::{bin, project_dir};

fn seekclaw(home: &Path, cwd: &Path, args: &[&str]) -> Output {
    Command::new(bin())
        .args(args)
        .env("SEEKCLAW_HOME", home)
        .current_dir(cwd)
        .output()
        .unwrap()
}

fn ok(out: &Output) -> (String, String) {
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    assert!(out.status.success(), "{stdout}{stderr}");
    (stdout, stderr)
}

fn add(name: &str) -> Vec<&str> {
    vec![
        "schedule",
        "add",
        "--name",
        name,
        "--cron",
        "0 2 * * *",
        "--prompt",
        "tidy up",
    ]
}

#[test]
fn add_works_where_run_does_warns_on_an_on_demand_daemon_and_list_needs_no_daemon() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let project = project_dir(tmp.path(), "proj");
    let d = DaemonProcess::spawn(
        bin(),
        &home,
        &StartOptions {
            args: vec!["--on-demand".into()],
            env: vec![("SEEKCLAW_IDLE_EXIT".into(), "600".into())],
            ..StartOptions::default()
        },
    )
    .unwrap();

    // From a folder inside the project: the project's root, as `run` takes it.
    let (added, warned) = ok(&seekclaw(&home, &project.join("src"), &add("nightly")));
    assert!(
        added.contains(&format!(" in {}, next run: ", project.display())),
        "{added}"
    );
    assert!(
        warned.starts_with("warning: this daemon was started on demand")
            && warned.contains("`seekclaw daemon`")
            && warned.contains("contrib/systemd/seekclaw.service"),
        "{warned}"
    );
    let (added, _) = ok(&seekclaw(&home, &project, &{
        let mut a = add("everywhere");
        a.push("--global");
        a
    }));
    assert!(
        added.contains(" in the global scope, next run: "),
        "{added}"
    );
    // Where `run` refuses a folder as a workspace, so does `add`.
    let out = seekclaw(&home, Path::new("/"), &add("root"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("Not using / as the workspace") && stderr.contains("--global"),
        "{stderr}"
    );
    // A disabled task is not warned about.
    let (_, quiet) = ok(&seekclaw(&home, &project, &{
        let mut a = add("later");
        a.push("--disabled");
        a
    }));
    assert!(quiet.is_empty(), "{quiet}");
    drop(d);

    // No daemon: the tasks are listed from the store, with what that means.
    let (listed, note) = ok(&seekclaw(&home, &project, &["schedule", "list"]));
    assert_eq!(listed.lines().count(), 4, "{listed}");
    assert!(
        listed.contains("nightly") && listed.contains("everywhere"),
        "{listed}"
    );
    assert!(
        note.contains("no seekclaw daemon is running, so no task runs"),
        "{note}"
    );
    let (json, _) = ok(&seekclaw(&home, &project, &["schedule", "list", "--json"]));
    let tasks: Value = serde_json::from_str(&json).unwrap();
    let nightly = tasks
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "nightly")
        .unwrap();
    assert_eq!(nightly["workspace"], project.display().to_string());
    assert!(nightly["nextRunAt"].is_string(), "{nightly}");

    // A daemon that keeps running gives no warning.
    let _kept = DaemonProcess::spawn(bin(), &home, &StartOptions::default()).unwrap();
    let (_, quiet) = ok(&seekclaw(&home, &project, &add("kept")));
    assert!(quiet.is_empty(), "{quiet}");
}
