//! What a sandboxed command's child does between fork and exec. The parent
//! has other threads, so only async-signal-safe raw syscalls on memory
//! prepared beforehand: no allocation, no locks, no std I/O.
//!
//! Order matters: namespaces and mounts first (a Landlock domain may not
//! mount); in a new PID namespace the split into three processes; then, in
//! the command only, `no_new_privs`, Landlock and seccomp:
//!
//! * the **relay** (the process our supervisor waits on, leader of the
//!   command's process group) waits for the command's status from the init
//!   and exits with it; a TERM or KILL to the group ends it like any member;
//! * the **init** (PID 1 of the namespace, same process group) reaps until
//!   nothing is left. When it is killed, the kernel kills everything in the
//!   namespace, `setsid` and double-forked descendants included: that is how
//!   leftovers die with the turn (or the job);
//! * the **command** (`/bin/bash -c …`), which goes on to exec.

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::FileTypeExt;
use std::path::PathBuf;

use libc::{c_int, pid_t};

use super::seccomp::Filters;

/// Identity uid/gid maps for an unprivileged user namespace (so `id` and file
/// ownership look as outside).
struct IdMaps {
    uid_map: CString,
    uid_line: Vec<u8>,
    setgroups: CString,
    gid_map: CString,
    gid_line: Vec<u8>,
}

pub(super) struct Enter {
    ruleset: OwnedFd,
    filters: Filters,
    /// Sockets directly in the hidden dirs (the daemon's), masked with `/dev/null`.
    masks: Vec<CString>,
    dev_null: CString,
    root: CString,
    ns_flags: c_int,
    maps: Option<IdMaps>,
}

fn cstring(bytes: &[u8]) -> Result<CString, String> {
    CString::new(bytes).map_err(|e| e.to_string())
}

/// The namespaces we ask for: root has the capability; anyone else needs a
/// user namespace too.
fn ns_flags() -> c_int {
    // SAFETY: geteuid cannot fail.
    let euid = unsafe { libc::geteuid() };
    let base = libc::CLONE_NEWNS | libc::CLONE_NEWPID;
    if euid == 0 {
        base
    } else {
        base | libc::CLONE_NEWUSER
    }
}

impl Enter {
    pub(super) fn new(
        ruleset: OwnedFd,
        filters: Filters,
        hidden: &[PathBuf],
    ) -> Result<Enter, String> {
        let mut masks = Vec::new();
        for dir in hidden {
            let Ok(entries) = std::fs::read_dir(dir) else {
                continue;
            };
            for entry in entries.flatten() {
                if entry.file_type().is_ok_and(|t| t.is_socket()) {
                    masks.push(cstring(entry.path().as_os_str().as_bytes())?);
                }
            }
        }
        let flags = ns_flags();
        let maps = if flags & libc::CLONE_NEWUSER != 0 {
            // SAFETY: getuid/getgid cannot fail.
            let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
            Some(IdMaps {
                uid_map: cstring(b"/proc/self/uid_map")?,
                uid_line: format!("{uid} {uid} 1\n").into_bytes(),
                setgroups: cstring(b"/proc/self/setgroups")?,
                gid_map: cstring(b"/proc/self/gid_map")?,
                gid_line: format!("{gid} {gid} 1\n").into_bytes(),
            })
        } else {
            None
        };
        Ok(Enter {
            ruleset,
            filters,
            masks,
            dev_null: cstring(b"/dev/null")?,
            root: cstring(b"/")?,
            ns_flags: flags,
            maps,
        })
    }

    /// Runs in the child. Returns to let it exec the command; the relay and
    /// the init never return (they run only this code, unrestricted).
    pub(super) fn run(&self) -> io::Result<()> {
        // SAFETY: raw syscalls on memory owned by `self`, which the child
        // inherited; see the module comment for why nothing else is used.
        unsafe {
            // Nothing below may mount unless this process is in a new mount
            // namespace whose mounts no longer propagate: mounting in the
            // daemon's namespace would cover the host's /proc.
            let wanted = libc::CLONE_NEWNS | libc::CLONE_NEWPID;
            let isolated = self.ns_flags & wanted == wanted && libc::unshare(self.ns_flags) == 0;
            if isolated {
                self.write_maps();
            }
            let private = isolated && self.make_private();
            // Unix sockets stay allowed only where no hidden socket could be reached.
            let unix_ok = self.masks.is_empty() || (private && self.mask_sockets());
            // No /proc of its own: mounting one per command (and tearing it
            // down) tripled the sandbox's cost. `$$` and `$!` are namespace
            // pids; `ps` lists the host's.
            if isolated {
                split()?;
            }
            if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
                return Err(io::Error::last_os_error());
            }
            if libc::syscall(
                libc::SYS_landlock_restrict_self,
                self.ruleset.as_raw_fd(),
                0 as libc::c_uint,
            ) != 0
            {
                return Err(io::Error::last_os_error());
            }
            let prog = if unix_ok {
                &self.filters.allow_unix
            } else {
                &self.filters.deny_unix
            };
            let fprog = libc::sock_fprog {
                len: u16::try_from(prog.len()).unwrap_or(u16::MAX),
                filter: prog.as_ptr() as *mut libc::sock_filter,
            };
            if libc::prctl(
                libc::PR_SET_SECCOMP,
                libc::SECCOMP_MODE_FILTER,
                &fprog as *const libc::sock_fprog,
            ) != 0
            {
                return Err(io::Error::last_os_error());
            }
        }
        Ok(())
    }

    /// Identity maps in a new user namespace (best effort: without them the
    /// command still runs, as the overflow uid).
    unsafe fn write_maps(&self) {
        let Some(maps) = &self.maps else { return };
        // SAFETY: NUL-terminated paths and byte slices owned by `self`.
        unsafe {
            write_file(&maps.uid_map, &maps.uid_line);
            write_file(&maps.setgroups, b"deny");
            write_file(&maps.gid_map, &maps.gid_line);
        }
    }

    /// Our mounts stay ours: no propagation back to the daemon's namespace.
    unsafe fn make_private(&self) -> bool {
        let none = std::ptr::null::<libc::c_char>();
        // SAFETY: NUL-terminated strings owned by `self`; null fs type and data.
        unsafe {
            libc::mount(
                none,
                self.root.as_ptr(),
                none,
                libc::MS_REC | libc::MS_PRIVATE,
                std::ptr::null(),
            ) == 0
        }
    }

    /// `/dev/null` over each hidden socket: `connect()` to it is refused.
    /// Only once [`Enter::make_private`] succeeded.
    unsafe fn mask_sockets(&self) -> bool {
        let none = std::ptr::null::<libc::c_char>();
        // SAFETY: NUL-terminated strings owned by `self`; null fs type and data.
        unsafe {
            for sock in &self.masks {
                if libc::mount(
                    self.dev_null.as_ptr(),
                    sock.as_ptr(),
                    none,
                    libc::MS_BIND,
                    std::ptr::null(),
                ) != 0
                {
                    return false;
                }
            }
        }
        true
    }
}

