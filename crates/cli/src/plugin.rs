//! `seekclaw plugin add|list|enable|disable|remove` and `plugin marketplace
//! add|list`: plugins for the user (`$SEEKCLAW_HOME/plugins`) or for a
//! project (`<ws>/.seekclaw/plugins`, used only where the workspace is
//! trusted). The files are the state: a running daemon's next turn sees a
//! change without a restart.

use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;

use anyhow::{Result, bail};
use clap::{Args, Subcommand};
use seekclaw_config::Home;
use seekclaw_plugins::{Location, Scope, marketplace};
use seekclaw_protocol::api::PluginView;

/// `seekclaw plugin`.
#[derive(Subcommand)]
pub enum PluginCommand {
    /// Install a plugin from a folder, a git URL, `owner/repo` (GitHub) or
    /// `NAME@MARKETPLACE`: shows what it brings (the commands its hooks run,
    /// the servers it starts) and asks first.
    Add {
        /// Folder, git URL, owner/repo or NAME@MARKETPLACE.
        source: String,
        #[command(flatten)]
        at: At,
        /// Install without asking (needed without a terminal).
        #[arg(long, short = 'y')]
        yes: bool,
        /// Replace an installed plugin of the same name.
        #[arg(long)]
        force: bool,
    },
    /// The installed plugins of both scopes, what each brings, and whether it is active.
    List {
        #[command(flatten)]
        at: At,
        /// Print `plugin.list`'s rows as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Switch an installed plugin on.
    Enable {
        /// Plugin name.
        name: String,
        #[command(flatten)]
        at: At,
    },
    /// Switch an installed plugin off (it stays installed).
    Disable {
        /// Plugin name.
        name: String,
        #[command(flatten)]
        at: At,
    },
    /// Uninstall a plugin (its folder is deleted).
    Remove {
        /// Plugin name.
        name: String,
        #[command(flatten)]
        at: At,
    },
    /// Marketplaces: `marketplace.json` files listing plugins.
    #[command(subcommand)]
    Marketplace(MarketplaceCommand),
}

/// `seekclaw plugin marketplace`.
#[derive(Subcommand)]
pub enum MarketplaceCommand {
    /// Remember a marketplace (a folder or its marketplace.json, or a git
    /// URL / owner/repo) so `plugin add NAME@MARKETPLACE` works.
    Add {
        /// Folder, file, git URL or owner/repo.
        source: String,
    },
    /// The known marketplaces and their plugins.
    List,
}

/// Which scope a command works on.
#[derive(Args, Clone, Default)]
pub struct At {
    /// The project's plugins (`<ws>/.seekclaw/plugins`) instead of yours.
    #[arg(long)]
    project: bool,
    /// The workspace (default: the project around the current directory).
    #[arg(long, value_name = "DIR")]
    workspace: Option<PathBuf>,
}

/// The workspace root, when there is one.
fn workspace(home: &Home, at: &At) -> Result<Option<PathBuf>> {
    let cwd = crate::cwd::working_dir()?;
    let root = seekclaw_engine::local_root(home, &cwd, at.workspace.as_deref())
        .map_err(|e| anyhow::anyhow!(e.message))?;
    if seekclaw_engine::own_workspace(home, Some(&root)).is_none()
        || (at.workspace.is_none() && seekclaw_engine::refuse_implicit(&root, "").is_err())
    {
        if at.project {
            bail!("--project needs a project folder: run it inside one or pass --workspace DIR");
        }
        return Ok(None);
    }
    Ok(Some(root))
}

fn trusted(home: &Home, root: Option<&std::path::Path>) -> Result<bool> {
    let Some(root) = root else { return Ok(false) };
    let store = seekclaw_store::Store::open(&home.db_path())?;
    Ok(seekclaw_engine::workspace_trusted(&store, root))
}

fn location(home: &Home, at: &At) -> Result<(Location, Option<PathBuf>)> {
    let root = workspace(home, at)?;
    let loc = match (&root, at.project) {
        (Some(root), true) => Location::project(root),
        _ => Location::user(home.root()),
    };
    Ok((loc, root))
}

pub fn plugin(home: &Home, cmd: PluginCommand) -> Result<()> {
    match cmd {
        PluginCommand::Add {
            source,
            at,
            yes,
            force,
        } => add(home, &source, &at, yes, force),
        PluginCommand::List { at, json } => list(home, &at, json),
        PluginCommand::Enable { name, at } => toggle(home, &name, &at, true),
        PluginCommand::Disable { name, at } => toggle(home, &name, &at, false),
        PluginCommand::Remove { name, at } => {
            let (loc, _) = location(home, &at)?;
            loc.remove(&name)?;
            println!("Removed plugin {name} ({}).", loc.scope.as_str());
            Ok(())
        }
        PluginCommand::Marketplace(MarketplaceCommand::Add { source }) => {
            let cwd = crate::cwd::working_dir()?;
            let (name, market) = marketplace::add(home.root(), &source, &cwd)?;
            println!(
                "Added marketplace {name} ({} plugins): install one with `seekclaw plugin add NAME@{name}`.",
                market.plugins.len()
            );
            Ok(())
        }
        PluginCommand::Marketplace(MarketplaceCommand::List) => {
            let known = marketplace::known(home.root());
            if known.is_empty() {
                println!(
                    "No marketplaces (add one with `seekclaw plugin marketplace add <path|url>`)."
                );
            }
            for (name, k) in known {
                println!("{name}  {}", k.source);
                match marketplace::read(&k.path) {
                    Ok(m) => {
                        for p in m.plugins {
                            let d = p.description.unwrap_or_default();
                            println!("  {}@{name}  {d}", p.name);
                        }
                    }
                    Err(e) => println!("  problem: {e}"),
                }
            }
            Ok(())
        }
    }
}

fn toggle(home: &Home, name: &str, at: &At, enabled: bool) -> Result<()> {
    let (loc, _) = location(home, at)?;
    loc.set_enabled(name, enabled)?;
    let how = if enabled { "Enabled" } else { "Disabled" };
    println!("{how} plugin {name} ({}).", loc.scope.as_str());
    Ok(())
}

fn add(home: &Home, text: &str, at: &At, yes: bool, force: bool) -> Result<()> {
    let (loc, root) = location(home, at)?;
    if loc.scope == Scope::Project && !trusted(home, root.as_deref())? {
        let ws = root
            .as_deref()
            .map(|r| r.display().to_string())
            .unwrap_or_default();
        bail!(seekclaw_protocol::wording::plugin_untrusted(&ws));
    }
    let cwd = crate::cwd::working_dir()?;
    let source = seekclaw_plugins::parse_source(text, home.root(), &cwd)?;
    let prepared = seekclaw_plugins::prepare(&source, text, &loc)?;
    let name = prepared.plugin.name().to_string();
    if prepared.exists() && !force {
        bail!(seekclaw_plugins::PluginError::AlreadyInstalled(name));
    }
    let mut out = std::io::stdout().lock();
    for line in prepared.summary().lines() {
        writeln!(out, "{line}")?;
    }
    writeln!(out, "Scope: {} ({})", loc.scope.as_str(), loc.dir.display())?;
    if !yes {
        if !std::io::stdin().is_terminal() {
            bail!(
                "not installed: no terminal to ask on; review the above and run again with --yes to install"
            );
        }
        write!(out, "Install {name}? [y/N] ")?;
        out.flush()?;
        let mut answer = String::new();
        std::io::stdin().lock().read_line(&mut answer)?;
        if !matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes") {
            writeln!(out, "Not installed.")?;
            return Ok(());
        }
    }
    prepared.commit(force)?;
    writeln!(
        out,
        "Installed plugin {name} ({}). New turns use it; `seekclaw plugin disable {name}` switches it off.",
        loc.scope.as_str()
    )?;
    Ok(())
}

