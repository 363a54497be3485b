//! The interactive loop: terminal setup and restore, then keys, daemon
//! envelopes and spinner ticks, each followed by one draw (envelopes that
//! arrived together are applied before that draw).

use std::io::Stdout;
use std::time::{Duration, Instant};

/// The shortest time between two draws.
const FRAME: Duration = Duration::from_millis(16);

use crossterm::event::{
    DisableBracketedPaste, DisableFocusChange, DisableMouseCapture, EnableBracketedPaste,
    EnableFocusChange, EnableMouseCapture, Event, EventStream, KeyEventKind, MouseEventKind,
};
use crossterm::terminal::{
    BeginSynchronizedUpdate, EndSynchronizedUpdate, EnterAlternateScreen, LeaveAlternateScreen,
    disable_raw_mode, enable_raw_mode,
};
use crossterm::{execute, queue};
use futures::StreamExt;
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use tokio::signal::unix::{SignalKind, signal};

use crate::actions::{act, before_quit, watch_session};
use crate::app::{Action, App};
use crate::hook_set::{HookChoice, HookPrompt, HookSet};
use crate::lifecycle::Daemon;
use crate::setup::Outcome;
use crate::trust::{self, FolderCheck, TrustChoice};
use crate::{ChatOptions, Scope, TuiError, open_session, render};

/// Puts the terminal back however the loop ends.
struct TerminalGuard;

impl TerminalGuard {
    fn enter() -> Result<(TerminalGuard, Terminal<CrosstermBackend<Stdout>>), TuiError> {
        enable_raw_mode().map_err(TuiError::Terminal)?;
        let guard = TerminalGuard;
        let mut stdout = std::io::stdout();
        execute!(
            stdout,
            EnterAlternateScreen,
            EnableBracketedPaste,
            EnableMouseCapture,
            // Focus reports: notifications only while the user is elsewhere.
            EnableFocusChange
        )
        .map_err(TuiError::Terminal)?;
        let terminal = Terminal::new(CrosstermBackend::new(stdout)).map_err(TuiError::Terminal)?;
        Ok((guard, terminal))
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        let _ = execute!(
            std::io::stdout(),
            DisableFocusChange,
            DisableMouseCapture,
            DisableBracketedPaste,
            LeaveAlternateScreen
        );
        let _ = disable_raw_mode();
    }
}

/// Runs the UI until the user quits.
pub async fn run(opts: ChatOptions) -> Result<crate::ChatEnd, TuiError> {
    let mut daemon = Daemon::connect_or_start(&opts.home).await?;
    let outcome = ui(&mut daemon, &opts).await;
    daemon.close().await;
    outcome
}

/// What the questions before the chat leave it: the scope (trust may turn
/// it global), the terminal they were asked on, text typed at them (the
/// first draft) and what to say once the chat opens.
struct Opened {
    scope: Scope,
    guard: TerminalGuard,
    terminal: Terminal<CrosstermBackend<Stdout>>,
    keys: EventStream,
    draft: String,
    /// Notices (`Ok`) and errors (`Err`) for the chat's first screen.
    said: Vec<Result<String, String>>,
}

/// Asks what the chat needs before it opens: trust in the folder, the
/// workspace's hooks, a first provider. `None`: the user quit.
async fn open_chat(daemon: &mut Daemon, opts: &ChatOptions) -> Result<Option<Opened>, TuiError> {
    // The `/sessions` picker may move the chat to the other scope.
    let mut scope = opts.scope.clone();
    let ask = match (&scope, opts.ask_trust) {
        (Scope::Workspace(dir), true) => match trust::check(&daemon.conn, &opts.home, dir).await? {
            FolderCheck::Known => None,
            FolderCheck::Ask(root) => Some(root),
            // Said before the screen is taken, so it stays readable.
            FolderCheck::Refused(why) => return Err(TuiError::NotAProject(why)),
        },
        _ => None,
    };
    // Whether this is a first run (no provider) is asked while the terminal
    // is set up: the round trip costs the first paint nothing. A daemon that
    // cannot list providers still chats (its errors show there).
    let (first_run, entered) = tokio::join!(
        async { crate::setup::needed(&daemon.conn).await.unwrap_or(false) },
        async { TerminalGuard::enter() }
    );
    let (guard, mut terminal) = entered?;
    let mut keys = EventStream::new();
    // Text typed at the trust question is the chat's first draft.
    let mut draft = String::new();
    if let Some(root) = ask {
        let (choice, typed) = ask_trust(&mut terminal, &mut keys, root.clone()).await?;
        draft = typed;
        match choice {
            TrustChoice::Trust => trust::trust(&daemon.conn, &root).await?,
            TrustChoice::Global => scope = Scope::Global,
            TrustChoice::Quit => return Ok(None),
        }
    }
    // A trusted workspace's hook set that is new or changed is shown first.
    let hooks_said =
        match hooks_step(&daemon.conn, &mut terminal, &mut keys, &scope, &mut draft).await? {
            HooksStep::Quit => return Ok(None),
            HooksStep::Say(said) => said,
        };
    let mut said = Vec::new();
    // A first run: no provider yet, so the welcome adds one in place.
    if first_run {
        said.push(Ok(
            match crate::setup::run(&mut terminal, &mut keys, &daemon.conn).await? {
                Outcome::Added(done) => done,
                Outcome::Skipped => "No provider yet: nothing can answer until one is added \
                                 (`seekclaw provider add --help`)."
                    .to_string(),
                Outcome::Quit => return Ok(None),
            },
        ));
        terminal.clear().map_err(TuiError::Terminal)?;
    }
    said.extend(hooks_said);
    Ok(Some(Opened {
        scope,
        guard,
        terminal,
        keys,
        draft,
        said,
    }))
}

