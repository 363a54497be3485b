//! Approvals: which tool calls wait for a person (the policy), the handle a
//! front end answers through ([`Approvals`]), and the wait itself. A pending
//! approval holds only its turn: it is asked before the tool runs, so no
//! write lock is held while a person thinks.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use seekclaw_config::ApprovalPolicy;
use seekclaw_store::ApprovalRule;
use seekclaw_tools::{ElicitAction, ElicitAnswer, Tool};
use serde_json::Value;
use tokio::sync::oneshot;

use seekclaw_policy::{Call, HookEvent, Verdict};

use crate::ask::{AskCx, Asked};
use crate::events::AgentEvent;
use crate::safe_command::is_safe_command;

/// A person's answer to an approval request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Run this call.
    AllowOnce,
    /// Run this call and, for the rest of the session, calls like it.
    AllowSession,
    /// Run this call and save an allow rule for calls like it (the
    /// workspace's config, or the user's for a global turn).
    AllowAlways,
    /// Do not run it; the message (if any) is what the model reads.
    Reject(Option<String>),
}

impl Decision {
    /// `allow_once`, `allow_session` or `reject` (with its message).
    pub fn parse(decision: &str, message: Option<String>) -> Option<Decision> {
        match decision.trim().to_ascii_lowercase().as_str() {
            "allow_once" => Some(Decision::AllowOnce),
            "allow_session" => Some(Decision::AllowSession),
            "allow_always" => Some(Decision::AllowAlways),
            "reject" => Some(Decision::Reject(message.filter(|m| !m.trim().is_empty()))),
            _ => None,
        }
    }
}

/// How a pending approval ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApprovalOutcome {
    /// Allowed, this call only.
    AllowOnce,
    /// Allowed for the session.
    AllowSession,
    /// Allowed, and an allow rule saved.
    AllowAlways,
    /// Rejected by the person.
    Reject,
    /// Nobody answered in time (counts as a rejection).
    Timeout,
    /// The turn was cancelled while it waited.
    Cancelled,
}

impl ApprovalOutcome {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            ApprovalOutcome::AllowOnce => "allow_once",
            ApprovalOutcome::AllowSession => "allow_session",
            ApprovalOutcome::AllowAlways => "allow_always",
            ApprovalOutcome::Reject => "reject",
            ApprovalOutcome::Timeout => "timeout",
            ApprovalOutcome::Cancelled => "cancelled",
        }
    }
}

/// What happens to a call that needs approval when nobody can answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unattended {
    /// Refuse it; the text says why nobody could answer.
    Reject(String),
    /// Run it (a schedule that says so).
    Allow,
}

/// `agent.approve` named no pending approval of this turn.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("no pending approval {0}")]
pub struct NotPending(pub String);

/// A front end's answer to a pending request: a decision on a tool call, or
/// a form's outcome for an elicitation (`decision` there: `reject` declines,
/// an allow accepts with no values).
#[derive(Debug, Clone, PartialEq)]
pub enum Response {
    /// A decision (any request).
    Decision(Decision),
    /// An elicitation's outcome; `content` is checked against its schema.
    Form {
        /// Accept, decline or cancel.
        action: ElicitAction,
        /// The values (with accept).
        content: Option<serde_json::Map<String, Value>>,
    },
}

/// Why an answer was not taken.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AnswerError {
    /// No such request is waiting.
    #[error("no pending approval {0}")]
    NotPending(String),
    /// The values do not fit the form; the request still waits.
    #[error("{0}")]
    Invalid(String),
    /// A form's outcome for a tool call's approval.
    #[error("approval {0} is a tool call's, not a form: answer it with a decision")]
    NotAForm(String),
}

/// What a pending request waits for.
enum Waiter {
    Call(oneshot::Sender<Decision>),
    Form {
        tx: oneshot::Sender<ElicitAnswer>,
        schema: Value,
    },
}

/// A turn's approval handle, shared by the turn (which asks) and its front
/// end (which answers); cheap to clone.
#[derive(Clone)]
pub struct Approvals {
    inner: Arc<Inner>,
}

struct Inner {
    /// `None`: a person answers through [`Approvals::answer`].
    unattended: Option<Unattended>,
    /// The front end can fill in forms (MCP elicitation).
    forms: bool,
    pending: Mutex<HashMap<String, Waiter>>,
    /// Set once nobody can answer any more (why): pending requests were
    /// rejected and new ones are refused at once.
    closed: Mutex<Option<String>>,
}

impl std::fmt::Debug for Approvals {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Approvals")
            .field("attended", &self.is_attended())
            .field("pending", &self.pending_ids())
            .finish()
    }
}

