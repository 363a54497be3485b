//! The engine in process, against the testkit's real HTTP provider and the
//! real store in a temp home: the turn loop, session targets and claims,
//! control tools, compaction and the turn bus, without a daemon or a socket.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use seekclaw_agent::{AgentEvent, Approvals, TurnOutcome};
use seekclaw_config::Home;
use seekclaw_engine::ErrorKind;
use seekclaw_engine::{
    Engine, Scope, SessionTarget, TurnControls, TurnHandle, TurnOrigin, TurnOverrides, TurnRequest,
    Watched,
};
use seekclaw_store::EventItem;
use seekclaw_testkit::{ProviderServer, Reply};
use serde_json::json;

/// An engine over a temp home whose one provider is `server` (priced, so
/// usage events carry a cost), and a workspace scope in that home.
async fn engine(server: &ProviderServer) -> (tempfile::TempDir, Engine, Scope) {
    let dir = tempfile::tempdir().unwrap();
    let home = Home::at(dir.path().join("home"));
    home.ensure().unwrap();
    let config = json!({
        "providers": [{
            "id": "tk", "kind": "openai", "baseUrl": server.base_url(), "apiKey": "sk-tk",
            "timeoutSeconds": 20,
            "models": [{"id": "m1", "contextWindow": 128000, "maxOutput": 4096,
                        "inputPricePerMTok": 1.0, "outputPricePerMTok": 2.0},
                       {"id": "m2", "contextWindow": 128000, "maxOutput": 4096}]
        }],
        "routing": {"retry": {"baseDelaySeconds": 0.01, "maxDelaySeconds": 0.05}}
    });
    std::fs::write(home.config_path(), config.to_string()).unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir_all(work.join(".git")).unwrap();
    std::fs::write(work.join("notes.txt"), "the secret word is plum\n").unwrap();
    let engine = Engine::open(home).await.unwrap();
    (dir, engine, Scope::of_root(&work))
}

fn request(scope: &Scope, session: SessionTarget, message: &str) -> TurnRequest {
    TurnRequest {
        scope: scope.clone(),
        session,
        message: message.to_string(),
        images: Vec::new(),
        reasoning: None,
        overrides: TurnOverrides::default(),
        controls: TurnControls::new(Approvals::default()),
        origin: TurnOrigin::new("test"),
    }
}

/// Every event of `turn` and how it ended.
async fn drain(mut turn: TurnHandle) -> (Vec<AgentEvent>, TurnOutcome) {
    let mut events = Vec::new();
    while let Some(ev) = turn.next_event().await {
        events.push(ev);
    }
    let outcome = turn.take_outcome().unwrap();
    (events, outcome)
}

fn deltas(events: &[AgentEvent]) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Delta(d) => Some(d.as_str()),
            _ => None,
        })
        .collect()
}

