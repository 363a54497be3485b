//! `seekclaw`: runs the daemon and talks to it.
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]

mod acp;
mod admin;
mod budget;
mod chat;
#[cfg(unix)]
mod chat_hint;
mod client;
mod config_check;
mod cwd;
mod doctor;
mod fleet;
mod inspect;
mod listing;
mod logging;
mod mcp;
mod mcp_login;
mod mcp_serve;
mod pipes;
mod plugin;
mod policy;
mod provider_add;
mod review;
mod run;
mod run_pretty;
mod schedule;
mod serve;
mod sessions;
mod sessions_file;
mod sessions_log;
mod sessions_rewind;
mod sessions_search;
mod table;

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use seekclaw_config::Home;
use seekclaw_daemon::{DaemonError, DaemonOptions};

#[derive(Parser)]
#[command(
    name = "seekclaw",
    version,
    about = "Local AI coding-agent runtime and daemon",
    long_about = "Local AI coding-agent runtime and daemon.\n\n\
        Without a command, `seekclaw` is `seekclaw chat`: it takes the chat's flags and a \
        first prompt (`seekclaw --continue`, `seekclaw --global`, `seekclaw \"fix the test\"`).",
    // `seekclaw --continue sessions` is a mistake, not a chat.
    args_conflicts_with_subcommands = true
)]
struct Cli {
    /// Without a command: `seekclaw chat`.
    #[command(subcommand)]
    command: Option<Command>,
    /// The chat's flags and first prompt, for `seekclaw` without a command.
    #[command(flatten)]
    chat: chat::ChatArgs,
}

#[derive(Subcommand)]
enum Command {
    /// The terminal UI (the default): a client of the daemon, which it starts
    /// on demand when none runs (that one exits once no client is left).
    Chat(chat::ChatArgs),
    /// Run the daemon in the foreground (socket `$SEEKCLAW_HOME/daemon.sock`).
    Daemon(DaemonArgs),
    /// Run one agent turn in-process (no daemon needed) and stream the answer;
    /// with `--concurrency N`, the task in N copies of the workspace side by side.
    Run(run::RunArgs),
    /// Review `base...HEAD` and the working tree's uncommitted changes
    /// read-only and print one report (JSON with `--json`); exits 0 without
    /// blockers, 1 no report, 2 a blocker found.
    Review(review::ReviewArgs),
    /// The copies `run --concurrency` made: list them, apply one copy's
    /// changes to the original, remove them.
    #[command(subcommand)]
    Fleet(fleet::FleetCommand),
    /// Serve the engine over stdin/stdout: JSONL commands in, JSONL events out
    /// (the OpenSeek protocol).
    Serve(serve::ServeArgs),
    /// Serve the engine to an editor as an Agent Client Protocol agent over
    /// stdin/stdout (Zed, JetBrains IDEs, Neovim).
    Acp(acp::AcpArgs),
    /// Manage providers in config.json.
    #[command(subcommand)]
    Provider(admin::ProviderCommand),
    /// Inspect models.
    #[command(subcommand)]
    Model(admin::ModelCommand),
    /// Check the MCP servers of a workspace: connect each, list its tools, report failures;
    /// `mcp serve`: be an MCP server for other agents.
    Mcp(mcp::McpArgs),
    /// Manage scheduled tasks (kept and run by the daemon; `list` also reads
    /// them with none running).
    #[command(subcommand)]
    Schedule(schedule::ScheduleCommand),
    /// Spend budgets: what applies and what was spent (`show`), or set
    /// one (`set session 2.50 --session ID`, `set day 10`).
    #[command(subcommand)]
    Budget(budget::BudgetCommand),
    /// List, show, export and import sessions (the store directly; no daemon needed).
    #[command(subcommand)]
    Sessions(sessions::SessionsCommand),
    /// Permission rules: the decision for a tool call or command and the
    /// rule that made it (`check -- git push`), or every rule by layer (`list`).
    #[command(subcommand)]
    Permissions(policy::PermissionsCommand),
    /// Lifecycle hooks (Claude Code's format): list them by layer, approve
    /// a workspace's hook set.
    #[command(subcommand)]
    Hooks(policy::HooksCommand),
    /// Plugins (Claude Code's layout: skills, commands, hooks, MCP servers):
    /// add from a folder, git or a marketplace, list, enable, disable, remove.
    #[command(subcommand)]
    Plugin(plugin::PluginCommand),
    /// Check the setup (home, config, providers, workspace, sandbox, MCP,
    /// database): through the running daemon, or in this process when none
    /// runs. Exits 1 when a check fails.
    Doctor(doctor::DoctorArgs),
    /// Create the project's `.seekclaw/` folder (starter config and memory
    /// file) and add `.seekclaw/`, `.session/`, `.cache/` and `logs/` to its
    /// `.gitignore` (printed line by line; `--no-gitignore` leaves it alone);
    /// never overwrites.
    Init(doctor::InitArgs),
    /// Describe the daemon protocol.
    #[command(subcommand)]
    Protocol(ProtocolCommand),
    /// Browse the sessions in a local web page (read-only; 127.0.0.1 and a
    /// token), with live tail; or `--export` them to one HTML file.
    Inspect(inspect::InspectArgs),
}

