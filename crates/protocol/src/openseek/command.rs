//! The commands `serve` reads on stdin (reference §2.2, §2.6): one JSON
//! object per line, discriminated by `command`.
//!
//! The types are serde data in the form a client writes (the schema's
//! `$defs/Command`). `serve` reads lines with [`Command::decode_checked`], a
//! hand-written reader over the same types: it is more lenient than the
//! derived `Deserialize` (`auto` is true only for JSON `true`, anything else
//! false; OpenSeek's key spellings are accepted) and its error texts go back
//! as `command_error`, so they are wire contract.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// One command.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "command", rename_all = "snake_case")]
pub enum Command {
    /// Start a turn, or queue it behind the work in progress.
    Prompt(Submission),
    /// Input for the running turn (or the queued prompt's).
    Steer(Steer),
    /// Summarize the whole session once idle.
    Compact,
    /// Cancel the running turn or compaction; when idle, withdraw the next
    /// queued prompt. Disarms goal auto-continuation.
    Cancel,
    /// Set, replace or clear the standing goal.
    Goal(Goal),
    /// The controller's decision on an `approval_requested`.
    Approval {
        /// The request's id.
        id: String,
        /// Run the call (once) or not. Implied by `decision` when that is
        /// given (then it may be left out).
        allow: bool,
        /// Ours, additive: the decision in full (`allow_always` saves the
        /// request's `always_rule`); wins over `allow`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        decision: Option<ApprovalDecision>,
    },
    /// Rewind the session to before one of its user messages (ours,
    /// additive): the files, the conversation, or both.
    Rewind(Rewind),
}

/// An `approval`'s `decision`, as the daemon's `agent.approve` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalDecision {
    /// Run this call.
    AllowOnce,
    /// Run this call and its like for the rest of the session.
    AllowSession,
    /// Run this call and save the request's `always_rule` as an allow rule.
    AllowAlways,
    /// Do not run it.
    Reject,
}

impl ApprovalDecision {
    /// The decision named `word`.
    pub fn parse(word: &str) -> Option<ApprovalDecision> {
        Some(match word {
            "allow_once" => ApprovalDecision::AllowOnce,
            "allow_session" => ApprovalDecision::AllowSession,
            "allow_always" => ApprovalDecision::AllowAlways,
            "reject" => ApprovalDecision::Reject,
            _ => return None,
        })
    }
}

/// A `rewind` command.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Rewind {
    /// The user message's log seq (`sequence` is read too).
    #[serde(alias = "sequence")]
    pub seq: u64,
    /// What to restore (default: both).
    #[serde(default)]
    pub restore: RewindRestore,
    /// Only say what would change (`dryRun` is read too).
    #[serde(default, alias = "dryRun")]
    pub dry_run: bool,
    /// Overwrite files someone other than the agent changed after that point.
    #[serde(default)]
    pub force: bool,
}

/// What a `rewind` restores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RewindRestore {
    /// The workspace's files only.
    Code,
    /// The conversation only.
    Conversation,
    /// Both.
    #[default]
    Both,
}

impl RewindRestore {
    /// The wire word.
    pub fn as_str(self) -> &'static str {
        match self {
            RewindRestore::Code => "code",
            RewindRestore::Conversation => "conversation",
            RewindRestore::Both => "both",
        }
    }
}

/// What a user sends: `content` parts, or the legacy `text` (+ `images`),
/// and the front end's id for it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct Submission {
    /// Text and images; when present, `text` and `images` are not read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Content>,
    /// The legacy text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The legacy images (read with `text` only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub images: Vec<ImagePart>,
    /// Echoed on the events that answer it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub submission_id: Option<String>,
}

/// A submission's `content`: a plain string, or parts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Content {
    /// The text alone.
    Text(String),
    /// Text and image parts, in order.
    Parts(Vec<ContentPart>),
}

/// One part of `content`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentPart {
    /// Text; the parts' texts join with newlines.
    Text {
        /// The text.
        text: String,
    },
    /// An image.
    Image(ImagePart),
}

/// One image, base64.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ImagePart {
    /// Its file name (`serve` names an unnamed one `image-N`, N its 1-based
    /// position in `content` or `images`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Its MIME type (`mime_type` and `mediaType` are read too).
    #[serde(default, alias = "mime_type", alias = "mediaType")]
    pub media_type: String,
    /// The bytes, base64 (`data_base64` is read too).
    #[serde(alias = "data_base64")]
    pub data: String,
}

/// A `steer`: a submission and where it comes from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Steer {
    /// What the user adds.
    #[serde(flatten)]
    pub submission: Submission,
    /// `prompt` (absent: the default) or `command`.
    #[serde(default)]
    pub kind: SteerKind,
}

/// Where a `steer` comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SteerKind {
    /// The user redirects the turn.
    #[default]
    Prompt,
    /// Shell context the user saw (`$ cmd` and its output), written to the log.
    Command,
}

