//! What the daemon writes for people, in one table at the protocol edge:
//! flowchart labels and status texts (reference §3: the original daemon's
//! Chinese node labels and English status lines), scheduled sessions' titles
//! and run outcomes (§7.1). `ui.language` picks Chinese (the default, what
//! the desktop shows) or English; our own front ends always take English.

use std::borrow::Cow;
use std::time::Duration;

use seekclaw_agent::{AgentEvent, TurnStatus, WorkflowNode};
use seekclaw_config::UiLanguage;
use seekclaw_protocol::wording;

/// The line a front end shows for a failover or a retry (the protocol's
/// wording); `None` for other events.
pub fn model_notice(ev: &AgentEvent) -> Option<String> {
    match ev {
        AgentEvent::Failover {
            failed, error, to, ..
        } => Some(wording::failover_notice(failed, error, to)),
        AgentEvent::Retry {
            model,
            attempt,
            max_attempts,
            reason,
            delay_ms,
            ..
        } => Some(wording::retry_notice(
            model,
            *attempt,
            *max_attempts,
            reason,
            *delay_ms,
        )),
        _ => None,
    }
}

/// The `workflow` event's label (its `data` and `details.label`).
pub fn workflow_label(node: &WorkflowNode, lang: UiLanguage) -> Cow<'_, str> {
    if lang == UiLanguage::En {
        return english_label(node);
    }
    Cow::Borrowed(match node {
        WorkflowNode::Start => "开始任务",
        WorkflowNode::Think {
            continuation: false,
        } => "思考",
        WorkflowNode::Think { continuation: true } => "续写",
        // A tool node is labelled with the tool's name.
        WorkflowNode::Tool { name } => return Cow::Borrowed(name),
        WorkflowNode::Compact => "压缩记忆",
        WorkflowNode::Verify => "构建验证",
        WorkflowNode::Repair => "修复",
        WorkflowNode::Done => "任务完成",
        WorkflowNode::Error => "错误",
    })
}

fn english_label(node: &WorkflowNode) -> Cow<'_, str> {
    Cow::Borrowed(match node {
        WorkflowNode::Start => "Start",
        WorkflowNode::Think {
            continuation: false,
        } => "Think",
        WorkflowNode::Think { continuation: true } => "Continue",
        WorkflowNode::Tool { name } => return Cow::Borrowed(name),
        WorkflowNode::Compact => "Compact context",
        WorkflowNode::Verify => "Verify",
        WorkflowNode::Repair => "Repair",
        WorkflowNode::Done => "Done",
        WorkflowNode::Error => "Error",
    })
}

/// The title of a scheduled run's session.
pub fn scheduled_title(task: &str, lang: UiLanguage) -> String {
    match lang {
        UiLanguage::Zh => format!("{task}（计划任务）"),
        UiLanguage::En => format!("{task} (scheduled)"),
    }
}

/// Why a scheduled run was cancelled (its `lastError`).
pub fn run_cancelled(why: RunCancel, lang: UiLanguage) -> String {
    match (why, lang) {
        (RunCancel::Timeout(limit), UiLanguage::Zh) => {
            format!("任务执行超过 {} 秒，已中止", limit.as_secs())
        }
        (RunCancel::Timeout(limit), UiLanguage::En) => {
            format!("The run took over {} s and was stopped", limit.as_secs())
        }
        (RunCancel::Shutdown, UiLanguage::Zh) => "任务已取消".into(),
        (RunCancel::Shutdown, UiLanguage::En) => "The run was cancelled".into(),
        (RunCancel::Deleted, UiLanguage::Zh) => "任务已删除，已取消".into(),
        (RunCancel::Deleted, UiLanguage::En) => {
            "The task was deleted; its run was cancelled".into()
        }
    }
}

/// Why a scheduled run was cancelled, as data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunCancel {
    /// It ran past `agent.scheduledTurnTimeoutSeconds`.
    Timeout(Duration),
    /// The daemon stopped.
    Shutdown,
    /// Its task was deleted.
    Deleted,
}

/// The `status` event's text.
pub fn status_text(status: &TurnStatus) -> Cow<'_, str> {
    Cow::Borrowed(match status {
        TurnStatus::Thinking => "Thinking",
        TurnStatus::PreparingToolCall => "Preparing tool call",
        TurnStatus::Tool(text) => return Cow::Borrowed(text),
        TurnStatus::OutputTruncated => "Output truncated; continuing",
        TurnStatus::Verifying => "Verifying",
        TurnStatus::CompactingContext => "Compacting context",
        TurnStatus::ContextCompacted => "Context compacted",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_the_originals() {
        let zh = UiLanguage::Zh;
        assert_eq!(workflow_label(&WorkflowNode::Start, zh), "开始任务");
        assert_eq!(
            workflow_label(&WorkflowNode::Think { continuation: true }, zh),
            "续写"
        );
        let tool = WorkflowNode::Tool {
            name: "read_file".into(),
        };
        assert_eq!(workflow_label(&tool, zh), "read_file");
        assert_eq!(scheduled_title("a", zh), "a（计划任务）");
        assert_eq!(
            status_text(&TurnStatus::PreparingToolCall),
            "Preparing tool call"
        );
        assert_eq!(
            status_text(&TurnStatus::Tool("Reading files".into())),
            "Reading files"
        );
    }

    #[test]
    fn english_has_no_chinese() {
        let en = UiLanguage::En;
        let nodes = [
            WorkflowNode::Start,
            WorkflowNode::Think {
                continuation: false,
            },
            WorkflowNode::Think { continuation: true },
            WorkflowNode::Compact,
            WorkflowNode::Verify,
            WorkflowNode::Repair,
            WorkflowNode::Done,
            WorkflowNode::Error,
        ];
        let mut all: Vec<String> = nodes
            .iter()
            .map(|n| workflow_label(n, en).into_owned())
            .collect();
        all.push(scheduled_title("t", en));
        for why in [
            RunCancel::Timeout(Duration::from_secs(60)),
            RunCancel::Shutdown,
            RunCancel::Deleted,
        ] {
            all.push(run_cancelled(why, en));
        }
        for text in all {
            assert!(text.is_ascii(), "{text}");
        }
    }
}
