//! The shell sandbox (`agent.sandbox`): every shell command the agent starts
//! (`bash`, its background jobs, verify commands) goes through [`SandboxPolicy`].
//!
//! On Linux, in `workspace-write` and `read-only`:
//! * **Landlock** handles every file access right. Writes are allowed beneath
//!   the workspace root and the writable temp dir (`workspace-write` only) and
//!   to `/dev/null`-like devices; reads and execution everywhere except beneath
//!   the hidden dirs (the daemon's home, where `config.json` holds the API
//!   keys). Landlock only grants, so "everything but the home" is built by
//!   granting each sibling along the path to the home.
//! * **seccomp** denies `io_uring` (it would bypass the rest of the filter) and,
//!   with the session's network off, every socket that is not `AF_UNIX`.
//! * **Namespaces** (where the kernel allows them): a mount namespace masks the
//!   sockets in the hidden dirs (Landlock does not govern `connect()` to a
//!   path before ABI 9), and a PID namespace whose init is ours: whatever the
//!   command leaves behind, `setsid` and double forks included, dies when that
//!   init is killed with the command's process group. Without namespaces the
//!   seccomp filter denies creating Unix sockets instead, and descendants that
//!   leave the process group may survive (doctor says so).
//!
//! Everything is prepared in the parent; the child makes only raw syscalls
//! between fork and exec (see `enter.rs`). A mode the kernel cannot enforce
//! fails closed with [`SandboxError::Unsupported`].

#[cfg(target_os = "linux")]
mod enter;
#[cfg(target_os = "linux")]
mod private_temp;
#[cfg(target_os = "linux")]
mod rules;
#[cfg(target_os = "linux")]
mod seccomp;
#[cfg(all(test, target_os = "linux"))]
mod tests;

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

pub use seekclaw_config::SandboxMode;

/// Lowest Landlock ABI that governs every write: ABI 3 added truncation,
/// before which `truncate()` on any file escaped the sandbox.
pub const MIN_LANDLOCK_ABI: u32 = 3;

/// What a shell command may touch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxPolicy {
    /// `off` runs commands as the daemon runs.
    pub mode: SandboxMode,
    /// Writable in `workspace-write`.
    pub workspace_root: PathBuf,
    /// Writable in `workspace-write`, exported as `TMPDIR`. Never contains a
    /// hidden dir (see [`SandboxPolicy::new`]).
    pub writable_temp: Option<PathBuf>,
    /// Neither readable nor writable, and their sockets unreachable (the
    /// daemon's home).
    pub hidden: Vec<PathBuf>,
    /// The session's network: off denies every socket but `AF_UNIX`.
    pub network: bool,
    /// `writable_temp` is our private dir (not the system's): made for the
    /// turn's commands and removed after them.
    temp_is_private: bool,
    /// The rules and filters, built by the first spawn and shared by the
    /// clones of this policy (one turn's commands): building them walks the
    /// directories along the path to the home, ~1.5 ms a spawn otherwise.
    cache: PreparedCache,
}

/// A policy's prepared sandbox, shared by its clones; never part of equality.
#[derive(Clone, Default)]
struct PreparedCache(#[cfg(target_os = "linux")] std::sync::Arc<std::sync::OnceLock<Ready>>);

/// What the first spawn of a policy built: the rules, and the hold on the
/// private temp dir they grant (kept as long as the rules may be used).
#[cfg(target_os = "linux")]
#[derive(Clone)]
struct Ready {
    enter: std::sync::Arc<enter::Enter>,
    temp: InUse,
}

/// Keeps the private temp dir of a command's sandbox: a background job holds
/// it until it ends, as the turn's policy does until the turn ends.
#[derive(Clone, Default, Debug)]
pub struct InUse {
    /// Kept for its `Drop`; never read.
    #[cfg(target_os = "linux")]
    _hold: Option<std::sync::Arc<private_temp::TempHold>>,
}

impl InUse {
    /// Whether it keeps a dir (a sandboxed command in `workspace-write` with a
    /// private temp dir).
    pub fn is_held(&self) -> bool {
        #[cfg(target_os = "linux")]
        {
            self._hold.is_some()
        }
        #[cfg(not(target_os = "linux"))]
        {
            false
        }
    }
}

impl PartialEq for PreparedCache {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for PreparedCache {}

impl std::fmt::Debug for PreparedCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PreparedCache")
    }
}

/// Why a command was not started.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// The kernel lacks what the mode needs: fail closed.
    #[error(
        "The shell sandbox (agent.sandbox = \"{mode}\") cannot be enforced on this machine: \
         {missing}. The command was not run. `seekclaw doctor` shows what the kernel offers; \
         setting agent.sandbox to \"off\" runs commands without a sandbox, at your own risk."
    )]
    Unsupported {
        /// The configured mode.
        mode: SandboxMode,
        /// What is missing.
        missing: String,
    },
    /// Building the rules failed.
    #[error("Cannot prepare the shell sandbox (agent.sandbox = \"{mode}\"): {detail}")]
    Prepare {
        /// The configured mode.
        mode: SandboxMode,
        /// What failed.
        detail: String,
    },
}