fn kinds(engine: &Engine, scope: &Scope, sid: &str) -> Vec<&'static str> {
    engine
        .store
        .events(&scope.key, sid)
        .unwrap()
        .iter()
        .map(|e| e.item.kind())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_turn_streams_its_answer_logs_it_and_prices_its_usage() {
    let server = ProviderServer::start().unwrap();
    server.enqueue(
        Reply::new()
            .text("hello ")
            .text("there")
            .usage(1000, 0, 500),
    );
    let (_dir, engine, scope) = engine(&server).await;
    let turn = engine
        .start_turn(request(&scope, SessionTarget::New { id: None }, "hi"))
        .await
        .unwrap();
    let sid = turn.session().id.clone();
    let (events, outcome) = drain(turn).await;
    assert_eq!(deltas(&events), "hello there");
    assert!(
        matches!(&outcome, TurnOutcome::Done(t) if t == "hello there"),
        "{outcome:?}"
    );
    let cost = events.iter().find_map(|e| match e {
        AgentEvent::Usage { cost_usd, .. } => Some(*cost_usd),
        _ => None,
    });
    // 1000 input tokens at $1/M and 500 output at $2/M.
    let cost = cost
        .flatten()
        .expect("a priced model's usage carries its cost");
    assert!((cost - 0.002).abs() < 1e-9, "{cost}");
    assert_eq!(
        kinds(&engine, &scope, &sid),
        ["user", "assistant", "terminal"]
    );
    assert_eq!(
        engine.turns.count(),
        0,
        "the session is free once the turn ended"
    );
    engine.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_call_runs_and_its_result_goes_back_to_the_model() {
    let server = ProviderServer::start().unwrap();
    server.enqueue(Reply::new().tool_call("c1", "read_file", r#"{"path":"notes.txt"}"#));
    server.enqueue(Reply::plain("it is plum"));
    let (_dir, engine, scope) = engine(&server).await;
    let turn = engine
        .start_turn(request(
            &scope,
            SessionTarget::New { id: None },
            "what word?",
        ))
        .await
        .unwrap();
    let sid = turn.session().id.clone();
    let (events, outcome) = drain(turn).await;
    assert!(
        matches!(&outcome, TurnOutcome::Done(t) if t == "it is plum"),
        "{outcome:?}"
    );
    assert!(
        events
            .iter()
            .any(|e| matches!(e, AgentEvent::ToolStart { .. }))
    );
    let second = &server.requests()[1].body;
    assert!(
        second.to_string().contains("the secret word is plum"),
        "{second}"
    );
    assert_eq!(
        kinds(&engine, &scope, &sid),
        ["user", "assistant", "tool_result", "assistant", "terminal"]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_finish_control_tool_ends_the_turn_with_its_answer() {
    let server = ProviderServer::start().unwrap();
    server.enqueue(Reply::new().text("working on it").tool_call(
        "f1",
        "finish",
        r#"{"answer":"all done"}"#,
    ));
    let (_dir, engine, scope) = engine(&server).await;
    let mut req = request(&scope, SessionTarget::New { id: None }, "do it");
    req.overrides.finish_tool = true;
    let (_, outcome) = drain(engine.start_turn(req).await.unwrap()).await;
    assert!(
        matches!(&outcome, TurnOutcome::Done(t) if t == "all done"),
        "{outcome:?}"
    );
    let offered = server.requests()[0].body["tools"].to_string();
    assert!(offered.contains("\"finish\""), "{offered}");
    assert_eq!(
        server.requests().len(),
        1,
        "finish ends the turn: no second request"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn session_targets_find_make_and_refuse_sessions() {
    let server = ProviderServer::start().unwrap();
    server.set_default(Reply::plain("ok"));
    let (_dir, engine, scope) = engine(&server).await;
    let named = SessionTarget::New {
        id: Some("20260101-000000-abcdef".into()),
    };
    let (_, first) = drain(
        engine
            .start_turn(request(&scope, named.clone(), "one"))
            .await
            .unwrap(),
    )
    .await;
    assert!(matches!(first, TurnOutcome::Done(_)));
    // The same id again is a clash, and starts nothing.
    let clash = engine
        .start_turn(request(&scope, named, "again"))
        .await
        .err()
        .unwrap();
    assert_eq!(clash.kind, ErrorKind::Conflict);
    // Latest and Id continue it, with its history sent along.
    let turn = engine
        .start_turn(request(&scope, SessionTarget::Latest, "two"))
        .await
        .unwrap();
    assert_eq!(turn.session().id, "20260101-000000-abcdef");
    drain(turn).await;
    let last = server.requests().last().unwrap().body.to_string();
    assert!(last.contains("one") && last.contains("two"), "{last}");
    // An unknown id is not found, and no session is made for it.
    let missing = engine
        .start_turn(request(&scope, SessionTarget::Id("nope".into()), "x"))
        .await
        .err()
        .unwrap();
    assert_eq!(missing.kind, ErrorKind::NotFound);
    assert_eq!(
        engine.store.list_sessions(&scope.key, true).unwrap().len(),
        1
    );
    // Resume with a forgotten id falls back to the latest.
    let turn = engine
        .start_turn(request(
            &scope,
            SessionTarget::Resume(Some("gone".into())),
            "three",
        ))
        .await
        .unwrap();
    assert_eq!(turn.session().id, "20260101-000000-abcdef");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_busy_session_refuses_a_second_turn_until_the_first_ends() {
    let server = ProviderServer::start().unwrap();
    server.enqueue(Reply::plain("slow").header_delay(Duration::from_millis(300)));
    server.enqueue(Reply::plain("second"));
    let (_dir, engine, scope) = engine(&server).await;
    let first = engine
        .start_turn(request(&scope, SessionTarget::New { id: None }, "one"))
        .await
        .unwrap();
    let sid = first.session().id.clone();
    let busy = engine
        .start_turn(request(&scope, SessionTarget::Id(sid.clone()), "two"))
        .await
        .err()
        .unwrap();
    assert_eq!(busy.kind, ErrorKind::Busy);
    drain(first).await;
    let (_, second) = drain(
        engine
            .start_turn(request(&scope, SessionTarget::Id(sid), "two"))
            .await
            .unwrap(),
    )
    .await;
    assert!(matches!(second, TurnOutcome::Done(t) if t == "second"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_controls_given_once_cancel_the_turn() {
    let server = ProviderServer::start().unwrap();
    server.enqueue(Reply::new().text("partial").stall_after(1));
    let (_dir, engine, scope) = engine(&server).await;
    let req = request(&scope, SessionTarget::New { id: None }, "go");
    let controls = req.controls.clone();
    let mut turn = engine.start_turn(req).await.unwrap();
    // Read until the stream has started, then cancel through the kept controls.
    while let Some(ev) = turn.next_event().await {
        if matches!(ev, AgentEvent::Delta(_)) {
            break;
        }
    }
    controls.cancel.cancel();
    let (_, outcome) = tokio::time::timeout(Duration::from_secs(10), drain(turn))
        .await
        .unwrap();
    assert!(matches!(outcome, TurnOutcome::Cancelled(_)), "{outcome:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compaction_appends_a_summary_of_the_whole_session() {
    let server = ProviderServer::start().unwrap();
    server.enqueue(Reply::plain("first answer"));
    server.enqueue(Reply::plain("SUMMARY: we said hi"));
    let (_dir, engine, scope) = engine(&server).await;
    let turn = engine
        .start_turn(request(&scope, SessionTarget::New { id: None }, "hi"))
        .await
        .unwrap();
    let sid = turn.session().id.clone();
    drain(turn).await;
    let mut range = None;
    let done = engine
        .compact_session(
            &scope,
            &sid,
            &TurnOverrides::default(),
            &Default::default(),
            |from, to| range = Some((from, to)),
        )
        .await
        .unwrap();
    assert!(range.is_some_and(|(from, to)| from <= to));
    assert!(done.summary.contains("we said hi"), "{}", done.summary);
    let events = engine.store.events(&scope.key, &sid).unwrap();
    assert!(
        matches!(&events.last().unwrap().item, EventItem::Summary(s) if s.text.contains("we said hi"))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_turn_bus_sees_start_events_and_end_in_order_but_not_its_own_reader() {
    let server = ProviderServer::start().unwrap();
    server.set_default(Reply::plain("answer"));
    let (_dir, engine, scope) = engine(&server).await;
    let first = engine
        .start_turn(request(&scope, SessionTarget::New { id: None }, "one"))
        .await
        .unwrap();
    let sid = first.session().id.clone();
    drain(first).await;
    let (_other, mut other_rx) = engine.bus.add(&sid, 7);
    let (_own, mut own_rx) = engine.bus.add(&sid, 8);
    let mut req = request(&scope, SessionTarget::Id(sid), "two");
    req.origin = TurnOrigin::read_by("chat", 8);
    drain(engine.start_turn(req).await.unwrap()).await;
    let mut seen = Vec::new();
    while let Ok(item) = other_rx.try_recv() {
        seen.push(item.item);
    }
    assert!(
        matches!(&seen[0], Watched::TurnStart { message, origin } if message == "two" && *origin == "chat")
    );
    assert!(
        seen.iter()
            .any(|w| matches!(w, Watched::Event(AgentEvent::Delta(d)) if d == "answer"))
    );
    assert!(
        matches!(seen.last().unwrap(), Watched::TurnEnd(TurnOutcome::Done(t)) if t == "answer")
    );
    assert!(
        own_rx.try_recv().is_err(),
        "the reader that streams the turn is skipped"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_continued_session_answers_with_its_own_model_whichever_way_it_is_named() {
    let server = ProviderServer::start().unwrap();
    server.set_default(Reply::plain("ok"));
    let (_dir, engine, scope) = engine(&server).await;
    let turn = engine
        .start_turn(request(&scope, SessionTarget::New { id: None }, "one"))
        .await
        .unwrap();
    let sid = turn.session().id.clone();
    drain(turn).await;
    assert_eq!(server.requests()[0].body["model"], "m1");
    engine
        .store
        .set_session_model(&scope.key, &sid, Some("tk/m2"))
        .unwrap();
    for target in [
        SessionTarget::Id(sid.clone()),
        SessionTarget::Latest,
        SessionTarget::Resume(None),
    ] {
        drain(
            engine
                .start_turn(request(&scope, target.clone(), "more"))
                .await
                .unwrap(),
        )
        .await;
        let body = server.requests().last().unwrap().body.clone();
        assert_eq!(body["model"], "m2", "{target:?}");
    }
    // A new session starts on the config's model.
    drain(
        engine
            .start_turn(request(&scope, SessionTarget::New { id: None }, "fresh"))
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(server.requests().last().unwrap().body["model"], "m1");
}
