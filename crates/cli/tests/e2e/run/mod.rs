//! `seekclaw run`: one-shot turns, piped, on a terminal, `--json`/`--events`.

mod implicit_workspace;
mod in_process;
mod language;
mod named_model;
mod tty;
