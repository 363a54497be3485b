//! Reads a workspace into a [`Tree`]: every file `.gitignore`/`.ignore` do
//! not exclude, rehashing only what the stat fields say changed.

use std::collections::BTreeSet;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use ignore::WalkBuilder;
use sha2::{Digest, Sha256};

use crate::error::CheckpointError;
use crate::tree::{Content, Entry, Hash, Tree};

/// Version-control metadata: never tracked, never touched.
const VCS_DIRS: &[&str] = &[".git", ".hg", ".svn", ".jj"];

/// Dependency and cache folders a tool regenerates, skipped even without a
/// `.gitignore` (a plain folder with `node_modules` would otherwise be copied).
const REGENERATED_DIRS: &[&str] = &[
    "node_modules",
    "__pycache__",
    ".venv",
    "venv",
    ".tox",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    ".gradle",
    ".next",
    ".nuxt",
    ".cache",
];

/// What a scan reads and how far it goes.
#[derive(Debug, Clone)]
pub struct ScanOptions {
    /// Files larger than this are seen but their bytes are not kept.
    pub max_file_bytes: u64,
    /// A workspace with more tracked files than this is not checkpointed.
    pub max_files: usize,
    /// Absolute paths never scanned (the home holding the store).
    pub exclude: Vec<PathBuf>,
}

impl Default for ScanOptions {
    fn default() -> Self {
        ScanOptions {
            max_file_bytes: 10 * 1024 * 1024,
            max_files: 100_000,
            exclude: Vec::new(),
        }
    }
}

/// Paths a checkpoint leaves alone, said once per turn.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NotTracked {
    /// Top-level entries skipped as ignored or regenerated (`target/`, `.env`).
    pub ignored: Vec<String>,
    /// Files over `maxFileBytes`.
    pub oversize: Vec<String>,
}

impl NotTracked {
    /// Nothing was left out.
    pub fn is_empty(&self) -> bool {
        self.ignored.is_empty() && self.oversize.is_empty()
    }
}

/// A workspace read at one moment.
#[derive(Debug, Clone, Default)]
pub struct Scan {
    /// Its tracked files.
    pub tree: Tree,
    /// What it left out.
    pub not_tracked: NotTracked,
    /// The folders it walked (workspace-relative), for the watcher.
    pub dirs: Vec<String>,
}

fn now_ns() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as i64)
        .unwrap_or(0)
}

/// Files modified this close to the scan may change again within the same
/// timestamp tick: their mtime is not trusted next time.
const RACY_NS: i64 = 20_000_000;

/// What one walker thread found.
#[derive(Default)]
struct Found {
    entries: Vec<(String, Entry)>,
    dirs: Vec<String>,
    top: Vec<String>,
    error: Option<CheckpointError>,
}

/// Hands a walker thread's finds over when the thread is done with them.
struct Collect<'a> {
    found: Found,
    into: &'a std::sync::Mutex<Vec<Found>>,
}

impl Drop for Collect<'_> {
    fn drop(&mut self) {
        let found = std::mem::take(&mut self.found);
        if let Ok(mut all) = self.into.lock() {
            all.push(found);
        }
    }
}

/// The walker every scan uses: `.gitignore` (with or without git), `.ignore`,
/// `.seekclawignore`, git's excludes; hidden files in; symlinks not followed.
fn walker(from: &Path, opts: &ScanOptions) -> WalkBuilder {
    let exclude = opts.exclude.clone();
    let mut b = WalkBuilder::new(from);
    b.hidden(false)
        .parents(true)
        .git_ignore(true)
        .git_global(true)
        .git_exclude(true)
        .require_git(false)
        .ignore(true)
        .add_custom_ignore_filename(".seekclawignore")
        .follow_links(false)
        .filter_entry(move |e| keep(e, &exclude));
    b
}

/// Reads the whole workspace at `root`, reusing `cache`'s hashes for files
/// whose stat fields are unchanged. The walk (and its stats) runs on a few
/// threads: on a 10,000-file tree the stats are most of the time.
pub fn scan(root: &Path, cache: &Tree, opts: &ScanOptions) -> Result<Scan, CheckpointError> {
    scan_under(root, root, cache, opts)
}

/// Known files from which a scan walks on several threads.
const PARALLEL_FROM: usize = 2_000;

/// What a scan does with each entry the walker yields.
struct Visit<'a> {
    root: &'a Path,
    cache: &'a Tree,
    opts: &'a ScanOptions,
    started: i64,
    whole: bool,
    count: &'a std::sync::atomic::AtomicUsize,
}