impl Default for Approvals {
    /// A front end that cannot ask anybody (the desktop's protocol has no
    /// approvals): calls that need approval are refused, never left waiting.
    fn default() -> Self {
        Approvals::unattended(Unattended::Reject(
            // Read by a desktop user (and relayed by the model): no wire
            // terms, and where the policy is changed.
            "this app cannot ask for approvals (`seekclaw chat` can). To let such calls run \
             without asking, change the approval policy: `agent.approvalPolicy` in seekclaw's \
             config.json, or this session's own (`session.update` with `approvalPolicy`; \
             `never` asks for nothing)"
                .into(),
        ))
    }
}

impl Approvals {
    /// A person answers the turn's requests.
    pub fn attended() -> Self {
        Approvals::with(None, false)
    }

    /// A person answers, and can fill in an MCP server's forms
    /// (elicitation); with the others, a server's questions are declined.
    pub fn attended_with_forms() -> Self {
        Approvals::with(None, true)
    }

    /// Nobody answers: `what` decides every request at once.
    pub fn unattended(what: Unattended) -> Self {
        Approvals::with(Some(what), false)
    }

    fn with(unattended: Option<Unattended>, forms: bool) -> Self {
        let forms = forms && unattended.is_none();
        Approvals {
            inner: Arc::new(Inner {
                unattended,
                forms,
                pending: Mutex::new(HashMap::new()),
                closed: Mutex::new(None),
            }),
        }
    }

    /// Whether a person answers (approval events are sent).
    pub fn is_attended(&self) -> bool {
        self.inner.unattended.is_none()
    }

    /// Whether a person can fill in forms for this turn.
    pub fn answers_forms(&self) -> bool {
        self.inner.forms && self.closed().is_none()
    }

    /// Decides the pending request `approval_id`.
    pub fn answer(&self, approval_id: &str, decision: Decision) -> Result<(), NotPending> {
        self.respond(approval_id, Response::Decision(decision))
            .map_err(|_| NotPending(approval_id.to_string()))
    }

    /// Answers the pending request `approval_id`. Values that do not fit
    /// its form are refused and the request keeps waiting.
    pub fn respond(&self, approval_id: &str, response: Response) -> Result<(), AnswerError> {
        let not_pending = || AnswerError::NotPending(approval_id.to_string());
        let mut pending = self.pending();
        // Checked before the request is taken: wrong values leave it waiting.
        let form = match (pending.get(approval_id), &response) {
            (None, _) => return Err(not_pending()),
            (Some(Waiter::Call(_)), Response::Form { .. }) => {
                return Err(AnswerError::NotAForm(approval_id.to_string()));
            }
            (Some(Waiter::Call(_)), Response::Decision(_)) => None,
            (Some(Waiter::Form { schema, .. }), response) => {
                Some(crate::elicitation::form_answer(schema, response)?)
            }
        };
        // A turn that stopped waiting just now dropped its receiver: the
        // request is no longer pending.
        let sent = match (pending.remove(approval_id), response, form) {
            (Some(Waiter::Call(tx)), Response::Decision(d), _) => tx.send(d).is_ok(),
            (Some(Waiter::Form { tx, .. }), _, Some(answer)) => tx.send(answer).is_ok(),
            _ => false,
        };
        if sent { Ok(()) } else { Err(not_pending()) }
    }

    /// Nobody will answer any more (`why`, e.g. the controller's input
    /// ended): pending requests are rejected, later ones refused at once.
    pub fn close(&self, why: &str) {
        *self
            .inner
            .closed
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(why.to_string());
        let pending: Vec<_> = self.pending().drain().collect();
        for (_, waiter) in pending {
            match waiter {
                Waiter::Call(tx) => {
                    let _ = tx.send(Decision::Reject(Some(format!(
                        "(nobody can answer: {why})"
                    ))));
                }
                Waiter::Form { tx, .. } => {
                    let _ = tx.send(ElicitAnswer::cancel());
                }
            }
        }
    }

