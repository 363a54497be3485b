use super::*;

use rmcp::model::{JsonObject, ToolAnnotations};
use serde_json::json;

fn is_valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

fn tool(name: &str) -> McpToolDef {
    McpToolDef::new(name.to_string(), "a test tool", Arc::new(JsonObject::new()))
}

fn annotated(name: &str, read_only: Option<bool>, destructive: Option<bool>) -> McpToolDef {
    let mut annotations = ToolAnnotations::new();
    if let Some(r) = read_only {
        annotations = annotations.read_only(r);
    }
    if let Some(d) = destructive {
        annotations = annotations.destructive(d);
    }
    tool(name).with_annotations(annotations)
}

fn result(wire: Value) -> CallToolResult {
    serde_json::from_value(wire).expect("valid CallToolResult wire JSON")
}

fn render_wire(wire: Value) -> ToolOutput {
    render("srv", "tool", &result(wire), 20_000)
}

// ---- sanitize -----------------------------------------------------------------

#[test]
fn sanitize_keeps_allowed_characters() {
    assert_eq!(sanitize("github"), "github");
    assert_eq!(sanitize("Ok_name-123"), "Ok_name-123");
}

#[test]
fn sanitize_replaces_everything_else_with_dashes() {
    assert_eq!(sanitize("my server.v2"), "my-server-v2");
    assert_eq!(sanitize("a/b:c@d"), "a-b-c-d");
    // One dash per character, not per byte.
    assert_eq!(sanitize("héllo"), "h-llo");
    assert_eq!(sanitize("日本"), "--");
    assert_eq!(sanitize("tab\there"), "tab-here");
}

#[test]
fn sanitize_of_empty_is_a_dash() {
    assert_eq!(sanitize(""), "-");
}

// ---- names --------------------------------------------------------------------

#[test]
fn names_have_the_mcp_server_tool_format() {
    let mut names = Names::default();
    assert_eq!(
        names.allocate("github", "create_issue"),
        "mcp__github__create_issue"
    );
    assert_eq!(
        names.allocate("my server", "do.it"),
        "mcp__my-server__do-it"
    );
    assert_eq!(names.allocate("", ""), "mcp__-__-");
}

#[test]
fn very_long_names_are_cut_to_64() {
    let mut names = Names::default();
    let server = "s".repeat(100);
    let tool = "t".repeat(100);
    let first = names.allocate(&server, &tool);
    assert_eq!(first.len(), 64);
    assert!(first.starts_with("mcp__sss"), "{first}");
    assert!(is_valid_name(&first), "{first}");

    // Same long name again: suffixed, still within the limit.
    let second = names.allocate(&server, &tool);
    assert_ne!(second, first);
    assert!(second.len() <= 64, "{second}");
    assert!(second.ends_with("-2"), "{second}");
    assert!(is_valid_name(&second), "{second}");

    let third = names.allocate(&server, &tool);
    assert!(third.ends_with("-3"), "{third}");
    assert!(third.len() <= 64, "{third}");
}

#[test]
fn many_collisions_of_long_names_stay_unique_and_within_limit() {
    let mut names = Names::default();
    let server = "server-".repeat(10);
    let tool = "tool_".repeat(10);
    let mut seen = HashSet::new();
    for i in 1..=15 {
        let name = names.allocate(&server, &tool);
        assert!(is_valid_name(&name), "{name} ({} chars)", name.len());
        if i > 1 {
            assert!(name.ends_with(&format!("-{i}")), "{name}");
        }
        assert!(seen.insert(name.clone()), "duplicate {name}");
    }
}

#[test]
fn names_colliding_after_sanitizing_get_suffixes() {
    let mut names = Names::default();
    assert_eq!(names.allocate("srv", "a.b"), "mcp__srv__a-b");
    assert_eq!(names.allocate("srv", "a/b"), "mcp__srv__a-b-2");
    assert_eq!(names.allocate("srv", "a b"), "mcp__srv__a-b-3");
    // A different server with a colliding sanitized name is unaffected.
    assert_eq!(names.allocate("srv2", "a b"), "mcp__srv2__a-b");
}

#[test]
fn double_underscores_in_server_names_cannot_clash() {
    let mut names = Names::default();
    let a = names.allocate("a__b", "c");
    let b = names.allocate("a", "b__c");
    assert_eq!(a, "mcp__a__b__c");
    assert_eq!(b, "mcp__a__b__c-2");
}

