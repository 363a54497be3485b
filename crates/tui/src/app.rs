//! The UI's state and how it changes: daemon envelopes and loaded sessions
//! update the conversation; keys edit the prompt and yield [`Action`]s, which
//! the event loop carries out against the daemon.

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use seekclaw_client::{Event, EventKind};

use crate::input::Editor;

/// One row of the conversation.
#[derive(Debug, Clone, PartialEq)]
pub enum Entry {
    /// A prompt the user sent, and the images sent with it as chips
    /// (`[image: a.png 12 KB]`).
    User(String, Vec<String>),
    /// Guidance the running turn took in (the daemon's `steer` event).
    Steer(String),
    /// A model step's answer (Markdown) and reasoning.
    Assistant {
        /// The answer so far.
        text: String,
        /// The reasoning so far.
        thinking: String,
    },
    /// One tool call.
    Tool(ToolRow),
    /// A subagent a tool call started, with its live progress.
    Subrun(crate::subrun::SubrunRow),
    /// Something the UI says (help, session lists, a cancelled turn).
    Notice(String),
    /// A checkpoint of the workspace's files (dimmed, one line).
    Checkpoint(String),
    /// A hook run (dimmed, one line; highlighted when it stopped something).
    Hook(crate::hooks::HookRow),
    /// A failure.
    Error(String),
}

/// A tool call's row.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolRow {
    /// The call id (`details.callId`).
    pub call_id: String,
    /// The tool's name.
    pub name: String,
    /// What it does (`tool_start`) or did (`tool_done`).
    pub summary: String,
    /// Where it is.
    pub state: ToolState,
    /// How long it took, when done and known.
    pub duration_ms: Option<f64>,
    /// The unified diff of a file it changed.
    pub diff: Option<String>,
}

/// A tool call's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolState {
    /// Still running.
    Running,
    /// Succeeded.
    Done,
    /// Failed.
    Failed,
}

/// The turn this UI runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    /// The `chat` request id.
    pub request_id: i64,
    /// `agent.cancel` was sent.
    pub cancelling: bool,
    /// What the turn is doing (see [`crate::phase`]), in English.
    pub phase: String,
    /// Whether any answer text streamed.
    pub streamed: bool,
    /// Another client's (or the daemon's own) turn, seen through the watch:
    /// it can be steered (by session) but not cancelled from here.
    pub foreign: bool,
}

/// What the event loop does for a key.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Start a turn with this prompt.
    Chat(String),
    /// Steer the running turn.
    Steer(String),
    /// Cancel the running turn.
    Cancel(i64),
    /// Cancel the turn running on this session whoever started it (one seen
    /// through the watch: another window's, or one left running).
    CancelSession(String),
    /// Cancel this window's turn (the `chat` request id), then leave.
    CancelAndQuit(i64),
    /// `/new`.
    NewSession,
    /// `/sessions`: the picker, on the chat's scope.
    ListSessions,
    /// The sessions picker on another scope or archived filter.
    PickSessions {
        /// The global scope (else the workspace's).
        global: bool,
        /// Archived sessions too.
        archived: bool,
    },
    /// Open a session the picker chose (in the global or the workspace scope).
    OpenSession {
        /// The session id.
        id: String,
        /// It is a global session.
        global: bool,
    },
    /// Fetch `model.catalog` for its prices (after the first paint).
    LoadCatalog,
    /// `/resume ID`.
    Resume(String),
    /// `/model`: the models picker; `/model REF`: this session's model.
    Model(Option<String>),
    /// `/model default REF`: the default model (the config's active one).
    ModelDefault(String),
    /// `/mode`: show the agent mode; `/mode NAME`: switch.
    Mode(Option<String>),
    /// `/compact`: summarize the session.
    Compact,
    /// `/copy`: the last answer to the clipboard.
    Copy,
    /// `/reasoning LEVEL`: the session's reasoning level.
    Reasoning(String),
    /// `/doctor`: the daemon's checks.
    Doctor,
    /// `/usage`: tokens and cost per model.
    Usage,
    /// `/mcp`: the MCP servers and their state.
    Mcp(crate::reports::McpCommand),
    /// `/init`: a starter AGENTS.md at the project root (never over one).
    Init,
    /// `/memory`: the instruction files and MEMORY.md in `$EDITOR`.
    Memory,
    /// `/hooks`: the hooks and their state; `/hooks approve` (true) approves the workspace's set.
    Hooks(bool),
    /// `/goal` shows the session's goal; `/goal clear` clears it
    /// (`Some(None)`); `/goal TEXT` sets it.
    Goal(Option<Option<String>>),
    /// `!cmd`: run a shell command here and offer its output as context.
    Shell(String),
    /// A server's form answered: `accept` (with `content`), `decline`, `cancel`.
    Elicit {
        /// The request.
        approval_id: String,
        /// The turn's session.
        session_id: Option<String>,
        /// `accept`, `decline` or `cancel`.
        action: &'static str,
        /// With accept: the values.
        content: Option<serde_json::Value>,
    },
    /// A decision on a pending approval (`agent.approve`).
    Approve {
        /// The request.
        approval_id: String,
        /// The turn's session.
        session_id: Option<String>,
        /// `allow_once`, `allow_session`, `allow_always` or `reject`.
        decision: &'static str,
        /// With `reject`: what the model reads.
        message: Option<String>,
    },
    /// `/rewind`, `/fork` or Esc Esc: load the session's prompts and their
    /// changes, then show the list.
    OpenRewind(crate::rewind::Goal),
    /// Rewind the session to before the prompt at `seq`.
    Rewind {
        /// The user message's seq.
        seq: u64,
        /// What to restore.
        restore: crate::rewind::Restore,
        /// Overwrite files someone else changed since.
        force: bool,
    },
    /// Fork the session at the prompt at `seq` and switch to the fork.
    Fork {
        /// The user message's seq.
        seq: u64,
        /// Restore the code to that point too.
        restore_code: bool,
        /// Overwrite files someone else changed since.
        force: bool,
    },
    /// Leave.
    Quit,
}