impl Visit<'_> {
    fn entry(
        &self,
        item: Result<ignore::DirEntry, ignore::Error>,
        found: &mut Found,
    ) -> ignore::WalkState {
        use ignore::WalkState;
        let entry = match item {
            Ok(e) => e,
            Err(e) => {
                found.error = Some(CheckpointError::Scan(e.to_string()));
                return WalkState::Quit;
            }
        };
        if self.whole && entry.depth() == 1 {
            found
                .top
                .push(entry.file_name().to_string_lossy().into_owned());
        }
        let Some(rel) = relative(self.root, entry.path()) else {
            return WalkState::Continue;
        };
        if entry.file_type().is_none_or(|k| k.is_dir()) {
            found.dirs.push(rel);
            return WalkState::Continue;
        }
        match read_entry(entry.path(), self.cache.get(&rel), self.opts, self.started) {
            Ok(Some(seen)) => found.entries.push((rel, seen)),
            Ok(None) => {}
            Err(e) => {
                found.error = Some(e);
                return WalkState::Quit;
            }
        }
        let seen = self
            .count
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if seen >= self.opts.max_files {
            found.error = Some(CheckpointError::TooManyFiles(self.opts.max_files));
            return WalkState::Quit;
        }
        WalkState::Continue
    }
}

/// Reads the folder `from` of the workspace at `root` (all of it when
/// `from` is the root).
fn scan_under(
    root: &Path,
    from: &Path,
    cache: &Tree,
    opts: &ScanOptions,
) -> Result<Scan, CheckpointError> {
    use std::sync::atomic::AtomicUsize;
    let started = now_ns();
    let whole = from == root;
    let count = AtomicUsize::new(0);
    let visit = Visit {
        root,
        cache,
        opts,
        started,
        whole,
        count: &count,
    };
    // Threads pay off from a few thousand files; a small tree is read in
    // the time it takes to start them.
    let all = if cache.len() < PARALLEL_FROM {
        let mut found = Found::default();
        for item in walker(from, opts).build() {
            if visit.entry(item, &mut found) == ignore::WalkState::Quit {
                break;
            }
        }
        vec![found]
    } else {
        let threads = std::thread::available_parallelism().map_or(2, |n| n.get().clamp(2, 4));
        let all = std::sync::Mutex::new(Vec::new());
        walker(from, opts)
            .threads(threads)
            .build_parallel()
            .run(|| {
                let mut collect = Collect {
                    found: Found::default(),
                    into: &all,
                };
                let visit = &visit;
                Box::new(move |item| visit.entry(item, &mut collect.found))
            });
        all.into_inner().unwrap_or_default()
    };
    let mut out = Scan::default();
    let mut top_seen = BTreeSet::new();
    for found in all {
        if let Some(e) = found.error {
            return Err(e);
        }
        top_seen.extend(found.top);
        out.dirs.extend(found.dirs);
        for (rel, seen) in found.entries {
            if seen.content == Content::Oversize {
                out.not_tracked.oversize.push(rel.clone());
            }
            out.tree.insert(rel, seen);
        }
    }
    out.not_tracked.oversize.sort();
    if whole {
        out.not_tracked.ignored = left_out_at_top(root, &top_seen);
    }
    Ok(out)
}

/// Rereads what the watcher says changed over `base`: the paths (a new file
/// only if the ignore rules track it) and every new folder whole.
pub(crate) fn rescan_dirty(
    root: &Path,
    base: &Tree,
    dirty: &crate::watch::Dirty,
    opts: &ScanOptions,
) -> Result<(Tree, Vec<String>), CheckpointError> {
    let known: Vec<String> = dirty
        .paths
        .iter()
        .filter(|p| base.contains_key(*p) || has_under(base, p) || !root.join(p).exists())
        .cloned()
        .collect();
    let mut tree = rescan_paths(root, base, &known, opts)?;
    let mut listed: std::collections::HashMap<PathBuf, BTreeSet<PathBuf>> = Default::default();
    let started = now_ns();
    for rel in dirty.paths.iter().filter(|p| !known.contains(*p)) {
        let full = root.join(rel);
        let Some(parent) = full.parent() else {
            continue;
        };
        // One listing per folder, by the same rules as a whole scan.
        let names = listed.entry(parent.to_path_buf()).or_insert_with(|| {
            walker(parent, opts)
                .max_depth(Some(1))
                .build()
                .flatten()
                .map(|e| e.into_path())
                .collect()
        });
        if names.contains(&full)
            && let Some(seen) = read_entry(&full, None, opts, started)?
        {
            tree.insert(rel.clone(), seen);
        }
    }
    let mut dirs = Vec::new();
    for rel in &dirty.new_dirs {
        let sub = scan_under(root, &root.join(rel), &Tree::new(), opts)?;
        tree.extend(sub.tree);
        dirs.extend(sub.dirs);
    }
    if tree.len() > opts.max_files {
        return Err(CheckpointError::TooManyFiles(opts.max_files));
    }
    Ok((tree, dirs))
}

fn has_under(tree: &Tree, rel: &str) -> bool {
    let under = format!("{rel}/");
    tree.range(under.clone()..)
        .next()
        .is_some_and(|(k, _)| k.starts_with(&under))
}

