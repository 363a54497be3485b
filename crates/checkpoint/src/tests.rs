use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use super::*;

fn put(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn read(root: &Path, rel: &str) -> Option<String> {
    std::fs::read_to_string(root.join(rel)).ok()
}

fn take(seq: u64, kind: Kind) -> Take {
    Take {
        seq,
        turn_seq: seq,
        kind,
        reach: Reach::Whole,
    }
}

struct World {
    _dir: tempfile::TempDir,
    root: std::path::PathBuf,
    cp: Checkpointer,
    settings: Settings,
}

fn world() -> World {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ws");
    std::fs::create_dir_all(&root).unwrap();
    let cp = Checkpointer::open(&dir.path().join("home/checkpoints.db")).unwrap();
    World {
        root,
        cp,
        settings: Settings::default(),
        _dir: dir,
    }
}

#[test]
fn a_rewind_puts_back_bytes_modes_and_deletions_and_removes_created_files() {
    rewind_puts_back(4_000);
}

#[test]
fn a_watched_workspace_is_put_back_the_same() {
    rewind_puts_back(0);
}

fn rewind_puts_back(watch_from: usize) {
    let mut w = world();
    w.settings.watch_from = watch_from;
    put(&w.root, "a.txt", "one\ntwo\n");
    put(&w.root, "src/b.sh", "echo b\n");
    put(&w.root, "gone.txt", "keep me\n");
    put(&w.root, ".gitignore", "ignored/\n");
    put(&w.root, "ignored/x.log", "log\n");
    let mut t = w.cp.tracker("s1", &w.root).unwrap();
    w.cp.prefetch(&mut t, &w.settings).unwrap();
    let first =
        w.cp.record(&mut t, &take(1, Kind::Turn), &w.settings, 1)
            .unwrap()
            .unwrap();
    assert_eq!(first.tracked, 4, "ignored files are not tracked");
    assert_eq!(
        first.not_tracked.unwrap().ignored,
        vec!["ignored/".to_string()]
    );
    // The agent edits, removes, creates and chmods.
    put(&w.root, "a.txt", "one\nTWO\nthree\n");
    std::fs::remove_file(w.root.join("gone.txt")).unwrap();
    put(&w.root, "new/dir/c.txt", "created\n");
    std::fs::set_permissions(
        w.root.join("src/b.sh"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    let step =
        w.cp.record(&mut t, &take(3, Kind::Step), &w.settings, 2)
            .unwrap()
            .unwrap();
    assert_eq!(step.files.len(), 4, "{:?}", step.files);
    assert_eq!((step.added, step.removed), (3, 2));
    // Nothing changed: no checkpoint.
    assert!(
        w.cp.record(&mut t, &take(4, Kind::Step), &w.settings, 3)
            .unwrap()
            .is_none()
    );
    let target = w.cp.target_of("s1", 1).unwrap().unwrap();
    let plan = w.cp.plan(&mut t, target.id, &w.settings).unwrap();
    assert!(plan.conflicts().is_empty(), "{:?}", plan.actions);
    let diff = w.cp.plan_diff(&plan, false);
    assert!(diff.iter().any(|f| f.diff.contains("-TWO")), "{diff:?}");
    w.cp.apply(&plan, false).unwrap();
    assert_eq!(read(&w.root, "a.txt").unwrap(), "one\ntwo\n");
    assert_eq!(read(&w.root, "gone.txt").unwrap(), "keep me\n");
    assert!(
        !w.root.join("new").exists(),
        "created files and their folders go"
    );
    let mode = std::fs::metadata(w.root.join("src/b.sh"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o111, 0);
    assert_eq!(read(&w.root, "ignored/x.log").unwrap(), "log\n");
}

#[test]
fn a_file_the_user_changed_is_a_conflict_unless_forced_and_user_files_are_kept() {
    let w = world();
    put(&w.root, "a.txt", "orig\n");
    let mut t = w.cp.tracker("s1", &w.root).unwrap();
    w.cp.record(&mut t, &take(1, Kind::Turn), &w.settings, 1)
        .unwrap();
    put(&w.root, "a.txt", "agent\n");
    put(&w.root, "b.txt", "agent made\n");
    w.cp.record(&mut t, &take(2, Kind::Step), &w.settings, 2)
        .unwrap()
        .unwrap();
    // Between turns the user edits a.txt and makes mine.txt.
    put(&w.root, "a.txt", "user\n");
    put(&w.root, "mine.txt", "mine\n");
    // A fresh tracker (another process) sees the same.
    let mut t = w.cp.tracker("s1", &w.root).unwrap();
    let plan = w.cp.plan(&mut t, 1, &w.settings).unwrap();
    assert_eq!(plan.conflicts(), vec!["a.txt".to_string()]);
    assert_eq!(plan.kept, vec!["mine.txt".to_string()]);
    w.cp.apply(&plan, false).unwrap();
    assert_eq!(read(&w.root, "a.txt").unwrap(), "user\n");
    assert!(!w.root.join("b.txt").exists());
    let plan = w.cp.plan(&mut t, 1, &w.settings).unwrap();
    w.cp.apply(&plan, true).unwrap();
    assert_eq!(read(&w.root, "a.txt").unwrap(), "orig\n");
    assert_eq!(read(&w.root, "mine.txt").unwrap(), "mine\n");
}

#[test]
fn oversize_files_are_seen_not_kept_and_forks_and_pruning_keep_rewinds_working() {
    let mut w = world();
    w.settings.scan.max_file_bytes = 10;
    w.settings.keep = 3;
    put(&w.root, "big.bin", "0123456789abcdef");
    put(&w.root, "a.txt", "v0\n");
    let mut t = w.cp.tracker("s1", &w.root).unwrap();
    let first =
        w.cp.record(&mut t, &take(1, Kind::Turn), &w.settings, 1)
            .unwrap()
            .unwrap();
    assert_eq!(
        first.not_tracked.unwrap().oversize,
        vec!["big.bin".to_string()]
    );
    for i in 1..=5 {
        put(&w.root, "a.txt", &format!("v{i}\n"));
        w.cp.record(&mut t, &take(1 + i, Kind::Step), &w.settings, 1)
            .unwrap()
            .unwrap();
    }
    let rows = w.cp.list("s1").unwrap();
    assert_eq!(rows.len(), 3, "the last `keep` stay");
    assert!(rows[0].full);
    w.cp.fork("s1", "s2", rows[1].id).unwrap();
    let forked = w.cp.list("s2").unwrap();
    assert_eq!(forked.len(), 2);
    let mut t2 = w.cp.tracker("s2", &w.root).unwrap();
    let plan = w.cp.plan(&mut t2, forked[0].id, &w.settings).unwrap();
    w.cp.apply(&plan, true).unwrap();
    assert_eq!(read(&w.root, "a.txt").unwrap(), "v3\n");
    let before = w.cp.size_bytes().unwrap();
    w.cp.delete_session("s1").unwrap();
    w.cp.delete_session("s2").unwrap();
    assert!(w.cp.list("s1").unwrap().is_empty());
    assert!(w.cp.size_bytes().unwrap() <= before);
}

#[test]
fn a_removed_folder_named_by_a_file_tool_takes_its_files_and_a_cut_log_detaches_later_checkpoints()
{
    let w = world();
    put(&w.root, "dir/a.txt", "a\n");
    put(&w.root, "dir/sub/b.txt", "b\n");
    let mut t = w.cp.tracker("s1", &w.root).unwrap();
    w.cp.record(&mut t, &take(1, Kind::Turn), &w.settings, 1)
        .unwrap();
    std::fs::remove_dir_all(w.root.join("dir")).unwrap();
    let step = Take {
        reach: Reach::Paths(vec!["dir".into()]),
        ..take(3, Kind::Step)
    };
    let taken = w.cp.record(&mut t, &step, &w.settings, 2).unwrap().unwrap();
    assert_eq!(taken.files.len(), 2, "{:?}", taken.files);
    // The log was cut back to seq 2: the next turn's message is seq 3.
    put(&w.root, "x.txt", "x\n");
    w.cp.record(&mut t, &take(3, Kind::Turn), &w.settings, 3)
        .unwrap()
        .unwrap();
    let rows = w.cp.list("s1").unwrap();
    assert_eq!(
        rows[1].seq, None,
        "the step of the cut range stands nowhere"
    );
    assert_eq!(rows[2].seq, Some(3));
    assert_eq!(w.cp.target_of("s1", 3).unwrap().unwrap().id, rows[2].id);
}
