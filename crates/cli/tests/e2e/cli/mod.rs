//! The other subcommands: `provider`, `model`, `sessions`, `doctor`, `init`,
//! `protocol schema`, `mcp check`, and what they do on a broken config.

mod commands;
mod config_safety;
mod doctor;
mod providers;
mod sessions;
mod sessions_files;
