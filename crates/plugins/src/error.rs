//! What can go wrong reading, installing or changing plugins.

use std::path::PathBuf;

/// A plugin operation that failed.
#[derive(Debug, thiserror::Error)]
pub enum PluginError {
    /// The source names nothing we can install.
    #[error("no plugin at '{0}': expected a folder, a git URL, owner/repo or NAME@MARKETPLACE")]
    UnknownSource(String),
    /// A source written as a path names no folder.
    #[error("no such folder: {}", .0.display())]
    NoSuchFolder(PathBuf),
    /// The folder has no usable manifest or layout.
    #[error("'{path}' is not a plugin: {reason}")]
    NotAPlugin {
        /// The folder.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// The plugin's name cannot be a folder name.
    #[error("invalid plugin name '{0}': use letters, digits, '.', '_' and '-'")]
    InvalidName(String),
    /// Already installed in that scope.
    #[error("plugin '{0}' is already installed (use --force to replace it)")]
    AlreadyInstalled(String),
    /// Not installed in that scope.
    #[error("plugin '{0}' is not installed")]
    NotInstalled(String),
    /// `git` failed or is missing.
    #[error("git {action} failed: {detail}")]
    Git {
        /// What git was asked to do.
        action: String,
        /// Its stderr, or why it did not start.
        detail: String,
    },
    /// A marketplace was not found or is invalid.
    #[error("marketplace: {0}")]
    Marketplace(String),
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// A state file could not be written.
    #[error(transparent)]
    Config(#[from] seekclaw_config::ConfigError),
}

impl PluginError {
    pub(crate) fn io(path: &std::path::Path, source: std::io::Error) -> PluginError {
        PluginError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}
