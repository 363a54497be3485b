//! `seekclaw mcp login NAME` / `mcp logout NAME`: the OAuth login of a remote
//! MCP server, run in this process (the browser comes back to a loopback
//! listener here). The token store is the home's `mcp-auth/`; a running
//! daemon picks the new login up at its next connection attempt.

use std::process::ExitCode;

use seekclaw_config::Home;
use seekclaw_engine::{McpCheckOptions, find_mcp_server};
use seekclaw_mcp::Transport;
use seekclaw_mcp::auth::{AuthStore, LOGIN_WAIT, LoginTarget, begin_login, open_browser};

/// The URL of a remote server entry, or why it has none.
fn remote_url(name: &str, entry: &seekclaw_mcp::ServerEntry) -> anyhow::Result<String> {
    match &entry.transport {
        Ok(Transport::Http { url, .. } | Transport::Sse { url, .. }) => Ok(url.clone()),
        Ok(Transport::Stdio { .. }) => anyhow::bail!(
            "MCP server '{name}' runs on stdio: only remote (http, sse) servers log in"
        ),
        Err(e) => anyhow::bail!("{e}"),
    }
}

/// `mcp login NAME`.
pub fn login(opts: &McpCheckOptions, name: &str, no_browser: bool) -> ExitCode {
    finish(run_login(opts, name, no_browser))
}

/// `mcp logout NAME`.
pub fn logout(opts: &McpCheckOptions, name: &str) -> ExitCode {
    finish((|| {
        let home = Home::from_env()?;
        let entry = find_mcp_server(&home, opts, name).map_err(|e| anyhow::anyhow!(e.message))?;
        let url = remote_url(name, &entry)?;
        let store = AuthStore::in_home(home.root());
        if store.remove(&url)? {
            println!("Logged out of MCP server '{name}': its stored tokens are deleted.");
        } else {
            println!("No login is stored for MCP server '{name}'.");
        }
        Ok(())
    })())
}

fn finish(result: anyhow::Result<()>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("seekclaw: {e:#}");
            ExitCode::from(1)
        }
    }
}

fn run_login(opts: &McpCheckOptions, name: &str, no_browser: bool) -> anyhow::Result<()> {
    let home = Home::from_env()?;
    let entry = find_mcp_server(&home, opts, name).map_err(|e| anyhow::anyhow!(e.message))?;
    let url = remote_url(name, &entry)?;
    let store = AuthStore::in_home(home.root());
    let target = LoginTarget {
        server: name.to_string(),
        url,
        oauth: entry.config.oauth.clone().unwrap_or_default(),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let done = runtime.block_on(async {
        let pending = begin_login(&store, target).await?;
        // Printed as well, for a user whose browser is on another machine.
        println!(
            "To log in to MCP server '{name}', open this URL in a browser:\n\n  {}\n",
            pending.auth_url
        );
        if !no_browser && let Err(e) = open_browser(&pending.auth_url) {
            println!("(could not open a browser: {e})");
        }
        println!(
            "Waiting for the browser to come back to http://127.0.0.1:{}/callback …",
            pending.port().unwrap_or(0)
        );
        pending.finish(&store, LOGIN_WAIT).await
    });
    runtime.shutdown_background();
    done?;
    println!(
        "Logged in to MCP server '{name}'. The tokens are stored in {} (owner-only).",
        home.root().join("mcp-auth").display()
    );
    Ok(())
}
