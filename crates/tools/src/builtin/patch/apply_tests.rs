use super::*;
use crate::builtin::patch::parse::parse;

/// Applies a one-file update patch to `text`.
fn update(text: &str, hunks: &str) -> Result<String, String> {
    let patch = format!("*** Begin Patch\n*** Update File: f.txt\n{hunks}*** End Patch\n");
    let ops = parse(&patch).map_err(|e| e.to_string())?;
    let FileOp::Update { hunks, .. } = &ops[0] else {
        panic!()
    };
    apply_hunks(text, hunks, "f.txt").map(|(t, _)| t)
}

#[test]
fn anchors_place_hunks_in_order() {
    let text = "fn a() {\n    x();\n}\nfn b() {\n    x();\n}\n";
    let got = update(text, "@@ fn b() {\n-    x();\n+    y();\n").unwrap();
    assert_eq!(got, "fn a() {\n    x();\n}\nfn b() {\n    y();\n}\n");
    // Without the anchor the context matches twice: refused.
    let err = update(text, "@@\n-    x();\n+    y();\n").unwrap_err();
    assert!(
        err.starts_with("Hunk 1 of 1 for f.txt (patch line 3) failed:"),
        "{err}"
    );
    assert!(
        err.contains("matches 2 places") && err.ends_with("No changes were written."),
        "{err}"
    );
    assert!(!err.contains("replace_all"), "{err}");
    // Two hunks: the second searches after the first.
    let got = update(
        text,
        "@@\n fn a() {\n-    x();\n+    1();\n@@\n-    x();\n+    2();\n",
    )
    .unwrap();
    assert_eq!(got, "fn a() {\n    1();\n}\nfn b() {\n    2();\n}\n");
    // An anchor matched loosely (surrounding whitespace), but uniquely.
    let got = update(
        text,
        "@@   fn a() {  \n-    x();\n+    z();\n }\n fn b() {\n",
    )
    .unwrap();
    assert!(got.starts_with("fn a() {\n    z();\n"));
    let err = update("x\nx\ny\n", "@@ x\n-y\n+z\n").unwrap_err();
    assert!(
        err.contains("the `@@ x` line matches 2 lines in f.txt"),
        "{err}"
    );
    let err = update("x\n", "@@ nope\n-x\n+z\n").unwrap_err();
    assert!(
        err.contains("the `@@ nope` line was not found in f.txt."),
        "{err}"
    );
}

#[test]
fn pure_insertions_go_after_the_anchor_or_at_the_end() {
    let got = update("a\nb\n", "@@ a\n+inserted\n").unwrap();
    assert_eq!(got, "a\ninserted\nb\n");
    let got = update("a\nb\n", "@@\n+tail\n").unwrap();
    assert_eq!(got, "a\nb\ntail\n");
    let got = update("a\nb", "@@\n+tail\n").unwrap();
    assert_eq!(got, "a\nb\ntail", "no final newline stays so");
    let got = update("a\r\nb\r\n", "@@\n+tail\n").unwrap();
    assert_eq!(got, "a\r\nb\r\ntail\r\n");
}

#[test]
fn end_of_file_hunks_match_the_end() {
    let text = "x\ny\nx\ny\n";
    let got = update(text, "@@\n x\n-y\n+z\n*** End of File\n").unwrap();
    assert_eq!(got, "x\ny\nx\nz\n");
    // A file without a final newline keeps having none.
    let got = update("a\nb", "@@\n a\n-b\n+c\n").unwrap();
    assert_eq!(got, "a\nc");
    let got = update("a\nb", "@@\n a\n-b\n+c\n*** End of File\n").unwrap();
    assert_eq!(got, "a\nc");
}

#[test]
fn crlf_and_bom_are_kept() {
    let got = update(
        "\u{feff}one\r\ntwo\r\nthree\r\n",
        "@@\n one\n-two\n+2\n+extra\n",
    )
    .unwrap();
    assert_eq!(got, "\u{feff}one\r\n2\r\nextra\r\nthree\r\n");
}

#[test]
fn nested_anchors_narrow_in_order() {
    let text = "class A:\n    def f(self):\n        return 1\n\nclass B:\n    def f(self):\n        return 1\n";
    let got = update(
        text,
        "@@ class B:\n@@     def f(self):\n-        return 1\n+        return 2\n",
    )
    .unwrap();
    assert_eq!(
        got,
        "class A:\n    def f(self):\n        return 1\n\nclass B:\n    def f(self):\n        return 2\n"
    );
}

/// The example of Codex's own tool instructions.
#[test]
fn codexs_documented_example() {
    let patch = "*** Begin Patch\n*** Add File: hello.txt\n+Hello world\n*** Update File: src/app.py\n*** Move to: src/main.py\n@@ def greet():\n-print(\"Hi\")\n+print(\"Hello, world!\")\n*** Delete File: obsolete.txt\n*** End Patch";
    let ops = parse(patch).unwrap();
    assert_eq!(ops.len(), 3);
    assert!(matches!(&ops[1], FileOp::Update { move_to: Some(m), .. } if m == "src/main.py"));
}

#[test]
fn a_hunk_may_repeat_its_anchor_line() {
    let text = "def a():\n    return 1\n\ndef b():\n    return 1\n";
    let got = update(
        text,
        "@@ def b():\n def b():\n-    return 1\n+    return 2\n",
    )
    .unwrap();
    assert_eq!(got, "def a():\n    return 1\n\ndef b():\n    return 2\n");
}
