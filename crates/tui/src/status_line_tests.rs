use serde_json::json;

use super::*;

#[test]
fn the_input_has_every_field_the_docs_name() {
    let mut app = App::default();
    app.session_id = Some("s1".into());
    app.set_catalog(&crate::fixtures::catalog(json!([
        {"ref": "tk/m1", "active": true, "inputPricePerMTok": 1.0, "outputPricePerMTok": 2.0},
    ])));
    app.input_tokens = 1000;
    app.output_tokens = 500;
    app.context_used = Some(1500);
    app.root = Some("/w".into());
    let v = serde_json::to_value(StatusInput::of(&app, Some("edit"), Some("main".into()))).unwrap();
    assert_eq!(
        v,
        json!({
            "session": "s1",
            "model": "tk/m1",
            "cost": {"usd": 0.0},
            "budget": null,
            "context": {"used": 1500, "window": 128000},
            "tokens": {"input": 1000, "output": 500},
            "mode": "edit",
            "branch": "main",
            "workspace": "/w",
            "state": "idle"
        })
    );
    app.start_turn(1, "hi");
    let v = serde_json::to_value(StatusInput::of(&app, None, None)).unwrap();
    assert_eq!(v["state"], "running");
    assert_eq!(v["mode"], serde_json::Value::Null);
    app.budget = Some(crate::budget_view::BudgetView {
        usd: 2.0,
        spent_usd: 0.5,
    });
    let v = serde_json::to_value(StatusInput::of(&app, None, None)).unwrap();
    assert_eq!(v["budget"], json!({"usd": 2.0, "spentUsd": 0.5}));
}

#[test]
fn sanitising_keeps_the_first_line_without_escapes_or_controls() {
    assert_eq!(sanitise("one\ntwo\n"), "one");
    assert_eq!(sanitise("\u{1b}[1;32mgreen\u{1b}[0m ok\r\n"), "green ok");
    assert_eq!(sanitise("a\tb\u{7}c\u{0}"), "a bc");
    assert_eq!(
        sanitise("x\u{1b}]8;;http://e.com\u{1b}\\link\u{1b}]8;;\u{7}y"),
        "xlinky"
    );
    assert_eq!(sanitise("title\u{1b}]0;evil\u{7}!"), "title!");
    assert_eq!(sanitise(""), "");
    assert_eq!(sanitise(&"é".repeat(5000)).chars().count(), MAX_CHARS);
}

#[test]
fn fitting_cuts_by_cells() {
    assert_eq!(fit("short", 10), "short");
    assert_eq!(fit("abcdefghij", 5), "abcd…");
    assert_eq!(fit("你好世界", 5), "你好…");
    assert_eq!(fit("abc", 0), "");
}

fn input(n: u64) -> StatusInput {
    let mut app = App::default();
    app.input_tokens = n;
    StatusInput::of(&app, None, None)
}

#[tokio::test]
async fn runs_at_most_every_gap_and_only_on_change() {
    let mut r = Runner::default();
    let t0 = Instant::now();
    assert_eq!(
        r.poll(t0, None, || unreachable!("unset builds nothing")),
        None
    );
    r.configure(Some("cat"), None);
    assert_eq!(r.poll(t0, None, || input(1)), None);
    assert!(r.running.is_some(), "the first look runs it");
    let shown = r.next().await.unwrap();
    assert_eq!(
        shown.text,
        r#"{"session":null,"model":null,"cost":{"usd":null},"budget":null,"context":{"used":null,"window":null},"tokens":{"input":1,"output":0},"mode":null,"branch":null,"workspace":null,"state":"idle"}"#
    );
    // Within the gap: nothing built, a wake-up at its end.
    let soon = t0 + Duration::from_millis(100);
    assert_eq!(
        r.poll(soon, None, || unreachable!("not due")),
        Some(t0 + MIN_GAP)
    );
    // Due but unchanged: no run.
    let later = t0 + MIN_GAP;
    assert_eq!(r.poll(later, None, || input(1)), None);
    assert!(r.running.is_none());
    // Changed: a run.
    let after = later + MIN_GAP;
    assert_eq!(r.poll(after, None, || input(2)), None);
    assert!(r.running.is_some());
    // While it runs: no second one, no wake-up (its end wakes the loop).
    assert_eq!(r.poll(after + MIN_GAP, None, || input(3)), None);
    r.next().await.unwrap();
    // A new command runs at once even with the same state.
    r.configure(Some("echo hi"), None);
    assert_eq!(r.poll(after + MIN_GAP * 3, None, || input(2)), None);
    assert_eq!(r.next().await.unwrap().text, "hi");
    r.configure(None, None);
    assert!(!r.enabled());
}

#[tokio::test]
async fn a_failing_or_slow_command_says_so_and_is_killed() {
    let failed = run("echo oops >&2; exit 3".into(), None, String::new()).await;
    assert_eq!(
        failed,
        Shown {
            text: "status line: exit 3: oops".into(),
            failed: true
        }
    );
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("survived");
    // The grandchild (in the background, holding stdout) dies with the group.
    let slow = format!("(sleep 4; touch '{}') & sleep 30", marker.display());
    let started = std::time::Instant::now();
    let shown = run(slow, None, String::new()).await;
    assert!(
        shown.failed && shown.text.contains("no answer within"),
        "{shown:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(4));
    std::thread::sleep(Duration::from_millis(4500));
    assert!(!marker.exists(), "the whole group was killed");
}

#[tokio::test]
async fn runs_in_the_folder_and_reads_its_input() {
    let dir = tempfile::tempdir().unwrap();
    let shown = run(
        "printf '%s ' \"$(basename \"$PWD\")\"; cat".into(),
        Some(dir.path().to_path_buf()),
        "{\"a\":1}".into(),
    )
    .await;
    let name = dir.path().file_name().unwrap().to_string_lossy();
    assert_eq!(shown.text, format!("{name} {{\"a\":1}}"));
}

#[test]
fn the_branch_comes_from_head() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(git_branch(dir.path()), None);
    let git = dir.path().join(".git");
    std::fs::create_dir(&git).unwrap();
    std::fs::write(git.join("HEAD"), "ref: refs/heads/feature/x\n").unwrap();
    let sub = dir.path().join("a/b");
    std::fs::create_dir_all(&sub).unwrap();
    assert_eq!(git_branch(&sub).as_deref(), Some("feature/x"));
    std::fs::write(git.join("HEAD"), "0123456789abcdef\n").unwrap();
    assert_eq!(git_branch(dir.path()).as_deref(), Some("0123456"));
    // A worktree's `.git` file.
    let wt = tempfile::tempdir().unwrap();
    std::fs::write(
        wt.path().join(".git"),
        format!("gitdir: {}\n", git.display()),
    )
    .unwrap();
    assert_eq!(git_branch(wt.path()).as_deref(), Some("0123456"));
}
