//! Context management: token estimates, tool-call/result pairing, fitting the
//! history into the model window, and planning/building compaction requests.
//!
//! There is no tokenizer: estimates are chars/4 plus fixed overheads, which
//! errs on the high side for code and English and keeps every provider happy.
//!
//! A *unit* is a non-tool message together with the tool results that follow
//! it (an assistant step and its results). Trimming and compaction only cut at
//! unit boundaries, so a tool result never loses its call.

use std::ops::Range;

use seekclaw_config::ReasoningLevel;
use seekclaw_providers::args::sanitize_arguments;
use seekclaw_providers::{ChatMessage, ChatRequest};

use crate::prompt::summary;

/// Fixed per-message cost (role, separators, wrapper tokens).
pub const MESSAGE_OVERHEAD_TOKENS: u64 = 8;
/// What one attached image is assumed to cost.
pub const IMAGE_TOKENS: u64 = 1200;
/// Head-room left free in the window for estimate error and wire framing.
pub const SAFETY_MARGIN_TOKENS: u64 = 1500;
/// Trimming never leaves fewer messages than this (unless there were fewer).
pub const MIN_KEPT_MESSAGES: usize = 6;
/// Compaction is worth a summary call only when fitting would drop this many.
pub const COMPACTION_MIN_DROPPED: usize = 4;
/// Smallest token share of the recent tail kept verbatim by compaction.
pub const MIN_TAIL_TOKENS: u64 = 1024;
/// Output cap of the summary request.
pub const SUMMARY_MAX_OUTPUT: u64 = 4096;

/// User note put in front of a trimmed history.
pub const TRIM_NOTE: &str =
    "[Earlier conversation history was trimmed to fit the model's context window.]";
/// Content of the failure result that stands in for a missing tool result.
pub const MISSING_RESULT: &str =
    "Tool execution did not complete. Retry the tool if its result is still needed.";
/// Start of every compaction summary message.
pub const SUMMARY_PREFIX: &str = ">>> [Context compaction]";

/// Estimated tokens of a text: ceil(chars / 4).
pub fn estimate_text(text: &str) -> u64 {
    (text.chars().count() as u64).div_ceil(4)
}

/// Estimated prompt tokens of one message: its text, reasoning, tool-call
/// names and arguments at chars/4, plus a fixed overhead and a flat cost per image.
pub fn estimate_tokens(msg: &ChatMessage) -> u64 {
    let (chars, images) = match msg {
        ChatMessage::User { text, images } => (text.chars().count(), images.len()),
        ChatMessage::Assistant {
            text,
            thinking,
            tool_calls,
        } => {
            let thinking = thinking.as_ref().map_or(0, |t| t.text.chars().count());
            let calls: usize = tool_calls
                .iter()
                .map(|c| c.name.chars().count() + c.arguments.chars().count())
                .sum();
            (text.chars().count() + thinking + calls, 0)
        }
        ChatMessage::Tool {
            name,
            content,
            images,
            ..
        } => (name.chars().count() + content.chars().count(), images.len()),
    };
    (chars as u64).div_ceil(4) + MESSAGE_OVERHEAD_TOKENS + images as u64 * IMAGE_TOKENS
}

/// Sum of [`estimate_tokens`].
pub fn estimate_all(messages: &[ChatMessage]) -> u64 {
    messages.iter().map(estimate_tokens).sum()
}

/// [`repair_pairs_with_origin`] without the origins.
#[cfg(test)]
pub fn repair_pairs(history: &mut Vec<ChatMessage>) {
    repair_pairs_with_origin(history);
}

