//! The status bar's tokens after a reconnect: a turn its daemon died in
//! (`kill -9`) keeps what its finished steps used, so the total shown after
//! the chat reloads the session is the one it showed before.

use std::time::Duration;

use seekclaw_testkit::{DaemonProcess, ProviderServer, Reply, StartOptions};

use crate::support::bin;
use crate::support::screen::Screen;
use crate::support::turns::setup;

#[test]
fn a_killed_turns_tokens_stay_in_the_status_bar_after_a_reconnect() {
    let server = ProviderServer::start().unwrap();
    server.enqueue(
        Reply::new()
            .tool_call("c1", "list_dir", r#"{"path":"."}"#)
            .usage(1000, 0, 100),
    );
    let mut slow = Reply::new().chunk_delay(Duration::from_millis(300));
    for i in 0..60 {
        slow = slow.text(format!("w{i} "));
    }
    server.enqueue(slow.usage(5000, 0, 500));
    let mut d = setup(&server, StartOptions::default());
    let _home_dir = d.take_tempdir();
    let home = d.home.clone();
    let screen = Screen::chat(&home, &["--global"]);
    screen.wait_for("Ask anything");
    screen.submit("look around");
    // The second step streams: the first one's usage is on the bar.
    let live = screen.wait_for("w1 ");
    assert!(live.contains("tokens ↑1000 ↓100"), "{live}");
    d.kill9().unwrap();
    let _d2 = DaemonProcess::spawn(bin(), &home, &StartOptions::default()).unwrap();
    let after = screen.wait_for("Reconnected to the daemon.");
    assert!(
        after.contains("tokens ↑1000 ↓100"),
        "the reloaded session keeps the killed turn's tokens: {after}"
    );
    screen.submit("/quit");
    screen.wait_exit();
}
