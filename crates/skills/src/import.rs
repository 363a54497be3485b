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
mod tests {
    use std::fs::{self, File};
    use std::io::Write;
    use std::path::Path;

    use zip::ZipWriter;
    use zip::write::SimpleFileOptions;

    use super::*;
    use crate::catalog::list;

    const NONE: [&str; 0] = [];

    /// Builds a zip; names ending in '/' become directory entries.
    fn make_zip(path: &Path, entries: &[(&str, &str)]) {
        let mut zip = ZipWriter::new(File::create(path).unwrap());
        for (name, content) in entries {
            if name.ends_with('/') {
                zip.add_directory(*name, SimpleFileOptions::default())
                    .unwrap();
            } else {
                zip.start_file(*name, SimpleFileOptions::default()).unwrap();
                zip.write_all(content.as_bytes()).unwrap();
            }
        }
        zip.finish().unwrap();
    }

    /// Visible entries of the global dir, and no leftover staging dirs.
    fn contents(global: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(global)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert!(
            !names.iter().any(|n| n.starts_with(".import-")),
            "staging dir left behind: {names:?}"
        );
        names
    }

    fn setup() -> (tempfile::TempDir, std::path::PathBuf) {
        let tmp = tempfile::tempdir().unwrap();
        let global = tmp.path().join("home/skills");
        (tmp, global)
    }

    #[test]
    fn md_with_front_matter_name_becomes_skill_md() {
        let (tmp, global) = setup();
        let md = tmp.path().join("whatever.md");
        let content = "---\nname: Code Review\ndescription: Reviews\n---\nLook closely.\n";
        fs::write(&md, content).unwrap();
        assert_eq!(import(&global, &md).unwrap(), ["Code Review"]);
        assert_eq!(contents(&global), ["Code Review"]);
        let copied = fs::read_to_string(global.join("Code Review/SKILL.md")).unwrap();
        assert_eq!(copied, content);
        let entries = list(&global, None, NONE, &[]);
        assert_eq!(entries[0].skill.name, "Code Review");
        assert_eq!(entries[0].skill.description, "Reviews");
        assert_eq!(entries[0].skill.text, "Look closely.");
    }

    #[test]
    fn md_without_name_gets_prompt_txt_and_generated_yaml() {
        let (tmp, global) = setup();
        let md = tmp.path().join("my: notes.MD");
        fs::write(&md, "# Notes\nTake notes.\n").unwrap();
        assert_eq!(import(&global, &md).unwrap(), ["my: notes"]);
        assert_eq!(contents(&global), ["my- notes"]);
        let dir = global.join("my- notes");
        assert_eq!(
            fs::read_to_string(dir.join(PROMPT_TXT)).unwrap(),
            "# Notes\nTake notes.\n"
        );
        let entries = list(&global, None, NONE, &[]);
        let skill = &entries[0].skill;
        assert_eq!(skill.name, "my: notes");
        assert_eq!(skill.description, "Imported from my: notes.MD");
        assert_eq!(skill.text, "# Notes\nTake notes.\n");
        assert_eq!(skill.error, None);

        // Front matter without a name takes the same route.
        let md = tmp.path().join("desc.md");
        fs::write(&md, "---\ndescription: d\n---\nbody").unwrap();
        assert_eq!(import(&global, &md).unwrap(), ["desc"]);
        assert!(global.join("desc/skill.yaml").is_file());
    }

    #[test]
    fn wrong_extension_and_bad_paths() {
        let (tmp, global) = setup();
        let txt = tmp.path().join("notes.txt");
        fs::write(&txt, "x").unwrap();
        let err = import(&global, &txt).unwrap_err();
        assert!(matches!(err, ImportError::UnsupportedType(_)));
        assert_eq!(
            err.to_string(),
            format!(
                "Skill import failed: unsupported file type (expected .md or .zip): {}",
                txt.display()
            )
        );

        let missing = tmp.path().join("missing.md");
        let err = import(&global, &missing).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("Invalid skill import path: {}", missing.display())
        );