    fn closed(&self) -> Option<String> {
        self.inner
            .closed
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The ids of the requests waiting for a decision.
    pub fn pending_ids(&self) -> Vec<String> {
        self.pending().keys().cloned().collect()
    }

    fn pending(&self) -> MutexGuard<'_, HashMap<String, Waiter>> {
        self.inner
            .pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Registers a request; dropping the guard withdraws it.
    fn open(&self, approval_id: &str) -> (oneshot::Receiver<Decision>, Withdraw<'_>) {
        let (tx, rx) = oneshot::channel();
        self.pending()
            .insert(approval_id.to_string(), Waiter::Call(tx));
        (rx, self.withdraw(approval_id))
    }

    /// Registers a form (an elicitation); dropping the guard withdraws it.
    pub(crate) fn open_form(
        &self,
        approval_id: &str,
        schema: Value,
    ) -> Option<(oneshot::Receiver<ElicitAnswer>, Withdraw<'_>)> {
        let (tx, rx) = oneshot::channel();
        let mut pending = self.pending();
        // Checked under the lock `close` drains: a form opened after it
        // would wait for nobody.
        if self.closed().is_some() {
            return None;
        }
        pending.insert(approval_id.to_string(), Waiter::Form { tx, schema });
        drop(pending);
        Some((rx, self.withdraw(approval_id)))
    }

    fn withdraw(&self, approval_id: &str) -> Withdraw<'_> {
        Withdraw {
            approvals: self,
            id: approval_id.to_string(),
        }
    }
}

/// Removes a request that ended without an answer (timeout, cancel).
pub(crate) struct Withdraw<'a> {
    approvals: &'a Approvals,
    id: String,
}

impl Drop for Withdraw<'_> {
    fn drop(&mut self) {
        self.approvals.pending().remove(&self.id);
    }
}

/// The policy in effect: the session's own (the user set it with
/// `session.update`), else the config's, which a workspace's
/// `.seekclaw/config.json` may only tighten: that file comes with the code
/// (a cloned repository, or the agent's own writes), so it must not lift the
/// user's approvals.
pub fn effective_policy(
    config: &seekclaw_config::Config,
    workspace: Option<&seekclaw_config::WorkspaceConfig>,
    session: Option<&str>,
) -> ApprovalPolicy {
    let inherited = config.agent.approval_policy.max(
        workspace
            .and_then(|w| w.approval_policy)
            .unwrap_or_default(),
    );
    session
        .and_then(ApprovalPolicy::parse_strict)
        .unwrap_or(inherited)
}

/// Whether `policy` asks before `tool` runs with `args`.
pub fn asks(policy: ApprovalPolicy, tool: &dyn Tool, args: &Value) -> bool {
    let def = tool.definition();
    // Stopping one of the session's own jobs changes nothing of the user's.
    if def.name == "bash_stop" {
        return false;
    }
    match policy {
        ApprovalPolicy::Never => false,
        ApprovalPolicy::OnRequest => {
            def.flags.mutating
                && !(def.name == "bash"
                    && args["command"].as_str().is_some_and(is_safe_command)
                    && args["run_in_background"].as_bool() != Some(true))
        }
        ApprovalPolicy::Untrusted => def.flags.mutating || def.flags.network,
    }
}

/// The session rule an `allow_session` adds: a shell command exactly, any
/// other tool as a whole.
fn rule_for(tool: &str, args: &Value) -> ApprovalRule {
    ApprovalRule {
        tool: tool.to_string(),
        command: (tool == "bash").then(|| args["command"].as_str().unwrap_or_default().to_string()),
    }
}

fn rule_allows(rule: &ApprovalRule, tool: &str, args: &Value) -> bool {
    rule.tool == tool
        && rule
            .command
            .as_deref()
            .is_none_or(|c| Some(c) == args["command"].as_str())
}

/// One turn's approvals: the policy and rules read at its start, its handle.
pub(crate) struct TurnApprovals {
    pub(crate) policy: ApprovalPolicy,
    pub(crate) timeout: Duration,
    pub(crate) handle: Approvals,
    rules: Mutex<Vec<ApprovalRule>>,
}

impl TurnApprovals {
    pub(crate) fn new(
        policy: ApprovalPolicy,
        timeout: Duration,
        handle: Approvals,
        rules: Vec<ApprovalRule>,
    ) -> Self {
        TurnApprovals {
            policy,
            timeout,
            handle,
            rules: Mutex::new(rules),
        }
    }

