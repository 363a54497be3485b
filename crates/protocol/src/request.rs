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
    pub params: Params,
}

/// A line that cannot become a request, with the id to answer under.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{error}")]
pub struct RequestError {
    pub id: i64,
    pub error: MethodError,
}

const INVALID_JSON: &str = "Invalid JSON request";
const INVALID_TYPES: &str = "Request id and method have invalid types";

/// Parses one line (without its `\n`). Never panics; every failure names what is wrong.
pub fn parse_request(line: &[u8]) -> Result<Request, RequestError> {
    let fail = |id: i64, code: ErrorCode, msg: &str| RequestError {
        id,
        error: MethodError::new(code, msg),
    };
    let value: Value =
        serde_json::from_slice(line).map_err(|_| fail(0, ErrorCode::InvalidJson, INVALID_JSON))?;
    let Value::Object(mut obj) = value else {
        return Err(fail(0, ErrorCode::InvalidJson, INVALID_JSON));
    };
    let id = match obj.get("id") {
        None | Some(Value::Null) => 0,
        Some(v) => v
            .as_i64()
            .ok_or_else(|| fail(0, ErrorCode::InvalidRequest, INVALID_TYPES))?,
    };
    let method = match obj.remove("method") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s,
        Some(_) => return Err(fail(0, ErrorCode::InvalidRequest, INVALID_TYPES)),
    };
    let params = match obj.remove("params") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(map)) => map,
        Some(_) => {
            return Err(RequestError {
                id,
                error: MethodError::invalid_param("params", "params must be an object"),
            });
        }
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
        let e = parse_request(br#"{"id":3,"method":"ping","params":[1]}"#).unwrap_err();
        assert_eq!((e.id, e.error.param.as_deref()), (3, Some("params")));
    }
}
