//! `seekclaw run`: one-shot turns, piped, on a terminal, `--json`/`--events`;
//! fleets (`--concurrency`) and task lists (`--task-file`).

mod elicitation;
mod fleet;
mod implicit_workspace;
mod in_process;
mod language;
mod logs;
mod named_model;
mod reasoning;
mod steps;
mod tty;
