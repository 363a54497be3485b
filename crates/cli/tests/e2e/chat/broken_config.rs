//! A broken `config.json` is said before the chat opens (issue 36, item 4):
//! never the first-run welcome ("No model provider is configured yet") that
//! would let the user type a URL, a key and a model it could not save.

use seekclaw_testkit::StartOptions;

use crate::support::screen::Screen;

/// A config missing the comma after `"activeProfile": "default"`.
const BROKEN: &str = "{\n  \"activeProfile\": \"default\"\n  \"providers\": []\n}\n";

/// The pane once `seekclaw ARGV` has exited, its wrapped lines joined.
fn ended(home: &std::path::Path, argv: &[&str]) -> String {
    let screen = Screen::exiting(home, argv);
    screen.wait_for("[exit ").lines().collect()
}

#[test]
fn with_no_daemon_the_chat_names_the_broken_file_and_offers_no_welcome() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(home.join("config.json"), BROKEN).unwrap();
    for argv in [&["chat", "--global"][..], &[]] {
        let shown = ended(&home, argv);
        assert!(shown.contains("[exit 1]"), "{argv:?}: {shown}");
        assert!(
            shown.contains("cannot read the configuration:")
                && shown.contains("config.json: line 3, column 3: expected comma"),
            "{argv:?}: {shown}"
        );
        assert!(!shown.contains("No model provider"), "{argv:?}: {shown}");
        assert!(!home.join("daemon.sock").exists(), "no daemon was started");
    }
    assert_eq!(
        std::fs::read_to_string(home.join("config.json")).unwrap(),
        BROKEN
    );
}

#[test]
fn a_daemon_with_nothing_usable_read_before_does_not_open_the_welcome_either() {
    // Started before there was a config (defaults, no provider), then the
    // user's file is broken: the chat cannot add a provider there either.
    let d = crate::support::start_with(StartOptions::default());
    std::fs::write(d.home.join("config.json"), BROKEN).unwrap();
    let shown = ended(&d.home, &["chat", "--global"]);
    assert!(shown.contains("[exit 1]"), "{shown}");
    assert!(
        shown.contains("config.json: line 3, column 3: expected comma"),
        "{shown}"
    );
    assert!(!shown.contains("No model provider"), "{shown}");
    assert_eq!(
        std::fs::read_to_string(d.home.join("config.json")).unwrap(),
        BROKEN
    );
}
