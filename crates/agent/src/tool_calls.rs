//! Runs one step's tool calls: consecutive parallel-safe calls together, mutating
//! calls one at a time in order; results keep call order. Denied, unknown and
//! malformed calls become failed results, never a failed turn.

use std::time::Instant;

use futures::future::join_all;
use seekclaw_providers::args::sanitize_arguments;
use seekclaw_providers::types::ToolCall;
use seekclaw_tools::{Registry, ToolContext, ToolFilter, ToolOutput};
use serde_json::Value;
use tokio::sync::mpsc::UnboundedSender;

use crate::approval::TurnApprovals;
use crate::ask::{AskCx, Asked};
use crate::checkpoints::{Touched, TurnCheckpoints};
use crate::events::{AgentEvent, TurnStatus, WorkflowNode};

/// `key: value` for up to three scalar arguments (values cut at 60 chars);
/// a patch (`apply_patch`) by its files: `path: a.rs, files: 3`.
pub fn call_summary(arguments: &Value) -> String {
    let Some(obj) = arguments.as_object() else {
        return String::new();
    };
    if let Some(patch) = obj.get("input").and_then(Value::as_str)
        && obj.len() == 1
        && patch.contains("*** Begin Patch")
    {
        let files = seekclaw_policy::names::patch_paths(patch);
        return match files.as_slice() {
            [] => String::new(),
            [one] => format!("path: {one}"),
            [first, ..] => format!("path: {first}, files: {}", files.len()),
        };
    }
    obj.iter()
        .filter_map(|(k, v)| {
            let text = match v {
                Value::String(s) => s.clone(),
                Value::Number(n) => n.to_string(),
                Value::Bool(b) => b.to_string(),
                _ => return None,
            };
            let flat = text.replace(['\n', '\r'], " ");
            let cut: String = flat.chars().take(60).collect();
            let ellipsis = if flat.chars().count() > 60 { "…" } else { "" };
            Some(format!("{k}: {cut}{ellipsis}"))
        })
        .take(3)
        .collect::<Vec<_>>()
        .join(", ")
}

fn parse_arguments(raw: &str) -> Result<Value, String> {
    if raw.trim().is_empty() {
        return Ok(Value::Object(serde_json::Map::new()));
    }
    // Repairable damage (a truncated object, text around it) is fixed; text with
    // no object in it at all is reported so the model regenerates the call.
    let fixed = sanitize_arguments(raw);
    let unrecoverable = fixed.trim() == "{}" && raw.trim() != "{}";
    match serde_json::from_str::<Value>(&fixed) {
        Ok(v @ Value::Object(_)) if !unrecoverable => Ok(v),
        Ok(_) | Err(_) => Err(format!(
            "Invalid tool arguments: {}. Regenerate the tool call with valid JSON arguments.",
            raw.chars().take(200).collect::<String>()
        )),
    }
}

/// A call's output and what its row showed (kept in the log so a reopened
/// session draws the same row).
pub(crate) struct Ran {
    /// What the tool returned.
    pub out: ToolOutput,
    /// The row's summary: the result's, else the call's.
    pub summary: String,
    /// Wall time of the call (0 for a call refused before it ran).
    pub duration_ms: f64,
    /// No row showed it (a call cancellation skipped).
    pub silent: bool,
    /// A tool that may change files ran (it was not refused).
    pub ran_mutating: bool,
    /// Hooks ran after it (they may have changed any file).
    pub hooks_ran: bool,
}

impl Ran {
    fn new(out: ToolOutput, call_summary: &str, duration_ms: f64) -> Ran {
        let summary = if out.summary.is_empty() {
            call_summary.to_string()
        } else {
            out.summary.clone()
        };
        Ran {
            out,
            summary,
            duration_ms,
            silent: false,
            ran_mutating: false,
            hooks_ran: false,
        }
    }
}

struct Prepared<'a> {
    call: &'a ToolCall,
    args: Result<Value, String>,
    parallel: bool,
}

/// The engine's checkpoints and the turn's user message, for calls that
/// may change files.
pub(crate) type Checkpoints<'a> = Option<(&'a dyn TurnCheckpoints, u64)>;

