//! JSON files on disk: lenient read (JSON5: comments, trailing commas), atomic
//! write, and a corrupt file moved aside instead of being lost or overwritten.

use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::error::{ConfigError, Result};

/// A value read from disk, with what went wrong if the file was unusable.
#[derive(Debug, Clone, PartialEq)]
pub struct Loaded<T> {
    /// The parsed file, or `T::default()` when it was missing, blank or unusable.
    pub value: T,
    /// Set when the file was unusable and moved aside.
    pub problem: Option<FileProblem>,
}

/// A file that existed but could not be parsed; defaults were used instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileProblem {
    /// The file as it was named before it was moved aside.
    pub path: PathBuf,
    /// Where the bad file now lives; `None` if renaming it failed too.
    pub moved_to: Option<PathBuf>,
    /// Why it could not be parsed, for the user.
    pub error: String,
}

/// Reads `path` leniently. A missing or blank file gives `T::default()` with no
/// problem. A file that does not parse (syntax, type or encoding) is renamed to
/// `<name>.bad-<UTC yyyyMMddTHHmmssZ>[-N]` and `T::default()` is returned with a
/// [`FileProblem`], so the next save cannot overwrite the user's text.
/// Only an unreadable file (permissions, I/O) is an `Err`.
pub fn load_json_file<T: DeserializeOwned + Default>(path: &Path) -> Result<Loaded<T>> {
    let text = match read_text(path) {
        Ok(None) => return Ok(default_loaded()),
        Ok(Some(text)) => text,
        Err(ReadError::Io(e)) => return Err(ConfigError::io(path, e)),
        Err(ReadError::Parse(error)) => return Ok(moved_aside(path, error)),
    };
    if text.trim().is_empty() {
        return Ok(default_loaded());
    }
    match parse_json5::<T>(&text) {
        Ok(value) => Ok(Loaded {
            value,
            problem: None,
        }),
        Err(e) => Ok(moved_aside(path, e)),
    }
}

