//! Instruction files through the real daemon and `seekclaw run`: the user's
//! `AGENTS.md`, then one file per folder from the workspace root down to the
//! folder the client named (override, `AGENTS.md`, `CLAUDE.md`, `GEMINI.md`),
//! `@path` imports, the byte budget, and which files `session.get` lists —
//! all checked in the request the testkit provider receives.

use std::path::Path;
use std::process::Command;

use seekclaw_testkit::{ProviderServer, Reply, StartOptions};
use serde_json::{Value, json};

use crate::support::turns::{chat, events, setup};
use crate::support::{bin, project_dir};

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// The system prompt of request `n` the provider received.
fn system_of(server: &ProviderServer, n: usize) -> String {
    server.requests()[n].body["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_string()
}

/// Where each marker first appears in `text` (panics when one is missing).
fn positions(text: &str, markers: &[&str]) -> Vec<usize> {
    markers
        .iter()
        .map(|m| {
            text.find(m)
                .unwrap_or_else(|| panic!("{m} missing: {text}"))
        })
        .collect()
}

/// A nested tree: the user's file, the root, an override beside an
/// AGENTS.md, a CLAUDE.md-only folder, a GEMINI.md-only folder, imports
/// with a cycle and one escaping the workspace.
fn nested_tree(root: &Path, home: &Path) {
    write(&home.join("AGENTS.md"), "USER-FILE");
    write(
        &root.join("AGENTS.md"),
        "ROOT-FILE\nSee @docs/style.md for style.\nAnd @../secret.md too.\n",
    );
    write(&root.join("docs/style.md"), "STYLE-IMPORT, then @loop.md");
    write(&root.join("docs/loop.md"), "LOOP-IMPORT back to @style.md");
    write(&root.parent().unwrap().join("secret.md"), "SECRET-OUTSIDE");
    write(&root.join("a/AGENTS.md"), "A-PLAIN-HIDDEN");
    write(&root.join("a/AGENTS.override.md"), "A-OVERRIDE");
    write(&root.join("a/b/CLAUDE.md"), "B-CLAUDE");
    write(&root.join("a/b/c/GEMINI.md"), "C-GEMINI");
    write(&root.join("a/b/c/d/AGENTS.md"), "BELOW-START-HIDDEN");
    write(&root.join("other/AGENTS.md"), "SIBLING-HIDDEN");
    std::fs::create_dir_all(root.join("a/b/c/d")).unwrap();
}

#[test]
fn nested_files_from_the_user_down_to_the_named_folder() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let ws = project_dir(tmp.path(), "proj");
    let d = setup(&server, StartOptions::default());
    nested_tree(&ws, &d.home);
    let mut c = d.connect().unwrap();
    // A client started in a/b/c (the terminal UI sends its working folder).
    let start = ws.join("a/b/c");
    // Two steps: the prompt is the same for both (the provider's prefix cache).
    server.enqueue(Reply::new().tool_call("c1", "read_file", r#"{"path":"Cargo.toml"}"#));
    server.enqueue(Reply::plain("ok"));
    let all = chat(
        &mut c,
        json!({"message": "go", "workspace": start.display().to_string()}),
    );
    assert_eq!(all.last().unwrap()["event"], "done", "{all:?}");
    let system = system_of(&server, 0);
    assert_eq!(
        system_of(&server, 1),
        system,
        "the prompt changed between steps"
    );
    let order = positions(
        &system,
        &[
            "USER-FILE",
            "ROOT-FILE",
            "STYLE-IMPORT",
            "LOOP-IMPORT",
            "A-OVERRIDE",
            "B-CLAUDE",
            "C-GEMINI",
        ],
    );
    assert!(
        order.windows(2).all(|w| w[0] < w[1]),
        "out of order: {order:?}\n{system}"
    );
    for hidden in [
        "A-PLAIN-HIDDEN",
        "BELOW-START-HIDDEN",
        "SIBLING-HIDDEN",
        "SECRET-OUTSIDE",
    ] {
        assert!(!system.contains(hidden), "{hidden} in the prompt: {system}");
    }
    assert_eq!(system.matches("STYLE-IMPORT").count(), 1, "{system}");
    assert!(
        system.contains("(@style.md not imported: it imports itself (a cycle))"),
        "{system}"
    );
    assert!(
        system
            .contains("(@../secret.md not imported: outside the workspace and the SeekClaw home)"),
        "{system}"
    );
    for label in [
        "## ~seekclaw/AGENTS.md",
        "## AGENTS.md",
        "## a/AGENTS.override.md",
        "## a/b/CLAUDE.md",
        "## a/b/c/GEMINI.md",
    ] {
        assert!(system.contains(label), "{label} missing: {system}");
    }

    // session.get lists them, most general first, with the imports.
    let sid = all.last().unwrap()["sessionId"]
        .as_str()
        .unwrap()
        .to_string();
    let got = c
        .ok_json(
            "session.get",
            json!({"id": sid, "workspace": ws.display().to_string()}),
        )
        .unwrap();
    let files = got["instructionFiles"]
        .as_array()
        .unwrap_or_else(|| panic!("{got}"));
    let labels: Vec<&str> = files.iter().map(|f| f["label"].as_str().unwrap()).collect();
    assert_eq!(
        labels,
        [
            "~seekclaw/AGENTS.md",
            "AGENTS.md",
            "a/AGENTS.override.md",
            "a/b/CLAUDE.md",
            "a/b/c/GEMINI.md"
        ]
    );
    assert_eq!(files[0]["user"], true);
    assert_eq!(
        files[1]["imports"].as_array().unwrap().len(),
        2,
        "{}",
        files[1]
    );
    assert!(files.iter().all(|f| f["truncated"] == false));

    // Named at the root (the desktop's way): the root's files only.
    server.enqueue(Reply::plain("ok"));
    let all = chat(
        &mut c,
        json!({"message": "again", "workspace": ws.display().to_string()}),
    );
    assert_eq!(all.last().unwrap()["event"], "done", "{all:?}");
    let root_only = system_of(&server, 2);
    assert!(root_only.contains("ROOT-FILE") && root_only.contains("USER-FILE"));
    assert!(
        !root_only.contains("A-OVERRIDE") && !root_only.contains("C-GEMINI"),
        "{root_only}"
    );
}

#[test]
fn the_budget_cuts_the_farthest_files_and_says_so_once() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let ws = project_dir(tmp.path(), "proj");
    let d = setup(
        &server,
        StartOptions {
            config: Some(json!({"instructions": {"maxBytes": 300}})),
            ..StartOptions::default()
        },
    );
    write(
        &d.home.join("AGENTS.md"),
        &format!("USER-HEAD {}\n", "u".repeat(200)),
    );
    write(
        &ws.join("AGENTS.md"),
        &format!(
            "ROOT-HEAD {}\nROOT-TAIL {}\n",
            "r".repeat(100),
            "s".repeat(100)
        ),
    );
    write(
        &ws.join("src/AGENTS.md"),
        &format!("NEAR-FILE {}\n", "n".repeat(150)),
    );
    let mut c = d.connect().unwrap();
    let start = ws.join("src").display().to_string();
    let mut reminders = Vec::new();
    for n in 0..2 {
        server.enqueue(Reply::plain("ok"));
        let all = chat(&mut c, json!({"message": "go", "workspace": start}));
        assert_eq!(all.last().unwrap()["event"], "done", "{all:?}");
        let system = system_of(&server, n);
        // The nearest file whole, the root's cut at a line, the user's left out.
        assert!(
            system.contains(&format!("NEAR-FILE {}", "n".repeat(150))),
            "{system}"
        );
        assert!(
            system.contains("ROOT-HEAD") && !system.contains("ROOT-TAIL"),
            "{system}"
        );
        assert!(!system.contains("USER-HEAD"), "{system}");
        assert!(
            system.contains("the rest of AGENTS.md is left out"),
            "{system}"
        );
        reminders.push(
            events(&all, "reminder")
                .into_iter()
                .filter(|e| e["details"]["kind"] == "instructions")
                .collect::<Vec<Value>>(),
        );
    }
    assert_eq!(reminders[0].len(), 1, "{reminders:?}");
    let said = reminders[0][0]["data"].as_str().unwrap();
    assert!(said.contains("instructions.maxBytes (300 bytes)"), "{said}");
    assert!(said.contains("~seekclaw/AGENTS.md (left out"), "{said}");
    assert!(
        reminders[1].is_empty(),
        "said twice in one session: {reminders:?}"
    );
}

#[test]
fn a_file_that_appears_in_a_nested_folder_reaches_the_next_turn() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let ws = project_dir(tmp.path(), "proj");
    write(&ws.join("AGENTS.md"), "ROOT-FILE");
    let d = setup(&server, StartOptions::default());
    let mut c = d.connect().unwrap();
    let start = ws.join("src").display().to_string();
    server.enqueue(Reply::plain("ok"));
    chat(&mut c, json!({"message": "go", "workspace": start}));
    assert!(!system_of(&server, 0).contains("NESTED-NEW"));
    write(&ws.join("src/CLAUDE.md"), "NESTED-NEW");
    server.enqueue(Reply::plain("ok"));
    chat(&mut c, json!({"message": "go", "workspace": start}));
    let system = system_of(&server, 1);
    assert!(
        system.contains("ROOT-FILE") && system.contains("NESTED-NEW"),
        "{system}"
    );
}

