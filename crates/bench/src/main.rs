//! `seekclaw-bench`: figures for the seekclaw daemon, each against a baseline
//! measured in the same run (the box is shared and noisy, so absolute numbers
//! mean little). Not a test: it prints, it never fails on a slow result.
//!
//! Build: `cargo build --release -p seekclaw -p seekclaw-bench`, then run
//! `seekclaw-bench ping`, `seekclaw-bench startup`, `seekclaw-bench search`,
//! `seekclaw-bench inspect`, `seekclaw-bench export`,
//! `seekclaw-bench turns`, `seekclaw-bench soak`, `seekclaw-bench tui`,
//! `seekclaw-bench lsp` or `seekclaw-bench fleet`.
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]

mod acp;
mod approvals;
mod canned;
mod checkpoints;
mod cpu;
mod daemon;
mod echo;
mod edits;
mod engine;
mod export;
mod fleet;
mod hooks;
mod http;
mod inspect;
mod inspect_page;
mod instructions;
mod load;
mod lsp;
mod mcp;
mod ping;
mod plugins;
mod populate;
mod pty;
mod resume;
mod sandbox;
mod search;
mod slow_reader;
mod soak;
mod startup;
mod stats;
mod subagents;
mod telemetry;
mod tui;
mod turns;
mod web_tools;

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand};

use crate::ping::Shape;

#[derive(Parser)]
#[command(name = "seekclaw-bench", about = "Benchmarks of the seekclaw daemon")]
struct Cli {
    /// The `seekclaw` binary (default: the one next to this executable).
    #[arg(long, global = true)]
    bin: Option<PathBuf>,
    /// Print one JSON object instead of the table.
    #[arg(long, global = true)]
    json: bool,
    #[command(subcommand)]
    command: BenchCommand,
}

