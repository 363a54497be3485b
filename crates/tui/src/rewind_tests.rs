use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::*;
use crate::deliberate::GRACE;

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

fn three() -> Vec<Target> {
    let rows = [
        Row {
            turn_seq: 1,
            kind: "turn",
            files: 4,
            added: 40,
            removed: 0,
        },
        Row {
            turn_seq: 1,
            kind: "step",
            files: 1,
            added: 10,
            removed: 2,
        },
        Row {
            turn_seq: 1,
            kind: "step",
            files: 1,
            added: 2,
            removed: 1,
        },
        Row {
            turn_seq: 9,
            kind: "job",
            files: 1,
            added: 0,
            removed: 3,
        },
    ];
    let prompts = vec![
        (1, "first\nmore".to_string()),
        (5, "second".to_string()),
        (9, "third".to_string()),
    ];
    targets(prompts, &rows)
}

/// An app with the flow of `goal` open since `ago`.
fn open(goal: Goal, ago: Duration) -> App {
    let mut app = App::default();
    app.session_id = Some("s1".into());
    app.rewind = Some(Flow::new(goal, three()).shown_at(Instant::now().checked_sub(ago).unwrap()));
    app
}

fn step(app: &App) -> Step {
    app.rewind.as_ref().unwrap().step.clone()
}

#[test]
fn each_prompt_carries_its_own_turns_changes_not_those_before_it() {
    let t = three();
    assert_eq!(t[0].changes.label(), "+12 −3 in 2 files");
    assert_eq!(t[1].changes.label(), "no file changes");
    assert_eq!(t[2].changes.label(), "+0 −3 in 1 file");
    assert_eq!(t[0].short(40), "first");
    assert_eq!(
        Target {
            seq: 1,
            text: "abcdefgh".into(),
            changes: Changes::default()
        }
        .short(5),
        "abcd…"
    );
}

#[test]
fn esc_esc_on_an_empty_idle_prompt_opens_the_list_and_not_during_a_turn() {
    let mut app = App::default();
    app.session_id = Some("s1".into());
    assert_eq!(app.on_key(key(KeyCode::Esc)), None);
    assert!(app.hint.as_deref().unwrap().contains("Esc again"));
    assert_eq!(
        app.on_key(key(KeyCode::Esc)),
        Some(Action::OpenRewind(Goal::Rewind))
    );
    // Another key between the two disarms it.
    app.on_key(key(KeyCode::Esc));
    app.on_key(key(KeyCode::Left));
    assert_eq!(app.on_key(key(KeyCode::Esc)), None);
    // Text in the editor: Esc is not the gesture.
    let mut app = App::default();
    app.session_id = Some("s1".into());
    app.on_key(key(KeyCode::Char('x')));
    assert_eq!(app.on_key(key(KeyCode::Esc)), None);
    assert_eq!(app.on_key(key(KeyCode::Esc)), None);
    // A running turn: busy, said so.
    let mut app = App::default();
    app.session_id = Some("s1".into());
    app.start_turn(3, "work");
    app.on_key(key(KeyCode::Esc));
    assert_eq!(app.on_key(key(KeyCode::Esc)), None);
    assert!(matches!(app.entries.last(), Some(crate::app::Entry::Error(e)) if e == BUSY));
}

#[test]
fn slash_rewind_and_fork_open_the_list() {
    let mut app = App::default();
    app.session_id = Some("s1".into());
    for c in "/fork".chars() {
        app.on_key(key(KeyCode::Char(c)));
    }
    assert_eq!(
        app.on_key(key(KeyCode::Enter)),
        Some(Action::OpenRewind(Goal::Fork))
    );
    // No session yet: nothing to rewind.
    let mut app = App::default();
    assert_eq!(app.open_rewind(Goal::Rewind), None);
}

#[test]
fn keys_typed_ahead_choose_nothing() {
    let mut app = open(Goal::Rewind, Duration::ZERO);
    for code in [KeyCode::Up, KeyCode::Enter, KeyCode::Char('1')] {
        assert_eq!(app.on_key(key(code)), None);
    }
    assert_eq!(
        step(&app),
        Step::Pick { selected: 2 },
        "the newest, untouched"
    );
    // Esc closes even within the grace.
    assert_eq!(app.on_key(key(KeyCode::Esc)), None);
    assert!(app.rewind.is_none());
}

