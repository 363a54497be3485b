//! A workspace's tracked files at one moment: path → what the file holds.

use std::collections::BTreeMap;

/// A content hash (SHA-256 of the bytes; of the link target for a symlink).
pub type Hash = [u8; 32];

/// What a tracked path holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Content {
    /// A regular file with these bytes.
    File(Hash),
    /// A symbolic link to this target (hashed as bytes).
    Symlink(Hash),
    /// A file over `maxFileBytes`: seen, its bytes not kept.
    Oversize,
}

/// One tracked path: its content and the stat fields that let the next scan
/// skip rereading it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    /// What it holds.
    pub content: Content,
    /// `st_mode` (type and permission bits).
    pub mode: u32,
    /// Size in bytes.
    pub size: u64,
    /// Modification time in ns; 0 forces a reread (a file changed while
    /// it was scanned, "racily clean" in git's words).
    pub mtime_ns: i64,
    /// Inode number (a file replaced by rename changes it).
    pub ino: u64,
}

impl Entry {
    /// Whether two entries hold the same thing, as a user would see it:
    /// the same bytes and the same executable bit.
    pub fn same_as(&self, other: &Entry) -> bool {
        let exec = |m: u32| m & 0o111 != 0;
        match (self.content, other.content) {
            (Content::Oversize, Content::Oversize) => {
                self.size == other.size && self.mtime_ns == other.mtime_ns && self.mtime_ns != 0
            }
            (a, b) => a == b && exec(self.mode) == exec(other.mode),
        }
    }

    /// Whether the stat fields say the file is unchanged since `self` was
    /// read (so its hash can be reused).
    pub fn stat_matches(&self, size: u64, mtime_ns: i64, ino: u64, mode: u32) -> bool {
        self.mtime_ns != 0
            && self.size == size
            && self.mtime_ns == mtime_ns
            && self.ino == ino
            && self.mode == mode
    }

    /// The content hash, when the bytes are kept.
    pub fn hash(&self) -> Option<&Hash> {
        match &self.content {
            Content::File(h) | Content::Symlink(h) => Some(h),
            Content::Oversize => None,
        }
    }
}

/// Tracked paths (workspace-relative, `/`-separated) in order.
pub type Tree = BTreeMap<String, Entry>;

/// How one path differs between two trees.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// The path.
    pub path: String,
    /// Before (`None`: absent).
    pub before: Option<Entry>,
    /// After (`None`: deleted).
    pub after: Option<Entry>,
}

/// The paths whose content differs between `old` and `new` (one pass over
/// both, in path order).
pub fn changes(old: &Tree, new: &Tree) -> Vec<Change> {
    use std::cmp::Ordering;
    let mut out = Vec::new();
    let (mut a, mut b) = (old.iter().peekable(), new.iter().peekable());
    loop {
        let order = match (a.peek(), b.peek()) {
            (None, None) => break,
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (Some((pa, _)), Some((pb, _))) => pa.cmp(pb),
        };
        match order {
            Ordering::Less => {
                if let Some((path, before)) = a.next() {
                    out.push(Change {
                        path: path.clone(),
                        before: Some(*before),
                        after: None,
                    });
                }
            }
            Ordering::Greater => {
                if let Some((path, after)) = b.next() {
                    out.push(Change {
                        path: path.clone(),
                        before: None,
                        after: Some(*after),
                    });
                }
            }
            Ordering::Equal => {
                if let (Some((path, before)), Some((_, after))) = (a.next(), b.next())
                    && !before.same_as(after)
                {
                    out.push(Change {
                        path: path.clone(),
                        before: Some(*before),
                        after: Some(*after),
                    });
                }
            }
        }
    }
    out
}

/// Hex of a hash, for ids shown to people.
pub fn hex(hash: &Hash) -> String {
    hash.iter().map(|b| format!("{b:02x}")).collect()
}
