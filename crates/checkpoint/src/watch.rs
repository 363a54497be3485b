//! What changed in a workspace while a turn runs, from the kernel (inotify)
//! instead of a stat of every file: a step's checkpoint then rereads only
//! the paths that moved. Any doubt (a full queue, a watch the kernel refused,
//! a changed ignore file) means "read it all", never "nothing changed".

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

/// Paths changed since the last drain (workspace-relative).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Dirty {
    /// Files (or folders removed or moved away) to reread.
    pub paths: BTreeSet<String>,
    /// Folders that appeared: walked whole (their files may predate the watch).
    pub new_dirs: BTreeSet<String>,
}

/// Watches a workspace's tracked folders.
pub(crate) struct Watcher {
    #[cfg(target_os = "linux")]
    fd: std::os::fd::OwnedFd,
    root: PathBuf,
    /// Watch descriptor → the folder it watches ("" for the root).
    dirs: HashMap<i32, String>,
    /// The watch lost track: the next read is a whole scan.
    lost: bool,
}

impl std::fmt::Debug for Watcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Watcher")
            .field("root", &self.root)
            .field("dirs", &self.dirs.len())
            .field("lost", &self.lost)
            .finish()
    }
}

/// Ignore files: a change to one changes what is tracked.
const IGNORE_FILES: &[&str] = &[".gitignore", ".ignore", ".seekclawignore"];

#[cfg(target_os = "linux")]
mod linux {
    use rustix::fs::inotify::{self, ReadFlags, WatchFlags};

    pub(super) fn flags() -> WatchFlags {
        WatchFlags::MODIFY
            | WatchFlags::ATTRIB
            | WatchFlags::CLOSE_WRITE
            | WatchFlags::MOVED_FROM
            | WatchFlags::MOVED_TO
            | WatchFlags::CREATE
            | WatchFlags::DELETE
            | WatchFlags::DELETE_SELF
            | WatchFlags::MOVE_SELF
            | WatchFlags::DONT_FOLLOW
            | WatchFlags::EXCL_UNLINK
            | WatchFlags::ONLYDIR
    }

    pub(super) fn init() -> Option<std::os::fd::OwnedFd> {
        inotify::init(inotify::CreateFlags::CLOEXEC | inotify::CreateFlags::NONBLOCK).ok()
    }

    pub(super) use inotify::{Reader, add_watch};

    pub(super) fn lost(f: ReadFlags) -> bool {
        f.intersects(ReadFlags::QUEUE_OVERFLOW | ReadFlags::DELETE_SELF | ReadFlags::MOVE_SELF)
    }

    pub(super) fn dir_appeared(f: ReadFlags) -> bool {
        f.contains(ReadFlags::ISDIR) && f.intersects(ReadFlags::CREATE | ReadFlags::MOVED_TO)
    }

    pub(super) fn ignored(f: ReadFlags) -> bool {
        f.contains(ReadFlags::IGNORED)
    }
}

impl Watcher {
    /// Starts watching `root` (`None` where the kernel offers no watch).
    pub(crate) fn start(root: &Path) -> Option<Watcher> {
        #[cfg(target_os = "linux")]
        {
            let fd = linux::init()?;
            let mut w = Watcher {
                fd,
                root: root.to_path_buf(),
                dirs: HashMap::new(),
                lost: false,
            };
            w.watch([String::new()]);
            (!w.lost).then_some(w)
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = root;
            None
        }
    }

    /// Watches these folders too (workspace-relative).
    pub(crate) fn watch(&mut self, dirs: impl IntoIterator<Item = String>) {
        #[cfg(target_os = "linux")]
        for rel in dirs {
            let path = if rel.is_empty() {
                self.root.clone()
            } else {
                self.root.join(&rel)
            };
            match linux::add_watch(&self.fd, &path, linux::flags()) {
                Ok(wd) => {
                    self.dirs.insert(wd, rel);
                }
                // Gone already: its parent's event says so.
                Err(rustix::io::Errno::NOENT) | Err(rustix::io::Errno::NOTDIR) => {}
                // Out of watches (fs.inotify.max_user_watches) or worse.
                Err(_) => self.lost = true,
            }
        }
        #[cfg(not(target_os = "linux"))]
        let _ = dirs.into_iter().count();
    }

    /// What changed since the last drain; `None` when the watch cannot say
    /// (the caller scans everything and starts over).
    pub(crate) fn drain(&mut self) -> Option<Dirty> {
        let mut dirty = Dirty::default();
        #[cfg(target_os = "linux")]
        {
            let mut buf = [std::mem::MaybeUninit::<u8>::uninit(); 16 * 1024];
            let mut reader = linux::Reader::new(&self.fd, &mut buf);
            loop {
                let ev = match reader.next() {
                    Ok(ev) => ev,
                    Err(rustix::io::Errno::AGAIN) => break,
                    Err(rustix::io::Errno::INTR) => continue,
                    Err(_) => {
                        self.lost = true;
                        break;
                    }
                };
                let flags = ev.events();
                if linux::lost(flags) {
                    self.lost = true;
                    continue;
                }
                if linux::ignored(flags) {
                    self.dirs.remove(&ev.wd());
                    continue;
                }
                let (Some(dir), Some(name)) = (self.dirs.get(&ev.wd()), ev.file_name()) else {
                    continue;
                };
                let name = name.to_string_lossy();
                if IGNORE_FILES.contains(&name.as_ref()) {
                    self.lost = true;
                }
                let rel = if dir.is_empty() {
                    name.into_owned()
                } else {
                    format!("{dir}/{name}")
                };
                if linux::dir_appeared(flags) {
                    dirty.new_dirs.insert(rel);
                } else {
                    dirty.paths.insert(rel);
                }
            }
        }
        if std::mem::take(&mut self.lost) {
            return None;
        }
        Some(dirty)
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn writes_removals_and_new_folders_are_seen_and_an_ignore_file_means_everything() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(root.join("src/a.rs"), "a").unwrap();
        let mut w = Watcher::start(root).unwrap();
        w.watch(["src".to_string()]);
        assert_eq!(w.drain(), Some(Dirty::default()));
        std::fs::write(root.join("src/a.rs"), "b").unwrap();
        std::fs::create_dir_all(root.join("new/deep")).unwrap();
        std::fs::write(root.join("top.txt"), "t").unwrap();
        let dirty = w.drain().unwrap();
        assert!(dirty.paths.contains("src/a.rs") && dirty.paths.contains("top.txt"));
        assert!(dirty.new_dirs.contains("new"), "{dirty:?}");
        std::fs::write(root.join(".gitignore"), "x").unwrap();
        assert_eq!(w.drain(), None, "a changed ignore file rescans everything");
        assert_eq!(w.drain(), Some(Dirty::default()));
    }
}
