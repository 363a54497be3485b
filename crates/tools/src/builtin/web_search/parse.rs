//! Result pages and API answers to [`Hit`]s. The HTML pages go through a real
//! HTML parser (`scraper`, html5ever underneath) and CSS selectors, so a
//! page's markup quirks (unclosed tags, entities, attributes in any order)
//! cannot shift what is read.

use base64::Engine as _;
use scraper::{ElementRef, Html, Selector};
use serde_json::Value;

/// One search result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Hit {
    pub title: String,
    pub url: String,
    pub snippet: String,
}

/// Why a page holds no results we may use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PageProblem {
    /// A cookie-consent wall instead of results.
    Consent,
    /// A captcha / "unusual traffic" check instead of results.
    Captcha,
}

impl PageProblem {
    pub(crate) fn describe(&self) -> &'static str {
        match self {
            PageProblem::Consent => "answered a cookie-consent page instead of results",
            PageProblem::Captcha => "answered a captcha (unusual traffic) page instead of results",
        }
    }
}

const CONSENT_MARKERS: &[&str] = &[
    "consent.google.com",
    "before you continue to google",
    "consent.yahoo.com",
    "id=\"bnp_container\"",
];
const CAPTCHA_MARKERS: &[&str] = &[
    "unusual traffic from your computer",
    "id=\"captcha-form\"",
    "/sorry/index",
    "g-recaptcha",
    "wappass.baidu.com",
    "百度安全验证",
    "class=\"captcha",
    "id=\"b_captcha",
];

/// A consent wall or captcha, told by the final URL or markers in the page.
pub(crate) fn page_problem(final_url: &str, body: &str) -> Option<PageProblem> {
    let url = final_url.to_ascii_lowercase();
    if url.contains("consent.") {
        return Some(PageProblem::Consent);
    }
    if url.contains("/sorry/") || url.contains("captcha") || url.contains("wappass.") {
        return Some(PageProblem::Captcha);
    }
    // Only the start of a page is looked at: the walls are small pages,
    // and a results page may well mention "captcha" in a snippet.
    let head: String = body.chars().take(20_000).collect::<String>().to_lowercase();
    if CAPTCHA_MARKERS.iter().any(|m| head.contains(m)) {
        return Some(PageProblem::Captcha);
    }
    if CONSENT_MARKERS.iter().any(|m| head.contains(m)) {
        return Some(PageProblem::Consent);
    }
    None
}

/// The selectors are constants of this file (a test checks that each parses):
/// one that did not would match nothing rather than fail the search.
fn one(css: &str) -> Option<Selector> {
    Selector::parse(css).ok()
}

fn many(list: &[&str]) -> Vec<Selector> {
    list.iter().filter_map(|css| one(css)).collect()
}

#[cfg(test)]
pub(crate) const ALL_SELECTORS: &[&str] = &[
    "a[href]",
    "h3",
    "div.VwiC3b",
    "span.aCOpRe",
    "div.IsZvec",
    "div.BNeawe.s3v9rd",
    "div[data-sncf]",
    "li.b_algo",
    "h2 a[href]",
    "div.b_caption p",
    "p.b_lineclamp2",
    "p.b_lineclamp3",
    "p.b_lineclamp4",
    "div.b_caption",
    "p",
    "div.result, div.c-container",
    "h3 a[href]",
    ".c-abstract",
    "[class^=content-right]",
    "span.c-font-normal",
    "[data-module=abstract]",
];

#[cfg(test)]
pub(crate) fn selectors_parse() -> bool {
    ALL_SELECTORS.iter().all(|css| one(css).is_some())
}

/// The element's text, whitespace collapsed.
fn text_of(el: ElementRef<'_>) -> String {
    collapse(&el.text().collect::<String>())
}

pub(crate) fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Text of an HTML fragment (Brave puts `<strong>` in its descriptions).
pub(crate) fn fragment_text(html: &str) -> String {
    if !html.contains('<') && !html.contains('&') {
        return collapse(html);
    }
    let doc = Html::parse_fragment(html);
    collapse(&doc.root_element().text().collect::<String>())
}

