//! `seekclaw sessions list|show|search|export|import|compact`: sessions read
//! straight from the home's SQLite store (no daemon needed; WAL makes that
//! safe beside a running one). Only `import` and `compact` write (`compact`
//! through the engine, holding the session as a turn would). Export and
//! import live in `sessions_file.rs`, search in `sessions_search.rs`,
//! `checkpoints`, `rewind` and `fork` in `sessions_rewind.rs`.
//!
//! Scope as in `seekclaw run`: `--global`, `--workspace DIR` (its project
//! root), else the current directory's project root. `show`, `export` and
//! `compact` given no scope also find a session by id alone when it lives in
//! exactly one other scope (what `list --all` shows can be opened from
//! anywhere), and take a unique start of an id (or its end) for the whole.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use clap::{Args, Subcommand};
use seekclaw_agent::conversation;
use seekclaw_config::{GLOBAL_SCOPE, Home};
use seekclaw_daemon::Scope;
use seekclaw_providers::types::ChatMessage;
use seekclaw_store::{ListedSession, SessionEvent, Store};
use serde::Serialize;

use crate::{sessions_file, sessions_log};

/// What `seekclaw sessions` does.
#[derive(Subcommand)]
pub enum SessionsCommand {
    /// List sessions, newest first: id, updated, turns, tokens, cost, workspace, title.
    List {
        #[command(flatten)]
        scope: ScopeArgs,
        /// Every scope's sessions.
        #[arg(long, conflicts_with_all = ["workspace", "global"])]
        all: bool,
        /// Include archived sessions.
        #[arg(long)]
        archived: bool,
        /// Print a JSON array (fields documented on `ListRow`).
        #[arg(long)]
        json: bool,
    },
    /// Print the whole log: prompts, steers, model steps, tool calls with
    /// their output, notices, compaction summaries (after what they cover)
    /// and how each turn ended.
    Show {
        /// Session id, or a unique start (or end) of it.
        id: String,
        #[command(flatten)]
        scope: ScopeArgs,
        /// Print a JSON array (the log's events; with --model-view, the messages).
        #[arg(long)]
        json: bool,
        /// Print the conversation as the model is sent it instead (summaries
        /// replace what they cover; internal notices and turn ends left out).
        #[arg(long)]
        model_view: bool,
    },
    /// Find text in every session's log (user messages, steers, answers, tool
    /// output), newest first: session, seq, kind and a snippet with each
    /// match between « and ». All words must match; `word*` is a prefix.
    Search {
        /// The words to find.
        query: String,
        /// Search this workspace's sessions or (`--global`) the global
        /// scope's; default: every scope.
        #[command(flatten)]
        scope: ScopeArgs,
        /// The most hits to print (1 to 500).
        #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u16).range(1..=500))]
        limit: u16,
        /// Print a JSON array (scope, sessionId, seq, kind, snippet, title,
        /// workspace, archived).
        #[arg(long)]
        json: bool,
    },
    /// Write a session as an OpenSeek session file (header + one event per line).
    Export {
        /// Session id, or a unique start (or end) of it.
        id: String,
        #[command(flatten)]
        scope: ScopeArgs,
        /// Write to this file instead of stdout.
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// Summarize the whole session with the model and append the summary (the
    /// log is kept; the next turn starts from the summary). With --file,
    /// --from and --to: append the file's text as the summary of events
    /// FROM..TO instead, no model involved.
    Compact {
        /// Session id, or a unique start (or end) of it.
        id: String,
        #[command(flatten)]
        scope: ScopeArgs,
        /// Print the result as JSON.
        #[arg(long)]
        json: bool,
        /// A summary you wrote (`-`: stdin), covering --from..--to.
        #[arg(long, requires_all = ["from", "to"])]
        file: Option<PathBuf>,
        /// The first event the summary covers.
        #[arg(long, requires = "file")]
        from: Option<u64>,
        /// The last event the summary covers (inclusive).
        #[arg(long, requires = "file")]
        to: Option<u64>,
    },
    /// `checkpoints`, `rewind`, `fork` (in `sessions_rewind.rs`).
    #[command(flatten)]
    Checkpoint(crate::sessions_rewind::CheckpointCommand),
    /// Read an OpenSeek session file into a new session of the scope; prints
    /// its id. Given a directory (a `.openseek/sessions` folder, a
    /// `.openseek` folder or a project holding one), imports every session
    /// file in it, one line per file.
    Import {
        /// The session file, or a directory of them.
        file: PathBuf,
        #[command(flatten)]
        scope: ScopeArgs,
        /// The new session's id (default: the file's, or a fresh one if that is taken).
        #[arg(long)]
        id: Option<String>,
    },
}

/// The scope a command works in.
#[derive(Args, Clone, Default)]
pub struct ScopeArgs {
    /// Project directory (default: the current directory's project root).
    #[arg(long)]
    workspace: Option<PathBuf>,
    /// Use the directory-free global scope.
    #[arg(long, conflicts_with = "workspace")]
    global: bool,
}

impl ScopeArgs {
    pub(crate) fn named(&self) -> bool {
        self.global || self.workspace.is_some()
    }

