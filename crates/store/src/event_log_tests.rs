use std::collections::HashSet;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use rusqlite::Connection;

use super::*;
use crate::items::*;
use crate::model::SessionPatch;
use crate::testutil::{new_session, temp_store, user};

fn image(id: &str, bytes: &[u8]) -> ImageAttachment {
    ImageAttachment {
        id: id.into(),
        name: format!("{id}.png"),
        media_type: "image/png".into(),
        data: STANDARD.encode(bytes),
        size_bytes: bytes.len() as u64,
    }
}

fn raw(store: &Store) -> Connection {
    Connection::open(store.path()).unwrap()
}

fn count(conn: &Connection, sql: &str) -> i64 {
    conn.query_row(sql, [], |r| r.get(0)).unwrap()
}

fn every_kind() -> Vec<EventItem> {
    vec![
        EventItem::User(UserMessage {
            text: "hi".into(),
            images: vec![image("img1", b"\x89PNG fake")],
        }),
        EventItem::Assistant(AssistantMessage {
            text: "let me look".into(),
            thinking: Some("hmm".into()),
            thinking_signature: Some("sig".into()),
            model_ref: Some("prov/model".into()),
            tool_calls: vec![ToolCall {
                id: "c1".into(),
                name: "read_file".into(),
                arguments_json: r#"{"path":"a.rs"}"#.into(),
            }],
            viewed_images: vec![ViewedImage {
                id: "v1".into(),
                name: "shot.png".into(),
            }],
            finish_reason: Some("tool_calls".into()),
            usage: Some(crate::StepUsage {
                input_tokens: 1200,
                cached_input_tokens: 1000,
                output_tokens: 40,
                reasoning_tokens: 12,
                cost_nano_usd: 3_400,
            }),
        }),
        EventItem::ToolResult(ToolResult {
            tool_call_id: "c1".into(),
            tool_name: "read_file".into(),
            success: false,
            output: "boom".into(),
            diff: Some("-a\n+b".into()),
            file_path: Some("a.rs".into()),
            ..ToolResult::default()
        }),
        EventItem::Steer(UserMessage {
            text: "also check b".into(),
            images: Vec::new(),
        }),
        EventItem::Summary(Summary {
            text: "earlier work".into(),
            from_seq: 1,
            to_seq: 4,
        }),
        EventItem::Runtime(RuntimeNotice {
            kind: "repair".into(),
            text: "fix the build".into(),
        }),
        EventItem::Runtime(RuntimeNotice {
            kind: "continuation".into(),
            text: "continue".into(),
        }),
        EventItem::Runtime(RuntimeNotice {
            kind: "warning".into(),
            text: "internal".into(),
        }),
        EventItem::Terminal(TurnTerminal {
            status: TerminalStatus::Finished,
            text: "done".into(),
        }),
    ]
}

#[test]
fn append_and_read_back_every_kind() {
    let (_dir, store) = temp_store();
    let before = store.create_session(&new_session("g", "s")).unwrap();
    let items = every_kind();
    let mut seqs = Vec::new();
    for item in &items {
        seqs.push(store.append_event("g", "s", Some("turn-1"), item).unwrap());
    }
    assert_eq!(seqs, (1..=items.len() as u64).collect::<Vec<_>>());
    let events = store.events("g", "s").unwrap();
    assert_eq!(events.len(), items.len());
    for (e, item) in events.iter().zip(&items) {
        assert_eq!(&e.item, item);
        assert_eq!(e.turn.as_deref(), Some("turn-1"));
        assert!(e.unix_ms > 1_700_000_000_000);
    }
    let after = store.session("g", "s").unwrap().unwrap();
    assert!(after.updated_at > before.updated_at);
    store.append_event("g", "s", None, &user("x")).unwrap();
    assert_eq!(store.events("g", "s").unwrap().last().unwrap().turn, None);
}

