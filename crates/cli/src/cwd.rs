//! The working directory, with a message a person can act on when it is gone
//! (a shell still sitting in a directory that was deleted or moved away).

use std::path::PathBuf;

/// `std::env::current_dir()`, or an error that says what happened and what to do.
pub fn working_dir() -> anyhow::Result<PathBuf> {
    std::env::current_dir().map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => anyhow::anyhow!(
            "the current directory no longer exists (deleted or moved?); cd to an existing directory, or name one with --workspace"
        ),
        _ => anyhow::anyhow!("cannot read the current directory: {e}"),
    })
}
