//! JSON files on disk: lenient read (JSON5: comments, trailing commas; a
//! wrongly typed field falls back alone), atomic write. A file we cannot read
//! is never renamed or rewritten: it is the user's, and reported with where
//! it went wrong.

use std::fmt;
use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::error::{ConfigError, Result};
use crate::lenient::{self, FieldWarning};
use crate::unknown::{self, UnknownFields};

/// A value read from disk, with the fields that could not be used as written.
#[derive(Debug, Clone, PartialEq)]
pub struct Loaded<T> {
    /// The parsed file, or `T::default()` when it was missing or blank.
    pub value: T,
    /// Wrongly typed fields (their defaults apply) and unknown fields (kept,
    /// unused), in the order of the file.
    pub warnings: Vec<FieldWarning>,
}

/// A file that exists but cannot be read as JSON at all: it was left as it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileProblem {
    /// The file.
    pub path: PathBuf,
    /// 1-based line of the fault, when known.
    pub line: Option<usize>,
    /// 1-based column (in characters) of the fault, when known.
    pub column: Option<usize>,
    /// What is wrong, for the user.
    pub error: String,
}

impl fmt::Display for FileProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.path.display())?;
        match (self.line, self.column) {
            (Some(line), Some(column)) => write!(f, ": line {line}, column {column}")?,
            (Some(line), None) => write!(f, ": line {line}")?,
            _ => {}
        }
        write!(f, ": {}", self.error)
    }
}

impl std::error::Error for FileProblem {}

/// Reads `path` leniently. A missing or blank file gives `T::default()`. A
/// file that is not JSON(5) is [`ConfigError::Invalid`] (naming line and
/// column) and stays untouched; a field of the wrong type falls back to its
/// default alone and is reported in [`Loaded::warnings`], as are unknown
/// fields. Unreadable (permissions, I/O) is [`ConfigError::Io`].
pub fn load_json_file<T: DeserializeOwned + Default + UnknownFields>(
    path: &Path,
) -> Result<Loaded<T>> {
    match read_tree(path)? {
        None => Ok(Loaded {
            value: T::default(),
            warnings: Vec::new(),
        }),
        Some(tree) => typed_tree(path, &tree),
    }
}

/// `tree` (read from `path`) as `T`, field by field.
pub(crate) fn typed_tree<T: DeserializeOwned + UnknownFields>(
    path: &Path,
    tree: &Value,
) -> Result<Loaded<T>> {
    let (value, mut warnings) = lenient::from_value::<T>(tree).map_err(|whole| {
        ConfigError::Invalid(FileProblem {
            path: path.to_path_buf(),
            line: None,
            column: None,
            error: whole.0,
        })
    })?;
    warnings.extend(unknown::warnings(&value));
    Ok(Loaded { value, warnings })
}

/// The JSON tree of `path`; `None` when it is missing or blank.
pub(crate) fn read_tree(path: &Path) -> Result<Option<Value>> {
    Ok(read_source(path)?.map(|source| source.tree))
}

/// A file as the user wrote it and as a tree.
#[derive(Debug)]
pub(crate) struct Source {
    /// The text, without a leading byte order mark.
    pub(crate) text: String,
    /// Whether the file started with a UTF-8 byte order mark.
    pub(crate) bom: bool,
    pub(crate) tree: Value,
}

/// The text and JSON tree of `path`; `None` when it is missing or blank.
pub(crate) fn read_source(path: &Path) -> Result<Option<Source>> {
    let (text, bom) = match read_text(path) {
        Ok(None) => return Ok(None),
        Ok(Some(text)) => text,
        Err(ReadError::Io(e)) => return Err(ConfigError::io(path, e)),
        Err(ReadError::Parse(problem)) => {
            return Err(ConfigError::Invalid(problem.at(path)));
        }
    };
    if text.trim().is_empty() {
        return Ok(None);
    }
    let tree =
        parse_json5::<Value>(&text).map_err(|problem| ConfigError::Invalid(problem.at(path)))?;
    Ok(Some(Source { text, bom, tree }))
}

/// Reads `path` strictly typed, never moving or changing it: for files in
/// the user's repository (workspace config), which are written back only
/// when they read whole. Missing or blank → `Ok(None)`; unreadable, not
/// JSON(5) or a field of the wrong type → `Err(message)` naming the file
/// (and the line and column, or the field).
pub fn read_json_lenient<T: DeserializeOwned>(path: &Path) -> Result<Option<T>, String> {
    let tree = match read_tree(path) {
        Ok(None) => return Ok(None),
        Ok(Some(tree)) => tree,
        Err(e) => return Err(e.to_string()),
    };
    serde_path_to_error::deserialize::<_, T>(&tree)
        .map(Some)
        .map_err(|e| {
            let at = e.path().to_string();
            if at.is_empty() || at == "." {
                format!("{}: {}", path.display(), e.inner())
            } else {
                format!("{}: {at}: {}", path.display(), e.inner())
            }
        })
}

