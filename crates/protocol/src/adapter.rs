//! The path-aware adapter from a request's `params` object to a typed params
//! struct. Serde does the work; this module only decides the order fields are
//! read in and words every failure as the reference does (§2.2):
//!
//! - a value of the wrong JSON type: `Invalid request: params.<path> must be <a string|a
//!   boolean|an integer|a number|an array|an object>`, with `details.param`;
//! - a missing (or null, or blank, for [`Required`]) value: `params.<path> is required`;
//! - a field type with its own wording ([`Strict`]) reports that text verbatim.
//!
//! Fields are read in the struct's declaration order, whatever the order of the
//! keys on the wire (so the first declared faulty field is the one reported, as
//! the hand-written getters did); missing fields are reported after present ones.

use std::fmt;
use std::marker::PhantomData;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::{self, DeserializeOwned, Deserializer, IntoDeserializer, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::error::MethodError;

/// Prefix of an error message that is reported verbatim: `\u{1}param\u{1}text`.
const VERBATIM: char = '\u{1}';
/// An error message meaning "this (present) parameter is required".
const REQUIRED: &str = "\u{2}required";

/// A parameter of the wrong JSON type, worded as the reference's admin methods
/// report it (`Invalid request: …`, §2.2).
pub(crate) fn wrong_type(key: &str, what: &str) -> MethodError {
    MethodError::invalid_param(key, format!("Invalid request: params.{key} must be {what}"))
}

/// A missing parameter: `params.<key> is required`.
pub(crate) fn required(key: &str) -> MethodError {
    MethodError::invalid_param(key, format!("params.{key} is required"))
}

/// Deserializes `T` from a params object (see the module docs for the wording).
pub(crate) fn from_params<T: DeserializeOwned>(map: &Map<String, Value>) -> Result<T, MethodError> {
    serde_path_to_error::deserialize(ParamsDeserializer(map)).map_err(|e| to_method_error(&e))
}

/// Turns a serde failure (with the path of the offending value) into the
/// reference's wording.
fn to_method_error(err: &serde_path_to_error::Error<serde_json::Error>) -> MethodError {
    let path = match err.path().to_string() {
        p if p == "." => String::new(),
        p => p,
    };
    let message = err.inner().to_string();
    if let Some(rest) = message.strip_prefix(VERBATIM)
        && let Some((param, text)) = rest.split_once(VERBATIM)
    {
        return MethodError::invalid_param(param, text);
    }
    if message == REQUIRED {
        return required(&path);
    }
    if let Some(field) = message
        .strip_prefix("missing field `")
        .and_then(|r| r.split('`').next())
    {
        return required(&join(&path, field));
    }
    match message.rsplit_once(", expected ") {
        Some((_, expected)) => wrong_type(&path, expected_as_text(expected)),
        None => MethodError::invalid_param(
            if path.is_empty() { "params" } else { &path },
            format!("Invalid request: {message}"),
        ),
    }
}

fn join(path: &str, field: &str) -> String {
    if path.is_empty() {
        field.to_string()
    } else {
        format!("{path}.{field}")
    }
}

/// Serde's name of an expected type, in the reference's words.
fn expected_as_text(expected: &str) -> &str {
    match expected {
        "i8" | "i16" | "i32" | "i64" | "i128" | "isize" | "u8" | "u16" | "u32" | "u64" | "u128"
        | "usize" => "an integer",
        "f32" | "f64" => "a number",
        "a sequence" => "an array",
        "a map" => "an object",
        e if e.starts_with("struct ") => "an object",
        e => e,
    }
}

/// The params object as a serde `Deserializer`: a struct reads its declared
/// fields first, in declaration order, then any other keys (which it ignores).
struct ParamsDeserializer<'a>(&'a Map<String, Value>);

type Entries<'a> = Box<dyn Iterator<Item = (&'a str, &'a Value)> + 'a>;

