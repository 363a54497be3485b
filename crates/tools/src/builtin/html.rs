//! HTML to readable text for `web_fetch`: scripts, styles and tags go, block
//! elements become line breaks, entities are decoded and whitespace collapsed.
//! Small and forgiving rather than a full HTML parser.

/// A page as text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Page {
    pub title: Option<String>,
    pub text: String,
}

/// Elements whose content is never text for a reader.
const SKIPPED: &[&str] = &[
    "script", "style", "noscript", "template", "svg", "title", "iframe", "object", "canvas",
];

/// Elements that start a new line.
const BLOCKS: &[&str] = &[
    "address",
    "article",
    "aside",
    "blockquote",
    "dd",
    "div",
    "dl",
    "dt",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "header",
    "hr",
    "main",
    "nav",
    "ol",
    "section",
    "table",
    "tbody",
    "thead",
    "tfoot",
    "tr",
    "ul",
    "summary",
    "details",
    "caption",
];

/// Elements set off by a blank line.
const PARAGRAPHS: &[&str] = &["p", "h1", "h2", "h3", "h4", "h5", "h6", "pre"];

pub(crate) fn html_to_text(html: &str) -> Page {
    // ASCII lowercasing keeps byte offsets, so searches in `lower` index `html`.
    let lower = html.to_ascii_lowercase();
    let title = extract_title(html, &lower);
    let mut out = String::with_capacity(html.len() / 2);
    let mut in_pre = false;
    let mut i = 0;
    while i < html.len() {
        let rest = &html[i..];
        if !rest.starts_with('<') {
            let end = rest.find('<').map_or(html.len(), |n| i + n);
            push_text(&mut out, &decode_entities(&html[i..end]), in_pre);
            i = end;
            continue;
        }
        if rest.starts_with("<!--") {
            i = lower[i + 4..]
                .find("-->")
                .map_or(html.len(), |n| i + 4 + n + 3);
            continue;
        }
        let Some(tag_end) = find_tag_end(html, i) else {
            // A stray `<` that opens no tag is text.
            push_text(&mut out, "<", in_pre);
            i += 1;
            continue;
        };
        let tag = &lower[i + 1..tag_end];
        let closing = tag.starts_with('/');
        let name: String = tag
            .trim_start_matches('/')
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
            .collect();
        i = tag_end + 1;
        if name.is_empty() {
            continue; // `<!doctype>`, `<?xml>` and the like
        }
        if !closing && SKIPPED.contains(&name.as_str()) && !tag.ends_with('/') {
            let close = format!("</{name}");
            i = match lower[i..].find(&close) {
                Some(n) => find_tag_end(html, i + n).map_or(html.len(), |e| e + 1),
                None => html.len(),
            };
            continue;
        }
        match name.as_str() {
            "br" => out.push('\n'),
            "li" if !closing => {
                line_break(&mut out, 1);
                out.push_str("- ");
            }
            "td" | "th" if !closing => out.push(' '),
            "pre" => {
                in_pre = !closing;
                line_break(&mut out, 2);
            }
            n if PARAGRAPHS.contains(&n) => line_break(&mut out, 2),
            n if BLOCKS.contains(&n) => line_break(&mut out, 1),
            _ => {}
        }
    }
    Page {
        title,
        text: tidy(&out),
    }
}

/// Ends the current line so that `n` line breaks (n-1 blank lines) precede what
/// follows, without stacking breaks from nested blocks.
fn line_break(out: &mut String, n: usize) {
    while out.ends_with(' ') {
        out.pop();
    }
    let have = out.len() - out.trim_end_matches('\n').len();
    for _ in have..n {
        out.push('\n');
    }
}

/// The index of the `>` closing the tag that opens at `start`, skipping quoted
/// attribute values; `None` when `<` is not followed by a tag name.
fn find_tag_end(html: &str, start: usize) -> Option<usize> {
    let bytes = html.as_bytes();
    let next = *bytes.get(start + 1)?;
    if !(next.is_ascii_alphabetic() || next == b'/' || next == b'!' || next == b'?') {
        return None;
    }
    let mut quote: Option<u8> = None;
    for (offset, &b) in bytes[start + 1..].iter().enumerate() {
        match quote {
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None if b == b'"' || b == b'\'' => quote = Some(b),
            None if b == b'>' => return Some(start + 1 + offset),
            None => {}
        }
    }
    None
}

fn extract_title(html: &str, lower: &str) -> Option<String> {
    let open = lower.find("<title")?;
    let body_start = find_tag_end(html, open)? + 1;
    let len = lower[body_start..].find("</title")?;
    let title = collapse_spaces(&decode_entities(&html[body_start..body_start + len]));
    let title = title.trim();
    (!title.is_empty()).then(|| title.to_string())
}

