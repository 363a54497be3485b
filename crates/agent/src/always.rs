//! "Always allow": the allow rules a person's answer saves for calls like
//! the one asked about, where they go, and the `Notification` hook that
//! tells the user a call waits.

use std::path::Path;

use seekclaw_policy::HookEvent;
use seekclaw_policy::shell::{self, Word};
use serde_json::Value;

use crate::ask::{AskCx, Asked};
use crate::hooks::TurnPolicy;

/// Rules to save and where.
#[derive(Debug, Clone)]
pub(crate) struct Always {
    /// Claude Code rule texts (`Bash(npm test:*)`).
    pub(crate) rules: Vec<String>,
    /// `workspace` or `user`.
    pub(crate) target: &'static str,
}

/// The allow rules that cover calls like this one; `None` when no rule
/// can (a command that cannot be read for certain).
pub(crate) fn rules_for(p: &TurnPolicy, tool: &str, args: &Value, cwd: &Path) -> Option<Always> {
    let claude = seekclaw_policy::names::claude_name(tool);
    let root = p.workspace.as_deref().unwrap_or(cwd);
    let rules = match tool {
        "bash" => {
            // A line no allow rule could pass is not offered one.
            let call = seekclaw_policy::Call {
                tool,
                args,
                cwd,
                workspace: p.workspace.as_deref(),
            };
            let command = args["command"].as_str()?;
            if !seekclaw_policy::allowable(&shell::parse(command), &call) {
                return None;
            }
            command_rules(command)?
        }
        "edit_file" | "multi_edit" | "write_file" | "remove" | "apply_patch" => {
            edit_rules(root, cwd, tool, args)?
        }
        "read_file" | "grep" | "glob" | "list_dir" => {
            vec![format!(
                "Read({})",
                path_rule(root, cwd, args["path"].as_str().unwrap_or("."))
            )]
        }
        "web_fetch" => {
            let url = args["url"].as_str()?;
            let rest = url.split_once("://").map_or(url, |(_, r)| r);
            let host = rest
                .split(['/', '?', '#', ':'])
                .next()?
                .rsplit('@')
                .next()?;
            vec![format!("WebFetch(domain:{})", host.to_lowercase())]
        }
        _ => vec![claude.to_string()],
    };
    // A workspace's allow rules apply only where it is trusted.
    let target = if p.workspace.is_some() && p.policy.trusted {
        "workspace"
    } else {
        "user"
    };
    Some(Always { rules, target })
}

/// `Edit(folder/**)` for the call's file; a patch gets one per folder it touches.
fn edit_rules(root: &Path, cwd: &Path, tool: &str, args: &Value) -> Option<Vec<String>> {
    let mut rules: Vec<String> = Vec::new();
    for path in seekclaw_policy::names::file_paths(tool, args) {
        let rule = format!("Edit({})", path_rule(root, cwd, &path));
        if !rules.contains(&rule) {
            rules.push(rule);
        }
    }
    (!rules.is_empty()).then_some(rules)
}

/// One rule per command of the line: `prog sub:*` where the second word
/// is a subcommand, else the command exactly.
fn command_rules(command: &str) -> Option<Vec<String>> {
    let parsed = shell::parse(command);
    if parsed.opaque.is_some() {
        return None;
    }
    let mut out = Vec::new();
    for c in &parsed.commands {
        let words = c.program_words();
        if words.is_empty() {
            continue;
        }
        if words.iter().any(|w| !w.literal) && !is_subcommand(words.get(1)) {
            return None;
        }
        let rule = if is_subcommand(words.get(1)) {
            format!("Bash({} {}:*)", words[0].text, words[1].text)
        } else {
            let text: Vec<String> = words
                .iter()
                .map(|w| {
                    shlex::try_quote(&w.text).map_or_else(|_| w.text.clone(), |q| q.into_owned())
                })
                .collect();
            format!("Bash({})", text.join(" "))
        };
        if !out.contains(&rule) {
            out.push(rule);
        }
    }
    (!out.is_empty()).then_some(out)
}

fn is_subcommand(w: Option<&Word>) -> bool {
    w.is_some_and(|w| {
        w.literal
            && w.text.len() > 1
            && w.text
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == ':')
            && !w.text.starts_with('-')
    })
}