#[test]
fn run_reads_the_files_down_to_its_working_folder() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let ws = project_dir(tmp.path(), "proj");
    let config = json!({
        "providers": [{"id": "tk", "kind": "openai", "baseUrl": server.base_url(), "models": [{"id": "m1"}]}],
        "instructions": {"fileNames": ["RULES.md", "AGENTS.md"]}
    });
    write(&home.join("config.json"), &config.to_string());
    write(&ws.join("AGENTS.md"), "ROOT-AGENTS");
    write(&ws.join("src/RULES.md"), "SRC-RULES");
    write(&ws.join("src/AGENTS.md"), "SRC-AGENTS-HIDDEN");
    server.enqueue(Reply::plain("done here"));
    let out = Command::new(bin())
        .args(["run", "go"])
        .current_dir(ws.join("src"))
        .env("SEEKCLAW_HOME", &home)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let system = system_of(&server, 0);
    let order = positions(&system, &["ROOT-AGENTS", "SRC-RULES"]);
    assert!(order[0] < order[1], "{system}");
    assert!(!system.contains("SRC-AGENTS-HIDDEN"), "{system}");
    // `doctor` names the root's files and the budget.
    let out = Command::new(bin())
        .arg("doctor")
        .current_dir(&ws)
        .env("SEEKCLAW_HOME", &home)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let row = text
        .lines()
        .find(|l| l.contains("Instruction Files"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        row.contains("AGENTS.md (11 bytes of instructions.maxBytes 65536"),
        "{row}"
    );
}
