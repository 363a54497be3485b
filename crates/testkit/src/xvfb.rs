//! A virtual X display for screen-capture tests: `Xvfb` started on a free
//! display number, killed by its pid when dropped.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

/// A running Xvfb.
pub struct Xvfb {
    child: Child,
    display: String,
}

impl Xvfb {
    /// Starts `Xvfb :N -screen 0 WxHx24` on a free `N` and waits for its socket.
    pub fn start(width: u32, height: u32) -> Result<Xvfb> {
        for _ in 0..20 {
            let n = 100 + fastrand_u16() % 30_000;
            if Path::new(&format!("/tmp/.X{n}-lock")).exists()
                || Path::new(&format!("/tmp/.X11-unix/X{n}")).exists()
            {
                continue;
            }
            let mut child = Command::new("Xvfb")
                .arg(format!(":{n}"))
                .args(["-screen", "0", &format!("{width}x{height}x24")])
                .args(["-nolisten", "tcp", "-noreset"])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .context("start Xvfb")?;
            let socket = format!("/tmp/.X11-unix/X{n}");
            let deadline = Instant::now() + Duration::from_secs(10);
            while Instant::now() < deadline {
                if Path::new(&socket).exists() {
                    return Ok(Xvfb {
                        child,
                        display: format!(":{n}"),
                    });
                }
                if child.try_wait()?.is_some() {
                    break; // lost a race for the number: try another
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            let _ = child.kill();
            let _ = child.wait();
        }
        bail!("Xvfb did not start on any display number tried")
    }

    /// `:N`, the value for `DISPLAY`.
    pub fn display(&self) -> &str {
        &self.display
    }
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        // Our own child, by its pid.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn fastrand_u16() -> u16 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    ((nanos ^ std::process::id().rotate_left(7)) % 65_521) as u16
}
