//! `seekclaw run`: one turn with the same engine, in-process, no daemon needed.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use seekclaw_agent::{AgentEvent, SteerQueue, TurnInput, TurnOutcome, owner_id, run_turn};
use seekclaw_config::{Home, ReasoningLevel, detect_root, normalize_path};
use seekclaw_protocol::MethodError;
use seekclaw_store::{NewSession, Store};
use tokio_util::sync::CancellationToken;

use crate::config_service::ConfigService;
use crate::extras_cache::ExtrasCache;
use crate::handlers::chat::{build_runtime, envelope};
use crate::handlers::session::new_session_id;
use crate::scope::Scope;

/// What `seekclaw run` was asked.
#[derive(Debug, Clone)]
pub struct RunOptions {
    pub home: Home,
    pub cwd: PathBuf,
    pub prompt: String,
    pub workspace: Option<PathBuf>,
    /// Run in the global scope instead of a workspace.
    pub global: bool,
    pub session: Option<String>,
    /// Print protocol envelopes as JSONL instead of plain text.
    pub json: bool,
}

/// How the run ended, for the exit code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunResult {
    Done,
    Cancelled,
    Failed(String),
}

fn print_event(json: bool, session: &str, ev: AgentEvent, out: &mut impl Write) {
    if json {
        let _ = out.write_all(&envelope(0, session, ev).to_line());
    } else if let AgentEvent::Delta(d) = ev {
        let _ = out.write_all(d.as_bytes());
    } else if let AgentEvent::ToolStart { name, summary, .. } = ev {
        let _ = writeln!(std::io::stderr(), "\n[{name}] {summary}");
    }
    let _ = out.flush();
}

/// Runs one turn; Ctrl-C cancels it cleanly, a second Ctrl-C at once.
pub async fn run(opts: RunOptions) -> Result<RunResult, MethodError> {
    let home = opts.home.clone();
    home.ensure()
        .map_err(|e| MethodError::internal(e.to_string()))?;
    let store = {
        let path = home.db_path();
        tokio::task::spawn_blocking(move || Store::open(&path))
            .await
            .map_err(|e| MethodError::internal(e.to_string()))?
            .map_err(crate::error::store_error)?
    };
    let config_service = ConfigService::new(home.clone());
    let config = config_service.load();
    let scope = if opts.global {
        Scope::global()
    } else {
        let start = normalize_path(
            opts.workspace.as_deref().unwrap_or(Path::new(".")),
            &opts.cwd,
        );
        if !start.is_dir() {
            return Err(MethodError::not_found(format!(
                "Workspace directory not found: {}",
                start.display()
            )));
        }
        Scope::of_root(&detect_root(&start, &home))
    };
    let level = config.agent.reasoning_level;
    let session = {
        let (store, key, ws, wanted) = (
            store.clone(),
            scope.key.clone(),
            scope.workspace_string(),
            opts.session.clone(),
        );
        tokio::task::spawn_blocking(move || match wanted {
            Some(id) => store.session(&key, &id).map(|s| s.ok_or(id)),
            None => store
                .create_session(&NewSession {
                    scope: key,
                    id: new_session_id(),
                    workspace: ws,
                    title: None,
                    reasoning_level: level.as_str().to_string(),
                    network_enabled: true,
                })
                .map(Ok),
        })
        .await
        .map_err(|e| MethodError::internal(e.to_string()))?
        .map_err(crate::error::store_error)?
        .map_err(|id| MethodError::not_found(format!("Session {id} not found")))?
    };
    let providers = seekclaw_providers::Providers::new();
    let tools = seekclaw_tools::builtin_registry();
    let locks = Arc::new(seekclaw_tools::WriteLocks::new());
    let mut runtime = build_runtime(&home, config, &store, &providers, &tools, &locks, &scope)?;
    runtime.balance = crate::balance::for_turn(&config_service, &store, &runtime).await;
    let cancel = CancellationToken::new();
    let force = CancellationToken::new();
    let (first, second) = (cancel.clone(), force.clone());
    // Ctrl-C cancels the turn (its stream and tools end, its partial answer is
    // kept); a second Ctrl-C stops waiting for that clean end.
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            first.cancel();
            if tokio::signal::ctrl_c().await.is_ok() {
                second.cancel();
            }
        }
    });
    let sid = session.id.clone();
    let owner = owner_id(&sid);
    let input = TurnInput {
        scope: scope.key.clone(),
        session_id: sid.clone(),
        message: opts.prompt.clone(),
        images: Vec::new(),
        reasoning: ReasoningLevel::parse(&session.reasoning_level).unwrap_or(level),
        network_enabled: session.network_enabled,
        history: None,
    };
    let steer = SteerQueue::new();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    // The same MCP servers and skills as a daemon turn; the servers end with the run.
    let mcp = seekclaw_mcp::McpManager::new();
    let cache = ExtrasCache::default();
    let extras = crate::extensions::turn_extras(&mcp, &cache, &runtime);
    let turn = run_turn(&runtime, input, &owner, &steer, &tx, &cancel, extras);
    tokio::pin!(turn);
    let mut stdout = std::io::stdout().lock();
    let outcome = loop {
        tokio::select! {
            biased;
            Some(ev) = rx.recv() => print_event(opts.json, &sid, ev, &mut stdout),
            outcome = &mut turn => break outcome,
            _ = force.cancelled() => {
                // The turn is dropped unfinished: its log keeps the active
                // mark, so the next daemon start records it as interrupted.
                let _ = writeln!(stdout);
                return Ok(RunResult::Cancelled);
            }
        }
    };

    while let Ok(ev) = rx.try_recv() {
        print_event(opts.json, &sid, ev, &mut stdout);
    }
    let session_id = Some(sid);
    let result = match &outcome {
        TurnOutcome::Done(_) => RunResult::Done,
        TurnOutcome::Cancelled(_) => RunResult::Cancelled,
        TurnOutcome::Failed(f) => RunResult::Failed(f.message.clone()),
        TurnOutcome::Unsaved { error, .. } => RunResult::Failed(error.clone()),
    };
    let terminal = crate::outcome::terminal(0, session_id, outcome);
    if opts.json {
        let _ = stdout.write_all(&terminal.to_line());
    } else {
        let _ = writeln!(stdout);
    }
    let _ = stdout.flush();
    tokio::select! {
        _ = mcp.shutdown() => {}
        _ = force.cancelled() => return Ok(result),
    }
    let final_store = store.clone();
    let _ = tokio::task::spawn_blocking(move || final_store.checkpoint()).await;
    Ok(result)
}