/// A `goal` command, discriminated by `action`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum Goal {
    /// Set or replace the standing goal.
    Set {
        /// The goal (`serve` refuses a blank one).
        text: String,
        /// Keep starting turns toward it.
        #[serde(default)]
        auto: bool,
    },
    /// Clear the standing goal.
    Clear,
}

impl Submission {
    /// The text the model reads: `content`'s (text parts joined with
    /// newlines), else the legacy `text`.
    pub fn joined_text(&self) -> String {
        match &self.content {
            Some(Content::Text(t)) => t.clone(),
            Some(Content::Parts(parts)) => parts
                .iter()
                .filter_map(|p| match p {
                    ContentPart::Text { text } => Some(text.as_str()),
                    ContentPart::Image(_) => None,
                })
                .collect::<Vec<_>>()
                .join("\n"),
            None => self.text.clone().unwrap_or_default(),
        }
    }

    /// The images, in order: `content`'s image parts, else the legacy list.
    pub fn image_parts(&self) -> Vec<&ImagePart> {
        match &self.content {
            Some(Content::Text(_)) => Vec::new(),
            Some(Content::Parts(parts)) => parts
                .iter()
                .filter_map(|p| match p {
                    ContentPart::Image(i) => Some(i),
                    ContentPart::Text { .. } => None,
                })
                .collect(),
            None => self.images.iter().collect(),
        }
    }
}

const EXPECTED_OBJECT: &str = "expected a {\"command\": ...} object";
const EXPECTED_TEXT: &str = "expected a string \"text\" field";
/// A prompt or steer with nothing to say is refused, as the socket does.
const BLANK_TEXT: &str = "the text is empty: say what to do";
const EXPECTED_KIND: &str = "expected a string \"kind\" field";
const EXPECTED_GOAL: &str =
    "expected {\"action\": \"set\", \"text\": ...} or {\"action\": \"clear\"}";
const EXPECTED_APPROVAL: &str =
    "expected {\"command\": \"approval\", \"id\": string, \"allow\": bool}";
const EXPECTED_REWIND: &str = "expected {\"command\": \"rewind\", \"seq\": integer, \
     \"restore\"?: \"code\"|\"conversation\"|\"both\", \"dry_run\"?: bool, \"force\"?: bool}";

/// The reader's check of a submission's images (the engine's type, size and
/// count rules), run where the hand decoder always ran it: after the images
/// are read, before the blank-text check and the steer's `kind`.
pub type ImageCheck<'a> = dyn FnMut(&[&ImagePart]) -> Result<(), String> + 'a;

impl Command {
    /// Reads one JSON value (the line already parsed as JSON), checking no
    /// image rule. The `Err` text is what `serve` answers with.
    pub fn decode(value: Value) -> Result<Command, String> {
        Command::decode_checked(value, &mut |_| Ok(()))
    }

    /// [`Command::decode`], with `check` run on a submission's images
    /// (when it has any); its error is the command's error. The value is
    /// taken so that images (tens of MB of base64) are moved, not copied.
    pub fn decode_checked(value: Value, check: &mut ImageCheck<'_>) -> Result<Command, String> {
        let Value::Object(mut obj) = value else {
            return Err(EXPECTED_OBJECT.into());
        };
        let Some(Value::String(command)) = obj.remove("command") else {
            return Err(EXPECTED_OBJECT.into());
        };
        match command.as_str() {
            "prompt" => Ok(Command::Prompt(submission(&mut obj, check)?)),
            "steer" => {
                let submission = submission(&mut obj, check)?;
                let kind = match obj.get("kind") {
                    None => SteerKind::Prompt,
                    Some(Value::String(k)) if k == "prompt" => SteerKind::Prompt,
                    Some(Value::String(k)) if k == "command" => SteerKind::Command,
                    Some(Value::String(k)) => return Err(format!("unknown steer kind: {k}")),
                    Some(_) => return Err(EXPECTED_KIND.into()),
                };
                Ok(Command::Steer(Steer { submission, kind }))
            }
            "compact" => Ok(Command::Compact),
            "approval" => approval(&mut obj),
            "cancel" => Ok(Command::Cancel),
            "goal" => {
                let text = obj.remove("text");
                match (obj.get("action").and_then(Value::as_str), text) {
                    (Some("set"), Some(Value::String(text))) => Ok(Command::Goal(Goal::Set {
                        text,
                        auto: obj.get("auto") == Some(&Value::Bool(true)),
                    })),
                    (Some("clear"), _) => Ok(Command::Goal(Goal::Clear)),
                    _ => Err(EXPECTED_GOAL.into()),
                }
            }
            "rewind" => rewind(&obj).map(Command::Rewind),
            other => Err(format!("unknown command: {other}")),
        }
    }
}

