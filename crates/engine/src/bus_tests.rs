use super::*;

fn delta(t: &str) -> Watched {
    Watched::Event(AgentEvent::Delta(t.into()))
}

fn text(item: &Sequenced) -> String {
    match &item.item {
        Watched::Event(AgentEvent::Delta(t)) => t.clone(),
        Watched::TurnStart { message, .. } => format!("start:{message}"),
        other => format!("{other:?}"),
    }
}

fn start(bus: &TurnBus, sid: &str, from: Option<u64>) -> (Arc<Stream>, u64) {
    let item = Watched::TurnStart {
        message: "go".into(),
        origin: "chat",
    };
    bus.turn_start(sid, from, &format!("{sid}/t"), item)
}

#[tokio::test]
async fn watchers_get_items_and_are_dropped_when_behind_or_gone() {
    let w = TurnBus::default();
    let (stream, _) = start(&w, "s", None);
    let (guard, mut rx) = w.add("S", 1);
    assert!(!w.watched_by_others("s", 1) && w.watched_by_others("s", 2));
    w.publish(&stream, Some(1), delta("own"));
    w.publish(&stream, None, delta("hi"));
    assert_eq!(
        text(&rx.recv().await.unwrap()),
        "hi",
        "its own reader's item is not sent"
    );
    drop(guard);
    assert!(!w.watched_by_others("s", 2));
    let (_guard, mut rx) = w.add("s", 1);
    for _ in 0..WATCH_QUEUE + 1 {
        w.publish(&stream, None, delta("x"));
    }
    assert!(
        !w.watched_by_others("s", 2),
        "a full queue drops the watcher"
    );
    let mut n = 0;
    while rx.recv().await.is_some() {
        n += 1;
    }
    assert_eq!(n, WATCH_QUEUE);
}

#[test]
fn seqs_increase_per_session_and_start_past_an_earlier_engine() {
    let earlier = TurnBus::default();
    let (a, first) = start(&earlier, "a", None);
    let later = TurnBus::default();
    let (_, restarted) = start(&later, "a", None);
    assert!(restarted > first, "{restarted} > {first}");
    let (b, _) = start(&earlier, "b", None);
    let mut last = first;
    for i in 0..10 {
        let s = if i % 2 == 0 { &a } else { &b };
        let seq = earlier.publish(s, None, delta("x"));
        assert!(seq > last);
        last = seq;
    }
}

#[tokio::test]
async fn a_watcher_back_with_its_last_seq_gets_the_rest_exactly_once() {
    let bus = TurnBus::default();
    let (stream, started) = start(&bus, "s", None);
    let mut seqs = vec![started];
    for i in 0..5 {
        seqs.push(bus.publish(&stream, None, delta(&i.to_string())));
    }
    let (_g, mut rx, resume) = bus.resume("s", 9, Some(seqs[2]));
    let Some(Resume::Replay(missed)) = resume else {
        panic!("a replay")
    };
    assert_eq!(
        missed.iter().map(text).collect::<Vec<_>>(),
        ["2", "3", "4"],
        "everything after seq {}",
        seqs[2]
    );
    let live = bus.publish(&stream, None, delta("live"));
    assert_eq!(text(&rx.recv().await.unwrap()), "live");
    let (_g, _rx, resume) = bus.resume("s", 9, Some(live));
    assert!(matches!(resume, Some(Resume::Replay(v)) if v.is_empty()));
    let (_g, _rx, resume) = bus.resume("s", 9, Some(*seqs.last().unwrap()));
    assert!(matches!(resume, Some(Resume::Replay(v)) if v.len() == 1));
}