fn collapse_spaces(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut space = false;
    for c in text.chars() {
        if c.is_whitespace() {
            space = true;
        } else {
            if space && !out.is_empty() {
                out.push(' ');
            }
            space = false;
            out.push(c);
        }
    }
    if space {
        out.push(' ');
    }
    out
}

fn push_text(out: &mut String, text: &str, in_pre: bool) {
    if in_pre {
        out.push_str(text);
        return;
    }
    let mut space = false;
    for c in text.chars() {
        // A non-breaking space is layout, not content.
        if c.is_whitespace() || c == '\u{a0}' {
            space = true;
            continue;
        }
        if space && !out.ends_with([' ', '\n']) && !out.is_empty() {
            out.push(' ');
        }
        space = false;
        out.push(c);
    }
    if space && !out.ends_with([' ', '\n']) && !out.is_empty() {
        out.push(' ');
    }
}

/// Trims each line and keeps at most one blank line in a row. Indentation made
/// of several spaces (from `<pre>`) survives; single leftover spaces do not.
fn tidy(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank_run = 0;
    for line in text.lines() {
        let line = line.trim_end();
        let line = match line.strip_prefix(' ') {
            Some(rest) if !rest.starts_with(' ') => rest,
            _ => line,
        };
        if line.is_empty() {
            blank_run += 1;
            if blank_run > 1 || out.is_empty() {
                continue;
            }
        } else {
            blank_run = 0;
        }
        out.push_str(line);
        out.push('\n');
    }
    out.trim_end().to_string()
}

pub(crate) fn decode_entities(text: &str) -> String {
    if !text.contains('&') {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        rest = &rest[amp..];
        let decoded = rest[1..]
            .find(';')
            .filter(|&end| end <= 32)
            .and_then(|end| entity(&rest[1..1 + end]).map(|c| (c, end + 2)));
        match decoded {
            Some((c, len)) => {
                out.push_str(c.as_str());
                rest = &rest[len..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

fn entity(name: &str) -> Option<String> {
    if let Some(num) = name.strip_prefix('#') {
        let code = match num.strip_prefix(['x', 'X']) {
            Some(hex) => u32::from_str_radix(hex, 16).ok()?,
            None => num.parse().ok()?,
        };
        return char::from_u32(code).map(String::from);
    }
    let c = match name {
        "amp" => "&",
        "lt" => "<",
        "gt" => ">",
        "quot" => "\"",
        "apos" => "'",
        "nbsp" | "ensp" | "emsp" | "thinsp" => " ",
        "mdash" => "—",
        "ndash" => "–",
        "hellip" => "…",
        "copy" => "©",
        "reg" => "®",
        "trade" => "™",
        "laquo" => "«",
        "raquo" => "»",
        "ldquo" => "“",
        "rdquo" => "”",
        "lsquo" => "‘",
        "rsquo" => "’",
        "bull" => "•",
        "middot" => "·",
        "times" => "×",
        "divide" => "÷",
        "deg" => "°",
        "euro" => "€",
        "pound" => "£",
        "yen" => "¥",
        "cent" => "¢",
        "sect" => "§",
        "para" => "¶",
        "larr" => "←",
        "rarr" => "→",
        "uarr" => "↑",
        "darr" => "↓",
        "shy" | "zwj" | "zwnj" => "",
        _ => return None,
    };
    Some(c.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readable_text_from_a_page() {
        let html = r#"<!DOCTYPE html>
<html><head><title>The &amp; Page</title>
<style>body { color: red; }</style>
<script type="text/javascript">var x = "<p>not text</p>";</script>
</head>
<body>
  <!-- a comment -->
  <h1>Hello,   <b>world</b>!</h1>
  <p>First&nbsp;paragraph with <a href="/x?a=1&b=2" title="a > b">a link</a>.</p>
  <ul><li>one</li><li>two &lt;3&gt;</li></ul>
  <pre>fn main() {
    println!("hi");
}</pre>
  <p>Caf&#233; &#x2603; &unknown; AT&T</p>
</body></html>"#;
        let page = html_to_text(html);
        assert_eq!(page.title.as_deref(), Some("The & Page"));
        assert_eq!(
            page.text,
            "Hello, world!\n\nFirst paragraph with a link.\n\n- one\n- two <3>\n\nfn main() {\n    println!(\"hi\");\n}\n\nCafé ☃ &unknown; AT&T"
        );
    }

    #[test]
    fn unclosed_and_odd_markup_degrades_gracefully() {
        assert_eq!(html_to_text("a < b and c>d").text, "a < b and c>d");
        assert_eq!(html_to_text("<script>never closed").text, "");
        assert_eq!(html_to_text("x<br/>y<br>z").text, "x\ny\nz");
        assert_eq!(html_to_text("<div>a</div><div>b</div>").text, "a\nb");
        assert_eq!(
            html_to_text("<table><tr><td>1</td><td>2</td></tr></table>").text,
            "1 2"
        );
        assert_eq!(html_to_text("plain text").title, None);
    }
}
