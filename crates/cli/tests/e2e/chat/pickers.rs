//! `seekclaw chat`'s pickers, `@path` completion and images, highlighted
//! code and foldable diffs, in tmux against the real daemon.

use seekclaw_testkit::{ProviderServer, Reply, StartOptions};
use serde_json::json;

use crate::support::screen::{Screen, row, session_of};
use crate::support::turns::setup;

#[test]
fn the_sessions_picker_searches_toggles_scope_and_archived_and_opens_one() {
    let server = ProviderServer::start().unwrap();
    server.enqueue(Reply::plain("alpha answer"));
    server.enqueue(Reply::plain("beta answer"));
    let d = setup(&server, StartOptions::default());
    let screen = Screen::chat(&d.home, &["--global"]);
    screen.wait_for("Ask anything");
    screen.submit("alpha question");
    let first = screen.wait_for("alpha answer");
    let alpha = session_of(&first);
    screen.submit("/new");
    screen.wait_for("New session");
    screen.submit("beta question");
    let second = screen.wait_for("beta answer");
    screen.wait_idle();
    let beta = session_of(&second);

    screen.submit("/sessions");
    let picker = screen.wait_for("Sessions · global · archived hidden");
    assert!(
        picker.contains("alpha question") && picker.contains("beta question"),
        "{picker}"
    );
    assert!(
        picker.contains(&alpha) && picker.contains(&beta),
        "{picker}"
    );
    // Tab: the workspace scope (none there), and back.
    screen.keys(&["Tab"]);
    screen.wait_for("Sessions · this workspace");
    screen.wait_for("(nothing matches)");
    screen.keys(&["Tab"]);
    screen.wait_for("Sessions · global");
    screen.type_text("alpha");
    let found = screen.wait("only alpha", |s| {
        s.contains("search: alpha") && !s.contains("│  beta question")
    });
    assert!(row(&found, "alpha question").contains('›'), "{found}");
    screen.keys(&["Enter"]);
    let opened = screen.wait(&format!("session {alpha}"), |s| {
        s.lines().last().unwrap_or_default().contains(&alpha)
    });
    assert!(opened.contains("alpha answer"), "{opened}");
    assert!(!opened.contains("beta answer"), "{opened}");
    assert!(
        !opened.contains("Sessions ·"),
        "the picker closed: {opened}"
    );

    // Archived sessions show only with Ctrl-A.
    let mut c = d.connect().unwrap();
    c.ok_json("session.archive", json!({"id": beta, "global": true}))
        .unwrap();
    screen.submit("/sessions");
    let hidden = screen.wait_for("archived hidden");
    assert!(!hidden.contains("beta question"), "{hidden}");
    screen.keys(&["C-a"]);
    let all = screen.wait_for("with archived");
    assert!(row(&all, "beta question").contains("(archived)"), "{all}");
    screen.keys(&["Escape"]);
    screen.wait("the picker closes", |s| !s.contains("with archived"));

    // /resume ID still works.
    screen.submit(&format!("/resume {beta}"));
    screen.wait_for("beta answer");
    screen.wait_idle();
    screen.submit("/quit");
    screen.wait_exit();
}