/// The first match of any of `selectors` under `el`, as text.
fn first_text(el: ElementRef<'_>, selectors: &[Selector]) -> Option<String> {
    selectors
        .iter()
        .find_map(|s| el.select(s).next())
        .map(text_of)
        .filter(|t| !t.is_empty())
}

/// `container` text without the title: the snippet when no known snippet
/// element is there (markup changes often; the words stay).
fn rest_of(container: ElementRef<'_>, title: &str) -> String {
    let all = text_of(container);
    let rest = all.replacen(title, "", 1);
    collapse(&rest).chars().take(400).collect()
}

/// Google: each result is an `<a href>` holding an `<h3>`; the snippet sits in
/// the result block around it. Handles both the full page (`div.g`) and the
/// basic HTML page (`/url?q=` links).
pub(crate) fn google(html: &str) -> Vec<Hit> {
    let doc = Html::parse_document(html);
    let (Some(links), Some(h3)) = (one("a[href]"), one("h3")) else {
        return Vec::new();
    };
    let snippets = many(&[
        "div.VwiC3b",
        "span.aCOpRe",
        "div.IsZvec",
        "div.BNeawe.s3v9rd",
        "div[data-sncf]",
    ]);
    let mut hits = Vec::new();
    for a in doc.select(&links) {
        let Some(title) = a.select(&h3).next().map(text_of) else {
            continue;
        };
        let Some(url) = a.value().attr("href").and_then(google_target) else {
            continue;
        };
        if title.is_empty() {
            continue;
        }
        // The nearest ancestor block that holds more than the link: the result.
        let block = a
            .ancestors()
            .filter_map(ElementRef::wrap)
            .find(|e| {
                let classes = e.value().classes().collect::<Vec<_>>();
                classes.contains(&"g") || classes.contains(&"MjjYud") || classes.contains(&"Gx5Zad")
            })
            .or_else(|| {
                a.parent()
                    .and_then(|p| p.parent())
                    .and_then(ElementRef::wrap)
            });
        let snippet = block
            .map(|b| first_text(b, &snippets).unwrap_or_else(|| rest_of(b, &title)))
            .unwrap_or_default();
        hits.push(Hit {
            title,
            url,
            snippet,
        });
    }
    hits
}

/// A Google result link's target: `/url?q=<target>&…` unwrapped; its own
/// pages (search, images, maps) are not results.
fn google_target(href: &str) -> Option<String> {
    let target = if let Some(query) = href.strip_prefix("/url?") {
        reqwest::Url::parse(&format!("http://x/?{query}"))
            .ok()?
            .query_pairs()
            .find(|(k, _)| k == "q" || k == "url")
            .map(|(_, v)| v.into_owned())?
    } else {
        href.to_string()
    };
    let url = reqwest::Url::parse(&target).ok()?;
    let host = url.host_str().unwrap_or_default();
    let own = host.ends_with("google.com")
        && !host.starts_with("developers.")
        && !host.starts_with("support.");
    (matches!(url.scheme(), "http" | "https") && !own).then(|| url.to_string())
}

/// Bing: `li.b_algo` blocks, `h2 > a` the title and link, the caption the snippet.
pub(crate) fn bing(html: &str) -> Vec<Hit> {
    let doc = Html::parse_document(html);
    let (Some(block), Some(link)) = (one("li.b_algo"), one("h2 a[href]")) else {
        return Vec::new();
    };
    let snippets = many(&[
        "div.b_caption p",
        "p.b_lineclamp2",
        "p.b_lineclamp3",
        "p.b_lineclamp4",
        "div.b_caption",
        "p",
    ]);
    doc.select(&block)
        .filter_map(|b| {
            let a = b.select(&link).next()?;
            let title = text_of(a);
            let url = bing_target(a.value().attr("href")?)?;
            let snippet = first_text(b, &snippets).unwrap_or_default();
            (!title.is_empty()).then_some(Hit {
                title,
                url,
                snippet,
            })
        })
        .collect()
}

