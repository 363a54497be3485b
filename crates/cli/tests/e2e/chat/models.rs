//! `/model REF` changes the open session's model (stored with it; the next
//! turn uses it; the status bar shows it at once) and leaves the default,
//! which `/model default REF` changes, alone.

use seekclaw_testkit::{ProviderServer, Reply, StartOptions};
use serde_json::json;

use crate::support::screen::{Screen, WAIT, session_of};
use crate::support::turns::setup;

#[test]
fn model_changes_this_session_and_model_default_changes_the_default() {
    let server = ProviderServer::start().unwrap();
    server.enqueue(Reply::plain("seen by eyes"));
    server.enqueue(Reply::plain("seen by m1"));
    server.enqueue(Reply::plain("eyes again"));
    let d = setup(&server, StartOptions::default());
    let mut c = d.connect().unwrap();
    let active = |c: &mut seekclaw_testkit::Client| {
        let catalog = c.ok_json("model.catalog", json!({})).unwrap();
        catalog
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["active"] == true)
            .unwrap()["ref"]
            .clone()
    };
    let screen = Screen::chat(&d.home, &["--global"]);
    screen.wait_for("Ask anything");
    screen.submit("/model nope");
    screen.wait_for("Unknown model nope");

    screen.submit("/model eyes");
    let switched = screen.wait_for("This session now uses tk/eyes");
    assert!(
        switched.lines().last().unwrap().contains("tk/eyes"),
        "the status bar shows it at once: {switched}"
    );
    let sid = session_of(&switched);
    screen.submit("look");
    screen.wait_for("seen by eyes");
    let requests = server.wait_requests(1, WAIT).unwrap();
    assert_eq!(requests[0].body["model"], "eyes");
    assert_eq!(active(&mut c), "tk/m1", "the default stays");
    let detail = c
        .ok_json("session.get", json!({"id": sid, "global": true}))
        .unwrap();
    assert_eq!(detail["model"], "tk/eyes", "stored with the session");

    // Another session keeps the default.
    screen.submit("/new");
    screen.wait_for("New session");
    screen.submit("and you?");
    screen.wait_for("seen by m1");
    assert_eq!(
        server.wait_requests(2, WAIT).unwrap()[1].body["model"],
        "m1"
    );
    screen.submit("/quit");
    screen.wait_exit();

    // Reopened, the session shows and uses its model.
    let again = Screen::chat(&d.home, &["--global", "--session", &sid]);
    let shown = again.wait_for("seen by eyes");
    assert!(shown.lines().last().unwrap().contains("tk/eyes"), "{shown}");
    again.submit("once more");
    again.wait_for("eyes again");
    assert_eq!(
        server.wait_requests(3, WAIT).unwrap()[2].body["model"],
        "eyes"
    );

    // Changing the default is its own, explicit step.
    again.submit("/model default tk/eyes");
    again.wait_for("Default model: tk/eyes");
    assert_eq!(active(&mut c), "tk/eyes");
    again.submit("/quit");
    again.wait_exit();
}