/// A parse failure before the path is known.
struct Unparsable {
    line: Option<usize>,
    column: Option<usize>,
    error: String,
}

impl Unparsable {
    fn at(self, path: &Path) -> FileProblem {
        FileProblem {
            path: path.to_path_buf(),
            line: self.line,
            column: self.column,
            error: self.error,
        }
    }

    fn whole(error: impl Into<String>) -> Unparsable {
        Unparsable {
            line: None,
            column: None,
            error: error.into(),
        }
    }
}

/// How deep arrays and objects may nest in a JSON file (serde_json's limit
/// too). json5 parses recursively without a limit: a file of a few thousand
/// `[` would overflow the stack, an abort rather than an error.
const MAX_DEPTH: usize = 128;

/// Parses JSON5 text whose nesting fits in [`MAX_DEPTH`].
fn parse_json5<T: DeserializeOwned>(text: &str) -> Result<T, Unparsable> {
    check_depth(text).map_err(Unparsable::whole)?;
    json5::from_str::<T>(text).map_err(|e| {
        // json5 counts lines and columns from 0.
        let position = e.position();
        Unparsable {
            line: position.map(|p| p.line + 1),
            column: position.map(|p| p.column + 1),
            error: match e.code() {
                Some(code) => code.to_string(),
                None => e.to_string(),
            },
        }
    })
}

/// Refuses text whose arrays and objects nest deeper than [`MAX_DEPTH`].
/// Brackets inside strings and comments do not count. The lexing is json5's
/// (quotes `"` or `'` with `\` escaping the next character, `//` to a line
/// terminator, `/* */`), so json5 never recurses deeper than counted here:
/// wherever the two could part, the text is not JSON5 and json5 stops with
/// an error first.
fn check_depth(text: &str) -> Result<(), String> {
    let mut depth = 0usize;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '[' | '{' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Err(format!("nested deeper than {MAX_DEPTH} levels"));
                }
            }
            ']' | '}' => depth = depth.saturating_sub(1),
            '"' | '\'' => {
                while let Some(s) = chars.next() {
                    if s == '\\' {
                        chars.next();
                    } else if s == c {
                        break;
                    }
                }
            }
            '/' => match chars.next() {
                Some('/') => {
                    for s in chars.by_ref() {
                        if matches!(s, '\n' | '\r' | '\u{2028}' | '\u{2029}') {
                            break;
                        }
                    }
                }
                Some('*') => {
                    let mut star = false;
                    for s in chars.by_ref() {
                        if star && s == '/' {
                            break;
                        }
                        star = s == '*';
                    }
                }
                // Not a comment: json5 stops here with an error.
                _ => return Ok(()),
            },
            _ => {}
        }
    }
    Ok(())
}

/// Writes `value` as 2-space indented JSON: to a temp file in the same directory,
/// fsynced, then renamed over `path`, so readers see the old or the new file and
/// never a torn one. Mode 0600 on unix (config holds API keys). Creates the parent
/// directory if missing.
pub fn save_json_file<T: Serialize>(path: &Path, value: &T) -> Result<()> {
    save_text_file(path, &pretty(path, value)?)
}

