//! The base protocol's framing: `Content-Length: N\r\n\r\n` then N bytes of
//! JSON. Other headers (`Content-Type`) are read and ignored.

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// Largest message read (a workspace's diagnostics can be large; a runaway
/// length must not allocate without bound).
const MAX_MESSAGE: usize = 64 * 1024 * 1024;

/// Why a frame could not be read.
#[derive(Debug, thiserror::Error)]
pub enum FrameError {
    /// The stream failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The header was not what the protocol says.
    #[error("bad header: {0}")]
    Header(String),
}

/// The next message's body; `None` at a clean end of the stream.
pub async fn read_message<R: AsyncBufRead + Unpin>(
    reader: &mut R,
) -> Result<Option<Vec<u8>>, FrameError> {
    let mut length: Option<usize> = None;
    let mut line = String::new();
    let mut first = true;
    loop {
        line.clear();
        let n = reader.read_line(&mut line).await?;
        if n == 0 {
            return if first && length.is_none() {
                Ok(None)
            } else {
                Err(FrameError::Header("stream ended inside a header".into()))
            };
        }
        first = false;
        let trimmed = line.trim_end_matches(['\r', '\n']);
        if trimmed.is_empty() {
            // Some servers log a stray blank line between frames.
            if length.is_none() {
                first = true;
                continue;
            }
            break;
        }
        let Some((name, value)) = trimmed.split_once(':') else {
            return Err(FrameError::Header(trimmed.chars().take(80).collect()));
        };
        if name.trim().eq_ignore_ascii_case("content-length") {
            let n = value
                .trim()
                .parse::<usize>()
                .map_err(|_| FrameError::Header(trimmed.to_string()))?;
            if n > MAX_MESSAGE {
                return Err(FrameError::Header(format!("message of {n} bytes")));
            }
            length = Some(n);
        }
    }
    let Some(length) = length else {
        return Err(FrameError::Header("no Content-Length".into()));
    };
    let mut body = vec![0; length];
    reader.read_exact(&mut body).await?;
    Ok(Some(body))
}

/// Writes one message and flushes.
pub async fn write_message<W: AsyncWrite + Unpin>(
    writer: &mut W,
    body: &[u8],
) -> std::io::Result<()> {
    let header = format!("Content-Length: {}\r\n\r\n", body.len());
    writer.write_all(header.as_bytes()).await?;
    writer.write_all(body).await?;
    writer.flush().await
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::BufReader;

    #[tokio::test]
    async fn frames_round_trip_with_extra_headers_and_split_reads() {
        let mut out = Vec::new();
        write_message(&mut out, br#"{"a":1}"#).await.unwrap();
        write_message(&mut out, "{\"b\":\"é\"}".as_bytes())
            .await
            .unwrap();
        let mut raw = b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n".to_vec();
        raw.extend_from_slice(&out);
        // A reader that hands out one byte at a time still gets whole frames.
        let mut reader = BufReader::with_capacity(1, &raw[..]);
        assert_eq!(
            read_message(&mut reader).await.unwrap().unwrap(),
            br#"{"a":1}"#
        );
        assert_eq!(
            read_message(&mut reader).await.unwrap().unwrap(),
            "{\"b\":\"é\"}".as_bytes()
        );
        assert!(read_message(&mut reader).await.unwrap().is_none());
    }

    #[tokio::test]
    async fn bad_headers_and_truncation_are_errors() {
        for raw in [
            &b"Content-Length: x\r\n\r\n"[..],
            b"garbage\r\n\r\n",
            b"Content-Type: a\r\n\r\n{}",
            b"Content-Length: 10\r\n\r\n{}",
            b"Content-Length: 2\r\n",
            b"Content-Length: 999999999999\r\n\r\n",
        ] {
            let mut reader = BufReader::new(raw);
            assert!(read_message(&mut reader).await.is_err(), "{raw:?}");
        }
    }
}