    /// The scope these arguments pick (see the module doc).
    pub fn resolve(&self, home: &Home) -> anyhow::Result<Scope> {
        let cwd = crate::cwd::working_dir()?;
        Scope::local(home, &cwd, self.workspace.as_deref(), self.global)
            .map_err(|e| anyhow::anyhow!(e.message))
    }
}

/// Runs a `sessions` command.
pub fn sessions(home: &Home, cmd: SessionsCommand) -> anyhow::Result<()> {
    home.ensure()?;
    let store = Store::open(&home.db_path())?;
    let mut out = std::io::stdout().lock();
    match cmd {
        SessionsCommand::List {
            scope,
            all,
            archived,
            json,
        } => {
            let key = if all {
                None
            } else {
                Some(scope.resolve(home)?.key)
            };
            let listed = store.list_with_stats(key.as_deref(), archived)?;
            if json {
                let rows: Vec<ListRow<'_>> = listed.iter().map(ListRow::of).collect();
                serde_json::to_writer_pretty(&mut out, &rows)?;
                writeln!(out)?;
            } else {
                print_table(&listed, &mut out)?;
            }
        }
        SessionsCommand::Show {
            id,
            scope,
            json,
            model_view: false,
        } => {
            let (key, id) = find(&store, home, &scope, &id)?;
            let events = read_log(&store, &key, &id)?;
            if json {
                let events = sessions_log::without_image_data(events);
                serde_json::to_writer_pretty(&mut out, &events)?;
                writeln!(out)?;
            } else {
                sessions_log::print_log(&events, &mut out)?;
            }
        }
        SessionsCommand::Show {
            id,
            scope,
            json,
            model_view: true,
        } => {
            let (key, id) = find(&store, home, &scope, &id)?;
            let events = read_log(&store, &key, &id)?;
            let messages = conversation(&events);
            if json {
                let rows: Vec<ShownMessage<'_>> = messages
                    .iter()
                    .map(|(seq, m)| ShownMessage::of(*seq, m))
                    .collect();
                serde_json::to_writer_pretty(&mut out, &rows)?;
                writeln!(out)?;
            } else {
                let context = store.turn_context(&key, &id)?;
                let files = context.and_then(|c| c.instructions);
                sessions_log::print_instruction_files(files.as_deref(), &mut out)?;
                print_conversation(&messages, &mut out)?;
            }
        }
        SessionsCommand::Search {
            query,
            scope,
            limit,
            json,
        } => {
            let limit = usize::from(limit);
            crate::sessions_search::search(home, &store, &scope, &query, limit, json, &mut out)?;
        }
        SessionsCommand::Export { id, scope, output } => {
            let (key, id) = find(&store, home, &scope, &id)?;
            let events = read_log(&store, &key, &id)?;
            let prompt = store.system_prompt(&key, &id)?.unwrap_or_default();
            sessions_file::export(&id, &prompt, &events, output.as_deref(), &mut out)?;
        }
        SessionsCommand::Compact {
            id,
            scope,
            json,
            file: Some(file),
            from: Some(from),
            to: Some(to),
        } => {
            let (key, id) = find(&store, home, &scope, &id)?;
            drop(store);
            let text = sessions_file::read_summary(&file)?;
            let done = sessions_file::append_summary(home, &key, &id, text, from, to)?;
            if json {
                let row = serde_json::json!({
                    "id": id, "fromSeq": from, "toSeq": to, "summarySeq": done.seq,
                });
                writeln!(out, "{row}")?;
            } else {
                writeln!(
                    out,
                    "compacted session {id} events {from}..{to}; last_sequence={}",
                    done.seq
                )?;
            }
        }
        SessionsCommand::Compact {
            id, scope, json, ..
        } => {
            let (key, id) = find(&store, home, &scope, &id)?;
            let header = store
                .session(&key, &id)?
                .with_context(|| format!("session {id} not found"))?;
            let scope = match header.workspace.as_deref() {
                Some(root) if key != GLOBAL_SCOPE => Scope::of_root(Path::new(root)),
                _ => Scope::global(),
            };
            drop(store);
            let done = compact(home, &scope, &id)?;
            if json {
                let row = serde_json::json!({
                    "id": id, "fromSeq": done.from_seq, "toSeq": done.to_seq,
                    "summarySeq": done.seq, "summary": done.summary,
                });
                writeln!(out, "{row}")?;
            } else {
                writeln!(
                    out,
                    "compacted session {id} events {}..{}; summary is event {}",
                    done.from_seq, done.to_seq, done.seq
                )?;
            }
        }
        SessionsCommand::Checkpoint(cmd) => {
            drop(store);
            crate::sessions_rewind::run(home, cmd, &mut out)?;
        }
        SessionsCommand::Import { file, scope, id } => {
            let scope = scope.resolve(home)?;
            if file.is_dir() {
                if id.is_some() {
                    bail!("--id names one session; it cannot be used when importing a directory");
                }
                sessions_file::import_root(home, &store, &scope, &file, &mut out)?;
            } else {
                let imported = sessions_file::import(home, &store, &scope, &file, id)?;
                writeln!(out, "{imported}")?;
            }
        }
    }
    out.flush()?;
    Ok(())
}

/// Compacts through the engine in this process (`busy` while any process
/// runs a turn on the session).
fn compact(home: &Home, scope: &Scope, id: &str) -> anyhow::Result<seekclaw_agent::Compacted> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let done = runtime.block_on(async {
        let engine = seekclaw_engine::Engine::open(home.clone())
            .await
            .map_err(|e| anyhow::anyhow!(e.message))?;
        let cancel = tokio_util::sync::CancellationToken::new();
        let done = engine
            .compact_session(scope, id, &Default::default(), &cancel, |_, _| {})
            .await
            .map_err(|e| anyhow::anyhow!(e.message));
        engine.close().await;
        done
    });
    runtime.shutdown_background();
    done
}

