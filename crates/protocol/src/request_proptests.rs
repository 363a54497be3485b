//! Property tests: no request line and no params object can crash the decoder
//! or the typed accessors. Every input gives a value or an error envelope; the
//! well-formed ones give exactly what the fields say. `PROPTEST_CASES` raises
//! the case count (`scripts/fuzz --proptest` runs them long).

use proptest::prelude::*;
use serde_json::{Map, Value, json};

use super::*;
use crate::params::*;

const MESSAGES: [&str; 2] = [INVALID_JSON, INVALID_TYPES];

/// Any JSON value, a few levels deep, with the number shapes that matter for
/// an `i64` id (negative, above `i64::MAX`, fractional, huge exponents).
fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        prop_oneof![Just(i64::MIN), Just(i64::MAX), Just(0), Just(-1)].prop_map(Value::from),
        Just(Value::from(u64::MAX)),
        any::<f64>().prop_filter_map("finite", |f| serde_json::Number::from_f64(f)
            .map(Value::Number)),
        Just(json!(1.0)),
        any::<String>().prop_map(Value::from),
        "[ a-z\\t]{0,6}".prop_map(Value::from),
        Just(Value::from("ping")),
    ];
    leaf.prop_recursive(4, 24, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec((arb_key(), inner), 0..5)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

fn arb_key() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(&[
            "id", "method", "params", "workspace", "global", "title", "keepCount", "enabled",
            "cron", "name", "prompt", "path", "networkEnabled", "reasoningLevel", "archived",
            "includeArchived", "keepSessions",
        ][..]).prop_map(str::to_string),
        1 => any::<String>(),
    ]
}

/// A request object with each known field absent or of any type.
fn arb_request_object() -> impl Strategy<Value = Map<String, Value>> {
    (
        prop::option::of(arb_json()),
        prop::option::of(arb_json()),
        prop::option::of(arb_json()),
        prop::collection::vec((any::<String>(), arb_json()), 0..3),
    )
        .prop_map(|(id, method, params, extra)| {
            let mut m = Map::new();
            for (k, v) in extra {
                m.insert(k, v);
            }
            for (k, v) in [("id", id), ("method", method), ("params", params)] {
                if let Some(v) = v {
                    m.insert(k.to_string(), v);
                }
            }
            m
        })
}

/// Pieces of near-valid request lines: braces, known keys, odd numbers,
/// escapes, invalid UTF-8, whitespace.
const TOKENS: &[&[u8]] = &[
    b"{",
    b"}",
    b"[",
    b"]",
    b":",
    b",",
    b"\"",
    b"\"id\"",
    b"\"method\"",
    b"\"params\"",
    b"\"ping\"",
    b"1",
    b"-1",
    b"1.5",
    b"1e400",
    b"-0",
    b"9223372036854775808",
    b"99999999999999999999",
    b"null",
    b"true",
    b"\"\\u00e9\"",
    b"\"\\ud800\"",
    b"\"\\\"",
    b"\xC3",
    b"\xFF",
    b" ",
    b"\t",
    b"\r",
    b"\n",
    b"{}",
    b"[]",
    b"\"a\":",
    b"\xEF\xBB\xBF",
];

fn arb_token_soup() -> impl Strategy<Value = Vec<u8>> {
    let token = prop::sample::select(TOKENS);
    prop::collection::vec(
        prop_oneof![
            4 => token.prop_map(<[u8]>::to_vec),
            1 => any::<u8>().prop_map(|b| vec![b]),
        ],
        0..24,
    )
    .prop_map(|t| t.concat())
}

/// What a decoder error must look like: id 0, one of the two codes and messages.
fn check_error(e: &RequestError) -> Result<(), TestCaseError> {
    prop_assert_eq!(e.id, 0);
    prop_assert!(matches!(
        e.error.code,
        ErrorCode::InvalidJson | ErrorCode::InvalidRequest
    ));
    prop_assert!(
        MESSAGES.contains(&e.error.message.as_str()),
        "{}",
        e.error.message
    );
    Ok(())
}

