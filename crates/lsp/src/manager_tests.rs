//! The manager against a fake server (tests/fixtures/fake_ls.py: every line
//! holding ERROR is an error): introduced errors only, a fix, a server that
//! hangs, crashes, is missing, a changed entry, shutdown.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use seekclaw_config::LspSettings;

use crate::{LspManager, ServerState};

fn fixture() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/fake_ls.py")
        .display()
        .to_string()
}

fn settings(mode: &str, wait_ms: u64) -> LspSettings {
    serde_json::from_value(serde_json::json!({
        "servers": {"fake": {
            "command": ["python3", fixture(), mode],
            "extensions": ["fk"],
            "settings": {"fake": {"strict": true}},
        }},
        "waitMilliseconds": wait_ms,
    }))
    .unwrap()
}

struct Setup {
    _dir: tempfile::TempDir,
    root: PathBuf,
    file: PathBuf,
    config: Arc<Mutex<LspSettings>>,
    manager: LspManager,
}

fn setup(settings: LspSettings) -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let file = root.join("src").join("a.fk");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let config = Arc::new(Mutex::new(settings));
    let source = config.clone();
    let manager = LspManager::new(Arc::new(move || source.lock().unwrap().clone()));
    Setup {
        _dir: dir,
        root,
        file,
        config,
        manager,
    }
}

impl Setup {
    async fn edit(&self, before: &str, after: &str) -> Option<String> {
        std::fs::write(&self.file, after).unwrap();
        self.manager
            .after_edit(&self.root, &self.file, before, after)
            .await
    }

    fn state(&self) -> ServerState {
        let (rows, problems) = self.manager.status();
        assert!(problems.is_empty(), "{problems:?}");
        rows.into_iter().next().unwrap().state
    }
}

fn alive(pid: u32) -> bool {
    rustix::process::test_kill_process(rustix::process::Pid::from_raw(pid as i32).unwrap()).is_ok()
}

