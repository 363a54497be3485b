//! One skill directory → one [`Skill`]: the three on-disk formats, their
//! precedence, YAML front matter and lenient, size-capped reading.

use std::fs::File;
use std::io::{self, Read};
use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};
use yaml_serde::Value;

/// Metadata file of the YAML format (takes precedence over everything).
pub const SKILL_YAML: &str = "skill.yaml";
/// Alternative spelling of [`SKILL_YAML`].
pub const SKILL_YML: &str = "skill.yml";
/// Markdown format: optional front matter plus the prompt as body.
pub const SKILL_MD: &str = "SKILL.md";
/// Bare prompt file; also the YAML format's default `prompt`.
pub const PROMPT_TXT: &str = "prompt.txt";
/// At most this many bytes of any skill file are read. Skills end up in the
/// system prompt, so anything larger is a mistake, not a skill.
pub const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// Where a skill was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SkillScope {
    /// `$SEEKCLAW_HOME/skills`.
    Global,
    /// `<workspace>/.seekclaw/skills`.
    Workspace,
}

/// A discovered skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skill {
    /// Display name (trimmed, whitespace collapsed); never empty.
    pub name: String,
    /// One-line description; empty when absent.
    pub description: String,
    /// Version, if declared.
    pub version: Option<String>,
    /// Absolute path of the skill directory.
    pub directory: PathBuf,
    /// The file whose text is the prompt (prompt file or `SKILL.md`).
    pub prompt_path: PathBuf,
    /// Global or workspace.
    pub scope: SkillScope,
    /// The prompt text (for `SKILL.md`: the body after the front matter).
    pub text: String,
    /// Why the metadata could not be used, if so. The skill is still
    /// listed so the user can see and fix it.
    pub error: Option<String>,
}

/// Metadata as written in `skill.yaml` or front matter; `None` = absent.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Meta {
    pub name: Option<String>,
    pub description: Option<String>,
    pub version: Option<String>,
    pub prompt: Option<String>,
}

/// A skill directory parsed, before the name falls back to anything.
#[derive(Debug)]
pub(crate) struct Parsed {
    pub meta: Meta,
    pub prompt_path: PathBuf,
    pub text: String,
    pub error: Option<String>,
}

/// Which format a directory uses, by precedence.
enum Format {
    Yaml(PathBuf),
    Markdown(PathBuf),
    PromptOnly(PathBuf),
}

fn detect(dir: &Path) -> Option<Format> {
    for name in [SKILL_YAML, SKILL_YML] {
        let path = dir.join(name);
        if path.is_file() {
            return Some(Format::Yaml(path));
        }
    }
    let md = dir.join(SKILL_MD);
    if md.is_file() {
        return Some(Format::Markdown(md));
    }
    let txt = dir.join(PROMPT_TXT);
    txt.is_file().then_some(Format::PromptOnly(txt))
}

/// True when `dir` holds any of the skill files.
pub(crate) fn is_skill_dir(dir: &Path) -> bool {
    detect(dir).is_some()
}

/// Loads the skill in `dir`, or `None` when it is not a skill directory.
/// Never fails: unreadable or malformed metadata is reported in
/// [`Skill::error`].
pub fn load_skill(dir: &Path, scope: SkillScope) -> Option<Skill> {
    let parsed = parse_dir(dir)?;
    // Relative roots would make prompt paths useless to the caller's read_file.
    let directory = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    let prompt_path = match parsed.prompt_path.strip_prefix(dir) {
        Ok(rel) => directory.join(rel),
        Err(_) => parsed.prompt_path,
    };
    let name = parsed.meta.name.unwrap_or_else(|| dir_name(dir));
    Some(Skill {
        name,
        description: parsed.meta.description.unwrap_or_default(),
        version: parsed.meta.version,
        directory,
        prompt_path,
        scope,
        text: parsed.text,
        error: parsed.error,
    })
}

/// Parses `dir` by format precedence; `None` when it is not a skill.
pub(crate) fn parse_dir(dir: &Path) -> Option<Parsed> {
    Some(match detect(dir)? {
        Format::Yaml(path) => parse_yaml_skill(dir, &path),
        Format::Markdown(path) => match read_lenient(&path) {
            Ok(content) => {
                let (meta, body) = parse_front_matter(&content);
                Parsed {
                    meta: meta.unwrap_or_default(),
                    text: body.trim().to_string(),
                    prompt_path: path,
                    error: None,
                }
            }
            Err(e) => unreadable(path, &e),
        },
        Format::PromptOnly(path) => match read_lenient(&path) {
            Ok(text) => Parsed {
                meta: Meta::default(),
                prompt_path: path,
                text,
                error: None,
            },
            Err(e) => unreadable(path, &e),
        },
    })
}