    fn rules(&self) -> MutexGuard<'_, Vec<ApprovalRule>> {
        self.rules.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Decides a call: the user's rules first (deny, ask, allow), then a
    /// `PreToolUse` hook's allow or ask, then the approval policy; a call
    /// that must be asked goes to the `PermissionRequest` hooks, then to a
    /// person. `Err` is the result the model reads for a call that must not
    /// run; `Ok(Some(args))`: it runs with the arguments a hook gave it.
    pub(crate) async fn check(
        &self,
        cx: &AskCx<'_>,
        a: &Asked<'_>,
    ) -> Result<Option<Value>, String> {
        let name = a.tool.definition().name.as_str();
        let ruled = cx.policy.and_then(|p| {
            let call = Call {
                tool: name,
                args: a.args,
                cwd: &cx.ctx.workspace_root,
                workspace: p.workspace.as_deref(),
            };
            p.policy
                .rules
                .decide(&call)
                .map(|m| (m.verdict, rule_label(m.rule)))
        });
        if let Some((Verdict::Deny, rule)) = &ruled {
            return Err(format!(
                "This call is denied by the user's permission rule {rule}; it was not run. \
                 Do not retry it: take another approach, or ask the user to change the rule."
            ));
        }
        // The files that hold the workspace's own rules and hooks are asked
        // about even where an allow rule covers edits: a turn must not widen
        // its own permissions unseen.
        let guarded = self.policy != seekclaw_config::ApprovalPolicy::Never
            && writes_policy_file(name, a.args, &cx.ctx.workspace_root);
        let must_ask =
            matches!(ruled, Some((Verdict::Ask, _))) || a.hook == Some(Verdict::Ask) || guarded;
        if !must_ask
            && (matches!(ruled, Some((Verdict::Allow, _)))
                || a.hook == Some(Verdict::Allow)
                || !asks(self.policy, a.tool, a.args)
                || self.rules().iter().any(|r| rule_allows(r, name, a.args)))
        {
            return Ok(None);
        }
        let why = match &ruled {
            Some((Verdict::Ask, rule)) => format!("the user's permission rule {rule} asks for it"),
            _ if a.hook == Some(Verdict::Ask) => "a PreToolUse hook asks for it".to_string(),
            _ if guarded => "it changes the workspace's own permission rules or hooks".to_string(),
            _ => format!("approval policy `{}`", self.policy.as_str()),
        };
        match &self.handle.inner.unattended {
            Some(Unattended::Allow) if !must_ask => return Ok(None),
            Some(Unattended::Allow) => {
                return Err(format!(
                    "This call needs a person's approval ({why}), and this run has nobody to ask; it was not run."
                ));
            }
            Some(Unattended::Reject(nobody)) => {
                return Err(format!(
                    "This call needs approval ({why}) and was not run: {nobody}."
                ));
            }
            None => {}
        }
        if let Some(closed) = self.handle.closed() {
            return Err(format!(
                "This call needs a person's approval ({why}), and nobody can answer ({closed}); it was not run."
            ));
        }
        if let Some(decided) = permission_hooks(cx, a).await {
            return decided;
        }
        self.ask_person(cx, a).await.map(|()| None)
    }

    async fn ask_person(&self, cx: &AskCx<'_>, a: &Asked<'_>) -> Result<(), String> {
        let name = a.tool.definition().name.as_str();
        let always = cx
            .policy
            .and_then(|p| crate::always::rules_for(p, name, a.args, &cx.ctx.workspace_root));
        let approval_id = format!("ap_{}", &uuid::Uuid::new_v4().simple().to_string()[..12]);
        let (rx, _withdraw) = self.handle.open(&approval_id);
        let _ = cx.events.send(AgentEvent::ApprovalRequested {
            approval_id: approval_id.clone(),
            call_id: a.call_id.to_string(),
            tool: name.to_string(),
            summary: a.summary.to_string(),
            arguments: a.args.clone(),
            diff: a.tool.preview(a.args, cx.ctx),
            always_rule: always.as_ref().map(|al| al.rules.join(", ")),
            always_target: always.as_ref().map(|al| al.target.to_string()),
        });
        crate::always::notify(cx, a);
        let decided = tokio::select! {
            d = rx => d.ok(),
            _ = cx.ctx.cancel.cancelled() => None,
            _ = tokio::time::sleep(self.timeout) => None,
        };
        // Without a rule to save, "always" is this session's allowance.
        let decided = match (decided, &always) {
            (Some(Decision::AllowAlways), None) => Some(Decision::AllowSession),
            (d, _) => d,
        };
        let outcome = match &decided {
            Some(Decision::AllowOnce) => ApprovalOutcome::AllowOnce,
            Some(Decision::AllowSession) => ApprovalOutcome::AllowSession,
            Some(Decision::AllowAlways) => ApprovalOutcome::AllowAlways,
            Some(Decision::Reject(_)) => ApprovalOutcome::Reject,
            None if cx.ctx.cancel.is_cancelled() => ApprovalOutcome::Cancelled,
            None => ApprovalOutcome::Timeout,
        };
        let _ = cx.events.send(AgentEvent::ApprovalResolved {
            approval_id,
            call_id: a.call_id.to_string(),
            outcome,
        });
        match decided {
            Some(Decision::AllowOnce) => Ok(()),
            Some(Decision::AllowSession) => {
                self.allow_for_session(cx, name, a.args).await;
                Ok(())
            }
            Some(Decision::AllowAlways) => {
                self.allow_for_session(cx, name, a.args).await;
                if let (Some(p), Some(al)) = (cx.policy, always) {
                    crate::always::save(p, al).await;
                }
                Ok(())
            }
            Some(Decision::Reject(message)) => Err(match message {
                Some(m) => {
                    format!("The user rejected this call; it was not run. The user said: {m}")
                }
                None => "The user rejected this call; it was not run. Do not retry it unchanged: \
                         take another approach or ask the user."
                    .to_string(),
            }),
            None if cx.ctx.cancel.is_cancelled() => Err("Cancelled before this tool ran.".into()),
            None => Err(format!(
                "Nobody approved this call within {} s (agent.approvalTimeoutSeconds); it was not run.",
                self.timeout.as_secs()
            )),
        }
    }

