use super::*;
use crate::store::Store;
use crate::testutil::temp_store;

fn draft(id: &str, next: Option<&str>) -> ScheduleDraft {
    ScheduleDraft {
        id: id.into(),
        name: format!("task {id}"),
        workspace: None,
        prompt: "do it".into(),
        cron: "* * * * *".into(),
        enabled: true,
        next_run_at: next.map(str::to_string),
        approval: None,
    }
}

const T1: &str = "2026-03-01T09:00:00.0000000+00:00";
const T2: &str = "2026-03-01T09:01:00.0000000+00:00";
const T3: &str = "2026-03-01T09:02:00.0000000+00:00";

fn run(status: RunStatus) -> RunRecord {
    RunRecord {
        started_at: T1.into(),
        status,
        error: None,
        output: Some("out".into()),
        session_id: Some("s-1".into()),
    }
}

#[test]
fn upsert_creates_then_replaces_the_definition_only() {
    let (_dir, store) = temp_store();
    let a = store.upsert_schedule(&draft("a", Some(T1))).unwrap();
    assert_eq!(
        (a.name.as_str(), a.display_name.as_str()),
        ("task a", "task a")
    );
    assert_eq!(a.created_at, a.updated_at);
    assert_eq!(a.next_run_at.as_deref(), Some(T1));
    store
        .finish_run("a", T1, &run(RunStatus::Success), |_| Some(T2.into()))
        .unwrap();
    let mut d = draft("a", Some(T3));
    d.name = "  renamed ".into();
    d.cron = "0 9 * * *".into();
    d.workspace = Some("/w".into());
    let b = store.upsert_schedule(&d).unwrap();
    assert_eq!(b.created_at, a.created_at);
    assert!(b.updated_at > a.updated_at);
    assert_eq!(b.display_name, "renamed");
    assert_eq!(b.cron, "0 9 * * *");
    assert_eq!(b.workspace.as_deref(), Some("/w"));
    assert_eq!(b.next_run_at.as_deref(), Some(T3));
    assert_eq!(b.last_status.as_deref(), Some("success"), "last run kept");
    assert_eq!(b.last_output.as_deref(), Some("out"));
    assert_eq!(store.schedule("a").unwrap(), Some(b));
}

#[test]
fn json_is_compact_with_nulls_omitted_and_display_name_last() {
    let (_dir, store) = temp_store();
    let mut d = draft("a", None);
    d.name = " ".into();
    let t = store.upsert_schedule(&d).unwrap();
    let v = serde_json::to_value(&t).unwrap();
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "id",
            "name",
            "prompt",
            "cron",
            "enabled",
            "createdAt",
            "updatedAt",
            "displayName"
        ]
    );
    assert_eq!(v["displayName"], DEFAULT_TASK_NAME);
    assert_eq!(v["name"], DEFAULT_TASK_NAME);
}

#[test]
fn list_is_newest_first_and_delete_removes_claims() {
    let (_dir, store) = temp_store();
    for id in ["1", "2", "3"] {
        store.upsert_schedule(&draft(id, Some(T1))).unwrap();
    }
    let ids: Vec<String> = store
        .list_schedules()
        .unwrap()
        .into_iter()
        .map(|t| t.id)
        .collect();
    assert_eq!(ids, ["3", "2", "1"]);
    assert!(matches!(
        store.claim_occurrence("2", T1, |_| None).unwrap(),
        Claim::Claimed(_)
    ));
    assert!(store.delete_schedule("2").unwrap());
    assert!(!store.delete_schedule("2").unwrap());
    assert!(store.schedule_claims("2").unwrap().is_empty());
    assert_eq!(store.list_schedules().unwrap().len(), 2);
}

