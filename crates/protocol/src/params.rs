//! Access to request parameters. Typed params structs ([`crate::api`]) are
//! read with [`Params::read`] (or [`Params::parse`]) through the path-aware
//! adapter; `raw` and `str_opt` serve the few fields still read by hand. Every
//! failure names the parameter, so a wrongly typed value is an
//! `invalid_request` error, never a dropped connection.

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::adapter::{from_params, wrong_type};
use crate::error::MethodError;
use crate::methods::MethodType;

pub use crate::api::ScopeParams;

/// A parameter read: the value, or the `invalid_request` error naming it.
pub type ParamResult<T> = Result<T, MethodError>;

/// The `params` object of a request.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Params(Map<String, Value>);

impl Params {
    /// Wraps a request's `params` object.
    pub fn new(map: Map<String, Value>) -> Self {
        Params(map)
    }

    /// The params of method `M`, typed (the table names the type).
    pub fn read<M: MethodType>(&self) -> ParamResult<M::Params> {
        from_params(&self.0)
    }

    /// The params as any typed struct, worded as the reference words errors.
    pub fn parse<T: DeserializeOwned>(&self) -> ParamResult<T> {
        from_params(&self.0)
    }

    /// The raw value of `key`, if present.
    pub fn raw(&self, key: &str) -> Option<&Value> {
        self.0.get(key)
    }

    /// Absent or null → `None`.
    pub fn str_opt(&self, key: &str) -> ParamResult<Option<&str>> {
        match self.0.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(_) => Err(wrong_type(key, "a string")),
        }
    }

    /// Absent or null → `None`.
    pub fn bool_opt(&self, key: &str) -> ParamResult<Option<bool>> {
        match self.0.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(_) => Err(wrong_type(key, "a boolean")),
        }
    }
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
    fn the_string_getter_names_the_param() {
        let p = params(json!({"message": 123, "s": "x", "n": null}));
        assert_eq!(
            p.str_opt("message").unwrap_err().message,
            "Invalid request: params.message must be a string"
        );
        assert_eq!(p.str_opt("s").unwrap(), Some("x"));
        assert_eq!(p.str_opt("n").unwrap(), None);
    }

    #[test]
    fn session_update_distinguishes_absent_null_and_empty() {
        use crate::api::SessionUpdateParams;
        let u: SessionUpdateParams = params(json!({"id":"a"})).parse().unwrap();
        assert_eq!((u.title, u.network_enabled), (None, None));
        let u: SessionUpdateParams = params(json!({"id":"a","title":"","networkEnabled":null}))
            .parse()
            .unwrap();
        assert_eq!(
            (u.title, u.network_enabled),
            (Some(Some(String::new())), Some(None))
        );
        let u: SessionUpdateParams = params(json!({"id":"a","title":" T "})).parse().unwrap();
        assert_eq!(u.title, Some(Some(" T ".into())));
    }

    #[test]
    fn schedule_params() {
        use crate::api::{ScheduleIdParams, ScheduleToggleParams, ScheduleUpsertParams};
        use crate::method;
        let u =
            params(json!({"name":" n ","prompt":"p","cron":" * * * * * ","workspace":" ","id":""}))
                .read::<method::ScheduleCreate>()
                .unwrap();
        assert_eq!(
            (u.name.trimmed(), u.cron.trimmed(), u.enabled),
            ("n".to_string(), "* * * * *".to_string(), None)
        );
        for (missing, msg) in [
            (json!({"prompt":"p","cron":"c"}), "params.name is required"),
            (json!({"name":"n","cron":"c"}), "params.prompt is required"),
            (json!({"name":"n","prompt":"p"}), "params.cron is required"),
        ] {
            let e = params(missing).parse::<ScheduleUpsertParams>().unwrap_err();
            assert_eq!(e.message, msg);
        }
        for bad in [json!({"id":"a"}), json!({"id":"a","enabled":"true"})] {
            let e = params(bad).parse::<ScheduleToggleParams>().unwrap_err();
            assert_eq!(e.message, "params.enabled (boolean) is required");
        }
        let t: ScheduleToggleParams = params(json!({"id":" a ","enabled":false})).parse().unwrap();
        assert_eq!((t.id.trimmed().as_str(), t.enabled.0), ("a", false));
        assert_eq!(
            params(json!({}))
                .parse::<ScheduleIdParams>()
                .unwrap_err()
                .message,
            "params.id is required"
        );
    }

    #[test]
    fn truncate_requires_non_negative_keep_count() {
        use crate::api::SessionTruncateParams;
        for bad in [
            json!({"id":"a"}),
            json!({"id":"a","keepCount":-1}),
            json!({"id":"a","keepCount":"2"}),
        ] {
            let e = params(bad).parse::<SessionTruncateParams>().unwrap_err();
            assert_eq!(e.message, "params.keepCount is required (>= 0)");
        }
        let t: SessionTruncateParams = params(json!({"id":"a","keepCount":0})).parse().unwrap();
        assert_eq!(t.keep_count.0, 0);
    }
}
