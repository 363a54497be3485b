use std::fs;
use std::path::Path;

use super::*;

fn touch(p: &Path) {
    if let Some(parent) = p.parent() {
        fs::create_dir_all(parent).unwrap();
    }
    fs::write(p, "").unwrap();
}

/// A fake user home inside a temp dir, so the walk never sees the real `/tmp`.
struct Fixture {
    _tmp: tempfile::TempDir,
    user: PathBuf,
    home: Home,
}

fn fixture() -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    let user = fs::canonicalize(tmp.path()).unwrap().join("user");
    fs::create_dir_all(&user).unwrap();
    let home = Home::at(user.join(".seekclaw"));
    home.ensure().unwrap();
    Fixture {
        _tmp: tmp,
        user,
        home,
    }
}

#[test]
fn detect_root_from_subdir_finds_repo_root() {
    let f = fixture();
    let repo = f.user.join("code/app");
    fs::create_dir_all(repo.join(".git")).unwrap();
    let deep = repo.join("src/a/b");
    fs::create_dir_all(&deep).unwrap();
    assert_eq!(detect_root_in(&deep, &f.home, Some(&f.user)), repo);
    assert_eq!(detect_root_in(&repo, &f.home, Some(&f.user)), repo);
}

#[test]
fn nearest_marker_wins() {
    let f = fixture();
    let repo = f.user.join("mono");
    fs::create_dir_all(repo.join(".git")).unwrap();
    touch(&repo.join("pkgs/web/package.json"));
    let start = repo.join("pkgs/web/src");
    fs::create_dir_all(&start).unwrap();
    assert_eq!(
        detect_root_in(&start, &f.home, Some(&f.user)),
        repo.join("pkgs/web")
    );
}

#[test]
fn each_marker_counts() {
    let f = fixture();
    for (i, marker) in [
        "package.json",
        "pyproject.toml",
        "Cargo.toml",
        "go.mod",
        "App.sln",
        "App.SLNX",
    ]
    .into_iter()
    .enumerate()
    {
        let root = f.user.join(format!("p{i}"));
        touch(&root.join(marker));
        let start = root.join("x");
        fs::create_dir_all(&start).unwrap();
        assert_eq!(
            detect_root_in(&start, &f.home, Some(&f.user)),
            root,
            "{marker}"
        );
    }
    let ws = f.user.join("ws");
    fs::create_dir_all(ws.join(".seekclaw")).unwrap();
    fs::create_dir_all(ws.join("deep")).unwrap();
    assert_eq!(detect_root_in(&ws.join("deep"), &f.home, Some(&f.user)), ws);
}

#[test]
fn home_seekclaw_marker_is_ignored_and_walk_stops_at_user_home() {
    let f = fixture();
    // `~/.seekclaw` exists, and `~` even has a `.git` (dotfiles repo): neither
    // may turn a plain folder under `~` into part of one big scope.
    fs::create_dir_all(f.user.join(".git")).unwrap();
    let plain = f.user.join("notes/2026");
    fs::create_dir_all(&plain).unwrap();
    assert_eq!(detect_root_in(&plain, &f.home, Some(&f.user)), plain);
    assert_eq!(detect_root_in(&f.user, &f.home, Some(&f.user)), f.user);
}

#[test]
fn seekclaw_home_elsewhere_is_ignored_too() {
    let f = fixture();
    // SEEKCLAW_HOME pointing at `<dir>/.seekclaw`, not `~/.seekclaw`.
    let user = f.user.parent().unwrap();
    let outside = user.join("other");
    let home = Home::at(outside.join(".seekclaw"));
    home.ensure().unwrap();
    let start = outside.join("sub");
    fs::create_dir_all(&start).unwrap();
    assert_eq!(detect_root_in(&start, &home, Some(user)), start);
    // A real workspace `.seekclaw` right there still counts.
    let ws = user.join("ws");
    fs::create_dir_all(ws.join(".seekclaw")).unwrap();
    fs::create_dir_all(ws.join("sub")).unwrap();
    assert_eq!(detect_root_in(&ws.join("sub"), &home, Some(user)), ws);
}

#[cfg(unix)]
#[test]
fn seekclaw_home_through_symlink_is_ignored() {
    let f = fixture();
    let link = f.user.parent().unwrap().join("link-home");
    std::os::unix::fs::symlink(&f.user, &link).unwrap();
    let home = Home::at(link.join(".seekclaw"));
    let start = f.user.join("docs");
    fs::create_dir_all(&start).unwrap();
    // The user home itself is still the stop, so check the marker logic directly.
    let ignored = SamePathSet::new(vec![home.root().to_path_buf()]);
    assert!(!is_root(&f.user, &ignored));
    assert_eq!(detect_root_in(&start, &home, Some(&f.user)), start);
}

#[test]
fn workspace_names() {
    assert_eq!(workspace_name(Path::new("/home/u/my-app")), "my-app");
    assert_eq!(workspace_name(Path::new("/")), "/");
}

