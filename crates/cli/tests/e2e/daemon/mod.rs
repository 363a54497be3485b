//! The socket protocol of `seekclaw daemon`, spoken by a test client.

mod approvals;
mod balance;
mod ceiling;
mod chat;
mod config;
mod failed_starts;
mod failures;
mod full_disk;
mod goals;
mod hardening;
mod hygiene;
mod jobs;
mod lifecycle;
mod mcp;
mod projects;
mod protocol;
mod providers;
mod sandbox;
mod schedule;
mod sessions;
mod skills;
mod timeline;
mod turn_control;
mod turn_tools;
mod watch;
mod workspace;
