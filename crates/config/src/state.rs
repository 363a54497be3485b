//! `~/.seekclaw/state.json` and `<ws>/.seekclaw/config.json` (workspace overrides).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::config::McpSettings;
use crate::enums::{AgentMode, SandboxMode};

/// Runtime state that is not configuration.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct State {
    /// Strategy name → next index for round-robin load balancing.
    pub round_robin_cursors: BTreeMap<String, i64>,
    /// The original's last-used session; kept for its shape, nothing here reads it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_session_id: Option<String>,
    /// Globally disabled skills: name → "" (a set, in the original's shape).
    pub disabled_skills: BTreeMap<String, String>,
    /// Unknown keys, kept so a newer state file round-trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Per-workspace overrides (reference §5.3). Everything is optional: `None`
/// means "use the global value".
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct WorkspaceConfig {
    /// Provider that qualifies `model` here (else the profile's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    /// The first candidate model of this workspace's turns.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Routing strategy here, instead of the profile's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub strategy: Option<String>,
    /// Sampling temperature here, instead of the profile's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Agent mode here, instead of `agent.mode`; `agent.mode.switch` writes it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<AgentMode>,
    /// Prompt key.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// `pragmatic` or `friendly`, instead of `agent.personality`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub personality: Option<String>,
    /// Skills switched off in this workspace (on top of the global ones).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disabled_skills: Option<Vec<String>>,
    /// Tools withheld from the model in this workspace.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disabled_tools: Option<Vec<String>>,
    /// MCP servers of this workspace, merged over the global ones.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mcp: Option<McpSettings>,
    /// Verification after file changes here, instead of `agent.autoVerify`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auto_verify: Option<bool>,
    /// Shell command that verifies the workspace, instead of the one its
    /// project kind suggests (e.g. `cargo check --quiet`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verify_command: Option<String>,
    /// Approval policy here, instead of `agent.approvalPolicy`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approval_policy: Option<crate::ApprovalPolicy>,
    /// The shell sandbox here; it can only tighten `agent.sandbox` (the shell
    /// may write this file, so it must not be able to loosen its own sandbox).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<SandboxMode>,
    /// Lifecycle hooks in Claude Code's shape (read and checked by the
    /// policy crate; kept here as written).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hooks: Option<Value>,
    /// Permission rules: `{allow: [], ask: [], deny: []}` (read by the policy crate).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub permissions: Option<Value>,
    /// Unknown keys, kept so the user's file round-trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `<root>/.seekclaw/config.json`. Read it with [`crate::read_json_lenient`]:
/// a broken file in the user's repository is reported, never renamed.
pub fn workspace_config_path(root: &Path) -> PathBuf {
    root.join(".seekclaw").join("config.json")
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;
    use crate::jsonfile::{load_json_file, read_json_lenient, save_json_file};

    #[test]
    fn state_round_trip_and_defaults() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("state.json");
        let loaded = load_json_file::<State>(&path).unwrap();
        assert_eq!(loaded.value, State::default());

        fs::write(
            &path,
            r#"{"roundRobinCursors":{"fast":3},"disabledSkills":{"lint":""},"future":[1]}"#,
        )
        .unwrap();
        let state = load_json_file::<State>(&path).unwrap().value;
        assert_eq!(state.round_robin_cursors["fast"], 3);
        assert!(state.disabled_skills.contains_key("lint"));
        assert_eq!(state.last_session_id, None);
        save_json_file(&path, &state).unwrap();
        let text = fs::read_to_string(&path).unwrap();
        assert!(!text.contains("lastSessionId"));
        assert!(text.contains("\"future\""));
        assert_eq!(load_json_file::<State>(&path).unwrap().value, state);
    }

    #[test]
    fn workspace_config_reads_leniently_and_skips_none() {
        let tmp = tempfile::tempdir().unwrap();
        let path = workspace_config_path(tmp.path());
        assert_eq!(path, tmp.path().join(".seekclaw/config.json"));
        assert_eq!(read_json_lenient::<WorkspaceConfig>(&path), Ok(None));

        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(
            &path,
            r#"{
              // the user's repo
              mode: "plan",
              disabledTools: ["bash"],
              mcp: { servers: { gh: { transport: "http", url: "http://x" } } },
              autoVerify: false,
              teamNote: "keep",
            }"#,
        )
        .unwrap();
        let ws = read_json_lenient::<WorkspaceConfig>(&path)
            .unwrap()
            .unwrap();
        assert_eq!(ws.mode, Some(AgentMode::Plan));
        assert_eq!(ws.disabled_tools, Some(vec!["bash".to_string()]));
        assert_eq!(ws.auto_verify, Some(false));
        let mcp = ws.mcp.as_ref().unwrap();
        assert_eq!(mcp.servers["gh"].transport, "http");
        assert!(mcp.servers["gh"].enabled);

        let out = serde_json::to_value(&ws).unwrap();
        let keys: Vec<&str> = out
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            ["mode", "disabledTools", "mcp", "autoVerify", "teamNote"]
        );

        let empty = serde_json::to_string(&WorkspaceConfig::default()).unwrap();
        assert_eq!(empty, "{}");
    }

    #[test]
    fn broken_workspace_config_is_left_in_place() {
        let tmp = tempfile::tempdir().unwrap();
        let path = workspace_config_path(tmp.path());
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, r#"{"temperature": "hot"}"#).unwrap();
        assert!(read_json_lenient::<WorkspaceConfig>(&path).is_err());
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            r#"{"temperature": "hot"}"#
        );
        assert_eq!(fs::read_dir(path.parent().unwrap()).unwrap().count(), 1);
    }
}