fn list(home: &Home, at: &At, json: bool) -> Result<()> {
    let root = workspace(
        home,
        &At {
            project: false,
            ..at.clone()
        },
    )?;
    let trusted = trusted(home, root.as_deref())?;
    let installed = seekclaw_engine::plugin_installation(home, root.as_deref(), trusted);
    let rows = seekclaw_engine::plugin_views(&installed);
    let mut out = std::io::stdout().lock();
    if json {
        writeln!(out, "{}", serde_json::to_string_pretty(&rows)?)?;
        return Ok(());
    }
    if rows.is_empty() {
        writeln!(
            out,
            "No plugins (install one with `seekclaw plugin add <path|git URL|owner/repo>`)."
        )?;
    }
    for row in &rows {
        print_row(&mut out, row)?;
    }
    Ok(())
}

fn print_row(out: &mut impl Write, row: &PluginView) -> Result<()> {
    let state = match (&row.inactive_reason, row.enabled) {
        (None, _) => "active".to_string(),
        (Some(_), false) => "disabled".to_string(),
        (Some(why), true) => format!("inactive: {why}"),
    };
    let version = row.version.as_deref().unwrap_or("");
    writeln!(out, "{} {version}  [{}]  {state}", row.name, row.scope)?;
    writeln!(out, "  source: {}", row.source)?;
    if !row.skills.is_empty() {
        writeln!(out, "  skills: {}", row.skills.join(", "))?;
    }
    if !row.commands.is_empty() {
        let names: Vec<String> = row
            .commands
            .iter()
            .map(|c| format!("/{}:{}", row.name, c.name))
            .collect();
        writeln!(out, "  commands: {}", names.join(", "))?;
    }
    for s in &row.mcp_servers {
        writeln!(out, "  MCP server {}: {}", s.name, s.target)?;
    }
    for h in &row.hooks {
        writeln!(out, "  hook {}: {}", h.event, h.command)?;
    }
    for p in &row.problems {
        writeln!(out, "  problem: {p}")?;
    }
    Ok(())
}
