//! The pickers, completion popup, folded pastes and diffs, chips and cost,
//! drawn into ratatui's test backend.
#![allow(clippy::unwrap_used)]

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::style::Color;
use seekclaw_protocol::api::{CatalogEntry, SessionHeader};
use seekclaw_tui::app::{App, Entry, ToolRow, ToolState};
use serde_json::{Value, json};

/// Each object of `partial` over `base`, read as `T`s: a daemon result
/// written as the fields a test cares about.
fn read<T: serde::de::DeserializeOwned>(base: Value, partial: Value) -> Vec<T> {
    let Value::Array(rows) = partial else {
        panic!("fixtures are arrays: {partial}")
    };
    rows.into_iter()
        .map(|row| {
            let mut whole = base.clone();
            if let (Value::Object(whole), Value::Object(row)) = (&mut whole, row) {
                whole.extend(row);
            }
            serde_json::from_value(whole).unwrap()
        })
        .collect()
}

/// A `model.catalog` result.
fn models(partial: Value) -> Vec<CatalogEntry> {
    let base = json!({
        "ref": "tk/m1", "active": false, "provider": "tk", "providerEnabled": true,
        "id": "m1", "alias": null, "contextWindow": 128000, "maxOutput": 8192, "tags": [],
        "inputPricePerMTok": 0.0, "outputPricePerMTok": 0.0,
        "capabilities": {"streaming": true, "tools": true, "thinking": false, "vision": false,
            "reasoning": false, "maxReasoningLevel": "none", "mcp": false},
    });
    read(base, partial)
}

/// A `session.list` result.
fn sessions(partial: Value) -> Vec<SessionHeader> {
    let base = json!({
        "id": "s", "archived": false, "reasoningLevel": "medium", "networkEnabled": false,
        "llmRounds": 0, "executionSteps": 0, "inputTokens": 0, "totalInputTokens": 0,
        "cachedInputTokens": 0, "outputTokens": 0, "outputElapsedMs": 0,
        "createdAt": "2026-01-01T00:00:00Z", "updatedAt": "2026-01-01T00:00:00Z",
    });
    read(base, partial)
}

fn draw(app: &mut App, width: u16, height: u16) -> Buffer {
    let mut t = Terminal::new(TestBackend::new(width, height)).unwrap();
    t.draw(|f| seekclaw_tui::render::draw(f, app)).unwrap();
    t.backend().buffer().clone()
}

fn rows(buf: &Buffer) -> Vec<String> {
    let area = buf.area;
    (0..area.height)
        .map(|y| {
            let row: String = (0..area.width).map(|x| buf[(x, y)].symbol()).collect();
            row.trim_end().to_string()
        })
        .collect()
}

fn screen(app: &mut App, width: u16, height: u16) -> Vec<String> {
    rows(&draw(app, width, height))
}

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

fn has(rows: &[String], text: &str) -> bool {
    rows.iter().any(|r| r.contains(text))
}

#[test]
fn the_sessions_picker_lists_filters_and_highlights() {
    let mut app = App::default();
    let list = sessions(json!([
        {"id": "s1", "title": "Fix the parser", "updatedAt": "2026-01-02T10:00:00Z", "archived": false},
        {"id": "s2", "title": "Write docs", "updatedAt": "2026-01-01T10:00:00Z", "archived": true},
    ]));
    app.picker = Some(seekclaw_tui::picker::Picker::sessions(&list, false, true));
    let shown = screen(&mut app, 100, 20);
    assert!(
        has(&shown, "Sessions · this workspace · with archived"),
        "{shown:#?}"
    );
    assert!(
        has(&shown, "› Fix the parser  s1  2026-01-02T10:00"),
        "{shown:#?}"
    );
    assert!(has(&shown, "Write docs  s2  2026-01-01T10:00  (archived)"));
    assert!(has(&shown, "Tab: workspace/global"));
    for c in "docs".chars() {
        app.on_key(key(KeyCode::Char(c)));
    }
    let shown = screen(&mut app, 100, 20);
    assert!(has(&shown, "search: docs"), "{shown:#?}");
    assert!(has(&shown, "› Write docs"), "{shown:#?}");
    assert!(!has(&shown, "Fix the parser"), "{shown:#?}");
}

#[test]
fn the_model_picker_marks_the_active_model() {
    let mut app = App::default();
    let catalog = models(json!([
        {"ref": "a/one", "active": false, "providerEnabled": false, "alias": null},
        {"ref": "b/two", "active": true, "providerEnabled": true, "alias": "t"},
    ]));
    app.picker = Some(seekclaw_tui::picker::Picker::models(&catalog, None));
    let shown = screen(&mut app, 80, 12);
    assert!(has(&shown, "  a/one  provider disabled"), "{shown:#?}");
    assert!(has(&shown, "› b/two  default, alias t"), "{shown:#?}");
}

