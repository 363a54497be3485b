//! `seekclaw permissions check|list` and `seekclaw hooks list|approve`: the
//! user's permission rules and hooks as a turn in the workspace sees them.
//! They run the engine in this process (no daemon needed); `hooks approve`
//! goes through a running daemon when there is one, so the approval lands
//! in the state it keeps.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Result, bail};
use clap::{Args, Subcommand};
use seekclaw_config::Home;
use seekclaw_engine::Engine;
use seekclaw_protocol::api::{
    HookView, HooksApproveParams, PermissionCheckView, PolicyView, Required, RuleView,
};
use seekclaw_protocol::method;

use crate::client::DaemonClient;

/// The workspace a policy command looks at.
#[derive(Args, Debug, Clone, Default)]
pub struct WorkspaceArg {
    /// The workspace (its project root); default: the project around the
    /// current directory, or none (the user's and managed rules only).
    #[arg(long, value_name = "DIR")]
    pub workspace: Option<PathBuf>,
}

/// `seekclaw permissions`.
#[derive(Subcommand)]
pub enum PermissionsCommand {
    /// The decision for one tool call or shell command, and the rule, layer
    /// and file that made it: `permissions check -- git push origin`,
    /// `permissions check -- 'Read(./.env)'`, `permissions check -- WebFetch`.
    Check {
        #[command(flatten)]
        workspace: WorkspaceArg,
        /// Print the decision as JSON (`permissions.check`'s shape).
        #[arg(long)]
        json: bool,
        /// `Tool(arg)`, a bare tool name, or a shell command (after `--`).
        #[arg(required = true, last = true, value_name = "TOOL OR COMMAND")]
        probe: Vec<String>,
    },
    /// Every permission rule by layer (managed, user, workspace), with its
    /// file and whether it applies, and the entries that were skipped.
    List {
        #[command(flatten)]
        workspace: WorkspaceArg,
        /// Print rules, hooks and problems as JSON (`hooks.list`'s shape).
        #[arg(long)]
        json: bool,
    },
}

/// `seekclaw hooks`.
#[derive(Subcommand)]
pub enum HooksCommand {
    /// Every hook by layer, with its event, matcher, command and whether it
    /// runs, and whether the workspace's hook set is approved.
    List {
        #[command(flatten)]
        workspace: WorkspaceArg,
        /// Print rules, hooks and problems as JSON (`hooks.list`'s shape).
        #[arg(long)]
        json: bool,
    },
    /// Approve the workspace's hook set as it is now (its commands are
    /// printed): turns in the workspace run them until the set changes.
    Approve {
        #[command(flatten)]
        workspace: WorkspaceArg,
    },
}

/// The workspace root `arg` names (or the current directory's project),
/// `None` when there is none: the user's and managed policy alone.
fn workspace(home: &Home, arg: &WorkspaceArg) -> Result<Option<PathBuf>> {
    let cwd = crate::cwd::working_dir()?;
    let root = seekclaw_engine::local_root(home, &cwd, arg.workspace.as_deref())
        .map_err(|e| anyhow::anyhow!(e.message))?;
    if arg.workspace.is_none() && seekclaw_engine::refuse_implicit(&root, "").is_err() {
        return Ok(None);
    }
    Ok(Some(root))
}

/// Runs `f` over an engine opened in this process.
fn with_engine<T>(
    home: &Home,
    f: impl AsyncFnOnce(&Engine) -> Result<T, seekclaw_engine::EngineError>,
) -> Result<T> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let engine = Engine::open(home.clone())
            .await
            .map_err(|e| anyhow::anyhow!(e.message))?;
        let out = f(&engine).await.map_err(|e| anyhow::anyhow!(e.message));
        engine.close().await;
        out
    })
}

pub fn permissions(home: &Home, cmd: PermissionsCommand) -> Result<()> {
    match cmd {
        PermissionsCommand::Check {
            workspace: arg,
            json,
            probe,
        } => {
            let root = workspace(home, &arg)?;
            let view = with_engine(home, async |e| {
                seekclaw_daemon::policy::permission_check(e, root.as_deref(), &probe).await
            })?;
            let mut out = std::io::stdout().lock();
            if json {
                writeln!(out, "{}", serde_json::to_string_pretty(&view)?)?;
            } else {
                write!(out, "{}", check_text(&view))?;
            }
            Ok(())
        }
        PermissionsCommand::List {
            workspace: arg,
            json,
        } => {
            let view = policy_view(home, &arg)?;
            print_view(&view, json, rules_text)
        }
    }
}

