//! Our tools as Claude Code names them, so a user's rules and hook scripts
//! written for it work here: `bash` is `Bash` with `command`, `read_file` is
//! `Read` with an absolute `file_path`, and so on. MCP tools already share
//! the `mcp__server__tool` form.

use std::path::Path;

use serde_json::{Map, Value};

/// One of our tools and its Claude Code counterpart, with the argument
/// names that differ (ours → theirs).
struct Pair {
    ours: &'static str,
    claude: &'static str,
    args: &'static [(&'static str, &'static str)],
}

const PAIRS: &[Pair] = &[
    Pair {
        ours: "bash",
        claude: "Bash",
        args: &[],
    },
    Pair {
        ours: "read_file",
        claude: "Read",
        args: &[("path", "file_path")],
    },
    Pair {
        ours: "edit_file",
        claude: "Edit",
        args: &[("path", "file_path")],
    },
    Pair {
        ours: "multi_edit",
        claude: "MultiEdit",
        args: &[("path", "file_path")],
    },
    Pair {
        ours: "write_file",
        claude: "Write",
        args: &[("path", "file_path")],
    },
    Pair {
        ours: "grep",
        claude: "Grep",
        args: &[("max_results", "head_limit")],
    },
    Pair {
        ours: "glob",
        claude: "Glob",
        args: &[],
    },
    Pair {
        ours: "list_dir",
        claude: "LS",
        args: &[],
    },
    Pair {
        ours: "web_fetch",
        claude: "WebFetch",
        args: &[],
    },
    Pair {
        ours: "web_search",
        claude: "WebSearch",
        args: &[],
    },
    Pair {
        ours: "bash_output",
        claude: "BashOutput",
        args: &[("job_id", "bash_id")],
    },
    Pair {
        ours: "bash_stop",
        claude: "KillShell",
        args: &[("job_id", "shell_id")],
    },
    Pair {
        ours: "plan",
        claude: "TodoWrite",
        args: &[],
    },
    Pair {
        ours: "explore",
        claude: "Task",
        args: &[],
    },
    Pair {
        ours: "review",
        claude: "Task",
        args: &[],
    },
];

/// Claude Code's name for our tool `ours` (MCP and unpaired tools keep theirs).
pub fn claude_name(ours: &str) -> &str {
    PAIRS
        .iter()
        .find(|p| p.ours == ours)
        .map_or(ours, |p| p.claude)
}

/// Our tool for a name in either form (`Bash` or `bash`); unknown names as given.
pub fn our_name(any: &str) -> &str {
    PAIRS
        .iter()
        .find(|p| p.ours == any || p.claude == any)
        .map_or(any, |p| p.ours)
}

/// Whether `name` is one of ours or Claude Code's (or an MCP tool's form).
pub fn is_known(name: &str) -> bool {
    name.starts_with("mcp__")
        || PAIRS.iter().any(|p| p.ours == name || p.claude == name)
        || matches!(name, "remove" | "capture_screen" | "apply_patch")
}

/// The files a file tool's call names, as given (relative or absolute): its
/// `path`, or every file an `apply_patch` patch adds, deletes, updates or
/// moves to (read from the patch's headers alone, so even a patch the tool
/// would refuse is judged by every file it names).
pub fn file_paths(tool: &str, args: &Value) -> Vec<String> {
    if tool == "apply_patch" {
        return patch_paths(args["input"].as_str().unwrap_or_default());
    }
    args["path"]
        .as_str()
        .map(|p| vec![p.to_string()])
        .unwrap_or_default()
}

/// Every path named by a patch's `*** Add File:`, `*** Delete File:`,
/// `*** Update File:` and `*** Move to:` lines, once each, in order.
pub fn patch_paths(input: &str) -> Vec<String> {
    const HEADERS: [&str; 4] = [
        "*** Add File:",
        "*** Delete File:",
        "*** Update File:",
        "*** Move to:",
    ];
    let mut out: Vec<String> = Vec::new();
    for line in input.lines() {
        let line = line.trim();
        let named = HEADERS
            .iter()
            .find_map(|h| line.strip_prefix(h))
            .map(str::trim)
            .filter(|p| !p.is_empty());
        if let Some(p) = named
            && !out.iter().any(|o| o == p)
        {
            out.push(p.to_string());
        }
    }
    out
}

