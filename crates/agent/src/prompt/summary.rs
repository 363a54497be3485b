//! Text of the compaction side request: the summarizer's instructions and the
//! history rendered as a plain transcript.

use seekclaw_providers::{ChatMessage, ImageData};

use super::cap_text;

const SUMMARIZER_SYSTEM: &str = include_str!("summarize.md");
/// Per-message caps inside the transcript: the summary needs the gist of a
/// long tool output, not all of it, and the request must fit a window.
const TRANSCRIPT_TOOL_CHARS: usize = 4_000;
const TRANSCRIPT_TEXT_CHARS: usize = 16_000;

pub(crate) fn summarizer_system() -> &'static str {
    SUMMARIZER_SYSTEM.trim()
}

/// `messages` as one tagged transcript followed by the request to summarize it.
/// Reasoning is left out; images become a placeholder.
pub(crate) fn transcript(messages: &[ChatMessage]) -> String {
    let mut out = String::from("<transcript>\n");
    for msg in messages {
        entry(&mut out, msg);
    }
    out.push_str(
        "</transcript>\n\nWrite the handoff summary of the transcript above now, following your instructions.",
    );
    out
}

fn entry(out: &mut String, msg: &ChatMessage) {
    match msg {
        ChatMessage::User { text, images } => {
            out.push_str("[user]\n");
            push_body(out, text, TRANSCRIPT_TEXT_CHARS);
            push_images(out, images);
        }
        ChatMessage::Assistant {
            text, tool_calls, ..
        } => {
            out.push_str("[assistant]\n");
            push_body(out, text, TRANSCRIPT_TEXT_CHARS);
            for call in tool_calls {
                out.push_str("[tool call] ");
                out.push_str(&call.name);
                out.push(' ');
                push_body(out, &call.arguments, TRANSCRIPT_TOOL_CHARS);
            }
        }
        ChatMessage::Tool {
            name,
            content,
            is_error,
            images,
            ..
        } => {
            out.push_str("[tool result: ");
            out.push_str(name);
            out.push_str(if *is_error { " (failed)]\n" } else { "]\n" });
            push_body(out, content, TRANSCRIPT_TOOL_CHARS);
            push_images(out, images);
        }
    }
}

fn push_body(out: &mut String, text: &str, cap: usize) {
    let text = text.trim();
    if !text.is_empty() {
        out.push_str(&cap_text(text, cap));
        out.push('\n');
    }
}

fn push_images(out: &mut String, images: &[ImageData]) {
    match images.len() {
        0 => {}
        1 => out.push_str("[1 image omitted]\n"),
        n => out.push_str(&format!("[{n} images omitted]\n")),
    }
}

#[cfg(test)]
mod tests {
    use seekclaw_providers::{Thinking, ToolCall};

    use super::*;

    fn image() -> ImageData {
        ImageData {
            media_type: "image/png".into(),
            data_base64: "AAAA".into(),
        }
    }

    #[test]
    fn transcript_shape() {
        let h = vec![
            ChatMessage::User {
                text: "fix the build".into(),
                images: vec![image()],
            },
            ChatMessage::Assistant {
                text: "looking".into(),
                thinking: Some(Thinking {
                    text: "SECRET-THOUGHT".into(),
                    signature: None,
                }),
                tool_calls: vec![ToolCall {
                    id: "1".into(),
                    name: "bash".into(),
                    arguments: r#"{"command":"cargo build"}"#.into(),
                }],
            },
            ChatMessage::Tool {
                call_id: "1".into(),
                name: "bash".into(),
                content: format!("START{}END", "e".repeat(20_000)),
                is_error: true,
                images: vec![image(), image()],
            },
            ChatMessage::Tool {
                call_id: "2".into(),
                name: "read_file".into(),
                content: "fn main() {}".into(),
                is_error: false,
                images: Vec::new(),
            },
        ];
        let text = transcript(&h);
        assert!(text.starts_with("<transcript>\n[user]\nfix the build\n[1 image omitted]\n"));
        assert!(
            text.contains("[assistant]\nlooking\n[tool call] bash {\"command\":\"cargo build\"}\n")
        );
        assert!(text.contains("[tool result: bash (failed)]\nSTART"));
        assert!(text.contains("END\n[2 images omitted]\n"));
        assert!(text.contains("[tool result: read_file]\nfn main() {}\n</transcript>"));
        assert!(text.contains("middle section trimmed"));
        assert!(!text.contains("SECRET-THOUGHT"), "reasoning left out");
        assert!(text.chars().count() < 6_000, "long results capped");
        let system = summarizer_system().to_lowercase();
        for part in ["goal", "files", "commands", "decisions", "open work"] {
            assert!(system.contains(part), "{part}");
        }
    }
}
