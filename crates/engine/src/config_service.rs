//! `config.json` and `state.json` access for the daemon. Reads see every edit on
//! disk (a CLI's, an editor's): `config.json` is parsed again only when the file's
//! identity (inode, size, modification and change times) differs from the last
//! parse. A file that stops being JSON is never rewritten: the daemon keeps the
//! configuration it last read, says so (log, `doctor`, [`ConfigService::status`]),
//! and refuses to write over it; with no good read at all it refuses turns. Writes are serialized by one async mutex for the whole daemon and, across
//! processes (the CLI with no daemon, `seekclaw run`), by the home's
//! [`ConfigLock`]; they land atomically, and the waiting for that lock, the write
//! and its fsyncs run on blocking threads, never on an async worker.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use crate::error::{EngineError, ErrorKind};
use seekclaw_config::edits::ConfigLock;
use seekclaw_config::{
    Config, ConfigError, Document, FieldWarning, FileProblem, Home, State, load_json_file,
    save_json_file,
};
use serde::Serialize;

use crate::sync::Locked;

/// The home's `config.json` and `state.json`, read and written safely.
pub struct ConfigService {
    home: Home,
    write: tokio::sync::Mutex<()>,
    /// How the two files read last time, and the last `config.json` that read.
    health: Mutex<Health>,
    /// Whether file problems go to the log: a daemon's log is where they are
    /// read; a one-shot process (`seekclaw run`) reports the refusal itself.
    log_problems: bool,
    /// The last parse of `config.json` and the identity of the file it read.
    cached: Mutex<Option<(FileStamp, Config)>>,
}

/// How one file read the last time it was read.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FileHealth {
    /// It is not JSON(5): nothing in it is used, and nothing may be written over it.
    pub problem: Option<FileProblem>,
    /// Fields that could not be used as written (defaults apply) or are unknown.
    pub warnings: Vec<FieldWarning>,
}

#[derive(Default)]
struct Health {
    config: FileHealth,
    state: FileHealth,
    /// The last `config.json` that read, kept while the file does not.
    last_good: Option<Config>,
    /// The identity of the unreadable `config.json` last seen: it is not read
    /// again until it changes.
    bad: Option<FileStamp>,
}

/// What [`ConfigService::status`] reports.
#[derive(Debug, Clone)]
pub struct ConfigStatus {
    /// `config.json`.
    pub config: FileHealth,
    /// `state.json`.
    pub state: FileHealth,
    /// `config.json` does not read, and the configuration read before is in use.
    pub using_last_good: bool,
}

/// What tells one version of a file from another without reading it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FileStamp {
    len: u64,
    modified: SystemTime,
    #[cfg(unix)]
    inode: u64,
    #[cfg(unix)]
    changed_ns: i128,
}

impl FileStamp {
    fn of(path: &Path) -> Option<FileStamp> {
        let meta = std::fs::metadata(path).ok()?;
        #[cfg(unix)]
        use std::os::unix::fs::MetadataExt;
        Some(FileStamp {
            len: meta.len(),
            modified: meta.modified().ok()?,
            #[cfg(unix)]
            inode: meta.ino(),
            #[cfg(unix)]
            changed_ns: i128::from(meta.ctime()) * 1_000_000_000 + i128::from(meta.ctime_nsec()),
        })
    }

    /// A file written within the last moment may be written again within the
    /// same clock tick (same stamp, other content): not trusted for caching.
    fn settled(&self) -> bool {
        SystemTime::now()
            .duration_since(self.modified)
            .is_ok_and(|age| age > FRESH)
    }
}

/// How old a file's modification must be before its parse is kept.
const FRESH: Duration = Duration::from_secs(2);

impl ConfigService {
    /// A daemon's service: file problems go to its log.
    pub fn new(home: Home) -> Self {
        ConfigService {
            home,
            write: tokio::sync::Mutex::new(()),
            health: Mutex::new(Health::default()),
            log_problems: true,
            cached: Mutex::new(None),
        }
    }

    /// For a one-shot process: an unreadable file is not logged, since the
    /// refusal of its turn says the same (one message, not two).
    pub fn one_shot(home: Home) -> Self {
        ConfigService {
            log_problems: false,
            ..ConfigService::new(home)
        }
    }

    /// Records how a file read; logs what changed since the last read, once.
    fn note(&self, which: &str, health: FileHealth) {
        let mut all = self.health.locked();
        let slot = if which == "state.json" {
            &mut all.state
        } else {
            &mut all.config
        };
        if *slot == health {
            return;
        }
        if let Some(p) = &health.problem
            && slot.problem.as_ref() != Some(p)
            && self.log_problems
        {
            tracing::error!(problem = %p, "{which} is not valid JSON; it is left as it is, and nothing will be written over it until it is fixed");
        }
        if health.problem.is_none() && slot.problem.is_some() {
            tracing::info!("{which} reads again");
        }
        for w in health
            .warnings
            .iter()
            .filter(|w| !slot.warnings.contains(w))
        {
            tracing::warn!(field = %w.path, "{which}: {}", w.message);
        }
        *slot = health;
    }