#[test]
fn a_suffixed_name_does_not_clash_with_a_natural_one() {
    let mut names = Names::default();
    let first = names.allocate("s", "x");
    let second = names.allocate("s", "x");
    let third = names.allocate("s", "x-2");
    assert_eq!(first, "mcp__s__x");
    assert_eq!(second, "mcp__s__x-2");
    assert_ne!(third, second);
    assert_eq!(third, "mcp__s__x-2-2");
}

#[test]
fn taken_names_are_avoided() {
    let mut names = Names::with_taken(["mcp__srv__x".to_string(), "mcp__srv__x-2".to_string()]);
    assert_eq!(names.allocate("srv", "x"), "mcp__srv__x-3");
    assert_eq!(names.allocate("srv", "y"), "mcp__srv__y");

    let long_base: String = format!("mcp__{}__{}", "s".repeat(40), "t".repeat(40))
        .chars()
        .take(64)
        .collect();
    let mut names = Names::with_taken([long_base.clone()]);
    let name = names.allocate(&"s".repeat(40), &"t".repeat(40));
    assert_ne!(name, long_base);
    assert!(name.ends_with("-2") && name.len() <= 64, "{name}");
}

// ---- mutating -----------------------------------------------------------------

#[test]
fn mutating_by_name() {
    for name in [
        "createIssue",
        "CreateIssue",
        "delete_file",
        "write-file",
        "git_commit",
        "runTests",
        "UPDATE_ROW",
        "s3Upload",
        "send.message",
        "rm",
    ] {
        assert!(looks_mutating(&tool(name)), "{name} should be mutating");
    }
}

#[test]
fn read_only_by_name() {
    for name in [
        "get-sum",
        "list_files",
        "echo",
        "read_file",
        "search",
        "getSettings",
        // Whole words only: these merely start with a mutating word.
        "setup_info",
        "address_lookup",
        "list_posts",
        "runs",
    ] {
        assert!(!looks_mutating(&tool(name)), "{name} should be read-only");
    }
}

#[test]
fn read_only_hint_wins_over_a_mutating_name() {
    assert!(!looks_mutating(&annotated("delete_file", Some(true), None)));
    assert!(!looks_mutating(&annotated(
        "createIssue",
        Some(true),
        Some(false)
    )));
}

#[test]
fn destructive_hint_forces_mutating() {
    assert!(looks_mutating(&annotated("list_files", None, Some(true))));
    assert!(looks_mutating(&annotated("echo", Some(false), Some(true))));
    // Both set: destructive wins.
    assert!(looks_mutating(&annotated(
        "get-sum",
        Some(true),
        Some(true)
    )));
}

#[test]
fn false_hints_fall_back_to_the_name() {
    assert!(looks_mutating(&annotated("delete_file", None, Some(false))));
    assert!(looks_mutating(&annotated("delete_file", Some(false), None)));
    assert!(!looks_mutating(&annotated(
        "get-sum",
        Some(false),
        Some(false)
    )));
    assert!(!looks_mutating(&annotated("get-sum", None, None)));
}

#[test]
fn word_splitting() {
    assert_eq!(words("createIssue"), vec!["create", "issue"]);
    assert_eq!(words("create_issue"), vec!["create", "issue"]);
    assert_eq!(words("create-issue"), vec!["create", "issue"]);
    assert_eq!(words("s3Upload"), vec!["s3", "upload"]);
    assert_eq!(words("__a..b__"), vec!["a", "b"]);
    assert!(words("").is_empty());
}

// ---- schema -------------------------------------------------------------------

#[test]
fn schema_gets_type_and_properties() {
    assert_eq!(
        schema(&Map::new()),
        json!({"type": "object", "properties": {}})
    );
    let mut input = Map::new();
    input.insert("type".into(), json!("object"));
    input.insert("properties".into(), json!({"a": {"type": "string"}}));
    input.insert("required".into(), json!(["a"]));
    assert_eq!(schema(&input), Value::Object(input.clone()));
}

#[test]
fn oversized_schema_is_replaced() {
    let mut input = Map::new();
    input.insert("type".into(), json!("object"));
    input.insert(
        "properties".into(),
        json!({"a": {"type": "string", "description": "x".repeat(MAX_SCHEMA_CHARS)}}),
    );
    assert_eq!(schema(&input), json!({"type": "object", "properties": {}}));
}

// ---- render -------------------------------------------------------------------

#[test]
fn text_blocks_are_joined() {
    let out = render_wire(json!({
        "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]
    }));
    assert!(out.success);
    assert_eq!(out.content, "a\nb");
    assert_eq!(out.summary, "srv/tool: a");
    assert!(out.images.is_empty());
}

