//! Issue 41 in the terminal UI: an enabled plugin's `commands/*.md` are
//! listed by `/help` as `/plugin:command`, and typing one sends its body,
//! `$ARGUMENTS` filled in, as the message.

use std::process::{Command, Stdio};

use seekclaw_testkit::{ProviderServer, Reply, StartOptions};

use crate::support::bin;
use crate::support::screen::{Screen, known_project};
use crate::support::turns::setup;

#[test]
fn a_plugin_command_is_listed_and_sends_its_prompt() {
    let server = ProviderServer::start().unwrap();
    server.enqueue(Reply::plain("Reviewed it."));
    let d = setup(&server, StartOptions::default());
    let (tmp, project) = known_project(&d, "plugged");
    let src = tmp.path().join("demo");
    for (rel, text) in [
        ("plugin.json", r#"{"name": "demo"}"#),
        (
            "commands/review.md",
            "---\ndescription: Review the named files\n---\nReview $ARGUMENTS for bugs and say PLUGIN-COMMAND-4410.",
        ),
    ] {
        std::fs::create_dir_all(src.join(rel).parent().unwrap()).unwrap();
        std::fs::write(src.join(rel), text).unwrap();
    }
    let out = Command::new(bin())
        .args(["plugin", "add", &src.display().to_string(), "--yes"])
        .current_dir(&project)
        .env("SEEKCLAW_HOME", &d.home)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let screen = Screen::start(&d.home, Some(&project), &["chat"]);
    screen.wait_for("Ask anything");
    screen.submit("/help");
    screen.wait_for("/demo:review  Review the named files");
    screen.submit("/demo:review src/lib.rs");
    screen.wait_for("Reviewed it.");
    let requests = server.requests();
    let sent = requests.last().unwrap().body.to_string();
    assert!(
        sent.contains("Review src/lib.rs for bugs and say PLUGIN-COMMAND-4410."),
        "{sent}"
    );
}