fn unreadable(path: PathBuf, e: &io::Error) -> Parsed {
    Parsed {
        meta: Meta::default(),
        error: Some(format!("cannot read {}: {e}", path.display())),
        prompt_path: path,
        text: String::new(),
    }
}

fn parse_yaml_skill(dir: &Path, yaml_path: &Path) -> Parsed {
    let default_prompt = dir.join(PROMPT_TXT);
    let meta = match read_lenient(yaml_path).map_err(|e| e.to_string()) {
        Ok(src) => meta_from_yaml(&src),
        Err(e) => Err(e),
    };
    let meta = match meta {
        Ok(meta) => meta,
        Err(e) => {
            return Parsed {
                meta: Meta::default(),
                prompt_path: default_prompt,
                text: String::new(),
                error: Some(format!("{}: {e}", yaml_path.display())),
            };
        }
    };
    let prompt = meta
        .prompt
        .clone()
        .unwrap_or_else(|| PROMPT_TXT.to_string());
    // The caller lets read_file open listed prompt paths even outside the
    // workspace, so a prompt must not point out of its skill directory.
    if !is_plain_relative(&prompt) {
        return Parsed {
            meta,
            prompt_path: default_prompt,
            text: String::new(),
            error: Some(format!(
                "prompt '{prompt}' must be a file inside the skill directory"
            )),
        };
    }
    let prompt_path = dir.join(&prompt);
    let (text, error) = match read_lenient(&prompt_path) {
        Ok(text) => (text, None),
        // A skill without its prompt file yet is still a skill.
        Err(e) if e.kind() == io::ErrorKind::NotFound => (String::new(), None),
        Err(e) => (
            String::new(),
            Some(format!("cannot read {}: {e}", prompt_path.display())),
        ),
    };
    Parsed {
        meta,
        prompt_path,
        text,
        error,
    }
}

fn is_plain_relative(path: &str) -> bool {
    let path = Path::new(path);
    path.components().next().is_some()
        && path.components().all(|c| matches!(c, Component::Normal(_)))
}

/// The directory's own name, the fallback skill name.
pub(crate) fn dir_name(dir: &Path) -> String {
    dir.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Reads at most [`MAX_FILE_BYTES`], replacing invalid UTF-8.
pub(crate) fn read_lenient(path: &Path) -> io::Result<String> {
    let mut bytes = Vec::new();
    File::open(path)?
        .take(MAX_FILE_BYTES)
        .read_to_end(&mut bytes)?;
    Ok(match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    })
}

/// Splits `---\n<yaml>---\n<body>`; `None` when there is no complete
/// front-matter block.
pub(crate) fn split_front_matter(text: &str) -> Option<(&str, &str)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    let first = lines.next()?;
    if first.trim_end() != "---" {
        return None;
    }
    let yaml_start = first.len();
    let mut pos = yaml_start;
    for line in lines {
        if line.trim_end() == "---" {
            return Some((&text[yaml_start..pos], &text[pos + line.len()..]));
        }
        pos += line.len();
    }
    None
}

/// Front matter metadata and the body. Malformed or absent front matter →
/// no metadata and the whole text as body.
pub(crate) fn parse_front_matter(text: &str) -> (Option<Meta>, &str) {
    if let Some((yaml, body)) = split_front_matter(text)
        && let Ok(meta) = meta_from_yaml(yaml)
    {
        return (Some(meta), body);
    }
    (None, text.strip_prefix('\u{feff}').unwrap_or(text))
}

/// Metadata from a YAML mapping. Scalars of any type are accepted as text
/// (`version: 1.0` is common); other keys are ignored.
pub(crate) fn meta_from_yaml(src: &str) -> Result<Meta, String> {
    let value: Value = yaml_serde::from_str(src).map_err(|e| e.to_string())?;
    match value {
        Value::Null => Ok(Meta::default()),
        Value::Mapping(map) => {
            let field = |key: &str| map.get(key).and_then(scalar_text);
            Ok(Meta {
                name: field("name").and_then(|n| one_line(&n)),
                description: field("description").map(|d| d.trim().to_string()),
                version: field("version").and_then(|v| non_empty(v.trim())),
                prompt: field("prompt").and_then(|p| non_empty(p.trim())),
            })
        }
        _ => Err("expected a mapping of keys to values".to_string()),
    }
}

fn scalar_text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn non_empty(s: &str) -> Option<String> {
    (!s.is_empty()).then(|| s.to_string())
}

