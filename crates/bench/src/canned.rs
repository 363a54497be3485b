//! The wire floor for big answers: a server that answers every request line
//! with one prebuilt line. Timing the same client against it shows how much of
//! a `session.list`/`session.get` round trip is just moving the bytes.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context, Result};

/// A canned-answer server on its own thread; stops when its client disconnects.
pub struct CannedServer {
    pub socket: PathBuf,
    _dir: tempfile::TempDir,
}

impl CannedServer {
    /// Serves `answer` (a full line, `\n` included) to one connection.
    pub fn start(answer: Vec<u8>) -> Result<CannedServer> {
        let dir = tempfile::Builder::new().prefix("sc-canned-").tempdir()?;
        let socket = dir.path().join("canned.sock");
        let listener =
            UnixListener::bind(&socket).with_context(|| format!("bind {}", socket.display()))?;
        let answer: Arc<[u8]> = answer.into();
        std::thread::Builder::new()
            .name("bench-canned".into())
            .spawn(move || {
                if let Ok((stream, _)) = listener.accept() {
                    // The client leaving ends the thread; nothing to report.
                    let _ = serve(stream, &answer);
                }
            })?;
        Ok(CannedServer { socket, _dir: dir })
    }
}

fn serve(stream: UnixStream, answer: &[u8]) -> std::io::Result<()> {
    let mut writer = stream.try_clone()?;
    let mut reader = BufReader::new(stream);
    let mut line = Vec::new();
    loop {
        line.clear();
        if reader.read_until(b'\n', &mut line)? == 0 {
            return Ok(());
        }
        writer.write_all(answer)?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_every_line_with_the_canned_line() {
        let server =
            CannedServer::start(b"{\"id\":1,\"event\":\"result\",\"data\":\"x\"}\n".to_vec())
                .unwrap();
        let stream = UnixStream::connect(&server.socket).unwrap();
        let mut w = stream.try_clone().unwrap();
        let mut r = BufReader::new(stream);
        for _ in 0..3 {
            w.write_all(b"{\"id\":1,\"method\":\"session.list\"}\n")
                .unwrap();
            let mut got = String::new();
            r.read_line(&mut got).unwrap();
            assert_eq!(got, "{\"id\":1,\"event\":\"result\",\"data\":\"x\"}\n");
        }
    }
}
