//! `seekclaw acp`: the Agent Client Protocol agent over the real binary's
//! stdin/stdout, driven by the official TypeScript client (`session.rs`)
//! and line by line from Rust (`protocol.rs`).

mod daemon;
mod errors;
mod fork;
mod mcp;
mod permissions;
mod protocol;
mod session;
