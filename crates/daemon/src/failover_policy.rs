//! The effective failover rule as `routing.get` and `doctor` state it: which
//! models a turn may go to when its model fails, and whether that can be
//! another provider (another vendor may see the prompt).

use seekclaw_config::{Config, WorkspaceConfig};
use seekclaw_protocol::api::FailoverPolicyView;
use seekclaw_providers::routing::{FailoverScope, RouteInput, candidates, failover_scope};

/// The rule for a turn in a workspace with `ws` as its config (none: global).
pub fn view(config: &Config, ws: Option<&WorkspaceConfig>) -> FailoverPolicyView {
    let route = RouteInput {
        workspace: ws,
        ..RouteInput::default()
    };
    let order: Vec<String> = candidates(config, &route, |_| false)
        .map(|chain| chain.iter().map(|h| h.model_ref(config)).collect())
        .unwrap_or_default();
    let scope = failover_scope(config, ws);
    let summary = summary(&scope, &order);
    let (name, model, provider) = match scope {
        FailoverScope::Off => ("off", None, None),
        FailoverScope::Provider { model, provider } => ("provider", Some(model), Some(provider)),
        FailoverScope::Chain { model } => ("chain", model, None),
        FailoverScope::Priority => ("priority", None, None),
    };
    FailoverPolicyView {
        scope: name.to_string(),
        model,
        provider,
        candidates: order,
        summary,
    }
}

/// The rule in one sentence.
fn summary(scope: &FailoverScope, order: &[String]) -> String {
    let listed = if order.is_empty() {
        "no model yet".to_string()
    } else {
        order.join(" → ")
    };
    match scope {
        FailoverScope::Off => format!(
            "failover is off (routing.failoverEnabled is false): only the first model answers ({})",
            order.first().map_or("no model yet", String::as_str)
        ),
        FailoverScope::Provider { model, provider } => format!(
            "{model} is chosen and no routing.fallback is set: failover stays with provider \
             {provider} ({listed}); another provider is tried only when listed in routing.fallback"
        ),
        FailoverScope::Chain { .. } => format!(
            "failover follows the configured chain as written ({listed}), nothing beyond it; \
             a change of provider is announced"
        ),
        FailoverScope::Priority => format!(
            "no model is chosen: failover goes through every enabled model in provider priority \
             order ({listed}); a change of provider is announced (choose one with `seekclaw model use` \
             to keep failover with its provider)"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn config(v: serde_json::Value) -> Config {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn each_scope_is_named_with_its_order() {
        let providers = json!([
            {"id": "cloud", "kind": "openai", "baseUrl": "http://c", "models": [{"id": "c1"}]},
            {"id": "local", "kind": "openai", "baseUrl": "http://l", "priority": 5,
             "models": [{"id": "l1"}, {"id": "l2"}]}
        ]);
        let none = view(&config(json!({"providers": providers})), None);
        assert_eq!(none.scope, "priority");
        assert_eq!(none.candidates, ["cloud/c1", "local/l1", "local/l2"]);
        assert!(
            none.summary.contains("provider priority order"),
            "{}",
            none.summary
        );

        let chosen = config(json!({"providers": providers,
            "profiles": {"default": {"provider": "local", "model": "l2"}}}));
        let v = view(&chosen, None);
        assert_eq!(
            (v.scope.as_str(), v.model.as_deref(), v.provider.as_deref()),
            ("provider", Some("local/l2"), Some("local"))
        );
        assert_eq!(v.candidates, ["local/l2", "local/l1"]);
        assert!(
            v.summary.contains("stays with provider local"),
            "{}",
            v.summary
        );

        let chained = config(json!({"providers": providers,
            "profiles": {"default": {"provider": "local", "model": "l2"}},
            "routing": {"fallback": ["cloud/c1"]}}));
        let v = view(&chained, None);
        assert_eq!((v.scope.as_str(), v.candidates.len()), ("chain", 2));

        let off = config(json!({"providers": providers, "routing": {"failoverEnabled": false}}));
        assert_eq!(view(&off, None).scope, "off");
    }
}
