//! The other subcommands: `provider`, `model`, `sessions`, `doctor`, `init`,
//! `protocol schema`, `mcp check`, `inspect`, and what they do on a broken config;
//! `deploy`: the Dockerfile and Kubernetes manifests, checked offline.

mod commands;
mod config_edits;
mod config_first;
mod config_safety;
mod deploy;
mod doctor;
mod inspect;
mod inspect_checkpoints;
mod inspect_export;
mod policy;
mod providers;
mod schedules;
mod sessions;
mod sessions_files;
mod sessions_prefix;
mod sessions_rewind;