impl Action {
    /// The UI leaves after it.
    pub fn quits(&self) -> bool {
        matches!(self, Action::Quit | Action::CancelAndQuit(_))
    }
}

/// The whole UI state.
#[derive(Debug, Default)]
pub struct App {
    /// The conversation, oldest first.
    pub entries: Vec<Entry>,
    /// Steers sent and not yet taken in by the turn.
    pub pending_steers: Vec<String>,
    /// The session the prompts go to (`None` until the first prompt).
    pub session_id: Option<String>,
    /// The session was loaded to be followed: its watch replays what came
    /// after this seq (the running turn, from its start).
    pub resume_after: Option<u64>,
    /// The watch's replay no longer reached back (`resync`): the session
    /// is reloaded from the store.
    pub resync: bool,
    /// A turn was started from this window.
    pub sent: bool,
    /// `provider/model` of the latest `model_start`, or the one the next
    /// turn uses (the session's own, the default).
    pub model: Option<String>,
    /// The session's own model (`/model REF`), over the default.
    pub session_model: Option<String>,
    /// The model a turn of a session without its own uses (`model.catalog`'s
    /// active one); `None` until known.
    pub default_model: Option<String>,
    /// Whether any model is configured (`None` until the catalog is known).
    pub any_model: Option<bool>,
    /// The home's config files as the daemon last read them (`config.status`).
    pub config: crate::status::ConfigState,
    /// Input tokens (`usage`), summed.
    pub input_tokens: u64,
    /// Output tokens (`usage`), summed.
    pub output_tokens: u64,
    /// The running turn.
    pub turn: Option<Turn>,
    /// The prompt editor.
    pub editor: Editor,
    /// Lines scrolled up from the bottom of the conversation.
    pub scroll: usize,
    /// The conversation's height at the last draw (a page for PgUp/PgDn).
    pub page: usize,
    /// Spinner frame.
    pub tick: usize,
    /// A one-line hint in the status bar.
    pub hint: Option<String>,
    /// Something the user waits on changed (a turn ended, a prompt opened):
    /// drawn at once rather than at the next paced frame.
    waited_frame: bool,
    /// A second Ctrl-C on an empty idle prompt quits.
    quit_armed: bool,
    /// A second Ctrl-C cancels the watched turn of another client.
    cancel_armed: bool,
    /// The open "quit while a turn runs?" prompt.
    pub quitting: Option<crate::quit::QuitPrompt>,
    /// The user quit keeping this window's turn running in the daemon.
    pub kept_turn: bool,
    /// The daemon connection is gone.
    pub disconnected: bool,
    /// Reasoning is folded to one line (Ctrl-T toggles).
    pub hide_thinking: bool,
    /// The open session's `session.watch`.
    pub watch: Option<crate::watching::Watching>,
    /// Output of `!cmd`s run while idle, sent with the next message.
    pub shell_context: Vec<String>,
    /// `!cmd` output sent into the running turn (already drawn here: its
    /// `steer` echo draws nothing more).
    pub shell_steers: Vec<String>,
    /// Calls waiting for the user's decision, oldest first.
    pub approvals: Vec<crate::approval::PendingApproval>,
    /// The first prompt's choice and reason step.
    pub asking: crate::approval::Asking,
    /// The open rewind or fork list and its questions.
    pub rewind: Option<crate::rewind::Flow>,
    /// One Esc on the empty prompt: a second opens the rewind list.
    pub(crate) esc_armed: bool,
    /// The open `/sessions` or `/model` picker.
    pub picker: Option<crate::picker::Picker>,
    /// The open `@path` completion popup.
    pub completion: Option<crate::completion::Completion>,
    /// The workspace's files, for `@path` completion.
    pub files: crate::completion::FileIndex,
    /// Where `@path`s are looked up (`None`: no completion, no images).
    pub root: Option<std::path::PathBuf>,
    /// The images the prompt being typed names (`@a.png`).
    pub attached: Vec<crate::attach::Attachment>,
    /// Diffs under tool rows show in full (Ctrl-O toggles; folded by default).
    pub expand_diffs: bool,
    /// Highlights code blocks; loads its syntaxes on first use.
    pub highlighter: crate::highlight::Highlighter,
    /// The enabled plugins' prompts (`/plugin:command`), from `plugin.list`.
    pub plugin_commands: Vec<crate::commands::PluginPrompt>,
    /// `model.catalog` prices per model ref (USD per 1M input, output tokens).
    pub prices: Option<std::collections::HashMap<String, (f64, f64)>>,
    /// Tokens (input, output) per model ref, for the cost; `""` is a loaded
    /// session's totals whose model is not known.
    pub model_tokens: std::collections::BTreeMap<String, (u64, u64)>,
    /// What the usage events that carried their cost (`costUsd`) add up to.
    pub priced_cost: f64,
    /// Tokens the last model request's context held (its input and output).
    pub context_used: Option<u64>,
    /// `model.catalog`'s context windows per model ref.
    pub context_windows: std::collections::HashMap<String, u64>,
    /// The `ui.statusLine` command's row (`None`: no command configured).
    pub status_text: Option<crate::status_line::Shown>,
    /// The session's spend against its tightest dollar budget (`None`: no
    /// budget applies, or the daemon has none).
    pub budget: Option<crate::budget_view::BudgetView>,
    /// The engine's "hooks of this workspace are off" reminder was shown
    /// (once a chat: every turn carries it).
    pub(crate) hooks_off_said: bool,
}

