//! What the CLI says about the home's `config.json` before it uses it: a file
//! that is not JSON is an error naming its line and column (never an empty
//! listing), and fields that were ignored are warnings on stderr, once per command.

use anyhow::{Result, anyhow};
use seekclaw_config::{Config, ConfigError, FieldWarning, Home, load_json_file};
use seekclaw_protocol::api::NoParams;
use seekclaw_protocol::method;

use crate::client::DaemonClient;

/// Reads `config.json` here (no daemon): warnings printed, an unreadable file an error.
pub fn load(home: &Home) -> Result<Config> {
    match load_json_file::<Config>(&home.config_path()) {
        Ok(loaded) => {
            warn_fields(home, &loaded.warnings);
            Ok(loaded.value)
        }
        Err(ConfigError::Invalid(problem)) => Err(unreadable(&problem)),
        Err(e) => Err(e.into()),
    }
}

/// What every front end says first of a `config.json` that is not JSON.
fn unreadable(problem: impl std::fmt::Display) -> anyhow::Error {
    anyhow!(
        "cannot read the configuration: {problem}\nFix the file and run the command again (seekclaw has not changed it)."
    )
}

/// Before a front end that reads `config.json` in this process (`run`,
/// `review`, `acp`, `mcp`, the chat with no daemon): an error naming the
/// file, line and column when it is not JSON, before anything is asked,
/// copied or started. Field warnings are the front end's to print.
pub fn require_readable(home: &Home) -> Result<()> {
    match local_problem(home) {
        Some(problem) => Err(unreadable(problem)),
        None => Ok(()),
    }
}

/// Why `config.json` cannot be read here, if it cannot (file, line, column).
fn local_problem(home: &Home) -> Option<String> {
    match load_json_file::<Config>(&home.config_path()) {
        Ok(_) => None,
        Err(e) => Some(e.to_string()),
    }
}

/// Before the chat starts (and so before its first-run welcome could offer
/// to add a provider): with a daemon running, `config.json` may be broken
/// only while the daemon keeps a configuration it read before that has a
/// provider (the chat then says so in its window); with none, the file
/// must read.
pub fn before_chat(home: &Home) -> Result<()> {
    let Some(mut daemon) = DaemonClient::running(home) else {
        return require_readable(home);
    };
    // A daemon older than `config.status` answers unknown_method: nothing to say then.
    let Ok(status) = daemon.call::<method::ConfigStatus>(&NoParams {}) else {
        return Ok(());
    };
    let Some(error) = config_error(&status) else {
        return Ok(());
    };
    let has_provider = status.using_last_good
        && daemon
            .call::<method::ProviderList>(&NoParams {})
            .is_ok_and(|list| !list.is_empty());
    if has_provider {
        Ok(())
    } else {
        Err(unreadable(error))
    }
}

/// Before an edit of `config.json` (`provider add/remove`, `model use`):
/// refused first, before a key or a model is asked for, when the file does
/// not read (a daemon keeping the configuration it read before refuses
/// writes too).
pub fn before_edit(home: &Home, daemon: Option<&mut DaemonClient>) -> Result<()> {
    let broken = match daemon {
        None => local_problem(home),
        Some(daemon) => match daemon.call::<method::ConfigStatus>(&NoParams {}) {
            Ok(status) => config_error(&status).map(str::to_string),
            Err(_) => None,
        },
    };
    match broken {
        Some(problem) => Err(edit_refused(problem)),
        None => Ok(()),
    }
}

/// The error the daemon reports for `config.json`, if any.
fn config_error(status: &seekclaw_protocol::api::ConfigStatusView) -> Option<&str> {
    status
        .files
        .iter()
        .find(|f| f.name == "config.json")
        .and_then(|f| f.error.as_deref())
}

/// Prints each ignored field of `config.json` on stderr.
pub fn warn_fields(home: &Home, warnings: &[FieldWarning]) {
    for w in warnings {
        eprintln!("warning: {}: {w}", home.config_path().display());
    }
}

/// Asks the daemon how its files read: problems and warnings on stderr; an
/// error when it has no configuration it could read (what it lists would be defaults).
pub fn through_daemon(daemon: &mut DaemonClient) -> Result<()> {
    // A daemon older than `config.status` answers unknown_method: nothing to say then.
    let Ok(status) = daemon.call::<method::ConfigStatus>(&NoParams {}) else {
        return Ok(());
    };
    for file in &status.files {
        for w in &file.warnings {
            eprintln!("warning: {}: {w}", file.path);
        }
    }
    match (config_error(&status), status.using_last_good) {
        (Some(error), true) => {
            eprintln!(
                "warning: cannot read the configuration: {error}\nThe daemon keeps using the configuration it read before; fix the file to change it."
            );
            Ok(())
        }
        (Some(error), false) => Err(unreadable(error)),
        (None, _) => Ok(()),
    }
}

/// An edit's error, with the refusal of an unreadable file said plainly.
pub fn edit_failed(e: anyhow::Error) -> anyhow::Error {
    match e.downcast_ref::<ConfigError>() {
        Some(ConfigError::Invalid(problem)) => edit_refused(problem),
        _ => e,
    }
}

fn edit_refused(problem: impl std::fmt::Display) -> anyhow::Error {
    anyhow!(
        "nothing was changed: cannot read the configuration: {problem}\nFix the file first (seekclaw never writes over a file it cannot read)."
    )
}
