//! Commands on `serve`'s stdin (reference §2.2, §2.6). A decode error's text
//! goes back as `command_error` and is wire contract.

use seekclaw_agent::{SteerKind, UserImage};
use seekclaw_protocol::Params;
use serde_json::{Map, Value};

/// What a user sends: text, images, and the front end's id for it.
#[derive(Debug, Clone, PartialEq)]
pub struct Submission {
    /// The text.
    pub text: String,
    /// Images (`content` parts, or the legacy `images` list).
    pub images: Vec<UserImage>,
    /// Echoed on the events that answer it.
    pub submission_id: Option<String>,
}

/// One command.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// Start a turn, or queue it behind the work in progress.
    Prompt(Submission),
    /// Input for the running turn.
    Steer(Submission, SteerKind),
    /// Summarize the whole session once idle.
    Compact,
    /// Cancel the running turn or compaction; when idle, withdraw the next
    /// queued prompt. Disarms goal auto-continuation.
    Cancel,
    /// Set or replace the standing goal.
    GoalSet {
        /// The goal.
        text: String,
        /// Keep starting turns toward it.
        auto: bool,
    },
    /// Clear the standing goal.
    GoalClear,
    /// The controller's decision on an `approval_requested`.
    Approval {
        /// The request's id.
        id: String,
        /// Run the call (once) or not.
        allow: bool,
    },
}

const EXPECTED_OBJECT: &str = "expected a {\"command\": ...} object";
const EXPECTED_TEXT: &str = "expected a string \"text\" field";
/// A prompt or steer with nothing to say is refused, as the socket does.
const BLANK_TEXT: &str = "the text is empty: say what to do";
const EXPECTED_KIND: &str = "expected a string \"kind\" field";
const EXPECTED_GOAL: &str =
    "expected {\"action\": \"set\", \"text\": ...} or {\"action\": \"clear\"}";

/// Decodes one JSON value (the line already parsed as JSON).
pub fn parse(value: Value) -> Result<Command, String> {
    let Value::Object(obj) = value else {
        return Err(EXPECTED_OBJECT.into());
    };
    let Some(Value::String(command)) = obj.get("command") else {
        return Err(EXPECTED_OBJECT.into());
    };
    match command.as_str() {
        "prompt" => Ok(Command::Prompt(submission(&obj)?)),
        "steer" => {
            let submission = submission(&obj)?;
            let kind = match obj.get("kind") {
                None => SteerKind::Prompt,
                Some(Value::String(k)) if k == "prompt" => SteerKind::Prompt,
                Some(Value::String(k)) if k == "command" => SteerKind::Command,
                Some(Value::String(k)) => return Err(format!("unknown steer kind: {k}")),
                Some(_) => return Err(EXPECTED_KIND.into()),
            };
            Ok(Command::Steer(submission, kind))
        }
        "compact" => Ok(Command::Compact),
        "approval" => match (obj.get("id"), obj.get("allow")) {
            (Some(Value::String(id)), Some(Value::Bool(allow))) => Ok(Command::Approval {
                id: id.clone(),
                allow: *allow,
            }),
            _ => {
                Err("expected {\"command\": \"approval\", \"id\": string, \"allow\": bool}".into())
            }
        },
        "cancel" => Ok(Command::Cancel),
        "goal" => match (obj.get("action"), obj.get("text")) {
            (Some(Value::String(a)), Some(Value::String(text))) if a == "set" => {
                Ok(Command::GoalSet {
                    text: text.clone(),
                    auto: obj.get("auto") == Some(&Value::Bool(true)),
                })
            }
            (Some(Value::String(a)), _) if a == "clear" => Ok(Command::GoalClear),
            _ => Err(EXPECTED_GOAL.into()),
        },
        other => Err(format!("unknown command: {other}")),
    }
}