#[test]
fn at_path_completion_pops_up_and_tab_cycles() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    for f in ["src/main.rs", "src/mod.rs", "notes.md"] {
        std::fs::write(dir.path().join(f), "x").unwrap();
    }
    let mut app = App::default();
    app.root = Some(dir.path().to_path_buf());
    for c in "open @src/m".chars() {
        app.on_key(key(KeyCode::Char(c)));
    }
    app.on_key(key(KeyCode::Tab));
    assert_eq!(app.editor.text(), "open @src/mod.rs", "shortest first");
    let shown = screen(&mut app, 60, 14);
    assert!(has(&shown, "1/2"), "{shown:#?}");
    assert!(has(&shown, " src/main.rs"), "{shown:#?}");
    app.on_key(key(KeyCode::Tab));
    assert_eq!(app.editor.text(), "open @src/main.rs");
    app.on_key(key(KeyCode::Esc));
    assert_eq!(
        app.editor.text(),
        "open @src/m",
        "Esc puts back what was typed"
    );
    app.on_key(key(KeyCode::Tab));
    app.on_key(key(KeyCode::Down));
    app.on_key(key(KeyCode::Enter));
    assert_eq!(
        app.editor.text(),
        "open @src/main.rs",
        "Enter keeps the choice"
    );
    assert!(app.completion.is_none());
    assert!(!has(&screen(&mut app, 60, 14), "1/2"));
    // One match completes at once; without an `@` word Tab indents.
    app.editor.clear();
    for c in "@not".chars() {
        app.on_key(key(KeyCode::Char(c)));
    }
    app.on_key(key(KeyCode::Tab));
    assert_eq!(app.editor.text(), "@notes.md");
    assert!(app.completion.is_none());
    app.editor.clear();
    app.on_key(key(KeyCode::Tab));
    assert_eq!(app.editor.text(), "    ");
}

#[test]
fn an_image_named_in_the_prompt_shows_as_a_chip() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("shot.png"), vec![0u8; 3000]).unwrap();
    let mut app = App::default();
    app.root = Some(dir.path().to_path_buf());
    for c in "what is in @shot.png".chars() {
        app.on_key(key(KeyCode::Char(c)));
    }
    let shown = screen(&mut app, 100, 10);
    assert!(shown[9].contains("[image: shot.png 3 KB]"), "{shown:#?}");
    app.entries.push(Entry::User(
        "look".into(),
        vec!["[image: a.png 12 KB]".into()],
    ));
    let shown = screen(&mut app, 100, 10);
    let at = shown.iter().position(|r| r == "› look").unwrap();
    assert_eq!(shown[at + 1], "  [image: a.png 12 KB]", "{shown:#?}");
}

#[test]
fn a_long_paste_shows_folded_in_the_editor() {
    let mut app = App::default();
    let text: String = (1..=42).map(|i| format!("row {i}\n")).collect();
    app.paste(&text);
    app.on_key(key(KeyCode::Char('?')));
    let shown = screen(&mut app, 60, 10);
    assert!(has(&shown, "› [pasted 42 lines]?"), "{shown:#?}");
    assert!(!has(&shown, "row 1"));
    assert_eq!(app.editor.text(), format!("{text}?"));
}

#[test]
fn diffs_fold_and_ctrl_o_expands_them() {
    let mut app = App::default();
    let diff: String = (1..=20).map(|i| format!("+line {i}\n")).collect();
    app.entries.push(Entry::Tool(ToolRow {
        call_id: "c".into(),
        name: "write_file".into(),
        summary: "a.txt".into(),
        state: ToolState::Done,
        duration_ms: None,
        diff: Some(diff),
    }));
    let shown = screen(&mut app, 60, 30);
    assert!(has(&shown, "+line 6"), "{shown:#?}");
    assert!(!has(&shown, "+line 7"));
    assert!(
        has(&shown, "… 14 more lines (Ctrl-O expands)"),
        "{shown:#?}"
    );
    app.on_key(KeyEvent::new(KeyCode::Char('o'), KeyModifiers::CONTROL));
    let shown = screen(&mut app, 60, 30);
    assert!(has(&shown, "+line 20"), "{shown:#?}");
    assert!(!has(&shown, "more lines"));
}

#[test]
fn code_blocks_are_highlighted_in_answers() {
    let mut app = App::default();
    app.entries.push(Entry::Assistant {
        text: "```rust\nfn main() { let x = 42; }\n```\n".into(),
        thinking: String::new(),
    });
    let buf = draw(&mut app, 60, 10);
    let y = rows(&buf)
        .iter()
        .position(|r| r.contains("fn main"))
        .unwrap();
    let colours: std::collections::HashSet<Color> = (0..60u16)
        .map(|x| buf[(x, u16::try_from(y).unwrap())].fg)
        .filter(|c| matches!(c, Color::Rgb(..)))
        .collect();
    assert!(colours.len() > 1, "{colours:?}");
}

#[test]
fn the_status_bar_shows_the_cost_once_prices_are_known() {
    let mut app = App::default();
    app.input_tokens = 1_000_000;
    app.model_tokens.insert("p/m".into(), (1_000_000, 0));
    let shown = screen(&mut app, 100, 6);
    assert!(!shown[5].contains('$'), "{shown:#?}");
    app.set_catalog(&models(json!([
        {"ref": "p/m", "active": true, "inputPricePerMTok": 0.25, "outputPricePerMTok": 1.0}
    ])));
    let shown = screen(&mut app, 100, 6);
    assert!(shown[5].contains("↑1000000 ↓0 $0.2500"), "{shown:#?}");
}