/// An `approval` command's fields: `id`, and `allow` or `decision`.
fn approval(obj: &mut Map<String, Value>) -> Result<Command, String> {
    let decision = match obj.get("decision") {
        None | Some(Value::Null) => None,
        Some(Value::String(word)) => match ApprovalDecision::parse(word) {
            Some(d) => Some(d),
            None => return Err(format!("unknown approval decision: {word}")),
        },
        Some(_) => return Err(EXPECTED_APPROVAL.into()),
    };
    let allow = match (obj.get("allow"), decision) {
        (Some(Value::Bool(allow)), _) => *allow,
        (None, Some(d)) => d != ApprovalDecision::Reject,
        _ => return Err(EXPECTED_APPROVAL.into()),
    };
    match obj.remove("id") {
        Some(Value::String(id)) => Ok(Command::Approval {
            id,
            allow,
            decision,
        }),
        _ => Err(EXPECTED_APPROVAL.into()),
    }
}

/// A `rewind`'s fields; a field of the wrong type is refused, not ignored
/// (a rewind changes files).
fn rewind(obj: &Map<String, Value>) -> Result<Rewind, String> {
    let flag = |keys: &[&str]| match keys.iter().find_map(|k| obj.get(*k)) {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(_) => Err(EXPECTED_REWIND.to_string()),
    };
    let seq = obj
        .get("seq")
        .or_else(|| obj.get("sequence"))
        .and_then(Value::as_u64)
        .ok_or_else(|| EXPECTED_REWIND.to_string())?;
    let restore = match obj.get("restore") {
        None | Some(Value::Null) => RewindRestore::Both,
        Some(Value::String(r)) if r == "code" => RewindRestore::Code,
        Some(Value::String(r)) if r == "conversation" => RewindRestore::Conversation,
        Some(Value::String(r)) if r == "both" => RewindRestore::Both,
        Some(_) => return Err(EXPECTED_REWIND.into()),
    };
    Ok(Rewind {
        seq,
        restore,
        dry_run: flag(&["dry_run", "dryRun"])?,
        force: flag(&["force"])?,
    })
}

/// `content` parts (text and images) or the legacy `text` (+ `images`).
fn submission(
    obj: &mut Map<String, Value>,
    check: &mut ImageCheck<'_>,
) -> Result<Submission, String> {
    let submission_id = match obj.remove("submission_id") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s),
        Some(_) => return Err("expected a string \"submission_id\" field".into()),
    };
    let mut sub = Submission {
        submission_id,
        ..Submission::default()
    };
    match obj.remove("content") {
        Some(Value::String(text)) => sub.content = Some(Content::Text(text)),
        Some(Value::Array(parts)) => sub.content = Some(Content::Parts(content_parts(parts)?)),
        Some(Value::Null) | None => match obj.remove("text") {
            Some(Value::String(text)) => {
                sub.text = Some(text);
                sub.images = legacy_images(obj.remove("images"))?;
            }
            _ => return Err(EXPECTED_TEXT.into()),
        },
        Some(_) => return Err("expected an array \"content\" field".into()),
    }
    let images = sub.image_parts();
    if !images.is_empty() {
        check(&images)?;
    }
    if images.is_empty() && sub.joined_text().trim().is_empty() {
        return Err(BLANK_TEXT.into());
    }
    Ok(sub)
}

/// `[{"type":"text","text":…}, {"type":"image","media_type":…,"data":…,"name"?}]`.
fn content_parts(parts: Vec<Value>) -> Result<Vec<ContentPart>, String> {
    parts
        .into_iter()
        .enumerate()
        .map(|(i, mut part)| {
            let kind = part.get("type").and_then(Value::as_str);
            if kind == Some("image") {
                return image_part(part, i).map(ContentPart::Image);
            }
            if kind != Some("text") {
                return Err(format!(
                    "content[{i}]: expected a part of type \"text\" or \"image\""
                ));
            }
            match take_string(&mut part, &["text"]) {
                Some(text) => Ok(ContentPart::Text { text }),
                None => Err(format!("content[{i}]: {EXPECTED_TEXT}")),
            }
        })
        .collect()
}

fn legacy_images(list: Option<Value>) -> Result<Vec<ImagePart>, String> {
    match list {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .into_iter()
            .enumerate()
            .map(|(i, v)| image_part(v, i))
            .collect(),
        Some(_) => Err("expected an array \"images\" field".into()),
    }
}

/// The first of `keys` that holds a string, taken out of `part`; a key of
/// another type counts as absent.
fn take_string(part: &mut Value, keys: &[&str]) -> Option<String> {
    keys.iter().find_map(|k| match part.get_mut(*k) {
        Some(Value::String(s)) => Some(std::mem::take(s)),
        _ => None,
    })
}

/// One image; OpenSeek's spellings (`media_type`, `mime_type`, `data_base64`)
/// and the daemon's (`mediaType`) are read. An unnamed image is named by its
/// position.
fn image_part(mut part: Value, i: usize) -> Result<ImagePart, String> {
    // The "content[i]" prefix is also what a legacy `images` entry reports.
    let data = take_string(&mut part, &["data", "data_base64"])
        .ok_or_else(|| format!("content[{i}]: expected a base64 string \"data\" field"))?;
    Ok(ImagePart {
        name: Some(take_string(&mut part, &["name"]).unwrap_or_else(|| format!("image-{}", i + 1))),
        media_type: take_string(&mut part, &["media_type", "mime_type", "mediaType"])
            .unwrap_or_default(),
        data,
    })
}