#[test]
fn toggle_clears_and_recomputes_next_run() {
    let (_dir, store) = temp_store();
    store.upsert_schedule(&draft("a", Some(T1))).unwrap();
    let off = store
        .set_schedule_enabled("a", false, |_| panic!("not asked when disabling"))
        .unwrap()
        .unwrap();
    assert!(!off.enabled);
    assert_eq!(off.next_run_at, None);
    let on = store
        .set_schedule_enabled("a", true, |t| {
            assert_eq!(t.cron, "* * * * *");
            Some(T2.into())
        })
        .unwrap()
        .unwrap();
    assert!(on.enabled);
    assert_eq!(on.next_run_at.as_deref(), Some(T2));
    assert!(
        store
            .set_schedule_enabled("missing", true, |_| None)
            .unwrap()
            .is_none()
    );
}

#[test]
fn due_by_reads_only_enabled_tasks_up_to_the_horizon() {
    let (_dir, store) = temp_store();
    store.upsert_schedule(&draft("late", Some(T3))).unwrap();
    store.upsert_schedule(&draft("soon", Some(T1))).unwrap();
    store.upsert_schedule(&draft("next", Some(T2))).unwrap();
    store.upsert_schedule(&draft("never", None)).unwrap();
    let mut off = draft("off", Some(T1));
    off.enabled = false;
    store.upsert_schedule(&off).unwrap();
    let due: Vec<String> = store
        .schedules_due_by(T2)
        .unwrap()
        .into_iter()
        .map(|s| s.id)
        .collect();
    assert_eq!(due, ["soon", "next"]);
}

#[test]
fn an_occurrence_is_claimed_once_and_the_schedule_moves_on() {
    let (_dir, store) = temp_store();
    store.upsert_schedule(&draft("a", Some(T1))).unwrap();
    let Claim::Claimed(t) = store
        .claim_occurrence("a", T1, |_| Some(T2.into()))
        .unwrap()
    else {
        panic!("first claim wins");
    };
    assert_eq!(t.next_run_at.as_deref(), Some(T2));
    // The schedule moved on: the old occurrence is stale now.
    assert_eq!(
        store
            .claim_occurrence("a", T1, |_| Some(T3.into()))
            .unwrap(),
        Claim::Stale
    );
    assert_eq!(
        store.claim_occurrence("gone", T1, |_| None).unwrap(),
        Claim::Stale
    );
    let claims = store.schedule_claims("a").unwrap();
    assert_eq!(claims.len(), 1);
    assert_eq!(
        (claims[0].occurrence.as_str(), claims[0].status.as_deref()),
        (T1, None)
    );
    assert!(
        claims[0].claimed_at > claims[0].occurrence,
        "claimed now, after T1"
    );
}

#[test]
fn a_claim_left_by_someone_else_is_taken_and_does_not_block_the_task() {
    let (_dir, store) = temp_store();
    store.upsert_schedule(&draft("a", Some(T1))).unwrap();
    // Another process claimed T1 but never advanced the schedule (its write of
    // the claim raced ours); we must neither run T1 nor stay stuck on it.
    store
        .write(|tx| insert_claim(tx, "a", T1).map(|_| ()))
        .unwrap();
    assert_eq!(
        store
            .claim_occurrence("a", T1, |_| Some(T2.into()))
            .unwrap(),
        Claim::Taken
    );
    assert_eq!(
        store.schedule("a").unwrap().unwrap().next_run_at.as_deref(),
        Some(T2)
    );
}

#[test]
fn two_handles_on_one_file_race_for_a_claim_and_exactly_one_wins() {
    let (dir, store) = temp_store();
    let other = Store::open(&dir.path().join("seekclaw.db")).unwrap();
    for i in 0..50 {
        let id = format!("t{i}");
        store.upsert_schedule(&draft(&id, Some(T1))).unwrap();
    }
    let race = |s: Store| {
        std::thread::spawn(move || {
            (0..50)
                .filter(|i| {
                    matches!(
                        s.claim_occurrence(&format!("t{i}"), T1, |_| Some(T2.into())),
                        Ok(Claim::Claimed(_))
                    )
                })
                .count()
        })
    };
    let (a, b) = (race(store.clone()), race(other));
    let won = a.join().unwrap() + b.join().unwrap();
    assert_eq!(won, 50, "every occurrence claimed exactly once");
}

