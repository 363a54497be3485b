//! One running language server: its process (in a process group of its
//! own), a reader and a writer task, requests, and the documents kept open
//! in it. Writes go through one queue so a frame is never cut in half when
//! an edit stops waiting.

use std::collections::{HashMap, VecDeque};
use std::path::Path;
use std::process::Stdio;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::Duration;

use lsp_types::{Diagnostic, PublishDiagnosticsParams, Url};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{ChildStdin, ChildStdout, Command};
use tokio::sync::{mpsc, oneshot, watch};
use tokio::time::{Instant, timeout, timeout_at};

use crate::framing::{read_message, write_message};
use crate::spec::ServerSpec;

/// How long a server may take to answer `initialize` before the start
/// counts as failed (a hung server must not stay "starting" for ever).
const INIT_TIMEOUT: Duration = Duration::from_secs(60);

/// Lines of the server's stderr kept for the message when it dies.
const STDERR_LINES: usize = 20;

/// Why a server did not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The program is not there.
    #[error("{0} not found")]
    Missing(String),
    /// Anything else (spawn refused, `initialize` failed or timed out, exited).
    #[error("{0}")]
    Failed(String),
}

/// The end of one edit's exchange with a server.
#[derive(Debug)]
pub(crate) enum Exchange {
    /// Diagnostics before and after the edit.
    Done {
        baseline: Vec<Diagnostic>,
        after: Vec<Diagnostic>,
    },
    /// The bound passed first.
    TimedOut,
    /// The server died.
    Exited,
}

/// A running server.
pub(crate) struct Server {
    /// Its pid, also its process group.
    pub(crate) pid: u32,
    inner: Arc<Inner>,
    /// `Some(include_text)` when it wants `didSave`.
    save: Option<bool>,
    /// One edit's exchange at a time (baseline and result must pair up).
    edit: tokio::sync::Mutex<()>,
}

struct Inner {
    outbox: mpsc::UnboundedSender<Vec<u8>>,
    shared: Mutex<Shared>,
    /// Bumped on every publish and when the server dies.
    changed: watch::Sender<u64>,
    next_id: AtomicI64,
    settings: Option<Value>,
    root_uri: Url,
}

#[derive(Default)]
struct Shared {
    pending: HashMap<i64, oneshot::Sender<Result<Value, String>>>,
    docs: HashMap<Url, Doc>,
    published: HashMap<Url, Published>,
    /// Orders what was sent and what was published.
    seq: u64,
    dead: Option<String>,
    stderr: VecDeque<String>,
}

struct Doc {
    version: i32,
    text: String,
    sent_seq: u64,
}

struct Published {
    version: Option<i32>,
    seq: u64,
    diagnostics: Vec<Diagnostic>,
}

