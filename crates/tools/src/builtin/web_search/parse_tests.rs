use super::*;
use seekclaw_testkit::pages;

const HITS: &[(&str, &str, &str)] = &[
    (
        "Rust <lang>",
        "https://www.rust-lang.org/",
        "A language & more.",
    ),
    ("The Book", "https://doc.rust-lang.org/book/", "Learn Rust."),
];

fn titles(hits: &[Hit]) -> Vec<(&str, &str, &str)> {
    hits.iter()
        .map(|h| (h.title.as_str(), h.url.as_str(), h.snippet.as_str()))
        .collect()
}

#[test]
fn every_selector_parses() {
    assert!(selectors_parse());
}

#[test]
fn google_bing_baidu_pages() {
    assert_eq!(titles(&google(&pages::google(HITS, 0))), HITS);
    assert_eq!(titles(&bing(&pages::bing(HITS, 0))), HITS);
    assert_eq!(titles(&baidu(&pages::baidu(HITS, 0))), HITS);
    // Padding (scripts, styles, links without h3) adds nothing.
    assert_eq!(google(&pages::google(HITS, 100_000)).len(), 2);
}

#[test]
fn google_basic_html_links_are_unwrapped_and_own_pages_skipped() {
    let html = r#"<html><body>
        <div><a href="/url?q=https://example.org/a%3Fx%3D1&sa=U"><h3><div>Example A</div></h3></a>
        <div class="BNeawe s3v9rd">Snippet of A</div></div>
        <div><a href="https://maps.google.com/x"><h3>Maps</h3></a></div>
        <a href="/search?q=more"><h3>More</h3></a>
        </body></html>"#;
    let hits = google(html);
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert_eq!(hits[0].url, "https://example.org/a?x=1");
    assert_eq!(hits[0].title, "Example A");
}

#[test]
fn bing_tracking_links_are_decoded() {
    // `a1` + base64url("https://example.com/page")
    let href = "https://www.bing.com/ck/a?!&&p=abc&u=a1aHR0cHM6Ly9leGFtcGxlLmNvbS9wYWdl&ntb=1";
    let html = format!(
        "<ol><li class=\"b_algo\"><h2><a href=\"{href}\">Page</a></h2><p>Text</p></li></ol>"
    );
    let hits = bing(&html);
    assert_eq!(hits[0].url, "https://example.com/page");
    assert_eq!(hits[0].snippet, "Text");
}

#[test]
fn consent_and_captcha_pages_are_told_apart_from_results() {
    assert_eq!(
        page_problem("https://www.google.com/search", &pages::google_consent()),
        Some(PageProblem::Consent)
    );
    assert_eq!(
        page_problem("https://consent.google.com/ml?continue=x", ""),
        Some(PageProblem::Consent)
    );
    assert_eq!(
        page_problem("https://www.google.com/sorry/index?continue=x", ""),
        Some(PageProblem::Captcha)
    );
    assert_eq!(
        page_problem("https://www.baidu.com/s", "<title>百度安全验证</title>"),
        Some(PageProblem::Captcha)
    );
    assert_eq!(
        page_problem("https://www.bing.com/search", &pages::bing(HITS, 0)),
        None
    );
}

#[test]
fn json_engines_and_html_in_snippets() {
    let v = pages::searxng(HITS);
    assert_eq!(titles(&searxng(&v)), HITS);
    let brave_answer = serde_json::json!({"web": {"results": [
        {"title": "B", "url": "https://b.example/", "description": "has <strong>bold</strong> words"},
        {"title": "no url"}
    ]}});
    let hits = brave(&brave_answer);
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].snippet, "has bold words");
    let t = serde_json::json!({"results": [{"title": "T", "url": "https://t.example/", "content": "c"}]});
    assert_eq!(tavily(&t)[0].title, "T");
}

#[test]
fn dedup_keys_ignore_scheme_www_fragment_and_slash() {
    assert_eq!(
        dedup_key("https://www.Example.com/a/#top"),
        dedup_key("http://example.com/a")
    );
    assert_ne!(
        dedup_key("https://e.com/a?x=1"),
        dedup_key("https://e.com/a?x=2")
    );
}