/// Makes the history acceptable to every provider: each assistant tool call is
/// followed by exactly one result, in call order; results without a call are
/// dropped; a missing result becomes a failure ([`MISSING_RESULT`]); call
/// arguments are sanitized to a JSON object. Returns for each message of the
/// repaired history the index it had before (`None` for a synthesized failure
/// result), so side tables (event sequence numbers) stay aligned.
///
/// A step's results are searched up to the next assistant message, so a user
/// message that slipped between a call and its result (a steer) keeps the
/// result; such messages move after the step's results.
pub fn repair_pairs_with_origin(history: &mut Vec<ChatMessage>) -> Vec<Option<usize>> {
    let mut slots: Vec<Option<ChatMessage>> =
        std::mem::take(history).into_iter().map(Some).collect();
    let mut out: Vec<ChatMessage> = Vec::with_capacity(slots.len());
    let mut origin: Vec<Option<usize>> = Vec::with_capacity(slots.len());
    let mut i = 0;
    while i < slots.len() {
        let Some(mut msg) = slots[i].take() else {
            i += 1;
            continue;
        };
        match &mut msg {
            // Reached only when no call claimed it: an orphan.
            ChatMessage::Tool { .. } => {
                i += 1;
                continue;
            }
            ChatMessage::Assistant { tool_calls, .. } if !tool_calls.is_empty() => {
                for call in tool_calls.iter_mut() {
                    let clean = sanitize_arguments(&call.arguments);
                    if clean != call.arguments {
                        call.arguments = clean.into_owned();
                    }
                }
                let calls: Vec<(String, String)> = tool_calls
                    .iter()
                    .map(|c| (c.id.clone(), c.name.clone()))
                    .collect();
                let step_end = (i + 1..slots.len())
                    .find(|&j| matches!(slots[j], Some(ChatMessage::Assistant { .. })))
                    .unwrap_or(slots.len());
                out.push(msg);
                origin.push(Some(i));
                for (id, name) in calls {
                    match take_result(&mut slots[i + 1..step_end], &id) {
                        Some((offset, result)) => {
                            out.push(result);
                            origin.push(Some(i + 1 + offset));
                        }
                        None => {
                            out.push(missing_result(id, name));
                            origin.push(None);
                        }
                    }
                }
            }
            _ => {
                out.push(msg);
                origin.push(Some(i));
            }
        }
        i += 1;
    }
    *history = out;
    origin
}

/// Removes the first tool result for `call_id` from `slots`.
fn take_result(slots: &mut [Option<ChatMessage>], call_id: &str) -> Option<(usize, ChatMessage)> {
    let offset = slots
        .iter()
        .position(|m| matches!(m, Some(ChatMessage::Tool { call_id: id, .. }) if id == call_id))?;
    slots[offset].take().map(|m| (offset, m))
}

fn missing_result(call_id: String, name: String) -> ChatMessage {
    ChatMessage::Tool {
        call_id,
        name,
        content: MISSING_RESULT.to_string(),
        is_error: true,
        images: Vec::new(),
    }
}

/// Token sizes that decide how much history a request can carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    pub context_window: u64,
    pub max_output: u64,
    /// Estimate of the system prompt (and anything else sent besides history).
    pub system_tokens: u64,
}

impl Budget {
    /// window − max_output − system − [`SAFETY_MARGIN_TOKENS`]; when that leaves
    /// nothing (a model whose output cap nearly fills its window), half the window.
    pub fn history_budget(&self) -> u64 {
        let left = self
            .context_window
            .checked_sub(self.max_output)
            .and_then(|v| v.checked_sub(self.system_tokens))
            .and_then(|v| v.checked_sub(SAFETY_MARGIN_TOKENS))
            .unwrap_or(0);
        if left == 0 {
            self.context_window / 2
        } else {
            left
        }
    }
}

/// The history to send, after trimming.
#[derive(Debug, Clone, PartialEq)]
pub struct Fitted {
    /// Starts with the [`TRIM_NOTE`] user message when anything was dropped.
    pub messages: Vec<ChatMessage>,
    /// How many messages of the input were left out.
    pub dropped: usize,
}

