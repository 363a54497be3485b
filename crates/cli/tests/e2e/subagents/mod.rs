//! Subagents (`explore`, `review`): child turns with their own sessions,
//! started from a tool call, seen through the daemon's socket and through
//! `seekclaw run --events`.

mod daemon;
mod run;