    /// How `config.json` and `state.json` read now.
    pub fn status(&self) -> ConfigStatus {
        self.load();
        self.load_state();
        let health = self.health.locked();
        ConfigStatus {
            config: health.config.clone(),
            state: health.state.clone(),
            using_last_good: health.config.problem.is_some() && health.last_good.is_some(),
        }
    }

    /// Turns need a configuration that was read: with an unreadable
    /// `config.json` and nothing read before it, they would run on defaults.
    pub fn usable_for_turns(&self) -> Result<(), EngineError> {
        self.load();
        let health = self.health.locked();
        match (&health.config.problem, &health.last_good) {
            (Some(problem), None) => Err(EngineError::new(
                ErrorKind::ConfigInvalid,
                format!(
                    "The configuration cannot be read: {problem}. Fix the file and try again \
                     (seekclaw has not changed it)."
                ),
            )),
            _ => Ok(()),
        }
    }

    /// Writes defaults for missing files, so users have
    /// something to edit and the next reader sees a valid file. Under the lock: a
    /// CLI edit made while the daemon starts is not overwritten with defaults.
    pub async fn ensure_files(&self) {
        let _guard = self.write.lock().await;
        let lock = match self.lock().await {
            Ok(lock) => lock,
            Err(e) => {
                tracing::warn!(error = %e.message, "cannot write default config files");
                return;
            }
        };
        let config_path = self.home.config_path();
        let state_path = self.home.state_path();
        let config = self.load();
        let state = self.load_state();
        let missing = (!config_path.exists(), !state_path.exists());
        let written = blocking(move || {
            let _lock = lock;
            let config = missing.0.then(|| save_json_file(&config_path, &config));
            let state = missing.1.then(|| save_json_file(&state_path, &state));
            (config, state)
        })
        .await;
        match written {
            Ok((config, state)) => {
                if let Some(Err(e)) = config {
                    tracing::warn!(error = %e, "cannot write default config.json");
                }
                if let Some(Err(e)) = state {
                    tracing::warn!(error = %e, "cannot write default state.json");
                }
            }
            Err(e) => tracing::warn!(error = %e.message, "cannot write default config files"),
        }
    }

    /// The configuration in use: `config.json` as last read, or, while it
    /// does not read, the last version that did (defaults if none did).
    pub fn load(&self) -> Config {
        let path = self.home.config_path();
        let stamp = FileStamp::of(&path);
        if let Some(stamp) = stamp
            && let Some((seen, config)) = self.cached.locked().as_ref()
            && *seen == stamp
        {
            return config.clone();
        }
        {
            let health = self.health.locked();
            if stamp.is_some() && health.bad == stamp {
                return health.last_good.clone().unwrap_or_default();
            }
        }
        match load_json_file::<Config>(&path) {
            Ok(loaded) => {
                // A file still being written is read again next time.
                if let Some(stamp) = stamp.filter(FileStamp::settled) {
                    *self.cached.locked() = Some((stamp, loaded.value.clone()));
                }
                self.note(
                    "config.json",
                    FileHealth {
                        problem: None,
                        warnings: loaded.warnings,
                    },
                );
                let mut health = self.health.locked();
                health.last_good = Some(loaded.value.clone());
                health.bad = None;
                loaded.value
            }
            Err(e) => {
                self.note(
                    "config.json",
                    FileHealth {
                        problem: Some(problem_of(&path, e)),
                        warnings: Vec::new(),
                    },
                );
                let mut health = self.health.locked();
                health.bad = stamp.filter(FileStamp::settled);
                health.last_good.clone().unwrap_or_default()
            }
        }
    }

    /// `state.json` as last read (defaults when unreadable).
    pub fn load_state(&self) -> State {
        let path = self.home.state_path();
        match load_json_file::<State>(&path) {
            Ok(loaded) => {
                self.note(
                    "state.json",
                    FileHealth {
                        problem: None,
                        warnings: loaded.warnings,
                    },
                );
                loaded.value
            }
            Err(e) => {
                self.note(
                    "state.json",
                    FileHealth {
                        problem: Some(problem_of(&path, e)),
                        warnings: Vec::new(),
                    },
                );
                State::default()
            }
        }
    }

    /// Takes the home's [`ConfigLock`] on a blocking thread (another process may
    /// hold it for the length of its edit).
    async fn lock(&self) -> Result<ConfigLock, EngineError> {
        let home = self.home.clone();
        blocking(move || ConfigLock::acquire(&home))
            .await?
            .map_err(|e| EngineError::internal(format!("Cannot lock the configuration: {e}")))
    }