fn lock(m: &Mutex<Shared>) -> MutexGuard<'_, Shared> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Server {
    /// Starts `spec` in `root` and initializes it.
    pub(crate) async fn start(spec: &ServerSpec, root: &Path) -> Result<Server, StartError> {
        let root_uri = Url::from_directory_path(root)
            .map_err(|()| StartError::Failed(format!("{} is not absolute", root.display())))?;
        let mut command = Command::new(spec.program());
        command
            .args(&spec.argv[1..])
            .envs(&spec.env)
            .current_dir(root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        #[cfg(unix)]
        command.process_group(0);
        let mut child = command.spawn().map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => StartError::Missing(spec.program().to_string()),
            _ => StartError::Failed(format!("cannot start {}: {e}", spec.program())),
        })?;
        let pid = child.id().unwrap_or(0);
        let (stdin, stdout, stderr) =
            match (child.stdin.take(), child.stdout.take(), child.stderr.take()) {
                (Some(i), Some(o), Some(e)) => (i, o, e),
                _ => return Err(StartError::Failed("no pipes to the server".into())),
            };
        let (outbox, queue) = mpsc::unbounded_channel();
        let inner = Arc::new(Inner {
            outbox,
            shared: Mutex::default(),
            changed: watch::channel(0).0,
            next_id: AtomicI64::new(1),
            settings: spec.settings.clone(),
            root_uri: root_uri.clone(),
        });
        tokio::spawn(write_loop(stdin, queue, Arc::downgrade(&inner)));
        tokio::spawn(read_loop(stdout, inner.clone()));
        tokio::spawn(stderr_loop(stderr, Arc::downgrade(&inner)));
        let reaper = Arc::downgrade(&inner);
        tokio::spawn(async move {
            let why = match child.wait().await {
                Ok(status) => format!("exited ({status})"),
                Err(e) => format!("lost ({e})"),
            };
            if let Some(inner) = reaper.upgrade() {
                inner.die(why);
            }
        });
        let mut server = Server {
            pid,
            inner,
            save: None,
            edit: tokio::sync::Mutex::new(()),
        };
        match timeout(INIT_TIMEOUT, server.initialize(spec, root_uri)).await {
            Ok(Ok(save)) => server.save = save,
            Ok(Err(e)) => {
                server.kill();
                return Err(StartError::Failed(e));
            }
            Err(_) => {
                server.kill();
                return Err(StartError::Failed(format!(
                    "no answer to initialize in {} s",
                    INIT_TIMEOUT.as_secs()
                )));
            }
        }
        Ok(server)
    }

    /// `initialize` and `initialized`; whether it wants `didSave`.
    async fn initialize(&self, spec: &ServerSpec, root_uri: Url) -> Result<Option<bool>, String> {
        let name = root_uri
            .path_segments()
            .and_then(|mut s| s.rfind(|p| !p.is_empty()))
            .unwrap_or("workspace")
            .to_string();
        let mut params = json!({
            "processId": std::process::id(),
            "clientInfo": {"name": "seekclaw", "version": env!("CARGO_PKG_VERSION")},
            "rootUri": root_uri,
            "rootPath": root_uri.to_file_path().ok(),
            "workspaceFolders": [{"uri": root_uri, "name": name}],
            "capabilities": {
                "textDocument": {
                    "synchronization": {"didSave": true, "dynamicRegistration": false},
                    "publishDiagnostics": {"versionSupport": true, "relatedInformation": false},
                },
                "workspace": {"configuration": true, "workspaceFolders": true},
                "window": {"workDoneProgress": false},
            },
        });
        if let Some(options) = &spec.initialization_options {
            params["initializationOptions"] = options.clone();
        }
        let result = self.request("initialize", params).await?;
        self.notify("initialized", json!({}));
        let sync = &result["capabilities"]["textDocumentSync"];
        Ok(match &sync["save"] {
            Value::Bool(true) => Some(false),
            Value::Object(o) => Some(o.get("includeText") == Some(&Value::Bool(true))),
            _ => None,
        })
    }

    async fn request(&self, method: &str, params: Value) -> Result<Value, String> {
        let id = self.inner.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        {
            let mut shared = lock(&self.inner.shared);
            if let Some(why) = &shared.dead {
                return Err(why.clone());
            }
            shared.pending.insert(id, tx);
        }
        self.inner
            .send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        match rx.await {
            Ok(answer) => answer,
            Err(_) => Err(self.why_dead()),
        }
    }

    fn notify(&self, method: &str, params: Value) {
        self.inner
            .send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Why it died ("" while it lives), with its last stderr line.
    pub(crate) fn why_dead(&self) -> String {
        let shared = lock(&self.inner.shared);
        let Some(why) = &shared.dead else {
            return String::new();
        };
        match shared.stderr.iter().rev().find(|l| !l.trim().is_empty()) {
            Some(line) => format!("{why}; stderr: {}", line.trim()),
            None => why.clone(),
        }
    }

    pub(crate) fn is_dead(&self) -> bool {
        lock(&self.inner.shared).dead.is_some()
    }

    /// Sends the edit of `uri` (`before` → `after`) and waits until
    /// `deadline` for the diagnostics of both texts. The server is left
    /// holding `after`, even when the wait ends early.
    pub(crate) async fn exchange(
        &self,
        uri: &Url,
        language_id: &str,
        before: &str,
        after: &str,
        deadline: Instant,
    ) -> Exchange {
        let Ok(_one) = timeout_at(deadline, self.edit.lock()).await else {
            return Exchange::TimedOut;
        };
        let open = lock(&self.inner.shared)
            .docs
            .get(uri)
            .map(|doc| doc.text == before);
        match open {
            None => self.open(uri, language_id, before),
            // Changed behind our back (a shell command, the user): the
            // baseline is the text just before this edit.
            Some(false) => self.change(uri, before),
            Some(true) => {}
        }
        let baseline = self.wait_current(uri, deadline).await;
        self.change(uri, after);
        if let Some(include_text) = self.save {
            let mut params = json!({"textDocument": {"uri": uri}});
            if include_text {
                params["text"] = Value::String(after.to_string());
            }
            self.notify("textDocument/didSave", params);
        }
        let baseline = match baseline {
            Ok(b) => b,
            Err(end) => return end,
        };
        match self.wait_current(uri, deadline).await {
            Ok(after) => Exchange::Done { baseline, after },
            Err(end) => end,
        }
    }

    fn open(&self, uri: &Url, language_id: &str, text: &str) {
        let mut shared = lock(&self.inner.shared);
        shared.seq += 1;
        let doc = Doc {
            version: 1,
            text: text.to_string(),
            sent_seq: shared.seq,
        };
        shared.docs.insert(uri.clone(), doc);
        self.inner.send(
            &json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
                "textDocument": {"uri": uri, "languageId": language_id, "version": 1, "text": text}
            }}),
        );
    }

    fn change(&self, uri: &Url, text: &str) {
        let mut shared = lock(&self.inner.shared);
        shared.seq += 1;
        let seq = shared.seq;
        let Some(doc) = shared.docs.get_mut(uri) else {
            return;
        };
        doc.version += 1;
        doc.text = text.to_string();
        doc.sent_seq = seq;
        let version = doc.version;
        // Whole text, no range: valid whatever sync kind the server asked for.
        self.inner.send(
            &json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [{"text": text}]
            }}),
        );
    }

    /// The diagnostics published for the text last sent of `uri`.
    async fn wait_current(
        &self,
        uri: &Url,
        deadline: Instant,
    ) -> Result<Vec<Diagnostic>, Exchange> {
        let mut changed = self.inner.changed.subscribe();
        loop {
            {
                let shared = lock(&self.inner.shared);
                if shared.dead.is_some() {
                    return Err(Exchange::Exited);
                }
                if let (Some(doc), Some(p)) = (shared.docs.get(uri), shared.published.get(uri)) {
                    let current = match p.version {
                        Some(v) => v >= doc.version,
                        None => p.seq > doc.sent_seq,
                    };
                    if current {
                        return Ok(p.diagnostics.clone());
                    }
                }
            }
            match timeout_at(deadline, changed.changed()).await {
                Ok(Ok(())) => {}
                Ok(Err(_)) => return Err(Exchange::Exited),
                Err(_) => return Err(Exchange::TimedOut),
            }
        }
    }

    /// Asks it to shut down, then ends its process group.
    pub(crate) async fn stop(&self) {
        if !self.is_dead() {
            let _ = timeout(
                Duration::from_millis(500),
                self.request("shutdown", Value::Null),
            )
            .await;
            self.notify("exit", Value::Null);
            let _ = timeout(Duration::from_millis(300), async {
                let mut changed = self.inner.changed.subscribe();
                while !self.is_dead() {
                    if changed.changed().await.is_err() {
                        break;
                    }
                }
            })
            .await;
        }
        self.kill();
    }

    /// SIGKILL to its process group (what is left of it).
    pub(crate) fn kill(&self) {
        kill_group(self.pid);
        self.inner.die("stopped".into());
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // A server nobody holds any more must not outlive us.
        if !self.is_dead() {
            kill_group(self.pid);
        }
    }
}

