//! Content-addressed image bytes. Event payloads only hold the sha256 hash;
//! `blob_refs` records which event uses which blob so unreferenced blobs can
//! be dropped when events go away.

use std::collections::HashMap;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use rusqlite::{Connection, OptionalExtension, params};
use sha2::{Digest, Sha256};

use crate::error::Result;

/// Lower-case hex sha256 of `bytes`.
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    let digest = Sha256::digest(bytes);
    let mut hex = String::with_capacity(64);
    for b in digest {
        // Writing to a String cannot fail.
        let _ = write!(hex, "{b:02x}");
    }
    hex
}

/// Stores `bytes` once (no-op if the hash is already there); returns the hash.
pub(crate) fn put(conn: &Connection, media_type: &str, bytes: &[u8], now: &str) -> Result<String> {
    let hash = sha256_hex(bytes);
    conn.prepare_cached(
        "INSERT OR IGNORE INTO blobs (hash, media_type, size, data, created_at) \
         VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(params![hash, media_type, bytes.len() as i64, bytes, now])?;
    Ok(hash)
}

/// Records that event `(session_pk, seq)` uses blob `hash`.
pub(crate) fn add_ref(conn: &Connection, session_pk: i64, seq: i64, hash: &str) -> Result<()> {
    conn.prepare_cached(
        "INSERT OR IGNORE INTO blob_refs (session_pk, seq, hash) VALUES (?1, ?2, ?3)",
    )?
    .execute(params![session_pk, seq, hash])?;
    Ok(())
}

/// Distinct blob hashes used by events of a session with `seq > after_seq`.
pub(crate) fn hashes_after(
    conn: &Connection,
    session_pk: i64,
    after_seq: i64,
) -> Result<Vec<String>> {
    let hashes = conn
        .prepare_cached("SELECT DISTINCT hash FROM blob_refs WHERE session_pk = ?1 AND seq > ?2")?
        .query_map(params![session_pk, after_seq], |r| r.get(0))?
        .collect::<rusqlite::Result<Vec<String>>>()?;
    Ok(hashes)
}

/// Deletes those of `hashes` that no event references any more. Call after
/// deleting events (their refs go by cascade).
pub(crate) fn drop_unreferenced(conn: &Connection, hashes: &[String]) -> Result<()> {
    let mut stmt = conn.prepare_cached(
        "DELETE FROM blobs WHERE hash = ?1 \
         AND NOT EXISTS (SELECT 1 FROM blob_refs WHERE hash = ?1)",
    )?;
    for h in hashes {
        stmt.execute([h])?;
    }
    Ok(())
}

/// Base64 of blobs already read during one call, so an image repeated
/// across a session is fetched and encoded once.
#[derive(Default)]
pub(crate) struct BlobCache {
    by_hash: HashMap<String, String>,
}

impl BlobCache {
    /// The image bytes as base64. A missing blob yields an empty string: a
    /// lost image should not make the whole session unreadable.
    pub(crate) fn base64(&mut self, conn: &Connection, hash: &str) -> Result<String> {
        if let Some(b64) = self.by_hash.get(hash) {
            return Ok(b64.clone());
        }
        let data: Option<Vec<u8>> = conn
            .prepare_cached("SELECT data FROM blobs WHERE hash = ?1")?
            .query_row([hash], |r| r.get(0))
            .optional()?;
        let b64 = data.map(|d| STANDARD.encode(d)).unwrap_or_default();
        self.by_hash.insert(hash.to_string(), b64.clone());
        Ok(b64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_hex_is_standard() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
