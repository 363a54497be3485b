//! Tools the agent runs in a workspace, and the rules that keep concurrent turns
//! safe: tools as data, the registry, the built-in tool suite, workspace path
//! confinement, the output budget, shell jobs and the daemon-wide write locks.
#![warn(missing_docs)]
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]

mod args;
mod beneath;
pub mod budget;
mod builtin;
mod children;
mod confine;
mod diagnostics;
mod edit_match;
pub mod elicit;
mod error;
mod files;
mod fsio;
mod jobs;
mod locks;
mod registry;
pub mod sandbox;
mod tool;
mod walk;

pub use builtin::{
    APPLY_PATCH, PATCH_GRAMMAR, builtin_registry, capture_method, display_reachable,
    engine_unusable,
};
pub use children::{
    ChildError, ChildFuture, ChildReport, ChildRequest, ChildStatus, ChildTurns, GoalFuture,
    MAX_SUBRUNS_PER_TURN, SUBAGENT_TOOLS, SubrunKind,
};
pub use confine::{ConfinedPath, PathError, confine, confine_to};
pub use diagnostics::{Diagnostics, DiagnosticsFuture};
pub use elicit::{Elicit, ElicitAction, ElicitAnswer, ElicitFuture, ElicitRequest};
pub use error::ToolError;
pub use files::{FileAccess, FileFuture};
pub use jobs::{JobInfo, JobNotice, Jobs, Notify};
pub use locks::{LockError, LockInfo, WriteLocks};
pub use registry::{EditTools, Registry, ToolFilter};
pub use sandbox::{InUse, SandboxError, SandboxMode, SandboxPolicy, SandboxSupport};
pub use tool::{
    FreeformFormat, ImageLimits, Tool, ToolContext, ToolDefinition, ToolFlags, ToolFuture,
    ToolImage, ToolOutput,
};
