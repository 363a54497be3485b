//! A session with its whole log, read in one snapshot: what a turn starts from.

use rusqlite::{Connection, OptionalExtension, params};

use crate::error::Result;
use crate::event_log::events_of;
use crate::items::SessionEvent;
use crate::model::SessionHeader;
use crate::sessions::{header_cols, header_from_row};
use crate::store::Store;

/// A session's header and its event log, as of one moment.
#[derive(Debug, Clone)]
pub struct Conversation {
    /// The session's header.
    pub header: SessionHeader,
    /// Its whole event log, oldest first.
    pub events: Vec<SessionEvent>,
}

/// The most log [`Store::try_conversation`] reads on the caller's thread: a
/// few dozen short events decode in well under a millisecond.
const INLINE_EVENTS: i64 = 64;
const INLINE_PAYLOAD_BYTES: i64 = 256 * 1024;

impl Store {
    /// The session and its log in one snapshot; `None` when there is no such session.
    pub fn conversation(&self, scope: &str, id: &str) -> Result<Option<Conversation>> {
        self.read(|tx| {
            let Some((header, pk)) = header_and_pk(tx, scope, id)? else {
                return Ok(None);
            };
            let events = events_of(tx, pk, id)?;
            Ok(Some(Conversation { header, events }))
        })
    }

    /// [`Store::conversation`] on the caller's thread, if that cannot wait or
    /// take long: `None` (nothing read) while no reader is idle, while the
    /// database cannot be read at once, or when the log is long or holds
    /// images (whose data comes from blobs).
    pub fn try_conversation(&self, scope: &str, id: &str) -> Option<Result<Option<Conversation>>> {
        let read = self.try_read(|tx| {
            let Some((header, pk)) = header_and_pk(tx, scope, id)? else {
                return Ok(Some(None));
            };
            if !is_short(tx, pk)? {
                return Ok(None);
            }
            let events = events_of(tx, pk, id)?;
            Ok(Some(Some(Conversation { header, events })))
        });
        // The inner `None`: a long log, left to the caller's other path.
        read?.transpose()
    }
}

fn header_and_pk(conn: &Connection, scope: &str, id: &str) -> Result<Option<(SessionHeader, i64)>> {
    Ok(conn
        .prepare_cached(concat!(
            "SELECT ",
            header_cols!(),
            ", pk FROM sessions WHERE scope = ?1 AND id = ?2"
        ))?
        .query_row(params![scope, id], |r| {
            Ok((header_from_row(r)?, r.get(20)?))
        })
        .optional()?)
}

/// Whether the log of session `pk` is within the inline limits. Looks at no
/// more than one row past them, however long the log.
fn is_short(conn: &Connection, pk: i64) -> Result<bool> {
    let (events, bytes, images): (i64, i64, bool) = conn
        .prepare_cached(
            "SELECT COUNT(*), COALESCE(SUM(octet_length(payload)), 0), \
             EXISTS (SELECT 1 FROM blob_refs WHERE session_pk = ?1) \
             FROM (SELECT payload FROM session_events WHERE session_pk = ?1 \
                   ORDER BY seq LIMIT ?2)",
        )?
        .query_row(params![pk, INLINE_EVENTS + 1], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })?;
    Ok(events <= INLINE_EVENTS && bytes <= INLINE_PAYLOAD_BYTES && !images)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::items::{EventItem, ImageAttachment, UserMessage};
    use crate::testutil::{new_session, temp_store, user};

    #[test]
    fn a_conversation_is_the_header_and_the_whole_log() {
        let (_dir, store) = temp_store();
        store.create_session(&new_session("ws", "s1")).unwrap();
        store.create_session(&new_session("ws", "s2")).unwrap();
        store.append_event("ws", "s1", None, &user("one")).unwrap();
        store.append_event("ws", "s1", None, &user("two")).unwrap();
        store
            .append_event("ws", "s2", None, &user("other"))
            .unwrap();
        let read = store.conversation("ws", "s1").unwrap().unwrap();
        assert_eq!(read.header.id, "s1");
        assert_eq!(read.header.title.as_deref(), Some("one"));
        assert_eq!(read.events, store.events("ws", "s1").unwrap());
        let inline = store
            .try_conversation("ws", "s1")
            .unwrap()
            .unwrap()
            .unwrap();
        assert_eq!(inline.events, read.events);
        assert_eq!(inline.header, read.header);
        assert!(store.conversation("ws", "nope").unwrap().is_none());
        assert!(
            store
                .try_conversation("ws", "nope")
                .unwrap()
                .unwrap()
                .is_none()
        );
        assert!(store.conversation("other", "s1").unwrap().is_none());
    }

    #[test]
    fn a_long_or_heavy_log_or_one_with_images_is_not_read_inline() {
        let (_dir, store) = temp_store();
        for id in ["many", "big", "image", "edge"] {
            store.create_session(&new_session("ws", id)).unwrap();
        }
        let many: Vec<EventItem> = (0..=INLINE_EVENTS).map(|i| user(&i.to_string())).collect();
        store.append_events("ws", "many", None, &many).unwrap();
        store.append_events("ws", "edge", None, &many[1..]).unwrap();
        let big = user(&"x".repeat(INLINE_PAYLOAD_BYTES as usize));
        store.append_event("ws", "big", None, &big).unwrap();
        let with_image = EventItem::User(UserMessage {
            text: "look".into(),
            images: vec![ImageAttachment {
                id: "i1".into(),
                name: "a.png".into(),
                media_type: "image/png".into(),
                size_bytes: 3,
                data: "AAAA".into(),
            }],
        });
        store
            .append_event("ws", "image", None, &with_image)
            .unwrap();
        for id in ["many", "big", "image"] {
            assert!(store.try_conversation("ws", id).is_none(), "{id}");
            assert!(store.conversation("ws", id).unwrap().is_some(), "{id}");
        }
        let edge = store
            .try_conversation("ws", "edge")
            .unwrap()
            .unwrap()
            .unwrap();
        assert_eq!(edge.events.len() as i64, INLINE_EVENTS);
    }

    #[test]
    fn an_inline_read_does_not_wait_for_a_busy_store() {
        let (_dir, store) = temp_store();
        store.create_session(&new_session("ws", "s1")).unwrap();
        // Every connection taken: the inline read gives up instead of waiting.
        let held = store.hold_connections();
        assert!(store.try_conversation("ws", "s1").is_none());
        drop(held);
        // The writer busy (a write under way): a reader serves.
        let writer = store.writer().unwrap();
        let read = store.try_conversation("ws", "s1").unwrap().unwrap();
        assert_eq!(read.unwrap().header.id, "s1");
        drop(writer);
        assert!(store.try_conversation("ws", "s1").is_some());
    }

    #[test]
    fn a_read_on_the_writer_sees_another_process_commits() {
        let (dir, store) = temp_store();
        store.create_session(&new_session("ws", "s1")).unwrap();
        assert!(
            store
                .try_conversation("ws", "s1")
                .unwrap()
                .unwrap()
                .is_some()
        );
        // A second store on the same file, as `seekclaw run` beside the daemon.
        let other = Store::open(&dir.path().join("seekclaw.db")).unwrap();
        other
            .append_event("ws", "s1", None, &user("from elsewhere"))
            .unwrap();
        let read = store
            .try_conversation("ws", "s1")
            .unwrap()
            .unwrap()
            .unwrap();
        assert_eq!(read.events.len(), 1);
        assert_eq!(read.header.title.as_deref(), Some("from elsewhere"));
    }
}
