use super::*;
use serde_json::{Value, json};

fn s(x: &str) -> String {
    x.to_string()
}

/// One of most variants, with optional strings present and absent.
fn events() -> Vec<Event> {
    use Event::*;
    vec![
        AgentStep { step: 2 },
        AssistantDelta {
            content: s("Hé \"x\"\n"),
        },
        Usage {
            usage: super::Usage {
                prompt_tokens: 1,
                completion_tokens: 2,
                total_tokens: 3,
                prompt_cache_hit_tokens: 0,
                prompt_cache_miss_tokens: 1,
            },
        },
        ToolResult {
            tool_call_id: s("c"),
            tool_name: s("read"),
            is_error: false,
            content: s("ok"),
            brief: None,
        },
        AgentFinished {
            answer: s("a"),
            submission_id: Some(s("p1")),
        },
        ContextYield {
            to_sequence: u64::MAX,
            answer: s("[context ceiling]"),
            submission_id: None,
        },
        MaxStepsExhausted {
            submission_id: None,
        },
        SteerApplied {
            kind: AppliedSteerKind::Notice,
            content: s("n"),
            submission_id: None,
        },
        ApprovalResolved {
            id: s("a"),
            outcome: ApprovalOutcome::AllowedOnce,
        },
        GoalUpdated { goal: None },
        GoalUnblocked,
        GoalBudgetExhausted { turns: 5 },
        CompactionFinished {
            from_sequence: 0,
            to_sequence: 4,
            summary: s("s"),
        },
        ModelRetry {
            model: s("m"),
            attempt: 1,
            max_attempts: 3,
            reason: s("r"),
            error: s("e"),
            delay_ms: 10,
            content: s("c"),
        },
        SessionStarted {
            session: s("x"),
            session_root: s("/h"),
            workspace_root: None,
        },
        CommandError { error: s("e") },
    ]
}

const TS: &str = "2026-12-03T08:00:00.000Z";

#[test]
fn events_round_trip_through_their_lines() {
    for ev in events() {
        let line = ev.line_at(TS);
        assert!(line.ends_with(b"}\n"));
        let back = EventLine::parse(&line).unwrap();
        assert_eq!(back.event, ev);
        assert_eq!(back.timestamp, TS);
        assert_eq!(back.level, ev.level());
        // Written again, the read-back line is the same bytes.
        assert_eq!(serde_json::to_vec(&back).unwrap(), line[..line.len() - 1]);
    }
}

#[test]
fn the_envelope_comes_first_and_absent_strings_are_null() {
    let line = Event::ToolResult {
        tool_call_id: s("c"),
        tool_name: s("t"),
        is_error: true,
        content: s("x"),
        brief: None,
    }
    .line_at(TS);
    assert_eq!(
        std::str::from_utf8(&line).unwrap(),
        "{\"timestamp\":\"2026-12-03T08:00:00.000Z\",\"level\":\"INFO\",\"event\":\"tool_result\",\
         \"tool_call_id\":\"c\",\"tool_name\":\"t\",\"is_error\":true,\"content\":\"x\",\"brief\":null}\n"
    );
}

