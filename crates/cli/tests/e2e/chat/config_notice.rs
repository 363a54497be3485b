//! The terminal UI says when the daemon cannot use `config.json` as written
//! (issue 26, item 2): the file is named with its line and column, and turns
//! run on the configuration the daemon read before.

use seekclaw_testkit::{ProviderServer, Reply, StartOptions};

use crate::support::screen::Screen;
use crate::support::turns::setup;

#[test]
fn a_config_gone_bad_under_a_running_daemon_is_a_line_in_the_ui_and_turns_still_run() {
    let server = ProviderServer::start().unwrap();
    server.enqueue(Reply::plain("answered anyway"));
    let d = setup(&server, StartOptions::default());
    let path = d.home.join("config.json");
    let good = std::fs::read_to_string(&path).unwrap();
    // The first comma at a line's end goes: the next line is where it is missed.
    let comma = good.find(",\n").unwrap();
    let line = good[..comma].matches('\n').count() + 2;
    let broken = good.replacen(",\n", "\n", 1);
    std::fs::write(&path, &broken).unwrap();

    let screen = Screen::chat(&d.home, &["--global"]);
    let shown = screen.wait_for("expected comma");
    assert!(
        shown.contains(&format!("config.json: line {line}, column ")),
        "{shown}"
    );
    screen.wait_for("the configuration it read before");
    screen.submit("hello");
    screen.wait_for("answered anyway");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), broken);
    // Ended: a `/quit` during the turn would ask first.
    screen.wait("the turn's end", |s| {
        s.lines().last().is_some_and(|l| l.contains("idle"))
    });
    screen.submit("/quit");
    screen.wait_exit();
}