pub fn hooks(home: &Home, cmd: HooksCommand) -> Result<()> {
    match cmd {
        HooksCommand::List {
            workspace: arg,
            json,
        } => {
            let view = policy_view(home, &arg)?;
            print_view(&view, json, hooks_text)
        }
        HooksCommand::Approve { workspace: arg } => approve(home, &arg),
    }
}

fn policy_view(home: &Home, arg: &WorkspaceArg) -> Result<PolicyView> {
    let root = workspace(home, arg)?;
    with_engine(home, async |e| {
        seekclaw_daemon::policy::hooks_list(e, root.as_deref()).await
    })
}

fn print_view(view: &PolicyView, json: bool, text: fn(&PolicyView) -> String) -> Result<()> {
    let mut out = std::io::stdout().lock();
    if json {
        writeln!(out, "{}", serde_json::to_string_pretty(view)?)?;
    } else {
        write!(out, "{}", text(view))?;
    }
    Ok(())
}

/// `hooks approve`: the set as it is now, through the daemon when one runs.
fn approve(home: &Home, arg: &WorkspaceArg) -> Result<()> {
    let Some(root) = workspace(home, arg)? else {
        bail!(
            "no workspace here: run it in a project directory or name one with `--workspace DIR`"
        );
    };
    let view = policy_view(home, arg)?;
    let Some(hash) = view.hooks_hash.clone() else {
        println!(
            "{}: the workspace has no hooks; nothing to approve",
            root.display()
        );
        return Ok(());
    };
    let approved = match DaemonClient::running(home) {
        Some(mut daemon) => daemon.call::<method::HooksApprove>(&HooksApproveParams {
            workspace: Required(root.display().to_string()),
            hash: Required(hash),
        })?,
        None => with_engine(home, async |e| {
            e.approve_hooks(&root, &hash).await?;
            seekclaw_daemon::policy::hooks_list(e, Some(&root)).await
        })?,
    };
    let mut out = std::io::stdout().lock();
    writeln!(out, "approved the hooks of {}:", root.display())?;
    for h in approved.hooks.iter().filter(|h| h.layer == "workspace") {
        writeln!(out, "  {}", hook_line(h))?;
    }
    if !approved.trusted {
        writeln!(
            out,
            "note: the workspace is not trusted yet, so they do not run: open it in `seekclaw chat` and trust it"
        )?;
    }
    Ok(())
}

/// `deny  Bash(git push:*)  (managed: /etc/seekclaw/managed.json)`, and the
/// reason when it says more than that line; `no rule: …` when the approval
/// policy decides.
pub fn check_text(v: &PermissionCheckView) -> String {
    match (&v.verdict, &v.rule) {
        (Some(verdict), Some(rule)) => {
            let layer = v.layer.as_deref().unwrap_or("?");
            let whence = match &v.file {
                Some(file) => format!("{layer}: {file}"),
                None => layer.to_string(),
            };
            let mut out = format!("{verdict}  {rule}  ({whence})\n");
            if !v.reason.contains(&format!("`{rule}`")) {
                out.push_str(&format!("{}\n", v.reason));
            }
            out
        }
        (Some(verdict), None) => format!("{verdict}\n{}\n", v.reason),
        (None, _) => {
            let reason = v
                .reason
                .strip_prefix("no rule decides it: ")
                .unwrap_or(&v.reason);
            format!("no rule: {reason}\n")
        }
    }
}

