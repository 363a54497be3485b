use super::*;

fn printed(p: Printer<Vec<u8>>) -> String {
    String::from_utf8(p.into_inner()).unwrap()
}

/// `s` as a terminal shows it: without its escape sequences, a cleared
/// line (`ESC [ 2 K`) gone.
fn plain(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            for c in chars.by_ref() {
                if c == 'K' {
                    out.truncate(out.rfind('\n').map_or(0, |i| i + 1));
                }
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[test]
fn markdown_becomes_sgr_text() {
    let mut out = Vec::new();
    let lines = crate::markdown::render("Some **bold** and `code`.");
    write_lines(&mut out, lines, 80).unwrap();
    // Bold is SGR 1 (reset by 0), inline code bright yellow (colour 11,
    // reset to the default foreground by 39).
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "Some \x1b[1mbold\x1b[0m and \x1b[38;5;11mcode\x1b[39m.\n"
    );
}

#[test]
fn lines_wrap_to_the_width_keeping_styles() {
    let mut out = Vec::new();
    let line = Line::from(vec![
        Span::raw("one two "),
        Span::styled("three four", Style::new().fg(Color::Red)),
    ]);
    write_lines(&mut out, vec![line], 9).unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "one two \n\x1b[38;5;1mthree \x1b[39m\n\x1b[38;5;1mfour\x1b[39m\n"
    );
}

#[test]
fn complete_blocks_end_at_blank_lines_outside_fences() {
    assert_eq!(complete_blocks("one para"), None);
    assert_eq!(complete_blocks("one\n\ntwo"), Some(5));
    assert_eq!(complete_blocks("```\na\n\nb\n"), None);
    assert_eq!(complete_blocks("```\na\n\nb\n```\n\nc"), Some(14));
    // A blank line still being typed ("  " with no newline) decides nothing.
    assert_eq!(complete_blocks("one\n  "), None);
}

#[test]
fn a_turn_prints_blocks_as_they_complete_tool_rows_and_a_closing_line() {
    let mut p = Printer::new(Vec::new(), 60);
    p.step(1).unwrap();
    p.delta("Let me **lo").unwrap();
    p.delta("ok**.\n").unwrap();
    assert!(p.out.is_empty(), "nothing before the block ends");
    p.delta("\nNext").unwrap();
    assert_eq!(plain(&String::from_utf8_lossy(&p.out)), "Let me look.\n\n");
    p.tool_start("c1", "write_file", "notes.txt").unwrap();
    assert!(plain(&String::from_utf8_lossy(&p.out)).ends_with("Next\n\n⋯ write_file notes.txt"));
    p.file_diff("c1", "--- a\n+++ b\n@@ -0,0 +1 @@\n+hello");
    p.tool_done("c1", "write_file", true, 1234.0, "").unwrap();
    p.usage(1200, 30, Some(0.0123));
    p.step(2).unwrap();
    p.delta("Done.").unwrap();
    p.usage(10, 5, Some(0.0001));
    p.finish("Done.").unwrap();
    let text = plain(&printed(p));
    let rows: Vec<&str> = text.lines().collect();
    assert!(rows.contains(&"✓ write_file notes.txt (1.2 s)"), "{text}");
    assert!(rows.contains(&"  +hello"), "{text}");
    assert!(rows.contains(&"Done."), "{text}");
    let last = rows.last().unwrap();
    assert!(
        last.starts_with("tokens ↑1210 ↓35 · $0.0124 · 2 steps · "),
        "{last}"
    );
    assert!(last.ends_with(" s"), "{last}");
}

#[test]
fn a_step_without_prices_makes_the_cost_unknown_not_free() {
    let mut p = Printer::new(Vec::new(), 100);
    p.delta("Hi.").unwrap();
    p.usage(10, 5, Some(0.0001));
    p.usage(10, 5, None);
    p.finish("Hi.").unwrap();
    let text = plain(&printed(p));
    let last = text.lines().last().unwrap();
    assert!(
        last.starts_with("tokens ↑20 ↓10 · cost unknown · 1 step · "),
        "{last}"
    );
}

#[test]
fn the_final_answer_prints_when_nothing_streamed_and_failures_show() {
    let mut p = Printer::new(Vec::new(), 40);
    p.tool_start("c1", "bash", "false").unwrap();
    p.tool_done("c1", "bash", false, 12.0, "exit 1").unwrap();
    p.finish("*answer*").unwrap();
    let out = printed(p);
    assert!(
        out.contains("\x1b[38;5;1m✗ \x1b[39m\x1b[1mbash\x1b[0m"),
        "{out:?}"
    );
    let text = plain(&out);
    assert!(text.contains("✗ bash exit 1 (12 ms)\nanswer\n"), "{text}");
}

#[test]
fn live_text_streams_raw_and_is_redrawn_rendered_when_its_block_ends() {
    let mut p = Printer::new(Vec::new(), 60).live(24);
    p.step(1).unwrap();
    p.delta("Let me **lo").unwrap();
    assert!(
        String::from_utf8_lossy(&p.out).ends_with("Let me **lo"),
        "shown as it arrives"
    );
    p.delta("ok**.\n\nNext").unwrap();
    let out = String::from_utf8_lossy(&p.out).into_owned();
    // The raw text is erased (column 0, clear below) and rendered; the next
    // block streams raw after it.
    let erased = out.rfind("\x1b[1G\x1b[J").unwrap();
    assert_eq!(plain(&out[erased..]), "Let me look.\n\nNext");
    p.finish("").unwrap();
    // The turn's end settles the last block the same way.
    let out = printed(p);
    let erased = out.rfind("\x1b[1G\x1b[J").unwrap();
    assert!(
        plain(&out[erased..]).starts_with("Next\n\ntokens"),
        "{out:?}"
    );
}

#[test]
fn a_block_taller_than_the_screen_stays_as_streamed_and_is_not_repeated() {
    let mut p = Printer::new(Vec::new(), 60).live(4);
    p.delta("a **1**\nb\nc\nd\ne").unwrap();
    p.delta("\n\nafter").unwrap();
    p.finish("").unwrap();
    let text = plain(&printed(p));
    assert_eq!(text.matches("e\n").count(), 1, "{text:?}");
    assert!(text.starts_with("a **1**\nb\nc\nd\ne\n\n"), "{text:?}");
    assert!(text.contains("after"), "{text:?}");
}

#[test]
fn a_patch_of_two_files_prints_both_diffs() {
    let mut p = Printer::new(Vec::new(), 80);
    p.tool_start("p1", "apply_patch", "a.py").unwrap();
    p.file_diff("p1", "--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-x\n+y\n");
    p.file_diff("p1", "--- a/b.md\n+++ b/b.md\n@@ -0,0 +1 @@\n+zed");
    p.tool_done("p1", "apply_patch", true, 3.0, "").unwrap();
    let text = plain(&printed(p));
    assert!(text.contains("  +y") && text.contains("  +zed"), "{text}");
}
