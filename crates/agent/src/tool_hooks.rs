//! The hooks around one tool call: `PreToolUse` before the approval check
//! (it may block, allow, ask or change the call) and `PostToolUse` /
//! `PostToolUseFailure` after it ran (what they say reaches the model in
//! the call's result).

use seekclaw_policy::names::{claude_input, claude_name, our_input};
use seekclaw_policy::{HookEvent, Verdict};
use seekclaw_providers::types::ToolCall;
use seekclaw_tools::ToolOutput;
use serde_json::{Value, json};

use crate::ask::AskCx;
use crate::hooks::{About, fields};

/// Runs the `PreToolUse` hooks; `Ok` carries a hook's allow or ask (the
/// call's arguments may have been changed), `Err` the result the model
/// reads for a call that must not run.
pub(crate) async fn before(
    ask: &AskCx<'_>,
    call: &ToolCall,
    args: &mut Value,
) -> Result<Option<Verdict>, String> {
    let Some(p) = ask.policy.filter(|p| p.wants(HookEvent::PreToolUse)) else {
        return Ok(None);
    };
    let claude = claude_name(&call.name);
    let v = p
        .fire(
            &ask.sink(),
            HookEvent::PreToolUse,
            &[claude, &call.name],
            call_fields(ask, call, args, None),
            About {
                call_id: Some(&call.id),
                tool: Some(claude),
            },
        )
        .await;
    if let Some(why) = v.stop {
        ask.request_stop(why.clone());
        return Err(format!(
            "A PreToolUse hook stopped the turn; this call was not run: {why}"
        ));
    }
    if let Some(reason) = v.block {
        return Err(format!(
            "A PreToolUse hook blocked this call; it was not run: {reason}"
        ));
    }
    if let Some((Verdict::Deny, why)) = &v.permission {
        return Err(format!(
            "A PreToolUse hook denied this call; it was not run{}",
            why.as_ref().map(|w| format!(": {w}")).unwrap_or_default()
        ));
    }
    if let Some(updated) = &v.updated_input {
        *args = our_input(&call.name, args, updated);
    }
    Ok(v.permission.map(|(verdict, _)| verdict))
}

/// A tool event's input: the call under Claude Code's names and ours, and
/// what it returned (`PostToolUse`) or how it failed.
fn call_fields(
    ask: &AskCx<'_>,
    call: &ToolCall,
    args: &Value,
    outcome: Option<(&str, Value)>,
) -> serde_json::Map<String, Value> {
    let mut f = fields([
        ("tool_name", Value::from(claude_name(&call.name))),
        (
            "tool_input",
            claude_input(&call.name, args, &ask.ctx.workspace_root),
        ),
        ("tool_use_id", Value::from(call.id.as_str())),
        ("seekclaw_tool_name", Value::from(call.name.as_str())),
        ("seekclaw_tool_input", args.clone()),
    ]);
    if let Some((k, v)) = outcome {
        f.insert(k.to_string(), v);
    }
    f
}

/// Whether hooks will run after `call` (it then counts as a change for the
/// workspace's checkpoints: a formatter may rewrite any file).
pub(crate) fn will_run_after(ask: &AskCx<'_>, call: &ToolCall) -> bool {
    let Some(p) = ask.policy else {
        return false;
    };
    let names = [claude_name(&call.name), call.name.as_str()];
    [HookEvent::PostToolUse, HookEvent::PostToolUseFailure]
        .into_iter()
        .any(|e| !p.policy.hooks.matching(e, &names).is_empty())
}

/// Runs the `PostToolUse` (or, for a failed call, `PostToolUseFailure`)
/// hooks; their feedback and context are added to the result the model
/// reads. Returns whether any ran (a formatter may have changed any file).
pub(crate) async fn after(
    ask: &AskCx<'_>,
    call: &ToolCall,
    args: &Value,
    out: &mut ToolOutput,
) -> bool {
    let event = if out.success {
        HookEvent::PostToolUse
    } else {
        HookEvent::PostToolUseFailure
    };
    let Some(p) = ask.policy.filter(|p| p.wants(event)) else {
        return false;
    };
    let claude = claude_name(&call.name);
    if p.policy
        .hooks
        .matching(event, &[claude, &call.name])
        .is_empty()
    {
        return false;
    }
    let outcome = if out.success {
        (
            "tool_response",
            json!({
                "success": true,
                "output": out.content,
                "filePath": out.file_path,
            }),
        )
    } else {
        ("error", Value::from(out.content.clone()))
    };
    let v = p
        .fire(
            &ask.sink(),
            event,
            &[claude, &call.name],
            call_fields(ask, call, args, Some(outcome)),
            About {
                call_id: Some(&call.id),
                tool: Some(claude),
            },
        )
        .await;
    if let Some(reason) = v.block {
        out.content
            .push_str(&format!("\n\n[{} hook feedback] {reason}", event.as_str()));
    }
    for c in v.context {
        out.content.push_str(&format!("\n\n[hook context] {c}"));
    }
    if let Some(why) = v.stop {
        ask.request_stop(why);
    }
    true
}
