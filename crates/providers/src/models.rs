//! Provider endpoints outside chat: authentication headers and the model list.

use std::time::Duration;

use seekclaw_config::Provider;

use crate::error::ProviderError;
use crate::transport::HttpPool;

/// How long a front end with no provider timeout of its own (the terminal
/// UI's setup, `seekclaw provider add`) waits for a model list.
pub const LIST_TIMEOUT: Duration = Duration::from_secs(15);

/// The model ids `provider`'s endpoint lists (sorted, de-duplicated): `GET
/// url`, else the provider's `modelListUrl`, else `{baseUrl}/models`
/// (`/v1/models` for Anthropic), with its authentication headers. The one
/// way every front end lists an endpoint's models (the daemon's
/// `provider.models.fetch`, `seekclaw provider add`, the terminal UI's setup).
pub async fn list_models(
    pool: &HttpPool,
    provider: &Provider,
    url: Option<&str>,
    timeout: Duration,
) -> Result<Vec<String>, ProviderError> {
    let url = match url.filter(|u| !u.trim().is_empty()) {
        Some(url) => url.to_string(),
        None => models_url(provider),
    };
    crate::transport::fetch_models(pool, provider, &url, timeout).await
}

/// `{base}/v1/...` for Anthropic without doubling a `/v1` already in the base.
pub fn anthropic_url(base: &str, path: &str) -> String {
    let base = base.trim_end_matches('/');
    if base.ends_with("/v1") {
        format!("{base}/{path}")
    } else {
        format!("{base}/v1/{path}")
    }
}

/// The URL `provider.models.fetch` and the health probe use by default.
pub fn models_url(provider: &Provider) -> String {
    if let Some(url) = provider
        .model_list_url
        .as_deref()
        .filter(|u| !u.trim().is_empty())
    {
        return url.to_string();
    }
    if provider.kind.eq_ignore_ascii_case("anthropic") {
        anthropic_url(&provider.base_url, "models")
    } else {
        format!("{}/models", provider.base_url.trim_end_matches('/'))
    }
}

/// Authentication and custom headers of a provider. Values hold the API key: never log them.
pub fn auth_headers(provider: &Provider) -> Vec<(String, String)> {
    let mut headers = Vec::new();
    let key = provider.api_key.as_deref().filter(|k| !k.trim().is_empty());
    if provider.kind.eq_ignore_ascii_case("anthropic") {
        if let Some(k) = key {
            headers.push(("x-api-key".to_string(), k.to_string()));
        }
        headers.push(("anthropic-version".to_string(), "2023-06-01".to_string()));
    } else {
        if let Some(k) = key {
            headers.push(("authorization".to_string(), format!("Bearer {k}")));
        }
        if let Some(org) = provider.organization.as_deref().filter(|o| !o.is_empty()) {
            headers.push(("openai-organization".to_string(), org.to_string()));
        }
    }
    if let Some(extra) = &provider.headers {
        for (name, value) in extra {
            headers.push((name.clone(), value.clone()));
        }
    }
    headers
}