    /// Remembers (and keeps with the session) that calls like this one run.
    async fn allow_for_session(&self, cx: &AskCx<'_>, name: &str, args: &Value) {
        let rule = rule_for(name, args);
        self.rules().push(rule.clone());
        let store = cx.store.clone();
        let (scope, id) = (cx.scope.to_string(), cx.session_id.to_string());
        // The call runs either way; a rule that could not be kept
        // only means the next such call asks again.
        let kept =
            crate::blocking::run_now(move || store.add_session_approval_rule(&scope, &id, &rule))
                .await;
        if let Ok(Err(e)) = kept {
            tracing::warn!("approval rule not saved: {e}");
        }
    }
}

/// Whether a file tool's call writes one of the workspace's policy files
/// (`.seekclaw/config.json`, `.claude/settings.json`, `.claude/settings.local.json`).
fn writes_policy_file(tool: &str, args: &Value, root: &std::path::Path) -> bool {
    if !matches!(
        tool,
        "edit_file" | "multi_edit" | "write_file" | "remove" | "apply_patch"
    ) {
        return false;
    }
    let policy_files = [
        root.join(".seekclaw").join("config.json"),
        root.join(".claude").join("settings.json"),
        root.join(".claude").join("settings.local.json"),
    ];
    seekclaw_policy::names::file_paths(tool, args)
        .iter()
        .any(|path| {
            let abs = seekclaw_policy::names::absolute(root, path);
            policy_files.iter().any(|p| p == std::path::Path::new(&abs))
        })
}

/// `` `Bash(rm -rf:*)` (user rules, ~/.seekclaw/config.json) ``
fn rule_label(rule: &seekclaw_policy::Rule) -> String {
    format!(
        "`{}` ({} rules, {})",
        rule.text,
        rule.layer.as_str(),
        rule.file.display()
    )
}

/// The `PermissionRequest` hooks' decision, if they made one.
async fn permission_hooks(cx: &AskCx<'_>, a: &Asked<'_>) -> Option<Result<Option<Value>, String>> {
    let p = cx.policy?;
    if !p.wants(HookEvent::PermissionRequest) {
        return None;
    }
    let name = a.tool.definition().name.as_str();
    let claude = seekclaw_policy::names::claude_name(name);
    let input = seekclaw_policy::names::claude_input(name, a.args, &cx.ctx.workspace_root);
    let v = p
        .fire(
            &cx.sink(),
            HookEvent::PermissionRequest,
            &[claude, name],
            crate::hooks::fields([
                ("tool_name", Value::from(claude)),
                ("tool_input", input),
                ("tool_use_id", Value::from(a.call_id)),
                ("seekclaw_tool_name", Value::from(name)),
            ]),
            crate::hooks::About {
                call_id: Some(a.call_id),
                tool: Some(claude),
            },
        )
        .await;
    if let Some(why) = v.stop {
        cx.request_stop(why);
    }
    if let Some(reason) = v.block {
        return Some(Err(format!(
            "A PermissionRequest hook refused this call; it was not run: {reason}"
        )));
    }
    match v.permission {
        Some((Verdict::Allow, _)) => Some(Ok(v
            .updated_input
            .map(|u| seekclaw_policy::names::our_input(name, a.args, &u)))),
        Some((Verdict::Deny, why)) => Some(Err(format!(
            "A PermissionRequest hook refused this call; it was not run{}",
            why.map(|w| format!(": {w}")).unwrap_or_default()
        ))),
        _ => None,
    }
}

#[cfg(test)]
#[path = "approval_tests.rs"]
mod tests;
