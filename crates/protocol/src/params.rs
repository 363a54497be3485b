//! Typed access to request parameters. Every failure names the parameter, so a
//! wrongly typed value is an `invalid_request` error, never a dropped connection.

use serde_json::{Map, Value};

use crate::error::MethodError;

pub type ParamResult<T> = Result<T, MethodError>;

/// The `params` object of a request.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Params(Map<String, Value>);

/// A parameter of the wrong JSON type, worded as the reference's admin methods
/// report it (`Invalid request: …`, §2.2).
fn wrong_type(key: &str, what: &str) -> MethodError {
    MethodError::invalid_param(key, format!("Invalid request: params.{key} must be {what}"))
}

fn required(key: &str) -> MethodError {
    MethodError::invalid_param(key, format!("params.{key} is required"))
}

impl Params {
    pub fn new(map: Map<String, Value>) -> Self {
        Params(map)
    }

    pub fn raw(&self, key: &str) -> Option<&Value> {
        self.0.get(key)
    }

    /// True when the key is present, even with a null value.
    pub fn has(&self, key: &str) -> bool {
        self.0.contains_key(key)
    }

    /// Absent or null → `None`.
    pub fn str_opt(&self, key: &str) -> ParamResult<Option<&str>> {
        match self.0.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(_) => Err(wrong_type(key, "a string")),
        }
    }

    /// A non-blank string, else `params.<key> is required`.
    pub fn str_req(&self, key: &str) -> ParamResult<&str> {
        match self.str_opt(key)? {
            Some(s) if !s.trim().is_empty() => Ok(s),
            _ => Err(required(key)),
        }
    }

    pub fn bool_opt(&self, key: &str) -> ParamResult<Option<bool>> {
        match self.0.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(_) => Err(wrong_type(key, "a boolean")),
        }
    }

    pub fn i64_opt(&self, key: &str) -> ParamResult<Option<i64>> {
        match self.0.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => v
                .as_i64()
                .map(Some)
                .ok_or_else(|| wrong_type(key, "an integer")),
        }
    }

    pub fn f64_opt(&self, key: &str) -> ParamResult<Option<f64>> {
        match self.0.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => v
                .as_f64()
                .map(Some)
                .ok_or_else(|| wrong_type(key, "a number")),
        }
    }
}

/// Where a session-scoped method works: a workspace path, the global scope, or
/// (neither given) the daemon's current workspace.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ScopeParams {
    pub workspace: Option<String>,
    pub global: bool,
}

impl ScopeParams {
    pub fn parse(p: &Params) -> ParamResult<Self> {
        Ok(ScopeParams {
            workspace: p
                .str_opt("workspace")?
                .filter(|s| !s.trim().is_empty())
                .map(str::to_string),
            global: p.bool_opt("global")?.unwrap_or(false),
        })
    }
}

/// `session.get`, `session.delete`, `session.resume`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionRef {
    pub id: String,
    pub scope: ScopeParams,
}

impl SessionRef {
    pub fn parse(p: &Params) -> ParamResult<Self> {
        Ok(SessionRef {
            id: p.str_req("id")?.trim().to_string(),
            scope: ScopeParams::parse(p)?,
        })
    }
}

/// `session.new`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionNewParams {
    pub scope: ScopeParams,
    pub reasoning_level: Option<String>,
    pub network_enabled: Option<bool>,
}

impl SessionNewParams {
    pub fn parse(p: &Params) -> ParamResult<Self> {
        Ok(SessionNewParams {
            scope: ScopeParams::parse(p)?,
            reasoning_level: p.str_opt("reasoningLevel")?.map(str::to_string),
            network_enabled: p.bool_opt("networkEnabled")?,
        })
    }
}

/// `session.list`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionListParams {
    pub scope: ScopeParams,
    pub include_archived: bool,
}

impl SessionListParams {
    pub fn parse(p: &Params) -> ParamResult<Self> {
        Ok(SessionListParams {
            scope: ScopeParams::parse(p)?,
            include_archived: p.bool_opt("includeArchived")?.unwrap_or(false),
        })
    }
}

