//! The SeekClaw daemon: one persistent endpoint, concurrent JSONL connections,
//! dispatch over the protocol's method table, admin methods and lifecycle.
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]
#![warn(missing_docs)]

mod chats;
mod connection;
mod connections;
mod ctx;
mod daemon;
mod dispatch;
mod doctor;
mod doctor_lsp;
mod doctor_policy;
mod doctor_tools;
mod endpoint;
mod error;
mod extensions;
mod failover_policy;
mod framing;
mod goals;
mod handlers;
mod idle_exit;
mod notices;
mod outbox;
mod owners;
pub mod policy;
mod presentation;
mod scheduler;
mod scope;
mod serve;
mod state;
mod timeline;
mod upgrade;
mod wire;

pub use daemon::{DaemonOptions, run};
pub use doctor::run_in_process as doctor_in_process;
pub use error::DaemonError;
pub use presentation::model_notice;
pub use scope::Scope;
pub use timeline::{end_status, timeline};
pub use upgrade::{UpgradeFuture, UpgradeInput, UpgradeOutput, UpgradeServer, Upgrades};
pub use wire::{event_envelope, terminal as terminal_envelope};