impl App {
    /// The text of the latest answer with any.
    pub fn last_answer(&self) -> Option<String> {
        self.entries.iter().rev().find_map(|e| match e {
            Entry::Assistant { text, .. } if !text.trim().is_empty() => Some(text.clone()),
            _ => None,
        })
    }

    /// Whether the last envelopes changed something the user waits on (and
    /// forgets it): the event loop then draws without waiting for the frame.
    pub fn take_waited_frame(&mut self) -> bool {
        std::mem::take(&mut self.waited_frame)
    }

    pub(crate) fn mark_waited_frame(&mut self) {
        self.waited_frame = true;
    }

    /// Whether something animates (a spinner needs ticks).
    pub fn animating(&self) -> bool {
        self.turn.is_some()
    }

    /// A turn was started with `chat` request `request_id`.
    pub fn start_turn(&mut self, request_id: i64, prompt: &str) {
        self.sent = true;
        for s in self.pending_steers.drain(..) {
            self.entries
                .push(Entry::Notice(format!("steer not taken in: {s}")));
        }
        self.entries
            .push(Entry::User(prompt.to_string(), Vec::new()));
        // The turn's `model_start` says which model answers.
        self.model = None;
        self.turn = Some(Turn {
            request_id,
            cancelling: false,
            phase: String::new(),
            streamed: false,
            foreign: false,
        });
        self.scroll = 0;
    }

    /// Adds a notice (multi-line text).
    pub fn notice(&mut self, text: impl Into<String>) {
        self.entries.push(Entry::Notice(text.into()));
        self.scroll = 0;
    }

    /// Adds an error row.
    pub fn error(&mut self, text: impl Into<String>) {
        self.entries.push(Entry::Error(text.into()));
        self.scroll = 0;
    }

