//! Image intake for `chat` and `agent.steer`: checked before any turn starts.

use crate::error::{EngineError, ErrorKind};
use base64::Engine;
use seekclaw_agent::UserImage;
use seekclaw_protocol::Params;
use serde_json::Value;

pub const MAX_IMAGES: usize = 10;
pub const MAX_IMAGE_BYTES: u64 = 10 * 1024 * 1024;
pub const MAX_TOTAL_BYTES: u64 = 40 * 1024 * 1024;
const TYPES: &[&str] = &["image/png", "image/jpeg", "image/webp", "image/gif"];

fn invalid(msg: impl Into<String>) -> EngineError {
    EngineError::invalid_param("images", msg)
}

/// The last path segment, without control characters, at most 180 characters.
fn clean_name(raw: &str) -> String {
    let last = raw.rsplit(['/', '\\']).next().unwrap_or(raw);
    let cleaned: String = last.chars().filter(|c| !c.is_control()).take(180).collect();
    if cleaned.trim().is_empty() {
        "image".into()
    } else {
        cleaned
    }
}

/// Decoded size of base64 text, from its length (no decoding needed to reject).
fn decoded_len(b64: &str) -> u64 {
    let trimmed = b64.trim_end_matches('=');
    (trimmed.len() as u64 * 3) / 4
}

/// Parses and checks `params.images`: at most 10, each ≤ 10 MB decoded, ≤ 40 MB in
/// total, png/jpeg/webp/gif, `name` and base64 `data` (no data-URL prefix) required.
pub fn parse_images(p: &Params) -> Result<Vec<UserImage>, EngineError> {
    let list = match p.raw("images") {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(a)) => a,
        Some(_) => return Err(invalid("params.images must be an array")),
    };
    if list.len() > MAX_IMAGES {
        return Err(EngineError::new(
            ErrorKind::TooLarge,
            format!(
                "Too many images: {} (at most {MAX_IMAGES} per turn)",
                list.len()
            ),
        ));
    }
    let mut total = 0u64;
    let mut out = Vec::with_capacity(list.len());
    for (i, img) in list.iter().enumerate() {
        let obj = img
            .as_object()
            .ok_or_else(|| invalid(format!("params.images[{i}] must be an object")))?;
        let text = |k: &str| match obj.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.trim()).filter(|s| !s.is_empty())),
            Some(_) => Err(invalid(format!("params.images[{i}].{k} must be a string"))),
        };
        let name =
            text("name")?.ok_or_else(|| invalid(format!("params.images[{i}].name is required")))?;
        let data =
            text("data")?.ok_or_else(|| invalid(format!("params.images[{i}].data is required")))?;
        // Line-wrapped (MIME-style) base64 is accepted, as .NET's decoder does.
        let data: std::borrow::Cow<'_, str> = if data.bytes().any(|b| b.is_ascii_whitespace()) {
            data.split_ascii_whitespace().collect::<String>().into()
        } else {
            data.into()
        };
        let media_type = text("mediaType")?.unwrap_or_default().to_ascii_lowercase();
        if !TYPES.contains(&media_type.as_str()) {
            return Err(invalid(format!(
                "Unsupported image type: {} (supported: image/png, image/jpeg, image/webp, image/gif)",
                if media_type.is_empty() {
                    "(none)"
                } else {
                    &media_type
                }
            )));
        }
        if data.starts_with("data:") {
            return Err(invalid(format!(
                "params.images[{i}].data must be plain base64 without a data: URL prefix"
            )));
        }
        let size = decoded_len(&data);
        if size > MAX_IMAGE_BYTES {
            return Err(EngineError::new(
                ErrorKind::TooLarge,
                format!("Image {} is larger than 10 MB", clean_name(name)),
            ));
        }
        total += size;
        if total > MAX_TOTAL_BYTES {
            return Err(EngineError::new(
                ErrorKind::TooLarge,
                "Images exceed 40 MB in total",
            ));
        }
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(data.as_bytes())
            .map_err(|_| invalid(format!("params.images[{i}].data is not valid base64")))?;
        let id = text("id")?
            .map(|s| s.chars().take(128).collect())
            .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
        out.push(UserImage {
            id,
            name: clean_name(name),
            media_type,
            data: data.into_owned(),
            size_bytes: bytes.len() as u64,
        });
    }
    Ok(out)
}

