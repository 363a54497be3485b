//! The seekclaw home directory (`$SEEKCLAW_HOME`, default `~/.seekclaw`) and its layout.

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};

use crate::error::{ConfigError, Result};
use crate::paths::normalize_path;

/// Environment variable that relocates the home (tests, several daemons side by side).
pub const HOME_ENV: &str = "SEEKCLAW_HOME";

/// The seekclaw home directory. Only computes paths; [`Home::ensure`] creates them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Home {
    root: PathBuf,
}

/// The user's home directory (not the seekclaw home).
pub fn user_home() -> Option<PathBuf> {
    dirs::home_dir()
}

impl Home {
    /// `$SEEKCLAW_HOME` if set and non-empty, else `<user home>/.seekclaw`; made absolute.
    pub fn from_env() -> Result<Home> {
        resolve(std::env::var_os(HOME_ENV), user_home(), current_dir)
    }

    /// A home at `root` as given (no normalisation), e.g. a test's temp dir.
    pub fn at(root: impl Into<PathBuf>) -> Home {
        Home { root: root.into() }
    }

    /// Creates the root (mode 0700 on unix, also tightening an existing root) and
    /// the `logs/`, `skills/`, `prompts/`, `global/` and `turns/` sub-directories.
    pub fn ensure(&self) -> Result<()> {
        create_private_dir(&self.root)?;
        restrict_to_owner(&self.root)?;
        // They hold API keys: a file the user made readable to others is narrowed.
        for file in [self.config_path(), self.state_path()] {
            owner_only_file(&file)?;
        }
        for dir in [
            self.logs_dir(),
            self.skills_dir(),
            self.prompts_dir(),
            self.global_dir(),
            self.turn_locks_dir(),
        ] {
            create_private_dir(&dir)?;
        }
        Ok(())
    }

    /// The home directory itself; everything else lives under it.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `config.json`: providers, profiles, routing, agent and MCP settings.
    pub fn config_path(&self) -> PathBuf {
        self.root.join("config.json")
    }

    /// `state.json`: round-robin cursors and globally disabled skills.
    pub fn state_path(&self) -> PathBuf {
        self.root.join("state.json")
    }

    /// `seekclaw.db`: the SQLite store of sessions, messages, projects and schedules.
    pub fn db_path(&self) -> PathBuf {
        self.root.join("seekclaw.db")
    }

    /// `daemon.sock`: the Unix socket clients connect to.
    pub fn socket_path(&self) -> PathBuf {
        self.root.join("daemon.sock")
    }

    /// `daemon.lock`: held by the running daemon so a second one refuses to start.
    pub fn lock_path(&self) -> PathBuf {
        self.root.join("daemon.lock")
    }

    /// Held by every writer of `config.json` / `state.json` ([`crate::ConfigLock`]).
    pub fn config_lock_path(&self) -> PathBuf {
        self.root.join("config.lock")
    }

    /// `turns/`: one lock file per session that ever ran a turn, held (an
    /// advisory lock) by the process running its turn, so a daemon, a `serve`
    /// and a `seekclaw run` never run turns on one session at once. The OS
    /// drops the lock when its process dies, however it dies.
    pub fn turn_locks_dir(&self) -> PathBuf {
        self.root.join("turns")
    }

    /// `logs/`: created with the home, as in the original; `factory.reset` empties it.
    pub fn logs_dir(&self) -> PathBuf {
        self.root.join("logs")
    }

    /// `skills/`: the global skill library, one directory per skill.
    pub fn skills_dir(&self) -> PathBuf {
        self.root.join("skills")
    }

    /// `prompts/`: the user's prompt overrides, keyed like the shipped prompts.
    pub fn prompts_dir(&self) -> PathBuf {
        self.root.join("prompts")
    }

    /// Working directory of global (non-workspace) sessions.
    pub fn global_dir(&self) -> PathBuf {
        self.root.join("global")
    }

    /// `checkpoints.db`: the shadow store of workspace files (never a `.git`).
    pub fn checkpoints_path(&self) -> PathBuf {
        self.root.join("checkpoints.db")
    }

    /// `usage.jsonl`: the original's per-attempt usage log; `factory.reset` deletes it.
    pub fn usage_path(&self) -> PathBuf {
        self.root.join("usage.jsonl")
    }
}

fn current_dir() -> Result<PathBuf> {
    std::env::current_dir().map_err(|e| ConfigError::io(Path::new("."), e))
}

/// The logic of [`Home::from_env`] with its inputs passed in, so tests need no env mutation.
/// `cwd` is only called for a relative `$SEEKCLAW_HOME`.
fn resolve(
    env_value: Option<OsString>,
    user_home: Option<PathBuf>,
    cwd: impl FnOnce() -> Result<PathBuf>,
) -> Result<Home> {
    let raw = match env_value.filter(|v| !v.is_empty()) {
        Some(v) => PathBuf::from(v),
        None => user_home.ok_or(ConfigError::NoHome)?.join(".seekclaw"),
    };
    let root = if raw.is_absolute() {
        normalize_path(&raw, Path::new("/"))
    } else {
        normalize_path(&raw, &cwd()?)
    };
    Ok(Home { root })
}