#[test]
fn a_reader_skips_what_it_cannot_read() {
    assert_eq!(EventLine::parse(b"not json"), None);
    assert_eq!(
        EventLine::parse(br#"{"timestamp":"t","level":"INFO","event":"new_thing"}"#),
        None
    );
    assert_eq!(
        EventLine::parse(br#"{"timestamp":"t","level":"INFO","event":"agent_step","step":1.5}"#),
        None,
        "integers are integers"
    );
    // A later-added optional string may be absent (reference §2.5).
    let old = br#"{"timestamp":"t","level":"INFO","event":"session_started","session":"s","session_root":"/h"}"#;
    assert!(matches!(
        EventLine::parse(old).map(|l| l.event),
        Some(Event::SessionStarted {
            workspace_root: None,
            ..
        })
    ));
}

fn commands() -> Vec<Value> {
    vec![
        json!({"command": "prompt", "text": "hi", "submission_id": "p1"}),
        json!({"command": "prompt", "content": "as a string"}),
        json!({"command": "prompt", "content": [
            {"type": "text", "text": "look"},
            {"type": "image", "media_type": "image/png", "data": "aGk=", "name": "a.png"}
        ]}),
        json!({"command": "prompt", "text": "legacy", "images": [
            {"media_type": "image/png", "data": "aGk="}
        ]}),
        json!({"command": "steer", "text": "only rust"}),
        json!({"command": "steer", "text": "$ ls", "kind": "command", "submission_id": "s1"}),
        json!({"command": "compact"}),
        json!({"command": "cancel"}),
        json!({"command": "goal", "action": "set", "text": "g", "auto": true}),
        json!({"command": "goal", "action": "set", "text": "g"}),
        json!({"command": "goal", "action": "clear"}),
        json!({"command": "approval", "id": "a1", "allow": true}),
        json!({"command": "approval", "id": "a2", "allow": true, "decision": "allow_always"}),
    ]
}

#[test]
fn commands_round_trip_between_the_reader_and_serde() {
    // OpenSeek's spellings are read (by both), not written; the schema shows
    // the written form.
    let aliased = json!({"command": "prompt", "text": "legacy", "images": [
        {"mime_type": "image/png", "data_base64": "aGk="}
    ]});
    for value in commands().into_iter().chain([aliased]) {
        let decoded = Command::decode(value.clone()).unwrap();
        // What serde writes, the hand reader and serde both read back.
        let written = serde_json::to_value(&decoded).unwrap();
        assert_eq!(
            Command::decode(written.clone()).unwrap(),
            decoded,
            "{written}"
        );
        let derived: Command = serde_json::from_value(written.clone()).unwrap();
        assert_eq!(derived, decoded, "{written}");
    }
    let Command::Prompt(sub) = Command::decode(commands()[2].clone()).unwrap() else {
        panic!()
    };
    assert_eq!(sub.joined_text(), "look");
    assert_eq!(sub.image_parts().len(), 1);
    let Command::Prompt(sub) = Command::decode(commands()[3].clone()).unwrap() else {
        panic!()
    };
    assert_eq!(sub.images[0].name.as_deref(), Some("image-1"));
    assert_eq!(sub.images[0].media_type, "image/png");
}

#[test]
fn the_image_check_runs_before_the_blank_text_and_the_steer_kind() {
    let value = json!({"command": "steer", "text": " ", "kind": "shout",
        "images": [{"media_type": "image/tiff", "data": "aGk="}]});
    let mut seen = 0;
    let err = Command::decode_checked(value.clone(), &mut |images| {
        seen = images.len();
        Err(s("Unsupported image type"))
    })
    .unwrap_err();
    assert_eq!((err.as_str(), seen), ("Unsupported image type", 1));
    assert_eq!(
        Command::decode(value.clone()).unwrap_err(),
        "unknown steer kind: shout"
    );
}

#[test]
fn the_schema_is_valid_and_checks_both_directions() {
    let (doc, clashes) = build();
    assert!(clashes.is_empty(), "$defs claimed twice: {clashes:?}");
    jsonschema::meta::validate(&doc).unwrap();
    let lines = jsonschema::draft202012::new(&doc).unwrap();
    for ev in events() {
        let v: Value = serde_json::from_slice(&ev.line_at(TS)).unwrap();
        assert!(lines.is_valid(&v), "{v}");
        assert_eq!(doc["x-levels"][ev.name()], json!(ev.level()), "{v}");
    }
    let bad = [
        json!({"timestamp": TS, "level": "INFO", "event": "nope"}),
        json!({"timestamp": TS, "level": "INFO", "event": "agent_step", "step": 1.5}),
        json!({"level": "INFO", "event": "agent_step", "step": 1}),
        json!({"timestamp": TS, "level": "INFO", "event": "tool_result", "tool_call_id": "c",
            "tool_name": "t", "is_error": false, "content": "x"}),
    ];
    for v in bad {
        assert!(!lines.is_valid(&v), "{v}");
    }
    let mut command_schema = doc.clone();
    command_schema["$ref"] = json!("#/$defs/Command");
    let commands_v = jsonschema::draft202012::new(&command_schema).unwrap();
    for value in commands() {
        assert!(commands_v.is_valid(&value), "{value}");
    }
    for value in [
        json!({"command": "dance"}),
        json!({"command": "approval", "id": "a"}),
        json!({"command": "goal", "action": "win"}),
        json!({"command": "steer", "text": "x", "kind": "shout"}),
    ] {
        assert!(!commands_v.is_valid(&value), "{value}");
    }
}
