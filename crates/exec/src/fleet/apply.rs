//! `seekclaw fleet list|apply|clean`: what to do with a fleet's copies once
//! its runs are over. `apply` takes one copy's changes into the original,
//! file by file: a file the run changed goes in when the original still has
//! it as it was copied (`fleet.json` holds each file's size and time then);
//! a file changed on both sides is a conflict, and nothing is written unless
//! `--force` says the copy's version wins. `clean` removes fleet folders
//! (only folders with a `fleet.json`); `list` shows a workspace's.

use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use seekclaw_config::Home;

use super::copy::{Kind, Rules, scan};
use super::manifest::{self, Manifest, State, slashed};
use crate::error::{ExecError, IoContext, refuse};

/// One fleet of a workspace (`seekclaw fleet list`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FleetListing {
    pub dir: PathBuf,
    /// `YYYY-MM-DD HH:MM`.
    pub created: String,
    /// Copies still there.
    pub copies: usize,
    /// The task on one line.
    pub task: String,
}

/// The project root `workspace` (or `cwd`) names, canonical.
fn root_of(home: &Home, cwd: &Path, workspace: Option<&Path>) -> Result<PathBuf, ExecError> {
    let root = seekclaw_engine::local_root(home, cwd, workspace)?;
    Ok(std::fs::canonicalize(&root).unwrap_or(root))
}

/// The fleets of `root` beside it, oldest first: (folder, manifest).
fn fleets_of(root: &Path) -> Result<Vec<(PathBuf, Manifest)>, ExecError> {
    let (Some(parent), Some(name)) = (root.parent(), root.file_name()) else {
        return Ok(Vec::new());
    };
    let prefix = format!("{}-fleet-", name.to_string_lossy());
    let mut found = Vec::new();
    for entry in std::fs::read_dir(parent)?.flatten() {
        if !entry.file_name().to_string_lossy().starts_with(&prefix) {
            continue;
        }
        let dir = entry.path();
        if let Ok(Some(m)) = Manifest::read(&dir)
            && m.workspace == root
        {
            found.push((dir, m));
        }
    }
    found.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(found)
}

/// The fleets of the workspace found beside it, oldest first, and the
/// workspace's root.
pub fn list(
    home: &Home,
    cwd: &Path,
    workspace: Option<&Path>,
) -> Result<(PathBuf, Vec<FleetListing>), ExecError> {
    let root = root_of(home, cwd, workspace)?;
    let fleets = fleets_of(&root)?
        .into_iter()
        .map(|(dir, m)| FleetListing {
            copies: m.copies.iter().filter(|c| dir.join(c).is_dir()).count(),
            created: m
                .created_at
                .get(..16)
                .unwrap_or(&m.created_at)
                .replace('T', " "),
            task: m.task.split_whitespace().collect::<Vec<_>>().join(" "),
            dir,
        })
        .collect();
    Ok((root, fleets))
}

/// The copy `given` names: a folder, or `run-N` of the newest fleet.
fn find_copy(home: &Home, cwd: &Path, given: &Path) -> Result<PathBuf, ExecError> {
    if given.is_dir() {
        return Ok(std::fs::canonicalize(given)?);
    }
    let bare = given.components().count() == 1;
    if bare && let Some((dir, _)) = fleets_of(&root_of(home, cwd, None)?)?.pop() {
        let copy = dir.join(given);
        if copy.is_dir() {
            return Ok(copy);
        }
        refuse!(
            "the newest fleet, {}, has no copy {}",
            dir.display(),
            given.display()
        );
    }
    refuse!("no copy folder {}", given.display())
}

/// What applying one file does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum What {
    Add,
    Modify,
    Delete,
}

impl What {
    fn mark(self) -> char {
        match self {
            What::Add => 'A',
            What::Modify => 'M',
            What::Delete => 'D',
        }
    }
}

/// One file the run changed.
#[derive(Debug)]
struct Change {
    rel: PathBuf,
    what: What,
    /// The original changed it too since it was copied.
    conflict: bool,
}

