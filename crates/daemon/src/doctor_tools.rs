//! The doctor's rows for the tools that need something of the machine or the
//! config: which `web_search` engines can be asked as configured (no engine is
//! probed: the public ones are the internet) and how `capture_screen` would
//! take its picture (checked for real: the X display is connected to).

use seekclaw_config::{Config, SearchEngine};
use seekclaw_protocol::api::{CheckLevel, DoctorCheck as Check};

fn row(name: &str, level: CheckLevel, detail: String, fix: Option<String>) -> Check {
    Check {
        name: name.into(),
        ok: level != CheckLevel::Fail,
        detail,
        kind: "runtime".into(),
        level,
        fix,
    }
}

/// `Web Search`: the configured engine, then every engine usable or why not.
pub(crate) fn web_search(config: &Config) -> Check {
    let settings = &config.agent.web_search;
    let mut usable = Vec::new();
    let mut not = Vec::new();
    for engine in SearchEngine::ALL.into_iter().skip(1) {
        match seekclaw_tools::engine_unusable(settings, engine) {
            None => usable.push(engine.to_string()),
            Some(why) => not.push(format!("{engine} {why}")),
        }
    }
    let configured = settings.engine;
    let mut detail = format!(
        "engine {configured}{}; usable: {}",
        settings
            .base_url()
            .map(|u| format!(" at {u}"))
            .unwrap_or_default(),
        usable.join(", ")
    );
    if !not.is_empty() {
        detail.push_str(&format!("; not usable: {}", not.join("; ")));
    }
    detail.push_str(" (offered when a session's network is on)");
    let broken = configured != SearchEngine::Auto
        && seekclaw_tools::engine_unusable(settings, configured).is_some();
    if broken {
        row(
            "Web Search",
            CheckLevel::Warn,
            detail,
            Some(format!(
                "complete agent.webSearch for {configured} in config.json, or set \"engine\": \"auto\""
            )),
        )
    } else {
        row("Web Search", CheckLevel::Ok, detail, None)
    }
}

/// `Screen Capture`: the mechanism `capture_screen` would use, or why none.
pub(crate) async fn screen_capture() -> Check {
    let method = tokio::task::spawn_blocking(seekclaw_tools::capture_method)
        .await
        .unwrap_or_else(|e| Err(e.to_string()));
    match method {
        Ok(how) => row(
            "Screen Capture",
            CheckLevel::Ok,
            format!("{how} (capture_screen is offered to vision models)"),
            None,
        ),
        Err(why) => row(
            "Screen Capture",
            CheckLevel::Info,
            format!("{why}: capture_screen is not available (optional)"),
            None,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engines_usable_by_config() {
        let mut config = Config::default();
        let c = web_search(&config);
        assert_eq!(c.level, CheckLevel::Ok);
        assert!(
            c.detail.starts_with("engine auto; usable: google, bing, baidu; not usable: searxng needs agent.webSearch.url"),
            "{}",
            c.detail
        );
        config.agent.web_search.engine = SearchEngine::Tavily;
        let c = web_search(&config);
        assert_eq!(c.level, CheckLevel::Warn);
        config.agent.web_search.api_key = Some("tvly-secret-key".into());
        let c = web_search(&config);
        assert_eq!(c.level, CheckLevel::Ok);
        assert!(
            c.detail.contains("usable: google, bing, baidu, tavily"),
            "{}",
            c.detail
        );
        assert!(!c.detail.contains("tvly-secret-key"));
    }
}
