//! The disk side of a turn's extras, kept per scope while nothing it was read
//! from changed.
//!
//! Before its first model request a turn needs the scope's MCP server specs,
//! its enabled skills and the prompt's files (overrides, `AGENTS.md`, memory,
//! project kinds): a dozen small reads off the async threads, whose round trip
//! stood between every chat and its request. They are kept with the stamp
//! (type, length, mtime) of every path they came from and of those paths'
//! folders (a file that appears or goes changes its folder's mtime), and
//! reused while a stat of each shows the same: microseconds, on the turn's own
//! thread. As in [`crate::roots`], an outcome read while a source was fresh
//! (its mtime within a clock tick of the read) is not kept.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use seekclaw_agent::PromptFiles;
use seekclaw_config::{InstructionSettings, McpSettings, WorkspaceConfig};
use seekclaw_mcp::ServerSpec;

use crate::roots::settled_at;
use crate::sync::Locked;

/// Scopes remembered at most (a daemon sees a handful of workspaces).
const MAX_SCOPES: usize = 64;
/// Paths checked on a turn's own thread at most (a scope with very many skill
/// folders is read off the async threads at every turn, as without a cache).
const MAX_STAMPS: usize = 256;

/// What the disk gave for one scope.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DiskExtras {
    pub specs: Vec<ServerSpec>,
    pub skills_prompt: Option<String>,
    /// Skill files the model may read on demand.
    pub readable_files: Vec<PathBuf>,
    pub prompt_files: PromptFiles,
}

/// The rest of what a scope's extras depend on.
#[derive(Debug, Clone, PartialEq)]
pub struct ExtrasInputs {
    /// The workspace root; `None` for the global scope.
    pub root: Option<PathBuf>,
    /// The folder below the root the turn was started from, if any.
    pub start: Option<PathBuf>,
    pub global_mcp: McpSettings,
    pub workspace: Option<WorkspaceConfig>,
    pub instructions: InstructionSettings,
    /// The workspace is trusted (its project plugins take part).
    pub trusted: bool,
}

/// What the cache keeps an outcome under: a scope (its root), seen from one
/// folder below it.
type ScopeKey = (Option<PathBuf>, Option<PathBuf>);

impl ExtrasInputs {
    fn key(&self) -> ScopeKey {
        (self.root.clone(), self.start.clone())
    }
}

/// Extras as read, with the sources they were read from.
pub struct ReadExtras {
    pub extras: DiskExtras,
    /// Every path the read depended on.
    pub sources: Vec<PathBuf>,
}

/// Shared by the daemon's turns; cheap to clone.
#[derive(Clone, Default)]
pub struct ExtrasCache {
    entries: Arc<Mutex<HashMap<ScopeKey, Arc<Entry>>>>,
}

struct Entry {
    inputs: ExtrasInputs,
    stamps: Vec<(PathBuf, Option<Stamp>)>,
    extras: DiskExtras,
}

/// What a stat tells of a path, enough to see that it changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    is_dir: bool,
    len: u64,
    modified: SystemTime,
}

impl Stamp {
    /// `None` for a missing (or unreadable) path, which is a state too.
    fn of(path: &Path) -> Option<Stamp> {
        let meta = std::fs::metadata(path).ok()?;
        Some(Stamp {
            is_dir: meta.is_dir(),
            len: meta.len(),
            modified: meta.modified().ok()?,
        })
    }
}

impl ExtrasCache {
    /// The kept extras of this scope, if none of their sources changed.
    /// Stats only (a few dozen at most): cheap enough for an async thread.
    pub fn fresh(&self, inputs: &ExtrasInputs) -> Option<DiskExtras> {
        let entry = self.entries.locked().get(&inputs.key()).cloned()?;
        let unchanged = entry.inputs == *inputs
            && entry
                .stamps
                .iter()
                .all(|(path, stamp)| Stamp::of(path) == *stamp);
        unchanged.then(|| entry.extras.clone())
    }

    /// Runs `read` (blocking) and keeps its outcome unless a source was
    /// fresh when it started (or there are too many to check cheaply).
    pub fn read_with(
        &self,
        inputs: ExtrasInputs,
        read: impl FnOnce(&ExtrasInputs) -> ReadExtras,
    ) -> DiskExtras {
        // Settled as of the start: a source changed while the read ran (its
        // mtime is later) is never kept, however long the read took.
        let started = SystemTime::now();
        let ReadExtras { extras, sources } = read(&inputs);
        let stamps = stamps_of(sources);
        let settled = stamps
            .iter()
            .all(|(_, s)| s.is_none_or(|s| settled_at(s.modified, started)));
        if settled && stamps.len() <= MAX_STAMPS {
            let mut entries = self.entries.locked();
            if entries.len() >= MAX_SCOPES {
                entries.clear();
            }
            let entry = Entry {
                inputs,
                stamps,
                extras: extras.clone(),
            };
            entries.insert(entry.inputs.key(), Arc::new(entry));
        }
        extras
    }
}

