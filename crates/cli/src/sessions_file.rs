//! `seekclaw sessions export|import|compact --file`: the OpenSeek session
//! file (reference §5.2; the item mapping is documented in `seekclaw_store`'s
//! `session_file` module).
//!
//! - The header's `system_prompt` is the one the session's latest turn used
//!   (recorded by the turn; empty for a session no turn has run on since
//!   prompts were recorded). Import keeps a file's prompt with the session,
//!   so exporting it again writes it back.
//! - `ts` is the event's stored time (unix ms); import keeps it. Import keeps
//!   the file's sequences and items exactly: export → import → export gives
//!   the same bytes, and the same id when it is free in the scope.
//! - Import reads leniently (§5.4): blank lines are skipped, an unterminated
//!   final line that does not decode is skipped with a warning; any other bad
//!   line fails the import naming the line, and nothing is written. The new
//!   session is written in one transaction.
//! - Its id: `--id` if given (an error if taken), else the file's, else (that
//!   one taken in the scope) a fresh one, said on stderr. The id goes to stdout.
//! - A directory imports every `openseek_session-*.jsonl` of an OpenSeek
//!   session root, each file on its own (a bad one is reported and skipped).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use seekclaw_config::{Config, Home, read_json_lenient};
use seekclaw_engine::{AppendedSummary, Engine, Scope, new_session_id};
use seekclaw_store::{
    NewSession, SessionEvent, Store, StoreError, encode_session_file, is_valid_session_id,
    parse_session_file,
};

use crate::sessions::is_stdout;

/// Writes session `id`'s log as a session file to `output` (stdout when
/// `None` or `-`), `system_prompt` in its header.
pub fn export(
    id: &str,
    system_prompt: &str,
    events: &[SessionEvent],
    output: Option<&Path>,
    stdout: &mut impl Write,
) -> anyhow::Result<()> {
    let text = encode_session_file(id, system_prompt, events);
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
    if let Some(id) = &wanted
        && !is_valid_session_id(id)
    {
        bail!("invalid session id {id:?}");
    }
    let explicit = wanted.is_some();
    let file_id = parsed.id.clone();
    let (log, prompt) = (parsed.events, parsed.system_prompt);
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
        match store.import_session(&new, &log, &prompt) {
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

/// The name OpenSeek gives a session's file inside its directory.
fn is_session_file(name: &str) -> bool {
    name.starts_with("openseek_session-") && name.ends_with(".jsonl")
}

/// The session files under an OpenSeek session root `dir`: `dir` itself
/// (`.openseek/sessions`), its `sessions` (`.openseek`) or its
/// `.openseek/sessions` (a project), whichever holds `*/openseek_session-*.jsonl`
/// first; sorted by path.
fn session_files(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let candidates = [
        dir.to_path_buf(),
        dir.join("sessions"),
        dir.join(".openseek").join("sessions"),
    ];
    for root in candidates.iter().filter(|d| d.is_dir()) {
        let mut files = Vec::new();
        let entries =
            std::fs::read_dir(root).with_context(|| format!("cannot read {}", root.display()))?;
        for session_dir in entries.flatten().map(|e| e.path()) {
            let Ok(inner) = std::fs::read_dir(&session_dir) else {
                continue; // a file beside the session directories
            };
            files.extend(inner.flatten().map(|e| e.path()).filter(|p| {
                p.is_file()
                    && p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(is_session_file)
            }));
        }
        if !files.is_empty() {
            files.sort();
            return Ok(files);
        }
    }
    bail!(
        "no OpenSeek session files (*/openseek_session-*.jsonl) in {}, its sessions/ or its .openseek/sessions/",
        dir.display()
    )
}

/// Imports every session file of an OpenSeek session root into `scope`,
/// each in its own transaction: prints `<id>\t<file>` per imported file; a
/// file that cannot be imported is reported on stderr and skipped. Fails
/// (after trying them all) when any was skipped.
pub fn import_root(
    home: &Home,
    store: &Store,
    scope: &Scope,
    dir: &Path,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let files = session_files(dir)?;
    let mut failed = 0usize;
    for file in &files {
        match import(home, store, scope, file, None) {
            Ok(id) => writeln!(out, "{id}\t{}", file.display())?,
            Err(e) => {
                failed += 1;
                eprintln!("seekclaw: error: skipped {}: {e:#}", file.display());
            }
        }
    }
    out.flush()?;
    if failed > 0 {
        bail!(
            "imported {} of {} session files; {failed} skipped (see above)",
            files.len() - failed,
            files.len()
        );
    }
    Ok(())
}

/// The text of a summary file (`-`: stdin).
pub fn read_summary(file: &Path) -> anyhow::Result<String> {
    if is_stdout(file) {
        let mut text = String::new();
        std::io::stdin().read_to_string(&mut text)?;
        return Ok(text);
    }
    std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))
}

/// Appends `text` as the summary of events `from..=to` through the engine in
/// this process (which holds the session as a turn would: `busy` while any
/// process runs a turn on it).
pub fn append_summary(
    home: &Home,
    scope_key: &str,
    id: &str,
    text: String,
    from: u64,
    to: u64,
) -> anyhow::Result<AppendedSummary> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let done = runtime.block_on(async {
        let engine = Engine::open(home.clone())
            .await
            .map_err(|e| anyhow::anyhow!(e.message))?;
        let done = engine
            .append_summary(scope_key, id, text, from, to)
            .await
            .map_err(|e| anyhow::anyhow!(e.message));
        engine.close().await;
        done
    });
    runtime.shutdown_background();
    done
}

#[cfg(test)]
mod tests {
    use super::*;

    fn touch(path: &Path) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, "").unwrap();
    }

    #[test]
    fn a_session_root_is_found_from_the_project_the_openseek_folder_or_itself() {
        let tmp = tempfile::tempdir().unwrap();
        let sessions = tmp.path().join("p/.openseek/sessions");
        for id in ["b", "a"] {
            touch(&sessions.join(format!("{id}/openseek_session-{id}.jsonl")));
            touch(&sessions.join(format!("{id}/session.lock")));
        }
        touch(&sessions.join("a/notes.jsonl"));
        touch(&sessions.join("stray.txt"));
        let want = vec![
            sessions.join("a/openseek_session-a.jsonl"),
            sessions.join("b/openseek_session-b.jsonl"),
        ];
        for dir in [
            tmp.path().join("p"),
            tmp.path().join("p/.openseek"),
            sessions.clone(),
        ] {
            assert_eq!(session_files(&dir).unwrap(), want, "{}", dir.display());
        }
        let err = session_files(tmp.path()).unwrap_err().to_string();
        assert!(err.contains("no OpenSeek session files"), "{err}");
    }
}
