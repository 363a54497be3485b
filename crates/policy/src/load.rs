//! Reading the policy from its files, layer by layer: the managed file
//! (`/etc/seekclaw/managed.json`), the user's `config.json` (and, with
//! `hooks.importClaude`, `~/.claude/settings.json`), the workspace's
//! `.seekclaw/config.json` (and its `.claude/settings*.json`). A workspace's
//! hooks run only where it is trusted and its hook set was approved; its
//! allow rules only where it is trusted; deny and ask rules always apply.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::hooks::{HookSet, read_hooks};
use crate::rules::{Bases, Rule, Rules};
use crate::{Layer, Problem, Verdict};

/// The environment variable naming the managed file (for packagers and tests).
pub const MANAGED_ENV: &str = "SEEKCLAW_MANAGED_CONFIG";
const MANAGED_DEFAULT: &str = "/etc/seekclaw/managed.json";
/// Where approved workspace hook sets are remembered, in the home.
const APPROVED_FILE: &str = "hooks-approved.json";

/// The user's policy as one turn sees it.
#[derive(Debug, Clone, Default)]
pub struct Policy {
    /// Every rule, strictest layer first.
    pub rules: Rules,
    /// Every hook, in layer order.
    pub hooks: HookSet,
    /// Entries that could not be used, by file and path.
    pub problems: Vec<Problem>,
    /// The workspace's hook set, hashed (`None`: it has none).
    pub hooks_hash: Option<String>,
    /// That set was approved by the user (or there is none).
    pub hooks_approved: bool,
    /// The workspace is trusted (a registered project).
    pub trusted: bool,
}

/// Where a policy is read for.
#[derive(Debug, Clone)]
pub struct Scope<'a> {
    /// The SeekClaw home.
    pub home: &'a seekclaw_config::Home,
    /// The workspace root, if any.
    pub workspace: Option<&'a Path>,
    /// Where relative rule paths start when there is no workspace.
    pub cwd: &'a Path,
    /// The workspace is a registered project.
    pub trusted: bool,
}

impl Policy {
    /// Reads every layer; never fails (what cannot be read is a problem).
    pub fn load(scope: &Scope<'_>) -> Policy {
        let user_home = seekclaw_config::user_home();
        let bases = Bases {
            root: scope.workspace.unwrap_or(scope.cwd).to_path_buf(),
            home: user_home.clone(),
        };
        let mut p = Policy {
            trusted: scope.trusted,
            ..Policy::default()
        };
        let mut rules = Vec::new();
        let managed = managed_path();
        let user_config = scope.home.config_path();
        let user = read_tree(&user_config, &mut p.problems);
        let import_claude = user
            .as_ref()
            .and_then(|u| u.pointer("/hooks/importClaude"))
            .and_then(Value::as_bool)
            .unwrap_or(true);
        let mut layers: Vec<(Layer, PathBuf, bool)> = vec![
            (Layer::Managed, managed, false),
            (Layer::User, user_config, false),
        ];
        if import_claude && let Some(h) = &user_home {
            layers.push((Layer::User, h.join(".claude").join("settings.json"), true));
        }
        if let Some(ws) = scope.workspace {
            layers.push((
                Layer::Workspace,
                seekclaw_config::workspace_config_path(ws),
                false,
            ));
            if import_claude {
                for name in ["settings.json", "settings.local.json"] {
                    layers.push((Layer::Workspace, ws.join(".claude").join(name), true));
                }
            }
        }
        let mut workspace_hooks = Vec::new();
        for (layer, file, claude) in layers {
            // The user's config was read above (for `importClaude`).
            let tree = if layer == Layer::User && !claude {
                user.clone()
            } else {
                read_tree(&file, &mut p.problems)
            };
            let Some(tree) = tree else { continue };
            if let Some(h) = tree.get("hooks") {
                let read = read_hooks(h, layer, &file, &mut p.problems);
                if layer == Layer::Workspace {
                    workspace_hooks.extend(read.iter().cloned());
                }
                p.hooks.extend(read);
            }
            // Claude Code's own permissions stay its own: only hooks are imported.
            if !claude && let Some(perms) = tree.get("permissions") {
                read_rules(perms, (layer, &file), &bases, &mut p.problems, &mut rules);
            }
        }
        plugin_hooks(scope, &mut p, &mut workspace_hooks);
        p.hooks_hash = (!workspace_hooks.is_empty()).then(|| hash_hooks(&workspace_hooks));
        p.hooks_approved = match (&p.hooks_hash, scope.workspace) {
            (None, _) => true,
            (Some(h), Some(ws)) => approved_hash(scope.home, ws).as_deref() == Some(h.as_str()),
            (Some(_), None) => false,
        };
        p.hooks
            .set_active(Layer::Workspace, scope.trusted && p.hooks_approved);
        for r in rules.iter_mut() {
            if r.layer == Layer::Workspace && r.verdict == Verdict::Allow {
                r.active = scope.trusted;
            }
        }
        p.rules = Rules::new(rules);
        p
    }
}

