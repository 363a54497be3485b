//! Importing a `.md` file or a `.zip` archive into the global skills root.
//!
//! Everything is staged in a temp directory inside the global root first;
//! only when every target name is free are the staged directories renamed
//! into place (same filesystem, so each move is atomic). The staging
//! directory is removed on every path, success or error.

use std::collections::HashSet;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::archive::{self, Limits};
use crate::catalog::{discover, fold};
use crate::error::ImportError;
use crate::skill::{
    PROMPT_TXT, SKILL_MD, SKILL_YAML, SkillScope, is_skill_dir, one_line, parse_dir,
    parse_front_matter, read_lenient,
};

/// Longest directory name an import creates (well under common 255-byte
/// filesystem limits; sanitized names are ASCII).
const MAX_DIR_NAME_CHARS: usize = 100;

/// Directory macOS's archiver adds next to the real content.
const MACOS_METADATA_DIR: &str = "__MACOSX";

/// A skill staged for installation.
#[derive(Debug)]
struct Planned {
    /// The name the catalog will list it under.
    name: String,
    /// Its directory name under the global root.
    dir_name: String,
    /// Where it sits in the staging directory.
    staged: PathBuf,
}

/// The `skill.yaml` written for a markdown file without a name.
#[derive(Serialize)]
struct GeneratedMeta<'a> {
    name: &'a str,
    description: String,
}

/// Imports the `.md` file or `.zip` archive at `path` into `global_dir`,
/// returning the names of the imported skills. Either all skills of the
/// import are installed or none.
pub fn import(global_dir: &Path, path: &Path) -> Result<Vec<String>, ImportError> {
    import_with_limits(global_dir, path, Limits::default())
}

pub(crate) fn import_with_limits(
    global_dir: &Path,
    path: &Path,
    limits: Limits,
) -> Result<Vec<String>, ImportError> {
    let is_file = fs::metadata(path).map(|m| m.is_file()).unwrap_or(false);
    if !is_file {
        return Err(ImportError::InvalidPath(path.to_path_buf()));
    }
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let is_zip = match extension.as_deref() {
        Some("md") => false,
        Some("zip") => true,
        _ => return Err(ImportError::UnsupportedType(path.to_path_buf())),
    };
    fs::create_dir_all(global_dir)?;
    // Dropping the TempDir removes it, including on every `?` below.
    let staging = tempfile::Builder::new()
        .prefix(".import-")
        .tempdir_in(global_dir)?;
    let planned = if is_zip {
        stage_zip(path, staging.path(), limits)?
    } else {
        vec![stage_md(path, staging.path(), 0)?]
    };
    // `staging` drops here; a failed cleanup must not fail a done import.
    install(global_dir, planned)
}

/// Stages one markdown file as a skill in `staging/md-<n>`.
fn stage_md(md_path: &Path, staging: &Path, n: usize) -> Result<Planned, ImportError> {
    let content = read_lenient(md_path)?;
    let (meta, _) = parse_front_matter(&content);
    let dir = staging.join(format!("md-{n}"));
    fs::create_dir(&dir)?;
    if let Some(name) = meta.and_then(|m| m.name) {
        let dir_name = sanitize_dir_name(&name)?;
        fs::copy(md_path, dir.join(SKILL_MD))?;
        return Ok(Planned {
            name,
            dir_name,
            staged: dir,
        });
    }
    let stem = file_stem(md_path);
    let dir_name = sanitize_dir_name(&stem)?;
    fs::copy(md_path, dir.join(PROMPT_TXT))?;
    let file_name = md_path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // Serialized, not formatted, so names with ':' or quotes stay valid YAML.
    let yaml = yaml_serde::to_string(&GeneratedMeta {
        name: stem.trim(),
        description: format!("Imported from {file_name}"),
    })
    .map_err(io::Error::other)?;
    fs::write(dir.join(SKILL_YAML), yaml)?;
    Ok(Planned {
        name: one_line(&stem).unwrap_or_else(|| dir_name.clone()),
        dir_name,
        staged: dir,
    })
}

