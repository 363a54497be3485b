//! A child process in a pseudo-terminal (libc `openpty`), its output parsed
//! by `vt100` on a reader thread, so a bench can wait for what the screen
//! shows and time it. Frames are counted by their synchronized-update end
//! (`ESC [ ? 2026 l`), which the chat writes after each draw.

use std::fs::File;
use std::io::{Read, Write};
use std::num::NonZeroU16;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

/// End of a synchronized update: one drawn frame.
const FRAME_END: &[u8] = b"\x1b[?2026l";

/// What the reader thread saw.
pub struct Seen {
    pub parser: vt100::Parser,
    /// Bytes the child wrote.
    pub bytes: usize,
    /// Frames drawn (synchronized updates ended).
    pub frames: usize,
    /// When each frame's end was read (several in one read share a time).
    pub frame_times: Vec<std::time::Instant>,
    /// The last bytes of the previous read (a frame end split over two reads).
    carry: Vec<u8>,
    /// The child closed the terminal.
    pub closed: bool,
}

type Shared = Arc<(Mutex<Seen>, Condvar)>;

/// A process on a `cols`×`rows` pseudo-terminal. Killed on drop.
pub struct Pty {
    pub child: Child,
    master: File,
    shared: Shared,
    pub spawned_at: Instant,
}

impl Pty {
    /// Spawns `command` as the session leader of a new terminal.
    pub fn spawn(mut command: Command, cols: u16, rows: u16) -> Result<Pty> {
        let (Some(nz_rows), Some(nz_cols)) = (NonZeroU16::new(rows), NonZeroU16::new(cols)) else {
            bail!("a terminal needs rows and columns");
        };
        let (mut master, mut slave) = (0, 0);
        let size = libc::winsize {
            ws_row: rows,
            ws_col: cols,
            ws_xpixel: 0,
            ws_ypixel: 0,
        };
        // SAFETY: out-pointers to two ints and a valid winsize; no name or termios.
        let rc = unsafe {
            libc::openpty(
                &mut master,
                &mut slave,
                std::ptr::null_mut(),
                std::ptr::null(),
                &size,
            )
        };
        if rc != 0 {
            return Err(std::io::Error::last_os_error()).context("openpty");
        }
        // SAFETY: openpty returned two fresh descriptors that we now own.
        let (master, slave) =
            unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
        for fd in [master.as_raw_fd(), slave.as_raw_fd()] {
            // The child gets the slave as 0/1/2 only, never these copies.
            // SAFETY: fcntl on a descriptor we own.
            unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) };
        }
        command
            .stdin(Stdio::from(slave.try_clone()?))
            .stdout(Stdio::from(slave.try_clone()?))
            .stderr(Stdio::from(slave));
        // SAFETY: only async-signal-safe calls between fork and exec.
        unsafe {
            command.pre_exec(|| {
                // A session of its own with the terminal as its controlling tty.
                if libc::setsid() < 0 || libc::ioctl(0, libc::TIOCSCTTY, 0) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let spawned_at = Instant::now();
        let child = command.spawn().context("spawn in the pty")?;
        drop(command); // the slave's last copies in this process: EOF when the child ends
        let master = File::from(master);
        let shared: Shared = Arc::new((
            Mutex::new(Seen {
                parser: vt100::Parser::new(nz_rows, nz_cols, 0),
                bytes: 0,
                frames: 0,
                frame_times: Vec::new(),
                carry: Vec::new(),
                closed: false,
            }),
            Condvar::new(),
        ));
        let reader = master.try_clone()?;
        let for_thread = shared.clone();
        std::thread::Builder::new()
            .name("pty-reader".into())
            .spawn(move || read_loop(reader, &for_thread))?;
        Ok(Pty {
            child,
            master,
            shared,
            spawned_at,
        })
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Types `bytes` (keys as the terminal would send them).
    pub fn write(&mut self, bytes: &[u8]) -> Result<()> {
        self.master.write_all(bytes)?;
        Ok(())
    }

    /// The reader's state, locked.
    pub fn seen(&self) -> MutexGuard<'_, Seen> {
        lock(&self.shared.0)
    }

    /// Waits until `ok` holds for what was seen; returns when it did.
    pub fn wait(
        &self,
        what: &str,
        timeout: Duration,
        ok: impl Fn(&Seen) -> bool,
    ) -> Result<Instant> {
        let start = Instant::now();
        let (lock_, cond) = &*self.shared;
        let mut seen = lock(lock_);
        loop {
            if ok(&seen) {
                return Ok(Instant::now());
            }
            if seen.closed {
                bail!(
                    "the terminal closed while waiting for {what}:\n{}",
                    screen(&seen)
                );
            }
            let left = timeout.checked_sub(start.elapsed()).unwrap_or_default();
            if left.is_zero() {
                bail!(
                    "timed out waiting for {what}; the screen:\n{}",
                    screen(&seen)
                );
            }
            seen = match cond.wait_timeout(seen, left) {
                Ok((s, _)) => s,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
    }

    /// Waits until the screen contains `text`.
    pub fn wait_text(&self, text: &str, timeout: Duration) -> Result<Instant> {
        self.wait(text, timeout, |s| screen(s).contains(text))
    }

    /// Asks the child to end (SIGTERM) and waits for it.
    pub fn stop(mut self) -> Result<()> {
        // SAFETY: a signal to our own child.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
        let start = Instant::now();
        while self.child.try_wait()?.is_none() {
            if start.elapsed() > Duration::from_secs(10) {
                self.child.kill()?;
                bail!("the child did not end on SIGTERM");
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        Ok(())
    }
}

impl Drop for Pty {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// The screen's text, rows joined by newlines.
pub fn screen(seen: &Seen) -> String {
    seen.parser.screen().contents()
}

fn lock(m: &Mutex<Seen>) -> MutexGuard<'_, Seen> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn read_loop(mut master: File, shared: &Shared) {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        // EIO once the child and its descendants closed the terminal.
        let n = master.read(&mut buf).unwrap_or(0);
        let mut seen = lock(&shared.0);
        if n == 0 {
            seen.closed = true;
            shared.1.notify_all();
            return;
        }
        let chunk = &buf[..n];
        seen.parser.process(chunk);
        seen.bytes += n;
        let mut joined = std::mem::take(&mut seen.carry);
        joined.extend_from_slice(chunk);
        let ended = count(&joined, FRAME_END);
        seen.frames += ended;
        let now = std::time::Instant::now();
        seen.frame_times.extend(std::iter::repeat_n(now, ended));
        let keep = joined.len().min(FRAME_END.len() - 1);
        seen.carry = joined[joined.len() - keep..].to_vec();
        shared.1.notify_all();
    }
}

fn count(hay: &[u8], needle: &[u8]) -> usize {
    hay.windows(needle.len()).filter(|w| *w == needle).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_child_in_the_pty_is_seen_on_the_screen() {
        let mut cmd = Command::new("sh");
        cmd.args([
            "-c",
            "printf 'hello\\033[?2026l\\n'; read x; echo \"got $x\"",
        ]);
        let mut pty = Pty::spawn(cmd, 40, 5).unwrap();
        pty.wait_text("hello", Duration::from_secs(5)).unwrap();
        pty.write(b"abc\r").unwrap();
        pty.wait_text("got abc", Duration::from_secs(5)).unwrap();
        assert_eq!(pty.seen().frames, 1);
        pty.wait("the end", Duration::from_secs(5), |s| s.closed)
            .unwrap();
    }
}
