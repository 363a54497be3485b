//! `seekclaw run`: one-shot turns, piped, on a terminal, `--json`/`--events`;
//! fleets (`--concurrency`) and task lists (`--task-file`).

mod fleet;
mod implicit_workspace;
mod in_process;
mod language;
mod logs;
mod named_model;
mod steps;
mod tty;
