//! Workspace root detection, project kinds and `<ws>/.seekclaw/` initialisation
//! (reference §5.6).

use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::error::{ConfigError, Result};
use crate::home::{Home, user_home};

/// Files or directories whose presence makes a directory a workspace root
/// (besides `.seekclaw`, `*.sln` and `*.slnx`, which need extra checks).
const ROOT_MARKERS: [&str; 5] = [
    ".git",
    "package.json",
    "pyproject.toml",
    "Cargo.toml",
    "go.mod",
];

/// Sub-directories of `<ws>/.seekclaw/` created by [`init_workspace`], in order.
const WORKSPACE_DIRS: [&str; 7] = [
    "prompts", "memory", "cache", "logs", "skills", "mcp", "docs",
];

/// Lines [`init_workspace`] makes sure `.gitignore` has.
const GITIGNORE_LINES: [&str; 4] = [".seekclaw/", ".session/", ".cache/", "logs/"];
const GITIGNORE_HEADING: &str = "# SeekClaw";

/// Walks up from `start` (absolute; see [`crate::normalize_path`]) to the first
/// directory holding a project marker: `.git`, `.seekclaw`, `package.json`,
/// `pyproject.toml`, `Cargo.toml`, `go.mod`, `*.sln` or `*.slnx`. A `.seekclaw`
/// that is the seekclaw home (or `~/.seekclaw`) is not a marker, and the walk
/// stops below the user's home directory, so unrelated folders under `~` never
/// merge into one scope. No match: `start` is the root.
pub fn detect_root(start: &Path, home: &Home) -> PathBuf {
    detect_root_in(start, home, user_home().as_deref())
}

fn detect_root_in(start: &Path, home: &Home, user_home: Option<&Path>) -> PathBuf {
    let mut ignored_dirs = vec![home.root().to_path_buf()];
    if let Some(u) = user_home {
        ignored_dirs.push(u.join(".seekclaw"));
    }
    let ignored = SamePathSet::new(ignored_dirs);
    let stop = user_home.map(|u| SamePathSet::new(vec![u.to_path_buf()]));

    let mut dir = Some(start);
    while let Some(d) = dir {
        if stop.as_ref().is_some_and(|s| s.contains(d)) {
            break;
        }
        if is_root(d, &ignored) {
            return d.to_path_buf();
        }
        dir = d.parent().filter(|p| !p.as_os_str().is_empty());
    }
    start.to_path_buf()
}

/// One directory listing per directory: the markers are looked up by name
/// instead of with a `stat` each (the walk runs on every scoped request).
fn is_root(dir: &Path, ignored_seekclaw: &SamePathSet) -> bool {
    let Ok(entries) = fs::read_dir(dir) else {
        return false;
    };
    entries.flatten().any(|e| {
        let name = e.file_name();
        let Some(name) = name.to_str() else {
            return false;
        };
        // A symlink counts where its target exists, as `Path::exists` says.
        let target_exists = || !e.file_type().is_ok_and(|t| t.is_symlink()) || e.path().exists();
        if ROOT_MARKERS.iter().any(|m| same_name(m, name)) {
            return target_exists();
        }
        if same_name(".seekclaw", name) {
            let dot = e.path();
            return dot.is_dir() && !ignored_seekclaw.contains(&dot);
        }
        Path::new(name)
            .extension()
            .and_then(|x| x.to_str())
            .is_some_and(|x| x.eq_ignore_ascii_case("sln") || x.eq_ignore_ascii_case("slnx"))
            && e.path().is_file()
    })
}

/// File names as the platform's default file systems compare them.
fn same_name(marker: &str, name: &str) -> bool {
    if cfg!(any(target_os = "macos", windows)) {
        marker.eq_ignore_ascii_case(name)
    } else {
        marker == name
    }
}

/// Paths compared lexically and, where they exist, as the same file (the home
/// may be reached through a link). On Unix that is one `stat` per lookup
/// instead of resolving every component of the path.
struct SamePathSet {
    paths: Vec<(PathBuf, Option<FileId>)>,
}

impl SamePathSet {
    fn new(paths: Vec<PathBuf>) -> Self {
        let paths = paths
            .into_iter()
            .map(|p| {
                let id = FileId::of(&p);
                (p, id)
            })
            .collect();
        SamePathSet { paths }
    }

    fn contains(&self, p: &Path) -> bool {
        if self.paths.iter().any(|(lex, _)| lex == p) {
            return true;
        }
        if self.paths.iter().all(|(_, id)| id.is_none()) {
            return false;
        }
        let Some(id) = FileId::of(p) else {
            return false;
        };
        self.paths.iter().any(|(_, i)| i.as_ref() == Some(&id))
    }
}

/// What makes two paths the same file.
#[derive(PartialEq)]
struct FileId {
    #[cfg(unix)]
    dev_ino: (u64, u64),
    #[cfg(not(unix))]
    canonical: PathBuf,
}

impl FileId {
    #[cfg(unix)]
    fn of(p: &Path) -> Option<FileId> {
        use std::os::unix::fs::MetadataExt;
        let m = fs::metadata(p).ok()?;
        Some(FileId {
            dev_ino: (m.dev(), m.ino()),
        })
    }

    #[cfg(not(unix))]
    fn of(p: &Path) -> Option<FileId> {
        Some(FileId {
            canonical: fs::canonicalize(p).ok()?,
        })
    }
}

