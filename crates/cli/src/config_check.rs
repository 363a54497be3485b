//! What the CLI says about the home's `config.json` before it uses it: a file
//! that is not JSON is an error naming its line and column (never an empty
//! listing), and fields that were ignored are warnings on stderr, once per command.

use anyhow::{Result, bail};
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
        Err(ConfigError::Invalid(problem)) => bail!(
            "cannot read the configuration: {problem}\nFix the file and run the command again (seekclaw has not changed it)."
        ),
        Err(e) => Err(e.into()),
    }
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
    let broken = status
        .files
        .iter()
        .find(|f| f.name == "config.json")
        .and_then(|f| f.error.as_deref());
    match (broken, status.using_last_good) {
        (Some(error), true) => {
            eprintln!(
                "warning: cannot read the configuration: {error}\nThe daemon keeps using the configuration it read before; fix the file to change it."
            );
            Ok(())
        }
        (Some(error), false) => bail!(
            "cannot read the configuration: {error}\nFix the file and run the command again (seekclaw has not changed it)."
        ),
        (None, _) => Ok(()),
    }
}

/// An edit's error, with the refusal of an unreadable file said plainly.
pub fn edit_failed(e: anyhow::Error) -> anyhow::Error {
    match e.downcast_ref::<ConfigError>() {
        Some(ConfigError::Invalid(problem)) => anyhow::anyhow!(
            "nothing was changed: cannot read the configuration: {problem}\nFix the file first (seekclaw never writes over a file it cannot read)."
        ),
        _ => e,
    }
}
