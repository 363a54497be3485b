use super::*;

/// The edited text and the normalization reported, or the refusal.
fn edit(text: &str, old: &str, new: &str) -> Result<(String, Option<&'static str>), String> {
    replace(text, old, new, false, "f.rs")
        .map(|r| (r.text, r.how.map(Normalization::describe)))
        .map_err(|r| r.0)
}

fn ok(text: &str, old: &str, new: &str) -> (String, Option<&'static str>) {
    match edit(text, old, new) {
        Ok(done) => done,
        Err(refusal) => panic!("refused: {refusal}"),
    }
}

fn refused(text: &str, old: &str, new: &str) -> String {
    match edit(text, old, new) {
        Ok((after, how)) => panic!("applied ({how:?}): {after:?}"),
        Err(refusal) => refusal,
    }
}

#[test]
fn exact_matches_win_and_new_text_takes_the_file_line_ending() {
    assert_eq!(ok("a\nb\n", "b", "c"), ("a\nc\n".into(), None));
    assert_eq!(
        ok("one\r\ntwo\r\n", "one", "one\nextra"),
        ("one\r\nextra\r\ntwo\r\n".into(), None)
    );
    assert_eq!(
        ok("one\r\ntwo\r\nthree\r\n", "one\ntwo", "one\n2\nextra"),
        (
            "one\r\n2\r\nextra\r\nthree\r\n".into(),
            Some("line endings")
        )
    );
}

#[test]
fn trailing_whitespace_keeps_the_file_bytes_on_shared_lines() {
    let file = "fn a() {  \n    let x = 1;\t\n    x\n}\n";
    let (after, how) = ok(
        file,
        "fn a() {\n    let x = 1;\n    x",
        "fn a() {\n    let x = 1;\n    x + 1",
    );
    assert_eq!(after, "fn a() {  \n    let x = 1;\t\n    x + 1\n}\n");
    assert_eq!(how, Some("trailing whitespace"));
}

#[test]
fn a_shifted_block_is_reindented() {
    let file = "impl A {\n    fn f() {\n        one();\n    }\n}\n";
    let (after, how) = ok(
        file,
        "fn f() {\n    one();\n}",
        "fn f() {\n    one();\n    two();\n}",
    );
    assert_eq!(
        after,
        "impl A {\n    fn f() {\n        one();\n        two();\n    }\n}\n"
    );
    assert_eq!(how, Some("indentation"));
}

#[test]
fn tabs_sent_as_spaces_are_written_as_tabs() {
    let file = "func f() {\n\tif x {\n\t\ty()\n\t}\n}\n";
    let (after, how) = ok(
        file,
        "    if x {\n        y()\n    }",
        "    if x {\n        y()\n        z()\n    }",
    );
    assert_eq!(after, "func f() {\n\tif x {\n\t\ty()\n\t\tz()\n\t}\n}\n");
    assert_eq!(how, Some("tabs and spaces"));
}

#[test]
fn typographic_characters_fold_both_ways() {
    let file = "print(\"it's done\")  # ok - fine\n";
    let (after, how) = ok(file, "print(“it’s done”)", "print(“it’s finished”)");
    assert_eq!(after, "print(\"it's finished\")  # ok - fine\n");
    assert_eq!(how, Some("typographic characters"));
}

#[test]
fn unicode_forms_read_prefixes_and_escapes() {
    let file = "name = \"caf\u{e9}\"\nx = 1\n";
    let (after, how) = ok(file, "name = \"cafe\u{301}\"", "name = \"cafe\u{301}s\"");
    assert_eq!(after, "name = \"caf\u{e9}s\"\nx = 1\n");
    assert_eq!(how, Some("unicode normalization"));

    let file = "fn main() {\n    go();\n}\n";
    let (after, how) = ok(
        file,
        "2\t    go();\n3\t}",
        "2\t    go();\n3\t    stop();\n4\t}",
    );
    assert_eq!(after, "fn main() {\n    go();\n    stop();\n}\n");
    assert_eq!(how, Some("read_file line numbers"));

    let file = "let s = \"a\";\nlet t = 2;\n";
    let (after, how) = ok(
        file,
        r#"let s = \"a\";\nlet t = 2;"#,
        r#"let s = \"b\";\nlet t = 2;"#,
    );
    assert_eq!(after, "let s = \"b\";\nlet t = 2;\n");
    assert_eq!(how, Some("escapes"));
}