#[test]
fn init_workspace_creates_layout_and_is_idempotent() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let created = init_workspace(root).unwrap();
    assert_eq!(
        created,
        [
            ".seekclaw",
            ".seekclaw/prompts",
            ".seekclaw/memory",
            ".seekclaw/cache",
            ".seekclaw/logs",
            ".seekclaw/skills",
            ".seekclaw/mcp",
            ".seekclaw/docs",
            ".seekclaw/config.json",
            ".gitignore (created)",
        ]
    );
    assert_eq!(
        fs::read_to_string(root.join(".seekclaw/config.json")).unwrap(),
        "{}\n"
    );
    assert!(!root.join(".seekclaw/memory/MEMORY.md").exists());
    assert_eq!(
        fs::read_to_string(root.join(".gitignore")).unwrap(),
        "# SeekClaw\n.seekclaw/\n.session/\n.cache/\nlogs/\n"
    );
    assert!(init_workspace(root).unwrap().is_empty());
}

#[test]
fn init_workspace_fills_only_what_is_missing() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    fs::create_dir_all(root.join(".seekclaw/skills")).unwrap();
    fs::write(root.join(".seekclaw/config.json"), "{\"mode\":\"plan\"}").unwrap();
    fs::write(root.join(".gitignore"), "target\n/logs\n.cache/").unwrap();
    let created = init_workspace(root).unwrap();
    assert_eq!(
        created,
        [
            ".seekclaw/prompts",
            ".seekclaw/memory",
            ".seekclaw/cache",
            ".seekclaw/logs",
            ".seekclaw/mcp",
            ".seekclaw/docs",
            ".gitignore (updated)",
        ]
    );
    assert_eq!(
        fs::read_to_string(root.join(".seekclaw/config.json")).unwrap(),
        "{\"mode\":\"plan\"}"
    );
    assert_eq!(
        fs::read_to_string(root.join(".gitignore")).unwrap(),
        "target\n/logs\n.cache/\n\n# SeekClaw\n.seekclaw/\n.session/\n"
    );
    assert!(init_workspace(root).unwrap().is_empty());
}

#[test]
fn init_says_which_gitignore_lines_it_added_and_can_leave_the_file_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    fs::write(root.join(".gitignore"), "target\n# SeekClaw\nlogs/\n").unwrap();
    let init = init_workspace_with(root, false).unwrap();
    assert_eq!(init.gitignore, None);
    assert_eq!(init.created.len(), 9);
    assert_eq!(
        fs::read_to_string(root.join(".gitignore")).unwrap(),
        "target\n# SeekClaw\nlogs/\n"
    );
    let init = init_workspace_with(root, true).unwrap();
    assert!(init.created.is_empty());
    assert_eq!(
        init.gitignore,
        Some(GitignoreEdit {
            created: false,
            lines: vec![".seekclaw/".into(), ".session/".into(), ".cache/".into()],
            separated: true,
        })
    );
}

#[test]
fn gitignore_keeps_crlf() {
    let tmp = tempfile::tempdir().unwrap();
    fs::write(tmp.path().join(".gitignore"), "bin\r\n").unwrap();
    init_workspace(tmp.path()).unwrap();
    assert_eq!(
        fs::read_to_string(tmp.path().join(".gitignore")).unwrap(),
        "bin\r\n\r\n# SeekClaw\r\n.seekclaw/\r\n.session/\r\n.cache/\r\nlogs/\r\n"
    );
}

#[cfg(unix)]
#[test]
fn a_marker_that_is_a_symlink_counts_only_when_its_target_exists() {
    let f = fixture();
    let dangling = f.user.join("dangling");
    fs::create_dir_all(dangling.join("sub")).unwrap();
    std::os::unix::fs::symlink(f.user.join("nowhere"), dangling.join("package.json")).unwrap();
    let start = dangling.join("sub");
    assert_eq!(detect_root_in(&start, &f.home, Some(&f.user)), start);

    let linked = f.user.join("linked");
    fs::create_dir_all(linked.join("sub")).unwrap();
    fs::create_dir_all(f.user.join("real-git")).unwrap();
    std::os::unix::fs::symlink(f.user.join("real-git"), linked.join(".git")).unwrap();
    assert_eq!(
        detect_root_in(&linked.join("sub"), &f.home, Some(&f.user)),
        linked
    );
    // A directory named like a solution file is not one.
    let not_sln = f.user.join("not-sln");
    fs::create_dir_all(not_sln.join("App.sln")).unwrap();
    fs::create_dir_all(not_sln.join("sub")).unwrap();
    let start = not_sln.join("sub");
    assert_eq!(detect_root_in(&start, &f.home, Some(&f.user)), start);
}

#[test]
fn the_root_the_home_and_its_parents_are_too_broad() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("u");
    let project = home.join("code/app");
    std::fs::create_dir_all(&project).unwrap();
    let broad = |p: &Path| too_broad_for_workspace(p, Some(&home));
    assert_eq!(broad(Path::new("/")), Some("the filesystem root"));
    assert_eq!(broad(&home), Some("your home directory"));
    assert_eq!(broad(tmp.path()), Some("a parent of your home directory"));
    assert_eq!(broad(&project), None);
    assert_eq!(broad(&home.join("code")), None);
    assert_eq!(too_broad_for_workspace(&project, None), None);
}
