//! `seekclaw chat "prompt"` with stdout not a terminal: one turn through the
//! daemon, its answer printed as it streams (as `seekclaw run` prints it).

use std::io::Write;

use serde_json::json;

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
    let conn = &daemon.conn;
    let sid = match open_session(conn, &opts.scope, &opts.session).await? {
        Some(detail) => detail["id"].as_str().unwrap_or_default().to_string(),
        None => conn.call("session.new", opts.scope.params()).await?,
    };
    let params = opts
        .scope
        .with(json!({"message": prompt, "sessionId": sid}));
    let id = conn.send("chat", params).await?;
    let mut out = std::io::stdout().lock();
    let mut streamed = false;
    while let Some(env) = daemon.events.recv().await {
        if env.id != id {
            continue;
        }
        match env.event.as_str() {
            "delta" => {
                streamed = true;
                let _ = out.write_all(env.data.as_bytes());
                let _ = out.flush();
            }
            "tool_start" => {
                let summary = env.details["summary"].as_str().unwrap_or_default();
                eprintln!("[{}] {summary}", env.data);
            }
            "done" | "cancelled" => {
                if !streamed {
                    let _ = out.write_all(env.data.as_bytes());
                }
                let _ = writeln!(out);
                return Ok(());
            }
            "error" => return Err(TuiError::Daemon(env.data)),
            _ => {}
        }
    }
    Err(TuiError::Disconnected)
}
