//! The SeekClaw daemon: one persistent endpoint, concurrent JSONL connections,
//! dispatch over the protocol's method table, admin methods and lifecycle.
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]
#![warn(missing_docs)]

mod balance;
mod chats;
mod config_service;
mod connection;
mod daemon;
mod dispatch;
mod doctor;
mod endpoint;
mod engine;
mod error;
mod extensions;
mod extras_cache;
mod framing;
mod goals;
mod handlers;
mod headless;
mod idle_exit;
mod mcp_check;
mod notices;
mod outbox;
mod outcome;
mod presentation;
mod roots;
mod scheduler;
mod scope;
mod serve;
mod sync;
mod timeline;
mod turns;
mod watch;

pub use daemon::{DaemonOptions, run};
pub use doctor::run_in_process as doctor_in_process;
pub use engine::TurnHandle;
pub use engine::TurnOverrides;
pub use error::DaemonError;
pub use handlers::chat::envelope as event_envelope;
pub use handlers::session::new_session_id;
pub use headless::{LocalEngine, LocalTurn, RunOptions};
pub use mcp_check::{McpCheck, McpCheckOptions, ServerCheck, check_mcp};
pub use outcome::terminal as terminal_envelope;
pub use presentation::model_notice;
pub use scope::Scope;
pub use serve::{ServeError, ServeOptions, TurnMapper, WireEvent, serve};
pub use timeline::{end_status, timeline};
