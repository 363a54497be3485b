//! `session.watch` / `session.unwatch`: a long request that streams every
//! turn on a session (`turn_start`, the turn's events, `turn_end`) on its own
//! id until `session.unwatch`, the connection closes or the daemon stops.

use seekclaw_agent::TurnOutcome;
use seekclaw_protocol::events::{TurnEndDetails, TurnStartDetails};
use seekclaw_protocol::{Envelope, MethodError, Params, method};
use tokio_util::sync::CancellationToken;

use crate::connection::Connection;
use crate::ctx::Ctx;
use crate::handlers::Reply;
use crate::handlers::session::{SessionRef, target};
use seekclaw_engine::Watched;
use seekclaw_engine::sync::Locked;

pub async fn watch(ctx: &Ctx, conn: &Connection, id: i64, p: &Params) -> Reply {
    let r = SessionRef::from(&p.read::<method::SessionWatch>()?);
    let scope = target(ctx, &r)?;
    let (key, sid) = (scope.key.clone(), r.id.clone());
    let header = ctx
        .db(move |s| s.session(&key, &sid))
        .await?
        .ok_or_else(|| MethodError::not_found(format!("Session {} not found", r.id)))?;
    let sid = header.id;
    let (_guard, mut rx) = ctx.engine.bus.add(&sid, conn.id);
    let ended = CancellationToken::new();
    conn.watching
        .locked()
        .push((sid.to_lowercase(), ended.clone()));
    let lang = ctx.engine.config.load().ui.language();
    let unwatched = loop {
        tokio::select! {
            item = rx.recv() => match item {
                Some(item) => {
                    if let Some(env) = envelope(id, &sid, item, lang) {
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
            _ = ctx.shutdown.cancelled() => break Ok(()),
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

fn envelope(
    id: i64,
    sid: &str,
    item: Watched,
    lang: seekclaw_config::UiLanguage,
) -> Option<Envelope> {
    Some(match item {
        Watched::TurnStart { message, origin } => Envelope::event(
            id,
            message,
            &TurnStartDetails {
                origin: origin.into(),
            },
        )
        .with_session(Some(sid.to_string())),
        Watched::Event(ev) => return crate::handlers::chat::envelope(id, sid, ev, lang),
        Watched::TurnEnd(outcome) => {
            let (text, outcome, code) = match outcome {
                TurnOutcome::Done(t) => (t, "done", None),
                TurnOutcome::Cancelled(t) => (t, "cancelled", None),
                TurnOutcome::Failed(f) => (
                    f.message,
                    "error",
                    Some(crate::outcome::failure_code(f.kind)),
                ),
                TurnOutcome::Unsaved { error, .. } => (
                    seekclaw_protocol::wording::unsaved_message(&error),
                    "error",
                    Some(seekclaw_protocol::ErrorCode::Storage),
                ),
            };
            Envelope::event(
                id,
                text,
                &TurnEndDetails {
                    outcome: outcome.into(),
                    code,
                },
            )
            .with_session(Some(sid.to_string()))
        }
    })
}

#[cfg(test)]
mod tests {
    use seekclaw_agent::TurnOutcome;
    use seekclaw_config::UiLanguage;

    use super::*;

    #[test]
    fn a_watched_unsaved_turn_says_so_once() {
        let outcome = TurnOutcome::Unsaved {
            ended: Box::new(TurnOutcome::Done("answer".into())),
            error: "disk full".into(),
        };
        let env = envelope(3, "s", Watched::TurnEnd(outcome), UiLanguage::En).unwrap();
        let line: serde_json::Value = serde_json::from_slice(&env.to_line()).unwrap();
        assert_eq!(line["data"], "The turn could not be saved: disk full");
        assert_eq!(line["details"]["code"], "storage");
    }
}