#[tokio::test]
async fn only_the_errors_an_edit_introduced_are_reported_and_a_fix_reports_none() {
    let s = setup(settings("normal", 10_000));
    assert_eq!(s.state(), ServerState::NotStarted);
    let before = "a\nERROR old\n";
    let after = "x\na\nERROR old\nb WARN\nc ERROR new\n";
    let text = s.edit(before, after).await.unwrap();
    assert_eq!(
        text,
        "Diagnostics after this edit (fake):\n src/a.fk:5:3 error: bad: c ERROR new [E1]"
    );
    let ServerState::Running { pid, crashes: 0 } = s.state() else {
        panic!("{:?}", s.state())
    };
    // The file is open now: its last diagnostics are the next baseline.
    assert_eq!(s.edit(after, "x\na\n").await, None);
    // Changed behind the server's back: the text before this edit is the baseline.
    assert_eq!(
        s.edit("ERROR b\n", "ERROR b\nERROR c\n")
            .await
            .unwrap()
            .lines()
            .count(),
        2
    );
    // Files the server does not cover are not sent.
    let other = s.root.join("b.txt");
    assert_eq!(
        s.manager.after_edit(&s.root, &other, "", "ERROR").await,
        None
    );
    s.manager.shutdown().await;
    for _ in 0..100 {
        if !alive(pid) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(!alive(pid), "the server outlived shutdown");
    assert_eq!(s.edit("", "ERROR").await, None);
}

#[tokio::test]
async fn a_server_without_versions_in_its_publishes_works_too() {
    let s = setup(settings("noversion", 10_000));
    let text = s.edit("ok\n", "ok\nERROR\n").await.unwrap();
    assert!(text.contains("src/a.fk:2:1 error: bad: ERROR"), "{text}");
    assert_eq!(s.edit("ok\nERROR\n", "ok\n").await, None);
    s.manager.shutdown().await;
}

#[tokio::test]
async fn a_hung_or_slow_server_costs_at_most_the_bound() {
    for mode in ["hang", "slow"] {
        let s = setup(settings(mode, 300));
        for _ in 0..2 {
            let started = Instant::now();
            assert_eq!(s.edit("", "ERROR\n").await, None);
            // Generous: the bound is 300 ms; the hang is for ever, the slow one 5 s.
            assert!(
                started.elapsed() < Duration::from_secs(3),
                "{mode}: {:?}",
                started.elapsed()
            );
        }
        s.manager.shutdown().await;
    }
}

#[tokio::test]
async fn a_crashing_server_is_restarted_then_left_alone_for_a_while() {
    let s = setup(settings("crash", 5_000));
    let mut pids = Vec::new();
    for round in 0..3 {
        assert_eq!(s.edit("", "ERROR\n").await, None, "round {round}");
        match s.state() {
            ServerState::Running { pid, .. } => pids.push(pid),
            ServerState::Crashed {
                times, last_error, ..
            } => {
                assert!(times >= 1);
                assert!(!last_error.is_empty());
            }
            other => panic!("{other:?}"),
        }
    }
    match s.state() {
        ServerState::Crashed {
            times: 3,
            retry_in: Some(_),
            last_error,
        } => {
            assert!(
                last_error.contains("crashing on purpose") || last_error.contains("exit"),
                "{last_error}"
            );
        }
        // The third crash is counted when it is next looked at.
        ServerState::Running { .. } | ServerState::Crashed { .. } => {
            // Given up on: said once, with why.
            let said = s.edit("", "ERROR\n").await.unwrap_or_default();
            assert!(
                said.starts_with("no diagnostics: fake stopped: ")
                    && said.contains("crashing on purpose"),
                "{said:?}"
            );
            assert!(
                matches!(
                    s.state(),
                    ServerState::Crashed {
                        retry_in: Some(_),
                        ..
                    }
                ),
                "{:?}",
                s.state()
            );
        }
        other => panic!("{other:?}"),
    }
    let started = Instant::now();
    // None, or (if the give-up was not said yet) the one line saying it.
    let after = s.edit("", "ERROR\n").await;
    assert!(
        after
            .as_deref()
            .is_none_or(|said| said.starts_with("no diagnostics: fake stopped: ")),
        "{after:?}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "gave up, so no wait"
    );
    s.manager.shutdown().await;
}

#[tokio::test]
async fn a_missing_program_is_reported_once() {
    let mut missing = settings("normal", 1000);
    missing.servers.get_mut("fake").unwrap().command = Some(seekclaw_config::LspCommand::Line(
        "seekclaw-no-such-ls --stdio".into(),
    ));
    let s = setup(missing);
    assert_eq!(s.state(), ServerState::Missing);
    assert_eq!(
        s.edit("", "x").await.as_deref(),
        Some("no diagnostics: seekclaw-no-such-ls not found")
    );
    assert_eq!(s.edit("x", "y").await, None);
    assert_eq!(s.state(), ServerState::Missing);
}

#[tokio::test]
async fn no_config_starts_nothing_and_a_changed_entry_restarts_its_server() {
    let s = setup(LspSettings::default());
    assert_eq!(s.edit("", "ERROR").await, None);
    assert!(s.manager.status().0.is_empty());

    *s.config.lock().unwrap() = settings("normal", 10_000);
    assert!(s.edit("", "ERROR\n").await.is_some());
    let ServerState::Running { pid: first, .. } = s.state() else {
        panic!()
    };
    let mut changed = settings("normal", 10_000);
    changed.servers.get_mut("fake").unwrap().env =
        Some([("FAKE".to_string(), "1".to_string())].into());
    *s.config.lock().unwrap() = changed;
    assert!(s.edit("", "ERROR\n").await.is_some());
    let ServerState::Running { pid: second, .. } = s.state() else {
        panic!()
    };
    assert_ne!(first, second);
    // Removed from the config: stopped at the next edit.
    *s.config.lock().unwrap() = LspSettings::default();
    assert_eq!(s.edit("", "ERROR\n").await, None);
    for _ in 0..100 {
        if !alive(second) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(!alive(second));
    s.manager.shutdown().await;
}

#[tokio::test]
async fn a_read_warms_the_server_so_the_first_edit_is_not_spent_on_its_start() {
    // Cold, a slow-starting server misses the first edit's 300 ms bound.
    let cold = setup(settings("slowstart", 300));
    assert_eq!(cold.edit("a\n", "a\nERROR\n").await, None);
    // Warmed by a read, it is up by the time the edit comes.
    let s = setup(settings("slowstart", 300));
    std::fs::write(&s.file, "a\n").unwrap();
    s.manager.warm(&s.root, &s.file);
    let deadline = Instant::now() + Duration::from_secs(10);
    while !matches!(s.state(), ServerState::Running { .. }) {
        assert!(Instant::now() < deadline, "never started: {:?}", s.state());
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let report = s.edit("a\n", "a\nERROR here\n").await.unwrap();
    assert!(report.contains("bad: ERROR here"), "{report}");
    // A file no server covers starts nothing.
    let other = setup(settings("normal", 300));
    other.manager.warm(&other.root, &other.root.join("x.txt"));
    assert_eq!(other.state(), ServerState::NotStarted);
    s.manager.shutdown().await;
    cold.manager.shutdown().await;
}

#[tokio::test]
async fn a_server_that_stops_at_once_is_said_once_with_why() {
    let s = setup(settings("exit", 1_500));
    let first = s.edit("", "ERROR\n").await.unwrap_or_default();
    assert!(
        first.starts_with("no diagnostics: fake stopped: ") && first.contains("expected --stdio"),
        "{first:?}"
    );
    assert_eq!(
        s.edit("ERROR\n", "ERROR\nERROR 2\n").await,
        None,
        "said once"
    );
    s.manager.shutdown().await;
}
