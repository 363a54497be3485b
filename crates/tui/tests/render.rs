//! The view drawn into ratatui's test backend.
#![allow(clippy::unwrap_used)]

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use seekclaw_tui::app::{App, Entry};

fn screen(app: &mut App, width: u16, height: u16) -> Vec<String> {
    let mut t = Terminal::new(TestBackend::new(width, height)).unwrap();
    t.draw(|f| seekclaw_tui::render::draw(f, app)).unwrap();
    let buf = t.backend().buffer().clone();
    (0..height)
        .map(|y| {
            let mut row = String::new();
            let mut x = 0;
            while x < width {
                let symbol = buf[(x, y)].symbol();
                row.push_str(symbol);
                // A wide character's second column is blank in the buffer.
                x += u16::try_from(unicode_width::UnicodeWidthStr::width(symbol).max(1)).unwrap();
            }
            row.trim_end().to_string()
        })
        .collect()
}

fn long_session() -> App {
    let mut app = App::default();
    for i in 0..2500 {
        app.entries
            .push(Entry::User(format!("question {i}"), Vec::new()));
        app.entries.push(Entry::Assistant {
            text: format!("answer **{i}**"),
            thinking: String::new(),
        });
    }
    app
}

#[test]
fn a_long_session_shows_its_end_and_scrolls_to_its_start() {
    let mut app = long_session();
    let rows = screen(&mut app, 60, 20);
    assert!(rows.iter().any(|r| r == "answer 2499"), "{rows:#?}");
    assert!(!rows.iter().any(|r| r.contains("question 0")));

    app.scroll = usize::MAX / 2;
    let rows = screen(&mut app, 60, 20);
    assert_eq!(rows[0], "› question 0");
    // Two rows an entry; 17 rows of talk above the editor and the status bar.
    assert_eq!(app.scroll, 2 * 5000 - 17, "clamped to the top");
}

#[test]
fn wide_characters_wrap_within_the_width() {
    let mut app = App::default();
    app.entries.push(Entry::Assistant {
        text: "你好世界你好世界你好世界 🎉🎉🎉".into(),
        thinking: String::new(),
    });
    let rows = screen(&mut app, 10, 10);
    assert_eq!(&rows[..4], ["你好世界你", "好世界你好", "世界", "🎉🎉🎉"]);
}

#[test]
fn the_editor_wraps_by_display_width_and_the_cursor_follows() {
    use ratatui::backend::Backend;
    let mut app = App::default();
    app.editor.insert_str("abc你好");
    let mut t = Terminal::new(TestBackend::new(6, 10)).unwrap();
    t.draw(|f| seekclaw_tui::render::draw(f, &mut app)).unwrap();
    let rows = screen(&mut app, 6, 10);
    // Rows 7 and 8: the editor under its rule; row 9: the status bar.
    assert_eq!(&rows[7..9], ["› abc", "你好"], "{rows:#?}");
    let cursor = t.backend_mut().get_cursor_position().unwrap();
    assert_eq!((cursor.x, cursor.y), (4, 8), "after 你好");
    app.editor.left();
    t.draw(|f| seekclaw_tui::render::draw(f, &mut app)).unwrap();
    let cursor = t.backend_mut().get_cursor_position().unwrap();
    assert_eq!((cursor.x, cursor.y), (2, 8), "before 好");
}
