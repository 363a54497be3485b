//! How a tool call looks to an editor: its ACP `kind`, title, the files it
//! touches (`locations`) and a file change as a `diff` content item.

use std::path::Path;

use serde_json::{Value, json};

/// The ACP tool kind of a registry tool (the editor picks its icon by it).
pub fn kind(tool: &str) -> &'static str {
    match tool {
        "read_file" => "read",
        "write_file" | "edit_file" | "multi_edit" | "apply_patch" => "edit",
        "remove" => "delete",
        "glob" | "grep" | "list_dir" => "search",
        "bash" | "bash_output" | "bash_stop" => "execute",
        "web_fetch" => "fetch",
        "plan" => "think",
        _ => "other",
    }
}

/// A title: the tool and its one-line summary.
pub fn title(tool: &str, summary: &str) -> String {
    if summary.is_empty() {
        tool.to_string()
    } else {
        format!("{tool} ({summary})")
    }
}

/// The file a call names, read from its summary (`path: src/x.rs, …`),
/// absolute against `cwd` as ACP wants.
pub fn location(summary: &str, cwd: &Path) -> Option<Value> {
    let path = summary
        .split(", ")
        .find_map(|part| part.strip_prefix("path: "))?;
    // A cut-off value (`…`) is no path.
    if path.ends_with('…') || path.is_empty() {
        return None;
    }
    Some(json!({"path": absolute(path, cwd)}))
}

/// The files a call names, from its arguments: a patch's files (every one
/// it adds, deletes, updates or moves to), else its `path`.
pub fn call_locations(tool: &str, args: &Value, cwd: &Path) -> Vec<Value> {
    seekclaw_policy::names::file_paths(tool, args)
        .iter()
        .map(|p| json!({"path": absolute(p, cwd)}))
        .collect()
}

/// A unified diff of several files (a patch's) cut into one per file, each
/// named by its `+++ b/…` line.
pub fn split_diff(unified: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let lines: Vec<&str> = unified.split_inclusive('\n').collect();
    for (i, line) in lines.iter().enumerate() {
        let next = lines.get(i + 1).copied().unwrap_or_default();
        if line.starts_with("--- a/")
            && let Some(new) = next.strip_prefix("+++ b/")
        {
            out.push((new.trim_end().to_string(), String::new()));
        }
        if let Some((_, diff)) = out.last_mut() {
            diff.push_str(line);
        }
    }
    out
}

/// The `diff` items of a call's diff: one per file it changed (`path`
/// names a diff without file headers).
pub fn diff_items(path: &str, unified: &str, cwd: &Path) -> Vec<Value> {
    let files = split_diff(unified);
    if files.is_empty() {
        return vec![diff_content(path, unified, cwd)];
    }
    files.iter().map(|(p, d)| diff_content(p, d, cwd)).collect()
}

/// `path` against `cwd` unless absolute.
pub fn absolute(path: &str, cwd: &Path) -> String {
    let p = Path::new(path);
    if p.is_absolute() {
        path.to_string()
    } else {
        cwd.join(p).display().to_string()
    }
}

/// A unified diff as ACP's `diff` content: the hunks' old and new sides
/// (context lines in both), hunks separated by a blank line; a file that
/// did not exist has no old text.
pub fn diff_content(path: &str, unified: &str, cwd: &Path) -> Value {
    let mut old = String::new();
    let mut new = String::new();
    let mut created = false;
    let mut hunks = 0;
    for line in unified.lines() {
        if line.starts_with("---") || line.starts_with("+++") {
            continue;
        }
        if line.starts_with("@@") {
            created = hunks == 0 && line.starts_with("@@ -0,0 ");
            if hunks > 0 {
                old.push('\n');
                new.push('\n');
            }
            hunks += 1;
            continue;
        }
        if line.starts_with('\\') {
            continue;
        }
        match line.split_at_checked(1) {
            Some(("-", rest)) => push_line(&mut old, rest),
            Some(("+", rest)) => push_line(&mut new, rest),
            Some((" ", rest)) => {
                push_line(&mut old, rest);
                push_line(&mut new, rest);
            }
            _ => {
                push_line(&mut old, line);
                push_line(&mut new, line);
            }
        }
    }
    let old_text = if created { Value::Null } else { json!(old) };
    json!({"type": "diff", "path": absolute(path, cwd), "oldText": old_text, "newText": new})
}

