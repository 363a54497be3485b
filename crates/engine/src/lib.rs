//! The SeekClaw engine: the services a turn runs with, owned ([`Engine`]),
//! and the one way every front end starts a turn ([`Engine::start_turn`]).
//! Front ends (the daemon, `serve`, `run`, the ones to come) are sibling
//! crates over it; none of them starts a turn any other way.
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]
#![warn(missing_docs)]

mod announce;
mod balance;
mod budget;
mod bus;
mod checkpoints;
mod compact;
pub mod config_service;
mod engine;
mod error;
mod extensions;
mod extras_cache;
mod goal_policy;
mod goals;
mod images;
mod jobs;
mod launcher;
mod line_writer;
mod local;
mod mcp_check;
mod notices;
mod plugins;
mod policy;
mod preflight;
mod roots;
mod runtime;
mod scope;
mod session_lock;
mod sessions;
mod side;
mod subrun;
pub mod sync;
mod target;
mod telemetry;
mod turns;

pub use announce::{Announce, AnnounceGuard, Announcement, Announcers};
pub use budget::{
    BudgetLine, BudgetScope, BudgetStatus, BudgetSubject, BudgetWarnings, FrontEndBudget,
    local_starts, status as budget_status,
};
pub use bus::{BufferLimits, Resume, Sequenced, StreamPosition, TurnBus, WatchGuard, Watched};
pub use checkpoints::{
    CheckpointStore, CheckpointSummary, FileDiff, ForkOutcome, ForkRequest, Restore, RewindOutcome,
    RewindRequest, RewoundPrompt,
};
pub use compact::AppendedSummary;
pub use config_service::{ConfigService, ConfigStatus, FileHealth};
pub use engine::{Engine, Services};
pub use error::{EngineError, ErrorKind, provider_error, store_error};
pub use extensions::{
    active_config, active_specs, mcp_config, mcp_cwd, own_workspace, workspace_config,
};
pub use extras_cache::ExtrasCache;
pub use goal_policy::GoalTurn;
pub use goals::{AutoGoals, GoalBudget, GoalStep};
pub use images::{from_path as image_from_path, parse_images};
pub use jobs::{NoticeDelivery, SessionJobs, SessionNotice};
pub use launcher::{TurnHandle, TurnOrigin, TurnOverrides, TurnRequest};
pub use line_writer::spawn_line_writer;
pub use mcp_check::{McpCheck, McpCheckOptions, ServerCheck, check_mcp, find_mcp_server};
pub use plugins::{
    has_project_plugins, installation as plugin_installation, plugin_skills, plugin_view,
    plugin_views, workspace_trusted,
};
pub use policy::{HookSessions, PolicyCache, PolicyView};
pub use preflight::pin as pin_model;
pub use roots::RootCache;
pub use scope::{Scope, local_root, refuse_implicit};
/// The language servers' states as `doctor` shows them.
pub use seekclaw_lsp::{
    ServerState as LspServerState, ServerStatus as LspServerStatus, preset_names as lsp_presets,
};
pub use session_lock::{SessionLock, try_hold};
pub use sessions::{create_session, create_session_as, new_session_id};
pub use target::{SessionTarget, TurnControls};
pub use turns::{ActiveTurn, TurnGuard, Turns};
