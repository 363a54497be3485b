//! What a turn is checked for before its session is found or created: an
//! empty message, a model name that matches nothing, no model that can
//! answer. A turn that fails here leaves nothing behind (no empty session).

use crate::error::{EngineError, ErrorKind};
use seekclaw_agent::{FailureKind, TurnRuntime, UserImage};
use seekclaw_config::Config;
use seekclaw_providers::ProviderError;
use seekclaw_providers::routing::{RouteInput, candidates, resolve};

/// Refuses a turn with nothing to say (blank text and no image).
pub(crate) fn message(text: &str, images: &[UserImage]) -> Result<(), EngineError> {
    if text.trim().is_empty() && images.is_empty() {
        return Err(EngineError::invalid_param(
            "message",
            "The prompt is empty: say what to do",
        ));
    }
    Ok(())
}

/// `reference` (`provider/model`, an alias or a unique bare id) as the
/// `provider/model` it names among the enabled providers; else an error that
/// lists the configured models.
pub fn pin(config: &Config, reference: &str) -> Result<String, EngineError> {
    if let Some(handle) = resolve(config, reference, false) {
        return Ok(handle.model_ref(config));
    }
    let disabled = resolve(config, reference, true).map(|h| h.provider(config).id.clone());
    let known = configured_models(config);
    let mut text = match disabled {
        Some(provider) => {
            format!("Model {reference:?} belongs to provider {provider:?}, which is disabled.")
        }
        None => format!("Unknown model {reference:?}."),
    };
    if known.is_empty() {
        text.push_str(" No models are configured: add one with `seekclaw provider add`.");
    } else {
        text.push_str(&format!(
            " Configured models: {} (see `seekclaw model list`).",
            known.join(", ")
        ));
    }
    Err(EngineError::invalid_param("model", text))
}

/// `provider/model` of every model of an enabled provider, in config order.
fn configured_models(config: &Config) -> Vec<String> {
    config
        .providers
        .iter()
        .filter(|p| p.enabled)
        .flat_map(|p| p.models.iter().map(move |m| format!("{}/{}", p.id, m.id)))
        .collect()
}

/// Whether any model can take the turn, as routing will see it (no model
/// configured, none with vision for its images): the same error the turn
/// would end with, before anything is written.
pub(crate) fn route(runtime: &TurnRuntime, needs_vision: bool) -> Result<(), EngineError> {
    let route = RouteInput {
        needs_vision,
        ..runtime.route_input()
    };
    match candidates(&runtime.config, &route, |_| false) {
        Ok(_) => Ok(()),
        Err(e @ ProviderError::Config(_)) => {
            Err(EngineError::new(FailureKind::NoModel.into(), e.to_string()))
        }
        Err(e) => Err(EngineError::new(ErrorKind::Provider, e.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> Config {
        serde_json::from_value(serde_json::json!({"providers": [
            {"id": "a", "kind": "openai", "baseUrl": "http://a.test", "models": [{"id": "m1", "alias": "fast"}]},
            {"id": "b", "kind": "openai", "baseUrl": "http://b.test", "models": [{"id": "m2"}]},
            {"id": "off", "kind": "openai", "baseUrl": "http://c.test", "enabled": false, "models": [{"id": "m3"}]}
        ]}))
        .unwrap()
    }

    #[test]
    fn a_named_model_resolves_to_its_ref_or_lists_the_configured_ones() {
        let c = config();
        assert_eq!(pin(&c, "b/m2").unwrap(), "b/m2");
        assert_eq!(pin(&c, "fast").unwrap(), "a/m1");
        assert_eq!(pin(&c, "M2").unwrap(), "b/m2");
        let unknown = pin(&c, "m9").unwrap_err();
        assert_eq!(unknown.param.as_deref(), Some("model"));
        assert_eq!(
            unknown.message,
            "Unknown model \"m9\". Configured models: a/m1, b/m2 (see `seekclaw model list`)."
        );
        let disabled = pin(&c, "off/m3").unwrap_err();
        assert!(
            disabled
                .message
                .starts_with("Model \"off/m3\" belongs to provider \"off\", which is disabled."),
            "{}",
            disabled.message
        );
        let empty: Config = serde_json::from_value(serde_json::json!({})).unwrap();
        assert!(
            pin(&empty, "m1")
                .unwrap_err()
                .message
                .contains("seekclaw provider add")
        );
    }

    #[test]
    fn a_blank_message_without_images_is_refused() {
        assert!(message("  \n", &[]).is_err());
        assert!(message("go", &[]).is_ok());
    }
}