/// Takes the changes of the copy `given` (a folder, or `run-N` of the
/// workspace's newest fleet) into the original, telling `out` what it does;
/// with `dry_run` only what it would do. Conflicts refuse the whole apply
/// unless `force`.
pub fn apply(
    home: &Home,
    cwd: &Path,
    given: &Path,
    dry_run: bool,
    force: bool,
    out: &mut dyn Write,
) -> Result<(), ExecError> {
    let copy = find_copy(home, cwd, given)?;
    let Some(fleet_dir) = copy.parent().map(Path::to_path_buf) else {
        refuse!("a copy has a fleet folder");
    };
    let Some(manifest) = Manifest::read(&fleet_dir)? else {
        refuse!(
            "{} is not a copy made by `seekclaw run --concurrency` (no {} beside it)",
            copy.display(),
            manifest::FILE
        );
    };
    let name = copy
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if !manifest.copies.contains(&name) {
        refuse!("{} is not one of the fleet's copies", copy.display());
    }
    let root = manifest.workspace.clone();
    if !root.is_dir() {
        refuse!("the original workspace {} is gone", root.display());
    }
    let home_root = std::fs::canonicalize(home.root()).unwrap_or_else(|_| home.root().into());
    let rules = Rules {
        never: vec![home_root, fleet_dir.clone()],
        skip_git_dirs: true,
    };
    let changes = plan(&root, &copy, &manifest, &rules)?;
    if changes.is_empty() {
        writeln!(
            out,
            "{name} changed nothing the original does not already have; nothing to apply."
        )?;
        return Ok(());
    }
    let conflicts: Vec<&Change> = changes.iter().filter(|c| c.conflict).collect();
    if !conflicts.is_empty() && !force && !dry_run {
        let listed: String = conflicts
            .iter()
            .map(|c| format!("\n  {}", c.rel.display()))
            .collect();
        refuse!(
            "{} file(s) changed both by {name} and in the original since the fleet copied it; nothing was applied:{listed}\n\
             compare them (e.g. `diff -u {root}/FILE {copy}/FILE`), then `seekclaw fleet apply --force {copy}` takes the copy's version of those too",
            conflicts.len(),
            root = root.display(),
            copy = copy.display(),
        );
    }
    writeln!(
        out,
        "{} {name} to {}:",
        if dry_run { "would apply" } else { "applying" },
        root.display()
    )?;
    for c in &changes {
        let note = if c.conflict {
            "  (changed in the original too: the copy's version wins only with --force)"
        } else {
            ""
        };
        writeln!(out, "  {} {}{note}", c.what.mark(), c.rel.display())?;
    }
    if dry_run {
        writeln!(out, "dry run: nothing was written.")?;
        return Ok(());
    }
    for c in &changes {
        write_change(&root, &copy, c).on("cannot apply", &c.rel)?;
    }
    writeln!(
        out,
        "applied {} change(s); the copies stay (`seekclaw fleet clean {}` removes them).",
        changes.len(),
        fleet_dir.display()
    )?;
    Ok(())
}

/// The files `copy`'s run changed, against the original as it is now.
fn plan(root: &Path, copy: &Path, m: &Manifest, rules: &Rules) -> Result<Vec<Change>, ExecError> {
    let files = |dir: &Path| -> Result<BTreeSet<PathBuf>, ExecError> {
        Ok(scan(dir, rules)
            .on("cannot read", dir)?
            .entries
            .into_iter()
            .filter(|e| e.kind != Kind::Dir)
            .map(|e| e.rel)
            .collect())
    };
    let (ours, theirs) = (files(root)?, files(copy)?);
    let mut changes = Vec::new();
    for rel in ours.union(&theirs) {
        let (o_path, c_path) = (root.join(rel), copy.join(rel));
        let (o, c) = (State::of(&o_path)?, State::of(&c_path)?);
        if same(&o_path, o.as_ref(), &c_path, c.as_ref())? {
            continue;
        }
        let base = m.base.get(&slashed(rel));
        // The copy as it was made: only the original changed this file.
        if c.as_ref() == base {
            continue;
        }
        let what = match (&o, &c) {
            (_, None) => What::Delete,
            (None, Some(_)) => What::Add,
            (Some(_), Some(_)) => What::Modify,
        };
        changes.push(Change {
            rel: rel.clone(),
            what,
            conflict: o.as_ref() != base,
        });
    }
    Ok(changes)
}