/// `value` as 2-space indented JSON with a final newline.
pub(crate) fn pretty<T: Serialize>(path: &Path, value: &T) -> Result<Vec<u8>> {
    let mut bytes = serde_json::to_vec_pretty(value).map_err(|e| ConfigError::Json {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    bytes.push(b'\n');
    Ok(bytes)
}

/// Writes `bytes` atomically and privately, as [`save_json_file`] does.
pub(crate) fn save_text_file(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = parent_dir(path);
    fs::create_dir_all(dir).map_err(|e| ConfigError::io(dir, e))?;

    let (tmp_path, mut file) = create_temp_beside(path)?;
    let written = file
        .write_all(bytes)
        .and_then(|()| file.sync_all())
        .and_then(|()| {
            drop(file);
            fs::rename(&tmp_path, path)
        });
    if let Err(e) = written {
        // Best effort: the temp file is garbage either way, the error is what matters.
        let _ = fs::remove_file(&tmp_path);
        return Err(ConfigError::io(path, e));
    }
    sync_dir(dir);
    Ok(())
}

enum ReadError {
    Io(io::Error),
    /// The bytes are there but are not text: treated like a parse error.
    Parse(Unparsable),
}

/// The file's text without a byte order mark, and whether it had one.
fn read_text(path: &Path) -> Result<Option<(String, bool)>, ReadError> {
    match fs::read(path) {
        Ok(bytes) => String::from_utf8(bytes)
            .map(|mut s| {
                // A UTF-8 BOM (Windows editors) is not JSON5 whitespace.
                let bom = s.starts_with('\u{feff}');
                if bom {
                    s.drain(..'\u{feff}'.len_utf8());
                }
                Some((s, bom))
            })
            .map_err(|e| {
                let good = &e.as_bytes()[..e.utf8_error().valid_up_to()];
                let line = good.iter().filter(|b| **b == b'\n').count() + 1;
                ReadError::Parse(Unparsable {
                    line: Some(line),
                    column: None,
                    error: format!("not UTF-8 text: {}", e.utf8_error()),
                })
            }),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(ReadError::Io(e)),
    }
}

fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Creates `.<name>.tmp-<pid>-<nanos>` next to `path`, exclusively, mode 0600.
fn create_temp_beside(path: &Path) -> Result<(PathBuf, fs::File)> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "file".to_string());
    let dir = parent_dir(path);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let pid = std::process::id();
    let mut last_err = None;
    for attempt in 0u32..16 {
        let tmp = dir.join(format!(".{name}.tmp-{pid}-{nanos}-{attempt}"));
        let mut opts = OpenOptions::new();
        opts.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            opts.mode(0o600);
        }
        match opts.open(&tmp) {
            Ok(file) => {
                // The umask can only remove bits, but be explicit about the result.
                #[cfg(unix)]
                {
                    use std::os::unix::fs::PermissionsExt;
                    if let Err(e) = file.set_permissions(fs::Permissions::from_mode(0o600)) {
                        let _ = fs::remove_file(&tmp);
                        return Err(ConfigError::io(&tmp, e));
                    }
                }
                return Ok((tmp, file));
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last_err = Some(e),
            Err(e) => return Err(ConfigError::io(&tmp, e)),
        }
    }
    Err(ConfigError::io(
        path,
        last_err.unwrap_or_else(|| io::Error::other("no free temp file name")),
    ))
}

