//! Opening the daemon's socket (a named pipe on Windows) as two blocking halves.

use std::io::{Read, Write};
use std::path::Path;

/// One open connection: its halves, and on Unix the socket itself (read
/// timeouts, and for callers that need the raw socket).
pub(crate) struct Opened {
    pub reader: Box<dyn Read + Send>,
    pub writer: Box<dyn Write + Send>,
    #[cfg(unix)]
    pub socket: std::os::unix::net::UnixStream,
}

#[cfg(unix)]
pub(crate) fn open(path: &Path) -> std::io::Result<Opened> {
    let socket = std::os::unix::net::UnixStream::connect(path)?;
    Ok(Opened {
        reader: Box::new(socket.try_clone()?),
        writer: Box::new(NoSignalWriter(socket.try_clone()?)),
        socket,
    })
}

#[cfg(windows)]
pub(crate) fn open(path: &Path) -> std::io::Result<Opened> {
    // A byte-mode named pipe opens like a file (`\\.\pipe\seekclaw`).
    let pipe = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)?;
    Ok(Opened {
        reader: Box::new(pipe.try_clone()?),
        writer: Box::new(pipe),
    })
}

/// A Unix socket's write half that never raises SIGPIPE: a daemon gone
/// mid-write is an `EPIPE` error, even in a process that restored SIGPIPE's
/// default action (the CLI does, for `| head`).
#[cfg(unix)]
struct NoSignalWriter(std::os::unix::net::UnixStream);

#[cfg(unix)]
impl Write for NoSignalWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        rustix::net::send(&self.0, buf, rustix::net::SendFlags::NOSIGNAL).map_err(Into::into)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