async fn run_one(
    registry: &Registry,
    filter: &ToolFilter,
    (approvals, ask): (&TurnApprovals, &AskCx<'_>),
    p: &Prepared<'_>,
    (events, checkpoints): (&UnboundedSender<AgentEvent>, Checkpoints<'_>),
) -> Ran {
    let ctx: &ToolContext = ask.ctx;
    let call = p.call;
    let summary = p.args.as_ref().map(call_summary).unwrap_or_default();
    let _ = events.send(AgentEvent::ToolStart {
        call_id: call.id.clone(),
        name: call.name.clone(),
        summary: summary.clone(),
    });
    let refused = |message: String| {
        let out = ToolOutput::error(message);
        let _ = events.send(AgentEvent::ToolDone {
            call_id: call.id.clone(),
            name: call.name.clone(),
            success: false,
            duration_ms: 0.0,
            summary: out.summary.clone(),
            output: out.content.clone(),
        });
        Ran::new(out, &summary, 0.0)
    };
    let Some(tool) = registry.get(&call.name) else {
        return refused(format!("Unknown tool: {}", call.name));
    };
    if let Some(denied) = registry.denial(tool.definition(), filter) {
        return refused(denied);
    }
    let mut args = match &p.args {
        Ok(a) => a.clone(),
        Err(e) => return refused(e.clone()),
    };
    let hook = match crate::tool_hooks::before(ask, call, &mut args).await {
        Ok(_) if ctx.cancel.is_cancelled() => {
            return refused("Cancelled before this tool ran.".into());
        }
        Ok(verdict) => verdict,
        Err(refusal) => return refused(refusal),
    };
    // Asked before the tool runs: a pending approval holds no write lock.
    let asked = Asked {
        call_id: &call.id,
        tool: tool.as_ref(),
        args: &args,
        summary: &summary,
        hook,
    };
    match approvals.check(ask, &asked).await {
        Err(refusal) => return refused(refusal),
        // A `PermissionRequest` hook allowed it with other arguments.
        Ok(Some(updated)) => args = updated,
        Ok(None) => {}
    }
    let _ = events.send(AgentEvent::Status(TurnStatus::Tool(
        tool.definition().status_label.clone(),
    )));
    let mutating = tool.definition().flags.mutating;
    // The workspace as the turn found it is kept before its first change
    // (hooks after a call may change it too).
    let changes = mutating || crate::tool_hooks::will_run_after(ask, call);
    if let (true, Some((cp, turn_seq))) = (changes, checkpoints)
        && let Some(note) = cp.before_change(turn_seq).await
    {
        let _ = events.send(AgentEvent::Checkpoint(note));
    }
    // The call's MCP server may ask the person during it (elicitation).
    let bound;
    let ctx = match crate::elicitation::for_call(
        approvals,
        events,
        &ctx.cancel,
        (&call.id, &call.name, &args),
    ) {
        Some(elicit) => {
            bound = ToolContext {
                elicit: Some(elicit),
                ..ctx.clone()
            };
            &bound
        }
        None => ctx,
    };
    let started = Instant::now();
    let mut out = tool.execute(args.clone(), ctx).await;
    // Arguments the tool refused count as not run, like a denied call.
    let duration_ms = if out.invalid_args {
        0.0
    } else {
        started.elapsed().as_secs_f64() * 1000.0
    };
    if out.success && !out.file_diffs.is_empty() {
        // A call that changed several files (a patch): one event per file.
        for (path, diff) in out.file_diffs.iter().filter(|(_, d)| !d.is_empty()) {
            let _ = events.send(AgentEvent::FileDiff {
                call_id: call.id.clone(),
                path: path.clone(),
                diff: diff.clone(),
            });
        }
    } else if let (Some(diff), Some(path)) = (&out.diff, &out.file_path)
        && out.success
        && !diff.is_empty()
    {
        let _ = events.send(AgentEvent::FileDiff {
            call_id: call.id.clone(),
            path: path.clone(),
            diff: diff.clone(),
        });
    }
    if let Some(status) = &out.status {
        let _ = events.send(AgentEvent::Status(TurnStatus::Tool(status.clone())));
    }
    let hooks_ran = !out.invalid_args && crate::tool_hooks::after(ask, call, &args, &mut out).await;
    let _ = events.send(AgentEvent::ToolDone {
        call_id: call.id.clone(),
        name: call.name.clone(),
        success: out.success,
        duration_ms,
        summary: out.summary.clone(),
        output: out.content.clone(),
    });
    Ran {
        ran_mutating: mutating && !out.invalid_args,
        hooks_ran,
        ..Ran::new(out, &summary, duration_ms)
    }
}

/// What a step's calls may have changed: the paths file tools wrote, or
/// anything once another tool that may change files ran; `None`: nothing.
pub(crate) fn touched(ran: &[Ran]) -> Option<Touched> {
    // A hook after a call (a formatter, a code generator) may change anything.
    if ran.iter().any(|r| r.hooks_ran) {
        return Some(Touched::Anything);
    }
    let mut paths = Vec::new();
    for r in ran.iter().filter(|r| r.ran_mutating) {
        match (&r.out.file_path, r.out.mutated) {
            // A patch names every file it wrote or deleted.
            (Some(_), true) if !r.out.touched_paths.is_empty() => {
                paths.extend(r.out.touched_paths.iter().cloned());
            }
            (Some(path), true) => paths.push(path.clone()),
            // A command (or a failed write) may have changed anything.
            _ => return Some(Touched::Anything),
        }
    }
    (!paths.is_empty()).then_some(Touched::Paths(paths))
}

/// Runs `calls` and returns their outputs in call order.
pub(crate) async fn run_calls(
    registry: &Registry,
    filter: &ToolFilter,
    approvals: (&TurnApprovals, &AskCx<'_>),
    calls: &[ToolCall],
    step: u32,
    (events, checkpoints): (&UnboundedSender<AgentEvent>, Checkpoints<'_>),
) -> Vec<Ran> {
    let prepared: Vec<Prepared<'_>> = calls
        .iter()
        .map(|call| {
            let args = parse_arguments(&call.arguments);
            let parallel = args.is_ok()
                && registry
                    .get(&call.name)
                    .is_some_and(|t| t.definition().flags.parallel_safe);
            Prepared {
                call,
                args,
                parallel,
            }
        })
        .collect();
    let mut outputs = Vec::with_capacity(calls.len());
    let mut i = 0;
    while i < prepared.len() {
        if approvals.1.ctx.cancel.is_cancelled() {
            break;
        }
        let mut end = i + 1;
        if prepared[i].parallel {
            while end < prepared.len() && prepared[end].parallel {
                end += 1;
            }
        }
        let group = &prepared[i..end];
        for p in group {
            let _ = events.send(AgentEvent::Workflow {
                step,
                node: WorkflowNode::Tool {
                    name: p.call.name.clone(),
                },
                // `null` on the wire, as the original sends (the summary is on `tool_start`).
                detail: String::new(),
            });
        }
        let results = join_all(
            group
                .iter()
                .map(|p| run_one(registry, filter, approvals, p, (events, checkpoints))),
        )
        .await;
        outputs.extend(results);
        i = end;
    }
    // Calls skipped by cancellation still get a result so the log stays valid.
    while outputs.len() < calls.len() {
        outputs.push(Ran {
            silent: true,
            ..Ran::new(
                ToolOutput::error("Cancelled before this tool ran."),
                "",
                0.0,
            )
        });
    }
    outputs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summaries_and_argument_repair() {
        let v: Value = serde_json::json!({"path": "src/a.rs", "limit": 5, "deep": {"x": 1}, "flag": true, "more": "x"});
        assert_eq!(call_summary(&v), "path: src/a.rs, limit: 5, flag: true");
        let patch = |body: &str| serde_json::json!({"input": format!("*** Begin Patch\n{body}*** End Patch")});
        assert_eq!(
            call_summary(&patch("*** Update File: src/a.rs\n@@\n-a\n+b\n")),
            "path: src/a.rs"
        );
        assert_eq!(
            call_summary(&patch(
                "*** Update File: a.rs\n@@\n-a\n+b\n*** Add File: b.rs\n+x\n"
            )),
            "path: a.rs, files: 2"
        );
        let long = serde_json::json!({"command": format!("echo {}\nnext", "a".repeat(80))});
        let s = call_summary(&long);
        assert!(s.ends_with('…') && !s.contains('\n'));
        assert!(
            parse_arguments(r#"{"a":1"#).is_ok(),
            "a truncated object is closed"
        );
        assert!(
            parse_arguments("not json at all")
                .unwrap_err()
                .starts_with("Invalid tool arguments")
        );
    }

    #[test]
    fn a_patch_checkpoints_every_file_it_touched() {
        let ran = |out: ToolOutput| Ran {
            ran_mutating: true,
            ..Ran::new(out, "", 1.0)
        };
        let edit = ToolOutput {
            file_path: Some("a.rs".into()),
            mutated: true,
            ..ToolOutput::ok("Edited a.rs", "")
        };
        let patch = ToolOutput {
            file_path: Some("b.rs".into()),
            touched_paths: vec!["b.rs".into(), "c.rs".into(), "d.rs".into()],
            mutated: true,
            ..ToolOutput::ok("Updated b.rs", "")
        };
        assert_eq!(
            touched(&[ran(edit), ran(patch)]),
            Some(Touched::Paths(vec![
                "a.rs".into(),
                "b.rs".into(),
                "c.rs".into(),
                "d.rs".into()
            ]))
        );
    }
}