#[test]
fn pick_then_a_deliberate_choice_rewinds() {
    let mut app = open(Goal::Rewind, GRACE * 2);
    app.on_key(key(KeyCode::Up));
    assert_eq!(app.on_key(key(KeyCode::Enter)), None);
    assert_eq!(
        step(&app),
        Step::Ask {
            target: 1,
            picked: None
        }
    );
    // The question just appeared: a digit typed ahead answers nothing.
    assert_eq!(app.on_key(key(KeyCode::Char('1'))), None);
    app.rewind.as_mut().unwrap().shown = Deliberate::shown_at(Instant::now() - GRACE * 2);
    // Enter with nothing picked confirms nothing.
    assert_eq!(app.on_key(key(KeyCode::Enter)), None);
    assert!(app.hint.as_deref().unwrap().contains("pick a choice first"));
    let (lines, _) = app.rewind_lines();
    let text: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    assert!(text[0].contains("«second»"), "{text:?}");
    assert!(text.iter().any(|l| l.contains("4. Cancel")), "{text:?}");
    app.on_key(key(KeyCode::Down));
    assert_eq!(
        app.on_key(key(KeyCode::Enter)),
        Some(Action::Rewind {
            seq: 5,
            restore: Restore::Both,
            force: false
        })
    );
    // Digits choose directly; 4 cancels.
    let mut app = open(Goal::Rewind, GRACE * 2);
    app.on_key(key(KeyCode::Enter));
    app.rewind.as_mut().unwrap().shown = Deliberate::shown_at(Instant::now() - GRACE * 2);
    assert_eq!(app.on_key(key(KeyCode::Char('4'))), None);
    assert!(app.rewind.is_none());
}

#[test]
fn conflicts_are_listed_and_only_an_explicit_overwrite_forces() {
    let mut app = open(Goal::Rewind, GRACE * 2);
    app.on_key(key(KeyCode::Enter));
    app.ask_overwrite(
        9,
        Choice::Rewind(Restore::Code),
        vec!["a.txt".into(), "b.txt".into()],
    );
    let (lines, _) = app.rewind_lines();
    let text: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    assert!(text.iter().any(|l| l.trim() == "a.txt"), "{text:?}");
    assert!(
        text.iter().any(|l| l.contains("1. Overwrite them")),
        "{text:?}"
    );
    assert_eq!(app.on_key(key(KeyCode::Char('1'))), None, "typed ahead");
    app.rewind.as_mut().unwrap().shown = Deliberate::shown_at(Instant::now() - GRACE * 2);
    assert_eq!(
        app.on_key(key(KeyCode::Char('1'))),
        Some(Action::Rewind {
            seq: 9,
            restore: Restore::Code,
            force: true
        })
    );
}

#[test]
fn fork_asks_whether_to_restore_the_code_too() {
    let mut app = open(Goal::Fork, GRACE * 2);
    app.on_key(key(KeyCode::Enter));
    app.rewind.as_mut().unwrap().shown = Deliberate::shown_at(Instant::now() - GRACE * 2);
    assert_eq!(
        app.on_key(key(KeyCode::Char('1'))),
        Some(Action::Fork {
            seq: 9,
            restore_code: false,
            force: false
        })
    );
}

#[test]
fn checkpoint_events_are_dim_lines_of_this_session_only() {
    let mut app = App::default();
    app.session_id = Some("s1".into());
    let env = |sid: &str, data: serde_json::Value| seekclaw_client::Event {
        seq: None,
        id: 0,
        event: "checkpoint".into(),
        data: data.to_string(),
        session_id: Some(sid.into()),
        details: None,
    };
    let note = |kind: &str, files: usize, error: Option<&str>| {
        let files: Vec<_> = (0..files)
            .map(|i| serde_json::json!({"path": format!("f{i}"), "status": "modified", "added": 1, "removed": 0}))
            .collect();
        let mut n = serde_json::json!({"id": 1, "seq": 4, "turnSeq": 1, "kind": kind,
            "files": files, "added": 5, "removed": 1, "tracked": 9});
        if let Some(e) = error {
            n["error"] = e.into();
        }
        n
    };
    app.on_envelope(env("s1", note("step", 2, None)));
    app.on_envelope(env("s1", note("step", 0, None)));
    app.on_envelope(env("other", note("step", 1, None)));
    app.on_envelope(env("s1", note("rewind", 1, None)));
    app.on_envelope(env("s1", note("turn", 0, Some("disk full"))));
    app.on_envelope(env("s1", note("turn", 1, None)));
    let lines: Vec<&str> = app
        .entries
        .iter()
        .filter_map(|e| match e {
            crate::app::Entry::Checkpoint(l) => Some(l.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(
        lines,
        [
            "checkpoint · 2 files +5 −1",
            "checkpoint (rewind) · 1 file +5 −1",
            "checkpoint failed · disk full (the turn goes on)",
            "checkpoint (changed outside the agent before this turn) · 1 file +5 −1",
        ]
    );
}
