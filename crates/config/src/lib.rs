//! SeekClaw configuration: the home layout (`$SEEKCLAW_HOME`, default `~/.seekclaw`),
//! `config.json` / `state.json`, workspace overrides and detection, and the
//! domain enums [`AgentMode`] and [`ReasoningLevel`]; [`edits`] holds the edits
//! of `config.json` shared by the daemon and the CLI.
//!
//! Synchronous and std-only: callers in async code use `spawn_blocking`.
//! API keys come only from `config.json`; nothing here reads them from the environment.
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]
#![warn(missing_docs)]

mod agents_starter;
mod budgets;
mod config;
mod document;
pub mod edits;
mod enums;
mod error;
mod home;
mod instructions;
mod jsonfile;
mod lenient;
mod lsp;
mod paths;
mod preserve;
mod project_kinds;
mod provider;
mod state;
mod telemetry;
mod ui;
mod unknown;
mod web_search;
mod workspace;

pub use agents_starter::{StarterOutcome, starter_agents_md, write_starter_agents_md};
pub use budgets::{Budgets, DEFAULT_WARN_AT, TokenBudgets};
pub use config::{
    AgentSettings, CheckpointSettings, Config, DEFAULT_PROFILE, DaemonSettings, LoadBalance,
    McpOAuth, McpServer, McpSettings, Profile, Retry, Routing,
};
pub use document::{Document, save_json_edit};
pub use enums::{AgentMode, ApprovalPolicy, ReasoningLevel, SandboxMode};
pub use error::{ConfigError, Result};
pub use home::{HOME_ENV, Home, user_home};
pub use instructions::{
    DEFAULT_INSTRUCTION_FILE_NAMES, DEFAULT_INSTRUCTIONS_MAX_BYTES, InstructionPath,
    InstructionSettings, instruction_paths,
};
pub use jsonfile::{FileProblem, Loaded, load_json_file, read_json_lenient, save_json_file};
pub use lenient::FieldWarning;
pub use lsp::{DEFAULT_LSP_WAIT_MS, LspCommand, LspServer, LspSettings};
pub use paths::{GLOBAL_SCOPE, normalize_path, path_key, scope_key_workspace};
pub use project_kinds::{project_kind_sources, project_kinds};
pub use provider::{Capabilities, Model, Provider, trained_on_apply_patch, uses_freeform_tools};
pub use state::{State, WorkspaceConfig, workspace_config_path};
pub use telemetry::{OtlpSettings, TelemetrySettings};
pub use ui::{Notify, StatusLineSettings, UiLanguage, UiSettings, english_title};
pub use unknown::UnknownFields;
pub use web_search::{SearchEngine, WebSearchSettings};
pub use workspace::{
    GitignoreEdit, WorkspaceInit, detect_root, init_workspace, init_workspace_with,
    too_broad_for_workspace, workspace_name,
};
