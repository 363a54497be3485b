//! `seekclaw chat "prompt"` with stdout not a terminal: one turn through the
//! daemon, its answer printed as it streams (as `seekclaw run` prints it).

use std::io::Write;

use seekclaw_client::EventKind;
use seekclaw_protocol::api::{CancelParams, ChatParams};
use seekclaw_protocol::method;
use tokio::signal::unix::{SignalKind, signal};

use crate::lifecycle::Daemon;
use crate::{ChatOptions, TuiError, open_session};

/// Runs the prompt's turn and prints the answer.
pub async fn run(opts: ChatOptions) -> Result<(), TuiError> {
    let Some(prompt) = opts.prompt.clone() else {
        return Err(TuiError::NoPrompt);
    };
    let mut daemon = Daemon::connect_or_start(&opts.home).await?;
    let outcome = turn(&mut daemon, &opts, &prompt).await;
    daemon.close().await;
    outcome
}

async fn turn(daemon: &mut Daemon, opts: &ChatOptions, prompt: &str) -> Result<(), TuiError> {
    // Ctrl-C cancels the turn (the daemon keeps what was answered), then the
    // process ends through `Daemon::close` like any other exit.
    let mut interrupt = signal(SignalKind::interrupt()).map_err(TuiError::Terminal)?;
    let mut terminate = signal(SignalKind::terminate()).map_err(TuiError::Terminal)?;
    let conn = &daemon.conn;
    let sid = match open_session(conn, &opts.scope, &opts.session).await? {
        Some(detail) => detail.id,
        None => {
            conn.call::<method::SessionNew>(&opts.scope.new_session())
                .await?
        }
    };
    let (workspace, global) = opts.scope.fields();
    let params = ChatParams {
        message: Some(prompt.to_string()),
        session_id: Some(sid),
        workspace,
        global,
        ..Default::default()
    };
    let id = conn.send::<method::Chat>(&params).await?;
    let cancel = CancelParams {
        request_id: Some(id),
        ..Default::default()
    };
    let mut out = std::io::stdout().lock();
    let mut streamed = false;
    let mut cancelling = false;
    loop {
        let env = tokio::select! {
            env = daemon.events.recv() => match env {
                Some(env) => env,
                None => return Err(TuiError::Disconnected),
            },
            _ = interrupt.recv(), if !cancelling => {
                cancelling = true;
                conn.send::<method::AgentCancel>(&cancel).await?;
                continue;
            }
            _ = terminate.recv(), if !cancelling => {
                cancelling = true;
                conn.send::<method::AgentCancel>(&cancel).await?;
                continue;
            }
        };
        if env.id != id {
            continue;
        }
        match env.kind() {
            EventKind::Delta => {
                streamed = true;
                let _ = out.write_all(env.data.as_bytes());
                let _ = out.flush();
            }
            EventKind::ToolStart(start) => eprintln!("[{}] {}", env.data, start.summary),
            kind @ (EventKind::Done | EventKind::Cancelled) => {
                if !streamed {
                    let _ = out.write_all(env.data.as_bytes());
                }
                let _ = writeln!(out);
                return if let EventKind::Done = kind {
                    Ok(())
                } else {
                    Err(TuiError::Cancelled)
                };
            }
            EventKind::Error(_) => return Err(TuiError::Daemon(env.data)),
            _ => {}
        }
    }
}
