//! Property tests: no file content can crash the lenient readers. Any bytes
//! give a value or an error, and no reader changes a byte of the file
//! (`load_json_file` falls back field by field); strict JSON reads as serde_json reads it; JSON with
//! comments and trailing commas reads as the value it spells; damaged and
//! deeply nested texts are errors, not panics or stack overflows.
//! `PROPTEST_CASES` raises the case count (`scripts/fuzz --proptest` runs them
//! long).

use proptest::prelude::*;
use serde::Deserialize;
use serde_json::Value;

use super::*;

/// A few typed fields, like the real config structs, so type errors happen.
#[derive(Debug, Default, PartialEq, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct Typed {
    name: String,
    count: u32,
    flags: Vec<bool>,
    nested: Option<Box<Typed>>,
    extra: Option<Value>,
}

impl UnknownFields for Typed {
    fn unknown_fields(&self, _at: &str, _out: &mut Vec<String>) {}
}

/// Writes `bytes` to a fresh file and reads it with [`read_json_lenient`].
fn read_lenient<T: DeserializeOwned>(bytes: &[u8]) -> Result<Option<T>, TestCaseError> {
    let dir = tempfile::tempdir().map_err(|e| TestCaseError::fail(e.to_string()))?;
    let path = dir.path().join("config.json");
    fs::write(&path, bytes).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let result = read_json_lenient::<T>(&path);
    prop_assert!(path.exists(), "the lenient reader never moves a file");
    match result {
        Ok(v) => Ok(v),
        Err(e) => {
            prop_assert!(e.starts_with(&path.display().to_string()), "{e}");
            Ok(None)
        }
    }
}

/// Loads `bytes` with [`load_json_file`]: a value (bad fields fall back)
/// or [`ConfigError::Invalid`]; the file keeps every byte either way.
fn load(bytes: &[u8]) -> Result<Option<Loaded<Typed>>, TestCaseError> {
    let dir = tempfile::tempdir().map_err(|e| TestCaseError::fail(e.to_string()))?;
    let path = dir.path().join("config.json");
    fs::write(&path, bytes).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let loaded = match load_json_file::<Typed>(&path) {
        Ok(loaded) => Some(loaded),
        Err(ConfigError::Invalid(_)) => None,
        Err(e) => return Err(TestCaseError::fail(e.to_string())),
    };
    let kept = fs::read(&path).ok();
    prop_assert_eq!(kept.as_deref(), Some(bytes));
    Ok(loaded)
}

/// The same JSON value, with floats compared to a relative 1e-15: serde_json
/// without its `float_roundtrip` feature may read the last digit differently.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            match (x.as_i64(), y.as_i64(), x.as_u64(), y.as_u64()) {
                (Some(x), Some(y), _, _) => x == y,
                (_, _, Some(x), Some(y)) => x == y,
                _ => match (x.as_f64(), y.as_f64()) {
                    (Some(x), Some(y)) => x == y || (x - y).abs() <= 1e-15 * x.abs().max(y.abs()),
                    _ => false,
                },
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_filter_map("finite", |f| serde_json::Number::from_f64(f)
            .map(Value::Number)),
        any::<String>().prop_map(Value::from),
        "[a-z/*'\" \\\\]{0,8}".prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 32, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec((arb_key(), inner), 0..5)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

fn arb_key() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-zA-Z_$][a-zA-Z0-9_$]{0,6}",
        any::<String>(),
        prop::sample::select(&["name", "count", "flags", "nested", "extra"][..])
            .prop_map(str::to_string),
    ]
}

/// What goes between tokens of a JSON-with-comments text.
fn arb_gap() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(
            &[
                "",
                " ",
                "\n",
                "\t",
                "\r\n",
                "// line comment\n",
                "//\n",
                "/* block */",
                "/**/",
                "/* multi\nline * / */",
                "/* { [ \" ' */",
                "// } ] \" '\r",
                "\u{feff}",
                "\u{2028}",
                "\u{a0}",
            ][..],
        ),
        0..3,
    )
    .prop_map(|g| g.concat())
}

/// Renders a value as JSON with comments and whitespace between every token
/// and trailing commas where `commas` says, taking both in turn.
struct Render<'a> {
    gaps: &'a [String],
    commas: &'a [bool],
    turn: usize,
    out: String,
}

impl Render<'_> {
    fn gap(&mut self) {
        self.turn += 1;
        let gap = &self.gaps[self.turn % self.gaps.len()];
        self.out.push_str(gap);
    }

    /// A comma after every item but the last, and after the last sometimes.
    fn comma(&mut self, last: bool) {
        if !last || self.commas[self.turn % self.commas.len()] {
            self.out.push(',');
        }
    }

    fn value(&mut self, v: &Value) {
        match v {
            Value::Array(items) => {
                self.out.push('[');
                for (n, item) in items.iter().enumerate() {
                    self.gap();
                    self.value(item);
                    self.gap();
                    self.comma(n + 1 == items.len());
                }
                self.gap();
                self.out.push(']');
            }
            Value::Object(map) => {
                self.out.push('{');
                for (n, (k, item)) in map.iter().enumerate() {
                    self.gap();
                    self.out.push_str(&Value::from(k.as_str()).to_string());
                    self.gap();
                    self.out.push(':');
                    self.gap();
                    self.value(item);
                    self.gap();
                    self.comma(n + 1 == map.len());
                }
                self.gap();
                self.out.push('}');
            }
            scalar => self.out.push_str(&scalar.to_string()),
        }
    }
}

fn arb_jsonc() -> impl Strategy<Value = (Value, String)> {
    (
        arb_json(),
        prop::collection::vec(arb_gap(), 1..6),
        prop::collection::vec(any::<bool>(), 1..4),
    )
        .prop_map(|(v, gaps, commas)| {
            let mut r = Render {
                gaps: &gaps,
                commas: &commas,
                turn: 0,
                out: String::new(),
            };
            r.gap();
            r.value(&v);
            r.gap();
            (v, r.out)
        })
}