/// SIGKILL to the group; never group 0 or 1.
fn kill_group(pgid: u32) {
    #[cfg(unix)]
    if let Some(pid) = i32::try_from(pgid)
        .ok()
        .filter(|p| *p > 1)
        .and_then(rustix::process::Pid::from_raw)
    {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
}

impl Inner {
    fn send(&self, message: &Value) {
        if let Ok(body) = serde_json::to_vec(message) {
            let _ = self.outbox.send(body);
        }
    }

    fn die(&self, why: String) {
        let mut shared = lock(&self.shared);
        if shared.dead.is_none() {
            shared.dead = Some(why);
        }
        shared.pending.clear();
        drop(shared);
        self.changed.send_modify(|n| *n += 1);
    }

    fn handle(&self, body: &[u8]) {
        let Ok(message) = serde_json::from_slice::<Value>(body) else {
            return;
        };
        let method = message.get("method").and_then(Value::as_str);
        match (method, message.get("id")) {
            (Some(method), Some(id)) => self.answer(method, id.clone(), &message["params"]),
            (Some("textDocument/publishDiagnostics"), None) => {
                if let Ok(params) =
                    serde_json::from_value::<PublishDiagnosticsParams>(message["params"].clone())
                {
                    self.published(params);
                }
            }
            (None, Some(id)) => {
                let Some(id) = id.as_i64() else { return };
                let answer = match message.get("error") {
                    Some(e) => Err(e["message"].as_str().unwrap_or("error").to_string()),
                    None => Ok(message.get("result").cloned().unwrap_or(Value::Null)),
                };
                if let Some(tx) = lock(&self.shared).pending.remove(&id) {
                    let _ = tx.send(answer);
                }
            }
            _ => {}
        }
    }

    fn published(&self, params: PublishDiagnosticsParams) {
        let mut shared = lock(&self.shared);
        shared.seq += 1;
        let seq = shared.seq;
        shared.published.insert(
            params.uri,
            Published {
                version: params.version,
                seq,
                diagnostics: params.diagnostics,
            },
        );
        drop(shared);
        self.changed.send_modify(|n| *n += 1);
    }

    /// Answers a request of the server's.
    fn answer(&self, method: &str, id: Value, params: &Value) {
        let result = match method {
            "workspace/configuration" => {
                let items = params["items"].as_array().cloned().unwrap_or_default();
                Value::Array(
                    items
                        .iter()
                        .map(|item| self.setting(item["section"].as_str()))
                        .collect(),
                )
            }
            "workspace/workspaceFolders" => json!([{"uri": self.root_uri, "name": "workspace"}]),
            "window/workDoneProgress/create"
            | "client/registerCapability"
            | "client/unregisterCapability"
            | "window/showMessageRequest"
            | "window/showDocument"
            | "workspace/diagnostic/refresh"
            | "workspace/semanticTokens/refresh"
            | "workspace/inlayHint/refresh"
            | "workspace/codeLens/refresh" => Value::Null,
            _ => {
                self.send(&json!({"jsonrpc": "2.0", "id": id, "error": {
                    "code": -32601, "message": format!("{method} is not supported")
                }}));
                return;
            }
        };
        self.send(&json!({"jsonrpc": "2.0", "id": id, "result": result}));
    }

    /// The configured `settings` at a dotted `section` (all of them without one).
    fn setting(&self, section: Option<&str>) -> Value {
        let Some(mut node) = self.settings.as_ref() else {
            return Value::Null;
        };
        for key in section.into_iter().flat_map(|s| s.split('.')) {
            match node.get(key) {
                Some(next) => node = next,
                None => return Value::Null,
            }
        }
        node.clone()
    }
}

async fn write_loop(
    mut stdin: ChildStdin,
    mut queue: mpsc::UnboundedReceiver<Vec<u8>>,
    inner: Weak<Inner>,
) {
    while let Some(body) = queue.recv().await {
        if let Err(e) = write_message(&mut stdin, &body).await {
            if let Some(inner) = inner.upgrade() {
                inner.die(format!("stopped reading ({e})"));
            }
            return;
        }
    }
}

async fn read_loop(stdout: ChildStdout, inner: Arc<Inner>) {
    let mut reader = BufReader::new(stdout);
    loop {
        match read_message(&mut reader).await {
            Ok(Some(body)) => inner.handle(&body),
            Ok(None) => return inner.die("closed its output".into()),
            Err(e) => return inner.die(format!("garbled output ({e})")),
        }
    }
}

async fn stderr_loop(stderr: tokio::process::ChildStderr, inner: Weak<Inner>) {
    let mut lines = BufReader::new(stderr).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let Some(inner) = inner.upgrade() else { return };
        let mut shared = lock(&inner.shared);
        if shared.stderr.len() == STDERR_LINES {
            shared.stderr.pop_front();
        }
        shared.stderr.push_back(line.chars().take(300).collect());
    }
}
