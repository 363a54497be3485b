//! Checkpoints, rewind and fork in process, against the testkit's real HTTP
//! provider, the real store and a real workspace (a git repository and a
//! plain folder): every way the agent changes files is put back.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use seekclaw_agent::{AgentEvent, Approvals, CheckpointNote, TurnOutcome};
use seekclaw_config::Home;
use seekclaw_engine::{
    Engine, ErrorKind, ForkRequest, Restore, RewindRequest, Scope, SessionTarget, TurnControls,
    TurnHandle, TurnOrigin, TurnOverrides, TurnRequest,
};
use seekclaw_testkit::{ProviderServer, Reply};
use serde_json::json;

struct World {
    _dir: tempfile::TempDir,
    engine: Engine,
    scope: Scope,
    work: PathBuf,
}

async fn world(server: &ProviderServer, git: bool) -> World {
    let dir = tempfile::tempdir().unwrap();
    let home = Home::at(dir.path().join("home"));
    home.ensure().unwrap();
    let config = json!({
        "providers": [{
            "id": "tk", "kind": "openai", "baseUrl": server.base_url(), "apiKey": "sk-tk",
            "timeoutSeconds": 20,
            "models": [{"id": "m1", "contextWindow": 128000, "maxOutput": 4096}]
        }],
        "agent": {"autoVerify": false},
        // The repository variant watches (inotify), the plain folder rescans.
        "checkpoints": {"maxFileBytes": 4096, "watchFiles": if git { 0 } else { 4000 }}
    });
    std::fs::write(home.config_path(), config.to_string()).unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    put(&work, "a.txt", "alpha\nbeta\n");
    put(&work, "b.txt", "x marks\n");
    put(&work, "d.txt", "doomed\n");
    put(&work, "e.sh", "echo e\n");
    put(&work, ".gitignore", "build/\n");
    put(&work, "build/out.o", "object\n");
    put(&work, "big.bin", &"z".repeat(5000));
    if git {
        for args in [
            &["init", "-q"][..],
            &["add", "."],
            &[
                "-c",
                "user.email=t@t",
                "-c",
                "user.name=t",
                "commit",
                "-qm",
                "init",
            ],
            &["stash", "list"],
        ] {
            let ok = std::process::Command::new("git")
                .args(args)
                .current_dir(&work)
                .status()
                .unwrap();
            assert!(ok.success());
        }
    }
    let engine = Engine::open(home).await.unwrap();
    World {
        _dir: dir,
        engine,
        scope: Scope::of_root(&work),
        work,
    }
}

fn put(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn read(root: &Path, rel: &str) -> Option<String> {
    std::fs::read_to_string(root.join(rel)).ok()
}

fn request(w: &World, session: SessionTarget, message: &str) -> TurnRequest {
    TurnRequest {
        scope: w.scope.clone(),
        session,
        message: message.to_string(),
        images: Vec::new(),
        reasoning: None,
        overrides: TurnOverrides::default(),
        controls: TurnControls::new(Approvals::default()),
        origin: TurnOrigin::new("test"),
    }
}

async fn drain(mut turn: TurnHandle) -> (Vec<AgentEvent>, TurnOutcome) {
    let mut events = Vec::new();
    while let Some(ev) = turn.next_event().await {
        events.push(ev);
    }
    (events, turn.take_outcome().unwrap())
}

fn notes(events: &[AgentEvent]) -> Vec<CheckpointNote> {
    events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Checkpoint(n) => Some(n.clone()),
            _ => None,
        })
        .collect()
}

