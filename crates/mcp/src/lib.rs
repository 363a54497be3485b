//! The MCP client of seekclaw, on the official Rust SDK (rmcp): stdio and
//! Streamable HTTP servers, connected once per daemon and shared by every turn
//! with the same server configuration; their tools enter the registry as
//! `mcp__<server>__<tool>`.
#![warn(missing_docs)]
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]

pub mod auth;
mod bridge;
mod client;
mod elicit;
mod error;
mod legacy_sse;
mod manager;
mod remote;
mod spec;
mod sync;

pub use client::{Caller, Connection, Options};
pub use error::McpError;
pub use manager::{McpManager, TurnMcp};
pub use spec::{
    Merged, PluginServer, ServerEntry, ServerListing, ServerSpec, ServerStatus, Source, Timeouts,
    Transport, merge, merge_with_plugins, servers_file, transport_of,
};
