//! `/mcp` in the terminal UI says which servers need a login, and
//! `/mcp login NAME` runs it (the daemon's `mcp.login`; `$BROWSER` approves).

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use seekclaw_testkit::oauth_server::{browser_script, oauth_http};
use seekclaw_testkit::{ProviderServer, StartOptions};
use serde_json::json;

use crate::support::bin;
use crate::support::screen::Screen;
use crate::support::turns::setup;

/// `seekclaw chat --global` with `BROWSER` set, in a 100×30 terminal.
fn chat_with_browser(home: &Path, browser: &Path) -> Screen {
    static N: AtomicUsize = AtomicUsize::new(0);
    let screen = Screen {
        socket: format!(
            "seekclaw-tui-oauth-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ),
    };
    let command = format!(
        "env SEEKCLAW_HOME='{}' BROWSER='{}' '{}' chat --global",
        home.display(),
        browser.display(),
        bin().display()
    );
    let cwd = std::env::current_dir().unwrap().display().to_string();
    screen.tmux(&[
        "-f",
        "/dev/null",
        "new-session",
        "-d",
        "-x",
        "100",
        "-y",
        "30",
        "-s",
        "main",
        "-c",
        &cwd,
        &command,
    ]);
    screen
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
    screen.submit("/mcp");
    screen.wait_for("log in: /mcp login secure");
    screen.submit("/mcp login secure");
    screen.wait_for("to log in to MCP server 'secure'");
    // The browser came back to the daemon's listener; the server connects.
    let mut connected = false;
    for _ in 0..600 {
        screen.submit("/mcp");
        let seen = screen.wait_for("MCP servers:");
        if seen.contains("(OAuth: logged in)") && seen.contains("secure [global, http]: connected")
        {
            connected = true;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert!(connected, "{}", screen.capture());
    assert!(
        std::fs::read_to_string(tmp.path().join("browser.log"))
            .unwrap()
            .contains("/authorize?")
    );
}