/// The scope key and the full id of the session `given` names: its id, or
/// a unique start of it (or end: the id's random tail), as `schedule` takes
/// task ids. Looked for in the scope, then (no scope named) in every scope.
pub(crate) fn find(
    store: &Store,
    home: &Home,
    args: &ScopeArgs,
    given: &str,
) -> anyhow::Result<(String, String)> {
    let given = given.trim();
    if given.is_empty() {
        bail!("no session id given (see `seekclaw sessions list`)");
    }
    let scope = args.resolve(home)?;
    if store.session(&scope.key, given)?.is_some() {
        return Ok((scope.key, given.to_string()));
    }
    if !args.named() {
        let mut scopes = store.scopes_of_session(given)?;
        match scopes.len() {
            0 => {}
            1 => return Ok((scopes.remove(0), given.to_string())),
            _ => bail!(
                "session {given} exists in several scopes ({}); pick one with --workspace DIR or --global",
                scopes.join(", ")
            ),
        }
    }
    // One more than is listed, to know there are more.
    const SHOWN: usize = 10;
    let mut found = store.sessions_matching(Some(&scope.key), given, SHOWN + 1)?;
    if found.is_empty() && !args.named() {
        found = store.sessions_matching(None, given, SHOWN + 1)?;
    }
    match found.len() {
        0 if args.named() => bail!(
            "session {given} not found in {}: no id there starts or ends with it (see `seekclaw sessions list`)",
            describe(&scope.key)
        ),
        0 => bail!(
            "session {given} not found: no id starts or ends with it (see `seekclaw sessions list --all`)"
        ),
        1 => Ok(found.remove(0)),
        n => {
            let listed: Vec<String> = found
                .iter()
                .take(SHOWN)
                .map(|(key, id)| format!("\n  {id}  ({})", describe(key)))
                .collect();
            let more = if n > SHOWN { "\n  …" } else { "" };
            bail!(
                "\"{given}\" matches more than one session; give more of the id:{}{more}",
                listed.concat()
            )
        }
    }
}

