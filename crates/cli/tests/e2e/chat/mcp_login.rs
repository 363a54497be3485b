//! `/mcp` in the terminal UI says which servers need a login, and
//! `/mcp login NAME` runs it (the daemon's `mcp.login`; `$BROWSER` approves).

use std::path::Path;

use seekclaw_testkit::oauth_server::{browser_script, oauth_http};
use seekclaw_testkit::{ProviderServer, StartOptions};
use serde_json::json;

use crate::support::screen::Screen;
use crate::support::turns::setup;

/// `seekclaw chat --global` with `BROWSER` set, in a 100×30 terminal.
fn chat_with_browser(home: &Path, browser: &Path) -> Screen {
    let browser = browser.display().to_string();
    Screen::start_env(
        home,
        None,
        &[("BROWSER", &browser)],
        &["chat", "--global"],
        "",
    )
}

#[test]
fn slash_mcp_offers_the_login_and_slash_mcp_login_runs_it() {
    let fixture = oauth_http(3600).unwrap();
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let browser = browser_script(tmp.path()).unwrap();
    let d = setup(
        &server,
        StartOptions {
            config: Some(
                json!({"mcp": {"servers": {"secure": {"transport": "http", "url": fixture.url()}}}}),
            ),
            ..StartOptions::default()
        },
    );
    let screen = chat_with_browser(&d.home, &browser);
    screen.wait_for("Ask anything");
    // The first attempt may still be under way: ask again until it says.
    mcp_until(&screen, "secure [global, http]: needs_login");
    mcp_until(&screen, "— log in: /mcp login secure");
    screen.submit("/mcp login secure");
    screen.wait("the login notice", |s| {
        flat(s).contains(&flat("to log in to MCP server 'secure'"))
    });
    // The browser came back to the daemon's listener; the server connects.
    mcp_until(
        &screen,
        "secure [global, http]: connected, 1 tools (OAuth: logged in)",
    );
    assert!(
        std::fs::read_to_string(tmp.path().join("browser.log"))
            .unwrap()
            .contains("/authorize?")
    );
}

/// The screen without whitespace: a notice wider than the terminal wraps.
fn flat(text: &str) -> String {
    text.split_whitespace().collect()
}

/// Runs `/mcp` until its report shows `needle`.
fn mcp_until(screen: &Screen, needle: &str) {
    for _ in 0..300 {
        screen.submit("/mcp");
        std::thread::sleep(std::time::Duration::from_millis(200));
        if flat(&screen.capture()).contains(&flat(needle)) {
            return;
        }
    }
    panic!("/mcp never showed {needle:?}:\n{}", screen.capture());
}
