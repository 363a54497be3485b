//! `session.watch` / `session.unwatch`: a long request that streams every
//! turn on a session (`turn_start`, the turn's events, `turn_end`) on its own
//! id until `session.unwatch`, the connection closes or the daemon stops.
//! With `afterSeq` it first replays what the client missed after that seq
//! (or says `resync` when the engine's buffer no longer reaches back).

use seekclaw_engine::{Resume, Sequenced};
use seekclaw_protocol::events::ResyncDetails;
use seekclaw_protocol::{Envelope, MethodError, Params, method};
use tokio_util::sync::CancellationToken;

use crate::connection::Connection;
use crate::ctx::Ctx;
use crate::handlers::Reply;
use crate::handlers::session::{SessionRef, target};
use crate::wire::watched_envelope;
use seekclaw_engine::sync::Locked;

pub async fn watch(daemon: &Ctx, conn: &Connection, id: i64, p: &Params) -> Reply {
    let params = p.read::<method::SessionWatch>()?;
    let r = SessionRef::from(&params);
    let scope = target(daemon, &r)?;
    let (key, sid) = (scope.key.clone(), r.id.clone());
    let header = daemon
        .db(move |s| s.session(&key, &sid))
        .await?
        .ok_or_else(|| MethodError::not_found(format!("Session {} not found", r.id)))?;
    let sid = header.id;
    let (_guard, mut rx, resume) = daemon.engine.bus.resume(&sid, conn.id, params.after_seq);
    let ended = CancellationToken::new();
    conn.watching
        .locked()
        .push((sid.to_lowercase(), ended.clone()));
    let lang = daemon.engine.config.load().ui.language();
    match resume {
        Some(Resume::Replay(missed)) => replay(conn, (id, lang), &sid, missed).await,
        Some(Resume::Resync { after, oldest, seq }) => {
            let details = ResyncDetails {
                after_seq: after,
                oldest_seq: oldest,
                seq,
            };
            let text = format!(
                "The events after seq {after} are no longer kept; reload the session (session.timeline)"
            );
            let env = Envelope::event(id, text, &details).with_session(Some(sid.clone()));
            conn.outbox.send(&env).await;
        }
        None => {}
    }
    let unwatched = loop {
        tokio::select! {
            item = rx.recv() => match item {
                Some(item) => {
                    if let Some(env) = watched_envelope(id, &sid, item, lang) {
                        conn.outbox.send(&env).await;
                    }
                }
                None => {
                    break Err(MethodError::internal(
                        "The watch fell behind the session's events and was ended; watch again",
                    ));
                }
            },
            _ = ended.cancelled() => break Ok(()),
            _ = conn.closing.cancelled() => break Ok(()),
            _ = daemon.shutdown.cancelled() => break Ok(()),
        }
    };
    // Unwatch removes what it cancels; any other ended watch is this one.
    ended.cancel();
    conn.watching.locked().retain(|(_, t)| !t.is_cancelled());
    unwatched?;
    Ok(Envelope::result(id, "unwatched").with_session(Some(sid)))
}

/// Sends what a returning watcher missed, in chunks of envelope lines.
async fn replay(
    conn: &Connection,
    (id, lang): (i64, seekclaw_config::UiLanguage),
    sid: &str,
    missed: Vec<Sequenced>,
) {
    const CHUNK: usize = 64 * 1024;
    let mut lines = Vec::with_capacity(CHUNK.min(missed.len() * 128));
    for item in missed {
        if let Some(env) = watched_envelope(id, sid, item, lang) {
            env.write_line(&mut lines);
        }
        if lines.len() >= CHUNK {
            conn.outbox.send_line(std::mem::take(&mut lines)).await;
        }
    }
    if !lines.is_empty() {
        conn.outbox.send_line(lines).await;
    }
}

pub async fn unwatch(conn: &Connection, id: i64, p: &Params) -> Reply {
    let r = SessionRef::from(&p.read::<method::SessionUnwatch>()?);
    let sid = r.id.to_lowercase();
    let mut n = 0;
    conn.watching.locked().retain(|(s, token)| {
        if *s == sid {
            token.cancel();
            n += 1;
            false
        } else {
            true
        }
    });
    Ok(Envelope::result(id, n.to_string()).with_session(Some(r.id)))
}