/// Damage to a text: cut short, or an unterminated comment, string or
/// bracket (or other stray character) put anywhere.
#[derive(Debug, Clone)]
enum Damage {
    Truncate(prop::sample::Index),
    Insert(prop::sample::Index, &'static str),
    Remove(prop::sample::Index),
}

fn arb_damage() -> impl Strategy<Value = Damage> {
    prop_oneof![
        any::<prop::sample::Index>().prop_map(Damage::Truncate),
        (
            any::<prop::sample::Index>(),
            prop::sample::select(
                &[
                    "/*", "//", "/", "*/", "\"", "'", "\\", "\\u", "[", "{", "]", "}", ",", ":",
                    "\n", "\u{2028}", "\0", "-", "Infinity", "0x", "\u{feff}"
                ][..]
            ),
        )
            .prop_map(|(at, s)| Damage::Insert(at, s)),
        any::<prop::sample::Index>().prop_map(Damage::Remove),
    ]
}

fn damage(text: &str, d: &Damage) -> String {
    let boundaries: Vec<usize> = text
        .char_indices()
        .map(|(i, _)| i)
        .chain([text.len()])
        .collect();
    let at = |ix: &prop::sample::Index| boundaries[ix.index(boundaries.len())];
    match d {
        Damage::Truncate(ix) => text[..at(ix)].to_string(),
        Damage::Insert(ix, s) => {
            let at = at(ix);
            format!("{}{s}{}", &text[..at], &text[at..])
        }
        Damage::Remove(ix) => {
            let at = at(ix);
            let next = text[at..].chars().next().map_or(0, char::len_utf8);
            format!("{}{}", &text[..at], &text[at + next..])
        }
    }
}

/// Bytes where JSON5's structure characters are common.
fn arb_bytes() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(
        prop_oneof![
            2 => any::<u8>(),
            3 => prop::sample::select(b"{}[]:,\"'/*\\\n 0123456789.eE+-abnulltrue".to_vec()),
        ],
        0..256,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Any bytes: a value or an error from both readers, the file unchanged;
    /// what the strict reader reads, the lenient one reads the same.
    #[test]
    fn any_bytes_give_a_value_or_an_error(bytes in prop_oneof![arb_bytes(), any::<String>().prop_map(String::into_bytes)]) {
        let lenient = read_lenient::<Typed>(&bytes)?;
        let loaded = load(&bytes)?;
        if let Some(v) = lenient {
            let loaded = loaded.ok_or_else(|| TestCaseError::fail("strict read it, lenient did not"))?;
            prop_assert!(loaded.warnings.is_empty());
            prop_assert_eq!(loaded.value, v);
        }
        read_lenient::<Value>(&bytes)?;
    }

    /// Strict JSON (compact or pretty, behind a BOM or not) reads exactly as
    /// serde_json reads it.
    #[test]
    fn strict_json_reads_like_serde_json(v in arb_json(), pretty in any::<bool>(), bom in any::<bool>()) {
        let text = if pretty { serde_json::to_string_pretty(&v) } else { serde_json::to_string(&v) }
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        let strict: Value = serde_json::from_str(&text).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let file = if bom { format!("\u{feff}{text}") } else { text.clone() };
        let lenient = read_lenient::<Value>(file.as_bytes())?;
        let lenient = lenient.ok_or_else(|| TestCaseError::fail(format!("refused: {text}")))?;
        prop_assert!(same(&lenient, &strict), "{text}\nlenient: {lenient}\nstrict: {strict}");
    }

    /// Comments (line and block, with brackets and quotes inside), odd
    /// whitespace and trailing commas around every token: the value the text
    /// spells.
    #[test]
    fn commented_json_reads_as_its_value((v, text) in arb_jsonc()) {
        let read = read_lenient::<Value>(text.as_bytes())?;
        let read = read.ok_or_else(|| TestCaseError::fail(format!("refused: {text:?}")))?;
        prop_assert!(same(&read, &v), "{text:?}\nread: {read}\nwant: {v}");
    }

    /// Damaged texts (cut short, unterminated comments and strings, stray
    /// brackets and escapes): a value or an error, never a panic.
    #[test]
    fn damaged_json_gives_a_value_or_an_error((_, text) in arb_jsonc(), hurt in prop::collection::vec(arb_damage(), 1..4)) {
        let text = hurt.iter().fold(text, |t, d| damage(&t, d));
        read_lenient::<Value>(text.as_bytes())?;
        load(text.as_bytes())?;
    }

    /// Nesting of any depth (with comments between the brackets, in a known
    /// or an ignored field): shallow reads, deep is an error, never a stack
    /// overflow.
    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow(
        depth in prop_oneof![0usize..200, 200usize..100_000],
        brackets in any::<bool>(),
        gap in prop::sample::select(&["", " ", "/* [ */", "//{\n"][..]),
        field in prop::sample::select(&["extra", "ignored"][..]),
    ) {
        let (open, close) = if brackets { ("[", "]") } else { ("{\"a\":", "}") };
        let text = format!(
            "{{\"{field}\": {}0{}}}",
            format!("{open}{gap}").repeat(depth),
            close.repeat(depth)
        );
        let value = read_lenient::<Value>(text.as_bytes())?;
        // The outer object is one level.
        let fits = depth < MAX_DEPTH;
        prop_assert_eq!(value.is_some(), fits, "depth {}", depth);
        let typed = read_lenient::<Typed>(text.as_bytes())?;
        prop_assert_eq!(typed.is_some(), fits, "depth {}", depth);
    }
}