        let dir = tmp.path().join("dir.md");
        fs::create_dir(&dir).unwrap();
        assert!(matches!(
            import(&global, &dir),
            Err(ImportError::InvalidPath(_))
        ));
        assert!(!global.exists(), "nothing is created for a rejected path");
    }

    #[test]
    fn zip_with_root_skill() {
        let (tmp, global) = setup();
        let zip = tmp.path().join("pack.zip");
        make_zip(
            &zip,
            &[
                ("skill.yaml", "name: zipped\ndescription: From a zip\n"),
                ("prompt.txt", "Zipped prompt"),
                ("extra/notes.txt", "kept"),
            ],
        );
        assert_eq!(import(&global, &zip).unwrap(), ["zipped"]);
        assert_eq!(contents(&global), ["zipped"]);
        assert!(global.join("zipped/extra/notes.txt").is_file());
        let entries = list(&global, None, NONE, &[]);
        assert_eq!(entries[0].skill.text, "Zipped prompt");

        // Without a metadata name the zip stem names it.
        let zip = tmp.path().join("Stem Name.ZIP");
        make_zip(&zip, &[("SKILL.md", "Just a body")]);
        assert_eq!(import(&global, &zip).unwrap(), ["Stem Name"]);
        assert!(global.join("Stem Name/SKILL.md").is_file());
    }

    #[test]
    fn zip_with_single_top_level_dir() {
        let (tmp, global) = setup();
        let zip = tmp.path().join("download.zip");
        make_zip(
            &zip,
            &[
                ("tool/", ""),
                ("tool/SKILL.md", "---\nname: Tooling\n---\nUse tools."),
                ("__MACOSX/tool/._SKILL.md", "junk"),
            ],
        );
        assert_eq!(import(&global, &zip).unwrap(), ["Tooling"]);
        assert_eq!(contents(&global), ["Tooling"]);
        assert!(global.join("Tooling/SKILL.md").is_file());

        let zip = tmp.path().join("bare.zip");
        make_zip(&zip, &[("inner/prompt.txt", "p")]);
        assert_eq!(import(&global, &zip).unwrap(), ["bare"]);
        assert_eq!(
            fs::read_to_string(global.join("bare/prompt.txt")).unwrap(),
            "p"
        );
    }

    #[test]
    fn zip_with_several_skills_and_top_level_md() {
        let (tmp, global) = setup();
        let zip = tmp.path().join("bundle.zip");
        make_zip(
            &zip,
            &[
                ("a/prompt.txt", "A"),
                ("b/skill.yaml", "name: Bee\n"),
                ("b/prompt.txt", "B"),
                ("notes/readme.txt", "not a skill"),
                ("extra.md", "Extra body"),
                ("named.md", "---\nname: Named\n---\nNamed body"),
                (".hidden/prompt.txt", "skipped"),
            ],
        );
        assert_eq!(
            import(&global, &zip).unwrap(),
            ["a", "Bee", "extra", "Named"]
        );
        assert_eq!(contents(&global), ["Bee", "Named", "a", "extra"]);
        let entries = list(&global, None, NONE, &[]);
        let texts: Vec<_> = entries
            .iter()
            .map(|e| (e.skill.name.as_str(), e.skill.text.as_str()))
            .collect();
        assert_eq!(
            texts,
            [
                ("a", "A"),
                ("Bee", "B"),
                ("extra", "Extra body"),
                ("Named", "Named body")
            ]
        );
    }

    #[test]
    fn zip_slip_entry_is_rejected() {
        let (tmp, global) = setup();
        let zip = tmp.path().join("evil.zip");
        make_zip(
            &zip,
            &[("ok/prompt.txt", "fine"), ("../../evil.txt", "pwned")],
        );
        let err = import(&global, &zip).unwrap_err();
        assert!(matches!(err, ImportError::UnsafeEntry(_)), "{err}");
        assert_eq!(
            err.to_string(),
            "Skill import failed: unsafe path in archive: ../../evil.txt"
        );
        assert!(contents(&global).is_empty());
        assert!(!tmp.path().join("evil.txt").exists());
        assert!(!tmp.path().join("home/evil.txt").exists());

        // A rooted name is made relative (zip's enclosed_name), so it lands
        // inside the staging dir like any other entry.
        let zip = tmp.path().join("abs.zip");
        make_zip(&zip, &[("/rooted/prompt.txt", "p")]);
        assert_eq!(import(&global, &zip).unwrap(), ["abs"]);
        assert!(global.join("abs/prompt.txt").is_file());
        assert!(!Path::new("/rooted").exists());
    }

    #[test]
    fn existing_skill_aborts_the_whole_import() {
        let (tmp, global) = setup();
        fs::create_dir_all(global.join("Lint")).unwrap();
        fs::write(global.join("Lint/prompt.txt"), "old").unwrap();
        let zip = tmp.path().join("bundle.zip");
        make_zip(
            &zip,
            &[("fresh/prompt.txt", "new"), ("lint/prompt.txt", "new lint")],
        );
        let err = import(&global, &zip).unwrap_err();
        assert_eq!(
            err.to_string(),
            "Skill import failed: skill 'lint' already exists"
        );
        assert_eq!(contents(&global), ["Lint"]);
        assert_eq!(
            fs::read_to_string(global.join("Lint/prompt.txt")).unwrap(),
            "old"
        );

        // A skill's name counts too, whatever its directory is called.
        fs::create_dir_all(global.join("dir")).unwrap();
        fs::write(global.join("dir/skill.yaml"), "name: Docs\n").unwrap();
        let md = tmp.path().join("docs.md");
        fs::write(&md, "Docs").unwrap();
        assert!(matches!(
            import(&global, &md),
            Err(ImportError::AlreadyExists(name)) if name == "docs"
        ));
        assert_eq!(contents(&global), ["Lint", "dir"]);
    }

    #[test]
    fn duplicate_names_within_one_archive() {
        let (tmp, global) = setup();
        let zip = tmp.path().join("dup.zip");
        make_zip(
            &zip,
            &[
                ("x/skill.yaml", "name: same\n"),
                ("y/skill.yaml", "name: Same\n"),
            ],
        );
        assert!(matches!(
            import(&global, &zip),
            Err(ImportError::AlreadyExists(name)) if name == "Same"
        ));
        assert!(contents(&global).is_empty());
    }

    #[test]
    fn archive_without_skills_or_broken() {
        let (tmp, global) = setup();
        let zip = tmp.path().join("empty.zip");
        make_zip(&zip, &[("docs/readme.txt", "x"), ("notes.txt", "y")]);
        let err = import(&global, &zip).unwrap_err();
        assert_eq!(
            err.to_string(),
            "Skill import failed: the archive contains no skills"
        );
        assert!(contents(&global).is_empty());

        let garbage = tmp.path().join("garbage.zip");
        fs::write(&garbage, "not a zip").unwrap();
        assert!(matches!(
            import(&global, &garbage),
            Err(ImportError::InvalidArchive(_))
        ));
        assert!(contents(&global).is_empty());
    }

    #[test]
    fn archive_caps() {
        let (tmp, global) = setup();
        let zip = tmp.path().join("many.zip");
        make_zip(&zip, &[("a/prompt.txt", "1"), ("b/prompt.txt", "2")]);
        let limits = Limits {
            max_bytes: 1024,
            max_entries: 1,
        };
        let err = import_with_limits(&global, &zip, limits).unwrap_err();
        assert!(matches!(err, ImportError::TooManyEntries(1)), "{err}");

        let zip = tmp.path().join("big.zip");
        let big = "z".repeat(2048);
        make_zip(&zip, &[("prompt.txt", big.as_str())]);
        let limits = Limits {
            max_bytes: 1024,
            max_entries: 10,
        };
        let err = import_with_limits(&global, &zip, limits).unwrap_err();
        assert!(matches!(err, ImportError::TooLarge(1024)), "{err}");
        assert!(contents(&global).is_empty());
        assert_eq!(
            ImportError::TooLarge(crate::MAX_ARCHIVE_BYTES).to_string(),
            "Skill import failed: the archive is too large (over 100 MiB uncompressed)"
        );
    }

    #[test]
    fn sanitizing_directory_names() {
        let ok = |s: &str| sanitize_dir_name(s).unwrap();
        assert_eq!(ok("  Code Review "), "Code Review");
        assert_eq!(ok("a/b\\c"), "a-b-c");
        assert_eq!(ok("../etc"), "-etc");
        assert_eq!(ok("..hidden"), "hidden");
        assert_eq!(ok(".x."), "x");
        assert_eq!(ok("a..b"), "a.b");
        assert_eq!(ok("émoji✓"), "-moji-");
        assert_eq!(ok(&"n".repeat(300)).len(), MAX_DIR_NAME_CHARS);
        for bad in ["", "   ", "..", ".", " . "] {
            assert!(
                matches!(sanitize_dir_name(bad), Err(ImportError::InvalidName(_))),
                "{bad:?}"
            );
        }
    }
}