fn push_line(to: &mut String, line: &str) {
    to.push_str(line);
    to.push('\n');
}

/// A text content item.
pub fn text_content(text: &str) -> Value {
    json!({"type": "content", "content": {"type": "text", "text": text}})
}

/// The `plan` tool's checklist (`[x] step` lines) as ACP plan entries.
pub fn plan_entries(checklist: &str) -> Vec<Value> {
    checklist
        .lines()
        .filter_map(|line| {
            let (status, step) = if let Some(s) = line.strip_prefix("[x] ") {
                ("completed", s)
            } else if let Some(s) = line.strip_prefix("[>] ") {
                ("in_progress", s)
            } else {
                ("pending", line.strip_prefix("[ ] ")?)
            };
            Some(json!({"content": step, "priority": "medium", "status": status}))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_diff_becomes_old_and_new_text() {
        let d = "--- a/x.txt\n+++ b/x.txt\n@@ -1,2 +1,2 @@\n keep\n-old\n+new\n";
        let v = diff_content("x.txt", d, Path::new("/w"));
        assert_eq!(v["path"], "/w/x.txt");
        assert_eq!(v["oldText"], "keep\nold\n");
        assert_eq!(v["newText"], "keep\nnew\n");
        let created = diff_content("/abs/n.txt", "@@ -0,0 +1 @@\n+hi\n", Path::new("/w"));
        assert!(created["oldText"].is_null());
        assert_eq!(created["path"], "/abs/n.txt");
    }

    #[test]
    fn a_patch_is_an_edit_of_each_of_its_files() {
        let cwd = Path::new("/w");
        assert_eq!(kind("apply_patch"), "edit");
        let args = json!({"input": "*** Begin Patch\n*** Update File: a.rs\n*** Move to: b.rs\n@@\n-x\n+y\n*** Add File: c.rs\n+z\n*** End Patch"});
        assert_eq!(
            call_locations("apply_patch", &args, cwd),
            [
                json!({"path": "/w/a.rs"}),
                json!({"path": "/w/b.rs"}),
                json!({"path": "/w/c.rs"})
            ]
        );
        assert_eq!(
            call_locations("edit_file", &json!({"path": "d.rs"}), cwd),
            [json!({"path": "/w/d.rs"})]
        );
        let diff = "--- a/a.rs\n+++ b/b.rs\n@@ -1 +1 @@\n-x\n+y\n--- a/c.rs\n+++ b/c.rs\n@@ -0,0 +1 @@\n+z\n";
        let items = diff_items("a.rs", diff, cwd);
        assert_eq!(items.len(), 2);
        assert_eq!(
            (
                &items[0]["path"],
                &items[0]["oldText"],
                &items[0]["newText"]
            ),
            (&json!("/w/b.rs"), &json!("x\n"), &json!("y\n"))
        );
        assert_eq!(items[1]["path"], "/w/c.rs");
        assert!(items[1]["oldText"].is_null());
        let one = "--- a/x.txt\n+++ b/x.txt\n@@ -1 +1 @@\n-a\n+b\n";
        assert_eq!(
            diff_items("x.txt", one, cwd),
            [diff_content("x.txt", one, cwd)]
        );
    }

    #[test]
    fn locations_and_plans_are_read_from_summaries() {
        let cwd = Path::new("/w");
        assert_eq!(
            location("path: src/a.rs, offset: 3", cwd),
            Some(json!({"path": "/w/src/a.rs"}))
        );
        assert_eq!(location("command: ls", cwd), None);
        let entries = plan_entries("Plan (1/3 completed)\n[x] a\n[>] b\n[ ] c");
        let statuses: Vec<&str> = entries
            .iter()
            .map(|e| e["status"].as_str().unwrap())
            .collect();
        assert_eq!(statuses, ["completed", "in_progress", "pending"]);
    }
}