impl SandboxPolicy {
    /// No sandbox.
    pub fn off() -> Self {
        SandboxPolicy {
            mode: SandboxMode::Off,
            workspace_root: PathBuf::new(),
            writable_temp: None,
            hidden: Vec::new(),
            network: true,
            temp_is_private: false,
            cache: PreparedCache::default(),
        }
    }

    /// The policy of a turn: `home` (the daemon's) hidden, the system temp
    /// dir writable unless it contains `home` (tests and some setups keep the
    /// home under `/tmp`; writing all of it would let the shell rewrite
    /// `config.json`). Then a private dir beside it, one per home, is the
    /// temp dir instead.
    pub fn new(mode: SandboxMode, workspace_root: &Path, home: &Path, network: bool) -> Self {
        let home = canonical(home);
        let system = canonical(&std::env::temp_dir());
        let temp_is_private = home.starts_with(&system) || system.starts_with(&home);
        let writable_temp = if temp_is_private {
            let mut h = std::collections::hash_map::DefaultHasher::new();
            home.hash(&mut h);
            system.join(format!("seekclaw-sandbox-{:016x}", h.finish()))
        } else {
            system
        };
        SandboxPolicy {
            mode,
            workspace_root: canonical(workspace_root),
            writable_temp: Some(writable_temp),
            hidden: vec![home],
            network,
            temp_is_private,
            cache: PreparedCache::default(),
        }
    }

    /// Whether commands run sandboxed.
    pub fn is_enforced(&self) -> bool {
        self.mode != SandboxMode::Off
    }

    /// One line for the system prompt: what the shell may do.
    pub fn describe(&self) -> String {
        match self.mode {
            SandboxMode::Off => {
                "off (shell commands run with the daemon's rights; be careful)".to_string()
            }
            SandboxMode::WorkspaceWrite => {
                let temp = self
                    .writable_temp
                    .as_ref()
                    .map(|t| format!(" and $TMPDIR ({})", t.display()))
                    .unwrap_or_default();
                format!(
                    "workspace-write (shell commands may write only inside the workspace{temp}; \
                     the SeekClaw home is not readable)"
                )
            }
            SandboxMode::ReadOnly => "read-only (shell commands may not write files; \
                 the SeekClaw home is not readable)"
                .to_string(),
        }
    }

    /// Prepares a spawn: rules built, filters compiled, everything the child
    /// will need allocated. Fails closed when the kernel cannot enforce the mode.
    pub fn prepare(&self) -> Result<Prepared, SandboxError> {
        if !self.is_enforced() {
            return Ok(Prepared::default());
        }
        self.prepare_enforced()
    }

    #[cfg(target_os = "linux")]
    fn prepare_enforced(&self) -> Result<Prepared, SandboxError> {
        self.prepare_on(SandboxSupport::probe_cheap())
    }

    /// [`SandboxPolicy::prepare`] on a kernel offering `support`.
    #[cfg(target_os = "linux")]
    fn prepare_on(&self, support: SandboxSupport) -> Result<Prepared, SandboxError> {
        if let Some(missing) = support.missing() {
            return Err(SandboxError::Unsupported {
                mode: self.mode,
                missing,
            });
        }
        let prepare_err = |detail: String| SandboxError::Prepare {
            mode: self.mode,
            detail,
        };
        let ready = match self.cache.0.get() {
            Some(ready) => ready.clone(),
            None => {
                let temp = match (&self.writable_temp, self.mode) {
                    (Some(t), SandboxMode::WorkspaceWrite) => Some(t.as_path()),
                    _ => None,
                };
                // Held before the rules are built: they grant this very dir.
                let held = match temp {
                    Some(t) if self.temp_is_private => InUse {
                        _hold: Some(std::sync::Arc::new(
                            private_temp::TempHold::acquire(t).map_err(|e| {
                                prepare_err(format!("temp dir {}: {e}", t.display()))
                            })?,
                        )),
                    },
                    _ => InUse::default(),
                };
                let ruleset =
                    rules::ruleset(self, temp, support.landlock_abi).map_err(prepare_err)?;
                let filters = seccomp::Filters::compile(self.network).map_err(prepare_err)?;
                let enter = std::sync::Arc::new(
                    enter::Enter::new(ruleset, filters, &self.hidden).map_err(prepare_err)?,
                );
                // Two first spawns at once both build; either result is right
                // (the loser's hold is dropped, the winner's kept).
                self.cache
                    .0
                    .get_or_init(|| Ready { enter, temp: held })
                    .clone()
            }
        };
        Ok(Prepared {
            enter: Some(ready.enter),
            tmpdir: self.writable_temp.clone(),
            temp: ready.temp,
        })
    }

