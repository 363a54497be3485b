//! `config.json` and `state.json` access for the daemon. Reads always come from disk
//! (so CLI edits are seen); writes are serialized by one async mutex for the whole
//! daemon and land atomically.

use std::sync::Mutex;
use std::time::Duration;

use seekclaw_config::{Config, FileProblem, Home, State, load_json_file, save_json_file};
use seekclaw_protocol::MethodError;

pub struct ConfigService {
    home: Home,
    write: tokio::sync::Mutex<()>,
    /// Files found corrupt and moved aside during this run, for `doctor`.
    problems: Mutex<Vec<FileProblem>>,
}

impl ConfigService {
    pub fn new(home: Home) -> Self {
        ConfigService {
            home,
            write: tokio::sync::Mutex::new(()),
            problems: Mutex::new(Vec::new()),
        }
    }

    fn note(&self, problem: Option<FileProblem>) {
        if let Some(p) = problem {
            tracing::warn!(file = %p.path.display(), error = %p.error, "corrupt file moved aside; using defaults");
            if let Ok(mut all) = self.problems.lock() {
                all.push(p);
            }
        }
    }

    pub fn problems(&self) -> Vec<FileProblem> {
        self.problems.lock().map(|p| p.clone()).unwrap_or_default()
    }

    /// Writes defaults for missing files (or files just moved aside), so users have
    /// something to edit and the next reader sees a valid file.
    pub fn ensure_files(&self) {
        let config_path = self.home.config_path();
        let state_path = self.home.state_path();
        let config = self.load();
        if !config_path.exists()
            && let Err(e) = save_json_file(&config_path, &config)
        {
            tracing::warn!(error = %e, "cannot write default config.json");
        }
        let state = self.load_state();
        if !state_path.exists()
            && let Err(e) = save_json_file(&state_path, &state)
        {
            tracing::warn!(error = %e, "cannot write default state.json");
        }
    }

    pub fn load(&self) -> Config {
        match load_json_file::<Config>(&self.home.config_path()) {
            Ok(loaded) => {
                self.note(loaded.problem);
                loaded.value
            }
            Err(e) => {
                tracing::warn!(error = %e, "cannot read config.json; using defaults");
                Config::default()
            }
        }
    }

    pub fn load_state(&self) -> State {
        match load_json_file::<State>(&self.home.state_path()) {
            Ok(loaded) => {
                self.note(loaded.problem);
                loaded.value
            }
            Err(e) => {
                tracing::warn!(error = %e, "cannot read state.json; using defaults");
                State::default()
            }
        }
    }

    /// Read-modify-write of `config.json` under the daemon-wide config mutex.
    pub async fn update<R>(
        &self,
        change: impl FnOnce(&mut Config) -> Result<R, MethodError>,
    ) -> Result<R, MethodError> {
        let _guard = self.write.lock().await;
        let mut config = self.load();
        let out = change(&mut config)?;
        save_json_file(&self.home.config_path(), &config)
            .map_err(|e| MethodError::internal(format!("Cannot save config.json: {e}")))?;
        Ok(out)
    }

    /// Read-modify-write of `state.json` under the same mutex.
    pub async fn update_state<R>(
        &self,
        change: impl FnOnce(&mut State) -> Result<R, MethodError>,
    ) -> Result<R, MethodError> {
        let _guard = self.write.lock().await;
        let mut state = self.load_state();
        let out = change(&mut state)?;
        save_json_file(&self.home.state_path(), &state)
            .map_err(|e| MethodError::internal(format!("Cannot save state.json: {e}")))?;
        Ok(out)
    }

    /// Replaces both files with defaults (factory reset).
    pub async fn reset(&self) -> Result<(), MethodError> {
        let _guard = self.write.lock().await;
        let save_err = |e| MethodError::internal(format!("Cannot reset configuration: {e}"));
        save_json_file(&self.home.config_path(), &Config::default()).map_err(save_err)?;
        save_json_file(&self.home.state_path(), &State::default()).map_err(save_err)?;
        if let Ok(mut p) = self.problems.lock() {
            p.clear();
        }
        Ok(())
    }

    pub fn slow_client_timeout(&self) -> Duration {
        let secs = self.load().daemon.slow_client_timeout_seconds;
        Duration::from_secs(secs.clamp(1, 3600))
    }
}