/// The stamps of `sources`, and of the folders of those that are not folders
/// themselves (a file deleted while it was read shows there), each path once.
fn stamps_of(mut sources: Vec<PathBuf>) -> Vec<(PathBuf, Option<Stamp>)> {
    sources.sort();
    sources.dedup();
    let mut stamps: Vec<(PathBuf, Option<Stamp>)> = sources
        .into_iter()
        .map(|path| {
            let stamp = Stamp::of(&path);
            (path, stamp)
        })
        .collect();
    let mut parents: Vec<PathBuf> = stamps
        .iter()
        .filter(|(_, stamp)| !stamp.is_some_and(|s| s.is_dir))
        .filter_map(|(path, _)| path.parent())
        .filter(|parent| !parent.as_os_str().is_empty())
        .map(Path::to_path_buf)
        .collect();
    parents.sort();
    parents.dedup();
    parents.retain(|p| stamps.binary_search_by(|(path, _)| path.cmp(p)).is_err());
    stamps.extend(parents.into_iter().map(|path| {
        let stamp = Stamp::of(&path);
        (path, stamp)
    }));
    stamps
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn inputs(root: &Path) -> ExtrasInputs {
        ExtrasInputs {
            trusted: false,
            root: Some(root.to_path_buf()),
            start: None,
            global_mcp: McpSettings::default(),
            workspace: None,
            instructions: InstructionSettings::default(),
        }
    }

    /// Sets the mtime of `path` 10 s back, as after a while without changes.
    fn age(path: &Path) {
        let past = SystemTime::now() - Duration::from_secs(10);
        std::fs::File::open(path)
            .unwrap()
            .set_modified(past)
            .unwrap();
    }

    /// Reads `<root>/AGENTS.md` into the prompt files.
    fn read_agents(inputs: &ExtrasInputs) -> ReadExtras {
        let agents = inputs.root.as_ref().unwrap().join("AGENTS.md");
        ReadExtras {
            extras: DiskExtras {
                prompt_files: PromptFiles {
                    memory: std::fs::read_to_string(&agents).ok(),
                    ..PromptFiles::default()
                },
                ..DiskExtras::default()
            },
            sources: vec![agents],
        }
    }

    /// A read whose sources are `root/skill{i}` for `i` in `range`.
    fn read_skills(
        root: &Path,
        range: std::ops::Range<usize>,
    ) -> impl FnOnce(&ExtrasInputs) -> ReadExtras {
        let sources = range.map(|i| root.join(format!("skill{i}"))).collect();
        move |_| ReadExtras {
            extras: DiskExtras::default(),
            sources,
        }
    }

    #[test]
    fn kept_extras_are_reused_until_a_source_changes() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let agents = root.join("AGENTS.md");
        std::fs::write(&agents, "one").unwrap();
        age(&agents);
        age(root);
        let cache = ExtrasCache::default();
        let first = cache.read_with(inputs(root), read_agents);
        assert_eq!(first.prompt_files.memory.as_deref(), Some("one"));
        assert_eq!(cache.fresh(&inputs(root)), Some(first.clone()));
        // Other inputs are another outcome.
        let mut other = inputs(root);
        other.workspace = Some(WorkspaceConfig::default());
        assert_eq!(cache.fresh(&other), None);
        // An edit of the same length shows in the mtime.
        std::fs::write(&agents, "two").unwrap();
        assert_eq!(cache.fresh(&inputs(root)), None);
    }

    #[test]
    fn a_source_that_appears_or_goes_is_seen() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        age(root);
        let cache = ExtrasCache::default();
        cache.read_with(inputs(root), read_agents);
        assert!(cache.fresh(&inputs(root)).is_some());
        std::fs::write(root.join("AGENTS.md"), "new").unwrap();
        assert_eq!(cache.fresh(&inputs(root)), None);
    }

    #[test]
    fn an_outcome_with_too_many_sources_to_check_is_not_kept() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        age(root);
        let cache = ExtrasCache::default();
        cache.read_with(inputs(root), read_skills(root, 0..MAX_STAMPS));
        // Its sources and their folder: one more than may be checked inline.
        assert_eq!(cache.fresh(&inputs(root)), None);
        cache.read_with(inputs(root), read_skills(root, 1..MAX_STAMPS));
        assert_eq!(cache.fresh(&inputs(root)), Some(DiskExtras::default()));
    }

    #[test]
    fn a_source_changed_during_a_slow_read_is_not_kept() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let agents = root.join("AGENTS.md");
        std::fs::write(&agents, "old").unwrap();
        age(&agents);
        age(root);
        let cache = ExtrasCache::default();
        cache.read_with(inputs(root), |inputs| {
            let during = SystemTime::now();
            let out = read_agents(inputs);
            // Saved right after it was read; the read goes on well past the
            // time a change counts as settled.
            std::fs::write(&agents, "new").unwrap();
            std::fs::File::open(&agents)
                .unwrap()
                .set_modified(during)
                .unwrap();
            std::thread::sleep(Duration::from_millis(150));
            out
        });
        assert_eq!(cache.fresh(&inputs(root)), None);
    }

    #[test]
    fn an_outcome_read_while_a_source_was_fresh_is_not_kept() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("AGENTS.md"), "just written").unwrap();
        let cache = ExtrasCache::default();
        cache.read_with(inputs(root), read_agents);
        assert_eq!(cache.fresh(&inputs(root)), None);
    }
}