#[test]
fn blank_ends_and_a_missing_final_newline() {
    let file = "a\nb\nc";
    let (after, how) = ok(file, "\nb\nc\n", "\nb\nC\n");
    assert_eq!(after, "a\nb\nC");
    assert!(how.is_some());
    let (after, how) = ok("x\ny", "x\ny\n", "x\nz\n");
    assert_eq!(after, "x\nz");
    assert_eq!(how, Some("final newline"));
}

#[test]
fn lookalikes_elisions_and_stale_lines_are_refused() {
    let file = "if a {\n    run();  \n}\nif b {\n    run(); \n}\n";
    let refusal = refused(file, "    run();\n}", "    walk();\n}");
    assert!(
        refusal.contains(
            "matches 2 places in f.rs after normalizing trailing whitespace (lines 2, 5)"
        ),
        "{refusal}"
    );

    let file = "fn a() {\n    one();\n    two();\n}\n";
    let refusal = refused(
        file,
        "fn a() {\n    one();\n    two();\n}",
        "fn a() {\n    // ... existing code ...\n    three();\n}",
    );
    assert!(refusal.contains("omitted code"), "{refusal}");
    let refusal = refused(file, "fn a() {\n    ...\n}", "fn a() {}");
    assert!(refusal.contains("omitted text"), "{refusal}");
    let refusal = refused(file, "fn a() {\n    one();\n    TWO();\n}", "fn a() {}\n");
    assert!(
        refusal.contains("lines 1–4 (3 of 4 lines agree)")
            && refusal.contains(
                "line 3, column 5: the file has \"two();\" where old_string has \"TWO();\""
            ),
        "{refusal}"
    );
    refused(file, "fn a() {\n}", "fn b() {\n}");
}

#[test]
fn byte_order_marks_and_conventions_survive() {
    let file = "\u{feff}first\r\nsecond\r\n";
    let (after, _) = ok(file, "first\nsecond\n", "first\nsecond\nthird\n");
    assert_eq!(after, "\u{feff}first\r\nsecond\r\nthird\r\n");
}

#[test]
fn find_starts_where_asked() {
    let text = "x\ny\nx\ny\n";
    let found = find(text, "x\ny\n", "z\n", 2, "f").unwrap();
    assert_eq!(found.start, 4);
    assert!(find(text, "x\ny\n", "z\n", 0, "f").is_err());
}

#[test]
fn a_big_file_with_a_miss_stays_fast_and_clear() {
    let mut file = String::new();
    for i in 0..10_000 {
        file.push_str(&format!("    let value_{i} = compute({i}); // “note”\n"));
    }
    let refusal = refused(
        &file,
        "    let value_5000 = compute(5001); // “note”\n    let value_5001 = compute(5001); // “note”",
        "x",
    );
    assert!(
        refusal.contains("lines 5001–5002 (1 of 2 lines agree)")
            && refusal.contains("line 5001, column 33"),
        "{refusal}"
    );
}