#[test]
fn images_are_kept_and_marked() {
    let out = render_wire(json!({
        "content": [
            {"type": "text", "text": "a"},
            {"type": "image", "data": "QUJD", "mimeType": "image/png"}
        ],
        "isError": false
    }));
    assert!(out.success);
    assert_eq!(out.content, "a\n[image: image/png]");
    assert_eq!(
        out.images,
        vec![ToolImage {
            media_type: "image/png".into(),
            data_base64: "QUJD".into(),
        }]
    );
}

#[test]
fn image_only_result_has_a_summary() {
    let out = render_wire(json!({
        "content": [{"type": "image", "data": "QUJD", "mimeType": "image/jpeg"}]
    }));
    assert_eq!(out.content, "[image: image/jpeg]");
    assert_eq!(out.summary, "srv/tool: [image: image/jpeg]");
    assert_eq!(out.images.len(), 1);
}

#[test]
fn audio_is_marked_but_not_kept() {
    let out = render_wire(json!({
        "content": [{"type": "audio", "data": "QUJD", "mimeType": "audio/wav"}]
    }));
    assert_eq!(out.content, "[audio: audio/wav]");
    assert!(out.images.is_empty());
}

#[test]
fn embedded_text_resource_is_inlined() {
    let out = render_wire(json!({
        "content": [{
            "type": "resource",
            "resource": {"uri": "file:///notes.txt", "mimeType": "text/plain", "text": "hello\nworld"}
        }]
    }));
    assert_eq!(out.content, "[resource file:///notes.txt]\nhello\nworld");
}

#[test]
fn embedded_blob_resource_is_described() {
    let out = render_wire(json!({
        "content": [
            {
                "type": "resource",
                "resource": {"uri": "file:///a.bin", "mimeType": "application/octet-stream", "blob": "AAECAw=="}
            },
            {"type": "resource", "resource": {"uri": "file:///b", "blob": "QQ=="}}
        ]
    }));
    assert_eq!(
        out.content,
        "[resource file:///a.bin (application/octet-stream, 8 bytes base64)]\n[resource file:///b (binary, 4 bytes base64)]"
    );
    assert!(out.images.is_empty());
}

#[test]
fn resource_link_is_described() {
    let out = render_wire(json!({
        "content": [{"type": "resource_link", "uri": "file:///src/main.rs", "name": "main.rs"}]
    }));
    assert_eq!(out.content, "[resource link file:///src/main.rs (main.rs)]");
}

#[test]
fn structured_content_is_appended_when_not_mirrored() {
    let out = render_wire(json!({
        "content": [{"type": "text", "text": "done"}],
        "structuredContent": {"count": 2}
    }));
    assert_eq!(out.content, "done\n{\"count\":2}");
    assert_eq!(out.summary, "srv/tool: done");
}

#[test]
fn structured_content_alone_is_rendered() {
    let out = render_wire(json!({"structuredContent": {"a": 1}}));
    assert!(out.success);
    assert_eq!(out.content, "{\"a\":1}");
}

#[test]
fn structured_content_mirrored_by_a_text_block_is_not_repeated() {
    // Same JSON, different formatting.
    let out = render_wire(json!({
        "content": [{"type": "text", "text": "{\n  \"a\": 1,\n  \"b\": [2, 3]\n}"}],
        "structuredContent": {"a": 1, "b": [2, 3]}
    }));
    assert_eq!(out.content, "{\n  \"a\": 1,\n  \"b\": [2, 3]\n}");

    // A plain string mirrored by its text.
    let out = render_wire(json!({
        "content": [{"type": "text", "text": " hello "}],
        "structuredContent": "hello"
    }));
    assert_eq!(out.content, " hello ");
}

#[test]
fn result_wrapper_is_mirrored_by_its_value() {
    let out = render_wire(json!({
        "content": [{"type": "text", "text": "3"}],
        "structuredContent": {"result": "3"}
    }));
    assert_eq!(out.content, "3");

    let out = render_wire(json!({
        "content": [{"type": "text", "text": "3"}],
        "structuredContent": {"result": 3}
    }));
    assert_eq!(out.content, "3");

    // Mirrored by any one of several text blocks.
    let out = render_wire(json!({
        "content": [{"type": "text", "text": "sum:"}, {"type": "text", "text": "3"}],
        "structuredContent": {"result": 3}
    }));
    assert_eq!(out.content, "sum:\n3");
}