/// Calls every typed accessor and params parser; none may panic, and an error
/// always names one parameter and is `invalid_request`.
fn exercise_params(p: &Params) -> Result<(), TestCaseError> {
    fn named<T>(r: ParamResult<T>) -> Result<Option<T>, TestCaseError> {
        match r {
            Ok(v) => Ok(Some(v)),
            Err(e) => {
                prop_assert_eq!(e.code, ErrorCode::InvalidRequest);
                prop_assert!(e.param.is_some(), "no param named: {}", e.message);
                Ok(None)
            }
        }
    }
    for spec in crate::METHODS {
        named((spec.check_params)(p))?;
    }
    if let Some(t) = named(p.parse::<crate::api::SessionTruncateParams>())? {
        prop_assert_eq!(
            p.raw("keepCount").and_then(Value::as_u64),
            Some(t.keep_count.0)
        );
    }
    if let Some(t) = named(p.parse::<crate::api::ScheduleToggleParams>())? {
        prop_assert_eq!(p.raw("enabled"), Some(&Value::Bool(t.enabled.0)));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Any bytes at all: a request or an error envelope, never a panic.
    #[test]
    fn any_bytes_give_a_request_or_an_error(line in prop::collection::vec(any::<u8>(), 0..256)) {
        match parse_request(&line) {
            Ok(r) => {
                // Only syntactically valid JSON objects become requests.
                let first = line.iter().find(|b| !b.is_ascii_whitespace());
                prop_assert_eq!(first, Some(&b'{'));
                prop_assert!(serde_json::from_slice::<serde::de::IgnoredAny>(&line).is_ok());
                exercise_params(&r.params)?;
            }
            Err(e) => check_error(&e)?,
        }
    }

    /// Any string, and the token soup of near-valid lines.
    #[test]
    fn near_valid_lines_give_a_request_or_an_error(
        line in prop_oneof![any::<String>().prop_map(String::into_bytes), arb_token_soup()]
    ) {
        match parse_request(&line) {
            Ok(r) => {
                prop_assert!(serde_json::from_slice::<serde::de::IgnoredAny>(&line).is_ok());
                exercise_params(&r.params)?;
            }
            Err(e) => check_error(&e)?,
        }
    }

    /// Objects with ids, methods and params of every type: the result is
    /// exactly what the fields say (absent/null defaults, an i64 id, a string
    /// method, object params or `{}`), compact or pretty-printed.
    #[test]
    fn typed_fields_decode_as_specified(obj in arb_request_object(), pretty in any::<bool>(), pad in "[ \t\r]{0,3}") {
        let text = if pretty {
            serde_json::to_string_pretty(&obj)
        } else {
            serde_json::to_string(&obj)
        }
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
        let line = format!("{pad}{text}{pad}");
        let id = match obj.get("id") {
            None | Some(Value::Null) => Some(0),
            Some(v) => v.as_i64(),
        };
        let method = match obj.get("method") {
            None | Some(Value::Null) => Some(String::new()),
            Some(Value::String(s)) => Some(s.clone()),
            Some(_) => None,
        };
        // Floats are compared with serde_json's own reading of the text (it
        // is not exact for every float without its `float_roundtrip` feature).
        let reparsed: Map<String, Value> =
            serde_json::from_str(&text).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let params = match reparsed.get("params") {
            Some(Value::Object(m)) => m.clone(),
            _ => Map::new(),
        };
        match (parse_request(line.as_bytes()), id, method) {
            (Ok(r), Some(id), Some(method)) => {
                prop_assert_eq!(r.id, id);
                prop_assert_eq!(r.method, method);
                prop_assert_eq!(&r.params, &Params::new(params));
                exercise_params(&r.params)?;
            }
            (Err(e), id, method) if id.is_none() || method.is_none() => {
                check_error(&e)?;
                prop_assert_eq!(e.error.code, ErrorCode::InvalidRequest);
            }
            (r, id, method) => prop_assert!(false, "{line}: {r:?} (want id {id:?}, method {method:?})"),
        }
    }

    /// A valid request cut short anywhere before its closing brace is
    /// invalid JSON, not a request and not a panic.
    #[test]
    fn truncated_requests_are_invalid_json(obj in arb_request_object(), cut in any::<prop::sample::Index>()) {
        let text = serde_json::to_vec(&obj).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let cut = cut.index(text.len());
        let e = parse_request(&text[..cut]).expect_err("a prefix of an object is not an object");
        check_error(&e)?;
        prop_assert_eq!(e.error.code, ErrorCode::InvalidJson);
    }

    /// Deep nesting in params (parsed: serde_json's recursion limit makes it
    /// an error) or in an unknown key (skipped) never overflows the stack.
    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow(
        depth in 0usize..5000,
        brackets in any::<bool>(),
        in_params in any::<bool>(),
    ) {
        let (open, close) = if brackets { ("[", "]") } else { ("{\"a\":", "}") };
        let nested = format!("{}0{}", open.repeat(depth), close.repeat(depth));
        let line = if in_params {
            format!("{{\"id\":1,\"method\":\"x\",\"params\":{{\"p\":{nested}}}}}")
        } else {
            format!("{{\"id\":1,\"x\":{nested},\"method\":\"x\"}}")
        };
        match parse_request(line.as_bytes()) {
            Ok(r) => prop_assert!(r.id == 1 && (depth < 128 || !in_params)),
            Err(e) => {
                check_error(&e)?;
                prop_assert!(depth >= 100, "depth {depth}: {e:?}");
            }
        }
    }

    /// The string getter agrees with the JSON type of the value, and every
    /// params type gives a value or an error naming a parameter.
    #[test]
    fn typed_accessors_never_panic(
        map in prop::collection::vec((arb_key(), arb_json()), 0..8)
    ) {
        let p = Params::new(map.into_iter().collect());
        for key in ["id", "workspace", "enabled", "keepCount", "title", "cron", "missing"] {
            let v = p.raw(key);
            let absent = matches!(v, None | Some(Value::Null));
            match p.str_opt(key) {
                Ok(Some(s)) => prop_assert_eq!(v, Some(&Value::from(s))),
                Ok(None) => prop_assert!(absent),
                Err(e) => prop_assert!(!absent && !v.is_some_and(Value::is_string) && e.param.as_deref() == Some(key)),
            }
        }
        exercise_params(&p)?;
    }
}