fn describe(key: &str) -> String {
    if key == GLOBAL_SCOPE {
        "the global scope".into()
    } else {
        format!("scope {key}")
    }
}

fn read_log(store: &Store, key: &str, id: &str) -> anyhow::Result<Vec<SessionEvent>> {
    let conv = store
        .conversation(key, id)?
        .with_context(|| format!("session {id} not found"))?;
    Ok(conv.events)
}

/// One row of `seekclaw sessions list --json`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ListRow<'a> {
    /// The session id (what `show`, `export` and `run --session` take).
    id: &'a str,
    /// Its title (from the first user message unless renamed); null if none.
    title: Option<&'a str>,
    /// The project root it works in; null for a global session.
    workspace: Option<&'a str>,
    /// The store's scope key (`global` or the workspace's key).
    scope: &'a str,
    /// Turns that ended: one `terminal` event each (a running turn is not counted).
    turns: u64,
    /// `inputTokens + outputTokens`.
    tokens: i64,
    /// Input tokens of its provider calls, cached ones included.
    input_tokens: i64,
    /// Output tokens of its provider calls.
    output_tokens: i64,
    /// USD: the recorded cost of its provider calls (model prices from the catalog).
    cost: f64,
    /// Last change (ISO 8601, UTC); the list is sorted by it, newest first.
    updated_at: &'a str,
    /// Creation time (ISO 8601, UTC).
    created_at: &'a str,
    /// Hidden from the default list (shown with `--archived`).
    archived: bool,
    /// The session whose turn started this one (a subagent's session);
    /// absent for a top-level session.
    #[serde(skip_serializing_if = "Option::is_none")]
    parent_id: Option<&'a str>,
    /// The session and user message it was forked from (`sessions fork`);
    /// absent for a session that is not a fork.
    #[serde(skip_serializing_if = "Option::is_none")]
    forked_from: Option<&'a seekclaw_store::ForkedFrom>,
}

impl ListRow<'_> {
    fn of(l: &ListedSession) -> ListRow<'_> {
        let h = &l.header;
        ListRow {
            id: &h.id,
            title: h.title.as_deref(),
            workspace: h.workspace.as_deref(),
            scope: &h.scope,
            turns: l.turns,
            tokens: h.total_input_tokens + h.output_tokens,
            input_tokens: h.total_input_tokens,
            output_tokens: h.output_tokens,
            cost: l.cost,
            updated_at: &h.updated_at,
            created_at: &h.created_at,
            archived: h.archived,
            parent_id: h.parent_id.as_deref(),
            forked_from: h.forked_from.as_ref(),
        }
    }
}