/// Names become headings and list items, so newlines and runs of
/// whitespace collapse; empty → `None` (fall back to the directory name).
pub(crate) fn one_line(s: &str) -> Option<String> {
    non_empty(&s.split_whitespace().collect::<Vec<_>>().join(" "))
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::path::Path;

    use super::*;

    fn write(dir: &Path, rel: &str, content: impl AsRef<[u8]>) {
        let path = dir.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, content).unwrap();
    }

    fn load(dir: &Path) -> Skill {
        load_skill(dir, SkillScope::Global).unwrap()
    }

    #[test]
    fn yaml_format_reads_metadata_and_prompt_file() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("lint");
        write(
            &dir,
            SKILL_YAML,
            "name: ' Linting '\ndescription: Run the linters\nversion: 1.2\nprompt: body.txt\nextra: [1, 2]\n",
        );
        write(&dir, "body.txt", "Use clippy.");
        let skill = load(&dir);
        assert_eq!(skill.name, "Linting");
        assert_eq!(skill.description, "Run the linters");
        assert_eq!(skill.version.as_deref(), Some("1.2"));
        assert_eq!(skill.text, "Use clippy.");
        assert_eq!(skill.prompt_path, dir.join("body.txt"));
        assert_eq!(skill.directory, dir);
        assert_eq!(skill.scope, SkillScope::Global);
        assert_eq!(skill.error, None);
    }

    #[test]
    fn yaml_format_defaults() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("review");
        write(&dir, SKILL_YML, "name: '   '\n");
        write(&dir, PROMPT_TXT, "Review carefully.\n");
        let skill = load(&dir);
        assert_eq!(skill.name, "review", "empty name falls back to the dir");
        assert_eq!(skill.description, "");
        assert_eq!(skill.version, None);
        assert_eq!(skill.text, "Review carefully.\n");
        assert_eq!(skill.prompt_path, dir.join(PROMPT_TXT));
    }

    #[test]
    fn yaml_format_with_empty_file_and_missing_prompt_is_still_listed() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("empty");
        write(&dir, SKILL_YAML, "");
        let skill = load(&dir);
        assert_eq!(skill.name, "empty");
        assert_eq!(skill.text, "");
        assert_eq!(skill.error, None);
    }

    #[test]
    fn broken_yaml_is_listed_with_an_error() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("broken");
        write(&dir, SKILL_YAML, "name: [unclosed\n");
        write(&dir, PROMPT_TXT, "text");
        let skill = load(&dir);
        assert_eq!(skill.name, "broken");
        assert!(skill.error.is_some());

        let scalar = tmp.path().join("scalar");
        write(&scalar, SKILL_YAML, "just a string\n");
        let skill = load(&scalar);
        assert_eq!(skill.name, "scalar");
        assert!(skill.error.unwrap().contains("mapping"));
    }

    #[test]
    fn yaml_prompt_must_stay_inside_the_skill_dir() {
        let tmp = tempfile::tempdir().unwrap();
        write(tmp.path(), "secret.txt", "secret");
        let dir = tmp.path().join("escape");
        write(&dir, SKILL_YAML, "name: esc\nprompt: ../secret.txt\n");
        let skill = load(&dir);
        assert_eq!(skill.name, "esc");
        assert_eq!(skill.text, "");
        assert!(skill.error.is_some());
        assert!(skill.prompt_path.starts_with(&dir));

        let abs = tmp.path().join("abs");
        let prompt = format!(
            "name: abs\nprompt: {}\n",
            tmp.path().join("secret.txt").display()
        );
        write(&abs, SKILL_YAML, prompt);
        assert_eq!(load(&abs).text, "");
    }

    #[test]
    fn skill_md_with_front_matter() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("docs");
        write(
            &dir,
            SKILL_MD,
            "---\nname: Docs\ndescription: Write docs\nversion: '2'\nallowed-tools: x\n---\n\n# Docs\nBe brief.\n\n",
        );
        let skill = load(&dir);
        assert_eq!(skill.name, "Docs");
        assert_eq!(skill.description, "Write docs");
        assert_eq!(skill.version.as_deref(), Some("2"));
        assert_eq!(skill.text, "# Docs\nBe brief.");
        assert_eq!(skill.prompt_path, dir.join(SKILL_MD));
    }

    #[test]
    fn skill_md_without_front_matter_uses_dir_name() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("plain");
        write(&dir, SKILL_MD, "\n  Just do it.\n");
        let skill = load(&dir);
        assert_eq!(skill.name, "plain");
        assert_eq!(skill.description, "");
        assert_eq!(skill.text, "Just do it.");
    }

    #[test]
    fn skill_md_with_malformed_front_matter_is_all_body() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("bad");
        let content = "---\nname: [oops\n---\nBody";
        write(&dir, SKILL_MD, content);
        let skill = load(&dir);
        assert_eq!(skill.name, "bad");
        assert_eq!(skill.text, content);

        let unclosed = tmp.path().join("unclosed");
        write(&unclosed, SKILL_MD, "---\nname: x\nBody");
        let skill = load(&unclosed);
        assert_eq!(skill.name, "unclosed");
        assert_eq!(skill.text, "---\nname: x\nBody");
    }

    #[test]
    fn front_matter_edge_cases() {
        assert_eq!(
            split_front_matter("\u{feff}---\r\nname: a\r\n---\r\nbody"),
            Some(("name: a\r\n", "body"))
        );
        assert_eq!(split_front_matter("---\n---\nbody"), Some(("", "body")));
        assert_eq!(split_front_matter("text\n---\nname: a\n---\n"), None);
        assert_eq!(split_front_matter("----\nname: a\n---\n"), None);

        let (meta, body) = parse_front_matter("---\n---\nbody");
        assert_eq!(meta, Some(Meta::default()));
        assert_eq!(body, "body");
        let (meta, _) = parse_front_matter("---\nname: \"a\n  b\"\n---\n");
        assert_eq!(meta.unwrap().name.as_deref(), Some("a b"));
        let (meta, body) = parse_front_matter("---\n- a list\n---\nbody");
        assert_eq!(meta, None);
        assert_eq!(body, "---\n- a list\n---\nbody");
    }

    #[test]
    fn prompt_txt_only() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("bare");
        write(&dir, PROMPT_TXT, "Bare prompt");
        let skill = load_skill(&dir, SkillScope::Workspace).unwrap();
        assert_eq!(skill.name, "bare");
        assert_eq!(skill.description, "");
        assert_eq!(skill.version, None);
        assert_eq!(skill.text, "Bare prompt");
        assert_eq!(skill.prompt_path, dir.join(PROMPT_TXT));
        assert_eq!(skill.scope, SkillScope::Workspace);
    }

    #[test]
    fn precedence_yaml_then_skill_md_then_prompt_txt() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("multi");
        write(&dir, PROMPT_TXT, "from txt");
        assert_eq!(load(&dir).text, "from txt");

        write(&dir, SKILL_MD, "---\nname: md\n---\nfrom md");
        let skill = load(&dir);
        assert_eq!(
            (skill.name.as_str(), skill.text.as_str()),
            ("md", "from md")
        );

        write(&dir, SKILL_YML, "name: yml\n");
        let skill = load(&dir);
        assert_eq!(
            (skill.name.as_str(), skill.text.as_str()),
            ("yml", "from txt")
        );

        write(&dir, SKILL_YAML, "name: yaml\n");
        assert_eq!(load(&dir).name, "yaml");
    }

    #[test]
    fn not_a_skill() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("nothing");
        write(&dir, "README.md", "hi");
        assert!(load_skill(&dir, SkillScope::Global).is_none());
        assert!(!is_skill_dir(&dir));
        // A directory named like a skill file does not count.
        fs::create_dir_all(dir.join(PROMPT_TXT)).unwrap();
        assert!(!is_skill_dir(&dir));
    }

    #[test]
    fn reading_is_lenient_and_capped() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("bytes");
        write(&dir, PROMPT_TXT, b"ok \xff\xfe end");
        assert_eq!(load(&dir).text, "ok \u{fffd}\u{fffd} end");

        let big = tmp.path().join("big");
        write(&big, PROMPT_TXT, vec![b'a'; MAX_FILE_BYTES as usize + 10]);
        assert_eq!(load(&big).text.len(), MAX_FILE_BYTES as usize);
    }

    #[test]
    fn relative_dirs_become_absolute() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("rel");
        write(&dir, PROMPT_TXT, "x");
        let cwd = std::env::current_dir().unwrap();
        let rel = pathdiff(&dir, &cwd);
        let skill = load(&rel);
        assert!(skill.directory.is_absolute());
        assert!(skill.prompt_path.is_absolute());
        assert!(skill.prompt_path.ends_with("rel/prompt.txt"));
    }

    /// `target` relative to `base` via `..` hops (both absolute).
    fn pathdiff(target: &Path, base: &Path) -> std::path::PathBuf {
        let mut rel = std::path::PathBuf::new();
        for _ in base.components().skip(1) {
            rel.push("..");
        }
        rel.join(target.strip_prefix("/").unwrap())
    }
}
