//! `seekclaw inspect --export FILE.html`: one self-contained page. The app's
//! script and style are inlined and allowed by their hashes in a CSP `<meta>`
//! tag (nothing else may run), and the sessions ride along as a JSON blob in
//! a `<script type="application/json">` block, which never executes.

use seekclaw_store::SessionEvent;
use serde_json::{Map, Value, json};

use crate::data::{Data, SidebarRow, model_view_of};
use crate::{InspectError, assets};

/// The export of `ids` (every session when empty).
pub fn export_html(data: &Data, ids: &[String]) -> Result<String, InspectError> {
    let all = data.sessions(true, None)?;
    let chosen: Vec<SidebarRow> = if ids.is_empty() {
        all
    } else {
        let mut out = Vec::new();
        for id in ids {
            let scope = data.scope_of(id, None)?;
            out.extend(
                all.iter()
                    .filter(|s| s.id == *id && s.scope == scope)
                    .cloned(),
            );
        }
        out
    };
    let mut logs = Map::new();
    for s in &chosen {
        let (scope, id) = (s.scope.as_str(), s.id.as_str());
        let events = data.all_events(scope, id)?;
        let context = data.turn_context(scope, id)?;
        let prompt = context.as_ref().map(|c| c.system_prompt.as_str());
        let tools = context.as_ref().and_then(|c| c.tools.as_deref());
        logs.insert(format!("{scope}\n{id}"), log_json(&events, prompt, tools));
    }
    let blob = json!({"sessions": chosen, "logs": logs});
    Ok(page(&blob))
}

/// A session's events with the model view at each assistant step
/// precomputed (the exported page has no server to ask). The tool list is
/// the same for every step: it is baked in once, beside the steps.
fn log_json(events: &[SessionEvent], system_prompt: Option<&str>, tools: Option<&str>) -> Value {
    let mut listed = Value::Null;
    let models: Map<String, Value> = events
        .iter()
        .filter(|e| e.item.kind() == "assistant")
        .map(|e| {
            let mut view = model_view_of(events, e.seq, system_prompt, tools);
            listed = view["tools"].take();
            (e.seq.to_string(), view)
        })
        .collect();
    json!({"events": events, "models": models, "tools": listed})
}

/// `sha256-…` of an inline block, as CSP wants it.
fn hash(text: &str) -> String {
    use base64::Engine as _;
    use sha2::Digest as _;
    let digest = sha2::Sha256::digest(text.as_bytes());
    format!(
        "'sha256-{}'",
        base64::engine::general_purpose::STANDARD.encode(digest)
    )
}

/// The page around `blob`. `<` in the JSON is written `\u003c`, so no
/// content can close the data block or open a comment in it.
fn page(blob: &Value) -> String {
    let data = blob.to_string().replace('<', "\\u003c");
    let css = assets::APP_CSS;
    let js = assets::APP_JS;
    let csp = format!(
        "default-src 'none'; script-src {}; style-src {}; img-src data:; base-uri 'none'; form-action 'none'",
        hash(js),
        hash(css)
    );
    let body = body_of(assets::INDEX_HTML);
    format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"{csp}\">\n\
         <meta name=\"referrer\" content=\"no-referrer\">\n\
         <title>seekclaw inspect (export)</title>\n<style>{css}</style>\n</head>\n\
         {body}\n<script type=\"application/json\" id=\"seekclaw-data\">{data}</script>\n\
         <script>{js}</script>\n</html>\n"
    )
}

/// The `<body>…</body>` of the served page, without its script tag.
fn body_of(index: &str) -> String {
    let start = index.find("<body").unwrap_or(0);
    let end = index
        .find("</body>")
        .map_or(index.len(), |e| e + "</body>".len());
    index[start..end].replace("<script src=\"/app.js\"></script>", "")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_cannot_close_its_block() {
        let html = page(&json!({"x": "</script><script>alert(1)</script><!--"}));
        assert_eq!(html.matches("</script>").count(), 2, "{html}");
        assert!(!html.contains("<!--"));
        assert!(html.contains("script-src 'sha256-"));
    }
}