#[test]
fn structured_content_that_differs_is_appended() {
    // Wrapper value differs from the text.
    let out = render_wire(json!({
        "content": [{"type": "text", "text": "3"}],
        "structuredContent": {"result": 4}
    }));
    assert_eq!(out.content, "3\n{\"result\":4}");

    // More than one key is not a wrapper.
    let out = render_wire(json!({
        "content": [{"type": "text", "text": "3"}],
        "structuredContent": {"result": 3, "unit": "m"}
    }));
    assert_eq!(out.content, "3\n{\"result\":3,\"unit\":\"m\"}");
}

#[test]
fn error_result_is_a_failed_output() {
    let out = render_wire(json!({
        "content": [{"type": "text", "text": "boom: file not found\nmore detail"}],
        "isError": true
    }));
    assert!(!out.success);
    assert_eq!(out.content, "boom: file not found\nmore detail");
    assert!(
        out.summary.starts_with("srv/tool failed:"),
        "{}",
        out.summary
    );
    assert_eq!(out.summary, "srv/tool failed: boom: file not found");
}

#[test]
fn empty_error_result_gets_an_explanation() {
    let out = render(
        "srv",
        "lookup",
        &result(json!({"content": [], "isError": true})),
        20_000,
    );
    assert!(!out.success);
    assert_eq!(
        out.content,
        "MCP tool `lookup` reported an error without details."
    );
    assert!(
        out.summary
            .starts_with("srv/lookup failed: MCP tool `lookup`"),
        "{}",
        out.summary
    );

    // Whitespace-only text is no detail either.
    let out = render_wire(json!({"content": [{"type": "text", "text": "  \n "}], "isError": true}));
    assert_eq!(
        out.content,
        "MCP tool `tool` reported an error without details."
    );
}

#[test]
fn empty_success_says_no_output() {
    let out = render_wire(json!({"content": []}));
    assert!(out.success);
    assert_eq!(out.content, "(no output)");
    assert_eq!(out.summary, "srv/tool: (no output)");
}

#[test]
fn summary_uses_the_first_non_blank_line_and_is_cut() {
    let out =
        render_wire(json!({"content": [{"type": "text", "text": "\n\n   first line  \nsecond"}]}));
    assert_eq!(out.summary, "srv/tool: first line");

    let long = "x".repeat(500);
    let out = render_wire(json!({"content": [{"type": "text", "text": long}]}));
    assert_eq!(
        out.summary,
        format!("srv/tool: {}… [+380 chars]", "x".repeat(120))
    );
    assert_eq!(out.content.len(), 500);
}

#[test]
fn long_output_is_truncated_to_the_budget() {
    let text: String = (0..5000).map(|i| format!("line {i}\n")).collect();
    let total = text.chars().count();
    assert!(total > 20_000);
    let out = render(
        "srv",
        "tool",
        &result(json!({"content": [{"type": "text", "text": text}]})),
        2000,
    );
    assert!(out.success);
    let n = out.content.chars().count();
    assert!(n <= 2000, "{n}");
    assert!(n > 1000, "{n}");
    assert!(out.content.starts_with("line 0\n"));
    assert!(out.content.ends_with("line 4999\n"));
    assert!(
        out.content.contains("[MCP result truncated:"),
        "{}",
        out.content
    );
    assert_eq!(out.summary, "srv/tool: line 0");
}

#[test]
fn tiny_budgets_are_raised_to_a_floor() {
    let text = "y".repeat(900);
    let out = render(
        "srv",
        "tool",
        &result(json!({"content": [{"type": "text", "text": text}]})),
        10,
    );
    assert_eq!(out.content, "y".repeat(900));

    let text = "z".repeat(5000);
    let out = render(
        "srv",
        "tool",
        &result(json!({"content": [{"type": "text", "text": text}]})),
        10,
    );
    let n = out.content.chars().count();
    assert!((900..=1000).contains(&n), "{n}");
    assert!(out.content.contains("[MCP result truncated:"));
}

#[test]
fn structured_content_counts_toward_the_budget() {
    let big: Vec<u32> = (0..5000).collect();
    let out = render(
        "srv",
        "tool",
        &result(
            json!({"content": [{"type": "text", "text": "ok"}], "structuredContent": {"items": big}}),
        ),
        1500,
    );
    assert!(out.content.chars().count() <= 1500);
    assert!(out.content.starts_with("ok\n{\"items\":[0,1,2"));
    assert!(out.content.contains("[MCP result truncated:"));
}

#[test]
fn acronym_prefixes_split_into_words() {
    assert_eq!(words("SQLExecute"), ["sql", "execute"]);
    assert_eq!(words("XMLWrite"), ["xml", "write"]);
    assert_eq!(words("getHTTPStatus"), ["get", "http", "status"]);
}
