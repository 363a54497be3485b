//! The client's input, watched for its end: closing stdin is how an MCP
//! client stops a stdio server, and the turns still running must hear it at
//! once (the SDK only cancels its handlers after waiting for their answers).

use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, ReadBuf};
use tokio_util::sync::CancellationToken;

/// Reads `inner`; cancels `ended` when it reports end of input or fails.
pub struct WatchedInput<R> {
    inner: R,
    ended: CancellationToken,
}

impl<R> WatchedInput<R> {
    /// Watches `inner`.
    pub fn new(inner: R, ended: CancellationToken) -> WatchedInput<R> {
        WatchedInput { inner, ended }
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for WatchedInput<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        match &polled {
            // Zero bytes into a buffer with room: the end of the input.
            Poll::Ready(Ok(())) if buf.filled().len() == before && buf.remaining() > 0 => {
                self.ended.cancel();
            }
            Poll::Ready(Err(_)) => self.ended.cancel(),
            _ => {}
        }
        polled
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    #[tokio::test]
    async fn the_end_of_input_cancels_the_token_and_not_before() {
        let ended = CancellationToken::new();
        let mut input = WatchedInput::new(&b"abc"[..], ended.clone());
        let mut two = [0u8; 2];
        input.read_exact(&mut two).await.unwrap();
        assert!(!ended.is_cancelled());
        let mut rest = Vec::new();
        input.read_to_end(&mut rest).await.unwrap();
        assert_eq!(rest, b"c");
        assert!(ended.is_cancelled());
    }
}