/// Every byte of the user's `.git` (HEAD, index, refs, logs, objects).
fn git_snapshot(work: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![work.join(".git")];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push((p.display().to_string(), std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// The turn that changes the workspace every way the agent can.
fn script_changes(server: &ProviderServer) {
    server.enqueue(Reply::new().tool_call(
        "c1",
        "edit_file",
        r#"{"path":"a.txt","old_string":"beta","new_string":"BETA"}"#,
    ));
    let script = "sed -i 's/x/y/' b.txt && cat > c.txt <<'EOF'\nmade by heredoc\nEOF\nrm d.txt && chmod +x e.sh && mkdir -p new/deep && echo n > new/deep/n.txt";
    server.enqueue(Reply::new().tool_call("c2", "bash", json!({ "command": script }).to_string()));
    server.enqueue(
        Reply::new().tool_call(
            "c3",
            "bash",
            json!({"command": "sleep 0.3; echo later > job.txt", "run_in_background": true})
                .to_string(),
        ),
    );
    server.enqueue(Reply::plain("done"));
}

async fn wait_for(path: &Path) {
    for _ in 0..100 {
        if path.exists() {
            // The job's checkpoint follows its end.
            tokio::time::sleep(std::time::Duration::from_millis(300)).await;
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("{} never appeared", path.display());
}

async fn rewind_restores_everything(git: bool) {
    let server = ProviderServer::start().unwrap();
    let w = world(&server, git).await;
    let git_before = git.then(|| git_snapshot(&w.work));
    script_changes(&server);
    let turn = w
        .engine
        .start_turn(request(
            &w,
            SessionTarget::New { id: None },
            "change things",
        ))
        .await
        .unwrap();
    let sid = turn.session().id.clone();
    let (events, outcome) = drain(turn).await;
    assert!(matches!(outcome, TurnOutcome::Done(_)), "{outcome:?}");
    let notes = notes(&events);
    assert!(notes.iter().all(|n| n.error.is_none()), "{notes:?}");
    let first = &notes[0];
    assert_eq!(first.kind, "turn");
    let not_tracked = first
        .not_tracked
        .clone()
        .expect("the first says what is not tracked");
    assert_eq!(not_tracked.ignored, vec!["build/".to_string()]);
    assert_eq!(not_tracked.oversize, vec!["big.bin".to_string()]);
    assert!(
        notes
            .iter()
            .any(|n| n.kind == "step" && n.files.iter().any(|f| f.path == "a.txt"))
    );
    assert!(
        notes
            .iter()
            .any(|n| n.kind == "step" && n.files.iter().any(|f| f.path == "c.txt"))
    );
    wait_for(&w.work.join("job.txt")).await;
    assert_eq!(read(&w.work, "a.txt").unwrap(), "alpha\nBETA\n");
    let list = w.engine.checkpoints(&w.scope, &sid).await.unwrap();
    assert!(list.iter().any(|c| c.kind == "job"), "{list:?}");
    let diff = w
        .engine
        .checkpoint_diff(&w.scope, &sid, list[1].seq.unwrap())
        .await
        .unwrap();
    assert!(diff.iter().any(|d| d.diff.contains("+BETA")), "{diff:?}");

    let user_seq = first.turn_seq;
    let dry = w
        .engine
        .rewind(
            &w.scope,
            RewindRequest {
                session_id: sid.clone(),
                seq: user_seq,
                restore: Restore::Code,
                dry_run: true,
                force: false,
            },
        )
        .await
        .unwrap();
    assert!(dry.files.len() >= 6, "{:?}", dry.files);
    assert_eq!(
        read(&w.work, "a.txt").unwrap(),
        "alpha\nBETA\n",
        "a dry run changes nothing"
    );
    let done = w
        .engine
        .rewind(
            &w.scope,
            RewindRequest {
                session_id: sid.clone(),
                seq: user_seq,
                restore: Restore::Code,
                dry_run: false,
                force: false,
            },
        )
        .await
        .unwrap();
    assert!(done.conflicts.is_empty());
    assert_eq!(read(&w.work, "a.txt").unwrap(), "alpha\nbeta\n");
    assert_eq!(read(&w.work, "b.txt").unwrap(), "x marks\n");
    assert_eq!(read(&w.work, "d.txt").unwrap(), "doomed\n");
    for gone in ["c.txt", "job.txt", "new"] {
        assert!(!w.work.join(gone).exists(), "{gone} was made by the agent");
    }
    let mode = std::fs::metadata(w.work.join("e.sh"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o111, 0, "the executable bit is taken back");
    assert_eq!(
        read(&w.work, "build/out.o").unwrap(),
        "object\n",
        "ignored files are untouched"
    );
    assert_eq!(read(&w.work, "big.bin").unwrap().len(), 5000);
    if let Some(before) = git_before {
        assert!(
            before == git_snapshot(&w.work),
            "the user's .git is byte-identical"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rewind_puts_back_every_change_of_the_agent_in_a_git_repository() {
    rewind_restores_everything(true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rewind_puts_back_every_change_of_the_agent_in_a_plain_folder() {
    rewind_restores_everything(false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_users_own_later_edit_is_a_conflict_unless_forced() {
    let server = ProviderServer::start().unwrap();
    let w = world(&server, false).await;
    server.enqueue(Reply::new().tool_call(
        "c1",
        "write_file",
        r#"{"path":"a.txt","content":"agent\n"}"#,
    ));
    server.enqueue(Reply::plain("done"));
    let turn = w
        .engine
        .start_turn(request(&w, SessionTarget::New { id: None }, "write"))
        .await
        .unwrap();
    let sid = turn.session().id.clone();
    let (events, _) = drain(turn).await;
    let user_seq = notes(&events)[0].turn_seq;
    put(&w.work, "a.txt", "the user's own\n");
    let rewind = |force| RewindRequest {
        session_id: sid.clone(),
        seq: user_seq,
        restore: Restore::Both,
        dry_run: false,
        force,
    };
    let err = w.engine.rewind(&w.scope, rewind(false)).await.unwrap_err();
    assert_eq!(err.kind, ErrorKind::Conflict, "{err:?}");
    assert!(err.message.contains("a.txt"), "{}", err.message);
    assert_eq!(read(&w.work, "a.txt").unwrap(), "the user's own\n");
    assert!(
        w.engine.store.messages(&w.scope.key, &sid).unwrap().len() >= 2,
        "a refused rewind leaves the conversation too"
    );
    let forced = w.engine.rewind(&w.scope, rewind(true)).await.unwrap();
    assert_eq!(forced.conflicts, vec!["a.txt".to_string()]);
    assert_eq!(read(&w.work, "a.txt").unwrap(), "alpha\nbeta\n");
    assert_eq!(forced.prompt.unwrap().text, "write");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_conversation_rewind_sends_the_model_nothing_rewound_and_forks_hold_the_start() {
    let server = ProviderServer::start().unwrap();
    let w = world(&server, false).await;
    server.set_default(Reply::plain("ok"));
    let mut sid: Option<String> = None;
    for text in ["first", "second", "third"] {
        let target = match &sid {
            None => SessionTarget::New { id: None },
            Some(id) => SessionTarget::Id(id.clone()),
        };
        let turn = w
            .engine
            .start_turn(request(&w, target, text))
            .await
            .unwrap();
        sid = Some(turn.session().id.clone());
        drain(turn).await;
    }
    let sid = sid.unwrap();
    let events = w.engine.store.events(&w.scope.key, &sid).unwrap();
    let user_seqs: Vec<u64> = events
        .iter()
        .filter(|e| matches!(e.item, seekclaw_store::EventItem::User(_)))
        .map(|e| e.seq)
        .collect();
    assert_eq!(user_seqs.len(), 3);
    let fork = w
        .engine
        .fork(
            &w.scope,
            ForkRequest {
                session_id: sid.clone(),
                seq: user_seqs[1],
                restore_code: false,
                force: false,
            },
        )
        .await
        .unwrap();
    let from = fork.session.forked_from.clone().unwrap();
    assert_eq!(
        (from.session_id.as_str(), from.seq),
        (sid.as_str(), user_seqs[1])
    );
    assert_eq!(fork.prompt.unwrap().text, "second");
    let forked = w
        .engine
        .store
        .messages(&w.scope.key, &fork.session.id)
        .unwrap();
    assert_eq!(forked.iter().filter(|m| m.role == "user").count(), 1);

    let out = w
        .engine
        .rewind(
            &w.scope,
            RewindRequest {
                session_id: sid.clone(),
                seq: user_seqs[1],
                restore: Restore::Conversation,
                dry_run: false,
                force: false,
            },
        )
        .await
        .unwrap();
    assert_eq!(out.prompt.unwrap().text, "second");
    let shown = w.engine.store.messages(&w.scope.key, &sid).unwrap();
    assert!(
        shown
            .iter()
            .all(|m| !m.text.contains("second") && !m.text.contains("third"))
    );
    server.clear_requests();
    let turn = w
        .engine
        .start_turn(request(
            &w,
            SessionTarget::Id(sid.clone()),
            "second, better",
        ))
        .await
        .unwrap();
    drain(turn).await;
    let body = server.requests()[0].body["messages"].to_string();
    assert!(
        body.contains("first") && body.contains("second, better"),
        "{body}"
    );
    assert!(
        !body.contains("\"second\"") && !body.contains("third"),
        "{body}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rewind_while_a_turn_runs_is_busy() {
    let server = ProviderServer::start().unwrap();
    let w = world(&server, false).await;
    server.enqueue(Reply::plain("first"));
    let turn = w
        .engine
        .start_turn(request(&w, SessionTarget::New { id: None }, "one"))
        .await
        .unwrap();
    let sid = turn.session().id.clone();
    drain(turn).await;
    server.enqueue(Reply::plain("slow").header_delay(std::time::Duration::from_millis(800)));
    let mut running = w
        .engine
        .start_turn(request(&w, SessionTarget::Id(sid.clone()), "two"))
        .await
        .unwrap();
    let _ = running.ready_event();
    let err = w
        .engine
        .rewind(
            &w.scope,
            RewindRequest {
                session_id: sid.clone(),
                seq: 1,
                restore: Restore::Both,
                dry_run: false,
                force: false,
            },
        )
        .await
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::Busy, "{err:?}");
    drain(running).await;
    let bad = w
        .engine
        .rewind(
            &w.scope,
            RewindRequest {
                session_id: sid,
                seq: 2,
                restore: Restore::Both,
                dry_run: false,
                force: false,
            },
        )
        .await
        .unwrap_err();
    assert_eq!(
        bad.kind,
        ErrorKind::Invalid,
        "seq 2 is no user message: {bad:?}"
    );
}
