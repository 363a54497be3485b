//! The user's own policy, in Claude Code's formats so existing setups move
//! unchanged: permission rules (`permissions: {allow, ask, deny}`) and
//! lifecycle hooks (`hooks: {"PreToolUse": [...]}`). This crate reads them
//! ([`Policy::load`]), decides calls by the rules ([`Rules::decide`]), and
//! runs hook commands ([`run_hook`]) and reads what they said
//! ([`read_run`]); the engine decides when.
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]
#![warn(missing_docs)]

mod hooks;
mod load;
pub mod names;
mod outcome;
mod probe;
mod rules;
mod run;
mod save;
pub mod shell;

use std::path::{Path, PathBuf};

pub use hooks::{DEFAULT_TIMEOUT_SECONDS, HookCommand, HookEvent, HookSet};
pub use load::{MANAGED_ENV, Policy, Scope, approve, approved_hash, source_files};
pub use outcome::{RunReading, Verdicts, read_run};
pub use probe::{Explained, Probe};
pub use rules::{Call, Rule, RuleMatch, Rules, allowable};
pub use run::{HookContext, HookResult, run_hook};
pub use save::save_allow_rules;

/// Where a rule or hook came from, strictest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Layer {
    /// The managed file, which the others cannot loosen.
    Managed,
    /// The user's config (and `~/.claude/settings.json`).
    User,
    /// The workspace's files.
    Workspace,
    /// This session's own answers (`allow_session`).
    Session,
}

impl Layer {
    /// `managed`, `user`, `workspace` or `session`.
    pub fn as_str(self) -> &'static str {
        match self {
            Layer::Managed => "managed",
            Layer::User => "user",
            Layer::Workspace => "workspace",
            Layer::Session => "session",
        }
    }
}

/// What a rule (or a hook) decides about a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// Runs without asking.
    Allow,
    /// Asks a person, whatever the approval policy.
    Ask,
    /// Never runs; the model is told why.
    Deny,
}

impl Verdict {
    /// `allow`, `ask` or `deny`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Allow => "allow",
            Verdict::Ask => "ask",
            Verdict::Deny => "deny",
        }
    }
}

/// An entry that could not be used (it is skipped; the rest still apply).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The file.
    pub file: PathBuf,
    /// Where in it (`permissions.allow[2]`, `hooks.PreToolUse[0].matcher`).
    pub path: String,
    /// What is wrong.
    pub message: String,
}

impl Problem {
    pub(crate) fn new(file: &Path, path: &str, message: &str) -> Problem {
        Problem {
            file: file.to_path_buf(),
            path: path.to_string(),
            message: message.to_string(),
        }
    }
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}: {}", self.file.display(), self.message)
        } else {
            write!(
                f,
                "{}: {}: {}",
                self.file.display(),
                self.path,
                self.message
            )
        }
    }
}
