//! `connection.upgrade` (feature `tokio`): a new connection whose first
//! request switches it to another protocol the daemon serves (`acp`), handed
//! back as its two halves for the caller to speak that protocol over.

use std::path::Path;

use seekclaw_protocol::api::UpgradeParams;
use seekclaw_protocol::method::ConnectionUpgrade;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::UnixStream;
use tokio::net::unix::{OwnedReadHalf, OwnedWriteHalf};

use crate::error::ClientError;
use crate::wire::{Event, RequestIds, method_name, read_result, request_line};

/// A connection switched to another protocol.
#[derive(Debug)]
pub struct Upgraded {
    /// What the daemon sends from now on; it may already hold lines the
    /// daemon wrote right behind its answer (see [`BufReader::buffer`]).
    pub reader: BufReader<OwnedReadHalf>,
    /// Where the new protocol's lines go.
    pub writer: OwnedWriteHalf,
    /// The daemon's answer (`upgraded to acp`).
    pub answer: String,
}

/// Connects to the socket at `path` and switches the connection to
/// `protocol`. Broadcasts (and lines that are not envelopes) read before the
/// answer are skipped. A daemon that does not serve the protocol (an older
/// one: `unknown_method`; another build: `invalid_request`) answers
/// [`ClientError::Daemon`]; no daemon is [`ClientError::Connect`]. It waits
/// for the answer for ever: bound it with a timeout where a wedged daemon
/// must not hang the caller.
pub async fn upgrade(path: impl AsRef<Path>, protocol: &str) -> Result<Upgraded, ClientError> {
    let path = path.as_ref();
    let stream = UnixStream::connect(path)
        .await
        .map_err(|source| ClientError::Connect {
            path: path.to_path_buf(),
            source,
        })?;
    let (read, mut writer) = stream.into_split();
    let id = RequestIds::default().next();
    let params = UpgradeParams {
        protocol: seekclaw_protocol::api::Required(protocol.to_string()),
    };
    let line = request_line(id, method_name::<ConnectionUpgrade>(), &params)?;
    writer.write_all(&line).await?;
    writer.flush().await?;
    let mut reader = BufReader::new(read);
    let mut line = String::new();
    loop {
        line.clear();
        if reader.read_line(&mut line).await? == 0 {
            return Err(ClientError::Closed);
        }
        match Event::parse(&line) {
            Ok(env) if env.id == id && env.is_terminal() => {
                let answer = read_result::<ConnectionUpgrade>(&env)?;
                return Ok(Upgraded {
                    reader,
                    writer,
                    answer,
                });
            }
            _ => continue,
        }
    }
}

#[cfg(test)]
mod tests {
    use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
    use tokio::net::UnixListener;

    use super::upgrade;
    use crate::ClientError;

    /// A fake daemon: reads the request line, writes `answer`, hands back
    /// the request it read and the socket's halves.
    async fn daemon(
        listener: UnixListener,
        answer: &'static str,
    ) -> (
        String,
        BufReader<tokio::net::unix::OwnedReadHalf>,
        tokio::net::unix::OwnedWriteHalf,
    ) {
        let (sock, _) = listener.accept().await.unwrap();
        let (r, mut w) = sock.into_split();
        let mut r = BufReader::new(r);
        let mut request = String::new();
        r.read_line(&mut request).await.unwrap();
        w.write_all(answer.as_bytes()).await.unwrap();
        (request, r, w)
    }

    #[tokio::test]
    async fn upgrades_skipping_broadcasts_and_keeps_what_follows_the_answer() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("daemon.sock");
        let listener = UnixListener::bind(&path).unwrap();
        let server = tokio::spawn(daemon(
            listener,
            concat!(
                "{\"id\":0,\"event\":\"schedule.upcoming\",\"data\":\"t\"}\n",
                "not an envelope\n",
                "{\"id\":1,\"event\":\"result\",\"data\":\"upgraded to acp\"}\n",
                "{\"jsonrpc\":\"2.0\",\"method\":\"hello\"}\n",
            ),
        ));
        let mut up = upgrade(&path, "acp").await.unwrap();
        let (request, mut from_client, _w) = server.await.unwrap();
        assert_eq!(
            request,
            "{\"id\":1,\"method\":\"connection.upgrade\",\"params\":{\"protocol\":\"acp\"}}\n"
        );
        assert_eq!(up.answer, "upgraded to acp");
        // The new protocol's first line, sent right behind the answer, is the caller's.
        let mut next = String::new();
        up.reader.read_line(&mut next).await.unwrap();
        assert_eq!(next, "{\"jsonrpc\":\"2.0\",\"method\":\"hello\"}\n");
        // And the connection now carries the caller's bytes as they are.
        up.writer.write_all(b"raw bytes\n").await.unwrap();
        up.writer.shutdown().await.unwrap();
        let mut rest = String::new();
        from_client.read_to_string(&mut rest).await.unwrap();
        assert_eq!(rest, "raw bytes\n");
    }

    #[tokio::test]
    async fn a_daemon_that_cannot_upgrade_or_does_not_run_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("daemon.sock");
        let err = upgrade(&path, "acp").await.unwrap_err();
        assert!(matches!(err, ClientError::Connect { .. }), "{err}");

        let listener = UnixListener::bind(&path).unwrap();
        let server = tokio::spawn(daemon(
            listener,
            "{\"id\":1,\"event\":\"error\",\"data\":\"Unknown method: connection.upgrade\",\"details\":{\"code\":\"unknown_method\"}}\n",
        ));
        let err = upgrade(&path, "acp").await.unwrap_err();
        assert_eq!(
            err.code(),
            Some(seekclaw_protocol::ErrorCode::UnknownMethod),
            "{err}"
        );
        drop(server.await.unwrap());

        let listener = UnixListener::bind(dir.path().join("closing.sock")).unwrap();
        let server = tokio::spawn(async move {
            let (sock, _) = listener.accept().await.unwrap();
            let mut request = String::new();
            BufReader::new(sock).read_line(&mut request).await.unwrap();
        });
        let err = upgrade(dir.path().join("closing.sock"), "acp")
            .await
            .unwrap_err();
        assert!(matches!(err, ClientError::Closed), "{err}");
        server.await.unwrap();
    }
}
