//! `checkpoint.*`, `session.rewind`, `session.fork` (ours, additive): the
//! engine's checkpoints of a session's workspace, and going back to (or
//! branching off at) one of the session's user messages.
//!
//! Every `seq` is a session-log event seq: rewind and fork take a user
//! message's (`session.get`'s message `seq`, `session.timeline`'s), and
//! `checkpoint.diff` a checkpoint's (`checkpoint.list`'s `seq`). The result
//! shapes are the engine's, described here field for field.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{ImageAttachment, Scope, ScopeParams, SessionHeader};
use crate::adapter::{FieldMessage, Required, Strict};

/// The one message for a missing or malformed `seq` of a rewind or fork.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserSeqMessage;

impl FieldMessage for UserSeqMessage {
    const PARAM: &'static str = "seq";
    const MESSAGE: &'static str =
        "params.seq is required: the seq of one of the session's user messages (an integer >= 1)";
}

/// The one message for a missing or malformed `seq` of `checkpoint.diff`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckpointSeqMessage;

impl FieldMessage for CheckpointSeqMessage {
    const PARAM: &'static str = "seq";
    const MESSAGE: &'static str =
        "params.seq is required: the seq of one of the session's checkpoints (an integer >= 0)";
}

/// The one message for a `restore` that is not one of the three.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RestoreMessage;

impl FieldMessage for RestoreMessage {
    const PARAM: &'static str = "restore";
    const MESSAGE: &'static str = "params.restore must be one of: code, conversation, both";
}

/// What a rewind puts back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RestoreMode {
    /// The workspace's files, as they were before the message's turn changed any.
    Code,
    /// The conversation, to just before the message (the message is rewound
    /// too: its text comes back as `prompt`).
    Conversation,
    /// Both.
    #[default]
    Both,
}

impl RestoreMode {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            RestoreMode::Code => "code",
            RestoreMode::Conversation => "conversation",
            RestoreMode::Both => "both",
        }
    }
}

/// `checkpoint.list`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CheckpointListParams {
    /// The session id.
    pub session_id: Required,
    /// A workspace path (walked up to its project root); must exist.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
    /// The directory-free global scope.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub global: Option<bool>,
}

/// `checkpoint.diff`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CheckpointDiffParams {
    /// The session id.
    pub session_id: Required,
    /// The checkpoint's seq (`checkpoint.list`'s `seq`).
    pub seq: Strict<u64, CheckpointSeqMessage>,
    /// A workspace path (walked up to its project root); must exist.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
    /// The directory-free global scope.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub global: Option<bool>,
}

/// `session.rewind`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionRewindParams {
    /// The session id.
    pub id: Required,
    /// The user message to go back to (it is rewound too).
    pub seq: Strict<u64, UserSeqMessage>,
    /// `code`, `conversation` or `both` (default `both`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub restore: Option<Strict<RestoreMode, RestoreMessage>>,
    /// Change nothing; answer with what would be restored (default false).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dry_run: Option<bool>,
    /// Overwrite files changed by someone other than the agent after that
    /// point (default false: such conflicts refuse the rewind).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub force: Option<bool>,
    /// A workspace path (walked up to its project root); must exist.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
    /// The directory-free global scope.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub global: Option<bool>,
}

impl SessionRewindParams {
    /// What to restore (`both` unless said).
    pub fn restore(&self) -> RestoreMode {
        self.restore.as_ref().map(|r| r.0).unwrap_or_default()
    }
}

/// `session.fork`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionForkParams {
    /// The session id.
    pub id: Required,
    /// The user message to branch off at: the new session holds the events
    /// before it, and its text comes back as `prompt`.
    pub seq: Strict<u64, UserSeqMessage>,
    /// Also rewind the workspace's files to that point (default false).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub restore_code: Option<bool>,
    /// With `restoreCode`: overwrite files changed by someone other than the
    /// agent after that point (default false).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub force: Option<bool>,
    /// A workspace path (walked up to its project root); must exist.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
    /// The directory-free global scope.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub global: Option<bool>,
}

