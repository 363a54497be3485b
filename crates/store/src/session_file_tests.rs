use super::*;

fn ev(seq: u64, item: EventItem) -> SessionEvent {
    SessionEvent {
        seq,
        unix_ms: 1_752_000_000_000 + seq as i64,
        turn: None,
        item,
    }
}

/// One event of every kind, with every optional field set somewhere.
fn every_kind() -> Vec<SessionEvent> {
    let items = vec![
        EventItem::User(UserMessage {
            text: "fix the test".into(),
            images: vec![ImageAttachment {
                id: "i1".into(),
                name: "shot.png".into(),
                media_type: "image/png".into(),
                data: "AAAA".into(),
                size_bytes: 3,
            }],
        }),
        EventItem::Assistant(AssistantMessage {
            text: String::new(),
            thinking: Some("hmm".into()),
            thinking_signature: Some("sig".into()),
            model_ref: Some("tk/m1".into()),
            tool_calls: vec![ToolCall {
                id: "call_1".into(),
                name: "read_file".into(),
                arguments_json: r#"{"path":"a.rs"}"#.into(),
            }],
            viewed_images: vec![ViewedImage {
                id: "v".into(),
                name: "v.png".into(),
            }],
            finish_reason: Some("tool_calls".into()),
            usage: None,
        }),
        EventItem::ToolResult(ToolResult {
            tool_call_id: "call_1".into(),
            tool_name: "read_file".into(),
            success: false,
            output: "1 |x".into(),
            diff: Some("-a\n+b".into()),
            file_path: Some("a.rs".into()),
            summary: Some("path: a.rs".into()),
            duration_ms: Some(4),
            silent: true,
        }),
        EventItem::Steer(UserMessage {
            text: "also the docs".into(),
            images: Vec::new(),
        }),
        EventItem::Runtime(RuntimeNotice {
            kind: "repair".into(),
            text: "try again".into(),
        }),
        EventItem::Summary(Summary {
            text: "did things".into(),
            from_seq: 1,
            to_seq: 5,
        }),
        EventItem::Assistant(AssistantMessage {
            text: "done".into(),
            ..Default::default()
        }),
        EventItem::Terminal(TurnTerminal {
            status: TerminalStatus::Finished,
            text: "done".into(),
        }),
    ];
    items
        .into_iter()
        .enumerate()
        .map(|(i, item)| ev(i as u64 + 1, item))
        .collect()
}

#[test]
fn every_kind_round_trips_byte_for_byte() {
    let events = every_kind();
    let text = encode_session_file("demo", "You are seekclaw", &events);
    let read = parse_session_file(text.as_bytes()).unwrap();
    assert_eq!(read.id, "demo");
    assert_eq!(read.system_prompt, "You are seekclaw");
    assert_eq!(read.events, events);
    assert_eq!(read.skipped_tail, None);
    assert_eq!(
        encode_session_file(&read.id, &read.system_prompt, &read.events),
        text
    );
}

#[test]
fn lines_have_the_openseek_shape() {
    let text = encode_session_file("demo", "", &every_kind());
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], r#"{"version":1,"id":"demo","system_prompt":""}"#);
    assert_eq!(
        lines[1],
        r#"{"sequence":1,"ts":1752000000001,"item":{"kind":"user","payload":{"content":"fix the test","images":[{"id":"i1","name":"shot.png","media_type":"image/png","size_bytes":3,"data":"AAAA"}]}}}"#
    );
    assert_eq!(
        lines[2],
        r#"{"sequence":2,"ts":1752000000002,"item":{"kind":"assistant","payload":{"content":"","tool_calls":[{"id":"call_1","name":"read_file","arguments":"{\"path\":\"a.rs\"}"}],"reasoning_content":"hmm","thinking_signature":"sig","model_ref":"tk/m1","viewed_images":[{"id":"v","name":"v.png"}],"finish_reason":"tool_calls"}}}"#
    );
    assert_eq!(
        lines[3],
        r#"{"sequence":3,"ts":1752000000003,"item":{"kind":"tool_result","payload":{"tool_call_id":"call_1","tool_name":"read_file","content":"1 |x","is_error":true,"brief":"path: a.rs","diff":"-a\n+b","file_path":"a.rs","duration_ms":4,"silent":true}}}"#
    );
    assert_eq!(
        lines[4],
        r#"{"sequence":4,"ts":1752000000004,"item":{"kind":"user","payload":{"content":"also the docs","steer":true}}}"#
    );
    assert_eq!(
        lines[5],
        r#"{"sequence":5,"ts":1752000000005,"item":{"kind":"runtime_notice","payload":{"content":"try again","notice_kind":"repair"}}}"#
    );
    assert_eq!(
        lines[6],
        r#"{"sequence":6,"ts":1752000000006,"item":{"kind":"summary","payload":{"content":"did things","from_sequence":1,"to_sequence":5}}}"#
    );
    assert_eq!(
        lines[7],
        r#"{"sequence":7,"ts":1752000000007,"item":{"kind":"assistant","payload":{"content":"done","tool_calls":[]}}}"#
    );
    assert_eq!(
        lines[8],
        r#"{"sequence":8,"ts":1752000000008,"item":{"kind":"terminal","payload":{"kind":"finished","message":"done","answer_sequence":7}}}"#
    );
}