/// Drops the oldest units while the history is over `budget` tokens and at
/// least [`MIN_KEPT_MESSAGES`] messages would remain. Tool results at the very
/// start (their call is gone) are always dropped. Expects a repaired history.
pub fn fit(history: &[ChatMessage], budget: u64) -> Fitted {
    let start = fit_start(history, budget);
    let mut messages = Vec::with_capacity(history.len() - start + 1);
    if start > 0 {
        messages.push(ChatMessage::User {
            text: TRIM_NOTE.to_string(),
            images: Vec::new(),
        });
    }
    messages.extend_from_slice(&history[start..]);
    Fitted {
        messages,
        dropped: start,
    }
}

/// Index of the first message [`fit`] keeps.
fn fit_start(history: &[ChatMessage], budget: u64) -> usize {
    let mut start = history.iter().take_while(|m| is_tool(m)).count();
    let mut total = estimate_all(&history[start..]);
    while total > budget && start < history.len() {
        let end = unit_end(history, start);
        if history.len() - end < MIN_KEPT_MESSAGES {
            break;
        }
        total -= estimate_all(&history[start..end]);
        start = end;
    }
    start
}

/// End (exclusive) of the unit that starts at `start`.
fn unit_end(history: &[ChatMessage], start: usize) -> usize {
    start
        + 1
        + history
            .iter()
            .skip(start + 1)
            .take_while(|m| is_tool(m))
            .count()
}

fn is_tool(msg: &ChatMessage) -> bool {
    matches!(msg, ChatMessage::Tool { .. })
}

/// Which part of the history to replace by a summary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompactionPlan {
    /// Messages to summarize: always `0..keep_from`.
    pub summarize: Range<usize>,
    /// First message of the tail that stays verbatim; never a tool result.
    pub keep_from: usize,
}

/// A compaction plan when fitting `history` into `budget` would drop at least
/// [`COMPACTION_MIN_DROPPED`] messages. The tail keeps whole units counted from
/// the end while they fit max([`MIN_TAIL_TOKENS`], budget / 2) tokens, and
/// always the last unit. `None` when there is nothing worth summarizing.
/// Expects a repaired history.
pub fn plan_compaction(history: &[ChatMessage], budget: u64) -> Option<CompactionPlan> {
    if fit_start(history, budget) < COMPACTION_MIN_DROPPED {
        return None;
    }
    let tail_budget = MIN_TAIL_TOKENS.max(budget / 2);
    let mut keep_from = history.len();
    let mut tail_tokens = 0u64;
    // Unit starts, newest first; leading orphan results are no unit start.
    let starts = (0..history.len()).rev().filter(|&i| !is_tool(&history[i]));
    for unit_start in starts {
        let unit_tokens = estimate_all(&history[unit_start..keep_from]);
        if keep_from < history.len() && tail_tokens + unit_tokens > tail_budget {
            break;
        }
        tail_tokens += unit_tokens;
        keep_from = unit_start;
    }
    let worth_it = history[..keep_from].iter().any(|m| !is_tool(m));
    (worth_it && keep_from < history.len()).then_some(CompactionPlan {
        summarize: 0..keep_from,
        keep_from,
    })
}

/// The side request that summarizes `messages_to_summarize`. The messages go
/// in as one plain-text transcript rather than as chat turns: no tools are
/// offered, and some providers reject tool calls in a request without tools;
/// it also keeps the summarizer from taking the content as instructions.
/// Images are replaced by a placeholder; long contents are cut in the middle.
/// `max_output` is the model's cap; the request asks for at most
/// [`SUMMARY_MAX_OUTPUT`].
pub fn summary_request(messages_to_summarize: &[ChatMessage], max_output: u64) -> ChatRequest {
    let cap = if max_output == 0 {
        SUMMARY_MAX_OUTPUT
    } else {
        max_output.min(SUMMARY_MAX_OUTPUT)
    };
    ChatRequest {
        system: summary::summarizer_system().to_string(),
        messages: vec![ChatMessage::User {
            text: summary::transcript(messages_to_summarize),
            images: Vec::new(),
        }],
        tools: Vec::new(),
        max_output: Some(cap),
        temperature: None,
        reasoning: ReasoningLevel::None,
        thinking_budget_tokens: 0,
    }
}

