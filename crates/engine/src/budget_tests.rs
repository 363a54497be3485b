use super::*;
use seekclaw_store::{OwnBudget, UsageRecord};

fn store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("s.db")).unwrap();
    (dir, store)
}

fn spend(store: &Store, cost: f64, tokens: u64) {
    store
        .record_usage(&UsageRecord {
            provider: "p".into(),
            model: "m".into(),
            total_input_tokens: tokens,
            cost,
            success: true,
            ..Default::default()
        })
        .unwrap();
}

fn gate(store: &Store, budgets: Budgets, front_end: Option<FrontEndBudget>) -> BudgetGate {
    BudgetGate {
        store: store.clone(),
        budgets,
        subject: BudgetSubject {
            scope: Some("global".into()),
            session: Some("s1".into()),
            front_end,
        },
        warned: Arc::default(),
    }
}

fn priced(usd: f64) -> RequestEstimate {
    RequestEstimate {
        model: "m".into(),
        input_tokens: 1000,
        output_tokens: 1000,
        usd,
        priced: true,
        ..Default::default()
    }
}

#[test]
fn nothing_set_lets_every_request_go() {
    let (_d, store) = store();
    spend(&store, 100.0, 0);
    let g = gate(&store, Budgets::default(), None);
    assert!(g.unlimited());
    assert_eq!(g.check(&priced(50.0)), SpendVerdict::Go(Vec::new()));
}

#[test]
fn the_day_budget_stops_the_request_that_would_cross_it_and_warns_once() {
    let (_d, store) = store();
    spend(&store, 0.85, 0);
    let budgets = Budgets {
        day: Some(1.0),
        ..Budgets::default()
    };
    let g = gate(&store, budgets, None);
    // 0.85 spent is past 80 %: one warning, then none.
    match g.check(&priced(0.1)) {
        SpendVerdict::Go(w) => assert_eq!(w.len(), 1, "{w:?}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(g.check(&priced(0.1)), SpendVerdict::Go(Vec::new()));
    // 0.85 + 0.2 > 1: stopped, saying how to raise it.
    let SpendVerdict::Stop(text) = g.check(&priced(0.2)) else {
        panic!("not stopped")
    };
    assert!(text.contains("daily budget is $1.00"), "{text}");
    assert!(text.contains("$0.8500 is spent"), "{text}");
    assert!(text.contains("seekclaw budget set day"), "{text}");
    // Spend the turn has not written yet counts too.
    let pending = RequestEstimate {
        pending_usd: 0.1,
        ..priced(0.1)
    };
    assert!(matches!(g.check(&pending), SpendVerdict::Stop(_)));
}

#[test]
fn the_sessions_own_budget_wins_over_the_front_ends_and_the_configs() {
    let (_d, store) = store();
    let owner = BudgetOwner::Session {
        scope: "global".into(),
        id: "s1".into(),
    };
    let budgets = Budgets {
        session: Some(0.01),
        ..Budgets::default()
    };
    let front = Some(FrontEndBudget {
        usd: Some(0.02),
        task: None,
    });
    let g = gate(&store, budgets.clone(), front.clone());
    let SpendVerdict::Stop(text) = g.check(&priced(0.05)) else {
        panic!("not stopped")
    };
    assert!(text.contains("session budget is $0.0200"), "{text}");
    // The command works from any folder: it names the session's scope.
    assert!(
        text.contains("seekclaw budget set session 0.05 --session s1 --global"),
        "{text}"
    );
    store
        .set_own_budget(
            &owner,
            OwnBudget {
                usd: Some(1.0),
                tokens: None,
            },
        )
        .unwrap();
    assert!(matches!(g.check(&priced(0.05)), SpendVerdict::Go(_)));
    let lines = status(&store, &budgets, &g.subject).lines;
    assert_eq!(lines[0].source, "session");
    assert_eq!(lines[0].remaining().0, Some(1.0));
}

#[test]
fn an_unpriced_model_counts_tokens_and_says_so() {
    let (_d, store) = store();
    spend(&store, 0.0, 900);
    let mut budgets = Budgets {
        day: Some(1.0),
        ..Budgets::default()
    };
    let unpriced = RequestEstimate {
        model: "free".into(),
        input_tokens: 50,
        output_tokens: 50,
        ..Default::default()
    };
    let g = gate(&store, budgets.clone(), None);
    // Dollars cannot count it: it goes, with the note.
    match g.check(&unpriced) {
        SpendVerdict::Go(w) => assert!(w[0].contains("free has no price"), "{w:?}"),
        other => panic!("{other:?}"),
    }
    budgets.tokens.day = Some(1000);
    let g = gate(&store, budgets, None);
    let SpendVerdict::Stop(text) = g.check(&RequestEstimate {
        input_tokens: 100,
        ..unpriced
    }) else {
        panic!("not stopped")
    };
    assert!(text.contains("daily token budget is 1000 tokens"), "{text}");
    assert!(text.contains("free has no price"), "{text}");
}

#[test]
fn a_scheduled_run_has_its_tasks_budget() {
    let (_d, store) = store();
    let budgets = Budgets {
        session: Some(5.0),
        schedule: Some(0.5),
        ..Budgets::default()
    };
    let front = Some(FrontEndBudget {
        usd: None,
        task: Some("t1".into()),
    });
    let g = gate(&store, budgets, front);
    let SpendVerdict::Stop(text) = g.check(&priced(0.6)) else {
        panic!("not stopped")
    };
    assert!(text.contains("scheduled run budget is $0.5000"), "{text}");
    assert!(text.contains("--task t1"), "{text}");
    store
        .set_own_budget(
            &BudgetOwner::Task("t1".into()),
            OwnBudget {
                usd: Some(2.0),
                tokens: None,
            },
        )
        .unwrap();
    assert!(matches!(g.check(&priced(0.6)), SpendVerdict::Go(_)));
}

#[test]
fn local_day_and_month_starts_are_ledger_times() {
    let (today, month) = local_starts();
    assert!(month <= today);
    assert!(today <= seekclaw_store::now_iso());
    assert_eq!(today.len(), seekclaw_store::now_iso().len());
}

#[test]
fn the_raise_command_names_a_workspace_sessions_project() {
    use seekclaw_protocol::wording::BudgetPlace;
    assert_eq!(place(Some("global")), BudgetPlace::Global);
    assert_eq!(
        place(Some("workspace|/w/app")),
        BudgetPlace::Workspace("/w/app")
    );
    assert_eq!(place(None), BudgetPlace::Unknown);
}
