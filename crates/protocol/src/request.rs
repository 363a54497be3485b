use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::error::{ErrorCode, MethodError};
use crate::params::Params;

/// A parsed request line: `{"id": <int64>, "method": "<string>", "params": {…}}`.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// A missing id means 0.
    pub id: i64,
    /// A missing method means `""` (answered with `Unknown method: `).
    pub method: String,
    /// A missing or non-object `params` is `{}`.
    pub params: Params,
}

/// The shape of a request line, for the JSON Schema (parsing is by hand below).
#[derive(schemars::JsonSchema)]
#[schemars(rename = "RequestLine")]
#[allow(dead_code)]
pub(crate) struct RawRequestShape {
    /// Echoed in every envelope answering the request; default 0.
    id: Option<i64>,
    /// A method name or alias (missing: `""`, an unknown method).
    method: Option<String>,
    /// Default `{}`; a non-object is read as `{}`.
    params: Option<Map<String, Value>>,
}

/// A line that cannot become a request, with the id to answer under.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{error}")]
pub struct RequestError {
    /// The id to answer under (always 0: the line did not yield a request id).
    pub id: i64,
    /// What is wrong with the line.
    pub error: MethodError,
}

const INVALID_JSON: &str = "Invalid JSON request";
const INVALID_TYPES: &str = "Request id and method have invalid types";

/// The common well-typed request, parsed in one pass.
#[derive(serde::Deserialize)]
struct TypedRequest<'a> {
    #[serde(default)]
    id: Option<i64>,
    #[serde(borrow, default)]
    method: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow, default)]
    params: Option<&'a RawValue>,
}

/// The three known keys, borrowed from the line; other keys are ignored.
#[derive(serde::Deserialize)]
struct RawRequest<'a> {
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    method: Option<&'a RawValue>,
    #[serde(borrow, default)]
    params: Option<&'a RawValue>,
}

fn is_null(raw: Option<&RawValue>) -> bool {
    raw.is_none_or(|r| r.get() == "null")
}

/// Parses one line (without its `\n`). Never panics; every failure names what is wrong.
///
/// Borrows the three known fields as raw JSON and parses only what each needs, so
/// the hot path (`ping`) builds no JSON tree.
pub fn parse_request(line: &[u8]) -> Result<Request, RequestError> {
    let fail = |id: i64, code: ErrorCode, msg: &str| RequestError {
        id,
        error: MethodError::new(code, msg),
    };
    // A struct also deserializes from an array; only objects are requests.
    let first = line.iter().find(|b| !b.is_ascii_whitespace());
    if first != Some(&b'{') {
        return Err(fail(0, ErrorCode::InvalidJson, INVALID_JSON));
    }
    // Well-typed lines (nearly all) take one pass; anything else is re-read
    // field by field below to say exactly what is wrong.
    if let Ok(typed) = serde_json::from_slice::<TypedRequest<'_>>(line)
        && typed
            .params
            .is_none_or(|p| p.get() == "null" || p.get().starts_with('{'))
    {
        let params = match typed.params {
            Some(p) if p.get() != "null" => serde_json::from_str::<Map<String, Value>>(p.get())
                .map_err(|_| fail(0, ErrorCode::InvalidJson, INVALID_JSON))?,
            _ => Map::new(),
        };
        return Ok(Request {
            id: typed.id.unwrap_or(0),
            method: typed.method.map(|m| m.into_owned()).unwrap_or_default(),
            params: Params::new(params),
        });
    }
    let raw: RawRequest<'_> =
        serde_json::from_slice(line).map_err(|_| fail(0, ErrorCode::InvalidJson, INVALID_JSON))?;
    let id = if is_null(raw.id) {
        0
    } else {
        raw.id
            .and_then(|r| serde_json::from_str::<i64>(r.get()).ok())
            .ok_or_else(|| fail(0, ErrorCode::InvalidRequest, INVALID_TYPES))?
    };
    let method = if is_null(raw.method) {
        String::new()
    } else {
        raw.method
            .and_then(|r| serde_json::from_str::<String>(r.get()).ok())
            .ok_or_else(|| fail(0, ErrorCode::InvalidRequest, INVALID_TYPES))?
    };
    let params = match raw.params {
        p if is_null(p) => Map::new(),
        Some(p) if p.get().starts_with('{') => serde_json::from_str::<Map<String, Value>>(p.get())
            .map_err(|_| fail(0, ErrorCode::InvalidJson, INVALID_JSON))?,
        // As the reference's admin methods do: a non-object `params` is `{}`
        // (a method that needs a field then names it).
        Some(_) | None => Map::new(),
    };
    Ok(Request {
        id,
        method,
        params: Params::new(params),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_minimal_and_full_requests() {
        let r = parse_request(br#"{"id":5,"method":"ping"}"#).unwrap();
        assert_eq!((r.id, r.method.as_str()), (5, "ping"));
        let r = parse_request(br#"{"method":"x","params":{"a":1}}"#).unwrap();
        assert_eq!(r.id, 0);
        assert_eq!(r.params.raw("a"), Some(&Value::from(1)));
        let r = parse_request(br#"{"id":1}"#).unwrap();
        assert_eq!(r.method, "");
    }

    #[test]
    fn rejects_bad_lines_with_codes() {
        for bad in [&b"{nope"[..], b"[1,2]", b"42", b"\"s\"", b"\xff\xfe"] {
            let e = parse_request(bad).unwrap_err();
            assert_eq!((e.id, e.error.code), (0, ErrorCode::InvalidJson));
            assert_eq!(e.error.message, "Invalid JSON request");
        }
        let e = parse_request(br#"{"id":"7","method":"ping"}"#).unwrap_err();
        assert_eq!(e.error.message, "Request id and method have invalid types");
        let e = parse_request(br#"{"id":1.5,"method":"ping"}"#).unwrap_err();
        assert_eq!(e.id, 0);
        let e = parse_request(br#"{"id":3,"method":7}"#).unwrap_err();
        assert_eq!(e.error.code, ErrorCode::InvalidRequest);
        let r = parse_request(br#"{"id":3,"method":"ping","params":[1]}"#).unwrap();
        assert_eq!(
            (r.id, r.params.raw("x")),
            (3, None),
            "non-object params are {{}}"
        );
    }
}

#[cfg(test)]
#[path = "request_proptests.rs"]
mod proptests;