async fn ui(daemon: &mut Daemon, opts: &ChatOptions) -> Result<crate::ChatEnd, TuiError> {
    let Some(opened) = open_chat(daemon, opts).await? else {
        return Ok(crate::ChatEnd::default());
    };
    let Opened {
        mut scope,
        guard,
        mut terminal,
        mut keys,
        draft,
        said,
    } = opened;
    let mut app = App::default();
    app.root = crate::completion::root_of(&scope);
    let mut attention = crate::attention::Attention::new(&opts.home, &mut app);
    app.editor.insert_str(&draft);
    match open_session(&daemon.conn, &scope, &opts.session).await {
        Ok(Some(detail)) => app.load_session(detail),
        Ok(None) => {}
        Err(e) => app.error(format!("cannot open the session: {e}")),
    }
    if daemon.started_here() {
        app.hint = Some("started a daemon for this chat".into());
    }
    for text in said {
        match text {
            Ok(text) => app.notice(text),
            Err(text) => app.error(text),
        }
    }
    // A turn already running on the session (a desktop's, a scheduled run)
    // shows as it goes.
    if let Err(e) = watch_session(daemon, &scope, &mut app).await {
        app.error(format!("cannot watch the session: {e}"));
    }
    if let Some(prompt) = opts.prompt.clone() {
        act(daemon, &mut scope, &mut app, Action::Chat(prompt)).await;
    }
    // The catalog (for the cost's prices) is fetched after the first paint.
    let mut catalog_asked = false;
    // A closed terminal (SIGHUP) or a kill (SIGTERM) ends the UI cleanly (the
    // terminal restored); a daemon started on demand exits once no client is left.
    let mut hangup = signal(SignalKind::hangup()).map_err(TuiError::Terminal)?;
    let mut terminate = signal(SignalKind::terminate()).map_err(TuiError::Terminal)?;
    let mut ticks = tokio::time::interval(Duration::from_millis(100));
    // Redraws are coalesced to one per frame: a fast stream costs no more
    // draws than a slow one, and a key after a quiet spell is drawn at once.
    let mut dirty = true;
    // A key is drawn at once, not at the next frame: its echo then takes no
    // frame's wait mid-stream, and typing adds few frames. So is a frame the
    // user waits on (a turn's end, an approval prompt): the pacing is for
    // streams, not for the answer's last frame.
    let mut at_once = false;
    let mut last_draw = Instant::now()
        .checked_sub(FRAME)
        .unwrap_or_else(Instant::now);
    let mut gave_up = false;
    // The status bar's model and config state are asked again when a config
    // file changes, and at a turn's end (no polling: an idle chat sleeps).
    let mut watch = crate::config_watch::ConfigWatch::new(opts.home.root());
    loop {
        if app.disconnected && !gave_up {
            draw(&mut terminal, &mut app)?;
            gave_up = !reconnect(daemon, opts, &scope, &mut app).await;
            dirty = true;
        }
        if dirty && (at_once || last_draw.elapsed() >= FRAME) {
            draw(&mut terminal, &mut app)?;
            last_draw = Instant::now();
            dirty = false;
            at_once = false;
            if !catalog_asked && !app.disconnected {
                catalog_asked = true;
                act(daemon, &mut scope, &mut app, Action::LoadCatalog).await;
                crate::config_notice::show(&daemon.conn, &mut app).await;
                crate::status::refresh_config(&daemon.conn, &mut app).await;
                crate::budget_view::refresh(&daemon.conn, &scope, &mut app).await;
                attention.refresh(&daemon.conn, &app).await;
                dirty = true;
            }
        }
        let next_frame = tokio::time::Instant::from_std(last_draw + FRAME);
        // The status line's command, when one is set and due (else when to look again).
        let status_wake = attention.poll(&app);
        tokio::select! {
            key = keys.next() => match key {
                Some(Ok(Event::Key(k))) => {
                    at_once = true;
                    attention.notifier.focus(true);
                    if let Some(action) = app.on_key(k) {
                        if action.quits() {
                            before_quit(daemon, &action).await;
                            crate::actions::end_session(daemon, &scope, &app, "prompt_input_exit")
                                .await;
                            // Said on the restored terminal, where it stays.
                            drop((guard, terminal));
                            if let Some(farewell) = app.farewell(&scope) {
                                println!("{farewell}");
                            }
                            return Ok(ended(&app, &scope));
                        }
                        let screen = (&mut terminal, &mut keys);
                        let action = crate::memory::intercept(action, &opts.home, &scope, &mut app, screen)?;
                        if let Some(action) = action {
                            act(daemon, &mut scope, &mut app, action).await;
                        }
                    }
                }
                Some(Ok(Event::Paste(text))) => app.paste(&text),
                Some(Ok(Event::FocusGained)) => attention.notifier.focus(true),
                Some(Ok(Event::FocusLost)) => attention.notifier.focus(false),
                // The wheel scrolls the conversation, three lines a notch.
                Some(Ok(Event::Mouse(m))) => match m.kind {
                    MouseEventKind::ScrollUp => app.scroll += 3,
                    MouseEventKind::ScrollDown => app.scroll = app.scroll.saturating_sub(3),
                    _ => {}
                },
                Some(Ok(_)) => {}
                Some(Err(e)) => return Err(TuiError::Terminal(e)),
                None => return Ok(ended(&app, &scope)),
            },
            env = daemon.events.recv(), if !app.disconnected => match env {
                Some(env) => {
                    let running = app.turn.is_some();
                    app.on_envelope(env);
                    while let Ok(more) = daemon.events.try_recv() {
                        app.on_envelope(more);
                    }
                    at_once |= app.take_waited_frame();
                    if std::mem::take(&mut app.resync) {
                        crate::actions::reload_session(daemon, &scope, &mut app).await;
                    }
                    if running && app.turn.is_none() {
                        crate::status::refresh(&daemon.conn, &mut app).await;
                        crate::budget_view::refresh(&daemon.conn, &scope, &mut app).await;
                        attention.refresh(&daemon.conn, &app).await;
                    }
                }
                None => app.on_disconnect(),
            },
            _ = ticks.tick(), if app.animating() => app.tick = app.tick.wrapping_add(1),
            _ = crate::config_watch::changed(&mut watch), if catalog_asked && !app.disconnected => {
                crate::status::refresh(&daemon.conn, &mut app).await;
                attention.reload(&opts.home, &mut app);
                attention.refresh(&daemon.conn, &app).await;
            }
            shown = attention.status.next() => if let Some(shown) = shown {
                app.status_text = Some(shown);
            },
            _ = crate::status_line::wake(status_wake) => {}
            _ = tokio::time::sleep_until(next_frame), if dirty => {}
            _ = hangup.recv() => return Ok(ended(&app, &scope)),
            _ = terminate.recv() => return Ok(ended(&app, &scope)),
        }
        attention.observe(&app);
        dirty = true;
    }
}

