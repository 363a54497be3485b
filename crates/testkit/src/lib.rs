//! Test harness for seekclaw: starts the real `seekclaw daemon` binary with a
//! temporary `SEEKCLAW_HOME` and speaks JSONL over its real socket.
//! (The scripted provider server joins with the providers issue.)

mod client;
mod daemon;

pub use client::Client;
pub use daemon::{DaemonProcess, StartOptions};
