//! Project roots already found for workspace paths. Finding one walks up the
//! tree looking for markers (`.git`, `package.json`, `*.sln`, …), which for a
//! folder without any reads every ancestor up to `/` on every request. A found
//! root is reused while no directory on the walk changed: adding or removing a
//! marker changes its directory's mtime. A change within the same tick of the
//! file system's clock leaves the mtime as it was, so a directory changed less
//! than a few ticks ago is not trusted yet: 100 ms where mtimes have sub-second
//! digits (Linux ticks are ≤ 10 ms), two seconds where they are whole seconds.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use seekclaw_config::{Home, detect_root};

use crate::sync::Locked;

/// Paths remembered at most (a daemon sees a handful of workspaces).
const MAX_ENTRIES: usize = 256;
/// Mtimes younger than this may still change within their clock tick: fine
/// clocks (sub-second mtimes) and coarse ones (FAT, some network shares).
const FINE_SETTLE: Duration = Duration::from_millis(100);
const COARSE_SETTLE: Duration = Duration::from_secs(2);

#[derive(Default)]
/// Project roots found for workspace paths, kept while their markers stand.
pub struct RootCache {
    entries: Mutex<HashMap<PathBuf, Found>>,
}

struct Found {
    root: PathBuf,
    /// Every directory the walk may have looked at, with its mtime then.
    walked: Vec<(PathBuf, SystemTime)>,
}

impl RootCache {
    /// The project root of `start` (an existing directory), as
    /// [`detect_root`] finds it.
    pub fn root_of(&self, start: &Path, home: &Home) -> PathBuf {
        if let Some(root) = self.cached(start) {
            return root;
        }
        let before = mtimes(start, usize::MAX);
        let root = detect_root(start, home);
        // Without a marker the walk went all the way up.
        let n = if root == start {
            before.len()
        } else {
            n_up_to(start, &root)
        };
        let after = mtimes(start, n);
        let now = SystemTime::now();
        let settled = after
            .iter()
            .all(|(_, m)| m.is_some_and(|m| settled_at(m, now)));
        // Remembered only if nothing on the walk is fresh or changed meanwhile.
        if settled && before.get(..n) == Some(&after[..]) {
            let mut entries = self.entries.locked();
            if entries.len() >= MAX_ENTRIES {
                entries.clear();
            }
            let walked = after
                .into_iter()
                .filter_map(|(d, m)| Some((d, m?)))
                .collect();
            entries.insert(
                start.to_path_buf(),
                Found {
                    root: root.clone(),
                    walked,
                },
            );
        }
        root
    }

    fn cached(&self, start: &Path) -> Option<PathBuf> {
        let entries = self.entries.locked();
        let found = entries.get(start)?;
        let unchanged = found
            .walked
            .iter()
            .all(|(dir, mtime)| mtime_of(dir).is_some_and(|now| now == *mtime));
        unchanged.then(|| found.root.clone())
    }
}

/// How many directories from `start` up to and including `root`.
fn n_up_to(start: &Path, root: &Path) -> usize {
    start.ancestors().take_while(|d| *d != root).count() + 1
}

/// `start` and up to `limit - 1` of its ancestors, with their mtimes.
fn mtimes(start: &Path, limit: usize) -> Vec<(PathBuf, Option<SystemTime>)> {
    start
        .ancestors()
        .filter(|d| !d.as_os_str().is_empty())
        .take(limit)
        .map(|dir| (dir.to_path_buf(), mtime_of(dir)))
        .collect()
}

/// Whether an mtime is old enough that a change in its clock tick would show.
pub(crate) fn settled_at(mtime: SystemTime, now: SystemTime) -> bool {
    let fine = mtime
        .duration_since(SystemTime::UNIX_EPOCH)
        .is_ok_and(|d| d.subsec_nanos() != 0);
    let settle = if fine { FINE_SETTLE } else { COARSE_SETTLE };
    now.duration_since(mtime).is_ok_and(|age| age >= settle)
}