impl<'de> Deserializer<'de> for ParamsDeserializer<'de> {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        let entries: Entries<'de> = Box::new(self.0.iter().map(|(k, v)| (k.as_str(), v)));
        visitor.visit_map(de::value::MapDeserializer::new(entries))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        let map = self.0;
        let declared = fields
            .iter()
            .filter_map(move |f| map.get_key_value(*f))
            .map(|(k, v)| (k.as_str(), v));
        let others = map
            .iter()
            .filter(move |(k, _)| !fields.contains(&k.as_str()))
            .map(|(k, v)| (k.as_str(), v));
        let entries: Entries<'de> = Box::new(declared.chain(others));
        visitor.visit_map(de::value::MapDeserializer::new(entries))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map enum identifier ignored_any
    }
}

/// A non-blank string parameter: absent, null or blank is `params.<key> is required`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
#[serde(transparent)]
pub struct Required(pub String);

impl Required {
    /// The value, trimmed.
    pub fn trimmed(&self) -> String {
        self.0.trim().to_string()
    }

    /// The value as sent.
    pub fn into_inner(self) -> String {
        self.0
    }
}

impl<'de> Deserialize<'de> for Required {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Required;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Required, E> {
                if s.trim().is_empty() {
                    Err(E::custom(REQUIRED))
                } else {
                    Ok(Required(s.to_string()))
                }
            }
            fn visit_unit<E: de::Error>(self) -> Result<Required, E> {
                Err(E::custom(REQUIRED))
            }
            fn visit_none<E: de::Error>(self) -> Result<Required, E> {
                Err(E::custom(REQUIRED))
            }
        }
        d.deserialize_any(V)
    }
}

impl JsonSchema for Required {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "RequiredString".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        schemars::json_schema!({
            "type": "string",
            "pattern": "\\S",
            "description": "A string that is not blank."
        })
    }
}

/// The reference's own wording for one parameter: whatever is wrong with it
/// (missing, null, wrong type), the error is `MESSAGE`.
pub trait FieldMessage {
    /// The parameter's wire name (`details.param`).
    const PARAM: &'static str;
    /// The whole error text.
    const MESSAGE: &'static str;
}

/// A `T` whose every failure is reported as `M::MESSAGE`. Use it bare for a
/// required parameter; inside an `Option` null and absent are `None`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Strict<T, M>(pub T, PhantomData<M>);

impl<T, M> Strict<T, M> {
    /// The value.
    pub fn into_inner(self) -> T {
        self.0
    }
}

fn verbatim<E: de::Error, M: FieldMessage>() -> E {
    E::custom(format!("{VERBATIM}{}{VERBATIM}{}", M::PARAM, M::MESSAGE))
}

impl<'de, T: DeserializeOwned, M: FieldMessage> Deserialize<'de> for Strict<T, M> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T, M>(PhantomData<(T, M)>);
        impl<'de, T: DeserializeOwned, M: FieldMessage> Visitor<'de> for V<T, M> {
            type Value = Strict<T, M>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(M::MESSAGE)
            }
            fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
                Err(verbatim::<E, M>())
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Err(verbatim::<E, M>())
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
                let value = Value::deserialize(d)?;
                T::deserialize(value.into_deserializer())
                    .map(|v| Strict(v, PhantomData))
                    .map_err(|_| verbatim::<D::Error, M>())
            }
        }
        d.deserialize_option(V(PhantomData))
    }
}

impl<T: JsonSchema, M> JsonSchema for Strict<T, M> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        T::schema_name()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(g: &mut SchemaGenerator) -> Schema {
        T::json_schema(g)
    }
}

/// A params field the daemon's typed read only notes as present: its handler
/// reads the raw value itself (images are tens of MB of base64, not worth a
/// copy), so reading skips it and leaves `Skipped(None)`. A client sets
/// `Skipped(Some(value))` and it is sent as the value.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Skipped<T>(pub Option<T>);

impl<T> Skipped<T> {
    /// A value to send.
    pub fn send(value: T) -> Self {
        Skipped(Some(value))
    }
}

impl<'de, T> Deserialize<'de> for Skipped<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        de::IgnoredAny::deserialize(d).map(|_| Skipped(None))
    }
}

impl<T: Serialize> Serialize for Skipped<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            Some(v) => v.serialize(s),
            None => s.serialize_unit(),
        }
    }
}

impl<T: Serialize, M> Serialize for Strict<T, M> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

