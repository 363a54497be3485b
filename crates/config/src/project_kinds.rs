//! What kind of project a workspace is, from the names at its top level.
//!
//! Runs before every turn (the prompt's project notes) and on `workspace.open`,
//! so it reads the root once and looks into subfolders only for a .NET
//! solution, skipping hidden, dependency and build folders: a `node_modules`
//! of thousands of entries used to be listed in full on every turn.

use std::ffi::{OsStr, OsString};
use std::fs::{self, DirEntry};
use std::path::{Path, PathBuf};

const DOTNET: [&str; 3] = ["sln", "slnx", "csproj"];
/// Folders never searched for a .NET project (dependencies, build output).
const SKIPPED: [&str; 10] = [
    "node_modules",
    "target",
    "bin",
    "obj",
    "dist",
    "build",
    "out",
    "vendor",
    "venv",
    "__pycache__",
];
/// Subfolders searched for a .NET project (in name order), and entries read
/// in each, at most.
const MAX_SUBFOLDERS: usize = 256;
const MAX_SUBFOLDER_ENTRIES: usize = 1024;

/// One top-level entry: its name and whether it is (or links to) a folder.
struct Entry {
    name: OsString,
    is_dir: bool,
}

/// Project kinds found at `root`, in the order git, dotnet, node, python, rust,
/// go, unity, vue.
pub fn project_kinds(root: &Path) -> Vec<String> {
    let entries = top_level(root);
    let file = |name: &str| {
        entries
            .iter()
            .any(|e| !e.is_dir && same_name(&e.name, name))
    };
    let dir = |name: &str| entries.iter().any(|e| e.is_dir && same_name(&e.name, name));
    let dotnet = entries.iter().any(|e| !e.is_dir && is_dotnet(&e.name))
        || searched_folders(&entries).any(|name| has_dotnet_file(&root.join(name)));
    let node = file("package.json");
    let vue =
        node && fs::read_to_string(root.join("package.json")).is_ok_and(|s| s.contains("\"vue\""));
    let checks = [
        // A worktree's `.git` is a file.
        ("git", entries.iter().any(|e| same_name(&e.name, ".git"))),
        ("dotnet", dotnet),
        ("node", node),
        (
            "python",
            ["pyproject.toml", "requirements.txt", "setup.py"]
                .iter()
                .any(|f| file(f)),
        ),
        ("rust", file("Cargo.toml")),
        ("go", file("go.mod")),
        ("unity", dir("Assets") && dir("ProjectSettings")),
        ("vue", vue),
    ];
    checks
        .into_iter()
        .filter(|(_, found)| *found)
        .map(|(kind, _)| kind.to_string())
        .collect()
}

/// Every path [`project_kinds`] of `root` depends on: the root (entries come
/// and go), `package.json` (its text) and the subfolders searched for .NET.
pub fn project_kind_sources(root: &Path) -> Vec<PathBuf> {
    let mut paths = vec![root.to_path_buf(), root.join("package.json")];
    paths.extend(searched_folders(&top_level(root)).map(|name| root.join(name)));
    paths
}

/// The root's entries, in name order.
fn top_level(root: &Path) -> Vec<Entry> {
    let Ok(read) = fs::read_dir(root) else {
        return Vec::new();
    };
    let mut entries: Vec<Entry> = read
        .flatten()
        .filter_map(|e| {
            Some(Entry {
                is_dir: is_dir(&e)?,
                name: e.file_name(),
            })
        })
        .collect();
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    entries
}

/// The subfolders searched for a .NET project.
fn searched_folders(entries: &[Entry]) -> impl Iterator<Item = &OsStr> {
    entries
        .iter()
        .filter(|e| e.is_dir && searched(&e.name))
        .take(MAX_SUBFOLDERS)
        .map(|e| e.name.as_os_str())
}

/// Whether a file name is `marker`; file systems that ignore case (macOS,
/// Windows) found `cargo.toml` as `Cargo.toml`, so the comparison does too.
fn same_name(name: &OsStr, marker: &str) -> bool {
    if cfg!(any(target_os = "macos", windows)) {
        name.eq_ignore_ascii_case(marker)
    } else {
        name == marker
    }
}

