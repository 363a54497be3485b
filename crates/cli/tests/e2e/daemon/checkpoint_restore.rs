//! Every way the agent changes files, put back through the daemon (issue 38):
//! `edit_file`, `sed -i` and a heredoc through `bash`, `rm`, `chmod +x`, a
//! folder made, a file written by a background job; in a git repository
//! (whose `.git` stays byte-identical) and in a plain folder; ignored and
//! oversized files untouched and reported; and a `kill -9` in the middle of
//! a checkpoint leaves a store that later checkpoints and rewinds use.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use seekclaw_testkit::{Client, DaemonProcess, ProviderServer, Reply, StartOptions};
use serde_json::{Value, json};

use crate::support::no_sandbox;
use crate::support::turns::{chat, events, setup};

fn put(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn read(root: &Path, rel: &str) -> Option<String> {
    std::fs::read_to_string(root.join(rel)).ok()
}

fn git(ws: &Path, args: &[&str]) {
    let ok = std::process::Command::new("git")
        .args(["-c", "user.email=t@t", "-c", "user.name=t"])
        .args(args)
        .current_dir(ws)
        .output()
        .unwrap();
    assert!(ok.status.success(), "git {args:?}: {ok:?}");
}

/// Every byte under the user's `.git` (HEAD, index, refs, the stash, objects).
fn dot_git(ws: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![ws.join(".git")];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push((p.clone(), std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

fn workspace(tmp: &Path, repo: bool) -> PathBuf {
    let ws = tmp.join("proj");
    put(&ws, "a.txt", "alpha\nbeta\n");
    put(&ws, "b.txt", "x marks the spot\n");
    put(&ws, "d.txt", "doomed\n");
    put(&ws, "e.sh", "echo e\n");
    put(&ws, ".gitignore", "build/\n");
    put(&ws, "build/out.o", "object\n");
    put(&ws, "big.bin", &"z".repeat(5000));
    if repo {
        git(&ws, &["init", "-q"]);
        git(&ws, &["add", "."]);
        git(&ws, &["commit", "-qm", "init"]);
        // A stash, so refs/stash is there to be left alone.
        put(&ws, "a.txt", "stashed edit\n");
        git(&ws, &["stash", "-q"]);
    }
    ws
}

fn options() -> StartOptions {
    StartOptions {
        config: Some(json!({
            "agent": {"autoVerify": false},
            "checkpoints": {"maxFileBytes": 4096}
        })),
        ..Default::default()
    }
}

/// The `checkpoint` notes of a stream.
fn notes(all: &[Value]) -> Vec<Value> {
    events(all, "checkpoint")
        .iter()
        .map(|e| serde_json::from_str(e["data"].as_str().unwrap()).unwrap())
        .collect()
}

fn script_every_change(server: &ProviderServer) {
    server.enqueue(Reply::new().tool_call(
        "e1",
        "edit_file",
        r#"{"path":"a.txt","old_string":"beta","new_string":"BETA"}"#,
    ));
    let script = "sed -i 's/x/y/' b.txt && cat > c.txt <<'EOF'\nmade by a heredoc\nEOF\nrm d.txt && chmod +x e.sh && mkdir -p new/deep && echo n > new/deep/n.txt";
    server.enqueue(Reply::new().tool_call("b1", "bash", json!({"command": script}).to_string()));
    server.enqueue(
        Reply::new().tool_call(
            "b2",
            "bash",
            json!({"command": "sleep 0.3; echo later > job.txt", "run_in_background": true})
                .to_string(),
        ),
    );
    server.enqueue(Reply::plain("changed"));
}

/// Polls `checkpoint.list` until a checkpoint of `kind` is there.
fn wait_kind(c: &mut Client, sid: &str, w: &str, kind: &str) -> Vec<Value> {
    let start = Instant::now();
    loop {
        let list = c
            .ok_json("checkpoint.list", json!({"sessionId": sid, "workspace": w}))
            .unwrap();
        let list = list.as_array().unwrap().clone();
        if list.iter().any(|c| c["kind"] == kind) {
            return list;
        }
        assert!(
            start.elapsed() < Duration::from_secs(15),
            "no {kind}: {list:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn every_change_is_put_back(repo: bool) {
    if no_sandbox() {
        return;
    }
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let ws = workspace(tmp.path(), repo);
    let w = ws.display().to_string();
    let git_before = repo.then(|| dot_git(&ws));
    let before_a = read(&ws, "a.txt").unwrap();
    let d = setup(&server, options());
    let mut c = d.connect().unwrap();
    script_every_change(&server);
    let all = chat(
        &mut c,
        json!({"message": "change everything", "workspace": w}),
    );
    assert_eq!(all.last().unwrap()["event"], "done", "{all:?}");
    let sid = all[0]["sessionId"].as_str().unwrap().to_string();
    let notes = notes(&all);
    assert_eq!(notes[0]["kind"], "turn", "{notes:?}");
    assert_eq!(
        notes[0]["notTracked"]["ignored"],
        json!(["build/"]),
        "{notes:?}"
    );
    assert_eq!(
        notes[0]["notTracked"]["oversize"],
        json!(["big.bin"]),
        "{notes:?}"
    );
    let turn = notes[0]["turnSeq"].as_u64().unwrap();
    let list = wait_kind(&mut c, &sid, &w, "job");
    assert!(ws.join("job.txt").exists(), "{list:?}");
    if let Some(before) = &git_before {
        assert!(*before == dot_git(&ws), "the turn left .git alone");
    }

    let rewound = c
        .ok_json(
            "session.rewind",
            json!({"id": sid, "seq": turn, "restore": "code", "workspace": w}),
        )
        .unwrap();
    assert_eq!(rewound["conflicts"], json!([]), "{rewound}");
    assert_eq!(read(&ws, "a.txt").unwrap(), before_a);
    assert_eq!(read(&ws, "b.txt").unwrap(), "x marks the spot\n");
    assert_eq!(read(&ws, "d.txt").unwrap(), "doomed\n");
    for gone in ["c.txt", "job.txt", "new"] {
        assert!(!ws.join(gone).exists(), "{gone} was the agent's: {rewound}");
    }
    let mode = std::fs::metadata(ws.join("e.sh"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o111, 0, "the executable bit is taken back");
    assert_eq!(read(&ws, "build/out.o").unwrap(), "object\n");
    assert_eq!(read(&ws, "big.bin").unwrap().len(), 5000);
    if let Some(before) = git_before {
        assert!(before == dot_git(&ws), "the rewind left .git alone");
    }
}

#[test]
fn every_change_of_the_agent_is_put_back_in_a_git_repository() {
    every_change_is_put_back(true);
}

#[test]
fn every_change_of_the_agent_is_put_back_in_a_plain_folder() {
    every_change_is_put_back(false);
}

#[test]
fn a_kill_9_mid_checkpoint_leaves_a_store_later_checkpoints_and_rewinds_use() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("big");
    // 3,000 files no two alike: the first checkpoint keeps ~24 MB.
    for i in 0..3000 {
        let line = format!("file {i} holds line number {{}} of its own\n");
        let text: String = (0..200)
            .map(|n| line.replace("{}", &n.to_string()))
            .collect();
        put(&ws, &format!("d{}/f{i}.txt", i / 100), &text);
    }
    let w = ws.display().to_string();
    let home = tmp.path().join("home");
    let mut config = options().config.unwrap();
    config["providers"] = json!([{"id": "tk", "kind": "openai", "baseUrl": server.base_url(),
        "apiKey": "sk-tk", "models": [{"id": "m1", "contextWindow": 128000, "maxOutput": 4096}]}]);
    config["checkpoints"] = json!({});
    let opts = StartOptions {
        config: Some(config),
        ..Default::default()
    };
    let mut d = DaemonProcess::spawn(crate::support::bin(), &home, &opts).unwrap();
    let mut c = d.connect().unwrap();
    server.enqueue(Reply::new().tool_call(
        "w1",
        "write_file",
        r#"{"path":"d0/f0.txt","content":"overwritten\n"}"#,
    ));
    c.send("chat", json!({"message": "overwrite", "workspace": w}))
        .unwrap();
    // Killed while the first checkpoint's bytes are being written.
    let wal = home.join("checkpoints.db-wal");
    let start = Instant::now();
    while std::fs::metadata(&wal).map_or(0, |m| m.len()) < 512 * 1024 {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "the checkpoint never started writing"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
    d.kill9().unwrap();
    let original = read(&ws, "d0/f0.txt").unwrap();

    let d = DaemonProcess::spawn(crate::support::bin(), &home, &StartOptions::default()).unwrap();
    let db = rusqlite::Connection::open(home.join("checkpoints.db")).unwrap();
    let check: String = db
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(check, "ok");
    drop(db);
    let mut c = d.connect().unwrap();
    server.enqueue(Reply::new().tool_call(
        "w2",
        "write_file",
        r#"{"path":"d1/f100.txt","content":"second try\n"}"#,
    ));
    server.enqueue(Reply::plain("done"));
    let before = read(&ws, "d1/f100.txt").unwrap();
    let all = chat(&mut c, json!({"message": "again", "workspace": w}));
    assert_eq!(all.last().unwrap()["event"], "done", "{all:?}");
    let notes = notes(&all);
    assert!(
        !notes.is_empty() && notes.iter().all(|n| n["error"].is_null()),
        "{all:?}"
    );
    let sid = all[0]["sessionId"].as_str().unwrap().to_string();
    let turn = notes[0]["turnSeq"].as_u64().unwrap();
    c.ok_json(
        "session.rewind",
        json!({"id": sid, "seq": turn, "restore": "code", "workspace": w}),
    )
    .unwrap();
    assert_eq!(read(&ws, "d1/f100.txt").unwrap(), before);
    assert_eq!(
        read(&ws, "d0/f0.txt").unwrap(),
        original,
        "the killed turn's file is as it was left"
    );
}
