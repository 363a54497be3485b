//! `web_search`: ask a search engine, return title, URL and snippet per result.
//! `auto` tries Google, Bing and Baidu's HTML result pages in turn (no
//! account), falling through on an error, a consent wall or a captcha;
//! `searxng`, `brave` and `tavily` use their JSON APIs. Every engine's base
//! URL can be overridden (`agent.webSearch.url`), which is how tests point it
//! at a local fake engine. The API key never appears in what the tool returns.

mod parse;

use std::sync::OnceLock;
use std::time::Duration;

use schemars::JsonSchema;
use seekclaw_config::{SearchEngine, WebSearchSettings};
use serde::Deserialize;
use serde_json::{Value, json};

use super::{definition, impl_tool};
use crate::args::lenient_u64;
use crate::error::ToolError;
use crate::tool::{ToolContext, ToolDefinition, ToolFlags, ToolOutput};
pub(crate) use parse::Hit;

const DEFAULT_MAX_RESULTS: u64 = 8;
const MAX_RESULTS: u64 = 20;
/// One engine's answer; `auto` may try three, so each gets less than a page fetch.
const TIMEOUT: Duration = Duration::from_secs(15);
const MAX_BODY_BYTES: usize = 4 * 1024 * 1024;
/// The engines `auto` tries, in order.
const AUTO: [SearchEngine; 3] = [
    SearchEngine::Google,
    SearchEngine::Bing,
    SearchEngine::Baidu,
];
/// A browser's user agent: the HTML pages answer other agents with a
/// stripped or JavaScript-only page.
const BROWSER_UA: &str = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) \
Chrome/124.0 Safari/537.36";

const DESCRIPTION: &str = "Search the web. Returns up to `max_results` results (default 8, at most 20) \
as title, URL and snippet. `engine` is auto (Google, then Bing, then Baidu), google, bing, baidu, \
searxng, brave or tavily; by default the configured one. Use web_fetch to read a result.";

const FLAGS: ToolFlags = ToolFlags {
    mutating: false,
    network: true,
    vision: false,
    display: false,
    parallel_safe: true,
};

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct WebSearchArgs {
    /// What to search for.
    query: String,
    /// auto, google, bing, baidu, searxng, brave or tavily. Default: the configured engine.
    #[serde(default)]
    engine: Option<String>,
    /// How many results, 1-20. Default 8.
    #[serde(default, deserialize_with = "lenient_u64")]
    max_results: Option<u64>,
}

pub struct WebSearchTool {
    def: ToolDefinition,
    /// One client per tool: its connection pool and TLS setup are reused.
    client: OnceLock<reqwest::Client>,
}

impl WebSearchTool {
    pub fn new() -> Self {
        WebSearchTool {
            def: definition::<WebSearchArgs>("web_search", DESCRIPTION, FLAGS, "Searching the web"),
            client: OnceLock::new(),
        }
    }

    fn client(&self) -> Result<&reqwest::Client, ToolError> {
        if let Some(c) = self.client.get() {
            return Ok(c);
        }
        // reqwest is built without a default TLS provider; the first install wins.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client = reqwest::Client::builder()
            .timeout(TIMEOUT)
            .user_agent(BROWSER_UA)
            .build()
            .map_err(|e| ToolError::failed(format!("Cannot build the HTTP client: {e}")))?;
        Ok(self.client.get_or_init(|| client))
    }

    async fn run(&self, args: WebSearchArgs, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        if !ctx.network_enabled {
            return Err(ToolError::failed(
                "Network access is off for this session, so web_search cannot run.",
            ));
        }
        let query = args.query.trim().to_string();
        if query.is_empty() {
            return Err(ToolError::failed("The search query is empty."));
        }
        let settings = &*ctx.web_search;
        let engine = match args.engine.as_deref().map(str::trim).filter(|e| !e.is_empty()) {
            None => settings.engine,
            Some(name) => SearchEngine::parse(name).ok_or_else(|| {
                ToolError::failed(format!(
                    "Unknown search engine '{name}': use auto, google, bing, baidu, searxng, brave or tavily."
                ))
            })?,
        };
        let max = args
            .max_results
            .unwrap_or(DEFAULT_MAX_RESULTS)
            .clamp(1, MAX_RESULTS) as usize;
        let client = self.client()?;
        let search = search(client, settings, engine, &query, max);
        let result = tokio::select! {
            result = search => result,
            _ = ctx.cancel.cancelled() => Err(ToolError::failed("Cancelled while searching.")),
        };
        // Whatever an engine echoed back, the key does not leave this tool.
        result
            .map(|out| redact_output(out, settings))
            .map_err(|e| redact_error(e, settings))
    }
}

