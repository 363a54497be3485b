//! Test harness for seekclaw: starts the real `seekclaw daemon` binary with a
//! temporary `SEEKCLAW_HOME` and speaks JSONL over its real socket, and serves
//! scripted OpenAI/Anthropic provider replies over real HTTP ([`ProviderServer`]).

mod client;
mod daemon;
mod provider_server;

pub mod mcp_servers;

pub use client::Client;
pub use daemon::{DaemonProcess, StartOptions};
pub use provider_server::{BodyMode, ProviderServer, Recorded, Reply, Step, Wire};
