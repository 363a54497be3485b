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
