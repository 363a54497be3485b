//! Headless turns in this process (codex's `exec`): `seekclaw run` (one turn,
//! or `--concurrency N` copies of it side by side: a fleet), `seekclaw
//! review`, and what to do with a fleet's copies afterwards. A front end
//! over the engine like `serve`: it starts turns and reads their events;
//! what a terminal shows of them (and the daemon's or serve's wire shapes)
//! is the caller's, through [`run::RunOutput`]. Also the one definition of
//! the turn flags ([`TurnFlags`]) every command that runs turns shares.
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]

mod error;
mod flags;
pub mod fleet;
pub mod review;
pub mod run;

pub use error::ExecError;
pub use flags::{SessionArgs, TurnFlags, WorkspaceArg};
pub use run::plain::model_notice;
pub use run::{RunOptions, start_run};
