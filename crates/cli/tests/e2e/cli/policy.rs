//! `seekclaw permissions check|list` and `seekclaw hooks list|approve`
//! (issue 39), with no daemon running: the decision and the rule, layer and
//! file that made it; a managed file's deny beats a user's allow; an
//! untrusted workspace's allow rules are listed inactive and decide nothing.
//! And `seekclaw run` showing a hook run, piped and `--json`.

use std::path::Path;
use std::process::{Command, Output};

use seekclaw_testkit::{ProviderServer, Reply, StartOptions};
use serde_json::{Value, json};

use crate::support::turns::setup;
use crate::support::{bin, project_dir};

fn seekclaw(home: &Path, managed: &Path, cwd: &Path, args: &[&str]) -> Output {
    Command::new(bin())
        .args(args)
        .current_dir(cwd)
        .env("SEEKCLAW_HOME", home)
        .env("SEEKCLAW_MANAGED_CONFIG", managed)
        .output()
        .unwrap()
}

fn stdout(out: &Output) -> String {
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).to_string()
}

#[test]
fn permissions_check_and_list_name_the_rule_its_layer_and_its_file() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(
        home.join("config.json"),
        json!({"permissions": {"allow": ["Bash(git push:*)", "Bash(npm test:*)"]}}).to_string(),
    )
    .unwrap();
    let managed = tmp.path().join("managed.json");
    std::fs::write(
        &managed,
        json!({"permissions": {"deny": ["Bash(git push:*)"]}}).to_string(),
    )
    .unwrap();
    let ws = project_dir(tmp.path(), "proj");
    std::fs::create_dir_all(ws.join(".seekclaw")).unwrap();
    std::fs::write(
        ws.join(".seekclaw/config.json"),
        json!({"permissions": {"allow": ["Bash(make:*)"], "deny": ["Read(./.env)"]}}).to_string(),
    )
    .unwrap();
    let user_file = home.join("config.json").display().to_string();
    let managed_file = managed.display().to_string();
    let check = |args: &[&str]| {
        let mut all = vec!["permissions", "check"];
        all.extend_from_slice(args);
        stdout(&seekclaw(&home, &managed, &ws, &all))
    };

    // The managed deny beats the user's allow of the same command.
    let push = check(&["--", "git", "push", "origin", "main"]);
    assert!(
        push.starts_with(&format!(
            "deny  Bash(git push:*)  (managed: {managed_file})\n"
        )),
        "{push}"
    );
    let test = check(&["--", "npm", "test"]);
    assert!(
        test.starts_with(&format!("allow  Bash(npm test:*)  (user: {user_file})\n")),
        "{test}"
    );
    // A compound command passes only if every part does.
    let chained = check(&["--", "npm test && rm -rf ~"]);
    assert!(!chained.starts_with("allow"), "{chained}");
    // No rule: the approval policy decides.
    let ls = check(&["--", "ls"]);
    assert!(ls.starts_with("no rule: "), "{ls}");
    // The untrusted workspace: its deny applies, its allow does not.
    let env = check(&["--", "Read(./.env)"]);
    assert!(env.starts_with("deny  Read(./.env)  (workspace: "), "{env}");
    let make = check(&["--", "make", "all"]);
    assert!(!make.starts_with("allow"), "{make}");
    let json_out: Value = serde_json::from_str(&check(&["--json", "--", "git", "push"])).unwrap();
    assert_eq!(json_out["verdict"], "deny");
    assert_eq!(json_out["layer"], "managed");
    assert_eq!(json_out["file"], managed_file.as_str());

    let list = stdout(&seekclaw(&home, &managed, &ws, &["permissions", "list"]));
    assert!(list.contains("(not trusted"), "{list}");
    assert!(
        list.contains(&format!(
            "managed  {managed_file}\n  deny   Bash(git push:*)\n"
        )),
        "{list}"
    );
    assert!(
        list.contains(&format!(
            "user  {user_file}\n  allow  Bash(git push:*)\n  allow  Bash(npm test:*)\n"
        )),
        "{list}"
    );
    assert!(
        list.contains("  allow  Bash(make:*)  (inactive)\n"),
        "{list}"
    );
    assert!(list.contains("  deny   Read(./.env)\n"), "{list}");
    // Managed first, then the user's, then the workspace's.
    let at = |s: &str| list.find(s).unwrap();
    assert!(at("managed  ") < at("user  ") && at("user  ") < at("  allow  Bash(make:*)"));
}

#[test]
fn run_shows_a_hook_run_and_hooks_approve_works_through_the_daemon() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let ws = project_dir(tmp.path(), "proj");
    std::fs::create_dir_all(ws.join(".seekclaw")).unwrap();
    std::fs::write(
        ws.join(".seekclaw/config.json"),
        json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "echo checked >&2; exit 0"}
        ]}]}})
        .to_string(),
    )
    .unwrap();
    let d = setup(&server, StartOptions::default());
    let mut c = d.connect().unwrap();
    let w = ws.display().to_string();
    c.ok_json("project.upsert", json!({"path": w})).unwrap();
    let managed = tmp.path().join("no-managed.json");
    let run = |args: &[&str]| seekclaw(&d.home, &managed, &ws, args);

    let listed = stdout(&run(&["hooks", "list"]));
    assert!(
        listed.contains("PreToolUse [Bash]  echo checked >&2; exit 0  (60 s)  (off)"),
        "{listed}"
    );
    assert!(listed.contains(": not approved"), "{listed}");
    let approved = stdout(&run(&["hooks", "approve"]));
    assert!(approved.contains("approved the hooks of"), "{approved}");
    let listed = stdout(&run(&["hooks", "list"]));
    assert!(listed.contains(": approved\n"), "{listed}");
    assert!(!listed.contains("(off)"), "{listed}");

    server.enqueue(Reply::new().tool_call("b1", "bash", r#"{"command":"echo hi"}"#));
    server.enqueue(Reply::plain("Ran."));
    let out = run(&["run", "go"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("[hook PreToolUse `echo checked >&2; exit 0`: ok (exit 0, "),
        "{err}"
    );

    server.enqueue(Reply::new().tool_call("b2", "bash", r#"{"command":"echo hi"}"#));
    server.enqueue(Reply::plain("Ran again."));
    let out = stdout(&run(&["run", "go", "--json"]));
    let lines: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let finished: Vec<&Value> = lines
        .iter()
        .filter(|e| e["event"] == "hook_finished")
        .collect();
    assert_eq!(finished.len(), 1, "{out}");
    assert_eq!(finished[0]["details"]["callId"], "b2");
    assert_eq!(finished[0]["details"]["exitCode"], 0);
    assert!(lines.iter().any(|e| e["event"] == "hook_started"), "{out}");
}
