//! `skill.*`: the skills of the current workspace and the global library.

use std::path::PathBuf;

use seekclaw_config::workspace_config_path;
use seekclaw_protocol::{Envelope, MethodError, Params, method};
use seekclaw_skills::{SkillEntry, SkillListing};

use super::Reply;
use crate::ctx::Ctx;
use crate::error::Wire;
use seekclaw_engine::config_service::save_file;
use seekclaw_engine::{own_workspace, workspace_config};

/// Every skill of the current workspace and the global library (read off the
/// async threads: each skill's prompt file is read).
async fn entries(daemon: &Ctx) -> Result<Vec<SkillEntry>, MethodError> {
    let root = daemon.current_workspace();
    let own = own_workspace(&daemon.engine.home, Some(&root)).map(PathBuf::from);
    let ws_disabled = workspace_config(&daemon.engine.home, Some(&root))
        .and_then(|w| w.disabled_skills)
        .unwrap_or_default();
    let disabled: Vec<String> = daemon
        .engine
        .config
        .load_state()
        .disabled_skills
        .into_keys()
        .collect();
    let global = daemon.engine.home.skills_dir();
    let (home, store) = (daemon.engine.home.clone(), daemon.engine.store.clone());
    tokio::task::spawn_blocking(move || {
        // Active plugins' skills are listed (and toggled) as `plugin:skill`.
        let trusted = seekclaw_engine::has_project_plugins(&home, Some(&root))
            && seekclaw_engine::workspace_trusted(&store, &root);
        let installed = seekclaw_engine::plugin_installation(&home, Some(&root), trusted);
        let plugin_skills = seekclaw_engine::plugin_skills(&installed);
        seekclaw_skills::list_with(
            &global,
            own.as_deref(),
            plugin_skills,
            disabled,
            &ws_disabled,
        )
    })
    .await
    .map_err(|e| MethodError::internal(e.to_string()))
}

async fn list_reply(daemon: &Ctx, id: i64) -> Reply {
    let rows: Vec<SkillListing> = entries(daemon)
        .await?
        .iter()
        .map(SkillEntry::listing)
        .collect();
    Ok(Envelope::json_result(id, &rows))
}

pub async fn list(daemon: &Ctx, id: i64) -> Reply {
    list_reply(daemon, id).await
}

/// Disabling is global (`state.json`); enabling also lifts a workspace's own
/// `disabledSkills` entry, so the skill really is on afterwards.
pub async fn toggle(daemon: &Ctx, id: i64, p: &Params) -> Reply {
    let params = p.read::<method::SkillToggle>()?;
    let name = params.name.trimmed();
    let enabled = params
        .enabled
        .ok_or_else(|| MethodError::invalid_param("enabled", "params.enabled is required"))?;
    let known = entries(daemon)
        .await?
        .into_iter()
        .find(|e| e.skill.name == name || e.skill.name.eq_ignore_ascii_case(&name))
        .ok_or_else(|| MethodError::not_found(format!("Skill not found: {name}")))?;
    let name = known.skill.name;
    daemon
        .engine
        .config
        .update_state(crate::error::wire, |state| {
            if enabled {
                state.disabled_skills.remove(&name);
            } else {
                state.disabled_skills.insert(name.clone(), String::new());
            }
            Ok(())
        })
        .await?;
    let root = daemon.current_workspace();
    if enabled
        && let Some(mut ws) = workspace_config(&daemon.engine.home, Some(&root))
        && let Some(disabled) = ws.disabled_skills.as_mut()
        && disabled.iter().any(|d| d == &name)
    {
        disabled.retain(|d| d != &name);
        save_file(workspace_config_path(&root), ws).await.wire()?;
    }
    list_reply(daemon, id).await
}

/// Imports a `.md` or `.zip` into the global skills library.
pub async fn import(daemon: &Ctx, id: i64, p: &Params) -> Reply {
    let raw = p.read::<method::SkillImport>()?.path.trimmed();
    let given = PathBuf::from(raw);
    let path = if given.is_absolute() {
        given
    } else {
        daemon.current_workspace().join(given)
    };
    let global = daemon.engine.home.skills_dir();
    tokio::task::spawn_blocking(move || seekclaw_skills::import(&global, &path))
        .await
        .map_err(|e| MethodError::internal(e.to_string()))?
        .map_err(|e| MethodError::invalid_param("path", e.to_string()))?;
    list_reply(daemon, id).await
}
