//! `doctor`, `doctor.run`, `lock.list`, `factory.reset`, `shutdown`.

use std::path::Path;

use seekclaw_protocol::api::{DoctorCheck as Check, FactoryResetResult};
use seekclaw_protocol::{Envelope, event};

use super::Reply;
use crate::connection::Connection;
use crate::daemon::Daemon;

fn check(name: &str, ok: bool, detail: impl Into<String>) -> Check {
    Check {
        name: name.into(),
        ok,
        detail: detail.into(),
        kind: "runtime".into(),
    }
}

#[cfg(unix)]
fn mode_of(path: &Path) -> Option<u32> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path)
        .ok()
        .map(|m| m.permissions().mode() & 0o777)
}

#[cfg(not(unix))]
fn mode_of(_path: &Path) -> Option<u32> {
    None
}

/// Local checks of the daemon's current workspace, home, config and database.
pub async fn local_checks(daemon: &Daemon) -> Vec<Check> {
    let root = daemon.current_workspace();
    let meta = root.join(".seekclaw");
    let memory = meta.join("memory").join("MEMORY.md");
    let config = daemon.config.load();
    let mut checks = vec![
        if root.is_dir() {
            check("Workspace Root", true, root.display().to_string())
        } else {
            check(
                "Workspace Root",
                false,
                format!("Directory not found: {}", root.display()),
            )
        },
        if meta.is_dir() {
            check("SeekClaw Metadata Dir", true, meta.display().to_string())
        } else {
            check(
                "SeekClaw Metadata Dir",
                false,
                "Not initialized (run seekclaw init)",
            )
        },
        if config.providers.is_empty() {
            check("Provider Config", false, "No providers configured")
        } else {
            check(
                "Provider Config",
                true,
                format!(
                    "{} provider(s) configured. Active profile: {}",
                    config.providers.len(),
                    config.active_profile
                ),
            )
        },
        match std::fs::metadata(&memory) {
            Ok(m) if m.len() > 0 => check("Workspace Memory", true, memory.display().to_string()),
            _ => check("Workspace Memory", false, "Memory file empty/missing"),
        },
    ];
    let problems = daemon.config.problems();
    for file in ["config.json", "state.json"] {
        let name = format!("Config File {file}");
        match problems
            .iter()
            .rev()
            .find(|p| p.path.file_name().is_some_and(|n| n == file))
        {
            None => checks.push(check(
                &name,
                true,
                daemon.home.root().join(file).display().to_string(),
            )),
            Some(p) => checks.push(check(
                &name,
                false,
                format!(
                    "{} was invalid ({}); moved to {}; defaults in use",
                    file,
                    p.error,
                    p.moved_to
                        .as_ref()
                        .map(|m| m.display().to_string())
                        .unwrap_or_else(|| "(not moved)".into())
                ),
            )),
        }
    }
    let home_mode = mode_of(daemon.home.root());
    checks.push(check(
        "Home Directory",
        home_mode.is_none_or(|m| m == 0o700),
        match home_mode {
            Some(m) => format!("{} (mode {m:o})", daemon.home.root().display()),
            None => daemon.home.root().display().to_string(),
        },
    ));
    checks.push(sandbox_check(&config).await);
    checks.push(check(
        "Daemon",
        true,
        format!(
            "pid {}, {} client(s) connected, {} turn(s) running",
            std::process::id(),
            daemon.connections.count(),
            daemon.turns.count()
        ),
    ));
    match super::mcp::listing(daemon) {
        Ok(rows) => {
            for row in rows.iter().filter(|r| r.enabled) {
                let detail = match (&row.error, row.connected) {
                    (_, true) => {
                        format!("connected ({}), {} tool(s)", row.transport, row.tool_count)
                    }
                    (Some(e), false) => e.clone(),
                    (None, false) => row.status.to_string(),
                };
                checks.push(check(&format!("MCP {}", row.name), row.connected, detail));
            }
        }
        Err(e) => checks.push(check("MCP Config", false, e.message)),
    }
    match daemon.db(|s| s.stats()).await {
        Ok(stats) => checks.push(check(
            "Database",
            true,
            format!("{} session(s), {} event(s)", stats.sessions, stats.events),
        )),
        Err(e) => checks.push(check("Database", false, e.message)),
    }
    checks
}

/// What the kernel offers the shell sandbox and whether `agent.sandbox` can
/// be enforced (where it cannot, `bash` fails closed).
async fn sandbox_check(config: &seekclaw_config::Config) -> Check {
    use seekclaw_tools::{SandboxMode, SandboxSupport};
    let support = tokio::task::spawn_blocking(SandboxSupport::probe)
        .await
        .unwrap_or_else(|_| SandboxSupport::probe_cheap());
    let mode = config.agent.sandbox;
    let (ok, status) = match (mode, support.missing()) {
        (SandboxMode::Off, _) => (
            true,
            "off: shell commands run unsandboxed (workspaces may tighten it)".to_string(),
        ),
        (_, None) => (true, "enforced".to_string()),
        (_, Some(missing)) => (
            false,
            format!(
                "cannot be enforced ({missing}): bash and verify commands fail closed; \
                 set agent.sandbox to \"off\" to run them unsandboxed"
            ),
        ),
    };
    check(
        "Shell Sandbox",
        ok,
        format!("agent.sandbox = {mode}: {status}. {}", support.describe()),
    )
}

pub async fn doctor_text(daemon: &Daemon, id: i64) -> Reply {
    let text = local_checks(daemon)
        .await
        .iter()
        .map(|c| {
            format!(
                "[{}] {}: {}",
                if c.ok { "OK" } else { "FAIL" },
                c.name,
                c.detail
            )
        })
        .collect::<Vec<_>>()
        .join("\n");
    Ok(Envelope::result(id, text))
}

/// Local checks plus a probe of every enabled provider.
pub async fn doctor_run(daemon: &Daemon, id: i64) -> Reply {
    let mut checks = local_checks(daemon).await;
    let enabled: Vec<_> = daemon
        .config
        .load()
        .providers
        .into_iter()
        .filter(|p| p.enabled)
        .collect();
    for probe in super::provider::probe_all(daemon, enabled).await {
        checks.push(Check {
            name: format!("Provider {}", probe.id),
            ok: probe.online,
            detail: format!("{} ({} ms)", probe.detail, probe.latency_ms),
            kind: "provider".into(),
        });
    }
    Ok(Envelope::json_result(id, &checks))
}

/// Held file write locks, from the daemon-wide coordinator.
pub fn lock_list(daemon: &Daemon, id: i64) -> Reply {
    Ok(Envelope::json_result(id, &daemon.locks.snapshot()))
}

pub async fn factory_reset(daemon: &Daemon, conn: &Connection, id: i64) -> Reply {
    stop_connection_turns(conn).await;
    daemon.config.reset().await?;
    daemon.db(|s| s.reset()).await?;
    let home = daemon.home.clone();
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
            home: daemon.home.root().display().to_string(),
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

pub async fn shutdown(daemon: &Daemon, conn: &Connection, id: i64) -> Reply {
    tracing::info!("shutdown requested by a client");
    stop_connection_turns(conn).await;
    daemon.turns.cancel_all();
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