#[test]
fn missing_session_is_not_found() {
    let (_dir, store) = temp_store();
    store.create_session(&new_session("g", "s")).unwrap();
    let err = store
        .append_event("other", "s", None, &user("x"))
        .unwrap_err();
    assert!(matches!(err, StoreError::NotFound(_)));
    assert!(matches!(
        store.events("g", "nope"),
        Err(StoreError::NotFound(_))
    ));
    assert!(matches!(
        store.messages("g", "nope"),
        Err(StoreError::NotFound(_))
    ));
    assert!(matches!(
        store.truncate_messages("g", "nope", 0),
        Err(StoreError::NotFound(_))
    ));
}

#[test]
fn projection_of_every_kind() {
    let (_dir, store) = temp_store();
    store.create_session(&new_session("g", "s")).unwrap();
    store.append_events("g", "s", None, &every_kind()).unwrap();
    let messages = store.messages("g", "s").unwrap();
    let json: Vec<String> = messages
        .iter()
        .map(|m| serde_json::to_string(m).unwrap())
        .collect();
    let data = STANDARD.encode(b"\x89PNG fake");
    let expected = [
        format!(
            r#"{{"role":"user","text":"hi","images":[{{"id":"img1","name":"img1.png","mediaType":"image/png","data":"{data}","sizeBytes":9}}],"thinking":null,"viewedImages":[],"toolCalls":[],"toolCallId":null,"toolName":null,"toolSuccess":true,"toolDiff":null,"toolFilePath":null,"modelRef":null}}"#
        ),
        r#"{"role":"assistant","text":"let me look","images":[],"thinking":"hmm","viewedImages":[{"id":"v1","name":"shot.png"}],"toolCalls":[{"id":"c1","name":"read_file"}],"toolCallId":null,"toolName":null,"toolSuccess":true,"toolDiff":null,"toolFilePath":null,"modelRef":"prov/model"}"#.to_string(),
        r#"{"role":"tool","text":"boom","images":[],"thinking":null,"viewedImages":[],"toolCalls":[],"toolCallId":"c1","toolName":"read_file","toolSuccess":false,"toolDiff":"-a\n+b","toolFilePath":"a.rs","modelRef":null}"#.to_string(),
        r#"{"role":"user","text":"also check b","images":[],"thinking":null,"viewedImages":[],"toolCalls":[],"toolCallId":null,"toolName":null,"toolSuccess":true,"toolDiff":null,"toolFilePath":null,"modelRef":null}"#.to_string(),
        r#"{"role":"user","text":">>> [Context compaction]\n\nearlier work","images":[],"thinking":null,"viewedImages":[],"toolCalls":[],"toolCallId":null,"toolName":null,"toolSuccess":true,"toolDiff":null,"toolFilePath":null,"modelRef":null}"#.to_string(),
        r#"{"role":"user","text":"fix the build","images":[],"thinking":null,"viewedImages":[],"toolCalls":[],"toolCallId":null,"toolName":null,"toolSuccess":true,"toolDiff":null,"toolFilePath":null,"modelRef":null}"#.to_string(),
        r#"{"role":"user","text":"continue","images":[],"thinking":null,"viewedImages":[],"toolCalls":[],"toolCallId":null,"toolName":null,"toolSuccess":true,"toolDiff":null,"toolFilePath":null,"modelRef":null}"#.to_string(),
        // A terminal with no answer before it: its text is the answer (OpenSeek's shape).
        r#"{"role":"assistant","text":"done","images":[],"thinking":null,"viewedImages":[],"toolCalls":[],"toolCallId":null,"toolName":null,"toolSuccess":true,"toolDiff":null,"toolFilePath":null,"modelRef":null}"#.to_string(),
    ];
    assert_eq!(json, expected);
    assert_eq!(
        messages.iter().map(|m| m.seq).collect::<Vec<_>>(),
        [1, 2, 3, 4, 5, 6, 7, 9]
    );
    // The pure projection agrees with the stored one.
    let events = store.events("g", "s").unwrap();
    assert_eq!(crate::projection::project(events), messages);
}