/// `seekclaw daemon`: runs until `shutdown`, SIGTERM or SIGINT, unless on demand.
#[derive(clap::Args)]
struct DaemonArgs {
    /// Exit by itself once no client has been connected for the idle delay
    /// and no turn, scheduled run, background job or due schedule is left
    /// (how `seekclaw chat` starts one). Without it the daemon keeps running,
    /// as schedules need.
    #[arg(long)]
    on_demand: bool,
    /// The idle delay of `--on-demand`, in seconds (default 60, or
    /// `$SEEKCLAW_IDLE_EXIT`).
    #[arg(long, value_name = "SECS", requires = "on_demand", value_parser = clap::value_parser!(u64).range(1..))]
    idle_exit: Option<u64>,
}

/// How long an on-demand daemon waits with no client before it exits.
const DEFAULT_IDLE_EXIT_SECS: u64 = 60;

impl DaemonArgs {
    /// The idle delay, or `None` for a daemon that runs until stopped.
    /// `$SEEKCLAW_IDLE_EXIT` reaches a daemon a front end starts (tests, tuning).
    fn idle_exit(&self) -> anyhow::Result<Option<std::time::Duration>> {
        if !self.on_demand {
            return Ok(None);
        }
        let secs = match (self.idle_exit, std::env::var("SEEKCLAW_IDLE_EXIT")) {
            (Some(secs), _) => secs,
            (None, Ok(text)) => match text.trim().parse::<u64>() {
                Ok(secs) if secs > 0 => secs,
                _ => anyhow::bail!(
                    "SEEKCLAW_IDLE_EXIT must be a whole number of seconds above 0, not {text:?}"
                ),
            },
            (None, Err(_)) => DEFAULT_IDLE_EXIT_SECS,
        };
        Ok(Some(std::time::Duration::from_secs(secs)))
    }
}

#[derive(Subcommand)]
enum ProtocolCommand {
    /// Print the JSON Schema (draft 2020-12) of every request, envelope,
    /// method params and result, and event.
    Schema(SchemaArgs),
}

