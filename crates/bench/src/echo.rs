//! The baseline server: a minimal JSONL echo over a Unix socket. Same transport
//! and the same batching idea as the daemon (flush only when no more input is
//! already buffered), but no parsing, dispatch or envelope encoding, so the
//! ratio daemon/echo isolates what the daemon adds per request.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, BufWriter};
use tokio::net::{UnixListener, UnixStream};

/// Buffer sizes match the daemon's reader and writer (64 KiB each).
const BUF_BYTES: usize = 64 * 1024;

/// A running echo server; the socket lives in its own temp dir.
pub struct EchoServer {
    pub socket: PathBuf,
    _dir: tempfile::TempDir,
}

impl EchoServer {
    /// Binds and starts accepting on the runtime `rt` (the caller keeps the
    /// runtime alive as long as the server is needed).
    pub fn start(rt: &tokio::runtime::Runtime) -> Result<EchoServer> {
        let dir = tempfile::Builder::new().prefix("sc-echo-").tempdir()?;
        let socket = dir.path().join("echo.sock");
        // Binding registers with the runtime's reactor, so it needs its context.
        let _ctx = rt.enter();
        let listener =
            UnixListener::bind(&socket).with_context(|| format!("bind {}", socket.display()))?;
        rt.spawn(accept_loop(listener));
        Ok(EchoServer { socket, _dir: dir })
    }

    pub fn path(&self) -> &Path {
        &self.socket
    }
}

async fn accept_loop(listener: UnixListener) {
    loop {
        match listener.accept().await {
            Ok((stream, _)) => {
                tokio::spawn(async move {
                    // A client that vanishes mid-line is not the server's problem.
                    let _ = echo_connection(stream).await;
                });
            }
            Err(e) => {
                eprintln!("echo: accept failed: {e}");
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            }
        }
    }
}

/// Reads lines and writes each back unchanged; flushes when the read buffer
/// holds no further input, so a pipelined burst goes out in one write.
pub async fn echo_connection(stream: UnixStream) -> std::io::Result<()> {
    let (read, write) = stream.into_split();
    let mut reader = BufReader::with_capacity(BUF_BYTES, read);
    let mut writer = BufWriter::with_capacity(BUF_BYTES, write);
    let mut line = Vec::with_capacity(256);
    loop {
        line.clear();
        let n = reader.read_until(b'\n', &mut line).await?;
        if n == 0 {
            writer.flush().await?;
            return writer.shutdown().await;
        }
        writer.write_all(&line).await?;
        if reader.buffer().is_empty() {
            writer.flush().await?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    #[test]
    fn echoes_pipelined_lines_unchanged() {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let server = EchoServer::start(&rt).unwrap();
        let path = server.path().to_path_buf();
        let got = rt.block_on(async move {
            let mut s = UnixStream::connect(&path).await.unwrap();
            let sent = b"{\"id\":1,\"method\":\"ping\"}\n{\"id\":2,\"method\":\"ping\"}\nlast\n";
            s.write_all(sent).await.unwrap();
            s.shutdown().await.unwrap();
            let mut out = Vec::new();
            s.read_to_end(&mut out).await.unwrap();
            (sent.to_vec(), out)
        });
        assert_eq!(got.0, got.1);
    }
}