/// An image file given by path (`seekclaw run --image`), under the same rules.
pub fn from_path(path: &std::path::Path) -> Result<UserImage, EngineError> {
    let shown = path.display();
    let media_type = match path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .as_deref()
    {
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("webp") => "image/webp",
        Some("gif") => "image/gif",
        _ => {
            return Err(invalid(format!(
                "Unsupported image type: {shown} (supported: .png, .jpg, .jpeg, .webp, .gif)"
            )));
        }
    };
    let size = std::fs::metadata(path)
        .map_err(|e| EngineError::not_found(format!("Cannot read image {shown}: {e}")))?
        .len();
    if size > MAX_IMAGE_BYTES {
        return Err(EngineError::new(
            ErrorKind::TooLarge,
            format!("Image {shown} is larger than 10 MB"),
        ));
    }
    let bytes = std::fs::read(path)
        .map_err(|e| EngineError::not_found(format!("Cannot read image {shown}: {e}")))?;
    let data = base64::engine::general_purpose::STANDARD.encode(bytes);
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("image");
    let mut params = serde_json::Map::new();
    params.insert(
        "images".into(),
        serde_json::json!([{"name": name, "mediaType": media_type, "data": data}]),
    );
    parse_images(&Params::new(params))?
        .pop()
        .ok_or_else(|| EngineError::internal("image intake returned nothing"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn params(v: Value) -> Params {
        match v {
            Value::Object(m) => Params::new(m),
            _ => unreachable!(),
        }
    }

    #[test]
    fn accepts_valid_and_rejects_each_rule() {
        let ok = parse_images(&params(json!({"images": [{"name": "C:\\x\\a.png", "mediaType": "IMAGE/PNG", "data": "aGVsbG8="}]}))).unwrap();
        assert_eq!(
            (
                ok[0].name.as_str(),
                ok[0].media_type.as_str(),
                ok[0].size_bytes
            ),
            ("a.png", "image/png", 5)
        );
        let svg = parse_images(&params(
            json!({"images": [{"name": "a.svg", "mediaType": "image/svg+xml", "data": "aGk="}]}),
        ))
        .unwrap_err();
        assert!(svg.message.starts_with("Unsupported image type"));
        let many: Vec<Value> = (0..11)
            .map(|_| json!({"name": "a.png", "mediaType": "image/png", "data": "aGk="}))
            .collect();
        assert!(
            parse_images(&params(json!({"images": many})))
                .unwrap_err()
                .message
                .starts_with("Too many images")
        );
        let big = "A".repeat(14 * 1024 * 1024);
        assert!(
            parse_images(&params(
                json!({"images": [{"name": "b.png", "mediaType": "image/png", "data": big}]})
            ))
            .unwrap_err()
            .message
            .contains("larger than 10 MB")
        );
        assert!(
            parse_images(&params(
                json!({"images": [{"mediaType": "image/png", "data": "aGk="}]})
            ))
            .unwrap_err()
            .message
            .contains("name is required")
        );
        assert!(parse_images(&params(json!({"images": [{"name": "a.png", "mediaType": "image/png", "data": "data:image/png;base64,aGk="}]}))).is_err());
        assert!(
            parse_images(&params(
                json!({"images": [{"name": "a.png", "mediaType": "image/png", "data": "%%%"}]})
            ))
            .is_err()
        );
    }

    #[test]
    fn wrapped_base64_is_accepted_and_mistyped_fields_are_named() {
        let wrapped = parse_images(&params(
            json!({"images": [{"name": "a.png", "mediaType": "image/png", "data": "aGVs\r\nbG8="}]}),
        ))
        .unwrap();
        assert_eq!(
            (wrapped[0].data.as_str(), wrapped[0].size_bytes),
            ("aGVsbG8=", 5)
        );
        for (field, value) in [
            ("name", json!(5)),
            ("id", json!(7)),
            ("mediaType", json!(true)),
        ] {
            let mut img = json!({"name": "a.png", "mediaType": "image/png", "data": "aGk="});
            img[field] = value;
            let err = parse_images(&params(json!({"images": [img]}))).unwrap_err();
            assert_eq!(
                err.message,
                format!("params.images[0].{field} must be a string")
            );
        }
    }
}
