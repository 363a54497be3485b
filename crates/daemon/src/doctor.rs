//! The doctor's checks: one implementation for `doctor`, `doctor.run` and
//! `seekclaw doctor` without a daemon (which runs them over a [`Daemon`] of its
//! own that never listens). Optional things that are absent are `info`, and
//! every `fail` carries a fix that names a command that exists or the step to take.

use std::path::Path;

use seekclaw_config::Config;
use seekclaw_protocol::api::{CheckLevel, DoctorCheck as Check};

use crate::ctx::Ctx;
use seekclaw_engine::config_service::FileHealth;

/// Where the checks run: in the daemon that serves clients, or in a process
/// of its own (`seekclaw doctor` with no daemon running).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Host {
    /// The running daemon.
    Daemon,
    /// A process without a daemon: nothing is connected or running.
    InProcess,
}

fn check(name: &str, level: CheckLevel, detail: impl Into<String>, fix: Option<String>) -> Check {
    Check {
        name: name.into(),
        ok: level != CheckLevel::Fail,
        detail: detail.into(),
        kind: "runtime".into(),
        level,
        fix,
    }
}

fn ok(name: &str, detail: impl Into<String>) -> Check {
    check(name, CheckLevel::Ok, detail, None)
}

fn info(name: &str, detail: impl Into<String>) -> Check {
    check(name, CheckLevel::Info, detail, None)
}

