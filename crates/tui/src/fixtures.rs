//! Test fixtures: daemon results written as the fields a test cares about,
//! the rest filled in as the daemon would send them, then read as the
//! protocol's types (what the UI gets from its typed calls).

use seekclaw_protocol::api::{CatalogEntry, SessionHeader};
use serde_json::{Value, json};

/// Each object of `partial` over `base`, read as `T`s.
fn read<T: serde::de::DeserializeOwned>(base: Value, partial: Value) -> Vec<T> {
    let Value::Array(rows) = partial else {
        panic!("fixtures are arrays: {partial}")
    };
    rows.into_iter()
        .map(|row| {
            let mut whole = base.clone();
            if let (Value::Object(whole), Value::Object(row)) = (&mut whole, row) {
                whole.extend(row);
            }
            serde_json::from_value(whole).unwrap()
        })
        .collect()
}

/// A `model.catalog` result.
pub(crate) fn catalog(partial: Value) -> Vec<CatalogEntry> {
    let base = json!({
        "ref": "tk/m1", "active": false, "provider": "tk", "providerEnabled": true,
        "id": "m1", "alias": null, "contextWindow": 128000, "maxOutput": 8192, "tags": [],
        "inputPricePerMTok": 0.0, "outputPricePerMTok": 0.0,
        "capabilities": {"streaming": true, "tools": true, "thinking": false, "vision": false,
            "reasoning": false, "maxReasoningLevel": "none", "mcp": false},
    });
    read(base, partial)
}

/// A `session.list` result.
pub(crate) fn sessions(partial: Value) -> Vec<SessionHeader> {
    let base = json!({
        "id": "s", "archived": false, "reasoningLevel": "medium", "networkEnabled": false,
        "llmRounds": 0, "executionSteps": 0, "inputTokens": 0, "totalInputTokens": 0,
        "cachedInputTokens": 0, "outputTokens": 0, "outputElapsedMs": 0,
        "createdAt": "2026-01-01T00:00:00Z", "updatedAt": "2026-01-01T00:00:00Z",
    });
    read(base, partial)
}
