//! Syntax highlighting of fenced code blocks (syntect, pure-Rust regexes).
//! The syntax set is loaded the first time a block names a language, not at
//! start-up, so the first paint stays fast; highlighted blocks are cached,
//! since a redraw lays the visible answers out again.

use std::cell::{OnceCell, RefCell};
use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};

use ratatui::style::{Color, Style};
use ratatui::text::Span;
use syntect::easy::HighlightLines;
use syntect::highlighting::{Theme, ThemeSet};
use syntect::parsing::SyntaxSet;
use syntect::util::LinesWithEndings;

/// The theme used (one of syntect's bundled ones, for dark terminals).
const THEME: &str = "base16-ocean.dark";
/// Cached blocks before the cache starts over.
const CACHE_BLOCKS: usize = 256;

/// A block's lines, each a list of styled spans.
pub type Highlighted = Vec<Vec<Span<'static>>>;

/// Highlights code; owned by the app and handed down to the Markdown renderer.
#[derive(Default)]
pub struct Highlighter {
    /// Loaded on first use; `None` when the bundled data cannot be read.
    loaded: OnceCell<Option<(SyntaxSet, Theme)>>,
    cache: RefCell<HashMap<u64, Highlighted>>,
}

impl std::fmt::Debug for Highlighter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Highlighter")
            .field("loaded", &self.loaded.get().is_some())
            .field("cached", &self.cache.borrow().len())
            .finish()
    }
}

impl Highlighter {
    /// `code` highlighted as `lang` (a fence's info string: its first word
    /// names the language, as a token like `rust` or an extension like `rs`);
    /// `None` for a language syntect does not know.
    pub fn highlight(&self, lang: &str, code: &str) -> Option<Highlighted> {
        let lang = lang
            .split([' ', ',', '{'])
            .next()
            .unwrap_or_default()
            .trim();
        if lang.is_empty() {
            return None;
        }
        let mut hasher = DefaultHasher::new();
        (lang, code).hash(&mut hasher);
        let key = hasher.finish();
        if let Some(hit) = self.cache.borrow().get(&key) {
            return Some(hit.clone());
        }
        let (syntaxes, theme) = self.loaded.get_or_init(load).as_ref()?;
        let syntax = syntaxes
            .find_syntax_by_token(lang)
            .or_else(|| syntaxes.find_syntax_by_extension(lang))?;
        let mut h = HighlightLines::new(syntax, theme);
        let mut out = Vec::new();
        for line in LinesWithEndings::from(code) {
            let Ok(ranges) = h.highlight_line(line, syntaxes) else {
                return None;
            };
            let spans: Vec<Span<'static>> = ranges
                .into_iter()
                .filter_map(|(style, text)| {
                    let text = text.trim_end_matches(['\n', '\r']).replace('\t', "    ");
                    if text.is_empty() {
                        return None;
                    }
                    let c = style.foreground;
                    Some(Span::styled(
                        text,
                        Style::new().fg(Color::Rgb(c.r, c.g, c.b)),
                    ))
                })
                .collect();
            out.push(spans);
        }
        let mut cache = self.cache.borrow_mut();
        if cache.len() >= CACHE_BLOCKS {
            cache.clear();
        }
        cache.insert(key, out.clone());
        Some(out)
    }
}

fn load() -> Option<(SyntaxSet, Theme)> {
    let syntaxes = SyntaxSet::load_defaults_newlines();
    let theme = ThemeSet::load_defaults().themes.remove(THEME)?;
    Some((syntaxes, theme))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_languages_get_colours_and_unknown_ones_none() {
        let h = Highlighter::default();
        assert!(h.highlight("nosuchlang", "x").is_none());
        assert!(h.highlight("", "x").is_none());
        let lines = h
            .highlight("rust", "fn main() {\n    let x = 1;\n}\n")
            .unwrap();
        assert_eq!(lines.len(), 3);
        let text: String = lines[1].iter().map(|s| s.content.as_ref()).collect();
        assert_eq!(text, "    let x = 1;");
        let colours: std::collections::HashSet<_> =
            lines.iter().flatten().filter_map(|s| s.style.fg).collect();
        assert!(colours.len() > 1, "more than one colour: {colours:?}");
        assert!(h.highlight("rs", "fn a() {}").is_some(), "by extension");
        assert_eq!(h.cache.borrow().len(), 2);
    }
}