#[derive(clap::Args)]
struct SchemaArgs {
    /// The schema of `seekclaw serve`'s protocol instead (OpenSeek: commands
    /// on stdin, events on stdout; also `run --events`).
    #[arg(long)]
    serve: bool,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // The MCP SDK logs every message it handles at info: an MCP server's
    // stderr (its client's log) keeps only its warnings.
    let default_filter = match &cli.command {
        Some(Command::Mcp(args)) if args.is_serve() => "info,rmcp=warn",
        _ => "info",
    };
    // Servers log to stderr (their log channel); every other command to
    // the home's log file, never into what it draws or prints.
    let server = match &cli.command {
        Some(Command::Daemon(_) | Command::Serve(_) | Command::Acp(_)) => true,
        Some(Command::Mcp(args)) => args.is_serve(),
        _ => false,
    };
    logging::init(
        logging::Sink::choose(
            server,
            std::env::var(logging::LOG_ENV).ok().as_deref(),
            std::io::IsTerminal::is_terminal(&std::io::stderr()),
            Home::from_env().ok().as_ref(),
        ),
        default_filter,
    );
    let Some(command) = cli.command else {
        // A mistyped command must not go to a model as a prompt.
        if let Some(near) = cli.chat.prompt.as_deref().and_then(command_like) {
            let word = cli.chat.prompt.as_deref().unwrap_or_default().trim();
            let why = if word.eq_ignore_ascii_case(&near) {
                // `seekclaw --continue doctor`: a flag put the command in the prompt's place.
                format!("`{word}` is a command: run `seekclaw {near}` without the chat's flags")
            } else {
                format!("unknown command `{word}` (did you mean `seekclaw {near}`?)")
            };
            return report(Err(anyhow::anyhow!(
                "{why}; to send it as a prompt, use `seekclaw chat \"{word}\"`"
            )));
        }
        return chat::chat(cli.chat);
    };
    if matches!(
        command,
        Command::Provider(_)
            | Command::Model(_)
            | Command::Schedule(_)
            | Command::Budget(_)
            | Command::Sessions(_)
            | Command::Permissions(_)
            | Command::Hooks(_)
            | Command::Plugin(_)
            | Command::Protocol(_)
    ) {
        pipes::end_quietly_on_closed_stdout();
    }
    match command {
        Command::Chat(args) => chat::chat(args),
        Command::Daemon(args) => run_daemon(&args),
        Command::Run(args) => run::run(args),
        Command::Review(args) => match gate() {
            Ok(()) => review::run(args),
            Err(e) => report(Err(e)),
        },
        Command::Serve(args) => serve::serve(args),
        Command::Acp(args) => acp::acp(args),
        Command::Provider(cmd) => report(
            Home::from_env()
                .map_err(Into::into)
                .and_then(|h| admin::provider(&h, cmd)),
        ),
        Command::Model(cmd) => report(
            Home::from_env()
                .map_err(Into::into)
                .and_then(|h| admin::model(&h, cmd)),
        ),
        Command::Mcp(args) => match gate() {
            Ok(()) => mcp::mcp(args),
            Err(e) => report(Err(e)),
        },
        Command::Fleet(cmd) => report(
            Home::from_env()
                .map_err(Into::into)
                .and_then(|h| fleet::fleet(&h, cmd)),
        ),
        Command::Schedule(cmd) => report(
            Home::from_env()
                .map_err(Into::into)
                .and_then(|h| schedule::schedule(&h, cmd)),
        ),
        Command::Budget(cmd) => report(
            Home::from_env()
                .map_err(Into::into)
                .and_then(|h| budget::budget(&h, cmd)),
        ),
        Command::Sessions(cmd) => report(
            Home::from_env()
                .map_err(Into::into)
                .and_then(|h| sessions::sessions(&h, cmd)),
        ),
        Command::Permissions(cmd) => report(
            Home::from_env()
                .map_err(Into::into)
                .and_then(|h| policy::permissions(&h, cmd)),
        ),
        Command::Hooks(cmd) => report(
            Home::from_env()
                .map_err(Into::into)
                .and_then(|h| policy::hooks(&h, cmd)),
        ),
        Command::Plugin(cmd) => report(
            Home::from_env()
                .map_err(Into::into)
                .and_then(|h| plugin::plugin(&h, cmd)),
        ),
        Command::Doctor(args) => match Home::from_env()
            .map_err(Into::into)
            .and_then(|h| doctor::doctor(&h, &args))
        {
            Ok(false) => ExitCode::SUCCESS,
            Ok(true) => ExitCode::from(1),
            Err(e) => report(Err(e)),
        },
        Command::Init(args) => report(
            Home::from_env()
                .map_err(Into::into)
                .and_then(|h| doctor::init(&h, &args)),
        ),
        Command::Protocol(ProtocolCommand::Schema(args)) => report(print_schema(&args)),
        Command::Inspect(args) => report(
            Home::from_env()
                .map_err(Into::into)
                .and_then(|h| inspect::inspect(&h, args)),
        ),
    }
}