impl<T, M> Strict<T, M> {
    /// A value to send.
    pub fn new(value: T) -> Self {
        Strict(value, PhantomData)
    }
}

/// For `Option<Option<T>>` fields: absent is `None`, null is `Some(None)`.
pub(crate) fn double_option<'de, T, D>(d: D) -> Result<Option<Option<T>>, D::Error>
where
    T: Deserialize<'de>,
    D: Deserializer<'de>,
{
    Option::<T>::deserialize(d).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Debug, Deserialize)]
    #[serde(rename_all = "camelCase")]
    #[allow(dead_code)]
    struct Sample {
        id: Required,
        flag: Option<bool>,
        count: Option<i64>,
        ratio: Option<f64>,
        list: Option<Vec<String>>,
        #[serde(default, deserialize_with = "double_option")]
        title: Option<Option<String>>,
    }

    fn parse(v: Value) -> Result<Sample, MethodError> {
        match v {
            Value::Object(m) => from_params(&m),
            _ => unreachable!(),
        }
    }

    #[test]
    fn errors_keep_the_reference_wording() {
        let cases = [
            (json!({}), "params.id is required", "id"),
            (json!({"id": null}), "params.id is required", "id"),
            (json!({"id": "  "}), "params.id is required", "id"),
            (
                json!({"id": 5}),
                "Invalid request: params.id must be a string",
                "id",
            ),
            (
                json!({"id": "a", "flag": "yes"}),
                "Invalid request: params.flag must be a boolean",
                "flag",
            ),
            (
                json!({"id": "a", "count": 1.5}),
                "Invalid request: params.count must be an integer",
                "count",
            ),
            (
                json!({"id": "a", "ratio": "x"}),
                "Invalid request: params.ratio must be a number",
                "ratio",
            ),
            (
                json!({"id": "a", "list": ["x", 2]}),
                "Invalid request: params.list[1] must be a string",
                "list[1]",
            ),
            (
                json!({"id": "a", "list": "x"}),
                "Invalid request: params.list must be an array",
                "list",
            ),
        ];
        for (input, message, param) in cases {
            let e = parse(input.clone()).unwrap_err();
            assert_eq!(e.message, message, "{input}");
            assert_eq!(e.param.as_deref(), Some(param), "{input}");
        }
    }

    #[test]
    fn declaration_order_decides_which_fault_is_reported() {
        let e = parse(json!({"count": "x", "flag": "y", "id": "a"})).unwrap_err();
        assert_eq!(e.param.as_deref(), Some("flag"));
    }

    #[test]
    fn absent_null_and_value_differ_for_double_options() {
        let s = parse(json!({"id": "a", "extra": [1]})).unwrap();
        assert_eq!(s.title, None);
        assert_eq!(
            parse(json!({"id": "a", "title": null})).unwrap().title,
            Some(None)
        );
        assert_eq!(
            parse(json!({"id": "a", "title": "t"})).unwrap().title,
            Some(Some("t".into()))
        );
        assert_eq!(s.id.0, "a");
    }

    #[derive(Debug)]
    struct KeepMsg;
    impl FieldMessage for KeepMsg {
        const PARAM: &'static str = "keep";
        const MESSAGE: &'static str = "params.keep is required (>= 0)";
    }

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct WithStrict {
        keep: Strict<u64, KeepMsg>,
        opt: Option<Strict<bool, KeepMsg>>,
    }

    #[test]
    fn strict_fields_report_their_own_message() {
        for bad in [
            json!({}),
            json!({"keep": null}),
            json!({"keep": -1}),
            json!({"keep": "2"}),
            json!({"keep": 1, "opt": 3}),
        ] {
            let Value::Object(m) = bad else {
                unreachable!()
            };
            let e = from_params::<WithStrict>(&m).unwrap_err();
            assert_eq!(e.message, "params.keep is required (>= 0)");
            assert_eq!(e.param.as_deref(), Some("keep"));
        }
        let Value::Object(m) = json!({"keep": 3, "opt": null}) else {
            unreachable!()
        };
        let ok = from_params::<WithStrict>(&m).unwrap();
        assert_eq!((ok.keep.0, ok.opt.is_none()), (3, true));
    }
}