#[derive(Subcommand)]
enum BenchCommand {
    /// `seekclaw acp`: initialize from spawn, first update after the provider's
    /// first token, idle RSS (with --opencode, `opencode acp` side by side).
    Acp {
        /// Spawns and prompts measured.
        #[arg(long, default_value_t = 20)]
        runs: usize,
        /// An `opencode` binary to measure in the same run (`BIN acp`).
        #[arg(long)]
        opencode: Option<PathBuf>,
        /// Zed's Codex ACP adapter to measure in the same run (npm
        /// `@zed-industries/codex-acp`; `BIN` is the agent).
        #[arg(long)]
        codex_acp: Option<PathBuf>,
    },
    /// Checkpoints on a generated workspace (in process): the first, after a
    /// one-file change, after a `bash` call that changed nothing, a rewind of
    /// 100 files, the store's growth over 50 one-line edits.
    Checkpoints {
        /// Files in the generated workspace.
        #[arg(long, default_value_t = 10_000)]
        files: usize,
        /// Bytes per file (10,000 x 10 KB = 100 MB).
        #[arg(long, default_value_t = 10_000)]
        file_bytes: usize,
        /// Timed checkpoints per shape.
        #[arg(long, default_value_t = 20)]
        runs: usize,
    },
    /// The user's hooks and rules (in process): the overhead of a `PreToolUse`
    /// hook per tool call against the same turn without hooks, deciding a
    /// compound command against 100 rules, reading the policy files.
    /// The near-miss edit corpus through the real binary: applied, refused
    /// and corrupted shares for edit_file and apply_patch (with --vs, the
    /// previous release side by side), and matching cost on a 10,000-line file.
    Edits {
        /// The previous release's `seekclaw`, run on the same cases.
        #[arg(long)]
        vs: Option<PathBuf>,
    },
    /// Resumable streams: replay of a turn's buffered events to a watcher
    /// that comes back (`session.watch {afterSeq}`), against the session's
    /// `session.timeline` in the same run.
    Resume {
        /// Deltas of the turn (each one buffered event).
        #[arg(long, default_value_t = 10_000)]
        events: usize,
        /// Measured watchers (the median is reported).
        #[arg(long, default_value_t = 15)]
        runs: usize,
    },
    /// Instruction files (in process): reading a 6-level tree's 10 files and
    /// building the system prompt, against none; through the real binary, the
    /// prompt-cache prefix reuse between consecutive requests.
    Instructions {
        /// Timed prompt builds per side.
        #[arg(long, default_value_t = 200)]
        runs: usize,
    },
    Hooks {
        /// Measured turns per side.
        #[arg(long, default_value_t = 30)]
        turns: usize,
    },
    /// OpenTelemetry export (in process): a turn's wall time with telemetry
    /// off, on to a local OTLP receiver, and on to a collector that never
    /// answers, interleaved in the same run (target: on within 2 % of off).
    Telemetry {
        /// Measured turns per side.
        #[arg(long, default_value_t = 40)]
        turns: usize,
    },
    /// Ping throughput and latency: daemon vs an in-process JSONL echo server.
    Ping {
        /// Measured seconds per run (after a 0.5 s warm-up).
        #[arg(long, default_value_t = 3.0)]
        seconds: f64,
        /// Alternating baseline/daemon rounds per configuration; the median is reported.
        #[arg(long, default_value_t = 2)]
        rounds: usize,
        /// Configurations as CONNECTIONSxIN_FLIGHT.
        #[arg(long, value_delimiter = ',', default_value = "1x1,1x64,16x16")]
        configs: Vec<Shape>,
    },
    /// Startup, session.list/get and idle RSS on a home with 10,000 sessions / 1,000,000 events.
    Startup {
        /// Home to reuse (population is skipped if it has a database) or to create and keep.
        #[arg(long)]
        home: Option<PathBuf>,
        /// Daemon start runs (the last one stays up for the read measurements).
        #[arg(long, default_value_t = 5)]
        runs: usize,
    },
    /// `seekclaw inspect` on the startup bench's home plus a 5,000-event
    /// session: the sidebar, the log, a model view and a search against the
    /// server's static stylesheet; the live tail; page loads in headless
    /// Chromium against a 100-event session's; idle RSS.
    Inspect {
        /// Home to reuse (population is skipped if it has a database) or to create and keep.
        #[arg(long)]
        home: Option<PathBuf>,
        /// Timed requests per endpoint (after one warm-up).
        #[arg(long, default_value_t = 50)]
        runs: usize,
        /// Appends timed through the live tail.
        #[arg(long, default_value_t = 50)]
        tails: usize,
        /// Timed page loads per session (after one warm-up).
        #[arg(long, default_value_t = 5)]
        loads: usize,
    },
    /// `seekclaw inspect --export` of one long session at STEPS/3 and STEPS
    /// steps: file size and time, and their growth, against `sessions
    /// export` of the same session (and `--baseline-bin`'s export).
    Export {
        /// Model steps of the larger session.
        #[arg(long, default_value_t = 300)]
        steps: usize,
        /// Timed exports per binary and session (after one warm-up).
        #[arg(long, default_value_t = 5)]
        runs: usize,
        /// Another `seekclaw` (a previous build) to export the same sessions with.
        #[arg(long)]
        baseline_bin: Option<PathBuf>,
    },
    /// Full-text search on the startup bench's home: `session.search` over the
    /// socket and `Store::search` in process, p50/p99 per query shape, against
    /// `ping`, `session.get` and a header read.
    Search {
        /// Home to reuse (population is skipped if it has a database) or to create and keep.
        #[arg(long)]
        home: Option<PathBuf>,
        /// Timed runs per query (after one warm-up).
        #[arg(long, default_value_t = 200)]
        runs: usize,
    },
    /// The engine's front ends: `serve` ready on a big home, a 300-step turn's
    /// per-step time and RSS, the store's appends per step (step 10 vs 300).
    Engine {
        /// Big home to reuse (population is skipped if it has a database) or to create and keep.
        #[arg(long)]
        home: Option<PathBuf>,
        /// `serve` starts per home.
        #[arg(long, default_value_t = 20)]
        runs: usize,
    },
    /// Subagents: a turn with three concurrent `explore` children against one
    /// (target < 1.3x), and a child's start-up cost (target < 20 ms).
    Subagents {
        /// Turns timed per shape (after one warm-up each).
        #[arg(long, default_value_t = 10)]
        runs: usize,
        /// How long the provider holds each child's answer, in ms.
        #[arg(long, default_value_t = 300)]
        delay: u64,
    },
    /// Plugins: daemon ready time with N plugins installed (their MCP servers
    /// connecting in the background) against none, in the same run.
    Plugins {
        /// Daemon starts per side.
        #[arg(long, default_value_t = 10)]
        runs: usize,
        /// Plugins installed on the measured side.
        #[arg(long, default_value_t = 5)]
        plugins: usize,
    },
    /// MCP: accept speed and first event with 3 stdio servers, tool call overhead vs direct.
    Mcp {
        /// Fresh connections timed per phase.
        #[arg(long, default_value_t = 200)]
        accepts: usize,
        /// Turns timed to their first envelope per daemon.
        #[arg(long, default_value_t = 100)]
        first_events: usize,
        /// MCP tool calls timed per side.
        #[arg(long, default_value_t = 200)]
        calls: usize,
    },
    /// Diagnostics after an edit: an edit's wall time with a warm pyright
    /// against the same edit with no `lsp` configured.
    Lsp {
        /// Turns per daemon after the warm-up.
        #[arg(long, default_value_t = 10)]
        turns: usize,
        /// `edit_file` calls per turn (even).
        #[arg(long, default_value_t = 20)]
        edits: usize,
        /// A previous release's `seekclaw`, whose edits (no `lsp`) are timed alongside.
        #[arg(long)]
        previous: Option<PathBuf>,
    },
    /// What a turn holds when its client stops reading mid-stream, against the
    /// same turn read at full speed.
    SlowReader {
        /// Deltas of the streamed answer.
        #[arg(long, default_value_t = 200_000)]
        deltas: usize,
        /// Seconds the client stops reading.
        #[arg(long, default_value_t = 5)]
        pause: u64,
    },
    /// Memory kept per turn: N small turns (read_file + deltas) one after
    /// another, RssAnon after a warm-up, after the turns and after idling,
    /// same-session and new-session; plus the idle daemon's RSS.
    Soak {
        /// Measured turns per variant.
        #[arg(long, default_value_t = 10_000)]
        turns: usize,
        /// Turns before the first reading: bounded caches fill meanwhile
        /// (the store writer's SQLite page cache reaches its 2 MB cap after
        /// ~1,500 small turns).
        #[arg(long, default_value_t = 2000)]
        warmup: usize,
        /// Deltas of each turn's answer.
        #[arg(long, default_value_t = 40)]
        deltas: usize,
        /// Seconds the daemon idles before the last reading.
        #[arg(long, default_value_t = 5)]
        idle_secs: u64,
        /// Variants to run (default: both).
        #[arg(long, value_enum, value_delimiter = ',')]
        only: Vec<soak::Variant>,
        /// Every turn on a new connection (as CLI runs are), not one shared.
        #[arg(long)]
        reconnect: bool,
    },
    /// Approvals: a one-tool turn answered `allow_once` at once vs the same
    /// turn under policy `never`, and the `agent.approve` round trip.
    Approvals {
        /// Measured turns per side (after 2 warm-up rounds).
        #[arg(long, default_value_t = 100)]
        turns: usize,
    },
    /// `seekclaw chat` in a pseudo-terminal: first paint, a fast stream's
    /// frames and CPU, keypress echo while streaming, idle wake-ups, RSS of a
    /// big session.
    Tui {
        /// First paints timed.
        #[arg(long, default_value_t = 30)]
        paints: usize,
        /// Deltas of the streamed answer.
        #[arg(long, default_value_t = 2000)]
        deltas: usize,
        /// Keypresses timed while an answer streams.
        #[arg(long, default_value_t = 200)]
        keys: usize,
        /// Trivial prompts timed from Enter to their answer on screen (and
        /// as many through the socket).
        #[arg(long, default_value_t = 30)]
        answers: usize,
        /// Seconds each idle window is measured.
        #[arg(long, default_value_t = 5.0)]
        idle_secs: f64,
        /// Messages of the big session opened for the RSS figure.
        #[arg(long, default_value_t = 5000)]
        messages: usize,
    },
    /// What the shell sandbox adds to a `bash` call: `bash -c true`
    /// unsandboxed vs `workspace-write`, interleaved (no daemon needed).
    Sandbox {
        #[arg(long, default_value_t = 200)]
        runs: usize,
        /// Sandbox with the session's network on (default: off, the stricter filter).
        #[arg(long)]
        network: bool,
    },
    /// `web_search`'s overhead over a local fake engine (100 kB results page)
    /// and `capture_screen` of a 1920x1080 Xvfb display to the model request.
    WebTools {
        /// web_search calls timed per side (after 10 warm-up rounds).
        #[arg(long, default_value_t = 200)]
        runs: usize,
        /// capture_screen turns timed per side (0: skip; needs Xvfb).
        #[arg(long, default_value_t = 20)]
        captures: usize,
    },
    /// `seekclaw run --concurrency N` on a generated workspace: copy time
    /// (against `cp -a`), peak RSS, wall time against N sequential runs.
    Fleet {
        /// Copies (N of `--concurrency`).
        #[arg(long, default_value_t = 4)]
        copies: usize,
        /// Files in the generated workspace.
        #[arg(long, default_value_t = 2000)]
        files: usize,
        /// Rounds (medians are printed).
        #[arg(long, default_value_t = 3)]
        runs: usize,
        /// How long each model reply waits before it starts (ms).
        #[arg(long, default_value_t = 300)]
        latency_ms: u64,
    },
    /// Agent turns: relay overhead, concurrent turns, cancel and first-event latency.
    Turns {
        /// Sections to run (default: all).
        #[arg(long, value_enum, value_delimiter = ',')]
        only: Vec<turns::Section>,
        /// Measured relay runs per side and transport (after 2 warm-up runs).
        /// Each run is ~10-20 ms; on a shared 2-core box the median of 10 moved
        /// by ±5 % between invocations, of 31 by about half that.
        #[arg(long, default_value_t = 31)]
        relay_runs: usize,
        /// Deltas of the relay turn.
        #[arg(long, default_value_t = 2000)]
        relay_deltas: usize,
        /// Concurrent turns (a multiple of --connections).
        #[arg(long, default_value_t = 500)]
        turns: usize,
        #[arg(long, default_value_t = 50)]
        connections: usize,
        /// Deltas of each concurrent turn's answer.
        #[arg(long, default_value_t = 100)]
        turn_deltas: usize,
        /// How long the tool-call replies hold their headers in the concurrent section (ms).
        #[arg(long, default_value_t = turns::DEFAULT_TOOL_DELAY.as_millis() as u64)]
        tool_delay_ms: u64,
        /// Cancelled turns per cancel point.
        #[arg(long, default_value_t = 50)]
        cancels: usize,
        /// Turns timed to their first envelope.
        #[arg(long, default_value_t = 100)]
        first_events: usize,
    },
}