/// Where the chat ended, for the line said after it.
fn ended(app: &App, scope: &Scope) -> crate::ChatEnd {
    crate::ChatEnd {
        session_id: app.session_id.clone(),
        global: matches!(scope, Scope::Global),
        sent: app.sent,
    }
}

/// Asks whether to trust the chat's folder until a choice is made; the
/// choice, and the text typed meanwhile (kept for the chat).
async fn ask_trust(
    terminal: &mut Terminal<CrosstermBackend<Stdout>>,
    keys: &mut EventStream,
    root: std::path::PathBuf,
) -> Result<(TrustChoice, String), TuiError> {
    let mut prompt = trust::TrustPrompt::new(root);
    loop {
        terminal
            .draw(|f| trust::draw(f, &prompt))
            .map_err(TuiError::Terminal)?;
        match keys.next().await {
            Some(Ok(Event::Key(k))) if k.kind != KeyEventKind::Release => {
                if let Some(choice) = prompt.key(k) {
                    terminal.clear().map_err(TuiError::Terminal)?;
                    return Ok((choice, prompt.draft));
                }
            }
            Some(Ok(Event::Paste(text))) => prompt.draft.push_str(&text),
            Some(Ok(_)) => {}
            Some(Err(e)) => return Err(TuiError::Terminal(e)),
            None => return Ok((TrustChoice::Quit, prompt.draft)),
        }
    }
}