impl_tool!(WebSearchTool, WebSearchArgs);

/// What one engine answered.
struct Answer {
    engine: SearchEngine,
    hits: Vec<Hit>,
}

/// Asks `engine` (each of `auto`'s in turn) until one answers with results.
pub(crate) async fn search(
    client: &reqwest::Client,
    settings: &WebSearchSettings,
    engine: SearchEngine,
    query: &str,
    max: usize,
) -> Result<ToolOutput, ToolError> {
    let order: Vec<SearchEngine> = if engine == SearchEngine::Auto {
        AUTO.to_vec()
    } else {
        vec![engine]
    };
    let mut failures: Vec<(SearchEngine, String)> = Vec::new();
    for e in order {
        match ask(client, settings, e, query, max).await {
            Ok(answer) => return Ok(format(query, answer, max, &failures)),
            Err(reason) => failures.push((e, reason)),
        }
    }
    let reasons: Vec<String> = failures
        .iter()
        .map(|(e, why)| format!("- {e}: {why}"))
        .collect();
    Err(ToolError::failed(format!(
        "web_search found nothing for \"{query}\": every engine failed.\n{}\nTry another engine (engine: searxng, brave or tavily with agent.webSearch in config.json), or web_fetch a known page.",
        reasons.join("\n")
    )))
}

/// The base URL `engine` is asked at: `url` overrides the configured
/// engine (every `auto` engine when that is `auto`), else the public one.
pub(crate) fn base_url(settings: &WebSearchSettings, engine: SearchEngine) -> Option<String> {
    let configured = settings.engine == engine
        || (settings.engine == SearchEngine::Auto && AUTO.contains(&engine));
    if configured && let Some(url) = settings.base_url() {
        return Some(url.trim_end_matches('/').to_string());
    }
    let public = match engine {
        SearchEngine::Google => "https://www.google.com",
        SearchEngine::Bing => "https://www.bing.com",
        SearchEngine::Baidu => "https://www.baidu.com",
        SearchEngine::Brave => "https://api.search.brave.com",
        SearchEngine::Tavily => "https://api.tavily.com",
        SearchEngine::Searxng | SearchEngine::Auto => return None,
    };
    Some(public.to_string())
}

/// Why `engine` cannot be asked as configured, if it cannot (`doctor` says it too).
pub fn engine_unusable(settings: &WebSearchSettings, engine: SearchEngine) -> Option<String> {
    if engine == SearchEngine::Searxng && base_url(settings, engine).is_none() {
        return Some("needs agent.webSearch.url (the SearXNG instance)".into());
    }
    if engine.needs_key() && (settings.engine != engine || settings.key().is_none()) {
        return Some(format!(
            "needs \"agent\": {{\"webSearch\": {{\"engine\": \"{engine}\", \"apiKey\": …}}}}"
        ));
    }
    None
}

/// One engine, one request: the results, or why there are none.
async fn ask(
    client: &reqwest::Client,
    settings: &WebSearchSettings,
    engine: SearchEngine,
    query: &str,
    max: usize,
) -> Result<Answer, String> {
    if let Some(why) = engine_unusable(settings, engine) {
        return Err(why);
    }
    let base = base_url(settings, engine).ok_or_else(|| "no URL configured".to_string())?;
    let key = settings.key().unwrap_or_default();
    // Ask for a few more than wanted: duplicates are dropped afterwards.
    let count = (max + 5).to_string();
    let with = |path: &str, params: &[(&str, &str)]| {
        reqwest::Url::parse_with_params(&format!("{base}{path}"), params)
            .map_err(|e| format!("invalid URL {base}: {e}"))
    };
    let request = match engine {
        SearchEngine::Google => client.get(with(
            "/search",
            &[("q", query), ("hl", "en"), ("num", &count)],
        )?),
        SearchEngine::Bing => client.get(with(
            "/search",
            &[("q", query), ("count", &count), ("setlang", "en")],
        )?),
        SearchEngine::Baidu => client.get(with("/s", &[("wd", query), ("rn", &count)])?),
        SearchEngine::Searxng => client.get(with("/search", &[("q", query), ("format", "json")])?),
        SearchEngine::Brave => client
            .get(with(
                "/res/v1/web/search",
                &[("q", query), ("count", &max.min(20).to_string())],
            )?)
            .header("X-Subscription-Token", key)
            .header(reqwest::header::ACCEPT, "application/json"),
        SearchEngine::Tavily => client
            .post(with("/search", &[])?)
            .bearer_auth(key)
            .json(&json!({"query": query, "max_results": max})),
        SearchEngine::Auto => return Err("auto is not an engine of its own".into()),
    };
    let request = if matches!(
        engine,
        SearchEngine::Google | SearchEngine::Bing | SearchEngine::Baidu
    ) {
        request
            .header(reqwest::header::ACCEPT, "text/html,application/xhtml+xml")
            .header(reqwest::header::ACCEPT_LANGUAGE, "en-US,en;q=0.8")
    } else {
        request
    };
    let mut response = request.send().await.map_err(|e| describe_send_error(&e))?;
    let status = response.status();
    let final_url = response.url().to_string();
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| describe_send_error(&e))?
    {
        body.extend_from_slice(&chunk);
        if body.len() >= MAX_BODY_BYTES {
            break;
        }
    }
    let text = String::from_utf8_lossy(&body);
    if !status.is_success() {
        let detail = parse::collapse(&parse::fragment_text(
            &text.chars().take(300).collect::<String>(),
        ));
        return Err(if detail.is_empty() {
            format!("HTTP {status}")
        } else {
            format!("HTTP {status}: {detail}")
        });
    }
    let hits = parse_answer(engine, &final_url, &text)?;
    if hits.is_empty() {
        return Err("no results on its page".into());
    }
    Ok(Answer { engine, hits })
}