/// The user message that stands for a summarized range of history.
pub fn summary_message(summary: &str) -> ChatMessage {
    ChatMessage::User {
        text: format!(
            "{SUMMARY_PREFIX} Earlier parts of this conversation were condensed into the summary below. \
             Continue from it; re-read files when you need their exact current contents.\n\n{}",
            summary.trim()
        ),
        images: Vec::new(),
    }
}

/// `history` with `plan.summarize` replaced by [`summary_message`].
pub fn apply_compaction(
    history: &[ChatMessage],
    plan: &CompactionPlan,
    summary: &str,
) -> Vec<ChatMessage> {
    let tail = history.get(plan.keep_from..).unwrap_or_default();
    let mut out = Vec::with_capacity(tail.len() + 1);
    out.push(summary_message(summary));
    out.extend_from_slice(tail);
    out
}

#[cfg(test)]
mod tests {
    use seekclaw_providers::{ImageData, Thinking, ToolCall};

    use super::*;

    fn user(text: &str) -> ChatMessage {
        ChatMessage::User {
            text: text.into(),
            images: Vec::new(),
        }
    }

    fn assistant(text: &str) -> ChatMessage {
        ChatMessage::Assistant {
            text: text.into(),
            thinking: None,
            tool_calls: Vec::new(),
        }
    }

    fn calls(ids: &[&str]) -> ChatMessage {
        ChatMessage::Assistant {
            text: String::new(),
            thinking: None,
            tool_calls: ids
                .iter()
                .map(|id| ToolCall {
                    id: (*id).into(),
                    name: format!("tool_{id}"),
                    arguments: "{}".into(),
                })
                .collect(),
        }
    }

    fn result(id: &str, content: &str) -> ChatMessage {
        ChatMessage::Tool {
            call_id: id.into(),
            name: format!("tool_{id}"),
            content: content.into(),
            is_error: false,
            images: Vec::new(),
        }
    }

    fn image() -> ImageData {
        ImageData {
            media_type: "image/png".into(),
            data_base64: "AAAA".into(),
        }
    }

    /// Compact shape of a history: `u`, `a`, `a[x,y]`, `t:x`, `t!:x` (failure).
    fn shape(history: &[ChatMessage]) -> Vec<String> {
        history
            .iter()
            .map(|m| match m {
                ChatMessage::User { .. } => "u".to_string(),
                ChatMessage::Assistant { tool_calls, .. } if tool_calls.is_empty() => {
                    "a".to_string()
                }
                ChatMessage::Assistant { tool_calls, .. } => {
                    let ids: Vec<&str> = tool_calls.iter().map(|c| c.id.as_str()).collect();
                    format!("a[{}]", ids.join(","))
                }
                ChatMessage::Tool {
                    call_id, is_error, ..
                } => format!("t{}:{call_id}", if *is_error { "!" } else { "" }),
            })
            .collect()
    }

    fn no_orphans(history: &[ChatMessage]) {
        let mut expected: Vec<String> = Vec::new();
        for m in history {
            match m {
                ChatMessage::Tool { call_id, .. } => {
                    assert!(
                        !expected.is_empty(),
                        "orphan {call_id}: {:?}",
                        shape(history)
                    );
                    assert_eq!(&expected.remove(0), call_id);
                }
                other => {
                    assert!(expected.is_empty(), "unanswered: {:?}", shape(history));
                    if let ChatMessage::Assistant { tool_calls, .. } = other {
                        expected = tool_calls.iter().map(|c| c.id.clone()).collect();
                    }
                }
            }
        }
    }