macro_rules! scoped {
    ($($t:ty),*) => {$(
        impl Scope for $t {
            fn scope(&self) -> ScopeParams {
                ScopeParams::from_fields(self.workspace.as_deref(), self.global)
            }
        }
    )*};
}

scoped!(
    CheckpointListParams,
    CheckpointDiffParams,
    SessionRewindParams,
    SessionForkParams
);

/// One checkpoint of `checkpoint.list`, oldest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct CheckpointSummary {
    /// The checkpoint's id in the store.
    pub id: u64,
    /// The session-log seq it stands at (`checkpoint.diff`'s `seq`): a turn's
    /// first stands at the turn's user message; null when it stands at none.
    pub seq: Option<u64>,
    /// The seq of the user message of the turn that took it.
    pub turn_seq: u64,
    /// `turn`, `step`, `job`, `verify` or `rewind`.
    pub kind: String,
    /// When it was taken (RFC 3339).
    pub created_at: String,
    /// Files changed since the checkpoint before it.
    pub files_changed: u32,
    /// Lines added since the checkpoint before it.
    pub added: u32,
    /// Lines removed since the checkpoint before it.
    pub removed: u32,
    /// The session's first: the whole tree, with no diff.
    pub full: bool,
}

/// One file's change: of a checkpoint, or restored by a rewind.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct CheckpointFileDiff {
    /// The workspace-relative path.
    pub path: String,
    /// `added`, `modified` or `deleted`.
    pub status: String,
    /// Lines added.
    pub added: u32,
    /// Lines removed.
    pub removed: u32,
    /// A binary file (no line diff).
    pub binary: bool,
    /// A unified diff, git style (empty for a binary file).
    pub diff: String,
}

/// `checkpoint.diff`: what the checkpoint changed, file by file.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct CheckpointDiffResult {
    /// The checkpoint's seq, as asked.
    pub seq: u64,
    /// The files it changed.
    pub files: Vec<CheckpointFileDiff>,
}

/// A rewound user message, for the front end to put back into the editor.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct RewoundPrompt {
    /// The message's seq.
    pub seq: u64,
    /// Its text.
    pub text: String,
    /// Its images.
    pub images: Vec<ImageAttachment>,
}

/// One file a checkpoint saw change.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct CheckpointFile {
    /// The workspace-relative path.
    pub path: String,
    /// `added`, `modified` or `deleted`.
    pub status: String,
    /// Lines added.
    pub added: u32,
    /// Lines removed.
    pub removed: u32,
}

/// Files a turn's first checkpoint does not track (said once per turn).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct NotTrackedNote {
    /// Ignored by `.gitignore`/`.ignore` (directories as `dir/`).
    pub ignored: Vec<String>,
    /// Over `checkpoints.maxFileBytes`.
    pub oversize: Vec<String>,
}