/// Reads `path` leniently without ever moving it: for files in the user's
/// repository (workspace config). Missing or blank → `Ok(None)`; unreadable or
/// unparsable → `Err(message)`, the file left as it is.
pub fn read_json_lenient<T: DeserializeOwned>(path: &Path) -> Result<Option<T>, String> {
    let text = match read_text(path) {
        Ok(None) => return Ok(None),
        Ok(Some(text)) => text,
        Err(ReadError::Io(e)) => return Err(format!("{}: {e}", path.display())),
        Err(ReadError::Parse(e)) => return Err(format!("{}: {e}", path.display())),
    };
    if text.trim().is_empty() {
        return Ok(None);
    }
    parse_json5::<T>(&text)
        .map(Some)
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// How deep arrays and objects may nest in a JSON file (serde_json's limit
/// too). json5 parses recursively without a limit: a file of a few thousand
/// `[` would overflow the stack, an abort rather than an error.
const MAX_DEPTH: usize = 128;

/// Parses JSON5 text whose nesting fits in [`MAX_DEPTH`].
fn parse_json5<T: DeserializeOwned>(text: &str) -> Result<T, String> {
    check_depth(text)?;
    json5::from_str::<T>(text).map_err(|e| e.to_string())
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
    let mut bytes = serde_json::to_vec_pretty(value).map_err(|e| ConfigError::Json {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    bytes.push(b'\n');
    let dir = parent_dir(path);
    fs::create_dir_all(dir).map_err(|e| ConfigError::io(dir, e))?;

    let (tmp_path, mut file) = create_temp_beside(path)?;
    let written = file
        .write_all(&bytes)
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
    Parse(String),
}

fn read_text(path: &Path) -> Result<Option<String>, ReadError> {
    match fs::read(path) {
        Ok(bytes) => String::from_utf8(bytes)
            .map(|mut s| {
                // A UTF-8 BOM (Windows editors) is not JSON5 whitespace.
                if s.starts_with('\u{feff}') {
                    s.drain(..'\u{feff}'.len_utf8());
                }
                Some(s)
            })
            .map_err(|e| ReadError::Parse(format!("not UTF-8: {e}"))),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(ReadError::Io(e)),
    }
}

fn default_loaded<T: Default>() -> Loaded<T> {
    Loaded {
        value: T::default(),
        problem: None,
    }
}

fn moved_aside<T: Default>(path: &Path, error: String) -> Loaded<T> {
    let (moved_to, error) = match move_aside(path) {
        Ok(to) => (Some(to), error),
        Err(e) => (
            None,
            format!("{error} (could not move the file aside: {e})"),
        ),
    };
    Loaded {
        value: T::default(),
        problem: Some(FileProblem {
            path: path.to_path_buf(),
            moved_to,
            error,
        }),
    }
}

/// Renames `path` to the first free `<name>.bad-<stamp>`, `<name>.bad-<stamp>-1`, ...
fn move_aside(path: &Path) -> io::Result<PathBuf> {
    let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%SZ").to_string();
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "file".to_string());
    let dir = parent_dir(path);
    for n in 0u32..1000 {
        let candidate = if n == 0 {
            dir.join(format!("{name}.bad-{stamp}"))
        } else {
            dir.join(format!("{name}.bad-{stamp}-{n}"))
        };
        // symlink_metadata: a dangling symlink also occupies the name.
        if fs::symlink_metadata(&candidate).is_ok() {
            continue;
        }
        fs::rename(path, &candidate)?;
        return Ok(candidate);
    }
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        "too many .bad-* files with the same timestamp",
    ))
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

    #[test]
    fn missing_file_gives_default_without_problem() {
        let tmp = tempfile::tempdir().unwrap();
        let loaded: Loaded<Sample> = load_json_file(&tmp.path().join("nope.json")).unwrap();
        assert_eq!(loaded.value, Sample::default());
        assert!(loaded.problem.is_none());
    }

    #[test]
    fn blank_file_gives_default_and_stays() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("c.json");
        fs::write(&path, " \n").unwrap();
        let loaded: Loaded<Sample> = load_json_file(&path).unwrap();
        assert!(loaded.problem.is_none());
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
        assert!(loaded.problem.is_none(), "{:?}", loaded.problem);
        assert_eq!(
            loaded.value,
            Sample {
                name: "x".into(),
                count: 3
            }
        );
    }

    #[test]
    fn corrupt_file_is_moved_aside() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("config.json");
        fs::write(&path, "{ \"name\": ").unwrap();
        let loaded: Loaded<Sample> = load_json_file(&path).unwrap();
        assert_eq!(loaded.value, Sample::default());
        let problem = loaded.problem.unwrap();
        assert_eq!(problem.path, path);
        let moved = problem.moved_to.unwrap();
        let moved_name = moved.file_name().unwrap().to_string_lossy().into_owned();
        assert!(moved_name.starts_with("config.json.bad-"), "{moved_name}");
        let stamp = &moved_name["config.json.bad-".len()..];
        assert_eq!(stamp.len(), "20260731T120000Z".len(), "{stamp}");
        assert!(stamp.ends_with('Z') && stamp.as_bytes()[8] == b'T');
        assert!(!path.exists());
        assert_eq!(fs::read_to_string(&moved).unwrap(), "{ \"name\": ");
        assert!(!problem.error.is_empty());
    }

    #[test]
    fn type_error_is_moved_aside_and_names_do_not_collide() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("state.json");
        let mut moved = Vec::new();
        for i in 0..3 {
            fs::write(&path, format!("{{\"count\": \"many{i}\"}}")).unwrap();
            let loaded: Loaded<Sample> = load_json_file(&path).unwrap();
            moved.push(loaded.problem.unwrap().moved_to.unwrap());
        }
        moved.sort();
        moved.dedup();
        // Same second → suffixes; different seconds → different stamps. Never overwritten.
        assert_eq!(moved.len(), 3);
        let mut contents: Vec<String> = moved
            .iter()
            .map(|p| fs::read_to_string(p).unwrap())
            .collect();
        contents.sort();
        assert_eq!(
            contents,
            vec![
                "{\"count\": \"many0\"}",
                "{\"count\": \"many1\"}",
                "{\"count\": \"many2\"}"
            ]
        );
    }

    #[test]
    fn non_utf8_is_moved_aside() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("c.json");
        fs::write(&path, [0xff, 0xfe, 0x00]).unwrap();
        let loaded: Loaded<Sample> = load_json_file(&path).unwrap();
        assert!(loaded.problem.unwrap().moved_to.is_some());
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
        let loaded: Loaded<Sample> = load_json_file(&path).unwrap();
        assert!(loaded.problem.unwrap().error.contains("nested deeper"));
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
