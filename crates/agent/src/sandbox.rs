//! The shell sandbox of a turn, from `agent.sandbox` and the workspace's own
//! setting. `bash`, its background jobs and the verify command all run under it.

use seekclaw_config::SandboxMode;
use seekclaw_tools::SandboxPolicy;

use crate::turn::TurnRuntime;

/// The mode in effect: a workspace's `.seekclaw/config.json` may only tighten
/// `agent.sandbox`. The sandboxed shell can write that file, so a looser
/// setting there would let one command lift the sandbox of the next.
pub fn effective_mode(global: SandboxMode, workspace: Option<SandboxMode>) -> SandboxMode {
    global.max(workspace.unwrap_or(SandboxMode::Off))
}

/// The policy of a turn whose session has `network` on or off; the daemon's
/// home (config with API keys, socket, database) is hidden from the shell.
pub(crate) fn policy(rt: &TurnRuntime, network: bool) -> SandboxPolicy {
    let mode = effective_mode(
        rt.config.agent.sandbox,
        rt.workspace.as_ref().and_then(|w| w.sandbox),
    );
    SandboxPolicy::new(mode, &rt.work_dir, rt.home.root(), network)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_workspace_only_tightens() {
        use SandboxMode::*;
        assert_eq!(effective_mode(WorkspaceWrite, None), WorkspaceWrite);
        assert_eq!(effective_mode(WorkspaceWrite, Some(Off)), WorkspaceWrite);
        assert_eq!(effective_mode(WorkspaceWrite, Some(ReadOnly)), ReadOnly);
        assert_eq!(effective_mode(Off, Some(WorkspaceWrite)), WorkspaceWrite);
        assert_eq!(effective_mode(ReadOnly, Some(Off)), ReadOnly);
        assert_eq!(effective_mode(Off, None), Off);
    }
}