/// `session.update`: absent fields stay unchanged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionUpdateParams {
    pub session: SessionRef,
    /// `Some(None)`: clear the title (`""` or null).
    pub title: Option<Option<String>>,
    pub reasoning_level: Option<String>,
    /// null means true.
    pub network_enabled: Option<bool>,
}

impl SessionUpdateParams {
    pub fn parse(p: &Params) -> ParamResult<Self> {
        let title = if p.has("title") {
            Some(
                p.str_opt("title")?
                    .map(str::trim)
                    .filter(|t| !t.is_empty())
                    .map(str::to_string),
            )
        } else {
            None
        };
        let network_enabled = if p.has("networkEnabled") {
            Some(p.bool_opt("networkEnabled")?.unwrap_or(true))
        } else {
            None
        };
        Ok(SessionUpdateParams {
            session: SessionRef::parse(p)?,
            title,
            reasoning_level: p.str_opt("reasoningLevel")?.map(str::to_string),
            network_enabled,
        })
    }
}

/// `session.archive`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionArchiveParams {
    pub session: SessionRef,
    pub archived: bool,
}

impl SessionArchiveParams {
    pub fn parse(p: &Params) -> ParamResult<Self> {
        Ok(SessionArchiveParams {
            session: SessionRef::parse(p)?,
            archived: p.bool_opt("archived")?.unwrap_or(true),
        })
    }
}

/// `session.truncate`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionTruncateParams {
    pub session: SessionRef,
    pub keep_count: usize,
}

impl SessionTruncateParams {
    pub fn parse(p: &Params) -> ParamResult<Self> {
        let session = SessionRef::parse(p)?;
        let keep = p
            .i64_opt("keepCount")
            .ok()
            .flatten()
            .filter(|n| *n >= 0)
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| {
                MethodError::invalid_param("keepCount", "params.keepCount is required (>= 0)")
            })?;
        Ok(SessionTruncateParams {
            session,
            keep_count: keep,
        })
    }
}

/// `project.upsert`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectUpsertParams {
    pub path: String,
    pub id: Option<String>,
    pub name: Option<String>,
}

impl ProjectUpsertParams {
    pub fn parse(p: &Params) -> ParamResult<Self> {
        let non_blank = |s: Option<&str>| {
            s.map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
        };
        Ok(ProjectUpsertParams {
            path: p.str_req("path")?.to_string(),
            id: non_blank(p.str_opt("id")?),
            name: non_blank(p.str_opt("name")?),
        })
    }
}

/// `project.remove`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectRemoveParams {
    pub id: String,
    pub keep_sessions: bool,
}

impl ProjectRemoveParams {
    pub fn parse(p: &Params) -> ParamResult<Self> {
        Ok(ProjectRemoveParams {
            id: p.str_req("id")?.trim().to_string(),
            keep_sessions: p.bool_opt("keepSessions")?.unwrap_or(false),
        })
    }
}

/// `schedule.create` / `schedule.update` (one handler: upsert by id).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScheduleUpsertParams {
    pub id: Option<String>,
    pub name: String,
    pub prompt: String,
    pub cron: String,
    pub workspace: Option<String>,
    pub enabled: bool,
}

impl ScheduleUpsertParams {
    pub fn parse(p: &Params) -> ParamResult<Self> {
        let non_blank = |s: Option<&str>| {
            s.map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
        };
        Ok(ScheduleUpsertParams {
            id: non_blank(p.str_opt("id")?),
            name: p.str_req("name")?.trim().to_string(),
            prompt: p.str_req("prompt")?.to_string(),
            cron: p.str_req("cron")?.trim().to_string(),
            workspace: non_blank(p.str_opt("workspace")?),
            enabled: p.bool_opt("enabled")?.unwrap_or(true),
        })
    }
}

/// `schedule.toggle`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScheduleToggleParams {
    pub id: String,
    pub enabled: bool,
}

