//! The SeekClaw daemon: one persistent endpoint, concurrent JSONL connections,
//! dispatch over the protocol's method table, admin methods and lifecycle.

mod config_service;
mod connection;
mod daemon;
mod dispatch;
mod endpoint;
mod error;
mod framing;
mod handlers;
mod outbox;
mod scope;

pub use daemon::{DaemonOptions, run};
pub use error::DaemonError;