/// The corpus the e2e suite runs through the binary, here straight through
/// the matcher (fast feedback; the e2e run is the proof).
#[test]
fn the_corpus_through_the_matcher() {
    use seekclaw_testkit::edit_corpus::{self, Case};
    fn apply(case: &Case) -> Result<String, String> {
        let (path, edits) = case.edits.as_ref().ok_or("no edit form")?;
        let mut text = case.before[path].clone();
        for e in edits {
            let s = |k: &str| e[k].as_str().unwrap_or_default().to_string();
            let all = e["replace_all"].as_bool().unwrap_or(false);
            if s("old_string") == s("new_string") {
                return Err("identical (edit_file refuses it)".into());
            }
            let done =
                replace(&text, &s("old_string"), &s("new_string"), all, path).map_err(|r| r.0)?;
            text = done.text;
        }
        Ok(text)
    }
    let mut wrong = Vec::new();
    let mut checked = 0;
    for case in edit_corpus::load().unwrap() {
        let Some((path, _)) = &case.edits else {
            continue;
        };
        checked += 1;
        let got = apply(&case);
        let want = case
            .after
            .as_ref()
            .map(|a| a[path].clone().unwrap_or_default());
        match (&got, &want) {
            (Ok(g), Some(w)) if g == w => {}
            (Err(_), None) => {}
            _ => wrong.push(format!(
                "{} ({}): got {got:?}\n  want {want:?}",
                case.name, case.class
            )),
        }
    }
    eprintln!("corpus cases with an edit form: {checked}");
    assert!(
        wrong.is_empty(),
        "{} wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// Found by a reviewer trying to break it: each once wrote bytes the model
/// did not mean.
#[test]
fn near_misses_that_once_landed_wrong_bytes() {
    // An indented first line is a whole line, never the end of a longer one.
    refused(
        "a = foo\n  bar\n",
        "    foo\n    bar\n",
        "    FOO\n    bar\n",
    );
    refused(
        "def f():\n    return g(x,\n             y)\n",
        "        g(x,\n            y)\n",
        "        h(x,\n            y)\n",
    );
    // A TSV row that looks like a read prefix is not stripped from new lines.
    refused(
        "id\tname\n1\tfoo\n2\tbar\n",
        "2\t1\tfoo\n3\t2\tbar\n",
        "2\t1\tfoo\n3\t2\tbar\n3\tbaz\n",
    );
    assert_eq!(
        ok(
            "id\tname\n1\tfoo\n2\tbar\n",
            "2\t1\tfoo\n3\t2\tbar\n",
            "2\t1\tfoo\n3\t2\tbar\n4\t3\tbaz\n"
        )
        .0,
        "id\tname\n1\tfoo\n2\tbar\n3\tbaz\n"
    );
    // replace_all never splits a CRLF.
    let all = replace("a\r\nb\r\n", "\nb", "\nB", true, "f").unwrap();
    assert_eq!(all.text, "a\r\nB\r\n");
    // Curly quotes in the file's own comment do not let the model's curly
    // quotes into code.
    let (after, _) = ok(
        "# “Quoted” comment\nprint('hi')\n",
        "# “Quoted” comment\nprint(‘hi’)\n",
        "# “Quoted” comment\nprint(‘bye’)\n",
    );
    assert_eq!(after, "# “Quoted” comment\nprint('bye')\n");
    // A change the fold hides is written when the model copied the line exactly.
    let (after, _) = ok("a = 1  \nb = 2   \n", "a = 1\nb = 2   \n", "a = 1\nb = 2\n");
    assert_eq!(after, "a = 1  \nb = 2\n");
    // replace_all does not suggest setting replace_all.
    let refusal = replace("x = 1 \nx = 1  \n", "x = 1\n", "x = 2\n", true, "f").unwrap_err();
    assert!(
        refusal
            .0
            .contains("replace_all replaces exact occurrences only")
            && !refusal.0.contains("or set replace_all"),
        "{refusal}"
    );
}

#[test]
fn a_patch_hunk_matches_whole_lines_only() {
    let text = "subtotal = 0\ncount = 1\n";
    assert!(find_whole_lines(text, "total = 0\n", "total = 1\n", 0, "a.py").is_err());
    let text = "subtotal = 0\ntotal = 0\n";
    let found = find_whole_lines(text, "total = 0\n", "total = 1\n", 0, "a.py").unwrap();
    assert_eq!(splice(text, &found), "subtotal = 0\ntotal = 1\n");
    let text = "x\nlast";
    let found = find_whole_lines(text, "last", "LAST", 0, "a.py").unwrap();
    assert_eq!(splice(text, &found), "x\nLAST");
    assert!(find_whole_lines("x\nlastly", "last", "LAST", 0, "a.py").is_err());
}

#[test]
fn a_last_line_without_its_line_break_is_one_more_candidate() {
    let refusal = refused("}\nfn a() {\n}", "}\n", "}\n// end\n");
    assert!(refusal.contains("matches 2 places"), "{refusal}");
    let text = "struct A {\n}\n\nimpl A {\n    fn a() {}\n}";
    assert!(find_whole_lines(text, "}\n", "}\n\nimpl B {}\n", 0, "a.rs").is_err());
}
