//! Language servers for diagnostics after an edit: a small LSP client over
//! stdio ([`framing`], `client`) and the engine's [`LspManager`], which
//! implements `seekclaw_tools::Diagnostics` for a workspace: the errors an
//! edit introduced, within a bound, from the servers `lsp` in the config names.
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]
#![warn(missing_docs)]

mod client;
mod compare;
pub mod framing;
mod manager;
mod spec;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub use client::StartError;
pub use manager::{LspManager, ServerState, ServerStatus, SettingsSource};
pub use spec::{ServerSpec, SpecProblem, language_id, preset_names, resolve};

/// Where `program` would be found when started with `env` on top of ours
/// (`PATH` searched unless it names a path).
pub fn find_program(program: &str, env: &BTreeMap<String, String>) -> Option<PathBuf> {
    if program.contains('/') {
        let path = Path::new(program);
        return path.is_file().then(|| path.to_path_buf());
    }
    let path = match env.get("PATH") {
        Some(p) => std::ffi::OsString::from(p),
        None => std::env::var_os("PATH")?,
    };
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|candidate| is_executable(candidate))
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(path: &Path) -> bool {
    path.is_file()
}

#[cfg(test)]
mod manager_tests;
