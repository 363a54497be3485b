//! `seekclaw sessions export|import`: the OpenSeek session file (reference
//! §5.2; the item mapping is documented in `seekclaw_store`'s
//! `session_file` module).
//!
//! - The header's `system_prompt` is written empty: seekclaw keeps no prompt
//!   with a session but assembles it for every turn (config, skills,
//!   `AGENTS.md`, the workspace). On import a file's prompt is not kept
//!   either (a note on stderr says so when it was not empty).
//! - `ts` is the event's stored time (unix ms); import keeps it.
//! - Import reads leniently (§5.4): blank lines are skipped, an unterminated
//!   final line that does not decode is skipped with a warning; any other bad
//!   line fails the import naming the line, and nothing is written. The new
//!   session is written in one transaction.
//! - Its id: `--id` if given (an error if taken), else the file's, else (that
//!   one taken in the scope) a fresh one, said on stderr. The id goes to stdout.

use std::io::Write;
use std::path::Path;

use anyhow::{Context, bail};
use seekclaw_config::{Config, Home, read_json_lenient};
use seekclaw_engine::{Scope, new_session_id};
use seekclaw_store::{
    NewSession, SessionEvent, Store, StoreError, encode_session_file, is_valid_session_id,
    parse_session_file,
};

use crate::sessions::is_stdout;

/// Writes session `id`'s log as a session file to `output` (stdout when
/// `None` or `-`).
pub fn export(
    id: &str,
    events: &[SessionEvent],
    output: Option<&Path>,
    stdout: &mut impl Write,
) -> anyhow::Result<()> {
    let text = encode_session_file(id, "", events);
    match output.filter(|p| !is_stdout(p)) {
        Some(path) => {
            std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
        }
        None => Ok(stdout.write_all(text.as_bytes())?),
    }
}

/// Imports `file` into `scope`; returns the new session's id.
pub fn import(
    home: &Home,
    store: &Store,
    scope: &Scope,
    file: &Path,
    wanted: Option<String>,
) -> anyhow::Result<String> {
    let shown = file.display();
    let bytes = std::fs::read(file).with_context(|| format!("cannot read {shown}"))?;
    let parsed = parse_session_file(&bytes).with_context(|| format!("{shown} is damaged"))?;
    if let Some(tail) = &parsed.skipped_tail {
        eprintln!(
            "seekclaw: warning: {shown}: skipped the unterminated final line {} ({}); \
             it was cut off mid-write",
            tail.line, tail.message
        );
    }
    if !parsed.system_prompt.trim().is_empty() {
        eprintln!(
            "seekclaw: note: the file's system prompt is not kept (seekclaw assembles one for every turn)"
        );
    }
    if let Some(id) = &wanted
        && !is_valid_session_id(id)
    {
        bail!("invalid session id {id:?}");
    }
    let explicit = wanted.is_some();
    let file_id = parsed.id.clone();
    let log = parsed.into_log();
    let mut new = NewSession {
        scope: scope.key.clone(),
        id: wanted.unwrap_or_else(|| file_id.clone()),
        workspace: scope.workspace_string(),
        title: None,
        reasoning_level: reasoning_level(home),
        network_enabled: true,
    };
    // A taken id (unless named) gives way to a fresh one; fresh ids carry 24
    // random bits per second, so a second clash is rare and retried.
    for attempt in 0.. {
        match store.import_session(&new, &log) {
            Ok(header) => {
                if !explicit && header.id != file_id {
                    eprintln!(
                        "seekclaw: session {file_id} exists in this scope; imported {shown} as {}",
                        header.id
                    );
                }
                return Ok(header.id);
            }
            Err(StoreError::Conflict(_)) if !explicit && attempt < 8 => {
                new.id = new_session_id();
            }
            Err(StoreError::Conflict(_)) => {
                bail!("session {} already exists in this scope", new.id)
            }
            Err(e) => return Err(e.into()),
        }
    }
    bail!("no free session id")
}

/// The configured reasoning level new sessions start with (the default when
/// `config.json` is missing or unreadable: importing does not need it).
fn reasoning_level(home: &Home) -> String {
    let config = read_json_lenient::<Config>(&home.config_path())
        .ok()
        .flatten()
        .unwrap_or_default();
    config.agent.reasoning_level.as_str().to_string()
}