/// A checkpoint taken: the `checkpoint` event's `data` (JSON text), and a
/// rewind's own.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct CheckpointNote {
    /// The checkpoint's id in the store.
    pub id: u64,
    /// The session-log seq it stands at.
    pub seq: u64,
    /// The seq of the user message of the turn that took it.
    pub turn_seq: u64,
    /// `turn`, `step`, `job`, `verify` or `rewind`.
    pub kind: String,
    /// The files changed since the checkpoint before it.
    pub files: Vec<CheckpointFile>,
    /// Lines added, summed.
    pub added: u32,
    /// Lines removed, summed.
    pub removed: u32,
    /// How many files the checkpoint tracks.
    pub tracked: u64,
    /// A turn's first: the files it does not track; absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_tracked: Option<NotTrackedNote>,
    /// Checkpointing failed (the turn goes on); absent when it worked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// `session.rewind`: what was restored (or, on a dry run, would be).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct RewindOutcome {
    /// The session.
    pub session_id: String,
    /// The user message rewound to.
    pub seq: u64,
    /// What was restored.
    pub restore: RestoreMode,
    /// Nothing was changed.
    pub dry_run: bool,
    /// The files restored (or that would be).
    pub files: Vec<CheckpointFileDiff>,
    /// Files someone other than the agent changed after that point: listed
    /// on a dry run, overwritten with `force` (without it the rewind fails
    /// `conflict` and changes nothing).
    pub conflicts: Vec<String>,
    /// Files only the user created after that point: never removed.
    pub kept: Vec<String>,
    /// Files that were over `checkpoints.maxFileBytes` at that point.
    pub unrestorable: Vec<String>,
    /// The rewound message, for the editor (conversation rewinds); absent
    /// otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<RewoundPrompt>,
    /// The rewind marker appended to the log (conversation rewinds that are
    /// not dry runs); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub marker_seq: Option<u64>,
    /// The checkpoint of the restored files (code rewinds that changed
    /// files); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkpoint: Option<CheckpointNote>,
}

/// `session.fork`: the new session.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct ForkOutcome {
    /// The new session's header (with `forkedFrom`).
    pub session: SessionHeader,
    /// The message forked at, for the editor.
    pub prompt: Option<RewoundPrompt>,
    /// With `restoreCode`: the code rewind; absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<RewindOutcome>,
}

/// Where a forked session came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct ForkedFrom {
    /// The source session.
    pub session_id: String,
    /// The user message it was forked at (the fork holds the events before it).
    pub seq: u64,
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use crate::{Params, method};

    fn params(v: Value) -> Params {
        let Value::Object(m) = v else { unreachable!() };
        Params::new(m)
    }

    #[test]
    fn rewind_params_default_to_both_and_word_each_fault_once() {
        let ok = params(json!({"id": "s", "seq": 3}))
            .read::<method::SessionRewind>()
            .unwrap();
        assert_eq!((ok.seq.0, ok.restore().as_str()), (3, "both"));
        let code = params(json!({"id": "s", "seq": 3, "restore": "code", "dryRun": true}))
            .read::<method::SessionRewind>()
            .unwrap();
        assert_eq!(code.restore().as_str(), "code");
        for (bad, param) in [
            (json!({"id": "s"}), "seq"),
            (json!({"id": "s", "seq": -1}), "seq"),
            (json!({"id": "s", "seq": "3"}), "seq"),
            (json!({"id": "s", "seq": 3, "restore": "files"}), "restore"),
            (json!({"seq": 3}), "id"),
        ] {
            let e = params(bad.clone())
                .read::<method::SessionRewind>()
                .unwrap_err();
            assert_eq!(e.param.as_deref(), Some(param), "{bad}");
        }
        let e = params(json!({"sessionId": "s"}))
            .read::<method::CheckpointDiff>()
            .unwrap_err();
        assert!(e.message.contains("checkpoints"), "{}", e.message);
        let e = params(json!({"id": "s", "seq": null}))
            .read::<method::SessionFork>()
            .unwrap_err();
        assert!(e.message.contains("user messages"), "{}", e.message);
    }

    #[test]
    fn the_checkpoint_event_data_names_its_content() {
        let doc = crate::schema();
        let data = &doc["x-events"]["checkpoint"]["data"];
        assert_eq!(data["contentMediaType"], "application/json");
        assert_eq!(data["contentSchema"]["$ref"], "#/$defs/CheckpointNote");
        let info = crate::ProtocolInfo::from_table();
        for m in [
            "checkpoint.list",
            "checkpoint.diff",
            "session.rewind",
            "session.fork",
        ] {
            assert!(info.methods.iter().any(|x| x == m), "{m}");
        }
        assert!(info.capabilities.iter().any(|c| c == "checkpoints"));
    }
}
