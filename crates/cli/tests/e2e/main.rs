//! Black-box tests of the real `seekclaw` binary, one module per front end it
//! drives: `daemon` (the socket protocol), `serve` (the OpenSeek stdio
//! stream), `mcp_serve` (the MCP server over stdio), `run` (one-shot turns), `review` (headless reviews),
//! `chat` (the terminal UI in tmux) and `cli` (the other subcommands). What
//! they share is in `support`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod acp;
mod budget;
mod chat;
mod cli;
mod daemon;
mod inspect;
mod mcp_serve;
mod policy;
mod review;
mod run;
mod serve;
mod subagents;
mod support;
mod telemetry;
mod tools;