    #[test]
    fn estimates() {
        assert_eq!(estimate_text(""), 0);
        assert_eq!(estimate_text("abcd"), 1);
        assert_eq!(estimate_text("abcde"), 2);
        assert_eq!(estimate_text("中文字符"), 1, "characters, not bytes");
        assert_eq!(estimate_tokens(&user("")), 8);
        assert_eq!(estimate_tokens(&user("abcdefgh")), 2 + 8);
        let with_images = ChatMessage::User {
            text: "abcd".into(),
            images: vec![image(), image()],
        };
        assert_eq!(estimate_tokens(&with_images), 1 + 8 + 2400);
        let step = ChatMessage::Assistant {
            text: "abcd".into(),
            thinking: Some(Thinking {
                text: "abcd".into(),
                signature: Some("sig".into()),
            }),
            tool_calls: vec![ToolCall {
                id: "call_1".into(),
                name: "bash".into(),
                arguments: r#"{"c":"ls"}"#.into(),
            }],
        };
        // 4 text + 4 thinking + 4 name + 10 args = 22 chars → 6.
        assert_eq!(estimate_tokens(&step), 6 + 8);
        let tool = ChatMessage::Tool {
            call_id: "x".into(),
            name: "read".into(),
            content: "abcd".into(),
            is_error: false,
            images: vec![image()],
        };
        assert_eq!(estimate_tokens(&tool), 2 + 8 + 1200);
        assert_eq!(estimate_all(&[user("abcd"), tool]), 9 + 1210);
    }

    #[test]
    fn repair_keeps_a_valid_history() {
        let mut h = vec![
            user("q"),
            calls(&["1", "2"]),
            result("1", "a"),
            result("2", "b"),
            assistant("done"),
        ];
        let before = h.clone();
        let origin = repair_pairs_with_origin(&mut h);
        assert_eq!(h, before);
        assert_eq!(origin, (0..5).map(Some).collect::<Vec<_>>());
    }

    #[test]
    fn repair_orders_results_as_the_calls() {
        let mut h = vec![
            calls(&["1", "2", "3"]),
            result("3", "c"),
            result("1", "a"),
            result("2", "b"),
        ];
        let origin = repair_pairs_with_origin(&mut h);
        assert_eq!(shape(&h), ["a[1,2,3]", "t:1", "t:2", "t:3"]);
        assert_eq!(origin, [Some(0), Some(2), Some(3), Some(1)]);
    }

    #[test]
    fn repair_fills_missing_and_drops_orphans() {
        let mut h = vec![
            result("0", "orphan at start"),
            user("q"),
            calls(&["1", "2"]),
            result("2", "b"),
            result("9", "unknown id"),
            result("2", "duplicate"),
            user("next"),
            result("1", "late, after a user message"),
            calls(&["3"]),
            assistant("end"),
            result("3", "belongs to an earlier step"),
        ];
        let origin = repair_pairs_with_origin(&mut h);
        assert_eq!(
            shape(&h),
            ["u", "a[1,2]", "t:1", "t:2", "u", "a[3]", "t!:3", "a"]
        );
        assert_eq!(
            origin,
            [
                Some(1),
                Some(2),
                Some(7),
                Some(3),
                Some(6),
                Some(8),
                None,
                Some(9)
            ]
        );
        let ChatMessage::Tool {
            content,
            is_error,
            name,
            ..
        } = &h[6]
        else {
            panic!("not a tool result: {:?}", h[6]);
        };
        assert_eq!(content, MISSING_RESULT);
        assert!(*is_error);
        assert_eq!(name, "tool_3");
        no_orphans(&h);
    }