unsafe fn write_file(path: &CString, bytes: &[u8]) {
    // SAFETY: a NUL-terminated path; `bytes` outlives the write.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd >= 0 {
            libc::write(fd, bytes.as_ptr().cast(), bytes.len());
            libc::close(fd);
        }
    }
}

fn errno() -> c_int {
    io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

/// Forks the init of the new PID namespace and, from it, the command.
unsafe fn split() -> io::Result<()> {
    let mut fds: [c_int; 2] = [-1, -1];
    // SAFETY: raw syscalls; `fds` lives across them.
    unsafe {
        if libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
            return Err(io::Error::last_os_error());
        }
        let [read, write] = fds;
        match libc::fork() {
            -1 => Err(io::Error::last_os_error()),
            0 => {
                libc::close(read);
                match libc::fork() {
                    -1 => libc::_exit(127),
                    0 => {
                        libc::close(write);
                        Ok(())
                    }
                    command => init(command, write),
                }
            }
            _ => relay(read),
        }
    }
}

/// Closes every fd but `keep` (the std error pipe and the output pipes
/// included: only the command may hold them).
unsafe fn close_all_but(keep: c_int) {
    let keep = u32::try_from(keep).unwrap_or(0);
    // SAFETY: close_range takes plain integers.
    unsafe {
        if keep > 0 {
            libc::syscall(libc::SYS_close_range, 0u32, keep - 1, 0u32);
        }
        libc::syscall(libc::SYS_close_range, keep + 1, u32::MAX, 0u32);
    }
}

/// PID 1: reaps everything; tells the relay how the command ended; exits when
/// nothing is left.
unsafe fn init(command: pid_t, report: c_int) -> ! {
    // SAFETY: raw syscalls on locals.
    unsafe {
        close_all_but(report);
        let mut reported = false;
        loop {
            let mut status: c_int = 0;
            let pid = libc::waitpid(-1, &mut status, 0);
            if pid == command && !reported {
                let bytes = status.to_ne_bytes();
                libc::write(report, bytes.as_ptr().cast(), bytes.len());
                libc::close(report);
                reported = true;
            } else if pid < 0 && errno() != libc::EINTR {
                libc::_exit(0);
            }
        }
    }
}

/// The process our supervisor waits on: ends as the command ended.
unsafe fn relay(status_pipe: c_int) -> ! {
    // SAFETY: raw syscalls on locals.
    unsafe {
        close_all_but(status_pipe);
        let mut buf = [0u8; 4];
        let mut got = 0usize;
        while got < buf.len() {
            let n = libc::read(
                status_pipe,
                buf.as_mut_ptr().add(got).cast(),
                buf.len() - got,
            );
            if n > 0 {
                got += n as usize;
            } else if n < 0 && errno() == libc::EINTR {
                continue;
            } else {
                break;
            }
        }
        if got < buf.len() {
            // The init died first: it was killed, and the command with it.
            die_of(libc::SIGKILL);
        }
        let status = c_int::from_ne_bytes(buf);
        if libc::WIFEXITED(status) {
            libc::_exit(libc::WEXITSTATUS(status));
        }
        if libc::WIFSIGNALED(status) {
            die_of(libc::WTERMSIG(status));
        }
        libc::_exit(255)
    }
}

unsafe fn die_of(sig: c_int) -> ! {
    // SAFETY: raw syscalls.
    unsafe {
        libc::signal(sig, libc::SIG_DFL);
        libc::kill(libc::getpid(), sig);
        libc::_exit(128 + sig)
    }
}

/// Whether our commands get their namespaces here (root, or unprivileged
/// user namespaces allowed).
pub(super) fn namespaces_work() -> bool {
    use std::os::unix::process::CommandExt;
    let flags = ns_flags();
    let mut cmd = std::process::Command::new("/bin/true");
    // SAFETY: one raw syscall between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            if libc::unshare(flags) == 0 {
                Ok(())
            } else {
                Err(io::Error::last_os_error())
            }
        });
    }
    cmd.status().is_ok_and(|s| s.success())
}