/// Ids from a model-list answer: a root array, `{data:[…]}` or `{models:[…]}`, with
/// entries as strings or objects (`id`/`name`/`model`). Sorted, de-duplicated.
pub fn parse_model_list(provider: &str, body: &[u8]) -> Result<Vec<String>, ProviderError> {
    let fail =
        |what: &str| ProviderError::Config(format!("Model list response for {provider} {what}"));
    let value: serde_json::Value =
        serde_json::from_slice(body).map_err(|_| fail("is not valid JSON"))?;
    let list = match &value {
        serde_json::Value::Array(a) => a,
        other => other
            .get("data")
            .or_else(|| other.get("models"))
            .and_then(|v| v.as_array())
            .ok_or_else(|| fail("does not contain a model array"))?,
    };
    let mut ids: Vec<String> = list
        .iter()
        .filter_map(|e| match e {
            serde_json::Value::String(s) => Some(s.clone()),
            obj => ["id", "name", "model"]
                .iter()
                .find_map(|k| obj.get(*k).and_then(|v| v.as_str()).map(str::to_string)),
        })
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect();
    ids.sort();
    ids.dedup();
    if ids.is_empty() {
        return Err(fail("contains no model IDs"));
    }
    Ok(ids)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_and_headers() {
        assert_eq!(
            anthropic_url("https://a.test/", "messages"),
            "https://a.test/v1/messages"
        );
        assert_eq!(
            anthropic_url("https://a.test/v1", "models"),
            "https://a.test/v1/models"
        );
        let mut p = Provider {
            id: "x".into(),
            kind: "openai".into(),
            base_url: "http://h/v1/".into(),
            api_key: Some("sk-1".into()),
            ..Provider::default()
        };
        assert_eq!(models_url(&p), "http://h/v1/models");
        assert_eq!(
            auth_headers(&p)[0],
            ("authorization".into(), "Bearer sk-1".into())
        );
        p.kind = "anthropic".into();
        assert_eq!(auth_headers(&p)[0], ("x-api-key".into(), "sk-1".into()));
        p.api_key = None;
        assert_eq!(
            auth_headers(&p),
            vec![("anthropic-version".into(), "2023-06-01".into())]
        );
    }

    #[test]
    fn model_lists_in_every_shape() {
        assert_eq!(
            parse_model_list("p", br#"{"data":[{"id":"b"},{"id":"a"},{"id":"a"}]}"#).unwrap(),
            ["a", "b"]
        );
        assert_eq!(
            parse_model_list("p", br#"{"models":[{"name":"n"}]}"#).unwrap(),
            ["n"]
        );
        assert_eq!(
            parse_model_list("p", br#"["x",{"model":"y"}]"#).unwrap(),
            ["x", "y"]
        );
        assert!(
            parse_model_list("p", b"nope")
                .unwrap_err()
                .to_string()
                .contains("not valid JSON")
        );
        assert!(
            parse_model_list("p", br#"{"x":1}"#)
                .unwrap_err()
                .to_string()
                .contains("model array")
        );
        assert!(
            parse_model_list("p", br#"{"data":[]}"#)
                .unwrap_err()
                .to_string()
                .contains("no model IDs")
        );
    }

    fn endpoint(kind: &str, base_url: String) -> Provider {
        Provider {
            id: "tk".into(),
            kind: kind.into(),
            base_url,
            api_key: Some("sk-test-123456".into()),
            ..Provider::default()
        }
    }

    #[tokio::test]
    async fn list_models_asks_the_endpoint_with_its_key() {
        let server = seekclaw_testkit::ProviderServer::start().unwrap();
        server.set_models(["b-model", "a-model", "a-model"]);
        let pool = HttpPool::new();
        let openai = endpoint("openai", server.base_url());
        let ids = list_models(&pool, &openai, None, LIST_TIMEOUT)
            .await
            .unwrap();
        assert_eq!(ids, ["a-model", "b-model"]);
        let anthropic = endpoint("anthropic", server.base_url());
        let ids = list_models(&pool, &anthropic, None, LIST_TIMEOUT)
            .await
            .unwrap();
        assert_eq!(ids, ["a-model", "b-model"]);
        let asked = server.requests();
        assert_eq!(asked.len(), 2);
        assert_eq!(
            (asked[0].method.as_str(), asked[0].path.as_str()),
            ("GET", "/models")
        );
        assert_eq!(
            asked[0].header("authorization"),
            Some("Bearer sk-test-123456")
        );
        assert_eq!(asked[1].path, "/v1/models");
        assert_eq!(asked[1].header("x-api-key"), Some("sk-test-123456"));
    }

    #[tokio::test]
    async fn list_models_takes_the_url_given_else_the_configured_one() {
        let server = seekclaw_testkit::ProviderServer::start().unwrap();
        let pool = HttpPool::new();
        // A base URL that lists nothing: the URLs below are what is asked.
        let mut p = endpoint("openai", server.url("/nowhere"));
        p.model_list_url = Some(server.url("/v1/models"));
        let ids = list_models(&pool, &p, None, LIST_TIMEOUT).await.unwrap();
        assert_eq!(ids, ["testkit-model"]);
        let given = server.url("/models");
        let ids = list_models(&pool, &p, Some(&given), LIST_TIMEOUT)
            .await
            .unwrap();
        assert_eq!(ids, ["testkit-model"]);
        // A blank URL is no URL.
        list_models(&pool, &p, Some("  "), LIST_TIMEOUT)
            .await
            .unwrap();
        let paths: Vec<String> = server.requests().into_iter().map(|r| r.path).collect();
        assert_eq!(paths, ["/v1/models", "/models", "/v1/models"]);
    }

    #[tokio::test]
    async fn list_models_says_why_an_endpoint_lists_none() {
        let server = seekclaw_testkit::ProviderServer::start().unwrap();
        let pool = HttpPool::new();
        let p = endpoint("openai", server.url("/nowhere"));
        let e = list_models(&pool, &p, None, LIST_TIMEOUT)
            .await
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("Model list request failed for tk (HTTP 404)"),
            "{e}"
        );
        server.set_models(Vec::<String>::new());
        let p = endpoint("openai", server.base_url());
        let e = list_models(&pool, &p, None, LIST_TIMEOUT)
            .await
            .unwrap_err()
            .to_string();
        assert!(e.contains("contains no model IDs"), "{e}");
        drop(server);
        let e = list_models(&pool, &p, None, Duration::from_secs(5)).await;
        assert!(e.is_err());
    }
}