/// Whether the entry is a folder, following a symlink; `None` if it is
/// neither a folder nor a file (a dangling link, a socket).
fn is_dir(e: &DirEntry) -> Option<bool> {
    let kind = e.file_type().ok()?;
    let kind = if kind.is_symlink() {
        fs::metadata(e.path()).ok()?.file_type()
    } else {
        kind
    };
    (kind.is_dir() || kind.is_file()).then_some(kind.is_dir())
}

fn is_dotnet(name: &OsStr) -> bool {
    Path::new(name)
        .extension()
        .and_then(|x| x.to_str())
        .is_some_and(|x| DOTNET.iter().any(|want| x.eq_ignore_ascii_case(want)))
}

fn searched(folder: &OsStr) -> bool {
    let lossy = folder.to_string_lossy();
    !lossy.starts_with('.') && !SKIPPED.iter().any(|s| lossy.eq_ignore_ascii_case(s))
}

fn has_dotnet_file(dir: &Path) -> bool {
    let Ok(read) = fs::read_dir(dir) else {
        return false;
    };
    read.flatten()
        .take(MAX_SUBFOLDER_ENTRIES)
        .any(|e| is_dotnet(&e.file_name()) && is_dir(&e) == Some(false))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn touch(p: &Path) {
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, "").unwrap();
    }

    #[test]
    fn every_kind_is_found_from_the_top_level() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        assert!(project_kinds(root).is_empty());
        fs::create_dir(root.join(".git")).unwrap();
        touch(&root.join("App/App.csproj"));
        fs::write(
            root.join("package.json"),
            r#"{"dependencies":{"vue":"^3"}}"#,
        )
        .unwrap();
        touch(&root.join("requirements.txt"));
        touch(&root.join("Cargo.toml"));
        touch(&root.join("go.mod"));
        fs::create_dir(root.join("Assets")).unwrap();
        fs::create_dir(root.join("ProjectSettings")).unwrap();
        assert_eq!(
            project_kinds(root),
            [
                "git", "dotnet", "node", "python", "rust", "go", "unity", "vue"
            ]
        );
    }

    #[test]
    fn markers_must_have_the_right_type() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        // A folder named like a marker file, and files named like the Unity folders.
        fs::create_dir(root.join("Cargo.toml")).unwrap();
        fs::create_dir(root.join("App.sln")).unwrap();
        touch(&root.join("Assets"));
        touch(&root.join("ProjectSettings"));
        // A worktree's .git file.
        touch(&root.join(".git"));
        fs::write(root.join("package.json"), r#"{"name":"x"}"#).unwrap();
        assert_eq!(project_kinds(root), ["git", "node"]);
    }

    #[test]
    fn dotnet_is_looked_for_one_level_down_outside_dependency_folders() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        touch(&root.join("node_modules/pkg.csproj"));
        touch(&root.join(".hidden/X.sln"));
        touch(&root.join("bin/Y.csproj"));
        // Two levels down does not count.
        touch(&root.join("a/b/X.csproj"));
        assert!(project_kinds(root).is_empty());
        touch(&root.join("src/App.SLNX"));
        assert_eq!(project_kinds(root), ["dotnet"]);
    }

    #[cfg(unix)]
    #[test]
    fn names_that_are_not_utf8_are_still_looked_at() {
        use std::os::unix::ffi::OsStrExt;
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        let odd = std::ffi::OsStr::from_bytes(b"Pr\xffoj");
        touch(&root.join(odd).join("App.csproj"));
        assert_eq!(project_kinds(root), ["dotnet"]);
        let other = tempfile::tempdir().unwrap();
        touch(&other.path().join(std::ffi::OsStr::from_bytes(b"X\xff.sln")));
        assert_eq!(project_kinds(other.path()), ["dotnet"]);
    }

    #[cfg(unix)]
    #[test]
    fn linked_markers_count_and_dangling_links_do_not() {
        let tmp = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        let root = tmp.path();
        touch(&elsewhere.path().join("Cargo.toml"));
        fs::create_dir(elsewhere.path().join("lib")).unwrap();
        touch(&elsewhere.path().join("lib/Lib.csproj"));
        std::os::unix::fs::symlink(elsewhere.path().join("Cargo.toml"), root.join("Cargo.toml"))
            .unwrap();
        std::os::unix::fs::symlink(elsewhere.path().join("lib"), root.join("lib")).unwrap();
        std::os::unix::fs::symlink(root.join("missing"), root.join("go.mod")).unwrap();
        assert_eq!(project_kinds(root), ["dotnet", "rust"]);
    }
}
