//! The database form of event items: identical to [`EventItem`] except that
//! images carry a blob hash instead of base64 data.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use rusqlite::Connection;
use serde::{Deserialize, Serialize};

use crate::blobs::{self, BlobCache};
use crate::error::{Result, StoreError};
use crate::items::{
    AssistantMessage, EventItem, ImageAttachment, RewindMarker, RuntimeNotice, Summary,
    TerminalStatus, ToolResult, TurnTerminal, UserMessage,
};

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum StoredRef<'a> {
    User(StoredUserRef<'a>),
    Assistant(&'a AssistantMessage),
    ToolResult(&'a ToolResult),
    Steer(StoredUserRef<'a>),
    Summary(&'a Summary),
    Runtime(&'a RuntimeNotice),
    Terminal(StoredTerminalRef<'a>),
    Rewind(&'a RewindMarker),
    Hook(&'a crate::items::HookRecord),
}

/// A terminal whose text is the turn's final answer stored right before it
/// names that answer's seq instead of holding the text a second time.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct StoredTerminalRef<'a> {
    status: TerminalStatus,
    /// Empty when `answer_seq` is set (still written, so a daemon from before
    /// `answerSeq` reads the row: terminals carry no text anyone displays).
    text: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    answer_seq: Option<u64>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct StoredTerminal {
    status: TerminalStatus,
    #[serde(default)]
    text: String,
    #[serde(default)]
    answer_seq: Option<u64>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct StoredUserRef<'a> {
    text: &'a str,
    images: Vec<ImageRef<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ImageRef<'a> {
    id: &'a str,
    name: &'a str,
    media_type: &'a str,
    size_bytes: u64,
    hash: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct StoredUser {
    text: String,
    #[serde(default)]
    images: Vec<StoredImage>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct StoredImage {
    id: String,
    name: String,
    media_type: String,
    size_bytes: u64,
    hash: String,
}

/// A payload ready to insert, plus the blobs it references.
pub(crate) struct Encoded {
    pub payload: String,
    pub hashes: Vec<String>,
}

/// Serializes `item` for the `payload` column, storing its images as blobs.
/// `answer` is the assistant message stored just before it in the same write
/// (seq and text): a terminal with that same text refers to it.
pub(crate) fn encode(
    conn: &Connection,
    item: &EventItem,
    now: &str,
    answer: Option<(u64, &str)>,
) -> Result<Encoded> {
    let mut hashes = Vec::new();
    let stored = match item {
        EventItem::User(m) => StoredRef::User(store_images(conn, m, now, &mut hashes)?),
        EventItem::Steer(m) => StoredRef::Steer(store_images(conn, m, now, &mut hashes)?),
        EventItem::Assistant(a) => StoredRef::Assistant(a),
        EventItem::ToolResult(t) => StoredRef::ToolResult(t),
        EventItem::Summary(s) => StoredRef::Summary(s),
        EventItem::Runtime(r) => StoredRef::Runtime(r),
        EventItem::Rewind(r) => StoredRef::Rewind(r),
        EventItem::Hook(h) => StoredRef::Hook(h),
        EventItem::Terminal(t) => StoredRef::Terminal(match answer {
            Some((seq, text)) if !t.text.is_empty() && text == t.text => StoredTerminalRef {
                status: t.status,
                text: "",
                answer_seq: Some(seq),
            },
            _ => StoredTerminalRef {
                status: t.status,
                text: &t.text,
                answer_seq: None,
            },
        }),
    };
    Ok(Encoded {
        payload: serde_json::to_string(&stored)?,
        hashes,
    })
}

fn store_images<'a>(
    conn: &Connection,
    m: &'a UserMessage,
    now: &str,
    hashes: &mut Vec<String>,
) -> Result<StoredUserRef<'a>> {
    let mut images = Vec::with_capacity(m.images.len());
    for img in &m.images {
        let bytes = STANDARD.decode(img.data.as_bytes()).map_err(|e| {
            StoreError::InvalidInput(format!("image {:?} is not valid base64: {e}", img.name))
        })?;
        let hash = blobs::put(conn, &img.media_type, &bytes, now)?;
        if !hashes.contains(&hash) {
            hashes.push(hash.clone());
        }
        images.push(ImageRef {
            id: &img.id,
            name: &img.name,
            media_type: &img.media_type,
            size_bytes: img.size_bytes,
            hash,
        });
    }
    Ok(StoredUserRef {
        text: &m.text,
        images,
    })
}

/// Parses a payload by its `kind` column (cheaper than buffering the
/// internally tagged enum) and re-inflates image data from blobs.
pub(crate) fn decode(
    conn: &Connection,
    kind: &str,
    payload: &str,
    blobs: &mut BlobCache,
) -> Result<EventItem> {
    Ok(match kind {
        "user" => EventItem::User(inflate(conn, serde_json::from_str(payload)?, blobs)?),
        "steer" => EventItem::Steer(inflate(conn, serde_json::from_str(payload)?, blobs)?),
        "assistant" => EventItem::Assistant(serde_json::from_str(payload)?),
        "tool_result" => EventItem::ToolResult(serde_json::from_str(payload)?),
        "summary" => EventItem::Summary(serde_json::from_str(payload)?),
        "runtime" => EventItem::Runtime(serde_json::from_str(payload)?),
        "rewind" => EventItem::Rewind(serde_json::from_str(payload)?),
        "hook" => EventItem::Hook(serde_json::from_str(payload)?),
        "terminal" => EventItem::Terminal(decode_terminal(payload)?.0),
        other => {
            return Err(StoreError::Corrupt(format!("unknown event kind {other:?}")));
        }
    })
}

/// A terminal and, when its text is that of an earlier answer, the answer's
/// seq (its text is then empty here; the reader fills it in).
pub(crate) fn decode_terminal(payload: &str) -> Result<(TurnTerminal, Option<u64>)> {
    let t: StoredTerminal = serde_json::from_str(payload)?;
    let terminal = TurnTerminal {
        status: t.status,
        text: t.text,
    };
    Ok((terminal, t.answer_seq))
}

fn inflate(conn: &Connection, m: StoredUser, blobs: &mut BlobCache) -> Result<UserMessage> {
    let mut images = Vec::with_capacity(m.images.len());
    for img in m.images {
        images.push(ImageAttachment {
            data: blobs.base64(conn, &img.hash)?,
            id: img.id,
            name: img.name,
            media_type: img.media_type,
            size_bytes: img.size_bytes,
        });
    }
    Ok(UserMessage {
        text: m.text,
        images,
    })
}