/// Makes the rename itself durable. Failure only weakens crash safety, so it is ignored.
fn sync_dir(dir: &Path) {
    #[cfg(unix)]
    if let Ok(d) = fs::File::open(dir) {
        let _ = d.sync_all();
    }
    #[cfg(not(unix))]
    let _ = dir;
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
    #[serde(default, rename_all = "camelCase")]
    struct Sample {
        name: String,
        count: u32,
    }

    fn entries(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    impl UnknownFields for Sample {
        fn unknown_fields(&self, _at: &str, _out: &mut Vec<String>) {}
    }

    #[test]
    fn missing_file_gives_default_without_problem() {
        let tmp = tempfile::tempdir().unwrap();
        let loaded: Loaded<Sample> = load_json_file(&tmp.path().join("nope.json")).unwrap();
        assert_eq!(loaded.value, Sample::default());
        assert!(loaded.warnings.is_empty());
    }

    #[test]
    fn blank_file_gives_default_and_stays() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("c.json");
        fs::write(&path, " \n").unwrap();
        let loaded: Loaded<Sample> = load_json_file(&path).unwrap();
        assert!(loaded.warnings.is_empty());
        assert!(path.exists());
    }

    #[test]
    fn comments_trailing_commas_and_bom_accepted() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("c.json");
        let text =
            "\u{feff}{\n  // line comment\n  \"name\": \"x\", /* block */\n  \"count\": 3,\n}\n";
        fs::write(&path, text).unwrap();
        let loaded: Loaded<Sample> = load_json_file(&path).unwrap();
        assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
        assert_eq!(
            loaded.value,
            Sample {
                name: "x".into(),
                count: 3
            }
        );
    }

    #[test]
    fn a_file_that_is_not_json_stays_byte_for_byte_and_names_line_and_column() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("config.json");
        let text = "{\n  \"name\": \"x\"\n  \"count\": 2\n}\n";
        fs::write(&path, text).unwrap();
        let err = load_json_file::<Sample>(&path).unwrap_err();
        let ConfigError::Invalid(problem) = err else {
            panic!("{err:?}")
        };
        assert_eq!(problem.path, path);
        assert_eq!((problem.line, problem.column), (Some(3), Some(3)));
        assert_eq!(problem.error, "expected comma");
        assert_eq!(
            problem.to_string(),
            format!("{}: line 3, column 3: expected comma", path.display())
        );
        assert_eq!(fs::read_to_string(&path).unwrap(), text);
        assert_eq!(entries(tmp.path()), vec!["config.json"]);
    }

    #[test]
    fn a_wrongly_typed_field_falls_back_alone_and_the_file_stays() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("state.json");
        fs::write(&path, r#"{"count": "many", "name": "kept", "later": 1}"#).unwrap();
        let loaded: Loaded<Sample> = load_json_file(&path).unwrap();
        assert_eq!(
            loaded.value,
            Sample {
                name: "kept".into(),
                count: 0
            }
        );
        let warnings: Vec<String> = loaded.warnings.iter().map(|w| w.to_string()).collect();
        assert_eq!(
            warnings,
            [r#"count: expected a whole number (0 or more), found "many""#]
        );
        assert_eq!(entries(tmp.path()), vec!["state.json"]);
    }

    #[test]
    fn non_utf8_is_invalid_and_stays() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("c.json");
        fs::write(&path, b"{\n\"a\": \"\xff\"}").unwrap();
        let err = load_json_file::<Sample>(&path).unwrap_err();
        let ConfigError::Invalid(problem) = err else {
            panic!("{err:?}")
        };
        assert_eq!(problem.line, Some(2));
        assert!(problem.error.contains("not UTF-8"), "{}", problem.error);
        assert!(path.exists());
    }

    #[test]
    fn save_is_atomic_pretty_and_private() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("sub").join("config.json");
        let value = Sample {
            name: "n".into(),
            count: 1,
        };
        save_json_file(&path, &value).unwrap();
        save_json_file(&path, &value).unwrap();
        let text = fs::read_to_string(&path).unwrap();
        assert_eq!(text, "{\n  \"name\": \"n\",\n  \"count\": 1\n}\n");
        assert_eq!(entries(path.parent().unwrap()), vec!["config.json"]);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600);
        }
        let loaded: Loaded<Sample> = load_json_file(&path).unwrap();
        assert_eq!(loaded.value, value);
    }

    #[cfg(unix)]
    #[test]
    fn save_tightens_a_previously_open_file() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("config.json");
        fs::write(&path, "{}").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).unwrap();
        save_json_file(&path, &Sample::default()).unwrap();
        let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }

    #[test]
    fn save_failure_leaves_no_temp_file() {
        let tmp = tempfile::tempdir().unwrap();
        // The target is a non-empty directory: rename over it must fail.
        let path = tmp.path().join("taken");
        fs::create_dir(&path).unwrap();
        fs::write(path.join("x"), "x").unwrap();
        assert!(save_json_file(&path, &Sample::default()).is_err());
        assert_eq!(entries(tmp.path()), vec!["taken"]);
    }

    /// Found by `jsonfile_proptests`: json5 has no depth limit, and a file
    /// of nested brackets overflowed the stack (an abort).
    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("c.json");
        fs::write(&path, "[".repeat(100_000)).unwrap();
        let err = read_json_lenient::<serde_json::Value>(&path).unwrap_err();
        assert!(err.contains("nested deeper than 128 levels"), "{err}");
        let err = load_json_file::<Sample>(&path).unwrap_err();
        assert!(err.to_string().contains("nested deeper"), "{err}");
        // 128 levels read; brackets in strings and comments do not count.
        let text = format!(
            "{{\"count\": 1, \"x\": {}{}, \"s\": \"{}\", 's': '[\\'{{', // {}\n /* {} */}}",
            "[".repeat(127),
            "]".repeat(127),
            "[".repeat(200),
            "{".repeat(200),
            "[".repeat(200),
        );
        fs::write(&path, text).unwrap();
        assert_eq!(
            read_json_lenient::<Sample>(&path).unwrap().unwrap().count,
            1
        );
        fs::write(&path, format!("{}{}", "[".repeat(129), "]".repeat(129))).unwrap();
        assert!(read_json_lenient::<serde_json::Value>(&path).is_err());
    }

    #[test]
    fn lenient_read_never_moves() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("c.json");
        assert_eq!(read_json_lenient::<Sample>(&path), Ok(None));
        fs::write(&path, "{ broken").unwrap();
        let err = read_json_lenient::<Sample>(&path).unwrap_err();
        assert!(err.contains("c.json"), "{err}");
        assert!(path.exists());
        assert_eq!(entries(tmp.path()), vec!["c.json"]);
        fs::write(&path, "{count: 2,}").unwrap();
        assert_eq!(
            read_json_lenient::<Sample>(&path).unwrap().unwrap().count,
            2
        );
    }
}

#[cfg(test)]
#[path = "jsonfile_proptests.rs"]
mod proptests;