/// What makes `root` too broad to be a workspace nobody named (the
/// filesystem root, the user's home or a parent of it), if anything; the
/// daemon, `run`, `serve` and the terminal UI all refuse such a root.
pub fn too_broad_for_workspace(root: &Path, user_home: Option<&Path>) -> Option<&'static str> {
    let real = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let root = real(root);
    if root.parent().is_none() {
        return Some("the filesystem root");
    }
    let home = real(user_home?);
    if root == home {
        Some("your home directory")
    } else if home.starts_with(&root) {
        Some("a parent of your home directory")
    } else {
        None
    }
}

/// The workspace's display name: its folder name (the whole path for `/`).
pub fn workspace_name(root: &Path) -> String {
    match root.file_name() {
        Some(name) => name.to_string_lossy().into_owned(),
        None => root.to_string_lossy().into_owned(),
    }
}

/// Creates what is missing of `.seekclaw/{prompts,memory,cache,logs,skills,mcp,docs}`
/// and `.seekclaw/config.json` (`{}`), then adds the missing ignore lines to
/// `.gitignore` under a `# SeekClaw` heading. Returns what it created or changed,
/// relative to `root` with `/` separators, in order (`".seekclaw"`,
/// `".seekclaw/prompts"`, …, `".gitignore (created)"` or `".gitignore (updated)"`).
/// A second call returns nothing.
pub fn init_workspace(root: &Path) -> Result<Vec<String>> {
    let init = init_workspace_with(root, true)?;
    let mut created = init.created;
    if let Some(edit) = init.gitignore {
        created.push(
            if edit.created {
                ".gitignore (created)"
            } else {
                ".gitignore (updated)"
            }
            .to_string(),
        );
    }
    Ok(created)
}

/// What [`init_workspace_with`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WorkspaceInit {
    /// What it created, relative to the root with `/` separators, in order
    /// (`".seekclaw"`, `".seekclaw/prompts"`, …, `".seekclaw/config.json"`).
    pub created: Vec<String>,
    /// What it added to `.gitignore`, if anything.
    pub gitignore: Option<GitignoreEdit>,
}

/// Lines appended to a project's `.gitignore`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitignoreEdit {
    /// The file did not exist before.
    pub created: bool,
    /// The lines added, in order (the `# SeekClaw` heading when it was
    /// added; blank separator lines left out).
    pub lines: Vec<String>,
    /// A blank line was added before them (the file had content).
    pub separated: bool,
}

/// [`init_workspace`], saying exactly what it added to `.gitignore`; with
/// `gitignore` false, `.gitignore` is left alone.
pub fn init_workspace_with(root: &Path, gitignore: bool) -> Result<WorkspaceInit> {
    let mut created = Vec::new();
    let dot = root.join(".seekclaw");
    if create_dir_if_missing(&dot)? {
        created.push(".seekclaw".to_string());
    }
    for sub in WORKSPACE_DIRS {
        if create_dir_if_missing(&dot.join(sub))? {
            created.push(format!(".seekclaw/{sub}"));
        }
    }
    let config = dot.join("config.json");
    if create_file_if_missing(&config, b"{}\n")? {
        created.push(".seekclaw/config.json".to_string());
    }
    let gitignore = if gitignore {
        update_gitignore(&root.join(".gitignore"))?
    } else {
        None
    };
    Ok(WorkspaceInit { created, gitignore })
}

fn create_dir_if_missing(dir: &Path) -> Result<bool> {
    match fs::create_dir(dir) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists && dir.is_dir() => Ok(false),
        Err(e) => Err(ConfigError::io(dir, e)),
    }
}

/// `create_new`, so a file that appears concurrently is never clobbered.
fn create_file_if_missing(path: &Path, content: &[u8]) -> Result<bool> {
    match OpenOptions::new().write(true).create_new(true).open(path) {
        Ok(mut f) => {
            f.write_all(content).map_err(|e| ConfigError::io(path, e))?;
            Ok(true)
        }
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(ConfigError::io(path, e)),
    }
}

/// Appends only the missing lines, keeping the file's own content and line endings.
fn update_gitignore(path: &Path) -> Result<Option<GitignoreEdit>> {
    let existing = match fs::read(path) {
        Ok(bytes) => Some(String::from_utf8_lossy(&bytes).into_owned()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(ConfigError::io(path, e)),
    };
    let text = existing.as_deref().unwrap_or("");
    let present: Vec<&str> = text.lines().map(ignore_pattern).collect();
    let missing: Vec<&str> = GITIGNORE_LINES
        .into_iter()
        .filter(|line| !present.contains(&ignore_pattern(line)))
        .collect();
    if missing.is_empty() {
        return Ok(None);
    }

    let eol = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let mut add = String::new();
    if !text.is_empty() {
        if !text.ends_with('\n') {
            add.push_str(eol);
        }
        add.push_str(eol);
    }
    let mut lines = Vec::new();
    if !text.lines().any(|l| l.trim() == GITIGNORE_HEADING) {
        lines.push(GITIGNORE_HEADING.to_string());
    }
    lines.extend(missing.into_iter().map(str::to_string));
    for line in &lines {
        add.push_str(line);
        add.push_str(eol);
    }
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| ConfigError::io(path, e))?;
    file.write_all(add.as_bytes())
        .map_err(|e| ConfigError::io(path, e))?;
    Ok(Some(GitignoreEdit {
        created: existing.is_none(),
        lines,
        separated: !text.is_empty(),
    }))
}

/// `/logs/`, `logs/` and `logs` all ignore the same thing for our purpose.
fn ignore_pattern(line: &str) -> &str {
    line.trim().trim_start_matches('/').trim_end_matches('/')
}

#[cfg(test)]
#[path = "workspace_tests.rs"]
mod tests;