#[test]
fn finish_records_outcome_and_disabled_tasks_get_no_next_run() {
    let (_dir, store) = temp_store();
    store.upsert_schedule(&draft("a", Some(T1))).unwrap();
    store
        .claim_occurrence("a", T1, |_| Some(T2.into()))
        .unwrap();
    store.set_claim_session("a", T1, "s-early").unwrap();
    let mut r = run(RunStatus::Error);
    r.error = Some("boom".into());
    let t = store
        .finish_run("a", T1, &r, |_| Some(T3.into()))
        .unwrap()
        .unwrap();
    assert_eq!(t.last_status.as_deref(), Some("error"));
    assert_eq!(t.last_error.as_deref(), Some("boom"));
    assert_eq!(t.last_session_id.as_deref(), Some("s-1"));
    assert_eq!(t.last_run_at.as_deref(), Some(T1));
    assert_eq!(t.next_run_at.as_deref(), Some(T3));
    let claims = store.schedule_claims("a").unwrap();
    assert_eq!(claims.len(), 1);
    assert_eq!(claims[0].status.as_deref(), Some("error"));
    assert_eq!(claims[0].session_id.as_deref(), Some("s-1"));
    assert!(claims[0].finished_at.is_some());
    store.set_schedule_enabled("a", false, |_| None).unwrap();
    let t = store
        .finish_run("a", T1, &run(RunStatus::Cancelled), |_| {
            panic!("a disabled task has no next run")
        })
        .unwrap()
        .unwrap();
    assert_eq!(t.next_run_at, None);
    assert!(store.delete_schedule("a").unwrap());
    assert!(
        store
            .finish_run("a", T1, &run(RunStatus::Success), |_| None)
            .unwrap()
            .is_none()
    );
}

#[test]
fn manual_runs_get_unique_occurrences_and_leave_the_schedule_alone() {
    let (_dir, store) = temp_store();
    store.upsert_schedule(&draft("a", Some(T1))).unwrap();
    let (t, k1) = store.claim_manual_run("a").unwrap().unwrap();
    let (_, k2) = store.claim_manual_run("a").unwrap().unwrap();
    assert_ne!(k1, k2);
    assert!(k1.starts_with(MANUAL_OCCURRENCE_PREFIX));
    assert_eq!(t.next_run_at.as_deref(), Some(T1));
    assert!(store.claim_manual_run("missing").unwrap().is_none());
    assert_eq!(store.schedule_claims("a").unwrap().len(), 2);
}

#[test]
fn unfinished_runs_are_closed_as_cancelled_at_recovery() {
    let (_dir, store) = temp_store();
    store.upsert_schedule(&draft("a", Some(T1))).unwrap();
    store
        .claim_occurrence("a", T1, |_| Some(T2.into()))
        .unwrap();
    store.set_claim_session("a", T1, "s-crashed").unwrap();
    assert_eq!(store.recover_unfinished_runs().unwrap(), 1);
    let t = store.schedule("a").unwrap().unwrap();
    assert_eq!(t.last_status.as_deref(), Some("cancelled"));
    assert_eq!(t.last_error.as_deref(), Some(INTERRUPTED_RUN));
    assert_eq!(t.last_session_id.as_deref(), Some("s-crashed"));
    assert_eq!(t.next_run_at.as_deref(), Some(T2), "schedule untouched");
    assert_eq!(store.recover_unfinished_runs().unwrap(), 0);
}

#[test]
fn prune_drops_only_old_finished_claims() {
    let (_dir, store) = temp_store();
    store.upsert_schedule(&draft("a", Some(T1))).unwrap();
    store
        .claim_occurrence("a", T1, |_| Some(T2.into()))
        .unwrap();
    store
        .claim_occurrence("a", T2, |_| Some(T3.into()))
        .unwrap();
    store
        .finish_run("a", T1, &run(RunStatus::Success), |_| Some(T3.into()))
        .unwrap();
    assert_eq!(
        store
            .prune_schedule_claims("9999-01-01T00:00:00.0000000+00:00")
            .unwrap(),
        1,
        "the open claim stays"
    );
    assert_eq!(store.schedule_claims("a").unwrap().len(), 1);
}