/// The list with each subagent session and each fork right under the
/// session it came from (when that is listed), flagged as nested; the order
/// is otherwise kept.
fn nested(listed: &[ListedSession]) -> Vec<(&ListedSession, bool)> {
    let ids: std::collections::HashSet<&str> =
        listed.iter().map(|l| l.header.id.as_str()).collect();
    fn parent_in<'l>(
        l: &'l ListedSession,
        ids: &std::collections::HashSet<&str>,
    ) -> Option<&'l str> {
        let h = &l.header;
        h.parent_id
            .as_deref()
            .or(h.forked_from.as_ref().map(|f| f.session_id.as_str()))
            .filter(|p| ids.contains(p) && *p != h.id)
    }
    let under = |l| parent_in(l, &ids);
    let mut rows = Vec::with_capacity(listed.len());
    for top in listed.iter().filter(|l| under(l).is_none()) {
        rows.push((top, false));
        rows.extend(
            listed
                .iter()
                .filter(|c| under(c) == Some(top.header.id.as_str()))
                .map(|c| (c, true)),
        );
    }
    // A child of a child (none are made today) still gets a row.
    for l in listed {
        if !rows.iter().any(|(r, _)| std::ptr::eq(*r, l)) {
            rows.push((l, true));
        }
    }
    rows
}

/// `2026-07-31T12:00:00.1234567+00:00` as `2026-07-31 12:00`.
pub(crate) fn short_time(iso: &str) -> String {
    match (iso.get(..10), iso.get(11..16)) {
        (Some(day), Some(time)) => format!("{day} {time}"),
        _ => iso.to_string(),
    }
}

/// The list as aligned columns with a heading, the title last.
fn print_table(listed: &[ListedSession], out: &mut impl Write) -> anyhow::Result<()> {
    if listed.is_empty() {
        eprintln!("seekclaw: no sessions");
        return Ok(());
    }
    let rows: Vec<[String; 7]> = nested(listed)
        .into_iter()
        .map(|(l, child)| {
            let r = ListRow::of(l);
            [
                if child && r.forked_from.is_some() {
                    // A fork, not a subagent: `⑂` as a branch.
                    format!("  ⑂ {}", r.id)
                } else if child {
                    format!("  └ {}", r.id)
                } else {
                    r.id.to_string()
                },
                short_time(r.updated_at),
                r.turns.to_string(),
                r.tokens.to_string(),
                money(r.cost),
                r.workspace.unwrap_or("(global)").to_string(),
                r.title
                    .map(|t| one_line(&seekclaw_config::english_title(t)))
                    .unwrap_or_else(|| "-".into()),
            ]
        })
        .collect();
    crate::table::write_table(
        out,
        [
            "ID",
            "UPDATED (UTC)",
            "TURNS",
            "TOKENS",
            "COST",
            "WORKSPACE",
            "TITLE",
        ],
        &rows,
    )?;
    Ok(())
}

/// A cost as `$0.0123`, or `-` when nothing was priced (a model without
/// known prices costs 0, which must not read as free; never `$-0.0000`).
fn money(cost: f64) -> String {
    if cost > 0.0 {
        format!("${cost:.4}")
    } else {
        "-".to_string()
    }
}

/// Whitespace runs (newlines included) as one space, control characters dropped.
pub(crate) fn one_line(text: &str) -> String {
    text.split_whitespace()
        .map(|w| w.chars().filter(|c| !c.is_control()).collect::<String>())
        .collect::<Vec<_>>()
        .join(" ")
}