/// What the hook question left for the chat to say.
enum HooksStep {
    /// A notice (`Ok`) or an error (`Err`), or nothing.
    Say(Option<Result<String, String>>),
    /// The user chose to leave.
    Quit,
}

/// Asks about the workspace's hook set when it waits for approval, and
/// approves it if the user says so.
async fn hooks_step(
    conn: &crate::client::Connection,
    terminal: &mut Terminal<CrosstermBackend<Stdout>>,
    keys: &mut EventStream,
    scope: &Scope,
    draft: &mut String,
) -> Result<HooksStep, TuiError> {
    let Scope::Workspace(dir) = scope else {
        return Ok(HooksStep::Say(None));
    };
    let set = match crate::hook_set::pending(conn, dir).await {
        Ok(Some(set)) => set,
        Ok(None) => return Ok(HooksStep::Say(None)),
        // An older daemon has no hooks to ask about.
        Err(TuiError::Daemon(m)) if m.starts_with("Unknown method") => {
            return Ok(HooksStep::Say(None));
        }
        Err(e) => {
            let said = format!("cannot read the workspace's hooks: {e}");
            return Ok(HooksStep::Say(Some(Err(said))));
        }
    };
    let (choice, typed) = ask_hooks(terminal, keys, set.clone(), std::mem::take(draft)).await?;
    *draft = typed;
    Ok(HooksStep::Say(Some(match choice {
        HookChoice::Run => match crate::hook_set::approve(conn, &set).await {
            Ok(()) => Ok(format!("Hooks approved: {} will run.", hooks_count(&set))),
            Err(e) => Err(format!("cannot approve the hooks: {e}")),
        },
        HookChoice::Off => {
            Ok("The workspace's hooks are off for this chat (asked again next time).".into())
        }
        HookChoice::Quit => return Ok(HooksStep::Quit),
    })))
}

/// Shows the workspace's hooks and asks whether to run them until a choice
/// is made; the choice, and the text typed meanwhile (kept for the chat).
async fn ask_hooks(
    terminal: &mut Terminal<CrosstermBackend<Stdout>>,
    keys: &mut EventStream,
    set: HookSet,
    draft: String,
) -> Result<(HookChoice, String), TuiError> {
    let mut prompt = HookPrompt::new(set, draft);
    loop {
        terminal
            .draw(|f| crate::hook_set::draw(f, &prompt))
            .map_err(TuiError::Terminal)?;
        match keys.next().await {
            Some(Ok(Event::Key(k))) if k.kind != KeyEventKind::Release => {
                if let Some(choice) = prompt.key(k) {
                    terminal.clear().map_err(TuiError::Terminal)?;
                    return Ok((choice, prompt.draft));
                }
            }
            Some(Ok(Event::Paste(text))) => prompt.draft.push_str(&text),
            Some(Ok(_)) => {}
            Some(Err(e)) => return Err(TuiError::Terminal(e)),
            None => return Ok((HookChoice::Quit, prompt.draft)),
        }
    }
}

/// "1 hook" / "3 hooks".
fn hooks_count(set: &HookSet) -> String {
    match set.hooks.len() {
        1 => "1 hook".into(),
        n => format!("{n} hooks"),
    }
}

/// One frame, as a synchronized update: the terminal shows it whole (no
/// tearing mid-stream), and a frame's end is countable (`seekclaw-bench tui`).
fn draw(terminal: &mut Terminal<CrosstermBackend<Stdout>>, app: &mut App) -> Result<(), TuiError> {
    queue!(terminal.backend_mut(), BeginSynchronizedUpdate).map_err(TuiError::Terminal)?;
    terminal
        .draw(|f| render::draw(f, app))
        .map_err(TuiError::Terminal)?;
    execute!(terminal.backend_mut(), EndSynchronizedUpdate).map_err(TuiError::Terminal)
}

/// Connects again (see [`Daemon::reconnect`]) and reloads the session from
/// the store; false when no daemon could be reached (the UI stays disconnected).
async fn reconnect(daemon: &mut Daemon, opts: &ChatOptions, scope: &Scope, app: &mut App) -> bool {
    if let Err(e) = daemon.reconnect(&opts.home).await {
        app.error(format!(
            "Cannot reach the daemon: {e}. /quit and start again."
        ));
        return false;
    }
    let detail = match &app.session_id {
        Some(id) => {
            let choice = crate::SessionChoice::Id(id.clone());
            match open_session(&daemon.conn, scope, &choice).await {
                Ok(detail) => detail,
                Err(e) => {
                    app.error(format!("cannot reload the session: {e}"));
                    None
                }
            }
        }
        None => None,
    };
    app.on_reconnect(detail);
    if let Err(e) = watch_session(daemon, scope, app).await {
        app.error(format!("cannot watch the session: {e}"));
    }
    true
}
