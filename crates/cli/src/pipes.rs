//! `seekclaw … | head` ends quietly. Rust ignores SIGPIPE, so a closed stdout
//! turns each print into an error (or a `println!` panic). Commands that only
//! print what they read get SIGPIPE's default back and end as `cat` or `git`
//! do; their socket writes to the daemon ask for no signal (`MSG_NOSIGNAL`),
//! so a daemon that went away is an error, not a silent exit.

/// Restores SIGPIPE's default action for this process.
#[cfg(unix)]
pub fn end_quietly_on_closed_stdout() {
    // SAFETY: setting a signal's disposition to its default installs no
    // handler and touches no memory; called before any other thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

#[cfg(not(unix))]
pub fn end_quietly_on_closed_stdout() {}