#[test]
fn a_seq_the_buffer_no_longer_reaches_is_a_resync() {
    let bus = TurnBus::with_limits(BufferLimits {
        items: 4,
        bytes: 1 << 20,
        idle_sessions: 8,
        idle_bytes: 1 << 20,
    });
    let (stream, first) = start(&bus, "s", None);
    let mut last = first;
    for _ in 0..10 {
        last = bus.publish(&stream, None, delta("x"));
    }
    let (_g, _rx, resume) = bus.resume("s", 1, Some(first));
    let Some(Resume::Resync { after, oldest, seq }) = resume else {
        panic!("a resync")
    };
    assert_eq!((after, seq), (first, last));
    assert_eq!(oldest, last - 3, "four items kept");
    // One from before this engine started, or from nowhere.
    for asked in [0, last + 100] {
        let (_g, _rx, resume) = bus.resume("s", 1, Some(asked));
        assert!(matches!(resume, Some(Resume::Resync { .. })), "{asked}");
    }
    let (_g, _rx, resume) = bus.resume("s", 1, Some(last - 4));
    assert!(matches!(resume, Some(Resume::Replay(v)) if v.len() == 4));
}

#[test]
fn idle_streams_past_the_limit_are_forgotten_and_replay_nothing_from_before() {
    let bus = TurnBus::with_limits(BufferLimits {
        items: 100,
        bytes: 1 << 20,
        idle_sessions: 2,
        idle_bytes: 1 << 20,
    });
    let mut kept = Vec::new();
    for sid in ["a", "b", "c"] {
        let (stream, s) = start(&bus, sid, None);
        let end = bus.turn_end(
            &stream,
            None,
            Watched::TurnEnd(TurnOutcome::Done("ok".into())),
        );
        kept.push((s, end));
    }
    assert_eq!(
        bus.streams.locked().live.len(),
        2,
        "the oldest idle one went"
    );
    let (_g, _rx, resume) = bus.resume("a", 1, Some(kept[0].0));
    assert!(matches!(resume, Some(Resume::Resync { .. })));
    let (_g, _rx, resume) = bus.resume("c", 1, Some(kept[2].0));
    assert!(matches!(resume, Some(Resume::Replay(v)) if v.len() == 1));
}

#[test]
fn the_position_names_the_running_turn_and_later_turns() {
    let bus = TurnBus::default();
    assert_eq!(bus.position("s").running, None);
    let before = bus.position("s").seq;
    let (stream, s) = start(&bus, "s", None);
    assert!(s > before);
    assert_eq!(bus.position("S").running, Some((s, "s/t".into())));
    assert_eq!(bus.turns_after("s", before), ["s/t"]);
    assert!(bus.turns_after("s", s).is_empty());
    let end = bus.turn_end(
        &stream,
        None,
        Watched::TurnEnd(TurnOutcome::Done("ok".into())),
    );
    assert_eq!(
        bus.position("s"),
        StreamPosition {
            seq: end,
            running: None
        }
    );
}

#[test]
fn a_position_read_before_a_stream_is_forgotten_elsewhere_still_replays() {
    let bus = TurnBus::with_limits(BufferLimits {
        items: 100,
        bytes: 1 << 20,
        idle_sessions: 1,
        idle_bytes: 1 << 20,
    });
    let at = bus.position("new").seq;
    for sid in ["a", "b", "c"] {
        let (stream, _) = start(&bus, sid, None);
        bus.turn_end(
            &stream,
            None,
            Watched::TurnEnd(TurnOutcome::Done("ok".into())),
        );
    }
    let (_g, _rx, resume) = bus.resume("new", 1, Some(at));
    assert!(
        matches!(resume, Some(Resume::Replay(v)) if v.is_empty()),
        "no resync"
    );
}

#[test]
fn idle_buffers_past_their_bytes_are_forgotten_oldest_first() {
    let bus = TurnBus::with_limits(BufferLimits {
        items: 1000,
        bytes: 1 << 20,
        idle_sessions: 10,
        idle_bytes: 4000,
    });
    for sid in ["a", "b", "c"] {
        let (stream, _) = start(&bus, sid, None);
        bus.publish(&stream, None, delta(&"x".repeat(1200)));
        bus.turn_end(
            &stream,
            None,
            Watched::TurnEnd(TurnOutcome::Done("ok".into())),
        );
    }
    let live = bus.streams.locked().live.len();
    assert_eq!(live, 2, "a went first");
    assert!(bus.existing("a").is_none() && bus.existing("c").is_some());
}