/// `content` parts (text and images) or the legacy `text` (+ `images`).
fn submission(obj: &Map<String, Value>) -> Result<Submission, String> {
    let submission_id = match obj.get("submission_id") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => return Err("expected a string \"submission_id\" field".into()),
    };
    let (text, images) = match obj.get("content") {
        Some(Value::String(text)) => (text.clone(), Vec::new()),
        Some(Value::Array(parts)) => content_parts(parts)?,
        Some(Value::Null) | None => match obj.get("text") {
            Some(Value::String(text)) => (text.clone(), legacy_images(obj.get("images"))?),
            _ => return Err(EXPECTED_TEXT.into()),
        },
        Some(_) => return Err("expected an array \"content\" field".into()),
    };
    if text.trim().is_empty() && images.is_empty() {
        return Err(BLANK_TEXT.into());
    }
    Ok(Submission {
        text,
        images,
        submission_id,
    })
}

/// `[{"type":"text","text":…}, {"type":"image","media_type":…,"data":…,"name"?}]`.
fn content_parts(parts: &[Value]) -> Result<(String, Vec<UserImage>), String> {
    let mut texts: Vec<&str> = Vec::new();
    let mut images = Vec::new();
    for (i, part) in parts.iter().enumerate() {
        match part.get("type").and_then(Value::as_str) {
            Some("text") => match part.get("text") {
                Some(Value::String(t)) => texts.push(t),
                _ => return Err(format!("content[{i}]: {EXPECTED_TEXT}")),
            },
            Some("image") => images.push(image_object(part, i)?),
            _ => {
                return Err(format!(
                    "content[{i}]: expected a part of type \"text\" or \"image\""
                ));
            }
        }
    }
    let images = checked(images)?;
    Ok((texts.join("\n"), images))
}

fn legacy_images(list: Option<&Value>) -> Result<Vec<UserImage>, String> {
    match list {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => {
            let parts = items
                .iter()
                .enumerate()
                .map(|(i, v)| image_object(v, i))
                .collect::<Result<Vec<_>, _>>()?;
            checked(parts)
        }
        Some(_) => Err("expected an array \"images\" field".into()),
    }
}

/// One image as the daemon's `images` entry (`name`, `mediaType`, `data`);
/// OpenSeek spellings (`media_type`, `mime_type`) are accepted.
fn image_object(part: &Value, i: usize) -> Result<Value, String> {
    let text = |keys: &[&str]| {
        keys.iter()
            .find_map(|k| part.get(*k).and_then(Value::as_str))
            .map(str::to_string)
    };
    let data = text(&["data", "data_base64"])
        .ok_or_else(|| format!("content[{i}]: expected a base64 string \"data\" field"))?;
    let media_type = text(&["media_type", "mime_type", "mediaType"]).unwrap_or_default();
    let name = text(&["name"]).unwrap_or_else(|| format!("image-{}", i + 1));
    Ok(serde_json::json!({"name": name, "mediaType": media_type, "data": data}))
}

