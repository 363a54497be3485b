//! The doctor's rows for the language servers `lsp` configures (none when
//! it configures none): each server's state per workspace, and the entries
//! that cannot be used.

use seekclaw_engine::{LspServerState as ServerState, LspServerStatus as ServerStatus};
use seekclaw_protocol::api::{CheckLevel, DoctorCheck as Check};

use crate::ctx::Ctx;

fn row(name: &str, level: CheckLevel, detail: String, fix: Option<String>) -> Check {
    Check {
        name: name.into(),
        ok: level != CheckLevel::Fail,
        detail,
        kind: "runtime".into(),
        level,
        fix,
    }
}

/// How the preset programs are usually installed.
fn install_hint(program: &str) -> &'static str {
    match program {
        "pyright-langserver" => "`npm install -g pyright`",
        "rust-analyzer" => "`rustup component add rust-analyzer`",
        "typescript-language-server" => "`npm install -g typescript-language-server typescript`",
        "gopls" => "`go install golang.org/x/tools/gopls@latest`",
        "clangd" => "your system's clangd package",
        _ => "it",
    }
}

/// `LSP <name>` per configured server (and workspace it runs for), and
/// `LSP config` per unusable entry.
pub(crate) fn checks(daemon: &Ctx) -> Vec<Check> {
    let (servers, problems) = daemon.engine.lsp.status();
    let mut checks: Vec<Check> = servers.iter().map(server_row).collect();
    for problem in problems {
        checks.push(row(
            "LSP config",
            CheckLevel::Warn,
            format!("{}: {}", problem.path, problem.message),
            Some(format!(
                "correct {} in config.json (presets: {})",
                problem.path,
                seekclaw_engine::lsp_presets().join(", ")
            )),
        ));
    }
    checks
}

fn server_row(server: &ServerStatus) -> Check {
    let name = format!("LSP {}", server.name);
    let at = server
        .root
        .as_ref()
        .map(|r| format!(" for {}", r.display()))
        .unwrap_or_default();
    match &server.state {
        ServerState::Disabled => row(&name, CheckLevel::Info, "disabled".into(), None),
        ServerState::NotStarted => row(
            &name,
            CheckLevel::Info,
            format!(
                "not started ({}); starts on the first edit of one of its files",
                server.program
            ),
            None,
        ),
        ServerState::Starting => row(&name, CheckLevel::Info, format!("starting{at}"), None),
        ServerState::Running { pid, crashes } => {
            let restarts = match crashes {
                0 => String::new(),
                n => format!(", restarted after {n} crash(es)"),
            };
            row(
                &name,
                CheckLevel::Ok,
                format!("running{at} (pid {pid}){restarts}"),
                None,
            )
        }
        ServerState::Crashed {
            times,
            retry_in,
            last_error,
        } => {
            let when = match retry_in {
                Some(d) => format!("not restarted for another {} s", d.as_secs().max(1)),
                None => "restarts on the next edit".into(),
            };
            row(
                &name,
                CheckLevel::Warn,
                format!("crashed {times} time(s){at} (last: {last_error}); {when}"),
                Some(format!(
                    "run `{}` in the workspace by hand to see why it stops",
                    server.program
                )),
            )
        }
        ServerState::Missing => row(
            &name,
            CheckLevel::Warn,
            format!("binary missing: {} not found on PATH", server.program),
            Some(format!(
                "install {} or set lsp.servers.{}.command to its path",
                install_hint(&server.program),
                server.name
            )),
        ),
    }
}
