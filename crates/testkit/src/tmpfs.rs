//! A small tmpfs in a mount namespace of its own, for tests of a full disk.
//!
//! `unshare -m` starts a holder process that mounts the tmpfs and then sleeps:
//! the mount lives as long as the holder and is seen by no other process of
//! the machine. Programs run inside with `nsenter`; the test reaches the files
//! from outside through `/proc/<holder>/root`. Needs root (CI runs as root).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use anyhow::{Context, Result, bail};

/// A private tmpfs mounted at [`PrivateTmpfs::mount_point`]. Unmounted (its
/// holder killed) on drop.
pub struct PrivateTmpfs {
    holder: Child,
    mount_point: PathBuf,
}

impl PrivateTmpfs {
    /// Whether this process may make one (root, with `unshare`/`nsenter`).
    pub fn available() -> bool {
        Self::missing().is_none()
    }

    /// Why this process may not make one, if it may not (for
    /// [`capability_missing`](crate::capability_missing)`("tmpfs", …)`).
    pub fn missing() -> Option<String> {
        if let Some(why) = crate::not_root() {
            return Some(format!("a private tmpfs needs root: {why}"));
        }
        let unshare = Command::new("unshare")
            .args(["-m", "true"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        match unshare {
            Ok(s) if s.success() => None,
            Ok(s) => Some(format!("`unshare -m true` failed ({s})")),
            Err(e) => Some(format!("`unshare` cannot be started: {e}")),
        }
    }

    /// Mounts a tmpfs of `size_bytes` (mode 0700) over the directory `dir`,
    /// which is created if missing.
    pub fn mount(dir: &Path, size_bytes: u64) -> Result<PrivateTmpfs> {
        std::fs::create_dir_all(dir)?;
        let script = "mount -t tmpfs -o size=\"$1\",mode=0700 tmpfs \"$2\" && echo ready && exec sleep 100000";
        let mut holder = Command::new("unshare")
            .args(["-m", "--propagation", "private", "sh", "-c", script, "sh"])
            .arg(size_bytes.to_string())
            .arg(dir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .context("spawn unshare")?;
        let stdout = holder.stdout.take().context("holder stdout")?;
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line)?;
        if line.trim() != "ready" {
            let _ = holder.kill();
            let _ = holder.wait();
            bail!("could not mount a tmpfs at {}", dir.display());
        }
        Ok(PrivateTmpfs {
            holder,
            mount_point: dir.to_path_buf(),
        })
    }

    pub fn mount_point(&self) -> &Path {
        &self.mount_point
    }

    /// The path by which a process outside the namespace reaches `inner`
    /// (an absolute path as seen inside).
    pub fn outside(&self, inner: &Path) -> PathBuf {
        let relative = inner.strip_prefix("/").unwrap_or(inner);
        PathBuf::from(format!("/proc/{}/root", self.holder.id())).join(relative)
    }

    /// `program` run inside the namespace (`nsenter` execs it: the child's
    /// pid is the program's).
    pub fn command(&self, program: &Path) -> Command {
        let mut cmd = Command::new("nsenter");
        cmd.arg("-t")
            .arg(self.holder.id().to_string())
            .args(["-m", "--"])
            .arg(program);
        cmd
    }

    /// Writes zeros to `inner` until the file system is full; returns the
    /// bytes written.
    pub fn fill(&self, inner: &Path) -> Result<u64> {
        use std::io::Write;
        let mut file = std::fs::File::create(self.outside(inner))?;
        let chunk = vec![0u8; 64 * 1024];
        let mut written = 0u64;
        loop {
            match file.write(&chunk) {
                Ok(0) => break,
                Ok(n) => written += n as u64,
                Err(e) if e.raw_os_error() == Some(libc::ENOSPC) => break,
                Err(e) => return Err(e.into()),
            }
        }
        // Leftover bytes of a partly written last page fit nowhere either.
        let _ = file.flush();
        Ok(written)
    }
}

impl Drop for PrivateTmpfs {
    fn drop(&mut self) {
        // Our own child, by pid; the mount goes with its namespace.
        let _ = self.holder.kill();
        let _ = self.holder.wait();
    }
}