/// The hits of a successful answer (a consent wall or captcha is an error).
pub(crate) fn parse_answer(
    engine: SearchEngine,
    final_url: &str,
    text: &str,
) -> Result<Vec<Hit>, String> {
    let json = || {
        serde_json::from_str::<Value>(text)
            .map_err(|e| format!("answered something that is not JSON ({e})"))
    };
    Ok(match engine {
        SearchEngine::Google | SearchEngine::Bing | SearchEngine::Baidu => {
            if let Some(problem) = parse::page_problem(final_url, text) {
                return Err(problem.describe().to_string());
            }
            match engine {
                SearchEngine::Google => parse::google(text),
                SearchEngine::Bing => parse::bing(text),
                _ => parse::baidu(text),
            }
        }
        SearchEngine::Searxng => parse::searxng(&json()?),
        SearchEngine::Brave => parse::brave(&json()?),
        SearchEngine::Tavily => parse::tavily(&json()?),
        SearchEngine::Auto => Vec::new(),
    })
}

/// A transport error without the URL's query (it holds the search terms,
/// not the key, but the cause is what matters).
fn describe_send_error(e: &reqwest::Error) -> String {
    let what = if e.is_timeout() {
        "timed out".to_string()
    } else if e.is_connect() {
        "could not connect".to_string()
    } else {
        "request failed".to_string()
    };
    let mut detail = String::new();
    let mut source = std::error::Error::source(e);
    while let Some(inner) = source {
        detail = inner.to_string();
        source = inner.source();
    }
    if detail.is_empty() {
        what
    } else {
        format!("{what} ({detail})")
    }
}

/// The tool's text: the results, numbered, and which engines failed first.
fn format(
    query: &str,
    answer: Answer,
    max: usize,
    failed: &[(SearchEngine, String)],
) -> ToolOutput {
    let hits = dedup(answer.hits, max);
    let mut out = format!("Results for \"{query}\" from {}:\n", answer.engine);
    for (e, why) in failed {
        out.push_str(&format!("({e} was skipped: {why})\n"));
    }
    for (i, h) in hits.iter().enumerate() {
        out.push_str(&format!("\n{}. {}\n   {}\n", i + 1, h.title, h.url));
        if !h.snippet.is_empty() {
            out.push_str(&format!("   {}\n", h.snippet));
        }
    }
    let summary = format!(
        "{} result(s) for \"{}\" from {}",
        hits.len(),
        query.chars().take(60).collect::<String>(),
        answer.engine
    );
    ToolOutput::ok(out, summary)
}

/// The first `max` results, each page once.
pub(crate) fn dedup(hits: Vec<Hit>, max: usize) -> Vec<Hit> {
    let mut seen = std::collections::HashSet::new();
    hits.into_iter()
        .filter(|h| seen.insert(parse::dedup_key(&h.url)))
        .take(max)
        .collect()
}

fn redact(text: &str, settings: &WebSearchSettings) -> String {
    match settings.key() {
        Some(key) if key.len() >= 4 && text.contains(key) => text.replace(key, "[redacted]"),
        _ => text.to_string(),
    }
}

fn redact_output(mut out: ToolOutput, settings: &WebSearchSettings) -> ToolOutput {
    out.content = redact(&out.content, settings);
    out.summary = redact(&out.summary, settings);
    out
}

fn redact_error(e: ToolError, settings: &WebSearchSettings) -> ToolError {
    ToolError::failed(redact(&e.to_string(), settings))
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
