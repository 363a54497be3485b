//! `skill.*`: the skills of the current workspace and the global library.

use std::path::PathBuf;

use seekclaw_config::workspace_config_path;
use seekclaw_protocol::{Envelope, MethodError, Params, method};
use seekclaw_skills::{SkillEntry, SkillListing};

use super::Reply;
use crate::ctx::Ctx;
use seekclaw_engine::config_service::save_file;
use seekclaw_engine::{own_workspace, workspace_config};

/// Every skill of the current workspace and the global library (read off the
/// async threads: each skill's prompt file is read).
async fn entries(ctx: &Ctx) -> Result<Vec<SkillEntry>, MethodError> {
    let root = ctx.current_workspace();
    let own = own_workspace(&ctx.engine.home, Some(&root)).map(PathBuf::from);
    let ws_disabled = workspace_config(&ctx.engine.home, Some(&root))
        .and_then(|w| w.disabled_skills)
        .unwrap_or_default();
    let disabled: Vec<String> = ctx
        .engine
        .config
        .load_state()
        .disabled_skills
        .into_keys()
        .collect();
    let global = ctx.engine.home.skills_dir();
    tokio::task::spawn_blocking(move || {
        seekclaw_skills::list(&global, own.as_deref(), disabled, &ws_disabled)
    })
    .await
    .map_err(|e| MethodError::internal(e.to_string()))
}

async fn list_reply(ctx: &Ctx, id: i64) -> Reply {
    let rows: Vec<SkillListing> = entries(ctx)
        .await?
        .iter()
        .map(SkillEntry::listing)
        .collect();
    Ok(Envelope::json_result(id, &rows))
}

pub async fn list(ctx: &Ctx, id: i64) -> Reply {
    list_reply(ctx, id).await
}

/// Disabling is global (`state.json`); enabling also lifts a workspace's own
/// `disabledSkills` entry, so the skill really is on afterwards.
pub async fn toggle(ctx: &Ctx, id: i64, p: &Params) -> Reply {
    let params = p.read::<method::SkillToggle>()?;
    let name = params.name.trimmed();
    let enabled = params
        .enabled
        .ok_or_else(|| MethodError::invalid_param("enabled", "params.enabled is required"))?;
    let known = entries(ctx)
        .await?
        .into_iter()
        .find(|e| e.skill.name == name || e.skill.name.eq_ignore_ascii_case(&name))
        .ok_or_else(|| MethodError::not_found(format!("Skill not found: {name}")))?;
    let name = known.skill.name;
    ctx.engine
        .config
        .update_state(|state| {
            if enabled {
                state.disabled_skills.remove(&name);
            } else {
                state.disabled_skills.insert(name.clone(), String::new());
            }
            Ok(())
        })
        .await?;
    let root = ctx.current_workspace();
    if enabled
        && let Some(mut ws) = workspace_config(&ctx.engine.home, Some(&root))
        && let Some(disabled) = ws.disabled_skills.as_mut()
        && disabled.iter().any(|d| d == &name)
    {
        disabled.retain(|d| d != &name);
        save_file(workspace_config_path(&root), ws).await?;
    }
    list_reply(ctx, id).await
}

/// Imports a `.md` or `.zip` into the global skills library.
pub async fn import(ctx: &Ctx, id: i64, p: &Params) -> Reply {
    let raw = p.read::<method::SkillImport>()?.path.trimmed();
    let given = PathBuf::from(raw);
    let path = if given.is_absolute() {
        given
    } else {
        ctx.current_workspace().join(given)
    };
    let global = ctx.engine.home.skills_dir();
    tokio::task::spawn_blocking(move || seekclaw_skills::import(&global, &path))
        .await
        .map_err(|e| MethodError::internal(e.to_string()))?
        .map_err(|e| MethodError::invalid_param("path", e.to_string()))?;
    list_reply(ctx, id).await
}