fn fail(name: &str, detail: impl Into<String>, fix: impl Into<String>) -> Check {
    check(name, CheckLevel::Fail, detail, Some(fix.into()))
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

/// Local checks of the workspace, home, config, sandbox, daemon, MCP, language
/// servers and database.
pub async fn local_checks(daemon: &Ctx, host: Host, root: &Path) -> Vec<Check> {
    let status = daemon.engine.config.status();
    let config = daemon.engine.config.load();
    let mut checks = workspace_checks(root);
    checks.push(provider_config(&config, &status.config));
    if !config.providers.is_empty() {
        checks.push(failover_check(daemon, &config, root));
    }
    checks.push(memory_check(root));
    checks.push(instructions_check(daemon.engine.home.root(), root, &config));
    checks.push(telemetry_check(&config));
    checks.extend(crate::doctor_policy::checks(daemon, root).await);
    for (name, health) in [
        ("config.json", &status.config),
        ("state.json", &status.state),
    ] {
        let path = daemon.engine.home.root().join(name);
        checks.push(file_check(name, &path, health, status.using_last_good));
    }
    checks.push(home_check(daemon.engine.home.root()));
    checks.push(sandbox_check(&config, &daemon.engine.home.config_path()).await);
    checks.push(match host {
        Host::Daemon => ok(
            "Daemon",
            format!(
                "pid {}, {} client(s) connected, {} turn(s) running",
                std::process::id(),
                daemon.connections.count(),
                daemon.engine.turns.count()
            ),
        ),
        Host::InProcess => info(
            "Daemon",
            "not running (`seekclaw chat` starts one; `seekclaw daemon` runs one in the foreground)",
        ),
    });
    checks.extend(mcp_checks(daemon, host));
    checks.extend(crate::doctor_lsp::checks(daemon));
    checks.push(crate::doctor_tools::web_search(&config));
    checks.push(crate::doctor_tools::screen_capture().await);
    match daemon.db(|s| s.stats()).await {
        Ok(stats) => checks.push(ok(
            "Database",
            format!("{} session(s), {} event(s)", stats.sessions, stats.events),
        )),
        Err(e) => checks.push(fail(
            "Database",
            e.message,
            format!(
                "check free disk space and the permissions of {}",
                daemon.engine.home.db_path().display()
            ),
        )),
    }
    checks.push(checkpoint_check(daemon, &config).await);
    checks
}

/// The checkpoint store: on or off, and its size (retention and deleted
/// sessions keep it in bounds; a user wondering where the disk went looks
/// here).
async fn checkpoint_check(daemon: &Ctx, config: &Config) -> Check {
    let path = daemon.engine.home.checkpoints_path();
    let bytes = match daemon.engine.checkpoint_store_bytes().await {
        Ok(bytes) => bytes,
        // The engine could not open it: the files' own size says as much.
        Err(_) => ["", "-wal", "-shm"]
            .iter()
            .filter_map(|end| {
                let mut p = path.clone().into_os_string();
                p.push(end);
                std::fs::metadata(p).ok().map(|m| m.len())
            })
            .sum(),
    };
    let settings = &config.checkpoints;
    let state = if settings.enabled {
        format!("on, the last {} per session kept", settings.keep)
    } else {
        "off (checkpoints.enabled is false)".to_string()
    };
    ok(
        "Checkpoints",
        format!("{state}; store {} ({})", size(bytes), path.display()),
    )
}

/// `12.3 MB`, `4.0 kB`, `512 B`.
fn size(bytes: u64) -> String {
    let b = bytes as f64;
    match bytes {
        n if n >= 1 << 20 => format!("{:.1} MB", b / f64::from(1 << 20)),
        n if n >= 1 << 10 => format!("{:.1} kB", b / f64::from(1 << 10)),
        n => format!("{n} B"),
    }
}

/// Local checks plus a probe of every enabled provider.
pub async fn all_checks(daemon: &Ctx, host: Host, root: &Path) -> Vec<Check> {
    let mut checks = local_checks(daemon, host, root).await;
    let enabled: Vec<_> = daemon
        .engine
        .config
        .load()
        .providers
        .into_iter()
        .filter(|p| p.enabled)
        .collect();
    for probe in daemon.engine.probe(enabled).await {
        let name = format!("Provider {}", probe.id);
        let detail = format!("{} ({} ms)", probe.detail, probe.latency_ms);
        let mut row = if !probe.online {
            fail(
                &name,
                detail,
                format!(
                    "check its URL, key and network (`seekclaw provider list`, `seekclaw provider test {}`)",
                    probe.id
                ),
            )
        } else if probe.detail.contains("auth failed") {
            check(
                &name,
                CheckLevel::Warn,
                detail,
                Some(format!(
                    "the endpoint answers but refused the key; store a new one with `seekclaw provider add {}` (it asks for the key; custom providers also need --base-url)",
                    probe.id
                )),
            )
        } else {
            ok(&name, detail)
        };
        row.kind = "provider".into();
        checks.push(row);
    }
    checks
}

/// The lines of `doctor`: `[LEVEL] name: detail`, a fix at the end of the line.
pub fn text(checks: &[Check]) -> String {
    checks
        .iter()
        .map(|c| {
            let fix = c
                .fix
                .as_deref()
                .map(|f| format!(" (fix: {f})"))
                .unwrap_or_default();
            format!("[{}] {}: {}{fix}", c.level.label(), c.name, c.detail)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn workspace_checks(root: &Path) -> Vec<Check> {
    let meta = root.join(".seekclaw");
    vec![
        if root.is_dir() {
            ok("Workspace Root", root.display().to_string())
        } else {
            fail(
                "Workspace Root",
                format!("Directory not found: {}", root.display()),
                "start seekclaw in an existing project directory (or pass --workspace DIR)",
            )
        },
        if meta.is_dir() {
            ok("SeekClaw Metadata Dir", meta.display().to_string())
        } else {
            info(
                "SeekClaw Metadata Dir",
                format!(
                    "{} not initialized (optional: `seekclaw init` creates it with a starter config and memory file)",
                    meta.display()
                ),
            )
        },
    ]
}

fn memory_check(root: &Path) -> Check {
    let memory = root.join(".seekclaw").join("memory").join("MEMORY.md");
    match std::fs::metadata(&memory) {
        Ok(m) if m.len() > 0 => ok("Workspace Memory", memory.display().to_string()),
        _ => info(
            "Workspace Memory",
            "no memory file (optional: `seekclaw init` creates .seekclaw/memory/MEMORY.md; notes there reach every turn)",
        ),
    }
}

/// The instruction files a turn at the workspace root reads (the user's and
/// the root's; a turn started deeper adds its folders').
fn instructions_check(home: &Path, root: &Path, config: &Config) -> Check {
    const NAME: &str = "Instruction Files";
    let names = config.instructions.names();
    let mut looked_at = Vec::new();
    let found =
        seekclaw_config::instruction_paths(Some(home), Some(root), None, &names, &mut looked_at);
    if found.is_empty() {
        return info(
            NAME,
            "none at the workspace root or in the home (optional: `seekclaw init --agents` writes a starter AGENTS.md from the project)",
        );
    }
    let bytes: u64 = found
        .iter()
        .filter_map(|f| std::fs::metadata(&f.path).ok())
        .map(|m| m.len())
        .sum();
    let labels: Vec<&str> = found.iter().map(|f| f.label.as_str()).collect();
    ok(
        NAME,
        format!(
            "{} ({bytes} bytes of instructions.maxBytes {}; folders below the root add their own)",
            labels.join(", "),
            config.instructions.budget()
        ),
    )
}

/// Where the OpenTelemetry export goes (off unless an endpoint is set);
/// never its headers, which often hold a key.
fn telemetry_check(config: &Config) -> Check {
    const NAME: &str = "Telemetry";
    let t = &config.telemetry;
    let Some(shown) = t.endpoint_shown() else {
        return info(
            NAME,
            "off (optional: `telemetry.otlp.endpoint` exports traces, metrics and log events over OTLP/HTTP)",
        );
    };
    if let Some(problem) = t.endpoint_problem() {
        return fail(
            NAME,
            format!("telemetry.otlp: {problem}; nothing is exported"),
            "set `telemetry.otlp.endpoint` to the collector's OTLP/HTTP URL, e.g. http://localhost:4318",
        );
    }
    let content = if t.include_content {
        "prompts, answers and tool output included (telemetry.includeContent)"
    } else {
        "counts, names and durations only"
    };
    ok(NAME, format!("OTLP/HTTP to {shown}: {content}"))
}

fn provider_config(config: &Config, file: &FileHealth) -> Check {
    const NAME: &str = "Provider Config";
    if config.providers.is_empty() {
        if file.problem.is_some() {
            return fail(
                NAME,
                "No providers: config.json cannot be read",
                "fix config.json (see the Config File check)",
            );
        }
        return fail(
            NAME,
            "No providers configured",
            "add one: `seekclaw provider add deepseek` (it asks for the key; presets: `seekclaw provider add --help`), or any OpenAI-/Anthropic-compatible endpoint with `seekclaw provider add NAME --base-url URL` (it lists the endpoint's models)",
        );
    }
    let usable = config
        .providers
        .iter()
        .any(|p| p.enabled && !p.models.is_empty());
    let detail = format!(
        "{} provider(s) configured. Active profile: {}",
        config.providers.len(),
        config.active_profile
    );
    if usable {
        ok(NAME, detail)
    } else {
        fail(
            NAME,
            format!("{detail}; none is enabled with a model"),
            "add a provider with its models: `seekclaw provider add NAME --base-url URL --model ID`",
        )
    }
}

/// Where a failing model's turn may go (another provider or not), for the
/// project checked.
fn failover_check(daemon: &Ctx, config: &Config, root: &Path) -> Check {
    let ws = crate::handlers::workspace::workspace_config(daemon, root);
    let policy = crate::failover_policy::view(config, ws.as_ref());
    ok("Failover", policy.summary)
}

fn file_check(name: &str, path: &Path, health: &FileHealth, using_last_good: bool) -> Check {
    let title = format!("Config File {name}");
    if let Some(problem) = &health.problem {
        let consequence = match (name, using_last_good) {
            ("config.json", true) => {
                "the daemon keeps the configuration it read before; changes to the configuration are refused"
            }
            ("config.json", false) => {
                "defaults are in use; turns and changes to the configuration are refused"
            }
            _ => "defaults are in use; nothing is written over it",
        };
        return fail(
            &title,
            format!("{problem} ({consequence})"),
            format!(
                "correct the file in an editor (e.g. `$EDITOR {}`); seekclaw left it as it was",
                path.display()
            ),
        );
    }
    if health.warnings.is_empty() {
        // Defaults are fine, but "OK" beside a file that is not there sends
        // people looking for it.
        if std::fs::symlink_metadata(path).is_err() {
            let when = if name == "config.json" {
                "`seekclaw provider add` or the first settings change writes it"
            } else {
                "the first change of state writes it"
            };
            return info(
                &title,
                format!(
                    "{} does not exist yet: defaults are in use ({when})",
                    path.display()
                ),
            );
        }
        return ok(&title, path.display().to_string());
    }
    let listed: Vec<String> = health.warnings.iter().map(ToString::to_string).collect();
    check(
        &title,
        CheckLevel::Warn,
        format!(
            "{}: {} (wrongly typed fields use their defaults; the rest of the file applies)",
            path.display(),
            listed.join("; ")
        ),
        Some(format!(
            "correct or remove the named fields (e.g. `$EDITOR {}`)",
            path.display()
        )),
    )
}

fn home_check(root: &Path) -> Check {
    const NAME: &str = "Home Directory";
    match mode_of(root) {
        Some(m) if m != 0o700 => fail(
            NAME,
            format!("{} (mode {m:o}: others may read API keys)", root.display()),
            format!("chmod 700 {}", root.display()),
        ),
        Some(m) => ok(NAME, format!("{} (mode {m:o})", root.display())),
        None => ok(NAME, root.display().to_string()),
    }
}

/// What the kernel offers the shell sandbox and whether `agent.sandbox` can
/// be enforced (where it cannot, `bash` fails closed).
async fn sandbox_check(config: &Config, config_path: &Path) -> Check {
    use seekclaw_tools::{SandboxMode, SandboxSupport};
    let support = tokio::task::spawn_blocking(SandboxSupport::probe)
        .await
        .unwrap_or_else(|_| SandboxSupport::probe_cheap());
    let mode = config.agent.sandbox;
    let name = "Shell Sandbox";
    match (mode, support.missing()) {
        (SandboxMode::Off, _) => check(
            name,
            CheckLevel::Warn,
            format!(
                "agent.sandbox = {mode}: shell commands run unsandboxed (workspaces may tighten it). {}",
                support.describe()
            ),
            Some(format!(
                "set \"agent\": {{\"sandbox\": \"workspace-write\"}} in {} to confine them",
                config_path.display()
            )),
        ),
        (_, None) => ok(
            name,
            format!("agent.sandbox = {mode}: enforced. {}", support.describe()),
        ),
        (_, Some(missing)) => fail(
            name,
            format!(
                "agent.sandbox = {mode}: cannot be enforced ({missing}): bash and verify commands fail closed. {}",
                support.describe()
            ),
            format!(
                "run on a kernel with Landlock and seccomp, or set \"agent\": {{\"sandbox\": \"off\"}} in {} to run them unsandboxed",
                config_path.display()
            ),
        ),
    }
}

fn mcp_checks(daemon: &Ctx, host: Host) -> Vec<Check> {
    let rows = match crate::handlers::mcp::listing(daemon) {
        Ok(rows) => rows,
        Err(e) => {
            return vec![fail(
                "MCP Config",
                e.message,
                "correct the MCP server entries the message names",
            )];
        }
    };
    rows.iter()
        .filter(|r| r.enabled)
        .map(|row| {
            let name = format!("MCP {}", row.name);
            if matches!(row.auth, "needs_login" | "login_required") {
                let detail = row.error.clone().unwrap_or_else(|| row.auth.replace('_', " "));
                return check(
                    &name,
                    CheckLevel::Warn,
                    detail,
                    Some(format!("run `seekclaw mcp login {}`", row.name)),
                );
            }
            let oauth = if row.auth == "authorized" { ", OAuth" } else { "" };
            match (host, row.connected, &row.error) {
                (_, true, _) if !oauth.is_empty() => ok(
                    &name,
                    format!("connected ({}{oauth}), {} tool(s)", row.transport, row.tool_count),
                ),
                (Host::InProcess, false, _) if !oauth.is_empty() => info(
                    &name,
                    "configured, OAuth login stored; not connected without a daemon (`seekclaw mcp check` connects it)",
                ),
                (_, true, _) => ok(
                    &name,
                    format!("connected ({}), {} tool(s)", row.transport, row.tool_count),
                ),
                (Host::InProcess, false, _) => info(
                    &name,
                    "configured; not connected without a daemon (`seekclaw mcp check` connects it)",
                ),
                (Host::Daemon, false, Some(e)) => {
                    fail(&name, e.clone(), "see `seekclaw mcp check` for its details")
                }
                (Host::Daemon, false, None) => {
                    let status = row.status.to_string();
                    if status == "connecting" {
                        info(&name, "connecting")
                    } else {
                        fail(&name, status, "see `seekclaw mcp check` for its details")
                    }
                }
            }
        })
        .collect()
}

/// `seekclaw doctor` with no daemon running: the same checks, over a daemon
/// of this process that never listens (nothing connected, nothing running).
pub async fn run_in_process(
    home: seekclaw_config::Home,
    cwd: std::path::PathBuf,
) -> Result<Vec<Check>, crate::error::DaemonError> {
    use crate::error::DaemonError;
    home.ensure().map_err(DaemonError::Config)?;
    let path = home.db_path();
    let store = tokio::task::spawn_blocking(move || seekclaw_store::Store::open(&path))
        .await
        .map_err(|e| DaemonError::Startup(e.to_string()))?
        .map_err(DaemonError::Store)?;
    let daemon = Ctx::open(home, cwd, store);
    let root = daemon.current_workspace();
    Ok(all_checks(&daemon, Host::InProcess, &root).await)
}

#[cfg(test)]
mod tests {
    use super::*;
    use seekclaw_config::{FieldWarning, FileProblem, Provider};

    #[test]
    fn no_provider_fails_with_a_command_and_a_broken_file_points_at_itself() {
        let none = provider_config(&Config::default(), &FileHealth::default());
        assert_eq!(none.level, CheckLevel::Fail);
        assert!(!none.ok);
        assert!(none.fix.unwrap().contains("seekclaw provider add"));
        let broken = FileHealth {
            problem: Some(FileProblem {
                path: "/h/config.json".into(),
                line: Some(3),
                column: Some(5),
                error: "expected comma".into(),
            }),
            warnings: Vec::new(),
        };
        let row = provider_config(&Config::default(), &broken);
        assert!(row.detail.contains("cannot be read"), "{}", row.detail);
        let file = file_check("config.json", Path::new("/h/config.json"), &broken, true);
        assert_eq!(file.level, CheckLevel::Fail);
        assert!(
            file.detail
                .starts_with("/h/config.json: line 3, column 5: expected comma")
        );
        assert!(
            file.detail
                .contains("keeps the configuration it read before")
        );
        assert!(file.fix.unwrap().contains("$EDITOR /h/config.json"));

        let mut config = Config::default();
        config.providers.push(Provider {
            id: "p".into(),
            ..Provider::default()
        });
        let row = provider_config(&config, &FileHealth::default());
        assert_eq!(row.level, CheckLevel::Fail, "no model: {}", row.detail);
    }

    #[test]
    fn ignored_fields_warn_and_optional_things_are_information() {
        let health = FileHealth {
            problem: None,
            warnings: vec![FieldWarning {
                path: "agent.maxSteps".into(),
                message: "expected a number, found \"forty\"".into(),
            }],
        };
        let row = file_check("config.json", Path::new("/h/config.json"), &health, false);
        assert_eq!((row.level, row.ok), (CheckLevel::Warn, true));
        assert!(
            row.detail.contains("agent.maxSteps: expected a number"),
            "{}",
            row.detail
        );

        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.json");
        let row = file_check("config.json", &path, &FileHealth::default(), false);
        assert_eq!(row.level, CheckLevel::Info, "{}", row.detail);
        assert!(row.detail.contains("does not exist yet"), "{}", row.detail);
        std::fs::write(&path, "{}").unwrap();
        let row = file_check("config.json", &path, &FileHealth::default(), false);
        assert_eq!(row.level, CheckLevel::Ok, "{}", row.detail);

        let rows = workspace_checks(dir.path());
        assert_eq!(
            (rows[0].level, rows[1].level),
            (CheckLevel::Ok, CheckLevel::Info)
        );
        assert!(rows[1].detail.contains("seekclaw init"));
        assert_eq!(memory_check(dir.path()).level, CheckLevel::Info);
        let gone = workspace_checks(&dir.path().join("gone"));
        assert_eq!(gone[0].level, CheckLevel::Fail);
        assert!(gone[0].fix.is_some());
        assert_eq!(
            text(&gone[..1]),
            format!(
                "[FAIL] Workspace Root: Directory not found: {} (fix: start seekclaw in an existing project directory (or pass --workspace DIR))",
                dir.path().join("gone").display()
            )
        );
    }

    #[test]
    fn telemetry_says_off_where_it_goes_or_why_not_and_never_a_password() {
        let mut config = Config::default();
        assert_eq!(telemetry_check(&config).level, CheckLevel::Info);
        config.telemetry.otlp.endpoint = Some("http://user:s3cret@collector:4318/".into());
        config
            .telemetry
            .otlp
            .headers
            .insert("authorization".into(), "Bearer tok-9".into());
        let row = telemetry_check(&config);
        assert_eq!(row.level, CheckLevel::Ok, "{}", row.detail);
        assert!(
            row.detail.contains("http://…@collector:4318/"),
            "{}",
            row.detail
        );
        assert!(!row.detail.contains("s3cret") && !row.detail.contains("tok-9"));
        config.telemetry.otlp.endpoint = Some("collector:4318".into());
        let row = telemetry_check(&config);
        assert_eq!(row.level, CheckLevel::Fail, "{}", row.detail);
        assert!(
            row.detail.contains("not an http:// or https:// URL"),
            "{}",
            row.detail
        );
    }
}
