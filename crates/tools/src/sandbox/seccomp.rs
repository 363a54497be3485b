//! The seccomp filters of a sandboxed command, compiled in the parent with
//! `seccompiler`; the child installs one with a single `prctl`.

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

/// The two programs of a spawn; the child picks one once it knows whether the
/// daemon's socket could be masked.
pub(super) struct Filters {
    /// Unix sockets allowed (the hidden sockets are masked by a mount namespace).
    pub(super) allow_unix: BpfProgram,
    /// No Unix sockets either (no namespace: the daemon's socket would be reachable).
    pub(super) deny_unix: BpfProgram,
}

impl Filters {
    pub(super) fn compile(network: bool) -> Result<Filters, String> {
        Ok(Filters {
            allow_unix: program(network, true)?,
            deny_unix: program(network, false)?,
        })
    }
}

/// Whether the kernel takes seccomp filters that return an errno.
pub(super) fn available() -> bool {
    const SECCOMP_GET_ACTION_AVAIL: libc::c_ulong = 2;
    const SECCOMP_RET_ERRNO: u32 = 0x0005_0000;
    let action = SECCOMP_RET_ERRNO;
    // SAFETY: the query reads one u32 that lives across the call.
    let r = unsafe {
        libc::syscall(
            libc::SYS_seccomp,
            SECCOMP_GET_ACTION_AVAIL,
            0 as libc::c_ulong,
            &action as *const u32,
        )
    };
    r == 0
}

/// Denied calls fail with EACCES; everything else is allowed. Other
/// architectures' calls (e.g. i386 `socketcall` on x86_64) are killed by the
/// arch check seccompiler puts first.
fn program(network: bool, unix: bool) -> Result<BpfProgram, String> {
    let err = |e: seccompiler::BackendError| e.to_string();
    let family = |op| -> Result<Vec<SeccompRule>, String> {
        let cond = SeccompCondition::new(0, SeccompCmpArgLen::Dword, op, libc::AF_UNIX as u64)
            .map_err(err)?;
        Ok(vec![SeccompRule::new(vec![cond]).map_err(err)?])
    };
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    // io_uring opens sockets and files without the syscalls filtered here.
    for call in [
        libc::SYS_io_uring_setup,
        libc::SYS_io_uring_enter,
        libc::SYS_io_uring_register,
    ] {
        rules.insert(call, Vec::new());
    }
    match (network, unix) {
        (true, true) => {}
        (true, false) => {
            rules.insert(libc::SYS_socket, family(SeccompCmpOp::Eq)?);
        }
        (false, true) => {
            rules.insert(libc::SYS_socket, family(SeccompCmpOp::Ne)?);
        }
        (false, false) => {
            rules.insert(libc::SYS_socket, Vec::new());
        }
    }
    let arch = TargetArch::try_from(std::env::consts::ARCH)
        .map_err(|e| format!("seccomp on {}: {e}", std::env::consts::ARCH))?;
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EACCES as u32),
        arch,
    )
    .map_err(err)?;
    BpfProgram::try_from(filter).map_err(err)
}
