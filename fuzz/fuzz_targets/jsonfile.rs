//! A config file's bytes: the lenient readers (strict-typed, and field by
//! field with fallbacks) give a value or an error, never a panic or a stack
//! overflow, for a JSON tree and for the config types.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use seekclaw_config::{Config, State, WorkspaceConfig, load_json_file, read_json_lenient};

/// One file, reused: `<tmp>/seekclaw-fuzz-<pid>/config.json`.
fn path() -> &'static PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("seekclaw-fuzz-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        dir.join("config.json")
    })
}

fuzz_target!(|data: &[u8]| {
    let path = path();
    std::fs::write(path, data).expect("write the input");
    let _ = read_json_lenient::<serde_json::Value>(path);
    let _ = read_json_lenient::<Config>(path);
    let _ = read_json_lenient::<State>(path);
    let _ = read_json_lenient::<WorkspaceConfig>(path);
    let _ = load_json_file::<Config>(path);
    let _ = load_json_file::<State>(path);
});