/// Bing wraps result links as `…/ck/a?…&u=a1<base64url of the target>`.
fn bing_target(href: &str) -> Option<String> {
    let url = reqwest::Url::parse(href).ok()?;
    if url.path().starts_with("/ck/a")
        && let Some((_, u)) = url.query_pairs().find(|(k, _)| k == "u")
        && let Some(encoded) = u.strip_prefix("a1")
        && let Ok(bytes) =
            base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(encoded.trim_end_matches('='))
        && let Ok(target) = String::from_utf8(bytes)
        && target.starts_with("http")
    {
        return Some(target);
    }
    matches!(url.scheme(), "http" | "https").then(|| url.to_string())
}

/// Baidu: `div.result` / `div.c-container` blocks with `h3 > a`.
pub(crate) fn baidu(html: &str) -> Vec<Hit> {
    let doc = Html::parse_document(html);
    let (Some(block), Some(link)) = (one("div.result, div.c-container"), one("h3 a[href]")) else {
        return Vec::new();
    };
    let snippets = many(&[
        ".c-abstract",
        "[class^=content-right]",
        "span.c-font-normal",
        "[data-module=abstract]",
    ]);
    let mut hits: Vec<Hit> = Vec::new();
    for b in doc.select(&block) {
        let Some(a) = b.select(&link).next() else {
            continue;
        };
        let title = text_of(a);
        let Some(url) = a
            .value()
            .attr("href")
            .filter(|h| h.starts_with("http"))
            .map(str::to_string)
        else {
            continue;
        };
        // A `c-container` may sit inside a `result`: the outer one counts once.
        if title.is_empty() || hits.iter().any(|h| h.url == url) {
            continue;
        }
        let snippet = first_text(b, &snippets).unwrap_or_else(|| rest_of(b, &title));
        hits.push(Hit {
            title,
            url,
            snippet,
        });
    }
    hits
}

fn str_at<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// `html`: the texts carry markup (Brave's `<strong>`); else they are plain.
fn json_hits(items: Option<&Value>, snippet_key: &str, html: bool) -> Vec<Hit> {
    let text = |s: &str| if html { fragment_text(s) } else { collapse(s) };
    items
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(|r| {
                    let url = str_at(r, "url");
                    (!url.is_empty()).then(|| Hit {
                        title: text(str_at(r, "title")),
                        url: url.to_string(),
                        snippet: text(str_at(r, snippet_key)),
                    })
                })
                .collect()
        })
        .unwrap_or_default()
}

/// SearXNG's `format=json`: `results[{title, url, content}]`.
pub(crate) fn searxng(v: &Value) -> Vec<Hit> {
    json_hits(v.get("results"), "content", false)
}

/// Brave: `web.results[{title, url, description}]`.
pub(crate) fn brave(v: &Value) -> Vec<Hit> {
    json_hits(
        v.get("web").and_then(|w| w.get("results")),
        "description",
        true,
    )
}

/// Tavily: `results[{title, url, content}]`.
pub(crate) fn tavily(v: &Value) -> Vec<Hit> {
    json_hits(v.get("results"), "content", false)
}

/// The key two results share when they are the same page: host lower-cased,
/// no scheme, `www.`, fragment or trailing slash.
pub(crate) fn dedup_key(url: &str) -> String {
    match reqwest::Url::parse(url) {
        Ok(u) => {
            let host = u.host_str().unwrap_or_default().to_ascii_lowercase();
            let host = host.strip_prefix("www.").unwrap_or(&host).to_string();
            let path = u.path().trim_end_matches('/');
            match u.query() {
                Some(q) => format!("{host}{path}?{q}"),
                None => format!("{host}{path}"),
            }
        }
        Err(_) => url.trim().trim_end_matches('/').to_ascii_lowercase(),
    }
}

#[cfg(test)]
#[path = "parse_tests.rs"]
mod tests;
