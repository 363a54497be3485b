//! The Landlock ruleset of a sandboxed command, built in the parent; the
//! child only calls `landlock_restrict_self` with its fd.

use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};

use landlock::{
    ABI, Access, AccessFs, BitFlags, PathBeneath, PathFd, Ruleset, RulesetAttr, RulesetCreated,
    RulesetCreatedAttr, Scope,
};
use seekclaw_config::SandboxMode;

use super::SandboxPolicy;

/// Character devices every command may read and write (`> /dev/null`, …).
const DEVICES: [&str; 6] = [
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
    "/dev/tty",
];

/// The kernel's Landlock ABI version (0: none).
pub(super) fn abi_version() -> u32 {
    const LANDLOCK_CREATE_RULESET_VERSION: libc::c_uint = 1;
    // SAFETY: the version query takes no attribute pointer and creates no fd.
    let v = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    u32::try_from(v).unwrap_or(0)
}

/// The ruleset fd of `policy`. `temp` is the writable temp dir (workspace-write).
pub(super) fn ruleset(
    policy: &SandboxPolicy,
    temp: Option<&Path>,
    abi: u32,
) -> Result<OwnedFd, String> {
    let abi = ABI::from(i32::try_from(abi).unwrap_or(i32::MAX));
    let all = AccessFs::from_all(abi);
    let err = |e: landlock::RulesetError| e.to_string();
    let mut ruleset = Ruleset::default().handle_access(all).map_err(err)?;
    let scopes = Scope::from_all(abi);
    if !scopes.is_empty() {
        // No signals to processes outside the sandbox (the daemon, other
        // sessions' commands), no abstract Unix sockets created outside it.
        ruleset = ruleset.scope(scopes).map_err(err)?;
    }
    let mut created = ruleset.create().map_err(err)?;
    let mut grant = Grants {
        ruleset: &mut created,
        hidden: &policy.hidden,
        file_rights: AccessFs::from_file(abi),
    };
    // Names are not secrets: listing any directory keeps `ls /` and tools
    // that scan parents working; file contents below stay hidden.
    grant.path(Path::new("/"), AccessFs::ReadDir.into())?;
    // Connecting to a Unix socket by path is a right from ABI 9 on: allowed
    // where reading is (so never to the daemon's socket).
    let read = (AccessFs::ReadFile | AccessFs::Execute | AccessFs::ResolveUnix) & all;
    grant.beneath_except(Path::new("/"), read)?;
    if policy.mode == SandboxMode::WorkspaceWrite {
        grant.beneath_except(&policy.workspace_root, all)?;
        if let Some(temp) = temp {
            grant.beneath_except(&super::canonical(temp), all)?;
        }
    }
    let device = AccessFs::ReadFile | AccessFs::WriteFile | AccessFs::Truncate | AccessFs::IoctlDev;
    for dev in DEVICES {
        grant.path(Path::new(dev), device & all)?;
    }
    Option::<OwnedFd>::from(created).ok_or_else(|| "Landlock ruleset was not created".to_string())
}

struct Grants<'a> {
    ruleset: &'a mut RulesetCreated,
    hidden: &'a [PathBuf],
    file_rights: BitFlags<AccessFs>,
}

impl Grants<'_> {
    /// `rights` beneath `path` (file rights only, for a file). A path that
    /// does not exist grants nothing.
    fn path(&mut self, path: &Path, rights: BitFlags<AccessFs>) -> Result<(), String> {
        let Ok(meta) = std::fs::metadata(path) else {
            return Ok(());
        };
        let rights = if meta.is_dir() {
            rights
        } else {
            rights & self.file_rights
        };
        if rights.is_empty() {
            return Ok(());
        }
        let Ok(fd) = PathFd::new(path) else {
            return Ok(());
        };
        (&mut *self.ruleset)
            .add_rule(PathBeneath::new(fd, rights))
            .map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(())
    }

    /// `rights` beneath `root` except beneath the hidden dirs: where a hidden
    /// dir lies below `root`, each sibling along the way is granted instead.
    /// Symlinks among those siblings are skipped (their targets are granted,
    /// or not, by their own paths).
    fn beneath_except(&mut self, root: &Path, rights: BitFlags<AccessFs>) -> Result<(), String> {
        let inner: Vec<PathBuf> = self
            .hidden
            .iter()
            .filter(|h| h.starts_with(root))
            .cloned()
            .collect();
        if inner.is_empty() {
            return self.path(root, rights);
        }
        if inner.iter().any(|h| h == root) {
            return Ok(());
        }
        let Ok(entries) = std::fs::read_dir(root) else {
            return Ok(());
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if entry.file_type().map(|t| t.is_symlink()).unwrap_or(true) {
                continue;
            }
            if inner.iter().any(|h| h == &path) {
                continue;
            }
            if inner.iter().any(|h| h.starts_with(&path)) {
                self.beneath_except(&path, rights)?;
            } else {
                self.path(&path, rights)?;
            }
        }
        Ok(())
    }
}