fn main() -> Result<()> {
    let cli = Cli::parse();
    let bin = match cli.bin {
        // Absolute: some benches start the daemon in its home directory.
        Some(b) => std::path::absolute(b).context("resolve --bin")?,
        None => std::env::current_exe()
            .context("locate the bench executable")?
            .with_file_name("seekclaw"),
    };
    if let BenchCommand::Checkpoints {
        files,
        file_bytes,
        runs,
    } = cli.command
    {
        return checkpoints::run(&checkpoints::CheckpointArgs {
            files,
            file_bytes,
            runs,
            json: cli.json,
        });
    }
    if let BenchCommand::Edits { vs } = &cli.command {
        return edits::run(&edits::EditsArgs {
            bin: bin.clone(),
            vs: vs.as_deref().map(std::path::absolute).transpose()?,
            json: cli.json,
        });
    }
    if let BenchCommand::Resume { events, runs } = cli.command {
        return resume::run(&resume::ResumeArgs {
            bin: &bin,
            events,
            runs,
            json: cli.json,
        });
    }
    if let BenchCommand::Instructions { runs } = cli.command {
        return instructions::run(&instructions::InstructionsArgs {
            bin: bin.clone(),
            runs,
            json: cli.json,
        });
    }
    if let BenchCommand::Telemetry { turns } = cli.command {
        return telemetry::run(&telemetry::TelemetryArgs {
            turns,
            json: cli.json,
        });
    }
    if let BenchCommand::Hooks { turns } = cli.command {
        return hooks::run(&hooks::HooksArgs {
            turns,
            json: cli.json,
        });
    }
    if let BenchCommand::Sandbox { runs, network } = cli.command {
        return sandbox::run(&sandbox::SandboxArgs {
            runs,
            network,
            json: cli.json,
        });
    }
    if !bin.is_file() {
        bail!(
            "seekclaw binary not found at {} (build it with `cargo build --release -p seekclaw` or pass --bin)",
            bin.display()
        );
    }
    match cli.command {
        BenchCommand::Acp {
            runs,
            opencode,
            codex_acp,
        } => {
            let mut peers = Vec::new();
            if let Some(bin) = opencode {
                peers.push(acp::Peer {
                    label: "opencode acp",
                    bin,
                    args: vec!["acp"],
                });
            }
            if let Some(bin) = codex_acp {
                peers.push(acp::Peer {
                    label: "codex-acp",
                    bin,
                    args: Vec::new(),
                });
            }
            acp::run(&acp::AcpArgs {
                bin: &bin,
                runs,
                peers,
                json: cli.json,
            })
        }
        BenchCommand::Ping {
            seconds,
            rounds,
            configs,
        } => ping::run(&ping::PingArgs {
            bin: &bin,
            seconds,
            rounds,
            shapes: configs,
            json: cli.json,
        }),
        BenchCommand::Plugins { runs, plugins } => plugins::run(&plugins::PluginsArgs {
            bin: &bin,
            json: cli.json,
            runs,
            plugins,
        }),
        BenchCommand::Mcp {
            accepts,
            first_events,
            calls,
        } => mcp::run(&mcp::McpArgs {
            bin: &bin,
            json: cli.json,
            accepts,
            first_events,
            calls,
        }),
        BenchCommand::Lsp {
            turns,
            edits,
            previous,
        } => lsp::run(&lsp::LspArgs {
            bin: &bin,
            json: cli.json,
            turns,
            edits,
            previous: previous.as_deref(),
        }),
        BenchCommand::WebTools { runs, captures } => web_tools::run(&web_tools::WebToolsArgs {
            bin: &bin,
            runs,
            captures,
            json: cli.json,
        }),
        BenchCommand::SlowReader { deltas, pause } => {
            slow_reader::run(&slow_reader::SlowReaderArgs {
                bin: &bin,
                json: cli.json,
                deltas,
                pause: Duration::from_secs(pause),
            })
        }
        BenchCommand::Soak {
            turns,
            warmup,
            deltas,
            idle_secs,
            only,
            reconnect,
        } => soak::run(&soak::SoakArgs {
            bin: &bin,
            json: cli.json,
            turns,
            warmup,
            deltas,
            idle_secs,
            variants: only,
            reconnect,
        }),
        BenchCommand::Approvals { turns } => approvals::run(&approvals::ApprovalsArgs {
            bin: &bin,
            json: cli.json,
            turns,
        }),
        BenchCommand::Subagents { runs, delay } => subagents::run(&subagents::SubagentArgs {
            bin: &bin,
            runs,
            delay_ms: delay,
            json: cli.json,
        }),
        BenchCommand::Engine { home, runs } => engine::run(&engine::EngineArgs {
            bin: &bin,
            home,
            runs,
            json: cli.json,
        }),
        BenchCommand::Fleet {
            copies,
            files,
            runs,
            latency_ms,
        } => fleet::run(&fleet::FleetArgs {
            bin: &bin,
            copies,
            files,
            runs,
            latency: Duration::from_millis(latency_ms),
            json: cli.json,
        }),
        BenchCommand::Startup { home, runs } => startup::run(&startup::StartupArgs {
            bin: &bin,
            home,
            runs,
            json: cli.json,
        }),
        BenchCommand::Inspect {
            home,
            runs,
            tails,
            loads,
        } => inspect::run(&inspect::InspectArgs {
            bin: &bin,
            home,
            runs,
            tails,
            loads,
            json: cli.json,
        }),
        BenchCommand::Export {
            steps,
            runs,
            baseline_bin,
        } => export::run(&export::ExportArgs {
            bin: &bin,
            baseline_bin,
            steps,
            runs,
            json: cli.json,
        }),
        BenchCommand::Search { home, runs } => search::run(&search::SearchArgs {
            bin: &bin,
            home,
            runs,
            json: cli.json,
        }),
        BenchCommand::Tui {
            paints,
            deltas,
            keys,
            answers,
            idle_secs,
            messages,
        } => tui::run(&tui::TuiArgs {
            bin: &bin,
            json: cli.json,
            paints,
            deltas,
            keys,
            answers,
            idle_secs,
            messages,
        }),
        BenchCommand::Sandbox { .. }
        | BenchCommand::Checkpoints { .. }
        | BenchCommand::Hooks { .. }
        | BenchCommand::Telemetry { .. }
        | BenchCommand::Edits { .. }
        | BenchCommand::Instructions { .. }
        | BenchCommand::Resume { .. } => Ok(()),
        BenchCommand::Turns {
            only,
            relay_runs,
            relay_deltas,
            turns,
            connections,
            turn_deltas,
            tool_delay_ms,
            cancels,
            first_events,
        } => turns::run(&turns::TurnsArgs {
            bin: &bin,
            json: cli.json,
            sections: only,
            relay_runs,
            relay_deltas,
            concurrent: turns::ConcurrentPlan {
                turns,
                connections,
                deltas: turn_deltas,
                tool_delay: Duration::from_millis(tool_delay_ms),
            },
            cancels,
            first_events,
        }),
    }
}