#[test]
fn an_older_file_with_an_empty_answer_message_reads_the_named_answer() {
    let text = concat!(
        r#"{"version":1,"id":"x"}"#,
        "\n",
        r#"{"sequence":1,"ts":0,"item":{"kind":"assistant","payload":{"content":"the answer","tool_calls":[]}}}"#,
        "\n",
        r#"{"sequence":2,"ts":0,"item":{"kind":"terminal","payload":{"kind":"finished","message":"","answer_sequence":1}}}"#,
        "\n",
    );
    let read = parse_session_file(text.as_bytes()).unwrap();
    assert!(
        matches!(&read.events[1].item, EventItem::Terminal(t) if t.text == "the answer"),
        "{:?}",
        read.events[1]
    );
    // Written again, the message carries the answer (for OpenSeek readers).
    let again = encode_session_file("x", "", &read.events);
    assert!(
        again.contains(r#""message":"the answer","answer_sequence":1"#),
        "{again}"
    );
}

#[test]
fn an_openseek_file_reads_with_its_own_fields() {
    // The reference's example (§5.2), with `brief` and a notice without our kind.
    let text = concat!(
        r#"{"version":1,"id":"demo","system_prompt":"You are OpenSeek, ..."}"#,
        "\n",
        r#"{"sequence":1,"ts":1752000000000,"item":{"kind":"user","payload":{"content":"fix the test"}}}"#,
        "\n",
        r#"{"sequence":2,"ts":1752000004000,"item":{"kind":"assistant","payload":{"content":"","tool_calls":[{"id":"call_1","name":"read","arguments":"{\"path\":\"a.mbt\"}"}],"reasoning_content":"..."}}}"#,
        "\n",
        r#"{"sequence":3,"ts":1752000004100,"item":{"kind":"tool_result","payload":{"tool_call_id":"call_1","tool_name":"read","content":"1 |x","is_error":false,"brief":"read a.mbt"}}}"#,
        "\n",
        r#"{"sequence":4,"ts":1752000004200,"item":{"kind":"runtime_notice","payload":{"content":"plan reminder"}}}"#,
        "\n",
        r#"{"sequence":5,"ts":1752000009000,"item":{"kind":"terminal","payload":{"kind":"aborted","message":"cancelled"}}}"#,
        "\n",
    );
    let read = parse_session_file(text.as_bytes()).unwrap();
    assert_eq!(read.system_prompt, "You are OpenSeek, ...");
    assert_eq!(read.events.len(), 5);
    assert_eq!(read.events[1].unix_ms, 1_752_000_004_000);
    let EventItem::Assistant(a) = &read.events[1].item else {
        panic!("assistant expected");
    };
    assert_eq!(a.thinking.as_deref(), Some("..."));
    assert_eq!(a.tool_calls[0].arguments_json, r#"{"path":"a.mbt"}"#);
    assert!(matches!(&read.events[2].item, EventItem::ToolResult(t) if t.success));
    assert!(matches!(&read.events[3].item, EventItem::Runtime(r) if r.kind == "continuation"));
    assert!(matches!(
        &read.events[4].item,
        EventItem::Terminal(t) if t.status == TerminalStatus::Aborted && t.text == "cancelled"
    ));
}

#[test]
fn blank_lines_are_skipped_and_a_torn_tail_is_left_out() {
    let events = every_kind();
    let mut text = encode_session_file("demo", "", &events[..3]);
    text.push_str("\n  \n");
    text.push_str(&event_line(&events[3], Some(&events[2])));
    // The final line was cut off mid-write: no `\n`, not valid JSON.
    let torn = event_line(&events[4], Some(&events[3]));
    text.push_str(&torn[..torn.len() / 2]);
    let read = parse_session_file(text.as_bytes()).unwrap();
    assert_eq!(read.events, events[..4]);
    let skipped = read.skipped_tail.unwrap();
    assert_eq!(skipped.line, 8);
    assert!(skipped.message.contains("invalid JSON"), "{skipped}");

    // An unterminated final line that decodes is kept.
    let whole = format!("{}{}", encode_session_file("demo", "", &events[..3]), {
        let l = event_line(&events[3], Some(&events[2]));
        l.trim_end().to_string()
    });
    let read = parse_session_file(whole.as_bytes()).unwrap();
    assert_eq!(read.events, events[..4]);
    assert_eq!(read.skipped_tail, None);
}

#[test]
fn a_damaged_line_in_the_middle_is_an_error_naming_it() {
    let events = every_kind();
    let good = encode_session_file("demo", "", &events);
    let mut lines: Vec<String> = good.lines().map(str::to_string).collect();
    lines[3] = lines[3][..20].to_string();
    let text = lines.join("\n") + "\n";
    let err = parse_session_file(text.as_bytes()).unwrap_err();
    assert_eq!(err.line, 4);
    assert!(err.message.contains("invalid JSON"), "{err}");
    assert!(err.to_string().starts_with("line 4: "), "{err}");

    // Likewise a damaged final line that was terminated: it was written whole.
    let mut lines: Vec<String> = good.lines().map(str::to_string).collect();
    let last = lines.len() - 1;
    lines[last] = "{oops".into();
    let text = lines.join("\n") + "\n";
    assert_eq!(parse_session_file(text.as_bytes()).unwrap_err().line, 9);
}

#[test]
fn bad_contents_are_errors_with_their_cause() {
    let header = r#"{"version":1,"id":"demo","system_prompt":""}"#;
    let case = |line: &str| {
        let text = format!("{header}\n{line}\n");
        parse_session_file(text.as_bytes()).unwrap_err()
    };
    let item = |kind: &str, payload: &str| {
        format!(r#"{{"sequence":1,"ts":0,"item":{{"kind":"{kind}","payload":{payload}}}}}"#)
    };
    let err = case(&item("bogus", "{}"));
    assert_eq!(
        (err.line, err.message.as_str()),
        (2, r#"unknown item kind "bogus""#)
    );
    let err = case(&item("terminal", r#"{"kind":"exploded","message":""}"#));
    assert_eq!(err.message, r#"terminal: unknown kind "exploded""#);
    let err = case(&item("user", "{}"));
    assert_eq!(err.message, r#"user: "content" is missing"#);
    let err = case(&item("user", r#"{"content":3}"#));
    assert_eq!(err.message, r#"user: "content" must be a string"#);
    let err = case(&item(
        "assistant",
        r#"{"content":"","tool_calls":[{"id":"c"}]}"#,
    ));
    assert_eq!(err.message, r#"tool call: "name" is missing"#);
    let err = case(r#"{"sequence":1,"item":{}}"#);
    assert_eq!(err.message, r#""ts" must be an integer (unix ms)"#);
    let err = case("[1]");
    assert_eq!(err.message, "not a JSON object");

    // Sequences must run on from 1.
    let two = item("user", r#"{"content":"a"}"#).replace(r#""sequence":1"#, r#""sequence":2"#);
    let err = case(&two);
    assert_eq!(
        (err.line, err.message.as_str()),
        (2, "sequence 2 does not follow on (expected 1)")
    );
    // Not UTF-8.
    let mut bytes = format!("{header}\n").into_bytes();
    bytes.extend_from_slice(b"\xff\xfe\n");
    assert!(
        parse_session_file(&bytes)
            .unwrap_err()
            .message
            .starts_with("not UTF-8")
    );
}

#[test]
fn the_header_is_required_and_checked() {
    let err = parse_session_file(b"").unwrap_err();
    assert_eq!(
        (err.line, err.message.as_str()),
        (1, "no header line (the file is empty)")
    );
    let err = parse_session_file(b"\n\n").unwrap_err();
    assert_eq!(err.line, 3);
    let err = parse_session_file(br#"{"version":2,"id":"x"}"#).unwrap_err();
    assert_eq!(err.message, "unsupported version 2 (only 1 is read)");
    let err = parse_session_file(
        br#"{"sequence":1,"ts":0,"item":{"kind":"user","payload":{"content":"a"}}}"#,
    )
    .unwrap_err();
    assert_eq!(
        err.message,
        r#"no header (the first line has no "version")"#
    );
    let err = parse_session_file(br#"{"version":1,"id":"../x"}"#).unwrap_err();
    assert_eq!(err.message, r#"header: invalid session id "../x""#);
    // A header alone is a session without events; its prompt may be absent.
    let read = parse_session_file(br#"{"version":1,"id":"x"}"#).unwrap();
    assert_eq!((read.id.as_str(), read.system_prompt.as_str()), ("x", ""));
    assert!(read.events.is_empty());
    // A torn header is not skipped: there would be nothing to import.
    let err = parse_session_file(br#"{"version":1,"id":"#).unwrap_err();
    assert_eq!(err.line, 1);
}

#[test]
fn a_terminal_naming_its_answer_must_find_it() {
    let text = concat!(
        r#"{"version":1,"id":"x"}"#,
        "\n",
        r#"{"sequence":1,"ts":0,"item":{"kind":"user","payload":{"content":"hi"}}}"#,
        "\n",
        r#"{"sequence":2,"ts":0,"item":{"kind":"terminal","payload":{"kind":"finished","message":"","answer_sequence":1}}}"#,
        "\n",
    );
    let err = parse_session_file(text.as_bytes()).unwrap_err();
    assert_eq!(
        (err.line, err.message.as_str()),
        (
            3,
            r#"terminal: "answer_sequence" 1 names no earlier assistant event"#
        )
    );
}

#[test]
fn openseek_final_answers_are_kept_as_they_are_and_round_trip() {
    let line = |seq: u64, kind: &str, payload: &str| {
        format!(
            r#"{{"sequence":{seq},"ts":{},"item":{{"kind":"{kind}","payload":{payload}}}}}"#,
            1000 + seq
        )
    };
    let mut text = [
        r#"{"version":1,"id":"x","system_prompt":"You are OpenSeek."}"#.to_string(),
        line(1, "user", r#"{"content":"one"}"#),
        line(
            2,
            "terminal",
            r#"{"kind":"finished","message":"first answer"}"#,
        ),
        line(3, "user", r#"{"content":"two"}"#),
        line(
            4,
            "terminal",
            r#"{"kind":"finished","message":"[context ceiling] yielded"}"#,
        ),
        line(
            5,
            "summary",
            r#"{"content":"S","from_sequence":2,"to_sequence":4}"#,
        ),
        line(6, "runtime_notice", r#"{"content":"[goal] ship it"}"#),
        line(7, "terminal", r#"{"kind":"failed","message":"boom"}"#),
        line(8, "user", r#"{"content":"four"}"#),
        line(
            9,
            "terminal",
            r#"{"kind":"finished","message":"last answer"}"#,
        ),
    ]
    .join("\n");
    text.push('\n');
    let read = parse_session_file(text.as_bytes()).unwrap();
    let seqs: Vec<u64> = read.events.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, (1..=9).collect::<Vec<_>>(), "no event added");
    assert!(
        matches!(&read.events[4].item, EventItem::Summary(s) if (s.from_seq, s.to_seq) == (2, 4))
    );
    // Written again: the same bytes.
    assert_eq!(
        encode_session_file(&read.id, &read.system_prompt, &read.events),
        text
    );
    // The answers show as assistant messages; the yield and the failure do not.
    let shown: Vec<(u64, String, String)> = crate::project(read.events)
        .into_iter()
        .map(|m| (m.seq, m.role, m.text))
        .collect();
    let want = [
        (1, "user", "one"),
        (2, "assistant", "first answer"),
        (3, "user", "two"),
        (5, "user", ">>> [Context compaction]\n\nS"),
        (6, "user", "[goal] ship it"),
        (8, "user", "four"),
        (9, "assistant", "last answer"),
    ];
    let want: Vec<(u64, String, String)> = want
        .iter()
        .map(|(s, r, t)| (*s, r.to_string(), t.to_string()))
        .collect();
    assert_eq!(shown, want);
    // And our own files are left alone.
    let ours = every_kind();
    let text = encode_session_file("demo", "", &ours);
    assert_eq!(parse_session_file(text.as_bytes()).unwrap().events, ours);
}

#[test]
fn a_tool_results_brief_and_a_plain_notice_come_back_as_they_were() {
    let text = concat!(
        r#"{"version":1,"id":"x","system_prompt":""}"#,
        "\n",
        r#"{"sequence":1,"ts":5,"item":{"kind":"tool_result","payload":{"tool_call_id":"c","tool_name":"read","content":"1 |x","is_error":false,"brief":"read a.mbt"}}}"#,
        "\n",
        r#"{"sequence":2,"ts":6,"item":{"kind":"runtime_notice","payload":{"content":"[plan] 1 open"}}}"#,
        "\n",
    );
    let read = parse_session_file(text.as_bytes()).unwrap();
    assert!(
        matches!(&read.events[0].item, EventItem::ToolResult(t) if t.summary.as_deref() == Some("read a.mbt"))
    );
    assert!(matches!(&read.events[1].item, EventItem::Runtime(r) if r.kind == "continuation"));
    assert_eq!(encode_session_file("x", "", &read.events), text);
    // Our files from before `brief` named the row `summary`.
    let old = text.replace(r#""brief":"read a.mbt""#, r#""summary":"read a.mbt""#);
    assert_eq!(
        parse_session_file(old.as_bytes()).unwrap().events,
        read.events
    );
}
