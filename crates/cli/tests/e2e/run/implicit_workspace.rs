//! No surprise workspaces (issue 26, item 5): `/`, the home directory and
//! its parents are refused as workspaces taken from a working directory
//! (`run`, `serve`, the daemon's `chat` without `workspace`), and still work
//! when named (`--workspace`, `chat {workspace}`, `workspace.open`).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use seekclaw_testkit::{ProviderServer, Reply, StartOptions};
use serde_json::{Value, json};

use crate::support::{bin, start_with};

/// A user home `<tmp>/u` (with a non-project folder `u/notes`) and a
/// seekclaw home whose provider is `server`.
struct Homes {
    _tmp: tempfile::TempDir,
    user: PathBuf,
    seekclaw: PathBuf,
}

fn homes(server: &ProviderServer) -> Homes {
    let tmp = tempfile::tempdir().unwrap();
    let user = tmp.path().join("u");
    std::fs::create_dir_all(user.join("notes")).unwrap();
    let seekclaw = tmp.path().join("sc");
    std::fs::create_dir_all(&seekclaw).unwrap();
    std::fs::write(seekclaw.join("config.json"), config(server).to_string()).unwrap();
    Homes {
        _tmp: tmp,
        user,
        seekclaw,
    }
}

fn config(server: &ProviderServer) -> Value {
    json!({"providers": [{"id": "tk", "kind": "openai", "baseUrl": server.base_url(), "models": [{"id": "m1"}]}]})
}

impl Homes {
    /// `seekclaw ARGS` in `cwd`, with `HOME` the user home.
    fn run(&self, cwd: &Path, args: &[&str]) -> Output {
        Command::new(bin())
            .args(args)
            .env("HOME", &self.user)
            .env("SEEKCLAW_HOME", &self.seekclaw)
            .current_dir(cwd)
            .output()
            .unwrap()
    }

    fn sessions(&self) -> Value {
        let out = self.run(&self.user, &["sessions", "list", "--all", "--json"]);
        serde_json::from_slice(&out.stdout).unwrap()
    }
}

#[test]
fn run_and_serve_refuse_the_root_the_home_and_its_parents_unless_named() {
    let server = ProviderServer::start().unwrap();
    server.set_default(Reply::plain("ok"));
    let h = homes(&server);
    let parent = h.user.parent().unwrap().to_path_buf();
    for (cwd, what) in [
        (h.user.clone(), "your home directory"),
        (parent, "a parent of your home directory"),
        (PathBuf::from("/"), "the filesystem root"),
    ] {
        let out = h.run(&cwd, &["run", "hello"]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{}: {stderr}", cwd.display());
        assert!(stderr.contains(&format!("it is {what}")), "{stderr}");
        assert!(stderr.contains("--workspace DIR"), "{stderr}");
        let out = h.run(&cwd, &["serve"]);
        let first: Value =
            serde_json::from_slice(out.stdout.split(|b| *b == b'\n').next().unwrap()).unwrap();
        assert_eq!(out.status.code(), Some(1));
        assert_eq!(first["event"], "agent_setup_failed", "{first}");
        assert!(first["error"].as_str().unwrap().contains(what), "{first}");
    }
    assert_eq!(server.requests().len(), 0, "no turn ran");
    assert_eq!(h.sessions(), json!([]), "refused starts leave no session");

    // Named, the home works; so does a folder under it.
    let user = h.user.to_str().unwrap();
    let out = h.run(&h.user, &["run", "--workspace", user, "hello"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = h.run(&h.user.join("notes"), &["run", "hello"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let workspaces: Vec<String> = h
        .sessions()
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["workspace"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(workspaces.len(), 2, "{workspaces:?}");
    assert!(
        workspaces.iter().any(|w| w.ends_with("/u/notes")),
        "{workspaces:?}"
    );
}

#[test]
fn the_daemons_chat_refuses_a_broad_working_directory_unless_a_workspace_is_named() {
    let server = ProviderServer::start().unwrap();
    server.set_default(Reply::plain("ok"));
    let h = homes(&server);
    let d = start_with(StartOptions {
        config: Some(config(&server)),
        cwd: Some(h.user.clone()),
        env: vec![("HOME".into(), h.user.display().to_string())],
        ..StartOptions::default()
    });
    let mut c = d.connect().unwrap();
    let err = c.err("chat", json!({"message": "hello"})).unwrap();
    assert_eq!(err["details"]["param"], "workspace", "{err}");
    let text = err["data"].as_str().unwrap();
    assert!(text.contains("it is your home directory"), "{text}");
    assert!(text.contains("`workspace`"), "{text}");
    assert_eq!(server.requests().len(), 0);
    assert_eq!(c.ok_json("session.list", json!({})).unwrap(), json!([]));
    // Named in the chat, or opened: it is the user's choice.
    let user = h.user.to_str().unwrap();
    let done = c
        .request("chat", json!({"message": "hello", "workspace": user}))
        .unwrap();
    assert_eq!(done["event"], "done", "{done}");
    c.ok("workspace.open", json!({"path": user})).unwrap();
    let done = c.request("chat", json!({"message": "again"})).unwrap();
    assert_eq!(done["event"], "done", "{done}");
}
