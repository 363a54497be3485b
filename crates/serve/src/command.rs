//! Commands on `serve`'s stdin (reference §2.2, §2.6), read by the
//! protocol's reader (`seekclaw_protocol::openseek::Command::decode_checked`)
//! and turned into what the scheduler runs: images checked and taken in by
//! the engine's rules. A decode error's text goes back as `command_error`
//! and is wire contract.

use seekclaw_agent::{SteerKind, UserImage};
use seekclaw_protocol::Params;
use seekclaw_protocol::openseek::{self, Goal, ImagePart};
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
        /// What to do: `allow: true` is `allow_once`, `false` `reject`;
        /// a `decision` says it in full.
        decision: openseek::ApprovalDecision,
    },
    /// Rewind the session to before a user message (files, conversation or
    /// both); refused while a turn runs.
    Rewind(openseek::Rewind),
}

/// Decodes one JSON value (the line already parsed as JSON).
pub fn parse(value: Value) -> Result<Command, String> {
    let mut images = Vec::new();
    // The engine's image rules run inside the reader, where they always
    // ran: before the blank-text check and the steer's `kind`.
    let command = openseek::Command::decode_checked(value, &mut |parts| {
        images = checked(parts)?;
        Ok(())
    })?;
    let submission = |sub: openseek::Submission, images| Submission {
        text: sub.joined_text(),
        images,
        submission_id: sub.submission_id,
    };
    Ok(match command {
        openseek::Command::Prompt(sub) => Command::Prompt(submission(sub, images)),
        openseek::Command::Steer(steer) => Command::Steer(
            submission(steer.submission, images),
            match steer.kind {
                openseek::SteerKind::Prompt => SteerKind::Prompt,
                openseek::SteerKind::Command => SteerKind::Command,
            },
        ),
        openseek::Command::Compact => Command::Compact,
        openseek::Command::Cancel => Command::Cancel,
        openseek::Command::Goal(Goal::Set { text, auto }) => Command::GoalSet { text, auto },
        openseek::Command::Goal(Goal::Clear) => Command::GoalClear,
        openseek::Command::Approval {
            id,
            allow,
            decision,
        } => Command::Approval {
            id,
            decision: decision.unwrap_or(if allow {
                openseek::ApprovalDecision::AllowOnce
            } else {
                openseek::ApprovalDecision::Reject
            }),
        },
        openseek::Command::Rewind(rewind) => Command::Rewind(rewind),
    })
}

/// The daemon's image rules (types, sizes, count), so both front ends agree;
/// the images go in as the daemon's `images` entries (`name`, `mediaType`,
/// `data`).
fn checked(parts: &[&ImagePart]) -> Result<Vec<UserImage>, String> {
    let images = parts
        .iter()
        .enumerate()
        .map(|(i, p)| {
            // The reader names every image by its position; this only
            // covers a command built by hand.
            let name = p.name.clone().unwrap_or_else(|| format!("image-{}", i + 1));
            serde_json::json!({"name": name, "mediaType": p.media_type, "data": p.data})
        })
        .collect();
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
    fn rewind_reads_its_fields_and_refuses_a_wrong_type() {
        let Command::Rewind(r) = parse(json!({"command": "rewind", "seq": 4})).unwrap() else {
            panic!("not a rewind");
        };
        assert_eq!(
            (r.seq, r.restore, r.dry_run, r.force),
            (4, openseek::RewindRestore::Both, false, false)
        );
        let v = json!({"command": "rewind", "seq": 4, "restore": "code", "dryRun": true, "force": true});
        let Command::Rewind(r) = parse(v).unwrap() else {
            panic!("not a rewind");
        };
        assert_eq!(
            (r.restore, r.dry_run, r.force),
            (openseek::RewindRestore::Code, true, true)
        );
        let shape = "expected {\"command\": \"rewind\", \"seq\": integer, \
             \"restore\"?: \"code\"|\"conversation\"|\"both\", \"dry_run\"?: bool, \"force\"?: bool}";
        for bad in [
            json!({"command": "rewind"}),
            json!({"command": "rewind", "seq": -1}),
            json!({"command": "rewind", "seq": 1, "restore": "all"}),
            json!({"command": "rewind", "seq": 1, "force": "yes"}),
        ] {
            assert_eq!(err(bad), shape);
        }
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
                decision: openseek::ApprovalDecision::Reject
            }
        );
        // Ours: the decision in full, `allow` then implied.
        assert_eq!(
            parse(json!({"command": "approval", "id": "a", "decision": "allow_always"})).unwrap(),
            Command::Approval {
                id: "a".into(),
                decision: openseek::ApprovalDecision::AllowAlways
            }
        );
        assert_eq!(
            err(json!({"command": "approval", "id": "a", "decision": "maybe"})),
            "unknown approval decision: maybe"
        );
        assert_eq!(
            err(json!({"command": "approval", "id": "a", "decision": 1})),
            "expected {\"command\": \"approval\", \"id\": string, \"allow\": bool}"
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
