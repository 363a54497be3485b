//! What the approval check and the tool hooks need from the turn for one
//! call: where events and hook records go, the tool context, the user's
//! policy, and the call itself.

use std::sync::{Mutex, PoisonError};

use seekclaw_tools::{Tool, ToolContext};
use serde_json::Value;

use crate::events::AgentEvent;

/// What the wait needs from the turn.
pub(crate) struct AskCx<'a> {
    pub(crate) events: &'a tokio::sync::mpsc::UnboundedSender<AgentEvent>,
    pub(crate) ctx: &'a ToolContext,
    pub(crate) store: &'a seekclaw_store::Store,
    pub(crate) scope: &'a str,
    pub(crate) session_id: &'a str,
    /// The turn's owner id (its hook records' owner).
    pub(crate) owner: &'a str,
    /// The user's rules and hooks (`None`: none apply).
    pub(crate) policy: Option<&'a crate::hooks::TurnPolicy>,
    /// Set by a hook that said `continue: false`: the turn ends after the step.
    pub(crate) stop: &'a Mutex<Option<String>>,
}

impl AskCx<'_> {
    pub(crate) fn sink(&self) -> crate::hooks::Sink<'_> {
        crate::hooks::Sink {
            events: self.events,
            store: self.store,
            scope: self.scope,
            session_id: self.session_id,
            owner: self.owner,
            cancel: Some(&self.ctx.cancel),
        }
    }

    /// A hook asked the turn to stop.
    pub(crate) fn request_stop(&self, why: String) {
        let mut stop = self.stop.lock().unwrap_or_else(PoisonError::into_inner);
        stop.get_or_insert(why);
    }
}

/// One call put to the approval check.
pub(crate) struct Asked<'a> {
    pub(crate) call_id: &'a str,
    pub(crate) tool: &'a dyn Tool,
    pub(crate) args: &'a Value,
    pub(crate) summary: &'a str,
    /// What a `PreToolUse` hook decided (allow or ask); deny never gets here.
    pub(crate) hook: Option<seekclaw_policy::Verdict>,
}
