//! A session's approval settings: the policy it overrides the config with
//! and the calls a person allowed for the rest of the session.

use rusqlite::{OptionalExtension, params};
use serde::{Deserialize, Serialize};

use crate::error::{Result, StoreError};
use crate::store::Store;

/// A call a person allowed for the rest of the session (`allow_session`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalRule {
    /// The tool's name.
    pub tool: String,
    /// For `bash`: the exact command allowed; `None`: every call of the tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
}

/// What a session keeps about approvals.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SessionApprovals {
    /// The session's own policy (a wire name), over the workspace's and the
    /// config's; `None` inherits.
    pub policy: Option<String>,
    /// Calls allowed for the session, oldest first.
    pub rules: Vec<ApprovalRule>,
}

impl Store {
    /// The session's approval settings (empty when it never had any).
    pub fn session_approvals(&self, scope: &str, id: &str) -> Result<SessionApprovals> {
        self.read(|tx| {
            let row: Option<(Option<String>, String)> = tx
                .prepare_cached(
                    "SELECT a.policy, a.rules FROM session_approvals a \
                     JOIN sessions s ON s.pk = a.session_pk WHERE s.scope = ?1 AND s.id = ?2",
                )?
                .query_row(params![scope, id], |r| Ok((r.get(0)?, r.get(1)?)))
                .optional()?;
            let Some((policy, rules)) = row else {
                return Ok(SessionApprovals::default());
            };
            // A damaged rule list allows nothing rather than failing the turn.
            let rules = serde_json::from_str(&rules).unwrap_or_default();
            Ok(SessionApprovals { policy, rules })
        })
    }

    /// Sets (or, with `None`, clears) the session's own policy. Fails with
    /// `NotFound` when the session does not exist.
    pub fn set_session_approval_policy(
        &self,
        scope: &str,
        id: &str,
        policy: Option<&str>,
    ) -> Result<()> {
        self.write(|tx| {
            let pk = session_pk(tx, scope, id)?;
            tx.prepare_cached(
                "INSERT INTO session_approvals (session_pk, policy) VALUES (?1, ?2) \
                 ON CONFLICT (session_pk) DO UPDATE SET policy = excluded.policy",
            )?
            .execute(params![pk, policy])?;
            Ok(())
        })
    }

    /// Adds a rule (once) to the session's allowed calls.
    pub fn add_session_approval_rule(
        &self,
        scope: &str,
        id: &str,
        rule: &ApprovalRule,
    ) -> Result<()> {
        self.write(|tx| {
            let pk = session_pk(tx, scope, id)?;
            let current: Option<String> = tx
                .prepare_cached("SELECT rules FROM session_approvals WHERE session_pk = ?1")?
                .query_row(params![pk], |r| r.get(0))
                .optional()?;
            let mut rules: Vec<ApprovalRule> = current
                .and_then(|t| serde_json::from_str(&t).ok())
                .unwrap_or_default();
            if rules.contains(rule) {
                return Ok(());
            }
            rules.push(rule.clone());
            let text =
                serde_json::to_string(&rules).map_err(|e| StoreError::Corrupt(e.to_string()))?;
            tx.prepare_cached(
                "INSERT INTO session_approvals (session_pk, rules) VALUES (?1, ?2) \
                 ON CONFLICT (session_pk) DO UPDATE SET rules = excluded.rules",
            )?
            .execute(params![pk, text])?;
            Ok(())
        })
    }
}

fn session_pk(tx: &rusqlite::Transaction<'_>, scope: &str, id: &str) -> Result<i64> {
    tx.prepare_cached("SELECT pk FROM sessions WHERE scope = ?1 AND id = ?2")?
        .query_row(params![scope, id], |r| r.get(0))
        .optional()?
        .ok_or_else(|| StoreError::NotFound(format!("session {id}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil;

    #[test]
    fn policy_and_rules_round_trip_and_go_with_the_session() {
        let (_dir, store) = testutil::temp_store();
        store
            .create_session(&testutil::new_session("ws", "s1"))
            .unwrap();
        assert_eq!(
            store.session_approvals("ws", "s1").unwrap(),
            SessionApprovals::default()
        );
        store
            .set_session_approval_policy("ws", "s1", Some("untrusted"))
            .unwrap();
        let rule = ApprovalRule {
            tool: "bash".into(),
            command: Some("cargo test".into()),
        };
        store.add_session_approval_rule("ws", "s1", &rule).unwrap();
        store.add_session_approval_rule("ws", "s1", &rule).unwrap();
        let edit = ApprovalRule {
            tool: "edit_file".into(),
            command: None,
        };
        store.add_session_approval_rule("ws", "s1", &edit).unwrap();
        let got = store.session_approvals("ws", "s1").unwrap();
        assert_eq!(got.policy.as_deref(), Some("untrusted"));
        assert_eq!(got.rules, vec![rule, edit]);
        store.set_session_approval_policy("ws", "s1", None).unwrap();
        assert_eq!(store.session_approvals("ws", "s1").unwrap().policy, None);
        assert!(matches!(
            store.set_session_approval_policy("ws", "nope", Some("never")),
            Err(StoreError::NotFound(_))
        ));
        assert!(store.delete_session("ws", "s1").unwrap());
        assert_eq!(
            store.session_approvals("ws", "s1").unwrap(),
            SessionApprovals::default()
        );
    }
}
