//! `doctor`, `doctor.run` (the checks are in [`crate::doctor`]), `config.status`,
//! `lock.list`, `factory.reset`, `shutdown`.

use seekclaw_protocol::api::{ConfigFileView, ConfigStatusView, FactoryResetResult};
use seekclaw_protocol::{Envelope, MethodError, Params, event, method};

use super::Reply;
use crate::connection::Connection;
use crate::ctx::Ctx;
use crate::doctor::{self, Host};
use crate::error::Wire;
use seekclaw_engine::config_service::FileHealth;

pub async fn doctor_text(daemon: &Ctx, id: i64, p: &Params) -> Reply {
    let root = doctor_root(daemon, p)?;
    let checks = doctor::local_checks(daemon, Host::Daemon, &root).await;
    Ok(Envelope::result(id, doctor::text(&checks)))
}

/// Local checks plus a probe of every enabled provider.
pub async fn doctor_run(daemon: &Ctx, id: i64, p: &Params) -> Reply {
    let root = doctor_root(daemon, p)?;
    let checks = doctor::all_checks(daemon, Host::Daemon, &root).await;
    Ok(Envelope::json_result(id, &checks))
}

/// The workspace a doctor request names, else the daemon's current one.
fn doctor_root(daemon: &Ctx, p: &Params) -> Result<std::path::PathBuf, MethodError> {
    match p.read::<method::DoctorRun>()?.workspace {
        Some(raw) if !raw.trim().is_empty() => crate::scope::resolve_workspace_path(daemon, &raw),
        _ => Ok(daemon.current_workspace()),
    }
}

/// How `config.json` and `state.json` read (a front end shows a problem
/// line), and the hook and rule entries skipped in the policy files of the
/// current workspace (those of `config.json` are among its warnings too, so
/// a client that knows only `files` still shows them).
pub async fn config_status(daemon: &Ctx, id: i64) -> Reply {
    let root = daemon.current_workspace();
    // A policy that cannot be read at all leaves the files' own status as is.
    let problems: Vec<_> = match daemon.engine.policy_view(Some(&root)).await {
        Ok(view) => view
            .problems
            .iter()
            .map(crate::policy::problem_view)
            .collect(),
        Err(e) => {
            tracing::warn!("config.status: the policy could not be read: {}", e.message);
            Vec::new()
        }
    };
    let config_path = daemon.engine.home.config_path().display().to_string();
    let status = daemon.engine.config.status();
    let view = |name: &str, health: &FileHealth| ConfigFileView {
        name: name.to_string(),
        path: daemon.engine.home.root().join(name).display().to_string(),
        error: health.problem.as_ref().map(ToString::to_string),
        line: health
            .problem
            .as_ref()
            .and_then(|p| p.line)
            .map(|l| l as u64),
        column: health
            .problem
            .as_ref()
            .and_then(|p| p.column)
            .map(|c| c as u64),
        warnings: health.warnings.iter().map(ToString::to_string).collect(),
    };
    let mut config = view("config.json", &status.config);
    config.warnings.extend(
        problems
            .iter()
            .filter(|p| p.file == config_path)
            .map(|p| format!("{}: {}", p.path, p.message)),
    );
    let files = vec![config, view("state.json", &status.state)];
    let ok = files
        .iter()
        .all(|f| f.error.is_none() && f.warnings.is_empty());
    Ok(Envelope::json_result(
        id,
        &ConfigStatusView {
            ok,
            using_last_good: status.using_last_good,
            files,
            policy_problems: problems,
        },
    ))
}

/// Held file write locks, from the daemon-wide coordinator.
pub fn lock_list(daemon: &Ctx, id: i64) -> Reply {
    Ok(Envelope::json_result(id, &daemon.engine.locks.snapshot()))
}

pub async fn factory_reset(daemon: &Ctx, conn: &Connection, id: i64) -> Reply {
    stop_connection_turns(conn).await;
    daemon.engine.config.reset().await.wire()?;
    daemon.db(|s| s.reset()).await?;
    daemon.engine.forget_everything().await.wire()?;
    let home = daemon.engine.home.clone();
    tokio::task::spawn_blocking(move || {
        let _ = std::fs::remove_file(home.usage_path());
        for dir in [home.logs_dir(), home.prompts_dir(), home.skills_dir()] {
            if dir.is_dir() {
                let _ = std::fs::remove_dir_all(&dir);
            }
            let _ = std::fs::create_dir_all(&dir);
        }
    })
    .await
    .map_err(|e| seekclaw_protocol::MethodError::internal(e.to_string()))?;
    // Global MCP servers are gone from the config now: stop them.
    crate::extensions::activate(daemon, false).await;
    tracing::warn!("factory reset done");
    Ok(Envelope::json_result(
        id,
        &FactoryResetResult {
            ok: true,
            home: daemon.engine.home.root().display().to_string(),
        },
    ))
}

/// Cancels this connection's turns and waits (bounded) until they have ended, so
/// their `cancelled` terminals go out first.
pub async fn stop_connection_turns(conn: &Connection) {
    for chat in conn.chats.all() {
        chat.cancel.cancel();
    }
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(5);
    while !conn.chats.all().is_empty() && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
}

pub async fn shutdown(daemon: &Ctx, conn: &Connection, id: i64) -> Reply {
    tracing::info!("shutdown requested by a client");
    stop_connection_turns(conn).await;
    daemon.engine.turns.cancel_all();
    conn.closing.cancel();
    daemon.shutdown.cancel();
    // `bye` means nobody is accepted any more: a client that reconnects at
    // once is refused (or reaches the next daemon), never this one.
    let _ = tokio::time::timeout(
        std::time::Duration::from_secs(1),
        daemon.not_listening.cancelled(),
    )
    .await;
    Ok(Envelope::new(id, event::BYE, ""))
}