/// The file's folder under the root (`/src/**`), or the file itself.
fn path_rule(root: &Path, cwd: &Path, path: &str) -> String {
    let abs = seekclaw_policy::names::absolute(cwd, path);
    let abs = Path::new(&abs);
    match abs.strip_prefix(root) {
        Ok(rel) => match rel.parent().filter(|p| !p.as_os_str().is_empty()) {
            Some(dir) => format!("/{}/**", dir.display()),
            None if rel.as_os_str().is_empty() => "/**".to_string(),
            None => format!("/{}", rel.display()),
        },
        Err(_) => format!("/{}", abs.display()),
    }
}

/// Saves `always` off the async workers; a rule that could not be saved
/// only means the next such call asks again.
pub(crate) async fn save(p: &TurnPolicy, always: Always) {
    let home = p.home.clone();
    let workspace = (always.target == "workspace")
        .then(|| p.workspace.clone())
        .flatten();
    let saved = crate::blocking::run_now(move || {
        seekclaw_policy::save_allow_rules(&home, workspace.as_deref(), &always.rules)
    })
    .await;
    match saved {
        Ok(Ok(_)) => {}
        Ok(Err(e)) => tracing::warn!("allow rule not saved: {e}"),
        Err(e) => tracing::warn!("allow rule not saved: {e}"),
    }
}

/// Runs the `Notification` hooks for a call that waits for a person,
/// beside the wait: a slow notifier never holds the call up.
pub(crate) fn notify(cx: &AskCx<'_>, a: &Asked<'_>) {
    let Some(p) = cx.policy.filter(|p| p.wants(HookEvent::Notification)) else {
        return;
    };
    let name = a.tool.definition().name.clone();
    let claude = seekclaw_policy::names::claude_name(&name).to_string();
    let (policy, events, store) = (p.clone(), cx.events.clone(), cx.store.clone());
    let (scope, session, owner) = (
        cx.scope.to_string(),
        cx.session_id.to_string(),
        cx.owner.to_string(),
    );
    let message = format!("SeekClaw needs your permission to use {claude}");
    tokio::spawn(async move {
        let sink = crate::hooks::Sink {
            events: &events,
            store: &store,
            scope: &scope,
            session_id: &session,
            owner: &owner,
            cancel: None,
        };
        let _ = policy
            .fire(
                &sink,
                HookEvent::Notification,
                &["permission_prompt"],
                crate::hooks::fields([
                    ("message", Value::from(message)),
                    ("notification_type", Value::from("permission_prompt")),
                ]),
                crate::hooks::About::default(),
            )
            .await;
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_line_becomes_one_rule_per_command() {
        assert_eq!(
            command_rules("npm test -- --watch && cargo build --release").unwrap(),
            ["Bash(npm test:*)", "Bash(cargo build:*)"]
        );
        assert_eq!(
            command_rules("rm -rf build").unwrap(),
            ["Bash(rm -rf build)"]
        );
        assert_eq!(command_rules("make").unwrap(), ["Bash(make)"]);
        assert!(command_rules("for f in *; do rm $f; done").is_none());
        let root = Path::new("/w");
        assert_eq!(path_rule(root, root, "src/a/b.rs"), "/src/a/**");
        assert_eq!(path_rule(root, root, "README.md"), "/README.md");
        assert_eq!(path_rule(root, root, "/etc/hosts"), "//etc/hosts");
        let edit = serde_json::json!({"path": "src/a.rs"});
        assert_eq!(
            edit_rules(root, root, "edit_file", &edit).unwrap(),
            ["Edit(/src/**)"]
        );
        let patch = serde_json::json!({"input": "*** Begin Patch\n*** Update File: src/a.rs\n@@\n-a\n+b\n*** Add File: src/b.rs\n+x\n*** Add File: docs/c.md\n+y\n*** End Patch"});
        assert_eq!(
            edit_rules(root, root, "apply_patch", &patch).unwrap(),
            ["Edit(/src/**)", "Edit(/docs/**)"]
        );
        assert!(
            edit_rules(
                root,
                root,
                "apply_patch",
                &serde_json::json!({"input": "junk"})
            )
            .is_none()
        );
    }
}
