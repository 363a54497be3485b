//! `seekclaw chat`: the terminal UI in a real pseudo-terminal (tmux).

mod approvals;
mod attention;
mod bare;
mod broken_config;
mod config_notice;
mod elicitation;
mod first_run;
mod hooks;
mod labels;
mod mcp_login;
mod memory;
mod models;
mod on_demand;
mod pickers;
mod plugins;
mod provider_add;
mod quit;
mod resume;
mod rewind;
mod terminal;
mod totals;
mod trust;
