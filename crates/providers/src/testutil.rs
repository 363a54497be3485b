//! Shared test helpers: config values and a stream driver.

use seekclaw_config::{Capabilities, Model, Provider};

use crate::error::ProviderError;
use crate::reasoning::Target;
use crate::sse::SseDecoder;
use crate::types::StreamEvent;
use crate::wire::{StreamParser, decoder};

pub fn provider(id: &str, kind: &str, base_url: &str) -> Provider {
    Provider {
        id: id.into(),
        kind: kind.into(),
        base_url: base_url.into(),
        api_key: Some(format!("sk-{id}-secret")),
        ..Provider::default()
    }
}

pub fn model(id: &str, caps: Capabilities) -> Model {
    Model {
        id: id.into(),
        capabilities: caps,
        ..Model::default()
    }
}

/// Feeds `chunks` through the SSE decoder and the target's stream decoder.
pub fn decode_chunks(target: &Target, chunks: &[&[u8]]) -> Result<Vec<StreamEvent>, ProviderError> {
    let mut parser = StreamParser::new(target)?;
    let mut out = Vec::new();
    for chunk in chunks {
        parser.push(chunk, &mut out)?;
    }
    parser.finish(&mut out)?;
    // The owned SSE path must agree with the borrowed one.
    let mut sse = SseDecoder::new();
    let mut dec = decoder(target)?;
    let mut frames = Vec::new();
    let mut owned = Vec::new();
    for chunk in chunks {
        sse.push(chunk, &mut frames);
    }
    sse.finish(&mut frames);
    let owned_result = frames
        .iter()
        .try_for_each(|f| dec.on_event(f.into(), &mut owned))
        .and_then(|()| dec.finish(&mut owned));
    assert_eq!(owned_result.map(|()| &owned), Ok(&out));
    Ok(out)
}

/// Decodes `input` whole, split at every byte position, and byte by byte,
/// asserting the same events every time.
pub fn decode_every_split(target: &Target, input: &[u8]) -> Vec<StreamEvent> {
    let whole = decode_chunks(target, &[input]).unwrap();
    for i in 0..=input.len() {
        let (a, b) = input.split_at(i);
        assert_eq!(
            decode_chunks(target, &[a, b]).unwrap(),
            whole,
            "split at {i}"
        );
    }
    let bytes: Vec<&[u8]> = input.chunks(1).collect();
    assert_eq!(
        decode_chunks(target, &bytes).unwrap(),
        whole,
        "byte by byte"
    );
    whole
}
