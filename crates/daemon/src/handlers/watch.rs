//! `session.watch` / `session.unwatch`: a long request that streams every
//! turn on a session (`turn_start`, the turn's events, `turn_end`) on its own
//! id until `session.unwatch`, the connection closes or the daemon stops.

use seekclaw_protocol::{Envelope, MethodError, Params, method};
use tokio_util::sync::CancellationToken;

use crate::connection::Connection;
use crate::ctx::Ctx;
use crate::handlers::Reply;
use crate::handlers::session::{SessionRef, target};
use crate::wire::watched_envelope;
use seekclaw_engine::sync::Locked;

pub async fn watch(daemon: &Ctx, conn: &Connection, id: i64, p: &Params) -> Reply {
    let r = SessionRef::from(&p.read::<method::SessionWatch>()?);
    let scope = target(daemon, &r)?;
    let (key, sid) = (scope.key.clone(), r.id.clone());
    let header = daemon
        .db(move |s| s.session(&key, &sid))
        .await?
        .ok_or_else(|| MethodError::not_found(format!("Session {} not found", r.id)))?;
    let sid = header.id;
    let (_guard, mut rx) = daemon.engine.bus.add(&sid, conn.id);
    let ended = CancellationToken::new();
    conn.watching
        .locked()
        .push((sid.to_lowercase(), ended.clone()));
    let lang = daemon.engine.config.load().ui.language();
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
