//! The UI's words are its own, in English: the daemon's desktop labels
//! (`workflow` events' Chinese `data`, e.g. `思考`) never reach the screen.

use std::time::Duration;

use seekclaw_testkit::{ProviderServer, Reply, StartOptions};
use serde_json::json;

use crate::support::screen::Screen;
use crate::support::turns::setup;

/// Whether `text` holds a CJK ideograph or CJK punctuation.
fn has_cjk(text: &str) -> bool {
    text.chars()
        .any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c) || ('\u{3000}'..='\u{303f}').contains(&c))
}

#[test]
fn the_status_bar_names_the_phase_in_english_from_the_event_kind() {
    let server = ProviderServer::start().unwrap();
    server.enqueue(Reply::new().tool_call("r1", "bash", json!({"command": "sleep 1"}).to_string()));
    let mut slow = Reply::new().chunk_delay(Duration::from_millis(150));
    for i in 0..20 {
        slow = slow.text(format!("piece{i} "));
    }
    server.enqueue(slow);
    let d = setup(&server, StartOptions::default());
    let screen = Screen::chat(&d.home, &["--global"]);
    screen.wait_for("Ask anything");
    screen.submit("go");
    let tool = screen.wait_for("sleep 1");
    assert!(!has_cjk(&tool), "{tool}");
    let thinking = screen.wait_for("piece2");
    let status = thinking.lines().last().unwrap();
    assert!(status.contains("running: Thinking"), "{status}");
    assert!(!has_cjk(&thinking), "{thinking}");
    let done = screen.wait_for("piece19");
    assert!(!has_cjk(&done), "{done}");
    // Ended: a `/quit` during the turn would ask first.
    screen.wait("the turn's end", |s| {
        s.lines().last().is_some_and(|l| l.contains("idle"))
    });
    screen.submit("/quit");
    screen.wait_exit();
}
