//! `agent.webSearch`: which engine the `web_search` tool asks, where, and
//! with which key. A misspelt engine name falls back to `auto` alone (with a
//! warning naming `agent.webSearch.engine`); the rest of the file applies.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A search engine `web_search` can ask.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SearchEngine {
    /// Google, then Bing, then Baidu (their HTML result pages, no account).
    #[default]
    Auto,
    /// Google's HTML result page.
    Google,
    /// Bing's HTML result page.
    Bing,
    /// Baidu's HTML result page.
    Baidu,
    /// A SearXNG instance's JSON API at `url` (required).
    Searxng,
    /// The Brave Search API (`apiKey` required).
    Brave,
    /// The Tavily search API (`apiKey` required).
    Tavily,
}

impl SearchEngine {
    /// Every engine, `auto` first.
    pub const ALL: [SearchEngine; 7] = [
        SearchEngine::Auto,
        SearchEngine::Google,
        SearchEngine::Bing,
        SearchEngine::Baidu,
        SearchEngine::Searxng,
        SearchEngine::Brave,
        SearchEngine::Tavily,
    ];

    /// The name written in `config.json` and taken by the tool's `engine`.
    pub fn as_str(self) -> &'static str {
        match self {
            SearchEngine::Auto => "auto",
            SearchEngine::Google => "google",
            SearchEngine::Bing => "bing",
            SearchEngine::Baidu => "baidu",
            SearchEngine::Searxng => "searxng",
            SearchEngine::Brave => "brave",
            SearchEngine::Tavily => "tavily",
        }
    }

    /// Case-insensitive.
    pub fn parse(name: &str) -> Option<SearchEngine> {
        Self::ALL
            .into_iter()
            .find(|e| e.as_str().eq_ignore_ascii_case(name.trim()))
    }

    /// Needs `apiKey`.
    pub fn needs_key(self) -> bool {
        matches!(self, SearchEngine::Brave | SearchEngine::Tavily)
    }
}

impl fmt::Display for SearchEngine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `agent.webSearch`.
#[derive(Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct WebSearchSettings {
    /// The engine asked when a call names none.
    pub engine: SearchEngine,
    /// Base URL: required for `searxng`, an override for the others (a
    /// mirror, a proxy, or a local fake engine in tests).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Key of `brave` or `tavily`; never shown in events, logs or errors.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub api_key: Option<String>,
    /// Unknown keys of `agent.webSearch`, kept so a newer config round-trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl WebSearchSettings {
    /// Nothing set: not written to `config.json`.
    pub fn is_default(&self) -> bool {
        *self == WebSearchSettings::default()
    }

    /// The key, when one is set and not blank.
    pub fn key(&self) -> Option<&str> {
        self.api_key
            .as_deref()
            .map(str::trim)
            .filter(|k| !k.is_empty())
    }

    /// The base URL, when one is set and not blank.
    pub fn base_url(&self) -> Option<&str> {
        self.url.as_deref().map(str::trim).filter(|u| !u.is_empty())
    }
}

// By hand, so a debug print of the config never shows the key.
impl fmt::Debug for WebSearchSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WebSearchSettings")
            .field("engine", &self.engine)
            .field("url", &self.url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("extra", &self.extra)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AgentSettings, Config};
    use serde_json::json;

    #[test]
    fn reads_engine_url_and_key_and_hides_the_key() {
        let s: WebSearchSettings = serde_json::from_value(
            json!({"engine": "searxng", "url": "http://127.0.0.1:8888", "apiKey": "sekrit"}),
        )
        .unwrap();
        assert_eq!(s.engine, SearchEngine::Searxng);
        assert_eq!(s.base_url(), Some("http://127.0.0.1:8888"));
        assert_eq!(s.key(), Some("sekrit"));
        assert!(!format!("{s:?}").contains("sekrit"));
        assert!(WebSearchSettings::default().is_default());
        assert_eq!(SearchEngine::parse(" Brave "), Some(SearchEngine::Brave));
        assert_eq!(SearchEngine::parse("duck"), None);
    }

    #[test]
    fn a_misspelt_engine_falls_back_alone_with_a_warning() {
        let tree =
            json!({"agent": {"maxSteps": 7, "webSearch": {"engine": "gogle", "url": "http://x"}}});
        let (config, warnings) = crate::lenient::from_value::<Config>(&tree).unwrap();
        assert_eq!(config.agent.max_steps, 7);
        assert_eq!(config.agent.web_search.engine, SearchEngine::Auto);
        assert_eq!(config.agent.web_search.base_url(), Some("http://x"));
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert_eq!(warnings[0].path, "agent.webSearch.engine");
        assert!(warnings[0].message.contains("gogle"), "{}", warnings[0]);
        let typo = json!({"engine": "bing", "apikey": "k"});
        let s: WebSearchSettings = serde_json::from_value(typo).unwrap();
        let mut unknown = Vec::new();
        crate::UnknownFields::unknown_fields(&s, "agent.webSearch", &mut unknown);
        assert_eq!(unknown, ["agent.webSearch.apikey"]);
    }

    #[test]
    fn the_default_is_not_written() {
        let v = serde_json::to_value(AgentSettings::default()).unwrap();
        assert!(v.get("webSearch").is_none());
        let mut a = AgentSettings::default();
        a.web_search.engine = SearchEngine::Bing;
        let v = serde_json::to_value(&a).unwrap();
        assert_eq!(v["webSearch"], json!({"engine": "bing"}));
    }
}