impl ScheduleToggleParams {
    pub fn parse(p: &Params) -> ParamResult<Self> {
        let id = p.str_req("id")?.trim().to_string();
        // The reference has one message for a missing and a mistyped flag.
        let Some(Value::Bool(enabled)) = p.raw("enabled") else {
            return Err(MethodError::invalid_param(
                "enabled",
                "params.enabled (boolean) is required",
            ));
        };
        Ok(ScheduleToggleParams {
            id,
            enabled: *enabled,
        })
    }
}

/// `schedule.delete`, `schedule.run`: the task id.
pub fn schedule_id(p: &Params) -> ParamResult<String> {
    Ok(p.str_req("id")?.trim().to_string())
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
    fn typed_getters_name_the_param() {
        let p = params(json!({"message": 123, "flag": "yes", "n": "7", "s": "x"}));
        assert_eq!(
            p.str_opt("message").unwrap_err().message,
            "Invalid request: params.message must be a string"
        );
        assert_eq!(
            p.bool_opt("flag").unwrap_err().param.as_deref(),
            Some("flag")
        );
        assert_eq!(
            p.i64_opt("n").unwrap_err().message,
            "Invalid request: params.n must be an integer"
        );
        assert_eq!(
            p.str_req("missing").unwrap_err().message,
            "params.missing is required"
        );
        assert_eq!(p.str_req("s").unwrap(), "x");
    }

    #[test]
    fn session_update_distinguishes_absent_null_and_empty() {
        let u = SessionUpdateParams::parse(&params(json!({"id":"a"}))).unwrap();
        assert_eq!((u.title, u.network_enabled), (None, None));
        let u =
            SessionUpdateParams::parse(&params(json!({"id":"a","title":"","networkEnabled":null})))
                .unwrap();
        assert_eq!((u.title, u.network_enabled), (Some(None), Some(true)));
        let u = SessionUpdateParams::parse(&params(json!({"id":"a","title":" T "}))).unwrap();
        assert_eq!(u.title, Some(Some("T".into())));
    }

    #[test]
    fn schedule_params() {
        let u = ScheduleUpsertParams::parse(&params(
            json!({"name":" n ","prompt":"p","cron":" * * * * * ","workspace":" ","id":""}),
        ))
        .unwrap();
        assert_eq!(
            (
                u.id,
                u.name.as_str(),
                u.cron.as_str(),
                u.workspace,
                u.enabled
            ),
            (None, "n", "* * * * *", None, true)
        );
        for (missing, msg) in [
            (json!({"prompt":"p","cron":"c"}), "params.name is required"),
            (json!({"name":"n","cron":"c"}), "params.prompt is required"),
            (json!({"name":"n","prompt":"p"}), "params.cron is required"),
        ] {
            assert_eq!(
                ScheduleUpsertParams::parse(&params(missing))
                    .unwrap_err()
                    .message,
                msg
            );
        }
        for bad in [json!({"id":"a"}), json!({"id":"a","enabled":"true"})] {
            assert_eq!(
                ScheduleToggleParams::parse(&params(bad))
                    .unwrap_err()
                    .message,
                "params.enabled (boolean) is required"
            );
        }
        let t = ScheduleToggleParams::parse(&params(json!({"id":" a ","enabled":false}))).unwrap();
        assert_eq!((t.id.as_str(), t.enabled), ("a", false));
        assert_eq!(
            schedule_id(&params(json!({}))).unwrap_err().message,
            "params.id is required"
        );
    }

    #[test]
    fn truncate_requires_non_negative_keep_count() {
        for bad in [
            json!({"id":"a"}),
            json!({"id":"a","keepCount":-1}),
            json!({"id":"a","keepCount":"2"}),
        ] {
            let e = SessionTruncateParams::parse(&params(bad)).unwrap_err();
            assert_eq!(e.message, "params.keepCount is required (>= 0)");
        }
        let t = SessionTruncateParams::parse(&params(json!({"id":"a","keepCount":0}))).unwrap();
        assert_eq!(t.keep_count, 0);
    }
}