    #[cfg(not(target_os = "linux"))]
    fn prepare_enforced(&self) -> Result<Prepared, SandboxError> {
        Err(SandboxError::Unsupported {
            mode: self.mode,
            missing: "the shell sandbox needs Linux (Landlock and seccomp)".to_string(),
        })
    }
}

/// A spawn's sandbox, ready to install on its command.
#[derive(Default)]
pub struct Prepared {
    #[cfg(target_os = "linux")]
    enter: Option<std::sync::Arc<enter::Enter>>,
    tmpdir: Option<PathBuf>,
    temp: InUse,
}

impl Prepared {
    /// What keeps the command's temp dir: hold it until the command ends.
    pub fn in_use(&self) -> InUse {
        self.temp.clone()
    }

    /// Installs the sandbox on `cmd`: `TMPDIR`, and the steps between fork
    /// and exec. Nothing to do when the mode is `off`.
    pub fn install(self, cmd: &mut std::process::Command) {
        if let Some(tmp) = &self.tmpdir {
            cmd.env("TMPDIR", tmp);
        }
        #[cfg(target_os = "linux")]
        if let Some(enter) = self.enter {
            use std::os::unix::process::CommandExt;
            // SAFETY: `Enter::run` makes only async-signal-safe raw syscalls on
            // memory prepared here, as the child of a multi-threaded parent must.
            unsafe {
                cmd.pre_exec(move || enter.run());
            }
        }
    }
}

/// What this kernel offers the sandbox.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SandboxSupport {
    /// Landlock ABI version (0: none).
    pub landlock_abi: u32,
    /// seccomp filters.
    pub seccomp: bool,
    /// Mount and PID namespaces for our commands (root, or unprivileged user
    /// namespaces); `None`: not probed.
    pub namespaces: Option<bool>,
}

impl SandboxSupport {
    /// Landlock and seccomp, without starting a process.
    pub fn probe_cheap() -> Self {
        #[cfg(target_os = "linux")]
        {
            SandboxSupport {
                landlock_abi: rules::abi_version(),
                seccomp: seccomp::available(),
                namespaces: None,
            }
        }
        #[cfg(not(target_os = "linux"))]
        SandboxSupport {
            landlock_abi: 0,
            seccomp: false,
            namespaces: None,
        }
    }

    /// Everything, namespaces too (starts `/bin/true` once; for `doctor`).
    pub fn probe() -> Self {
        let mut s = Self::probe_cheap();
        #[cfg(target_os = "linux")]
        {
            s.namespaces = Some(enter::namespaces_work());
        }
        #[cfg(not(target_os = "linux"))]
        {
            s.namespaces = Some(false);
        }
        s
    }

    /// What a sandboxed mode lacks here, if anything.
    pub fn missing(&self) -> Option<String> {
        let mut missing = Vec::new();
        if self.landlock_abi < MIN_LANDLOCK_ABI {
            missing.push(if self.landlock_abi == 0 {
                format!("Landlock (ABI {MIN_LANDLOCK_ABI}+, Linux 6.2+) is not available")
            } else {
                format!(
                    "Landlock ABI {} is too old (needs {MIN_LANDLOCK_ABI}+, Linux 6.2+)",
                    self.landlock_abi
                )
            });
        }
        if !self.seccomp {
            missing.push("seccomp filters are not available".to_string());
        }
        (!missing.is_empty()).then(|| missing.join("; "))
    }

    /// For `doctor`: what is available.
    pub fn describe(&self) -> String {
        let landlock = match self.landlock_abi {
            0 => "Landlock: none".to_string(),
            n => format!("Landlock ABI {n}"),
        };
        let seccomp = if self.seccomp {
            "seccomp: yes"
        } else {
            "seccomp: no"
        };
        let ns = match self.namespaces {
            Some(true) => "namespaces: yes (PID and mount)",
            Some(false) => {
                "namespaces: no (descendants that leave the process group may outlive a \
                 command; Unix sockets are denied instead of masking the daemon socket)"
            }
            None => "namespaces: not probed",
        };
        format!("{landlock}, {seccomp}, {ns}")
    }
}

/// The path with symlinks resolved (as the kernel sees it), else as given.
fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Creates the private temp dir (0700) if it does not exist.
#[cfg(target_os = "linux")]
fn ensure_private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    match std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
    {
        Ok(()) => Ok(()),
        // Made by a concurrent spawn.
        Err(_) if dir.is_dir() => Ok(()),
        Err(e) => Err(e),
    }
}