/// The hooks of enabled plugins: a user plugin's join the user layer, a
/// project plugin's the workspace layer, where they are hashed with the
/// workspace's own and run only where it is trusted and the set approved.
fn plugin_hooks(
    scope: &Scope<'_>,
    p: &mut Policy,
    workspace_hooks: &mut Vec<crate::hooks::HookCommand>,
) {
    let installed =
        seekclaw_plugins::Installation::read(scope.home.root(), scope.workspace, scope.trusted);
    for (plugin_scope, plugin) in installed.enabled() {
        let Some(hooks) = &plugin.hooks else { continue };
        let file = seekclaw_plugins::hooks_path(&plugin.root);
        let layer = match plugin_scope {
            seekclaw_plugins::Scope::User => Layer::User,
            seekclaw_plugins::Scope::Project => Layer::Workspace,
        };
        let mut read = read_hooks(hooks, layer, &file, &mut p.problems);
        for hook in &mut read {
            hook.plugin_root = Some(plugin.root.clone());
        }
        if layer == Layer::Workspace {
            workspace_hooks.extend(read.iter().cloned());
        }
        p.hooks.extend(read);
    }
}

/// Every file [`Policy::load`] may read for `scope` (whether or not it
/// exists): a cache of the policy is good while none of them changed.
pub fn source_files(scope: &Scope<'_>) -> Vec<PathBuf> {
    let mut files = vec![
        managed_path(),
        scope.home.config_path(),
        approved_path(scope.home),
    ];
    if let Some(h) = seekclaw_config::user_home() {
        files.push(h.join(".claude").join("settings.json"));
    }
    if let Some(ws) = scope.workspace {
        files.push(seekclaw_config::workspace_config_path(ws));
        files.push(ws.join(".claude").join("settings.json"));
        files.push(ws.join(".claude").join("settings.local.json"));
    }
    files.extend(seekclaw_plugins::sources(
        scope.home.root(),
        scope.workspace,
    ));
    files
}

fn managed_path() -> PathBuf {
    std::env::var_os(MANAGED_ENV)
        .filter(|v| !v.is_empty())
        .map_or_else(|| PathBuf::from(MANAGED_DEFAULT), PathBuf::from)
}

fn read_tree(path: &Path, problems: &mut Vec<Problem>) -> Option<Value> {
    match seekclaw_config::read_json_lenient::<Value>(path) {
        Ok(tree) => tree,
        Err(e) => {
            problems.push(Problem::new(path, "", &format!("not read: {e}")));
            None
        }
    }
}

fn read_rules(
    perms: &Value,
    (layer, file): (Layer, &Path),
    bases: &Bases,
    problems: &mut Vec<Problem>,
    out: &mut Vec<Rule>,
) {
    let Some(obj) = perms.as_object() else {
        problems.push(Problem::new(
            file,
            "permissions",
            "expected an object with allow, ask, deny",
        ));
        return;
    };
    for (key, list) in obj {
        let verdict = match key.as_str() {
            "allow" => Verdict::Allow,
            "ask" => Verdict::Ask,
            "deny" => Verdict::Deny,
            // Claude Code's other keys (`defaultMode`, `additionalDirectories`) are not rules.
            "defaultMode" | "additionalDirectories" | "disableBypassPermissionsMode" => continue,
            other => {
                problems.push(Problem::new(
                    file,
                    &format!("permissions.{other}"),
                    "unknown key (expected allow, ask or deny)",
                ));
                continue;
            }
        };
        let Some(items) = list.as_array() else {
            problems.push(Problem::new(
                file,
                &format!("permissions.{key}"),
                "expected a list of rules",
            ));
            continue;
        };
        for (i, item) in items.iter().enumerate() {
            let at = format!("permissions.{key}[{i}]");
            let Some(text) = item.as_str() else {
                problems.push(Problem::new(
                    file,
                    &at,
                    "expected a string like `Bash(npm test:*)`",
                ));
                continue;
            };
            match Rule::parse(text, verdict, layer, file, bases) {
                Ok(rule) => out.push(rule),
                Err(e) => problems.push(Problem::new(file, &at, &e)),
            }
        }
    }
}

/// A stable hash of a workspace's hooks: what the user approves.
fn hash_hooks(hooks: &[crate::hooks::HookCommand]) -> String {
    let mut lines: Vec<String> = hooks
        .iter()
        .map(|h| {
            format!(
                "{}\u{0}{}\u{0}{}\u{0}{}",
                h.event.as_str(),
                h.matcher.as_deref().unwrap_or(""),
                h.command,
                h.timeout.as_millis()
            )
        })
        .collect();
    lines.sort();
    let digest = Sha256::digest(lines.join("\n").as_bytes());
    digest.iter().take(12).map(|b| format!("{b:02x}")).collect()
}

fn approved_path(home: &seekclaw_config::Home) -> PathBuf {
    home.root().join(APPROVED_FILE)
}

/// The hook set approved for `workspace`, if any.
pub fn approved_hash(home: &seekclaw_config::Home, workspace: &Path) -> Option<String> {
    let map: BTreeMap<String, String> = seekclaw_config::read_json_lenient(&approved_path(home))
        .ok()
        .flatten()?;
    map.get(&workspace.display().to_string()).cloned()
}

/// Remembers that the user approved `hash` for `workspace`.
pub fn approve(
    home: &seekclaw_config::Home,
    workspace: &Path,
    hash: &str,
) -> Result<(), seekclaw_config::ConfigError> {
    let path = approved_path(home);
    let mut map: BTreeMap<String, String> = seekclaw_config::read_json_lenient(&path)
        .ok()
        .flatten()
        .unwrap_or_default();
    map.insert(workspace.display().to_string(), hash.to_string());
    seekclaw_config::save_json_file(&path, &map)
}
