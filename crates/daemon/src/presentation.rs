//! What the desktop shows for the engine's data: flowchart labels and status
//! texts, in one table at the protocol edge (reference §3: the original
//! daemon's Chinese node labels and English status lines).

use std::borrow::Cow;

use seekclaw_agent::{TurnStatus, WorkflowNode};

/// The `workflow` event's label (its `data` and `details.label`).
pub fn workflow_label(node: &WorkflowNode) -> Cow<'_, str> {
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
        assert_eq!(workflow_label(&WorkflowNode::Start), "开始任务");
        assert_eq!(
            workflow_label(&WorkflowNode::Think { continuation: true }),
            "续写"
        );
        let tool = WorkflowNode::Tool {
            name: "read_file".into(),
        };
        assert_eq!(workflow_label(&tool), "read_file");
        assert_eq!(
            status_text(&TurnStatus::PreparingToolCall),
            "Preparing tool call"
        );
        assert_eq!(
            status_text(&TurnStatus::Tool("Reading files".into())),
            "Reading files"
        );
    }
}