    /// Starts over in `session_id` (a new session, nothing shown yet).
    pub fn reset(&mut self, session_id: Option<String>) {
        self.entries.clear();
        self.pending_steers.clear();
        self.shell_steers.clear();
        self.session_id = session_id;
        self.model = None;
        self.session_model = None;
        self.input_tokens = 0;
        self.output_tokens = 0;
        self.model_tokens.clear();
        self.priced_cost = 0.0;
        self.context_used = None;
        self.turn = None;
        self.clear_approvals();
        self.scroll = 0;
    }

    /// Applies one envelope that was not a call's answer.
    pub fn on_envelope(&mut self, env: Event) {
        let kind = env.kind();
        let Some((env, kind)) = self.on_watch_envelope(env, kind) else {
            return;
        };
        // A steer is taken in even after the turn's terminal (reference §10.3).
        if let EventKind::Steer = kind {
            self.on_steer(env.data);
            return;
        }
        if self.on_approval_envelope(&env, &kind) {
            return;
        }
        if env.event == "checkpoint" {
            self.on_checkpoint(&env);
            return;
        }
        if self.on_hook_envelope(&kind) {
            return;
        }
        // A job of this chat's session ended while no turn ran: the engine
        // logged it for the next turn; say so here too.
        if let (EventKind::BackgroundNotice(_), 0) = (&kind, env.id) {
            self.notice(env.data);
            return;
        }
        let Some(turn) = self.turn.as_mut() else {
            return;
        };
        if env.id != turn.request_id {
            // An `agent.steer`/`agent.cancel` answer: only a failure matters.
            if let EventKind::Error(_) = kind {
                self.error(env.data);
            }
            return;
        }
        match kind {
            EventKind::Workflow(_) | EventKind::Status => {
                if let Some(phase) = crate::phase::phase_of(&env, &kind) {
                    turn.phase = phase;
                }
            }
            EventKind::ModelStart(_) => self.model = Some(env.data),
            EventKind::Thinking => self.append(&env.data, true),
            EventKind::Delta => {
                turn.streamed = true;
                self.append(&env.data, false);
            }
            EventKind::Usage(usage) => {
                let (input, output) = (usage.input_tokens, usage.output_tokens);
                self.input_tokens += input;
                self.output_tokens += output;
                self.context_used = Some(input + output);
                // The engine prices each attempt itself (cache prices
                // included); only an unpriced one (or an older daemon's) is
                // left to the catalog.
                match usage.cost_usd {
                    Some(cost) => self.priced_cost += cost,
                    None => {
                        let by_model = self.model_tokens.entry(env.data).or_default();
                        by_model.0 += input;
                        by_model.1 += output;
                    }
                }
            }
            EventKind::ToolStart(start) => self.entries.push(Entry::Tool(ToolRow {
                call_id: start.call_id,
                name: env.data,
                summary: start.summary,
                state: ToolState::Running,
                duration_ms: None,
                diff: None,
            })),
            EventKind::ToolDone(done) => {
                if let Some(row) = self.tool_row(&done.call_id) {
                    row.state = if done.success {
                        ToolState::Done
                    } else {
                        ToolState::Failed
                    };
                    row.duration_ms = Some(done.duration_ms);
                    if !env.data.is_empty() {
                        row.summary = env.data;
                    }
                }
            }
            EventKind::SubrunStarted(started) => self.entries.push(Entry::Subrun(started.into())),
            EventKind::SubrunProgress(progress) => self.update_subrun(progress.into()),
            EventKind::SubrunFinished(finished) => self.update_subrun(finished.into()),
            // One per changed file: a patch of several files shows them all.
            EventKind::FileDiff(diff) => {
                if let Some(row) = self.tool_row(&diff.call_id) {
                    match &mut row.diff {
                        Some(kept) => {
                            if !kept.ends_with('\n') {
                                kept.push('\n');
                            }
                            kept.push_str(&diff.diff);
                        }
                        None => row.diff = Some(diff.diff),
                    }
                }
            }
            // An engine notice the turn took in, or one of an idle session.
            EventKind::BackgroundNotice(_) | EventKind::Notice | EventKind::Failover(_) => {
                self.notice(env.data)
            }
            EventKind::Retry(_) => turn.phase = env.data,
            EventKind::Reminder(r) if r.kind == "hooks" && !self.hooks_off_said => {
                self.hooks_off_said = true;
                self.notice(env.data);
            }
            EventKind::Reminder(r) if r.kind == "instructions" => self.notice(env.data),
            // A spend budget nearly used up: said as a warning.
            EventKind::Reminder(r) if r.kind == "budget" => self.error(env.data),
            EventKind::Done => {
                if !turn.streamed && !env.data.is_empty() {
                    self.append(&env.data, false);
                }
                self.end_turn();
            }
            EventKind::Cancelled => {
                self.end_turn();
                self.notice(crate::detail::CANCELLED);
            }
            EventKind::Error(_) => {
                self.end_turn();
                self.error(env.data);
            }
            _ => {}
        }
    }