fn create_private_dir(dir: &Path) -> Result<()> {
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir).map_err(|e| ConfigError::io(dir, e))
}

/// The home holds API keys and the daemon socket: only the owner may enter it.
fn restrict_to_owner(dir: &Path) -> Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(dir, fs::Permissions::from_mode(0o700))
            .map_err(|e| ConfigError::io(dir, e))?;
    }
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}

/// Takes group and other bits off an existing file (0644 → 0600).
fn owner_only_file(file: &Path) -> Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = match fs::metadata(file) {
            Ok(meta) => meta.permissions().mode(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(ConfigError::io(file, e)),
        };
        if mode & 0o077 != 0 {
            fs::set_permissions(file, fs::Permissions::from_mode(mode & 0o700))
                .map_err(|e| ConfigError::io(file, e))?;
        }
    }
    #[cfg(not(unix))]
    let _ = file;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_config_readable_by_others_is_narrowed() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let home = Home::at(dir.path().join("h"));
        home.ensure().unwrap();
        fs::write(home.config_path(), "{}").unwrap();
        fs::set_permissions(home.config_path(), fs::Permissions::from_mode(0o644)).unwrap();
        home.ensure().unwrap();
        let mode = fs::metadata(home.config_path())
            .unwrap()
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(mode, 0o600);
    }

    fn no_cwd() -> Result<PathBuf> {
        panic!("cwd must not be consulted for an absolute path")
    }

    #[test]
    fn env_value_wins_and_is_normalised() {
        let home = resolve(
            Some("/srv/sc/../seek/".into()),
            Some("/home/u".into()),
            no_cwd,
        )
        .unwrap();
        assert_eq!(home.root(), Path::new("/srv/seek"));
    }

    #[test]
    fn empty_env_value_falls_back_to_user_home() {
        let home = resolve(Some("".into()), Some("/home/u".into()), no_cwd).unwrap();
        assert_eq!(home.root(), Path::new("/home/u/.seekclaw"));
        let home = resolve(None, Some("/home/u".into()), no_cwd).unwrap();
        assert_eq!(home.root(), Path::new("/home/u/.seekclaw"));
    }

    #[test]
    fn relative_env_value_is_made_absolute() {
        let home = resolve(Some("./h".into()), None, || Ok(PathBuf::from("/work"))).unwrap();
        assert_eq!(home.root(), Path::new("/work/h"));
    }

    #[test]
    fn no_home_at_all_is_an_error() {
        assert!(matches!(
            resolve(None, None, no_cwd),
            Err(ConfigError::NoHome)
        ));
    }

    #[test]
    fn layout_paths() {
        let home = Home::at("/h");
        assert_eq!(home.config_path(), Path::new("/h/config.json"));
        assert_eq!(home.state_path(), Path::new("/h/state.json"));
        assert_eq!(home.db_path(), Path::new("/h/seekclaw.db"));
        assert_eq!(home.socket_path(), Path::new("/h/daemon.sock"));
        assert_eq!(home.lock_path(), Path::new("/h/daemon.lock"));
        assert_eq!(home.config_lock_path(), Path::new("/h/config.lock"));
        assert_eq!(home.logs_dir(), Path::new("/h/logs"));
        assert_eq!(home.skills_dir(), Path::new("/h/skills"));
        assert_eq!(home.prompts_dir(), Path::new("/h/prompts"));
        assert_eq!(home.global_dir(), Path::new("/h/global"));
        assert_eq!(home.usage_path(), Path::new("/h/usage.jsonl"));
    }

    #[test]
    fn ensure_creates_layout() {
        let tmp = tempfile::tempdir().unwrap();
        let home = Home::at(tmp.path().join("a/b/home"));
        home.ensure().unwrap();
        for dir in [
            home.root().to_path_buf(),
            home.logs_dir(),
            home.skills_dir(),
            home.prompts_dir(),
            home.global_dir(),
        ] {
            assert!(dir.is_dir(), "{} missing", dir.display());
        }
        // A second call is a no-op.
        home.ensure().unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn ensure_sets_mode_0700_even_on_existing_root() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("home");
        fs::create_dir(&root).unwrap();
        fs::set_permissions(&root, fs::Permissions::from_mode(0o755)).unwrap();
        let home = Home::at(&root);
        home.ensure().unwrap();
        let mode = fs::metadata(&root).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700);

        let fresh = Home::at(tmp.path().join("fresh"));
        fresh.ensure().unwrap();
        let mode = fs::metadata(fresh.root()).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700);
    }
}