fn mtime_of(dir: &Path) -> Option<SystemTime> {
    std::fs::metadata(dir).and_then(|m| m.modified()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `top/.git` (a root marker) and `top/proj/sub`, every directory's mtime
    /// 10 s in the past, as after a while without changes.
    fn settled_tree() -> (tempfile::TempDir, PathBuf, PathBuf, Home) {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path().join("top");
        let ws = top.join("proj/sub");
        std::fs::create_dir_all(&ws).unwrap();
        std::fs::create_dir(top.join(".git")).unwrap();
        let home = Home::at(dir.path().join("home"));
        age(&top);
        (dir, top, ws, home)
    }

    fn age(dir: &Path) {
        let past = SystemTime::now() - Duration::from_secs(10);
        for d in [dir.to_path_buf(), dir.join("proj"), dir.join("proj/sub")] {
            if d.is_dir() {
                std::fs::File::open(&d).unwrap().set_modified(past).unwrap();
            }
        }
    }

    #[test]
    fn a_quiet_walk_is_reused_and_a_new_marker_on_it_is_seen() {
        let (_dir, top, ws, home) = settled_tree();
        let cache = RootCache::default();
        assert_eq!(cache.root_of(&ws, &home), top);
        assert_eq!(cache.cached(&ws), Some(top.clone()), "remembered");
        let walked: Vec<PathBuf> = cache.entries.lock().unwrap()[&ws]
            .walked
            .iter()
            .map(|(d, _)| d.clone())
            .collect();
        assert_eq!(walked, [ws.clone(), top.join("proj"), top.clone()]);

        // A marker appears between the workspace and its root.
        std::fs::write(top.join("proj/package.json"), "{}").unwrap();
        assert_eq!(cache.cached(&ws), None, "stale once proj/ changed");
        let root = cache.root_of(&ws, &home);
        assert_eq!(root, top.join("proj"));
        assert_eq!(root, detect_root(&ws, &home));
        assert_eq!(
            cache.cached(&ws),
            None,
            "a change this fresh is not trusted yet"
        );
        age(&top);
        assert_eq!(cache.root_of(&ws, &home), top.join("proj"));
        assert_eq!(cache.cached(&ws), Some(top.join("proj")));
    }

    #[test]
    fn fine_mtimes_settle_sooner_than_whole_seconds() {
        let now = SystemTime::UNIX_EPOCH + Duration::new(1_000_000, 500_000_000);
        let fine = now - Duration::from_millis(150);
        assert!(settled_at(fine, now));
        assert!(!settled_at(now - Duration::from_millis(50), now));
        let whole = SystemTime::UNIX_EPOCH + Duration::from_secs(999_999);
        assert!(!settled_at(whole, now), "1.5 s, but a coarse clock");
        assert!(settled_at(whole, now + Duration::from_secs(1)));
        assert!(
            !settled_at(now + Duration::from_secs(1), now),
            "from the future"
        );
    }

    #[test]
    fn a_walk_changed_a_moment_ago_is_reused_once_it_settles() {
        let (_dir, top, ws, home) = settled_tree();
        let cache = RootCache::default();
        std::fs::write(top.join("proj/notes.txt"), "").unwrap();
        assert_eq!(cache.root_of(&ws, &home), top);
        assert_eq!(cache.cached(&ws), None, "proj/ just changed");
        std::thread::sleep(FINE_SETTLE + Duration::from_millis(50));
        assert_eq!(cache.root_of(&ws, &home), top);
        assert_eq!(cache.cached(&ws), Some(top.clone()));
    }

    #[test]
    fn a_removed_marker_is_seen_too() {
        let (_dir, top, ws, home) = settled_tree();
        let cache = RootCache::default();
        assert_eq!(cache.root_of(&ws, &home), top);
        std::fs::remove_dir(top.join(".git")).unwrap();
        assert_eq!(cache.cached(&ws), None);
        assert_eq!(cache.root_of(&ws, &home), detect_root(&ws, &home));
    }
}