/// The daemon's image rules (types, sizes, count), so both front ends agree.
fn checked(images: Vec<Value>) -> Result<Vec<UserImage>, String> {
    if images.is_empty() {
        return Ok(Vec::new());
    }
    let mut params = Map::new();
    params.insert("images".into(), Value::Array(images));
    seekclaw_engine::parse_images(&Params::new(params)).map_err(|e| e.message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn err(v: Value) -> String {
        parse(v).unwrap_err()
    }

    #[test]
    fn decode_errors_are_the_wire_texts() {
        assert_eq!(err(json!([1])), "expected a {\"command\": ...} object");
        assert_eq!(err(json!({"x": 1})), "expected a {\"command\": ...} object");
        assert_eq!(
            err(json!({"command": 3})),
            "expected a {\"command\": ...} object"
        );
        assert_eq!(err(json!({"command": "dance"})), "unknown command: dance");
        assert_eq!(
            err(json!({"command": "prompt"})),
            "expected a string \"text\" field"
        );
        assert_eq!(
            err(json!({"command": "prompt", "text": "  \n"})),
            "the text is empty: say what to do"
        );
        assert_eq!(
            err(json!({"command": "steer", "content": []})),
            "the text is empty: say what to do"
        );
        assert_eq!(
            err(json!({"command": "prompt", "text": 5})),
            "expected a string \"text\" field"
        );
        assert_eq!(
            err(json!({"command": "steer", "text": "x", "kind": "shout"})),
            "unknown steer kind: shout"
        );
        assert_eq!(
            err(json!({"command": "steer", "text": "x", "kind": 1})),
            "expected a string \"kind\" field"
        );
        assert_eq!(
            err(json!({"command": "steer", "text": "x", "kind": null})),
            "expected a string \"kind\" field",
            "only an absent kind defaults"
        );
        assert_eq!(
            err(json!({"command": "steer", "kind": "zz"})),
            "expected a string \"text\" field",
            "the text is checked first"
        );
        assert_eq!(
            err(json!({"command": "prompt", "text": "x", "submission_id": 5})),
            "expected a string \"submission_id\" field"
        );
        let goal = "expected {\"action\": \"set\", \"text\": ...} or {\"action\": \"clear\"}";
        assert_eq!(err(json!({"command": "goal"})), goal);
        assert_eq!(err(json!({"command": "goal", "action": "set"})), goal);
        assert_eq!(
            err(json!({"command": "goal", "action": "win", "text": "x"})),
            goal
        );
    }

    #[test]
    fn shape_errors_of_parts_images_and_approvals_are_the_wire_texts() {
        let cases = [
            (
                json!({"command": "approval", "id": "a1"}),
                "expected {\"command\": \"approval\", \"id\": string, \"allow\": bool}",
            ),
            (
                json!({"command": "approval", "id": 1, "allow": true}),
                "expected {\"command\": \"approval\", \"id\": string, \"allow\": bool}",
            ),
            (
                json!({"command": "prompt", "content": 5}),
                "expected an array \"content\" field",
            ),
            (
                json!({"command": "prompt", "content": [{"type": "text"}]}),
                "content[0]: expected a string \"text\" field",
            ),
            (
                json!({"command": "prompt", "content": [{"type": "text", "text": "a"}, {"type": "video"}]}),
                "content[1]: expected a part of type \"text\" or \"image\"",
            ),
            (
                json!({"command": "prompt", "content": [{"text": "a"}]}),
                "content[0]: expected a part of type \"text\" or \"image\"",
            ),
            (
                json!({"command": "prompt", "content": [{"type": "image", "media_type": "image/png"}]}),
                "content[0]: expected a base64 string \"data\" field",
            ),
            (
                json!({"command": "prompt", "text": "x", "images": {}}),
                "expected an array \"images\" field",
            ),
            (
                json!({"command": "prompt", "text": "x", "images": [{"media_type": "image/png"}]}),
                "content[0]: expected a base64 string \"data\" field",
            ),
            (
                json!({"command": "steer", "text": " ", "kind": "shout"}),
                "the text is empty: say what to do",
            ),
            (
                json!({"command": "prompt", "submission_id": 1}),
                "expected a string \"submission_id\" field",
            ),
        ];
        for (value, want) in cases {
            assert_eq!(err(value.clone()), want, "{value}");
        }
    }

    #[test]
    fn lenient_reads_stay_lenient() {
        // Only JSON `true` arms auto; a clear ignores its text.
        assert_eq!(
            parse(json!({"command": "goal", "action": "set", "text": "g", "auto": 1})).unwrap(),
            Command::GoalSet {
                text: "g".into(),
                auto: false
            }
        );
        assert_eq!(
            parse(json!({"command": "goal", "action": "clear", "text": 5})).unwrap(),
            Command::GoalClear
        );
        // A null content or submission id reads as absent; so does null images.
        let Command::Prompt(s) = parse(json!({"command": "prompt", "content": null,
            "text": "t", "images": null, "submission_id": null}))
        .unwrap() else {
            panic!()
        };
        assert_eq!((s.text.as_str(), s.submission_id), ("t", None));
        // A string content is the text; legacy images are then not read.
        let Command::Prompt(s) = parse(json!({"command": "prompt", "content": "c",
            "text": "t", "images": 5}))
        .unwrap() else {
            panic!()
        };
        assert_eq!((s.text.as_str(), s.images.len()), ("c", 0));
        // Text parts join with newlines; images get default names by position,
        // and OpenSeek spellings of the keys are read.
        let Command::Steer(s, kind) = parse(json!({"command": "steer", "content": [
            {"type": "text", "text": "a"},
            {"type": "image", "mime_type": "image/png", "data_base64": "aGVsbG8=", "name": 7},
            {"type": "text", "text": "b"},
            {"type": "image", "mediaType": "image/png", "data": "aGVsbG8=", "name": "x.png"},
        ], "approval": "ignored"}))
        .unwrap() else {
            panic!()
        };
        assert_eq!(kind, SteerKind::Prompt);
        assert_eq!(s.text, "a\nb");
        let names: Vec<&str> = s.images.iter().map(|i| i.name.as_str()).collect();
        assert_eq!(names, ["image-2", "x.png"]);
        let Command::Prompt(s) = parse(json!({"command": "prompt", "text": "",
            "images": [{"media_type": "image/png", "data": "aGVsbG8="}]}))
        .unwrap() else {
            panic!()
        };
        assert_eq!((s.images.len(), s.images[0].name.as_str()), (1, "image-1"));
        assert_eq!(
            parse(json!({"command": "approval", "id": "a", "allow": false, "x": 1})).unwrap(),
            Command::Approval {
                id: "a".into(),
                allow: false
            }
        );
    }

    #[test]
    fn commands_decode_with_their_defaults() {
        let p = parse(json!({"command": "prompt", "text": "hi", "extra": 1})).unwrap();
        assert_eq!(
            p,
            Command::Prompt(Submission {
                text: "hi".into(),
                images: vec![],
                submission_id: None
            })
        );
        let Command::Steer(s, kind) = parse(
            json!({"command": "steer", "text": "ls", "kind": "command", "submission_id": "s1"}),
        )
        .unwrap() else {
            panic!()
        };
        assert_eq!(
            (s.text.as_str(), kind, s.submission_id.as_deref()),
            ("ls", SteerKind::Command, Some("s1"))
        );
        assert!(matches!(
            parse(json!({"command": "steer", "text": "x"})).unwrap(),
            Command::Steer(_, SteerKind::Prompt)
        ));
        assert_eq!(
            parse(json!({"command": "compact"})).unwrap(),
            Command::Compact
        );
        assert_eq!(
            parse(json!({"command": "cancel"})).unwrap(),
            Command::Cancel
        );
        assert_eq!(
            parse(json!({"command": "goal", "action": "set", "text": "g", "auto": "yes"})).unwrap(),
            Command::GoalSet {
                text: "g".into(),
                auto: false
            }
        );
        assert_eq!(
            parse(json!({"command": "goal", "action": "set", "text": "g", "auto": true})).unwrap(),
            Command::GoalSet {
                text: "g".into(),
                auto: true
            }
        );
        assert_eq!(
            parse(json!({"command": "goal", "action": "clear"})).unwrap(),
            Command::GoalClear
        );
    }

    #[test]
    fn content_parts_carry_text_and_images() {
        let p = parse(json!({"command": "prompt", "content": [
            {"type": "text", "text": "look"},
            {"type": "image", "media_type": "image/png", "data": "aGVsbG8="}
        ]}))
        .unwrap();
        let Command::Prompt(s) = p else { panic!() };
        assert_eq!(s.text, "look");
        assert_eq!(s.images.len(), 1);
        assert_eq!(s.images[0].media_type, "image/png");
        let bad = err(json!({"command": "prompt", "content": [
            {"type": "image", "media_type": "image/tiff", "data": "aGVsbG8="}
        ]}));
        assert!(bad.contains("Unsupported image type"), "{bad}");
    }
}