#[test]
fn the_model_picker_switches_models() {
    let server = ProviderServer::start().unwrap();
    let d = setup(&server, StartOptions::default());
    let screen = Screen::chat(&d.home, &["--global"]);
    screen.wait_for("Ask anything");
    screen.submit("/model");
    let models = screen.wait_for("Models");
    assert!(
        row(&models, "tk/m1").contains("› tk/m1  default"),
        "{models}"
    );
    screen.type_text("eyes");
    // (The status bar names the session's next model: the rows are looked at.)
    screen.wait("only eyes", |s| {
        s.contains("› tk/eyes") && !s.contains("tk/m1  default")
    });
    screen.keys(&["Enter"]);
    screen.wait_for("This session now uses tk/eyes");
    let mut c = d.connect().unwrap();
    let active = |c: &mut seekclaw_testkit::Client| -> Vec<String> {
        let catalog = c.ok_json("model.catalog", json!({})).unwrap();
        catalog
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["active"] == true)
            .map(|m| m["ref"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(active(&mut c), ["tk/m1"], "Enter leaves the default");

    // Ctrl-D in the picker makes the selected model the default.
    screen.submit("/model");
    let models = screen.wait_for("Ctrl-D");
    assert!(models.contains("› tk/eyes  this session"), "{models}");
    screen.keys(&["C-d"]);
    screen.wait_for("Default model: tk/eyes");
    assert_eq!(active(&mut c), ["tk/eyes"]);
    screen.submit("/quit");
    screen.wait_exit();
}

#[test]
fn at_path_tab_completes_and_an_at_image_is_attached() {
    let server = ProviderServer::start().unwrap();
    server.enqueue(Reply::plain("a red dot"));
    let d = setup(&server, StartOptions::default());
    let (_dir, project) = crate::support::screen::known_project(&d, "proj");
    std::fs::write(project.join("src/lib_one.rs"), "x").unwrap();
    std::fs::write(project.join("src/main.rs"), "x").unwrap();
    // A 1×1 PNG.
    let png = [
        0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0x0D, 0x49, 0x48, 0x44, 0x52, 0,
        0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0, 0x1F, 0x15, 0xC4, 0x89, 0, 0, 0, 0x0A, 0x49, 0x44,
        0x41, 0x54, 0x78, 0x9C, 0x63, 0, 1, 0, 0, 5, 0, 1, 0x0D, 0x0A, 0x2D, 0xB4, 0, 0, 0, 0,
        0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
    ];
    std::fs::write(project.join("dot.png"), png).unwrap();
    let screen = Screen::start(&d.home, Some(&project), &[]);
    screen.wait_for("Ask anything");
    screen.type_text("read @src/li");
    screen.keys(&["Tab"]);
    screen.wait_for("› read @src/lib_one.rs");
    screen.keys(&["C-c"]);
    screen.type_text("open @src/");
    screen.keys(&["Tab"]);
    let popup = screen.wait_for("1/");
    assert!(popup.contains("src/main.rs"), "{popup}");
    screen.keys(&["Tab"]);
    screen.wait_for("2/");
    screen.keys(&["Escape"]);
    screen.wait("the popup closes", |s| !s.contains("Tab/↑↓"));
    screen.keys(&["C-c"]);

    screen.type_text("what is in @dot.png");
    let typed = screen.wait_for("[image: dot.png");
    assert!(
        typed
            .lines()
            .last()
            .unwrap()
            .contains("[image: dot.png 67 B]"),
        "{typed}"
    );
    screen.keys(&["Enter"]);
    let sent = screen.wait_for("a red dot");
    assert!(
        sent.contains("[image: dot.png 67 B]"),
        "the chip in the row: {sent}"
    );
    let requests = server.requests();
    assert!(
        requests[0]
            .raw_body
            .contains("data:image/png;base64,iVBORw0KGgo"),
        "the image went to the model"
    );
    screen.submit("/quit");
    screen.wait_exit();
}

#[test]
fn code_is_highlighted_and_diffs_fold_and_expand() {
    let server = ProviderServer::start().unwrap();
    let content: String = (1..=30).map(|i| format!("row {i}\n")).collect();
    server.enqueue(Reply::new().tool_call(
        "c1",
        "write_file",
        json!({"path": "long.txt", "content": content}).to_string(),
    ));
    server.enqueue(Reply::plain("```rust\nfn main() { let x = 42; }\n```\n"));
    let d = setup(&server, StartOptions::default());
    let screen = Screen::chat(&d.home, &["--global"]);
    screen.wait_for("Ask anything");
    screen.submit("write it");
    let folded = screen.wait_for("fn main()");
    assert!(folded.contains("more lines (Ctrl-O expands)"), "{folded}");
    assert!(!folded.contains("+row 30"), "{folded}");
    screen.keys(&["C-o"]);
    let expanded = screen.wait_for("+row 30");
    assert!(!expanded.contains("Ctrl-O expands"), "{expanded}");
    screen.keys(&["C-o"]);
    screen.wait("folded again", |s| !s.contains("+row 30"));

    // The code row carries 24-bit colours (more than one).
    let coloured = screen.tmux(&["capture-pane", "-p", "-e", "-t", "main"]);
    let code = coloured
        .lines()
        .find(|l| l.contains("main"))
        .unwrap_or_default();
    let rgb = code.matches("38;2;").count();
    assert!(rgb >= 2, "{code:?}");
    screen.submit("/quit");
    screen.wait_exit();
}
