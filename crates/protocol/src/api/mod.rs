//! Every method's params and result types (reference §2.4). Params are read
//! with [`crate::Params::parse`]; results are what a `result` envelope's
//! `data` holds (as JSON text) for the methods whose table row says so.
//!
//! Result types the daemon builds itself are used as they are; the shapes of
//! rows that other crates serialize (store headers, MCP and skill listings,
//! locks) are described here field for field, and the black-box tests check
//! every answer against them.

mod admin;
mod budget;
mod chat;
mod checkpoint;
mod extensions;
mod goal;
mod plugin;
mod policy;
mod session;
mod system;
mod timeline;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use crate::adapter::{FieldMessage, Required, Skipped, Strict};
pub use admin::*;
pub use budget::*;
pub use chat::*;
pub use checkpoint::*;
pub use extensions::*;
pub use goal::*;
pub use plugin::*;
pub use policy::*;
pub use session::*;
pub use system::*;
pub use timeline::*;

/// Params of a method that reads none (any object is accepted).
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, JsonSchema)]
pub struct NoParams {}

/// Where a session-scoped method works: a workspace path, the global scope, or
/// (neither given) the daemon's current workspace.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ScopeParams {
    /// A non-blank workspace path.
    pub workspace: Option<String>,
    /// The directory-free global scope (wins over `workspace`).
    pub global: bool,
}

impl ScopeParams {
    /// From the wire fields: a blank workspace is none, a missing `global` false.
    pub fn from_fields(workspace: Option<&str>, global: Option<bool>) -> Self {
        ScopeParams {
            workspace: workspace
                .filter(|s| !s.trim().is_empty())
                .map(str::to_string),
            global: global.unwrap_or(false),
        }
    }
}

/// Just the scope fields, for handlers that read the rest by hand.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct ScopeFields {
    /// A workspace path (walked up to its project root); must exist.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
    /// The directory-free global scope.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub global: Option<bool>,
}

impl ScopeParams {
    /// Reads `workspace` and `global` from a request's params.
    pub fn parse(p: &crate::Params) -> Result<Self, crate::MethodError> {
        let f: ScopeFields = p.parse()?;
        Ok(ScopeParams::from_fields(f.workspace.as_deref(), f.global))
    }
}

/// Params that carry the scope fields (`workspace`, `global`).
pub trait Scope {
    /// The scope the request names.
    fn scope(&self) -> ScopeParams;
}