    /// A `steer` the turn took in: ours (a prompt or a `!cmd`'s output sent
    /// as guidance) replaces its pending copy; another client's is shown.
    fn on_steer(&mut self, data: String) {
        if let Some(at) = self.shell_steers.iter().position(|s| *s == data) {
            self.shell_steers.remove(at);
            return;
        }
        let (blocks, rest) = crate::shell::split_context(&data);
        if !blocks.is_empty() {
            // Another client's `!cmd`: drawn as its block, as on reload.
            for b in blocks {
                self.notice(b);
            }
            if !rest.is_empty() {
                self.entries.push(Entry::Steer(rest.to_string()));
            }
            return;
        }
        if !self.pending_steers.is_empty() {
            let at = self.pending_steers.iter().position(|s| *s == data);
            self.pending_steers.remove(at.unwrap_or(0));
        }
        self.entries.push(Entry::Steer(data));
    }

    /// A running subagent's new progress, on its row.
    fn update_subrun(&mut self, update: crate::subrun::SubrunRow) {
        let row = self.entries.iter_mut().rev().find_map(|e| match e {
            Entry::Subrun(r) if r.id == update.id => Some(r),
            _ => None,
        });
        if let Some(row) = row {
            *row = update;
        }
    }

    /// The daemon closed the connection: the turn is over for this client.
    pub fn on_disconnect(&mut self) {
        if !self.disconnected {
            self.disconnected = true;
            self.watch = None;
            self.turn = None;
            self.pending_steers.clear();
            self.error("The daemon went away; reconnecting…");
        }
    }

    /// Connected again: the session as the store has it (`session.timeline`), or
    /// `None` when there is none yet.
    pub fn on_reconnect(&mut self, detail: Option<crate::detail::SessionDetail>) {
        self.disconnected = false;
        if let Some(detail) = detail {
            self.load_session(detail);
        }
        self.notice("Reconnected to the daemon.");
    }

    fn end_turn(&mut self) {
        // A watched turn's "a turn … is running" ends with it.
        if self.turn.take().is_some_and(|t| t.foreign) {
            self.hint = None;
        }
        self.waited_frame = true;
        // Whatever still waited ended with the turn.
        self.clear_approvals();
        for row in self.entries.iter_mut() {
            match row {
                Entry::Tool(t) if t.state == ToolState::Running => t.state = ToolState::Failed,
                Entry::Subrun(r) => r.ended_with_turn(),
                _ => {}
            }
        }
    }

    /// Appends to the open assistant bubble's answer or reasoning; a tool row
    /// or a steer closes a bubble, so the next text opens a new one.
    fn append(&mut self, chunk: &str, to_thinking: bool) {
        if let Some(Entry::Assistant { text, thinking }) = self.entries.last_mut() {
            if to_thinking {
                thinking.push_str(chunk);
            } else {
                text.push_str(chunk);
            }
            return;
        }
        let (text, thinking) = if to_thinking {
            (String::new(), chunk.to_string())
        } else {
            (chunk.to_string(), String::new())
        };
        self.entries.push(Entry::Assistant { text, thinking });
    }

    fn tool_row(&mut self, call_id: &str) -> Option<&mut ToolRow> {
        let rows = self.entries.iter_mut().rev().filter_map(|e| match e {
            Entry::Tool(t) => Some(t),
            _ => None,
        });
        let mut fallback = None;
        for row in rows {
            if row.call_id == call_id {
                return Some(row);
            }
            if fallback.is_none() && row.state == ToolState::Running {
                fallback = Some(row);
            }
        }
        fallback
    }