/// Groups `items` by (layer, file) in the order they come (strictest layer first).
fn grouped<'a, T>(
    items: &'a [T],
    key: impl Fn(&T) -> (&str, &str),
) -> Vec<((&'a str, &'a str), Vec<&'a T>)>
where
    T: 'a,
{
    let mut groups: Vec<((&str, &str), Vec<&T>)> = Vec::new();
    for item in items {
        let k = key(item);
        match groups.iter_mut().find(|(g, _)| *g == k) {
            Some((_, members)) => members.push(item),
            None => groups.push((k, vec![item])),
        }
    }
    groups
}

fn heading(layer: &str, file: &str) -> String {
    if file.is_empty() {
        format!("{layer}\n")
    } else {
        format!("{layer}  {file}\n")
    }
}

fn trust_line(view: &PolicyView) -> String {
    match (&view.workspace, view.trusted) {
        (Some(w), true) => format!("workspace {w} (trusted)\n"),
        (Some(w), false) => format!(
            "workspace {w} (not trusted: its allow rules and hooks are inactive; its deny and ask rules apply)\n"
        ),
        (None, _) => "no workspace: the user's and managed policy only\n".to_string(),
    }
}

/// `permissions list`: rules by layer and file.
pub fn rules_text(view: &PolicyView) -> String {
    let mut out = trust_line(view);
    if view.rules.is_empty() {
        out.push_str("no permission rules: the approval policy decides every call\n");
    }
    for ((layer, file), rules) in grouped(&view.rules, |r: &RuleView| (&r.layer, &r.file)) {
        out.push('\n');
        out.push_str(&heading(layer, file));
        for r in rules {
            let state = if r.active { "" } else { "  (inactive)" };
            out.push_str(&format!("  {:<5}  {}{state}\n", r.verdict, r.rule));
        }
    }
    out.push_str(&problems_text(view));
    out
}

fn hook_line(h: &HookView) -> String {
    let matcher = h
        .matcher
        .as_deref()
        .filter(|m| !m.is_empty())
        .map(|m| format!(" [{m}]"))
        .unwrap_or_default();
    let state = if h.active { "" } else { "  (off)" };
    format!(
        "{}{matcher}  {}  ({} s){state}",
        h.event, h.command, h.timeout_seconds
    )
}

/// `hooks list`: hooks by layer and file, and the approval of the workspace's set.
pub fn hooks_text(view: &PolicyView) -> String {
    let mut out = trust_line(view);
    if view.hooks.is_empty() {
        out.push_str("no hooks configured\n");
    }
    for ((layer, file), hooks) in grouped(&view.hooks, |h: &HookView| (&h.layer, &h.file)) {
        out.push('\n');
        out.push_str(&heading(layer, file));
        for h in hooks {
            out.push_str(&format!("  {}\n", hook_line(h)));
        }
    }
    if let Some(hash) = &view.hooks_hash {
        let state = if view.hooks_approved {
            "approved".to_string()
        } else {
            "not approved: they stay off until `seekclaw hooks approve` (or the terminal UI asks)"
                .to_string()
        };
        out.push_str(&format!("\nworkspace hook set {hash}: {state}\n"));
    }
    out.push_str(&problems_text(view));
    out
}

fn problems_text(view: &PolicyView) -> String {
    if view.problems.is_empty() {
        return String::new();
    }
    let mut out = String::from("\nskipped entries (the rest still apply):\n");
    for p in &view.problems {
        out.push_str(&format!("  {}: {}: {}\n", p.file, p.path, p.message));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use seekclaw_protocol::api::PolicyProblemView;

    fn rule(verdict: &str, rule: &str, layer: &str, file: &str, active: bool) -> RuleView {
        RuleView {
            verdict: verdict.into(),
            rule: rule.into(),
            layer: layer.into(),
            file: file.into(),
            active,
        }
    }

    #[test]
    fn rules_print_by_layer_with_inactive_ones_marked() {
        let view = PolicyView {
            workspace: Some("/w".into()),
            rules: vec![
                rule("deny", "Bash(rm:*)", "managed", "/etc/m.json", true),
                rule("allow", "Bash(npm test:*)", "user", "/h/config.json", true),
                rule(
                    "allow",
                    "Bash(make:*)",
                    "workspace",
                    "/w/.seekclaw/config.json",
                    false,
                ),
            ],
            problems: vec![PolicyProblemView {
                file: "/h/config.json".into(),
                path: "permissions.allow[3]".into(),
                message: "Bash(npm: unclosed parenthesis".into(),
            }],
            ..PolicyView::default()
        };
        let text = rules_text(&view);
        assert!(text.starts_with("workspace /w (not trusted"), "{text}");
        assert!(
            text.contains("managed  /etc/m.json\n  deny   Bash(rm:*)\n"),
            "{text}"
        );
        assert!(
            text.contains("  allow  Bash(make:*)  (inactive)\n"),
            "{text}"
        );
        assert!(
            text.contains(
                "  /h/config.json: permissions.allow[3]: Bash(npm: unclosed parenthesis\n"
            ),
            "{text}"
        );
    }

    #[test]
    fn a_check_names_the_rule_and_its_file_or_the_policy() {
        let ruled = PermissionCheckView {
            verdict: Some("deny".into()),
            rule: Some("Bash(git push:*)".into()),
            layer: Some("managed".into()),
            file: Some("/etc/m.json".into()),
            reason: "denied by `Bash(git push:*)` (managed rules, /etc/m.json)".into(),
        };
        assert_eq!(
            check_text(&ruled),
            "deny  Bash(git push:*)  (managed: /etc/m.json)\n"
        );
        let none = PermissionCheckView {
            verdict: None,
            rule: None,
            layer: None,
            file: None,
            reason: "no rule decides it: the approval policy does".into(),
        };
        assert_eq!(check_text(&none), "no rule: the approval policy does\n");
    }
}
