use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

use crate::client::Client;

/// How a test daemon is started.
#[derive(Debug, Clone, Default)]
pub struct StartOptions {
    /// Written to `config.json` before start.
    pub config: Option<serde_json::Value>,
    /// Working directory of the daemon (its initial workspace). Defaults to the home.
    pub cwd: Option<PathBuf>,
    /// Extra environment variables.
    pub env: Vec<(String, String)>,
    /// Extra arguments after `daemon` (`--on-demand`, …).
    pub args: Vec<String>,
}

/// A running `seekclaw daemon`. Killed on drop.
pub struct DaemonProcess {
    pub bin: PathBuf,
    pub home: PathBuf,
    pub socket: PathBuf,
    pub stderr_path: PathBuf,
    child: Option<Child>,
    _tempdir: Option<tempfile::TempDir>,
}

impl DaemonProcess {
    /// Starts a daemon in a fresh temporary home.
    pub fn start(bin: &Path) -> Result<DaemonProcess> {
        Self::start_with(bin, StartOptions::default())
    }

    pub fn start_with(bin: &Path, opts: StartOptions) -> Result<DaemonProcess> {
        let tmp = tempfile::Builder::new().prefix("sc-").tempdir()?;
        let home = tmp.path().join("home");
        let mut d = Self::spawn(bin, &home, &opts)?;
        d._tempdir = Some(tmp);
        Ok(d)
    }

    /// Starts a daemon on an existing (or to be created) home; waits for its socket.
    pub fn spawn(bin: &Path, home: &Path, opts: &StartOptions) -> Result<DaemonProcess> {
        let mut d = Self::spawn_nowait(bin, home, opts)?;
        d.wait_ready(Duration::from_secs(20))?;
        Ok(d)
    }

    /// Starts the process without waiting for the socket.
    pub fn spawn_nowait(bin: &Path, home: &Path, opts: &StartOptions) -> Result<DaemonProcess> {
        Self::spawn_with(Command::new(bin), bin, home, home, opts)
    }

    /// Starts a daemon inside `tmpfs`'s mount namespace on `home` (a path
    /// inside it, as the daemon sees it); waits for its socket. The returned
    /// `home` and `socket` are the paths by which this process reaches them.
    pub fn spawn_in(
        tmpfs: &crate::PrivateTmpfs,
        bin: &Path,
        home: &Path,
        opts: &StartOptions,
    ) -> Result<DaemonProcess> {
        let mut d = Self::spawn_with(tmpfs.command(bin), bin, home, &tmpfs.outside(home), opts)?;
        d.wait_ready(Duration::from_secs(20))?;
        Ok(d)
    }

    /// `cmd` (the daemon binary, perhaps behind a launcher) run as a daemon on
    /// `home`, which this process reaches as `reach`.
    fn spawn_with(
        mut cmd: Command,
        bin: &Path,
        home: &Path,
        reach: &Path,
        opts: &StartOptions,
    ) -> Result<DaemonProcess> {
        std::fs::create_dir_all(reach)?;
        if let Some(cfg) = &opts.config {
            std::fs::write(reach.join("config.json"), serde_json::to_vec_pretty(cfg)?)?;
        }
        let stderr_path = home.with_extension(format!("stderr-{}.log", unique()));
        let stderr = std::fs::File::create(&stderr_path)?;
        cmd.arg("daemon")
            .args(&opts.args)
            .env("SEEKCLAW_HOME", home)
            .env("RUST_LOG", "info")
            .current_dir(opts.cwd.as_deref().unwrap_or(reach))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::from(stderr));
        for (k, v) in &opts.env {
            cmd.env(k, v);
        }
        let child = cmd
            .spawn()
            .with_context(|| format!("spawn {}", bin.display()))?;
        Ok(DaemonProcess {
            bin: bin.to_path_buf(),
            home: reach.to_path_buf(),
            socket: reach.join("daemon.sock"),
            stderr_path,
            child: Some(child),
            _tempdir: None,
        })
    }

    pub fn wait_ready(&mut self, timeout: Duration) -> Result<()> {
        let start = Instant::now();
        loop {
            if std::os::unix::net::UnixStream::connect(&self.socket).is_ok() {
                return Ok(());
            }
            if let Some(status) = self.try_wait()? {
                bail!("daemon exited early ({status}): {}", self.stderr());
            }
            if start.elapsed() > timeout {
                bail!(
                    "daemon socket not ready after {timeout:?}: {}",
                    self.stderr()
                );
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.as_ref().map(Child::id).unwrap_or(0)
    }

    /// The daemon's resident set size in bytes (`VmRSS` in `/proc/<pid>/status`).
    pub fn rss_bytes(&self) -> Result<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid()))?;
        let kb = status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .context("no VmRSS line")?;
        Ok(kb * 1024)
    }

    pub fn connect(&self) -> Result<Client> {
        Client::connect(&self.socket)
    }

    pub fn stderr(&self) -> String {
        std::fs::read_to_string(&self.stderr_path).unwrap_or_default()
    }

    pub fn try_wait(&mut self) -> Result<Option<ExitStatus>> {
        match self.child.as_mut() {
            Some(c) => Ok(c.try_wait()?),
            None => bail!("no child"),
        }
    }

    /// Waits for the process to exit on its own.
    pub fn wait_exit(&mut self, timeout: Duration) -> Result<ExitStatus> {
        let start = Instant::now();
        loop {
            if let Some(s) = self.try_wait()? {
                return Ok(s);
            }
            if start.elapsed() > timeout {
                bail!("daemon did not exit within {timeout:?}");
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// SIGKILL, no cleanup: a crash.
    pub fn kill9(&mut self) -> Result<()> {
        if let Some(c) = self.child.as_mut() {
            c.kill()?;
            c.wait()?;
        }
        Ok(())
    }

    /// Sends a signal by number (e.g. 15 for SIGTERM) via `kill`.
    pub fn signal(&self, sig: i32) -> Result<()> {
        let status = Command::new("kill")
            .arg(format!("-{sig}"))
            .arg(self.pid().to_string())
            .status()?;
        if !status.success() {
            bail!("kill -{sig} failed");
        }
        Ok(())
    }

    /// Keeps the temp home alive but forgets the process (after it exited).
    pub fn take_tempdir(&mut self) -> Option<tempfile::TempDir> {
        self._tempdir.take()
    }
}

impl Drop for DaemonProcess {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take()
            && c.try_wait().ok().flatten().is_none()
        {
            let _ = c.kill();
            let _ = c.wait();
        }
        let _ = std::fs::remove_file(&self.stderr_path);
    }
}

fn unique() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0)
}