/// Whether the two sides hold the same thing.
fn same(a: &Path, sa: Option<&State>, b: &Path, sb: Option<&State>) -> Result<bool, ExecError> {
    Ok(match (sa, sb) {
        (None, None) => true,
        (Some(State::Link { target: x }), Some(State::Link { target: y })) => x == y,
        (Some(State::File { size: x, .. }), Some(State::File { size: y, .. })) => {
            x == y && same_bytes(a, b)?
        }
        _ => false,
    })
}

fn same_bytes(a: &Path, b: &Path) -> std::io::Result<bool> {
    let (mut fa, mut fb) = (std::fs::File::open(a)?, std::fs::File::open(b)?);
    let (mut ba, mut bb) = (vec![0u8; 64 * 1024], vec![0u8; 64 * 1024]);
    loop {
        let n = fa.read(&mut ba)?;
        if n == 0 {
            return Ok(fb.read(&mut bb[..1])? == 0);
        }
        fb.read_exact(&mut bb[..n])?;
        if ba[..n] != bb[..n] {
            return Ok(false);
        }
    }
}

/// Makes the original's file what the copy's is (through a temporary file
/// and a rename, so no half-written file is left).
fn write_change(root: &Path, copy: &Path, c: &Change) -> std::io::Result<()> {
    let (dest, src) = (root.join(&c.rel), copy.join(&c.rel));
    if c.what == What::Delete {
        match std::fs::remove_file(&dest) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
        // Folders the run emptied go too (not the root).
        let mut dir = dest.parent();
        while let Some(d) = dir.filter(|d| *d != root && d.starts_with(root)) {
            let rel = d.strip_prefix(root).unwrap_or(d);
            if copy.join(rel).is_dir() || std::fs::remove_dir(d).is_err() {
                break;
            }
            dir = d.parent();
        }
        return Ok(());
    }
    if let Some(parent) = dest.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let name = dest
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dest.with_file_name(format!(".{name}.seekclaw-apply"));
    let meta = std::fs::symlink_metadata(&src)?;
    if meta.file_type().is_symlink() {
        std::os::unix::fs::symlink(std::fs::read_link(&src)?, &tmp)?;
    } else {
        // `copy` keeps the mode.
        std::fs::copy(&src, &tmp)?;
    }
    std::fs::rename(&tmp, &dest).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

/// One folder `clean` removes: a whole fleet, or one copy of it.
struct Target {
    dir: PathBuf,
    /// For a copy: its fleet folder.
    fleet: Option<PathBuf>,
}

/// Removes fleet folders: `dirs` (a fleet folder, or one copy in it), else
/// every fleet of the workspace found beside it; tells `out` what it does,
/// with `dry_run` only what it would do.
pub fn clean(
    home: &Home,
    cwd: &Path,
    dirs: &[PathBuf],
    workspace: Option<&Path>,
    dry_run: bool,
    out: &mut dyn Write,
) -> Result<(), ExecError> {
    let mut targets = Vec::new();
    if dirs.is_empty() {
        let root = root_of(home, cwd, workspace)?;
        for (dir, _) in fleets_of(&root)? {
            targets.push(Target { dir, fleet: None });
        }
        if targets.is_empty() {
            writeln!(
                out,
                "no fleets of {} beside it (a fleet made with --fleet-dir: name its folder)",
                root.display()
            )?;
            return Ok(());
        }
    }
    for given in dirs {
        let dir = std::fs::canonicalize(given).on("no folder", given)?;
        if let Some(m) = Manifest::read(&dir)? {
            refuse_workspace(&dir, &m)?;
            targets.push(Target { dir, fleet: None });
            continue;
        }
        let parent = dir.parent().map(Path::to_path_buf);
        let name = dir.file_name().map(|n| n.to_string_lossy().into_owned());
        match (&parent, name) {
            (Some(p), Some(name))
                if Manifest::read(p)?.is_some_and(|m| m.copies.contains(&name)) =>
            {
                targets.push(Target {
                    dir,
                    fleet: Some(p.clone()),
                });
            }
            _ => refuse!(
                "{} is not a fleet folder or a copy in one (no {}): not removed",
                dir.display(),
                manifest::FILE
            ),
        }
    }
    for t in &targets {
        if dry_run {
            writeln!(out, "would remove {}", t.dir.display())?;
            continue;
        }
        std::fs::remove_dir_all(&t.dir).on("cannot remove", &t.dir)?;
        writeln!(out, "removed {}", t.dir.display())?;
        // The last copy gone: its fleet folder (only the manifest left) too.
        if let Some(fleet) = &t.fleet
            && let Some(m) = Manifest::read(fleet)?
            && m.copies.iter().all(|c| !fleet.join(c).exists())
        {
            std::fs::remove_dir_all(fleet).on("cannot remove", fleet)?;
            writeln!(out, "removed {} (no copy left)", fleet.display())?;
        }
    }
    Ok(())
}

/// A fleet folder never holds its own workspace (a manifest put there by
/// hand must not make `clean` delete the project).
fn refuse_workspace(dir: &Path, m: &Manifest) -> Result<(), ExecError> {
    if m.workspace.starts_with(dir) {
        refuse!(
            "{} holds the workspace {}: not removed",
            dir.display(),
            m.workspace.display()
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, rel: &str, text: &str) {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn the_plan_takes_the_runs_changes_and_flags_both_sided_ones() {
        let tmp = tempfile::tempdir().unwrap();
        let (root, fleet) = (tmp.path().join("ws"), tmp.path().join("fleet"));
        for (rel, text) in [
            ("keep.txt", "same\n"),
            ("edit.txt", "one\n"),
            ("gone.txt", "x\n"),
            ("both.txt", "base\n"),
            ("mine.txt", "base\n"),
            ("dir/old.txt", "o\n"),
        ] {
            write(&root, rel, text);
        }
        let tree = scan(&root, &Rules::default()).unwrap();
        let copy = fleet.join("run-1");
        std::fs::create_dir_all(&fleet).unwrap();
        super::super::copy::copy_tree(&root, &tree, &copy).unwrap();
        let m = Manifest::new(&root, "t", vec!["run-1".into()], &tree).unwrap();
        // The run: edits, adds, deletes; the user meanwhile edits two files.
        write(&copy, "edit.txt", "two\n");
        write(&copy, "new.txt", "n\n");
        std::fs::remove_file(copy.join("gone.txt")).unwrap();
        std::fs::remove_dir_all(copy.join("dir")).unwrap();
        write(&copy, "both.txt", "run\n");
        write(&root, "both.txt", "user\n");
        write(&root, "mine.txt", "user's own\n");
        let rules = Rules {
            never: vec![fleet.clone()],
            skip_git_dirs: true,
        };
        let changes = plan(&root, &copy, &m, &rules).unwrap();
        let got: Vec<(String, char, bool)> = changes
            .iter()
            .map(|c| (slashed(&c.rel), c.what.mark(), c.conflict))
            .collect();
        assert_eq!(
            got,
            [
                ("both.txt".into(), 'M', true),
                ("dir/old.txt".into(), 'D', false),
                ("edit.txt".into(), 'M', false),
                ("gone.txt".into(), 'D', false),
                ("new.txt".into(), 'A', false),
            ]
        );
        for c in changes.iter().filter(|c| !c.conflict) {
            write_change(&root, &copy, c).unwrap();
        }
        let read = |rel: &str| std::fs::read_to_string(root.join(rel)).ok();
        assert_eq!(read("edit.txt").as_deref(), Some("two\n"));
        assert_eq!(read("new.txt").as_deref(), Some("n\n"));
        assert_eq!(read("gone.txt"), None);
        assert!(!root.join("dir").exists(), "the emptied folder went too");
        assert_eq!(read("mine.txt").as_deref(), Some("user's own\n"));
        assert_eq!(read("both.txt").as_deref(), Some("user\n"));
        // Applied: the original now has the run's changes; nothing is left
        // but the conflict.
        let again = plan(&root, &copy, &m, &rules).unwrap();
        assert_eq!(again.len(), 1, "{again:?}");
    }
}
