//! `/init` and `/memory` in the terminal UI, and `seekclaw init --agents`:
//! a starter AGENTS.md from the project's manifests that never replaces one,
//! and the instruction files opened in the user's `$EDITOR` (the terminal
//! handed over and taken back).

use std::process::Command;

use seekclaw_testkit::{ProviderServer, Reply, StartOptions};

use crate::support::bin;
use crate::support::screen::{Screen, known_project};
use crate::support::turns::setup;

#[test]
fn init_writes_a_starter_and_memory_opens_the_files_in_the_editor() {
    let server = ProviderServer::start().unwrap();
    let d = setup(&server, StartOptions::default());
    let (tmp, project) = known_project(&d, "mem");
    std::fs::create_dir_all(project.join("src/deep")).unwrap();
    std::fs::write(project.join("src/CLAUDE.md"), "SRC-RULES").unwrap();
    std::fs::write(d.home.join("AGENTS.md"), "USER-RULES").unwrap();
    // An "editor" that records its arguments and adds a line to each file.
    let log = tmp.path().join("editor.log");
    let editor = tmp.path().join("editor.sh");
    std::fs::write(
        &editor,
        format!(
            "#!/bin/sh\nfor f in \"$@\"; do echo \"$f\" >> '{}'; echo EDITED >> \"$f\"; done\n",
            log.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&editor, std::fs::Permissions::from_mode(0o755)).unwrap();
    let editor_var = editor.display().to_string();
    let cwd = project.join("src/deep");
    let screen = Screen::start_env(
        &d.home,
        Some(&cwd),
        &[("EDITOR", &editor_var)],
        &["chat"],
        "",
    );
    screen.wait_for("Ask anything");

    screen.submit("/init");
    screen.wait_for("from the project's manifests");
    let written = std::fs::read_to_string(project.join("AGENTS.md")).unwrap();
    assert!(written.contains("- Test: `cargo test`"), "{written}");
    // Never over an existing one.
    std::fs::write(project.join("AGENTS.md"), "MINE\n").unwrap();
    screen.submit("/init");
    screen.wait_for("already exists; left unchanged");
    assert_eq!(
        std::fs::read_to_string(project.join("AGENTS.md")).unwrap(),
        "MINE\n"
    );

    screen.submit("/memory");
    screen.wait_for("Opened in");
    let opened: Vec<String> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    let expected = [
        d.home.join("AGENTS.md"),
        project.join("AGENTS.md"),
        project.join("src/CLAUDE.md"),
        project.join(".seekclaw/memory/MEMORY.md"),
    ];
    let expected: Vec<String> = expected.iter().map(|p| p.display().to_string()).collect();
    assert_eq!(opened, expected);
    assert_eq!(
        std::fs::read_to_string(project.join("AGENTS.md")).unwrap(),
        "MINE\nEDITED\n"
    );

    // The chat goes on after the editor: keys reach the prompt, and the
    // next turn reads what the editor saved.
    server.enqueue(Reply::plain("Read them."));
    screen.submit("hello");
    screen.wait_for("Read them.");
    let system = server.requests()[0].body["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        system.contains("MINE\nEDITED") && system.contains("SRC-RULES"),
        "{system}"
    );
    assert!(system.contains("USER-RULESEDITED"), "{system}");
}

#[test]
fn init_agents_writes_the_starter_once() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let project = tmp.path().join("web");
    std::fs::create_dir_all(project.join(".git")).unwrap();
    std::fs::write(
        project.join("package.json"),
        r#"{"scripts": {"test": "vitest", "build": "vite build"}}"#,
    )
    .unwrap();
    std::fs::write(project.join("pnpm-lock.yaml"), "").unwrap();
    let init = || {
        Command::new(bin())
            .args(["init", "--agents"])
            .current_dir(&project)
            .env("SEEKCLAW_HOME", &home)
            .output()
            .unwrap()
    };
    let out = init();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(project.join("AGENTS.md")).unwrap();
    assert!(
        text.contains("- Test: `pnpm test`") && text.contains("- Build: `pnpm run build`"),
        "{text}"
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("wrote "));
    // `--agents` writes only AGENTS.md: no .seekclaw, no .gitignore.
    assert!(!project.join(".seekclaw").exists() && !project.join(".gitignore").exists());
    std::fs::write(project.join("AGENTS.md"), "MINE").unwrap();
    let again = init();
    assert!(again.status.success());
    assert!(String::from_utf8_lossy(&again.stdout).contains("already exists; left unchanged"));
    assert_eq!(
        std::fs::read_to_string(project.join("AGENTS.md")).unwrap(),
        "MINE"
    );
}
