//! The `seekclaw.project` attribute: a stable id for a workspace that does
//! not give its path away.

use sha2::{Digest, Sha256};

/// `global` for sessions without a workspace, else the first 12 hex digits
/// of the SHA-256 of the workspace path (the same project always gets the
/// same id; the path itself is exported only with `includeContent`).
pub fn project_id(workspace: Option<&str>) -> String {
    let Some(path) = workspace.filter(|w| !w.is_empty()) else {
        return "global".into();
    };
    let digest = Sha256::digest(path.as_bytes());
    digest.iter().take(6).map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stable_short_and_pathless() {
        let a = project_id(Some("/home/me/secret-project"));
        assert_eq!(a.len(), 12);
        assert_eq!(a, project_id(Some("/home/me/secret-project")));
        assert!(!a.contains("secret"));
        assert_eq!(project_id(None), "global");
    }
}