    /// Handles a key; the action the event loop must carry out, if any.
    pub fn on_key(&mut self, key: KeyEvent) -> Option<Action> {
        if key.kind == KeyEventKind::Release {
            return None;
        }
        if self.picker.is_some() {
            return self.picker_key(key);
        }
        if let Some(decided) = self.rewind_key(key) {
            return decided;
        }
        if let Some(decided) = self.quit_key(key) {
            return decided;
        }
        if let Some(decided) = self.approval_key(key) {
            return decided;
        }
        if self.completion_key(key).is_some() {
            self.refresh_attached();
            return None;
        }
        let action = self.edit_key(key);
        self.refresh_attached();
        action
    }

    /// A key for the editor and the conversation (no popup open).
    fn edit_key(&mut self, key: KeyEvent) -> Option<Action> {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let alt = key.modifiers.contains(KeyModifiers::ALT);
        let shift = key.modifiers.contains(KeyModifiers::SHIFT);
        if !(ctrl && key.code == KeyCode::Char('c')) {
            self.quit_armed = false;
            self.cancel_armed = false;
            self.hint = None;
        }
        if key.code != KeyCode::Esc {
            self.esc_armed = false;
        }
        match key.code {
            KeyCode::Esc => return self.esc_key(),
            KeyCode::Char('c') if ctrl => return self.ctrl_c(),
            KeyCode::Char('d') if ctrl && self.editor.is_empty() => return self.request_quit(),
            KeyCode::Char('j') if ctrl => self.editor.insert('\n'),
            KeyCode::Char('t') if ctrl => self.hide_thinking = !self.hide_thinking,
            KeyCode::Char('o') if ctrl => self.expand_diffs = !self.expand_diffs,
            KeyCode::Enter if alt || shift => self.editor.insert('\n'),
            KeyCode::Enter => return self.submit(),
            KeyCode::Char(c) if !ctrl => {
                self.editor.insert(c);
                // Index the files in the background as soon as one may be wanted.
                if let ('@', Some(root)) = (c, self.root.as_deref()) {
                    self.files.start(root);
                }
            }
            // An `@` word completes; otherwise Tab indents.
            KeyCode::Tab if !self.complete() => self.editor.insert_str("    "),
            KeyCode::Backspace => self.editor.backspace(),
            KeyCode::Delete => self.editor.delete(),
            KeyCode::Left => self.editor.left(),
            KeyCode::Right => self.editor.right(),
            KeyCode::Home => self.editor.home(),
            KeyCode::End => self.editor.end(),
            KeyCode::Up => self.editor.up(),
            KeyCode::Down => self.editor.down(),
            KeyCode::PageUp => self.scroll += self.page.max(2) - 1,
            KeyCode::PageDown => self.scroll = self.scroll.saturating_sub(self.page.max(2) - 1),
            _ => {}
        }
        None
    }

    fn ctrl_c(&mut self) -> Option<Action> {
        if let Some(turn) = self.turn.as_mut() {
            if turn.cancelling && turn.foreign {
                return None;
            }
            // Pressed again while this window's turn is being cancelled:
            // the user wants out (asks, as every quit during a turn does).
            if turn.cancelling {
                return self.request_quit();
            }
            if turn.foreign {
                // Another window's turn, or one its client left running:
                // cancelled only when asked twice.
                let session = self.watch.as_ref().map(|w| w.session.clone());
                if !std::mem::replace(&mut self.cancel_armed, true) {
                    self.hint = Some(
                        "this turn was started by another client: Ctrl-C again cancels it".into(),
                    );
                    return None;
                }
                self.cancel_armed = false;
                turn.cancelling = true;
                return session.map(Action::CancelSession);
            }
            turn.cancelling = true;
            return Some(Action::Cancel(turn.request_id));
        }
        if !self.editor.is_empty() {
            self.editor.clear();
            return None;
        }
        if self.quit_armed {
            return Some(Action::Quit);
        }
        self.quit_armed = true;
        self.hint = Some("Press Ctrl-C again to quit".into());
        None
    }

    fn submit(&mut self) -> Option<Action> {
        let text = self.editor.text();
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return None;
        }
        if let Some(command) = trimmed.strip_prefix('/') {
            self.editor.take();
            return self.command(command);
        }
        if let Some(command) = trimmed.strip_prefix('!').filter(|c| !c.trim().is_empty()) {
            let command = command.trim().to_string();
            self.editor.take();
            return Some(Action::Shell(command));
        }
        let text = self.editor.take();
        if self.turn.is_some() {
            self.pending_steers.push(text.clone());
            return Some(Action::Steer(text));
        }
        Some(Action::Chat(text))
    }
}

#[cfg(test)]
#[path = "app_tests.rs"]
pub(crate) mod tests;