/// One message of `seekclaw sessions show --json`: the conversation the
/// model is sent (summaries in place of what they cover, earlier images as
/// placeholders, runtime notices only when the model reads them).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ShownMessage<'a> {
    /// The log event it comes from.
    seq: u64,
    /// `user`, `assistant` or `tool`.
    role: &'static str,
    /// Its text (a tool's output for `tool`).
    content: &'a str,
    /// The model's reasoning (assistant).
    #[serde(skip_serializing_if = "Option::is_none")]
    reasoning: Option<&'a str>,
    /// The calls the step made (assistant).
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_calls: Option<Vec<ShownCall<'a>>>,
    /// The call a tool message answers (tool).
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_call_id: Option<&'a str>,
    /// The tool that ran (tool).
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_name: Option<&'a str>,
    /// The tool failed (tool).
    #[serde(skip_serializing_if = "Option::is_none")]
    is_error: Option<bool>,
}

/// A tool call in [`ShownMessage`].
#[derive(Serialize)]
struct ShownCall<'a> {
    /// Call id.
    id: &'a str,
    /// Tool name.
    name: &'a str,
    /// Arguments as the model wrote them (JSON text).
    arguments: &'a str,
}

impl ShownMessage<'_> {
    fn of(seq: u64, m: &ChatMessage) -> ShownMessage<'_> {
        let bare = |role, content| ShownMessage {
            seq,
            role,
            content,
            reasoning: None,
            tool_calls: None,
            tool_call_id: None,
            tool_name: None,
            is_error: None,
        };
        match m {
            ChatMessage::User { text, .. } => bare("user", text),
            ChatMessage::Assistant {
                text,
                thinking,
                tool_calls,
            } => ShownMessage {
                reasoning: thinking.as_ref().map(|t| t.text.as_str()),
                tool_calls: Some(
                    tool_calls
                        .iter()
                        .map(|c| ShownCall {
                            id: &c.id,
                            name: &c.name,
                            arguments: &c.arguments,
                        })
                        .collect(),
                ),
                ..bare("assistant", text)
            },
            ChatMessage::Tool {
                call_id,
                name,
                content,
                is_error,
                ..
            } => ShownMessage {
                tool_call_id: Some(call_id),
                tool_name: Some(name),
                is_error: Some(*is_error),
                ..bare("tool", content)
            },
        }
    }
}

/// The conversation as role-labelled blocks.
fn print_conversation(messages: &[(u64, ChatMessage)], out: &mut impl Write) -> anyhow::Result<()> {
    for (i, (seq, m)) in messages.iter().enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        match m {
            ChatMessage::User { text, .. } => {
                writeln!(out, "── user #{seq}")?;
                writeln!(out, "{text}")?;
            }
            ChatMessage::Assistant {
                text,
                thinking,
                tool_calls,
            } => {
                writeln!(out, "── assistant #{seq}")?;
                if let Some(t) = thinking.as_ref().filter(|t| !t.text.trim().is_empty()) {
                    writeln!(out, "(reasoning) {}", t.text.trim())?;
                }
                if !text.is_empty() {
                    writeln!(out, "{text}")?;
                }
                for c in tool_calls {
                    writeln!(out, "→ {} {} [{}]", c.name, c.arguments, c.id)?;
                }
            }
            ChatMessage::Tool {
                call_id,
                name,
                content,
                is_error,
                ..
            } => {
                let state = if *is_error { "failed" } else { "ok" };
                writeln!(out, "── tool {name} [{call_id}] {state} #{seq}")?;
                writeln!(out, "{content}")?;
            }
        }
    }
    Ok(())
}

/// Whether `path` names stdout (`-`).
pub(crate) fn is_stdout(path: &Path) -> bool {
    path.as_os_str() == "-"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_and_titles_are_shortened_for_the_table() {
        assert_eq!(
            short_time("2026-07-31T12:34:56.1234567+00:00"),
            "2026-07-31 12:34"
        );
        assert_eq!(short_time("odd"), "odd");
        assert_eq!(one_line("fix\n  the\ttest\u{7}"), "fix the test");
    }
}