    #[test]
    fn repair_sanitizes_arguments() {
        let mut h = vec![ChatMessage::Assistant {
            text: String::new(),
            thinking: None,
            tool_calls: vec![
                ToolCall {
                    id: "1".into(),
                    name: "read_file".into(),
                    arguments: r#"{"path":"src/ma"#.into(),
                },
                ToolCall {
                    id: "2".into(),
                    name: "list_dir".into(),
                    arguments: String::new(),
                },
            ],
        }];
        repair_pairs(&mut h);
        let ChatMessage::Assistant { tool_calls, .. } = &h[0] else {
            panic!("assistant expected");
        };
        assert_eq!(tool_calls[0].arguments, r#"{"path":"src/ma"}"#);
        assert_eq!(tool_calls[1].arguments, "{}");
        assert_eq!(shape(&h), ["a[1,2]", "t!:1", "t!:2"]);
    }

    #[test]
    fn budget() {
        let b = Budget {
            context_window: 128_000,
            max_output: 8_000,
            system_tokens: 3_500,
        };
        assert_eq!(b.history_budget(), 115_000);
        let tight = Budget {
            context_window: 10_000,
            max_output: 8_000,
            system_tokens: 500,
        };
        assert_eq!(tight.history_budget(), 5_000);
        let exact = Budget {
            context_window: 10_000,
            max_output: 8_000,
            system_tokens: 500,
        };
        assert_eq!(exact.history_budget(), 5_000);
        let zero = Budget {
            context_window: 0,
            max_output: 0,
            system_tokens: 0,
        };
        assert_eq!(zero.history_budget(), 0);
    }

    /// `n` user/assistant exchanges of `size` chars each (≈ size/4 + 8 tokens).
    fn chat(n: usize, size: usize) -> Vec<ChatMessage> {
        let body = "x".repeat(size);
        (0..n)
            .flat_map(|_| [user(&body), assistant(&body)])
            .collect()
    }

    #[test]
    fn fit_within_budget_is_untouched() {
        let h = chat(5, 40);
        let f = fit(&h, estimate_all(&h));
        assert_eq!(f.dropped, 0);
        assert_eq!(f.messages, h);
    }

    #[test]
    fn fit_drops_oldest_and_keeps_newest() {
        let h = chat(10, 400); // 20 messages of 108 tokens
        let f = fit(&h, 108 * 8);
        assert_eq!(f.dropped, 12);
        assert_eq!(f.messages.len(), 9);
        assert_eq!(f.messages[0], user(TRIM_NOTE));
        assert_eq!(&f.messages[1..], &h[12..]);
        // Never fewer than six kept, even far over budget.
        let f = fit(&h, 0);
        assert_eq!(f.dropped, 14);
        assert_eq!(&f.messages[1..], &h[14..]);
    }

    #[test]
    fn fit_never_orphans_tool_results() {
        let big = "y".repeat(4_000);
        let mut h = vec![user("q"), calls(&["1", "2", "3"])];
        h.extend(["1", "2", "3"].map(|id| result(id, &big)));
        h.push(calls(&["4"]));
        h.push(result("4", &big));
        h.extend(chat(3, 40));
        for budget in [0, 100, 500, 1_000, 1_500, 2_100, 3_200, 5_000] {
            let f = fit(&h, budget);
            no_orphans(&f.messages[usize::from(f.dropped > 0)..]);
            assert_eq!(f.messages.last(), h.last(), "newest kept at {budget}");
            assert!(
                !matches!(f.messages.first(), Some(ChatMessage::Tool { .. })),
                "starts with a result at {budget}"
            );
            assert_eq!(
                f.dropped + f.messages.len() - usize::from(f.dropped > 0),
                h.len()
            );
        }
        // A result-led history (call already gone) is cut even within budget.
        let mut led = vec![result("0", "old")];
        led.extend(chat(1, 4));
        let f = fit(&led, u64::MAX);
        assert_eq!(f.dropped, 1);
        assert_eq!(shape(&f.messages), ["u", "u", "a"]);
    }

    #[test]
    fn compaction_needs_four_dropped_messages() {
        let h = chat(10, 400); // 108 tokens per message
        let total = estimate_all(&h);
        assert_eq!(plan_compaction(&h, total), None);
        // Dropping one or three messages is not worth a summary.
        assert_eq!(plan_compaction(&h, total - 1), None);
        assert_eq!(plan_compaction(&h, total - 108 * 3), None);
        // Dropping four is.
        assert!(plan_compaction(&h, total - 108 * 3 - 1).is_some());
    }

    #[test]
    fn compaction_tail_by_tokens() {
        let h = chat(10, 400); // 20 messages, 108 tokens each
        // Tail budget max(1024, 1500 / 2) = 1024 → 9 messages (972 tokens).
        let plan = plan_compaction(&h, 1_500).unwrap();
        assert_eq!(plan.keep_from, 11);
        assert_eq!(plan.summarize, 0..11);
        // Tail budget 3000 / 2 = 1500 → 13 messages (1404 tokens).
        let h = chat(20, 400);
        let plan = plan_compaction(&h, 3_000).unwrap();
        assert_eq!(plan.keep_from, 40 - 13);
        let compacted = apply_compaction(&h, &plan, "S");
        assert_eq!(compacted.len(), 14);
        assert_eq!(compacted[0], summary_message("S"));
        assert_eq!(&compacted[1..], &h[27..]);
    }

    #[test]
    fn compaction_tail_never_starts_with_a_result() {
        let mid = "z".repeat(1_600); // 400 + 8 tokens per result
        let mut h = chat(4, 400);
        h.push(calls(&["1", "2", "3"]));
        h.extend(["1", "2", "3"].map(|id| result(id, &mid)));
        h.push(assistant("ok"));
        // The last unit (10 tokens) fits; the step with its results (~1240)
        // does not fit 1024, so the tail is only the final message.
        let plan = plan_compaction(&h, 1_000).unwrap();
        assert_eq!(plan.keep_from, h.len() - 1);
        // The last unit is always kept whole, however large.
        let mut h = chat(4, 400);
        h.push(calls(&["1", "2", "3"]));
        h.extend(["1", "2", "3"].map(|id| result(id, &mid)));
        let plan = plan_compaction(&h, 100).unwrap();
        assert_eq!(plan.keep_from, 8);
        assert!(matches!(h[plan.keep_from], ChatMessage::Assistant { .. }));
        for budget in [0, 500, 1_000, 2_000, 3_000] {
            if let Some(plan) = plan_compaction(&h, budget) {
                assert!(!matches!(h[plan.keep_from], ChatMessage::Tool { .. }));
                assert_eq!(plan.summarize, 0..plan.keep_from);
            }
        }
    }

    #[test]
    fn compaction_without_anything_to_summarize() {
        // Everything fits the minimum tail: nothing would be summarized.
        let h = chat(10, 4);
        assert_eq!(plan_compaction(&h, 0), None);
    }

    #[test]
    fn summary_request_shape() {
        let h = vec![
            ChatMessage::User {
                text: "fix the build".into(),
                images: vec![image()],
            },
            calls(&["1"]),
            result("1", "error[E0432]"),
        ];
        let req = summary_request(&h, 32_000);
        assert_eq!(req.max_output, Some(SUMMARY_MAX_OUTPUT));
        assert_eq!(summary_request(&h, 1_000).max_output, Some(1_000));
        assert_eq!(summary_request(&h, 0).max_output, Some(SUMMARY_MAX_OUTPUT));
        assert_eq!(req.reasoning, ReasoningLevel::None);
        assert_eq!(req.thinking_budget_tokens, 0);
        assert!(req.tools.is_empty());
        assert_eq!(req.temperature, None);
        assert!(req.system.contains("handoff"));
        assert_eq!(req.messages.len(), 1);
        let ChatMessage::User { text, images } = &req.messages[0] else {
            panic!("one user message expected");
        };
        assert!(images.is_empty(), "images stripped");
        assert!(text.contains("[user]\nfix the build\n[1 image omitted]"));
        assert!(text.contains("[tool result: tool_1]\nerror[E0432]"));
    }

    #[test]
    fn summary_message_shape() {
        let ChatMessage::User { text, images } = summary_message("  the summary \n") else {
            panic!("user message expected");
        };
        assert!(text.starts_with(">>> [Context compaction]"));
        assert!(text.ends_with("\n\nthe summary"));
        assert!(images.is_empty());
    }
}