    /// Read-modify-write of `config.json` under the daemon-wide config mutex and
    /// the home's lock. Only what `change` changed is written; a file that does
    /// not read is refused (`config_invalid`) and left alone. Returns once the
    /// file is on disk. `change` fails in the caller's own error type (its
    /// wire's), which `wire` maps the engine's own failures to.
    pub async fn update<R, E>(
        &self,
        wire: fn(EngineError) -> E,
        change: impl FnOnce(&mut Config) -> Result<R, E>,
    ) -> Result<R, E> {
        let _guard = self.write.lock().await;
        let lock = self.lock().await.map_err(wire)?;
        let mut doc = self
            .open::<Config>(&self.home.config_path())
            .map_err(wire)?;
        let out = change(&mut doc.value)?;
        write_locked(lock, "Cannot save config.json", move || doc.save())
            .await
            .map_err(wire)?;
        Ok(out)
    }

    /// Read-modify-write of `state.json` under the same mutex and lock.
    pub async fn update_state<R, E>(
        &self,
        wire: fn(EngineError) -> E,
        change: impl FnOnce(&mut State) -> Result<R, E>,
    ) -> Result<R, E> {
        let _guard = self.write.lock().await;
        let lock = self.lock().await.map_err(wire)?;
        let mut doc = self.open::<State>(&self.home.state_path()).map_err(wire)?;
        let out = change(&mut doc.value)?;
        write_locked(lock, "Cannot save state.json", move || doc.save())
            .await
            .map_err(wire)?;
        Ok(out)
    }

    /// Opens a file for an edit; one that does not read refuses the edit.
    fn open<T>(&self, path: &Path) -> Result<Document<T>, EngineError>
    where
        T: serde::de::DeserializeOwned + Serialize + Default + seekclaw_config::UnknownFields,
    {
        Document::<T>::open(path).map_err(|e| match e {
            ConfigError::Invalid(problem) => refused(&problem),
            other => EngineError::internal(format!("Cannot read {}: {other}", path.display())),
        })
    }

    /// Replaces both files with defaults (factory reset).
    pub async fn reset(&self) -> Result<(), EngineError> {
        let _guard = self.write.lock().await;
        let lock = self.lock().await?;
        let home = self.home.clone();
        write_locked(lock, "Cannot reset configuration", move || {
            save_json_file(&home.config_path(), &Config::default())?;
            save_json_file(&home.state_path(), &State::default())
        })
        .await?;
        *self.health.locked() = Health::default();
        *self.cached.locked() = None;
        Ok(())
    }

    /// How long a client may leave its events unread before it is dropped.
    pub fn slow_client_timeout(&self) -> Duration {
        let secs = self.load().daemon.slow_client_timeout_seconds;
        Duration::from_secs(secs.clamp(1, 3600))
    }
}

/// The refusal of a write over a file that does not read.
fn refused(problem: &FileProblem) -> EngineError {
    EngineError::new(
        ErrorKind::ConfigInvalid,
        format!(
            "Nothing was changed: {problem}. Fix the file first (seekclaw never writes over \
             a file it cannot read); until then the daemon keeps the configuration it last read."
        ),
    )
}

/// A read failure as a problem of the file (an I/O error too: nothing in it is usable).
fn problem_of(path: &Path, e: ConfigError) -> FileProblem {
    match e {
        ConfigError::Invalid(problem) => problem,
        other => FileProblem {
            path: path.to_path_buf(),
            line: None,
            column: None,
            error: other.to_string(),
        },
    }
}

/// Runs `write` on a blocking thread, then releases `lock`. The write happens
/// even if the awaiting request is dropped meanwhile, and the lock is held until
/// it is done, so the next writer reads what it wrote.
async fn write_locked(
    lock: ConfigLock,
    context: &'static str,
    write: impl FnOnce() -> Result<(), ConfigError> + Send + 'static,
) -> Result<(), EngineError> {
    blocking(move || {
        let _lock = lock;
        write()
    })
    .await?
    .map_err(|e| EngineError::internal(format!("{context}: {e}")))
}

/// Saves another JSON file the daemon edits (a workspace's `.seekclaw/config.json`
/// or MCP servers file) on a blocking thread, changing only what differs from
/// the file's own text (its comments and formatting stay); returns once it is
/// on disk.
pub async fn save_file<T: Serialize + serde::de::DeserializeOwned + Send + 'static>(
    path: PathBuf,
    value: T,
) -> Result<(), EngineError> {
    let shown = path.display().to_string();
    blocking(move || seekclaw_config::save_json_edit(&path, &value))
        .await?
        .map_err(|e| EngineError::internal(format!("Cannot write {shown}: {e}")))
}

