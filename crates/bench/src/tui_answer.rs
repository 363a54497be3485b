//! Enter → answer on screen: a trivial prompt's whole turn as the chat shows
//! it (its final frame: the answer and an idle status bar), against the same
//! turn through the socket (`chat` → `done`) measured in the same run.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use seekclaw_testkit::{ProviderServer, Reply};
use serde_json::{Value, json};

use super::{Chat, HINT, WAIT, editor_is, status};
use crate::daemon::JsonlClient;
use crate::pty::screen;

/// Times `n` trivial turns through the socket and `n` in the chat, in
/// alternating rounds (a load spike hits both sides alike).
pub(super) fn answers(
    chat: &Chat<'_>,
    server: &ProviderServer,
    socket: &Path,
    n: usize,
) -> Result<(Vec<Duration>, Vec<Duration>)> {
    let mut client = JsonlClient::connect(socket)?;
    let sid = client
        .timed(r#"{"id":1,"method":"session.new","params":{"global":true}}"#)?
        .1["data"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let mut pty = chat.spawn(&[])?;
    pty.wait_text(HINT, WAIT)?;
    let (mut socket_times, mut screen_times) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for i in 0..n {
        server.enqueue(Reply::plain(format!("sock{i:03}.")));
        socket_times.push(socket_turn(&mut client, &sid, i)?);

        let answer = format!("shown{i:03}.");
        server.enqueue(Reply::plain(answer.clone()));
        pty.write(b"hi")?;
        pty.wait("the prompt typed", WAIT, |s| editor_is(s, "› hi"))?;
        // Settled: the typing's frames are drawn and the pacing window over.
        std::thread::sleep(Duration::from_millis(60));
        let start = Instant::now();
        pty.write(b"\r")?;
        let shown = pty.wait("the answer", WAIT, |s| {
            let text = screen(s);
            text.contains(&answer) && status(&text).contains("idle")
        })?;
        screen_times.push(shown - start);
    }
    pty.stop()?;
    Ok((socket_times, screen_times))
}

/// One `chat` on the socket: the time from sending it until its `done`.
fn socket_turn(client: &mut JsonlClient, sid: &str, i: usize) -> Result<Duration> {
    let id = 1000 + i as i64;
    let request = json!({"id": id, "method": "chat",
        "params": {"message": "hi", "sessionId": sid, "global": true}})
    .to_string();
    let start = Instant::now();
    client.send(&request)?;
    loop {
        let line = client.read_line()?;
        let env: Value = serde_json::from_slice(line)?;
        if env["id"] != id {
            continue;
        }
        match env["event"].as_str() {
            Some("done") => return Ok(start.elapsed()),
            Some("error" | "cancelled") => bail!("the socket turn failed: {env}"),
            _ => {}
        }
    }
}
