//! `seekclaw mcp [list|check]`: the merged MCP configuration, each server
//! connected in this process, its tools as turns see them, and each failure
//! with its cause. Exit code 1 when a file is unreadable or a server fails.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use seekclaw_config::Home;
use seekclaw_engine::{McpCheck, McpCheckOptions, check_mcp};

/// What `seekclaw mcp` does (`list` and `check` connect every enabled server).
#[derive(Subcommand, Clone, PartialEq, Eq)]
pub enum McpCommand {
    /// List the servers with their state and tools (the default).
    List,
    /// The same, for scripts: say only what failed unless `--json`.
    Check,
    /// Log in to a remote server that asks for OAuth (opens the browser).
    Login {
        /// The server's configured name.
        name: String,
        /// Only print the authorization URL (for a browser on another machine).
        #[arg(long)]
        no_browser: bool,
    },
    /// Forget a server's stored OAuth tokens.
    Logout {
        /// The server's configured name.
        name: String,
    },
    /// Be an MCP server on stdin/stdout for other agents: tools `run_task`,
    /// `session_list`, `session_get`, `session_search`.
    Serve(crate::mcp_serve::McpServeArgs),
}

impl McpArgs {
    /// Whether this is `seekclaw mcp serve` (stdout carries only MCP).
    pub fn is_serve(&self) -> bool {
        self.serve_args().is_some()
    }

    /// `seekclaw mcp serve`'s arguments, if that is the command.
    pub fn serve_args(&self) -> Option<&crate::mcp_serve::McpServeArgs> {
        match &self.command {
            Some(McpCommand::Serve(args)) => Some(args),
            _ => None,
        }
    }
}

/// Scope and output of `seekclaw mcp`.
#[derive(Args)]
pub struct McpArgs {
    #[command(subcommand)]
    command: Option<McpCommand>,
    /// Project directory (default: the current directory's project root).
    #[arg(long, global = true)]
    workspace: Option<PathBuf>,
    /// Only the global configuration.
    #[arg(long, global = true, conflicts_with = "workspace")]
    global: bool,
    /// Print the result as JSON.
    #[arg(long, global = true)]
    json: bool,
}

/// Runs the check and prints it.
pub fn mcp(args: McpArgs) -> ExitCode {
    if let Some(McpCommand::Serve(serve)) = args.command {
        if args.workspace.is_some() || args.global || args.json {
            // Each call names its workspace; the output is MCP, not a report.
            eprintln!(
                "seekclaw: `mcp serve` takes no --workspace, --global or --json (run_task names its workspace)"
            );
            return ExitCode::from(2);
        }
        return crate::mcp_serve::serve(serve);
    }
    if let Some(McpCommand::Login { name, no_browser }) = &args.command {
        return match login_options(&args) {
            Ok(opts) => crate::mcp_login::login(&opts, name, *no_browser),
            Err(e) => {
                eprintln!("seekclaw: {e:#}");
                ExitCode::from(1)
            }
        };
    }
    if let Some(McpCommand::Logout { name }) = &args.command {
        return match login_options(&args) {
            Ok(opts) => crate::mcp_login::logout(&opts, name),
            Err(e) => {
                eprintln!("seekclaw: {e:#}");
                ExitCode::from(1)
            }
        };
    }
    let checked = (|| -> anyhow::Result<McpCheck> {
        let home = Home::from_env()?;
        let opts = McpCheckOptions {
            cwd: crate::cwd::working_dir()?,
            workspace: args.workspace.clone(),
            global: args.global,
        };
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()?;
        let checked = runtime.block_on(check_mcp(&home, &opts));
        runtime.shutdown_background();
        checked.map_err(|e| anyhow::anyhow!(e.message))
    })();
    let check = match checked {
        Ok(c) => c,
        Err(e) => {
            eprintln!("seekclaw: {e:#}");
            return ExitCode::from(1);
        }
    };
    if args.json {
        match serde_json::to_string_pretty(&check) {
            Ok(text) => println!("{text}"),
            Err(e) => eprintln!("seekclaw: {e}"),
        }
    } else {
        print!(
            "{}",
            render(&check, args.command.unwrap_or(McpCommand::List))
        );
    }
    if check.healthy() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn login_options(args: &McpArgs) -> anyhow::Result<McpCheckOptions> {
    Ok(McpCheckOptions {
        cwd: crate::cwd::working_dir()?,
        workspace: args.workspace.clone(),
        global: args.global,
    })
}

/// The text report: a line per server (and its tools with `list`).
fn render(check: &McpCheck, command: McpCommand) -> String {
    let mut out = String::new();
    for p in &check.problems {
        out.push_str(&format!("invalid config: {p}\n"));
    }
    if check.servers.is_empty() {
        // One line, and where servers go: nothing failed, nothing else to say.
        out.push_str(
            "no MCP servers configured (add them under \"mcp\": {\"servers\": {…}} in config.json or the workspace's .seekclaw/config.json)\n",
        );
        return out;
    }
    for s in &check.servers {
        let l = &s.listing;
        let what = l
            .url
            .clone()
            .or_else(|| l.command.clone())
            .unwrap_or_default();
        let state = if !l.enabled {
            "disabled".to_string()
        } else if l.connected && l.auth == "authorized" {
            format!("connected (OAuth: logged in), {} tools", s.tools.len())
        } else if l.connected {
            format!("connected, {} tools", s.tools.len())
        } else if matches!(l.auth, "needs_login" | "login_required") {
            // The error says what to run; "failed" would send the user hunting.
            format!(
                "{}: {}",
                l.auth.replace('_', " "),
                l.error.clone().unwrap_or_default()
            )
        } else {
            format!(
                "failed: {}",
                l.error.clone().unwrap_or_else(|| l.status.to_string())
            )
        };
        let failed = l.enabled && !l.connected;
        if command == McpCommand::Check && !failed {
            continue;
        }
        out.push_str(&format!(
            "{} ({}, {} {}): {}\n",
            l.name, l.scope, l.transport, what, state
        ));
        if command == McpCommand::List {
            for t in &s.tools {
                out.push_str(&format!("  {t}\n"));
            }
        }
    }
    if command == McpCommand::Check && check.healthy() {
        let n = check.servers.iter().filter(|s| s.listing.enabled).count();
        out.push_str(&format!("all {n} enabled MCP servers connected\n"));
    }
    out
}