/// The command a one-word prompt looks like a typo of (`sesions`,
/// `doctr`): a prompt of one word that is a command's prefix or within two
/// edits of its name.
fn command_like(prompt: &str) -> Option<String> {
    use clap::CommandFactory;
    let word = prompt.trim();
    if word.is_empty() || word.contains(char::is_whitespace) {
        return None;
    }
    let word = word.to_lowercase();
    let cli = Cli::command();
    let names: Vec<String> = cli
        .get_subcommands()
        .filter(|c| !c.is_hide_set())
        .map(|c| c.get_name().to_string())
        .collect();
    names
        .into_iter()
        .map(|name| (strsim::levenshtein(&word, &name), name))
        .filter(|(d, name)| {
            *d <= 1 + usize::from(name.len() > 4) || (word.len() >= 3 && name.starts_with(&word))
        })
        .min_by_key(|(d, _)| *d)
        .map(|(_, name)| name)
}

/// A front end that reads `config.json` in this process says first, before
/// it computes or connects anything, that the file cannot be read.
fn gate() -> anyhow::Result<()> {
    config_check::require_readable(&Home::from_env()?)
}

/// `seekclaw protocol schema [--serve]`: the document, pretty-printed.
fn print_schema(args: &SchemaArgs) -> anyhow::Result<()> {
    use std::io::Write;
    let doc = if args.serve {
        seekclaw_protocol::openseek::schema()
    } else {
        seekclaw_protocol::schema()
    };
    let text = serde_json::to_string_pretty(&doc)?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{text}")?;
    Ok(())
}

fn report(result: anyhow::Result<()>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("seekclaw: {e:#}");
            ExitCode::from(1)
        }
    }
}

/// glibc raises its mmap threshold after freeing a large block and then keeps big
/// answers (a 4 MB session list) on the heap for good; a fixed threshold and two
/// arenas return that memory, so an idle daemon stays small.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn tune_allocator() {
    // SAFETY: mallopt only changes allocator parameters; called before any other
    // thread exists, so nothing allocates concurrently.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 256 * 1024);
        libc::mallopt(libc::M_ARENA_MAX, 2);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn tune_allocator() {}