/// Rereads only `paths` (what a file tool wrote) over `base`.
pub fn rescan_paths(
    root: &Path,
    base: &Tree,
    paths: &[String],
    opts: &ScanOptions,
) -> Result<Tree, CheckpointError> {
    let started = now_ns();
    let mut tree = base.clone();
    // A removed folder takes what was under it along.
    let mut all: Vec<String> = paths.to_vec();
    for rel in paths {
        let under = format!("{}/", rel.trim_end_matches('/'));
        all.extend(
            base.range(under.clone()..)
                .take_while(|(k, _)| k.starts_with(&under))
                .map(|(k, _)| k.clone()),
        );
    }
    for rel in &all {
        let full = root.join(rel);
        match read_entry(&full, base.get(rel), opts, started)? {
            Some(seen) => {
                tree.insert(rel.clone(), seen);
            }
            None => {
                tree.remove(rel);
            }
        }
    }
    Ok(tree)
}

fn keep(entry: &ignore::DirEntry, exclude: &[PathBuf]) -> bool {
    if entry.depth() == 0 {
        return true;
    }
    let name = entry.file_name().to_string_lossy();
    if VCS_DIRS.contains(&name.as_ref()) {
        return false;
    }
    if exclude.iter().any(|x| x == entry.path()) {
        return false;
    }
    let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
    if is_dir && REGENERATED_DIRS.contains(&name.as_ref()) {
        return false;
    }
    // A build folder tagged per the Cache Directory Tagging spec (cargo's target/).
    !(is_dir && name == "target" && entry.path().join("CACHEDIR.TAG").exists())
}

fn relative(root: &Path, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(root).ok()?;
    let parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_str().map(str::to_string))
        .collect::<Option<_>>()?;
    Some(parts.join("/"))
}

/// The top-level names the walk skipped (ignored or regenerated), `dir/` for
/// folders; version control is not worth saying.
fn left_out_at_top(root: &Path, seen: &BTreeSet<String>) -> Vec<String> {
    let Ok(read) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    let mut out: Vec<String> = read
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            if seen.contains(&name) || VCS_DIRS.contains(&name.as_str()) {
                return None;
            }
            let dir = e.file_type().is_ok_and(|t| t.is_dir());
            Some(if dir { format!("{name}/") } else { name })
        })
        .collect();
    out.sort();
    out
}

/// The entry of one path now (`None`: absent, or not a file or symlink).
pub(crate) fn read_entry(
    path: &Path,
    cached: Option<&Entry>,
    opts: &ScanOptions,
    scan_started: i64,
) -> Result<Option<Entry>, CheckpointError> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(CheckpointError::io(path, e)),
    };
    let stat = Stat::of(&meta);
    let kind = meta.file_type();
    if !kind.is_file() && !kind.is_symlink() {
        return Ok(None);
    }
    if let Some(c) =
        cached.filter(|c| c.stat_matches(stat.size, stat.mtime_ns, stat.ino, stat.mode))
    {
        return Ok(Some(*c));
    }
    let content = if kind.is_symlink() {
        let target = std::fs::read_link(path).map_err(|e| CheckpointError::io(path, e))?;
        Content::Symlink(hash_bytes(target.as_os_str().as_encoded_bytes()))
    } else if stat.size > opts.max_file_bytes {
        Content::Oversize
    } else {
        match hash_file(path) {
            Ok(h) => Content::File(h),
            // Gone between the walk and the read: it is not there.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(CheckpointError::io(path, e)),
        }
    };
    let racy = stat.mtime_ns >= scan_started - RACY_NS;
    Ok(Some(Entry {
        content,
        mode: stat.mode,
        size: stat.size,
        mtime_ns: if racy { 0 } else { stat.mtime_ns },
        ino: stat.ino,
    }))
}

struct Stat {
    size: u64,
    mtime_ns: i64,
    ino: u64,
    mode: u32,
}

impl Stat {
    #[cfg(unix)]
    fn of(meta: &std::fs::Metadata) -> Stat {
        use std::os::unix::fs::MetadataExt;
        Stat {
            size: meta.size(),
            mtime_ns: meta.mtime() * 1_000_000_000 + meta.mtime_nsec(),
            ino: meta.ino(),
            mode: meta.mode(),
        }
    }

    #[cfg(not(unix))]
    fn of(meta: &std::fs::Metadata) -> Stat {
        let mtime_ns = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .map(|d| d.as_nanos() as i64)
            .unwrap_or(0);
        let mode = if meta.is_dir() { 0o040755 } else { 0o100644 };
        Stat {
            size: meta.len(),
            mtime_ns,
            ino: 0,
            mode,
        }
    }
}

/// SHA-256 of some bytes.
pub fn hash_bytes(bytes: &[u8]) -> Hash {
    Sha256::digest(bytes).into()
}

fn hash_file(path: &Path) -> std::io::Result<Hash> {
    let mut file = std::fs::File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hasher.finalize().into())
}

/// The bytes a path holds now, as a blob is kept: a file's contents or a
/// symlink's target.
pub(crate) fn read_content(path: &Path, content: &Content) -> std::io::Result<Vec<u8>> {
    match content {
        Content::Symlink(_) => Ok(std::fs::read_link(path)?
            .as_os_str()
            .as_encoded_bytes()
            .to_vec()),
        _ => std::fs::read(path),
    }
}
