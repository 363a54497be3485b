//! How tests and benchmarks start Debian's headless Chromium.

use std::path::Path;

/// Chromium's flags for a closed network and a throwaway profile at
/// `profile` (its background connections are refused here otherwise).
pub fn chromium_args(profile: &Path) -> Vec<String> {
    [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--window-size=1200,800",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([format!("--user-data-dir={}", profile.display())])
    .collect()
}