fn run_daemon(args: &DaemonArgs) -> ExitCode {
    tune_allocator();
    let outcome = (|| -> anyhow::Result<Result<(), DaemonError>> {
        let idle_exit = args.idle_exit()?;
        let home = Home::from_env()?;
        let cwd = crate::cwd::working_dir()?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()?;
        Ok(runtime.block_on(seekclaw_daemon::run(DaemonOptions {
            home,
            cwd,
            idle_exit,
            // `seekclaw acp` hands its editor's connection to a running daemon.
            upgrades: seekclaw_daemon::Upgrades::default().with("acp", acp::daemon_server),
        })))
    })();
    match outcome {
        Ok(Ok(())) => ExitCode::SUCCESS,
        Ok(Err(e)) => {
            eprintln!("seekclaw: {e}");
            ExitCode::from(1)
        }
        Err(e) => {
            eprintln!("seekclaw: {e:#}");
            ExitCode::from(1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{CommandFactory, Parser};

    #[test]
    fn the_bare_command_takes_the_chats_flags_and_a_prompt() {
        Cli::command().debug_assert();
        let cli = Cli::try_parse_from(["seekclaw", "--continue", "--global"]).unwrap();
        assert!(cli.command.is_none());
        assert!(cli.chat.at.continue_latest && cli.chat.at.global);
        let cli = Cli::try_parse_from(["seekclaw", "fix the test"]).unwrap();
        assert_eq!(cli.chat.prompt.as_deref(), Some("fix the test"));
        let cli = Cli::try_parse_from(["seekclaw", "-c"]).unwrap();
        assert!(cli.chat.at.continue_latest);
        let cli = Cli::try_parse_from(["seekclaw", "--resume", "abc"]).unwrap();
        assert_eq!(cli.chat.at.session.as_deref(), Some("abc"));
        // Commands still win, and chat flags before one are an error.
        let cli = Cli::try_parse_from(["seekclaw", "sessions", "list"]).unwrap();
        assert!(matches!(cli.command, Some(Command::Sessions(_))));
        // A command after a chat flag lands in the prompt, which `main` refuses.
        let cli = Cli::try_parse_from(["seekclaw", "--continue", "doctor"]).unwrap();
        assert_eq!(
            cli.chat.prompt.as_deref().and_then(command_like).as_deref(),
            Some("doctor")
        );
    }

    /// The turn flags each command that runs turns takes, as parsed.
    fn turn_flags(args: &[&str]) -> seekclaw_exec::TurnFlags {
        let cli = Cli::try_parse_from(args).unwrap_or_else(|e| panic!("{args:?}: {e}"));
        match cli.command {
            Some(Command::Run(a)) => a.turn,
            Some(Command::Review(a)) => a.turn,
            Some(Command::Serve(a)) => a.turn,
            Some(Command::Mcp(a)) => a.serve_args().expect("mcp serve").turn.clone(),
            _ => panic!("{args:?} runs no turns"),
        }
    }

    /// Issue 37: one definition of the turn flags, so every command takes the
    /// same flags with the same default (`--max-steps`: unbounded).
    #[test]
    fn every_command_that_runs_turns_parses_the_turn_flags_alike() {
        let commands: [&[&str]; 5] = [
            &["seekclaw", "run", "task"],
            &["seekclaw", "run", "task", "--concurrency", "2"],
            &["seekclaw", "review"],
            &["seekclaw", "serve"],
            &["seekclaw", "mcp", "serve"],
        ];
        let flags = [
            "--model",
            "tk/m1",
            "--max-steps",
            "7",
            "--mode",
            "readonly",
            "--approval",
            "never",
            "--reasoning",
            "medium",
        ];
        let mut parsed = Vec::new();
        for command in commands {
            let bare = turn_flags(command);
            assert_eq!(bare, seekclaw_exec::TurnFlags::default(), "{command:?}");
            assert_eq!(bare.overrides().max_steps, Some(u32::MAX), "{command:?}");
            let with: Vec<&str> = command.iter().chain(&flags).copied().collect();
            parsed.push(turn_flags(&with));
        }
        assert_eq!(parsed[0].model.as_deref(), Some("tk/m1"));
        assert_eq!(parsed[0].overrides().max_steps, Some(7));
        assert!(parsed.iter().all(|p| *p == parsed[0]), "{parsed:?}");
        // `--workspace` is the same flag for the commands that take it.
        for command in [
            &["seekclaw", "run", "x"][..],
            &["seekclaw", "serve"],
            &["seekclaw", "review"],
        ] {
            let with: Vec<&str> = command
                .iter()
                .chain(&["--workspace", "/w"])
                .copied()
                .collect();
            let cli = Cli::try_parse_from(&with).unwrap();
            let dir = match cli.command {
                Some(Command::Run(a)) => a.at.dir,
                Some(Command::Serve(a)) => a.at.dir,
                Some(Command::Review(a)) => a.dir,
                _ => unreachable!(),
            };
            assert_eq!(dir.workspace.as_deref(), Some(std::path::Path::new("/w")));
        }
    }

    #[test]
    fn a_one_word_prompt_like_a_command_is_a_typo() {
        assert_eq!(command_like("sesions").as_deref(), Some("sessions"));
        assert_eq!(command_like("doctr").as_deref(), Some("doctor"));
        assert_eq!(command_like("sched").as_deref(), Some("schedule"));
        assert_eq!(command_like("rn").as_deref(), Some("run"));
        for prompt in ["hi", "hello", "fix", "explain this repo", "test", "go"] {
            assert_eq!(command_like(prompt), None, "{prompt}");
        }
    }
}
