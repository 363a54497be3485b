//! Property tests: the matcher corrupts nothing. A random file of lookalike
//! code lines, a block of it sent back by a "model" with one kind of slip
//! (dropped or added trailing whitespace, a shifted block, tabs as spaces,
//! typographic quotes, LF against CRLF, read prefixes) and one line changed:
//! the edit either lands exactly the intended file or is refused. Never a
//! third outcome. `PROPTEST_CASES` raises the case count.

use proptest::prelude::*;

use super::*;

/// Lines that look alike on purpose (the trap for a sloppy matcher).
const VOCABULARY: [&str; 8] = [
    "if ready {",
    "    run(\"a\");",
    "    run('b');  ",
    "}",
    "",
    "let x = 1;\t",
    "    return x;",
    "call(\"it's\");",
];

#[derive(Debug, Clone, Copy)]
enum Slip {
    None,
    DropTrailing,
    AddTrailing,
    Shift,
    Tabs,
    Typographic,
    Prefix,
}

fn slip() -> impl Strategy<Value = Slip> {
    prop_oneof![
        Just(Slip::None),
        Just(Slip::DropTrailing),
        Just(Slip::AddTrailing),
        Just(Slip::Shift),
        Just(Slip::Tabs),
        Just(Slip::Typographic),
        Just(Slip::Prefix),
    ]
}

/// A file line as the model writes it after `slip` (`number` for prefixes).
fn slipped(line: &str, slip: Slip, number: usize) -> String {
    match slip {
        Slip::None => line.to_string(),
        Slip::DropTrailing => line.trim_end().to_string(),
        Slip::AddTrailing => format!("{line} "),
        Slip::Shift if line.is_empty() => String::new(),
        Slip::Shift => format!("  {line}"),
        Slip::Tabs => {
            let body = line.trim_start_matches(' ');
            let spaces = line.len() - body.len();
            format!(
                "{}{}{body}",
                "\t".repeat(spaces / 4),
                " ".repeat(spaces % 4)
            )
        }
        Slip::Typographic => line.replace('"', "\u{201C}").replace('\'', "\u{2019}"),
        Slip::Prefix => format!("{number}\t{line}"),
    }
}

proptest! {
    #[test]
    fn a_slipped_edit_lands_exactly_or_not_at_all(
        picks in prop::collection::vec(0..VOCABULARY.len(), 3..30),
        start in 0usize..30,
        len in 1usize..5,
        changed in 0usize..5,
        slip in slip(),
        crlf in any::<bool>(),
    ) {
        let lines: Vec<&str> = picks.iter().map(|&i| VOCABULARY[i]).collect();
        let start = start % lines.len();
        let len = len.min(lines.len() - start);
        let changed = start + changed % len;
        let eol = if crlf { "\r\n" } else { "\n" };
        let file = lines.iter().map(|l| format!("{l}{eol}")).collect::<String>();
        // The intended new line, in the file's own indentation.
        let indent = &lines[changed][..lines[changed].len() - lines[changed].trim_start().len()];
        let fresh = format!("{indent}changed(\"x\");");
        let whole = |line: String| {
            let mut all: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
            all[changed] = line;
            all.iter().map(|l| format!("{l}{eol}")).collect::<String>()
        };
        let intended = whole(fresh.clone());
        // An old text that ends where the file line's trailing whitespace
        // begins replaces only what it names: the whitespace stays.
        let trailing = &lines[changed][lines[changed].trim_end().len()..];
        let also = whole(format!("{fresh}{trailing}"));
        let old: Vec<String> = (start..start + len)
            .map(|i| slipped(lines[i], slip, i + 1))
            .collect();
        // Whitespace alone is matched as given (exactly, like any text).
        if old.iter().all(|l| l.trim().is_empty()) {
            return Ok(());
        }
        let mut new = old.clone();
        new[changed - start] = slipped(&fresh, slip, changed + 1);
        // A slip that changed none of the old lines leaves nothing to learn
        // from: the new line is taken as the model wrote it.
        let unslipped = (start..start + len).all(|i| old[i - start] == lines[i]);
        let verbatim = whole(new[changed - start].clone());
        let result = replace(&file, &old.join("\n"), &new.join("\n"), false, "f.rs");
        if let Ok(done) = result {
            prop_assert!(
                done.text == intended || done.text == also || (unslipped && done.text == verbatim),
                "slip {:?}, how {:?}: {:?} intended {:?}", slip, done.how, done.text, intended
            );
        }
    }
}
