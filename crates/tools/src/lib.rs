//! Tools the agent runs in a workspace, and the rules that keep concurrent turns
//! safe. For now: the daemon-wide file write-lock coordinator.

mod locks;

pub use locks::{LockError, LockInfo, WriteLocks};