/// `args` under Claude Code's argument names; paths made absolute against
/// `cwd` as its hook scripts expect. Arguments it has no name for keep ours.
pub fn claude_input(ours: &str, args: &Value, cwd: &Path) -> Value {
    let Some(obj) = args.as_object() else {
        return args.clone();
    };
    let renames = PAIRS
        .iter()
        .find(|p| p.ours == ours)
        .map_or(&[][..], |p| p.args);
    let mut out = Map::new();
    for (k, v) in obj {
        let name = renames
            .iter()
            .find(|(o, _)| o == k)
            .map_or(k.as_str(), |(_, c)| c);
        let value = match (name, v) {
            ("file_path", Value::String(p)) => Value::String(absolute(cwd, p)),
            _ => v.clone(),
        };
        out.insert(name.to_string(), value);
    }
    if ours == "bash"
        && let Some(secs) = obj.get("timeout_seconds").and_then(Value::as_u64)
    {
        out.insert("timeout".into(), Value::from(secs.saturating_mul(1000)));
    }
    if let ("explore" | "review", Some(q)) = (ours, obj.get("query").or(obj.get("task"))) {
        out.insert("subagent_type".into(), Value::from(ours));
        out.insert("prompt".into(), q.clone());
    }
    Value::Object(out)
}

/// A hook's `updatedInput` (Claude Code's names) over the call's own
/// arguments: the names it knows are renamed back, the rest kept.
pub fn our_input(ours: &str, original: &Value, updated: &Value) -> Value {
    let (Some(orig), Some(upd)) = (original.as_object(), updated.as_object()) else {
        return original.clone();
    };
    let renames = PAIRS
        .iter()
        .find(|p| p.ours == ours)
        .map_or(&[][..], |p| p.args);
    let mut out = orig.clone();
    for (k, v) in upd {
        let name = renames
            .iter()
            .find(|(_, c)| c == k)
            .map_or(k.as_str(), |(o, _)| o);
        // Names only Claude Code's side has (`timeout` in ms, `subagent_type`) are not ours.
        if orig.contains_key(name) || !matches!(name, "timeout" | "subagent_type" | "prompt") {
            out.insert(name.to_string(), v.clone());
        }
    }
    Value::Object(out)
}

/// `p` as an absolute path (lexically: `..` and `.` folded).
pub fn absolute(cwd: &Path, p: &str) -> String {
    seekclaw_config::normalize_path(Path::new(p), cwd)
        .display()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_and_arguments_go_both_ways() {
        assert_eq!(claude_name("read_file"), "Read");
        assert_eq!(claude_name("mcp__gh__x"), "mcp__gh__x");
        assert_eq!(our_name("Edit"), "edit_file");
        let input = claude_input(
            "edit_file",
            &json!({"path": "src/a.rs", "old_string": "a", "new_string": "b"}),
            Path::new("/w"),
        );
        assert_eq!(input["file_path"], "/w/src/a.rs");
        assert_eq!(input["old_string"], "a");
        let back = our_input(
            "edit_file",
            &json!({"path": "src/a.rs", "old_string": "a", "new_string": "b"}),
            &json!({"file_path": "/w/src/b.rs", "new_string": "c"}),
        );
        assert_eq!(
            back,
            json!({"path": "/w/src/b.rs", "old_string": "a", "new_string": "c"})
        );
        let bash = claude_input(
            "bash",
            &json!({"command": "ls", "timeout_seconds": 5}),
            Path::new("/w"),
        );
        assert_eq!(bash["timeout"], 5000);
    }
}