/// Extracts the archive into `staging/archive` and plans its skills: the
/// root (or its single top-level directory) as one skill, else each skill
/// sub-directory and each top-level `.md` file.
fn stage_zip(zip_path: &Path, staging: &Path, limits: Limits) -> Result<Vec<Planned>, ImportError> {
    let root = staging.join("archive");
    fs::create_dir(&root)?;
    archive::extract(zip_path, &root, limits)?;
    let base = if is_skill_dir(&root) {
        root.clone()
    } else {
        single_top_dir(&root)?.unwrap_or_else(|| root.clone())
    };
    if is_skill_dir(&base) {
        return Ok(vec![plan_dir(&base, &file_stem(zip_path))?]);
    }
    let mut planned = Vec::new();
    let mut md_count = 0;
    for path in visible_entries(&base)? {
        if path.is_dir() {
            if is_skill_dir(&path) {
                let fallback = file_name(&path);
                planned.push(plan_dir(&path, &fallback)?);
            }
        } else if path.is_file() && has_md_extension(&path) {
            planned.push(stage_md(&path, staging, md_count)?);
            md_count += 1;
        }
    }
    if planned.is_empty() {
        return Err(ImportError::NoSkills);
    }
    Ok(planned)
}

/// Plans an extracted skill directory, named by its metadata or `fallback`.
fn plan_dir(dir: &Path, fallback: &str) -> Result<Planned, ImportError> {
    let meta_name = parse_dir(dir).and_then(|p| p.meta.name);
    let dir_name = sanitize_dir_name(meta_name.as_deref().unwrap_or(fallback))?;
    Ok(Planned {
        // Without a metadata name the catalog names it after its directory.
        name: meta_name.unwrap_or_else(|| dir_name.clone()),
        dir_name,
        staged: dir.to_path_buf(),
    })
}

/// Checks every target first, then moves all staged directories into
/// `global_dir`; a failed move undoes the earlier ones.
fn install(global_dir: &Path, planned: Vec<Planned>) -> Result<Vec<String>, ImportError> {
    let mut taken_dirs: HashSet<String> = visible_entries(global_dir)?
        .iter()
        .map(|p| fold(&file_name(p)))
        .collect();
    // Names too: a skill's directory need not be named after it.
    let mut taken_names: HashSet<String> = discover(global_dir, SkillScope::Global)
        .iter()
        .map(|s| fold(&s.name))
        .collect();
    for plan in &planned {
        let dir_free = taken_dirs.insert(fold(&plan.dir_name));
        let name_free = taken_names.insert(fold(&plan.name));
        if !dir_free || !name_free {
            return Err(ImportError::AlreadyExists(plan.name.clone()));
        }
    }
    let mut moved = Vec::new();
    let mut names = Vec::new();
    for plan in planned {
        let target = global_dir.join(&plan.dir_name);
        if let Err(e) = fs::rename(&plan.staged, &target) {
            for dir in &moved {
                // Best effort: these are directories this call just created.
                let _ = fs::remove_dir_all(dir);
            }
            return Err(e.into());
        }
        moved.push(target);
        names.push(plan.name);
    }
    Ok(names)
}

/// A directory name made from a skill name: path separators and anything
/// outside `[A-Za-z0-9._ -]` become '-', no `..`, no leading or trailing
/// dots or spaces, at most [`MAX_DIR_NAME_CHARS`].
pub(crate) fn sanitize_dir_name(name: &str) -> Result<String, ImportError> {
    let mut s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | ' ' | '-') {
                c
            } else {
                '-'
            }
        })
        .collect();
    while s.contains("..") {
        s = s.replace("..", ".");
    }
    let trim = |s: &str| {
        s.trim_matches(|c: char| c == '.' || c.is_whitespace())
            .to_string()
    };
    let s = trim(&s);
    let s = trim(&s.chars().take(MAX_DIR_NAME_CHARS).collect::<String>());
    if s.is_empty() {
        return Err(ImportError::InvalidName(name.to_string()));
    }
    Ok(s)
}

/// The only visible entry of `dir` when it is a directory: zips are usually
/// made from one folder.
fn single_top_dir(dir: &Path) -> Result<Option<PathBuf>, ImportError> {
    let mut entries = visible_entries(dir)?;
    Ok(match (entries.pop(), entries.is_empty()) {
        (Some(only), true) if only.is_dir() => Some(only),
        _ => None,
    })
}

/// Entries of `dir` minus hidden ones and macOS archive metadata, sorted
/// so imports are deterministic.
fn visible_entries(dir: &Path) -> Result<Vec<PathBuf>, ImportError> {
    let mut paths = Vec::new();
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if !name.starts_with('.') && name != MACOS_METADATA_DIR {
            paths.push(entry.path());
        }
    }
    paths.sort();
    Ok(paths)
}

fn has_md_extension(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("md"))
}

fn file_stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

#[cfg(test)]
#[path = "import_tests.rs"]
mod tests;