#[test]
fn images_are_stored_once_as_blobs() {
    let (_dir, store) = temp_store();
    store.create_session(&new_session("g", "s")).unwrap();
    store.create_session(&new_session("g", "t")).unwrap();
    let bytes = vec![7u8; 4096];
    let msg = EventItem::User(UserMessage {
        text: "look".into(),
        images: vec![image("a", &bytes), image("b", &bytes)],
    });
    store.append_event("g", "s", None, &msg).unwrap();
    store.append_event("g", "s", None, &msg).unwrap();
    store.append_event("g", "t", None, &msg).unwrap();
    let db = raw(&store);
    assert_eq!(count(&db, "SELECT COUNT(*) FROM blobs"), 1);
    assert_eq!(count(&db, "SELECT size FROM blobs"), 4096);
    // Rows hold a hash reference, never the base64.
    let payload: String = db
        .query_row(
            "SELECT payload FROM session_events WHERE seq = 1 LIMIT 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(!payload.contains(&STANDARD.encode(&bytes)));
    assert!(!payload.contains("\"data\""));
    assert!(payload.contains(&crate::blobs::sha256_hex(&bytes)));
    // Reading re-inflates.
    let events = store.events("g", "s").unwrap();
    assert_eq!(events[1].item, msg);
    let m = store.messages("g", "t").unwrap();
    assert_eq!(m[0].images[1].data, STANDARD.encode(&bytes));

    // The blob lives as long as some event references it.
    assert!(store.delete_session("g", "s").unwrap());
    assert_eq!(count(&db, "SELECT COUNT(*) FROM blobs"), 1);
    assert_eq!(store.truncate_messages("g", "t", 0).unwrap(), 0);
    assert_eq!(count(&db, "SELECT COUNT(*) FROM blobs"), 0);
    assert_eq!(count(&db, "SELECT COUNT(*) FROM blob_refs"), 0);
}

#[test]
fn delete_cascades_to_events_and_blobs() {
    let (_dir, store) = temp_store();
    store.create_session(&new_session("w", "s")).unwrap();
    store.create_session(&new_session("w", "t")).unwrap();
    let msg = EventItem::User(UserMessage {
        text: "x".into(),
        images: vec![image("a", b"abc")],
    });
    store
        .append_events("w", "s", None, &[msg.clone(), user("y")])
        .unwrap();
    store.append_event("w", "t", None, &user("z")).unwrap();
    assert!(store.delete_session("w", "s").unwrap());
    let db = raw(&store);
    assert_eq!(count(&db, "SELECT COUNT(*) FROM session_events"), 1);
    assert_eq!(count(&db, "SELECT COUNT(*) FROM blobs"), 0);
    store.append_event("w", "t", None, &msg).unwrap();
    assert_eq!(store.delete_scope("w").unwrap(), 1);
    assert_eq!(store.stats().unwrap().events, 0);
    assert_eq!(count(&db, "SELECT COUNT(*) FROM blobs"), 0);
}

#[test]
fn concurrent_appends_get_contiguous_seqs() {
    let (_dir, store) = temp_store();
    store.create_session(&new_session("g", "s")).unwrap();
    let threads: Vec<_> = (0..6)
        .map(|t| {
            let store = store.clone();
            std::thread::spawn(move || {
                let mut mine = Vec::new();
                for i in 0..40 {
                    let item = user(&format!("t{t} m{i}"));
                    mine.push(store.append_event("g", "s", None, &item).unwrap());
                    // Interleave reads with the writes.
                    if i % 10 == 0 {
                        store.messages("g", "s").unwrap();
                    }
                }
                mine
            })
        })
        .collect();
    let mut all = HashSet::new();
    for t in threads {
        let mine = t.join().unwrap();
        assert!(mine.windows(2).all(|w| w[0] < w[1]));
        all.extend(mine);
    }
    assert_eq!(all, (1..=240).collect::<HashSet<u64>>());
    let seqs: Vec<u64> = store
        .events("g", "s")
        .unwrap()
        .iter()
        .map(|e| e.seq)
        .collect();
    assert_eq!(seqs, (1..=240).collect::<Vec<_>>());
}

#[test]
fn append_events_is_atomic() {
    let (_dir, store) = temp_store();
    store.create_session(&new_session("g", "s")).unwrap();
    assert_eq!(
        store
            .append_events("g", "s", Some("t"), &[user("a"), user("b")])
            .unwrap(),
        [1, 2]
    );
    let mut bad = image("bad", b"x");
    bad.data = "!!not base64!!".into();
    let batch = [
        user("c"),
        EventItem::User(UserMessage {
            text: "d".into(),
            images: vec![image("ok", b"fine"), bad],
        }),
    ];
    assert!(matches!(
        store.append_events("g", "s", None, &batch),
        Err(StoreError::InvalidInput(_))
    ));
    assert_eq!(store.events("g", "s").unwrap().len(), 2);
    assert_eq!(count(&raw(&store), "SELECT COUNT(*) FROM blobs"), 0);
    assert_eq!(
        store.append_events("g", "s", None, &[user("e")]).unwrap(),
        [3]
    );
    assert!(store.append_events("g", "s", None, &[]).unwrap().is_empty());
}

#[test]
fn truncate_keeps_first_messages() {
    let (_dir, store) = temp_store();
    store.create_session(&new_session("g", "s")).unwrap();
    let terminal = EventItem::Terminal(TurnTerminal {
        status: TerminalStatus::Finished,
        text: String::new(),
    });
    let warning = EventItem::Runtime(RuntimeNotice {
        kind: "warning".into(),
        text: "w".into(),
    });
    let assistant = |t: &str| {
        EventItem::Assistant(AssistantMessage {
            text: t.into(),
            ..Default::default()
        })
    };
    // Messages: u1 a1 u2 a2; non-messages interleaved.
    store
        .append_events(
            "g",
            "s",
            None,
            &[
                user("u1"),
                warning.clone(),
                assistant("a1"),
                terminal.clone(),
                user("u2"),
                assistant("a2"),
                terminal,
            ],
        )
        .unwrap();
    // More than there are: nothing happens.
    assert_eq!(store.truncate_messages("g", "s", 10).unwrap(), 4);
    assert_eq!(store.events("g", "s").unwrap().len(), 7);
    // Keep 2: everything after a1 (seq 3) goes, including the terminal.
    assert_eq!(store.truncate_messages("g", "s", 2).unwrap(), 2);
    let seqs: Vec<u64> = store
        .events("g", "s")
        .unwrap()
        .iter()
        .map(|e| e.seq)
        .collect();
    assert_eq!(seqs, [1, 2, 3]);
    let texts: Vec<String> = store
        .messages("g", "s")
        .unwrap()
        .into_iter()
        .map(|m| m.text)
        .collect();
    assert_eq!(texts, ["u1", "a1"]);
    // Appending continues the sequence without gaps.
    assert_eq!(store.append_event("g", "s", None, &user("u3")).unwrap(), 4);
    assert_eq!(store.truncate_messages("g", "s", 0).unwrap(), 0);
    assert!(store.events("g", "s").unwrap().is_empty());
    assert_eq!(
        store.append_event("g", "s", None, &user("again")).unwrap(),
        1
    );
}

#[test]
fn title_is_set_from_first_user_text() {
    let (_dir, store) = temp_store();
    let title = |id: &str| store.session("g", id).unwrap().unwrap().title;

    store.create_session(&new_session("g", "short")).unwrap();
    store
        .append_event("g", "short", None, &user("  fix the bug \n"))
        .unwrap();
    store
        .append_event("g", "short", None, &user("second"))
        .unwrap();
    assert_eq!(title("short").as_deref(), Some("fix the bug"));

    store.create_session(&new_session("g", "exact")).unwrap();
    let exact = "é".repeat(42);
    store
        .append_event("g", "exact", None, &user(&exact))
        .unwrap();
    assert_eq!(title("exact"), Some(exact));

    store.create_session(&new_session("g", "long")).unwrap();
    let long = format!("{}tail", "日".repeat(42));
    store.append_event("g", "long", None, &user(&long)).unwrap();
    assert_eq!(title("long"), Some(format!("{}…", "日".repeat(42))));

    // Image-only and steer messages do not count; the first text does.
    store.create_session(&new_session("g", "img")).unwrap();
    let image_only = EventItem::User(UserMessage {
        text: " ".into(),
        images: vec![image("a", b"1")],
    });
    let steer = EventItem::Steer(UserMessage {
        text: "steer".into(),
        images: Vec::new(),
    });
    store
        .append_events("g", "img", None, &[image_only, steer])
        .unwrap();
    assert_eq!(title("img"), None);
    store.append_event("g", "img", None, &user("real")).unwrap();
    assert_eq!(title("img").as_deref(), Some("real"));

    // An explicit title is kept; a cleared title is not re-derived.
    let mut titled = new_session("g", "titled");
    titled.title = Some("mine".into());
    store.create_session(&titled).unwrap();
    store
        .append_event("g", "titled", None, &user("other"))
        .unwrap();
    assert_eq!(title("titled").as_deref(), Some("mine"));
    let clear = SessionPatch {
        title: Some(None),
        ..Default::default()
    };
    store.update_session("g", "short", &clear).unwrap();
    store
        .append_event("g", "short", None, &user("third"))
        .unwrap();
    assert_eq!(title("short"), None);
}

#[test]
fn title_helper() {
    assert_eq!(title_from(""), None);
    assert_eq!(title_from(" \n\t"), None);
    assert_eq!(title_from("abc").as_deref(), Some("abc"));
    let s43 = "a".repeat(43);
    assert_eq!(title_from(&s43), Some(format!("{}…", "a".repeat(42))));
}

#[test]
fn a_final_answer_kept_only_in_its_terminal_is_a_message() {
    let (_dir, store) = temp_store();
    store.create_session(&new_session("ws", "s")).unwrap();
    let finished = |text: &str| {
        EventItem::Terminal(TurnTerminal {
            status: TerminalStatus::Finished,
            text: text.into(),
        })
    };
    let finish_result = EventItem::ToolResult(ToolResult {
        tool_call_id: "c".into(),
        tool_name: "finish".into(),
        output: "finished: ok".into(),
        success: true,
        ..Default::default()
    });
    let items = [
        user("one"),
        finished("openseek answer"), // 2: shown
        user("two"),
        EventItem::Assistant(AssistantMessage {
            text: "ours".into(),
            ..Default::default()
        }),
        finished("ours"), // 5: repeats 4, not shown
        user("three"),
        finish_result,              // 7
        finished("finish message"), // 8: after the finish tool, not shown
        user("four"),
        finished("[context ceiling] yielded"), // 10: not shown
    ];
    store.append_events("ws", "s", None, &items).unwrap();
    let messages = store.messages("ws", "s").unwrap();
    let shown: Vec<(u64, &str)> = messages.iter().map(|m| (m.seq, m.role.as_str())).collect();
    assert_eq!(
        shown,
        [
            (1, "user"),
            (2, "assistant"),
            (3, "user"),
            (4, "assistant"),
            (6, "user"),
            (7, "tool"),
            (9, "user")
        ]
    );
    assert_eq!(messages[1].text, "openseek answer");
    assert_eq!(crate::project(store.events("ws", "s").unwrap()), messages);
    // Truncation counts as the projection does (the repeated answer, the
    // finish message and the yield are no messages), and keeping 2 keeps the
    // terminal holding the second.
    assert_eq!(store.truncate_messages("ws", "s", 100).unwrap(), 7);
    assert_eq!(store.events("ws", "s").unwrap().len(), 10);
    assert_eq!(store.truncate_messages("ws", "s", 2).unwrap(), 2);
    assert_eq!(store.events("ws", "s").unwrap().len(), 2);
}
