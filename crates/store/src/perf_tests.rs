//! Timing checks for the open and projection budgets. Ignored by default
//! (slow to populate); run with
//! `cargo test -p seekclaw-store --release -- --ignored --nocapture`.

use std::time::Instant;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;

use crate::items::*;
use crate::store::Store;
use crate::testutil::new_session;

fn assistant(i: usize) -> EventItem {
    EventItem::Assistant(AssistantMessage {
        text: format!("answer {i} {}", "lorem ipsum ".repeat(20)),
        thinking: Some("thinking about it".into()),
        model_ref: Some("p/m".into()),
        tool_calls: vec![ToolCall {
            id: format!("c{i}"),
            name: "read_file".into(),
            arguments_json: r#"{"path":"src/main.rs"}"#.into(),
        }],
        ..Default::default()
    })
}

#[test]
#[ignore = "slow: populates 1,000,000 events"]
fn open_and_projection_budgets() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("seekclaw.db");
    let t = Instant::now();
    {
        let store = Store::open(&path).unwrap();
        let batch: Vec<EventItem> = (0..100).map(assistant).collect();
        for s in 0..10_000 {
            let id = format!("s{s}");
            store.create_session(&new_session("g", &id)).unwrap();
            store.append_events("g", &id, None, &batch).unwrap();
        }
        // One big session: 5,000 messages, some with a repeated image.
        store.create_session(&new_session("g", "big")).unwrap();
        let img = ImageAttachment {
            id: "i".into(),
            name: "i.png".into(),
            media_type: "image/png".into(),
            data: STANDARD.encode(vec![1u8; 200_000]),
            size_bytes: 200_000,
        };
        let mut items = Vec::new();
        for i in 0..2_500 {
            let images = if i % 50 == 0 {
                vec![img.clone()]
            } else {
                Vec::new()
            };
            items.push(EventItem::User(UserMessage {
                text: format!("question {i}"),
                images,
            }));
            items.push(assistant(i));
        }
        store.append_events("g", "big", None, &items).unwrap();
        store.checkpoint().unwrap();
    }
    eprintln!("populate: {:?}", t.elapsed());

    let t = Instant::now();
    let store = Store::open(&path).unwrap();
    let open = t.elapsed();
    let t = Instant::now();
    let first = store.list_sessions("g", false).unwrap();
    let list = t.elapsed();
    let t = Instant::now();
    let msgs = store.messages("g", "big").unwrap();
    let project = t.elapsed();
    eprintln!(
        "open {open:?}, list {} sessions {list:?}, messages {} in {project:?}",
        first.len(),
        msgs.len()
    );
    for _ in 0..3 {
        let t = Instant::now();
        let again = store.messages("g", "big").unwrap();
        eprintln!("messages again: {:?}", t.elapsed());
        assert_eq!(again.len(), msgs.len());
        let t = Instant::now();
        let events = store.events("g", "big").unwrap();
        eprintln!("events: {:?}", t.elapsed());
        assert_eq!(events.len(), msgs.len());
    }
    assert_eq!(msgs.len(), 5_000);
    assert_eq!(store.stats().unwrap().events, 1_005_000);
}