/// Runs file I/O off the async workers.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, EngineError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| EngineError::internal(format!("config file task failed: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn write_aged(path: &Path, text: &str) {
        std::fs::write(path, text).unwrap();
        let old = SystemTime::now() - Duration::from_secs(60);
        let file = std::fs::File::options().write(true).open(path).unwrap();
        file.set_modified(old).unwrap();
    }

    #[tokio::test]
    async fn a_file_gone_bad_keeps_the_last_good_config_and_refuses_writes() {
        let dir = tempfile::tempdir().unwrap();
        let home = Home::at(dir.path().join("h"));
        home.ensure().unwrap();
        let path = home.config_path();

        // Unreadable from the start: defaults, no turns, no writes.
        std::fs::write(&path, "{\"agent\": {\"maxSteps\": 9}").unwrap();
        let service = ConfigService::new(home.clone());
        assert_eq!(service.load(), Config::default());
        let refused = service.usable_for_turns().unwrap_err();
        assert_eq!(refused.kind, ErrorKind::ConfigInvalid);
        assert!(
            refused.message.contains("line 1, column"),
            "{}",
            refused.message
        );
        let status = service.status();
        assert!(status.config.problem.is_some() && !status.using_last_good);

        write_aged(
            &path,
            r#"{"agent": {"maxSteps": 11, "maxRepairAttempts": "x"}}"#,
        );
        assert_eq!(service.load().agent.max_steps, 11);
        assert!(service.usable_for_turns().is_ok());
        let warned: Vec<String> = service
            .status()
            .config
            .warnings
            .iter()
            .map(|w| w.path.clone())
            .collect();
        assert_eq!(warned, ["agent.maxRepairAttempts"]);

        write_aged(&path, r#"{"agent": {"maxSteps": 22"#);
        assert_eq!(service.load().agent.max_steps, 11, "the last good config");
        assert!(service.usable_for_turns().is_ok());
        assert!(service.status().using_last_good);
        let err = service
            .update(std::convert::identity, |c| {
                c.agent.max_steps = 5;
                Ok(())
            })
            .await
            .unwrap_err();
        assert_eq!(err.kind, ErrorKind::ConfigInvalid);
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            r#"{"agent": {"maxSteps": 22"#
        );
        service.ensure_files().await;
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            r#"{"agent": {"maxSteps": 22"#
        );
    }

    #[tokio::test]
    async fn an_unreadable_state_file_is_kept_and_its_writes_refused() {
        let dir = tempfile::tempdir().unwrap();
        let home = Home::at(dir.path().join("h"));
        home.ensure().unwrap();
        let text = r#"{"roundRobinCursors": {"fast": 3}, "disabledSkills": {"#;
        std::fs::write(home.state_path(), text).unwrap();
        let service = ConfigService::new(home.clone());
        assert_eq!(service.load_state(), State::default());
        let err = service
            .update_state(std::convert::identity, |s| {
                s.round_robin_cursors.clear();
                Ok(())
            })
            .await
            .unwrap_err();
        assert_eq!(err.kind, ErrorKind::ConfigInvalid);
        assert!(
            err.message.contains("state.json: line 1"),
            "{}",
            err.message
        );
        service.ensure_files().await;
        assert_eq!(std::fs::read_to_string(home.state_path()).unwrap(), text);
        assert!(service.status().state.problem.is_some());
        // The config file is not blamed for it.
        assert!(service.status().config.problem.is_none());
    }

    #[test]
    fn a_parse_is_reused_while_the_file_is_the_same_and_redone_when_it_changes() {
        let dir = tempfile::tempdir().unwrap();
        let home = Home::at(dir.path().join("h"));
        home.ensure().unwrap();
        let service = ConfigService::new(home.clone());
        let path = home.config_path();
        write_aged(&path, r#"{"agent": {"maxSteps": 11}}"#);
        assert_eq!(service.load().agent.max_steps, 11);
        assert!(service.cached.lock().unwrap().is_some(), "kept");
        assert_eq!(service.load().agent.max_steps, 11);
        // Same length, written in place, its modification time put back: the
        // change time still tells.
        let before = std::fs::metadata(&path).unwrap().modified().unwrap();
        std::fs::write(&path, r#"{"agent": {"maxSteps": 22}}"#).unwrap();
        let file = std::fs::File::options().write(true).open(&path).unwrap();
        file.set_modified(before).unwrap();
        assert_eq!(service.load().agent.max_steps, 22);
        // A fresh file is read every time until it settles.
        std::fs::write(&path, r#"{"agent": {"maxSteps": 33}}"#).unwrap();
        assert_eq!(service.load().agent.max_steps, 33);
        assert!(
            service
                .cached
                .lock()
                .unwrap()
                .as_ref()
                .is_none_or(|(_, c)| c.agent.max_steps != 33),
            "a file just written is not kept"
        );
    }
}
