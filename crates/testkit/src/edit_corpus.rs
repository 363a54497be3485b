//! The corpus of near-miss edits (`corpus/edits/*.json`, `corpus/patches/*.json`):
//! each case a file, one model edit (an `edit_file`/`multi_edit` call and the
//! same change as an `apply_patch` patch) and the intended result. The e2e
//! suite and `seekclaw-bench edits` run every case through the real binary
//! and the testkit provider, and judge what landed on disk.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};

use crate::{ProviderServer, Reply};

/// One case.
#[derive(Debug, Clone)]
pub struct Case {
    pub name: String,
    pub class: String,
    /// The workspace before: path → bytes (text).
    pub before: BTreeMap<String, String>,
    /// The `edit_file` (one edit) or `multi_edit` (several) call's edits, with its path.
    pub edits: Option<(String, Vec<Value>)>,
    /// The same change as a Codex patch.
    pub patch: Option<String>,
    /// The intended workspace after (`None`: deleted); `None` when the case
    /// must be refused.
    pub after: Option<BTreeMap<String, Option<String>>>,
    /// The normalization `edit_file` should report.
    pub normalization: Option<String>,
    /// The normalizations `apply_patch` should report (one per hunk that needed one).
    pub patch_normalizations: Vec<String>,
}

/// Which edit tool a case runs through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EditTool {
    /// `edit_file`, or `multi_edit` for several edits.
    Replace,
    /// `apply_patch`.
    Patch,
}

/// How a run turned out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The intended bytes landed.
    Applied,
    /// Nothing changed where the case must be refused.
    RefusedRightly,
    /// Nothing changed though the case is recoverable (a retry turn).
    Refused,
    /// Something other than the intended bytes landed.
    Corrupted,
}

/// The corpus directory.
pub fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus")
}

/// Every case under `corpus/edits` and `corpus/patches`, sorted by name.
pub fn load() -> Result<Vec<Case>> {
    let mut cases = Vec::new();
    for sub in ["edits", "patches"] {
        let dir = corpus_dir().join(sub);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut files: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        files.sort();
        for file in files
            .iter()
            .filter(|f| f.extension().is_some_and(|e| e == "json"))
        {
            let text = std::fs::read_to_string(file)?;
            let list: Vec<Value> =
                serde_json::from_str(&text).with_context(|| format!("{}", file.display()))?;
            for raw in list {
                cases.push(parse(&raw).with_context(|| format!("{}: {raw}", file.display()))?);
            }
        }
    }
    cases.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(cases)
}

fn string(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_string)
}

fn parse(v: &Value) -> Result<Case> {
    let name = string(v, "name").context("name")?;
    let mut before = BTreeMap::new();
    if let (Some(file), Some(text)) = (string(v, "file"), string(v, "before")) {
        before.insert(file, text);
    }
    if let Some(files) = v.get("files").and_then(Value::as_object) {
        for (path, text) in files {
            before.insert(path.clone(), text.as_str().unwrap_or_default().to_string());
        }
    }
    let file = string(v, "file");
    let edits = match (v.get("edit"), v.get("edits")) {
        (Some(e), _) if e.is_object() => file.clone().map(|f| (f, vec![e.clone()])),
        (_, Some(Value::Array(list))) => file.clone().map(|f| (f, list.clone())),
        _ => None,
    };
    let applied = match string(v, "expect").as_deref() {
        Some("applied") => true,
        Some("refused") => false,
        other => bail!("expect must be applied or refused, not {other:?}"),
    };
    let after = if !applied {
        None
    } else if let Some(files) = v.get("after_files").and_then(Value::as_object) {
        let mut out: BTreeMap<String, Option<String>> = before
            .keys()
            .map(|k| (k.clone(), before.get(k).cloned()))
            .collect();
        for (path, text) in files {
            out.insert(path.clone(), text.as_str().map(str::to_string));
        }
        Some(out)
    } else {
        let file = file.context("file")?;
        let text = string(v, "after").context("after")?;
        Some(BTreeMap::from([(file, Some(text))]))
    };
    Ok(Case {
        name,
        class: string(v, "class").unwrap_or_default(),
        before,
        edits,
        patch: string(v, "patch"),
        after,
        normalization: string(v, "normalization"),
        patch_normalizations: v
            .get("patch_normalization")
            .and_then(Value::as_array)
            .map(|list| {
                list.iter()
                    .filter_map(|n| n.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default(),
    })
}

/// A `SEEKCLAW_HOME` whose provider is `server`; with `patch_model` its model
/// is one that gets `apply_patch`.
pub fn home(server: &ProviderServer, dir: &Path, tool: EditTool) -> Result<PathBuf> {
    let home = dir.join("home");
    std::fs::create_dir_all(&home)?;
    let model = match tool {
        EditTool::Replace => json!({"id": "m1"}),
        EditTool::Patch => json!({"id": "m1", "capabilities": {"applyPatch": true}}),
    };
    let config = json!({"providers": [{"id": "tk", "kind": "openai", "baseUrl": server.base_url(), "models": [model]}]});
    std::fs::write(home.join("config.json"), config.to_string())?;
    Ok(home)
}

/// What one run left: the workspace's files and the tool result the model read.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub files: BTreeMap<String, Option<String>>,
    pub result: String,
}

/// The tool call a case makes through `tool`; `None` when the case has no
/// form for it.
pub fn call(case: &Case, tool: EditTool) -> Option<(&'static str, String)> {
    match tool {
        EditTool::Replace => {
            let (path, edits) = case.edits.as_ref()?;
            Some(match edits.as_slice() {
                [one] => {
                    let mut args = one.clone();
                    args["path"] = json!(path);
                    ("edit_file", args.to_string())
                }
                several => (
                    "multi_edit",
                    json!({"path": path, "edits": several}).to_string(),
                ),
            })
        }
        EditTool::Patch => {
            let patch = case.patch.as_ref()?;
            Some(("apply_patch", json!({"input": patch}).to_string()))
        }
    }
}

/// Runs `case` through `bin` (`seekclaw run` in a fresh workspace under
/// `dir`) with `server` answering as the model; `None` when the case has no
/// form for `tool`.
pub fn run(
    bin: &Path,
    home: &Path,
    server: &ProviderServer,
    dir: &Path,
    case: &Case,
    tool: EditTool,
) -> Result<Option<Outcome>> {
    let Some((name, args)) = call(case, tool) else {
        return Ok(None);
    };
    let ws = dir.join(&case.name);
    if ws.exists() {
        std::fs::remove_dir_all(&ws)?;
    }
    std::fs::create_dir_all(&ws)?;
    for (path, text) in &case.before {
        let file = ws.join(path);
        std::fs::create_dir_all(file.parent().unwrap_or(&ws))?;
        std::fs::write(file, text)?;
    }
    server.clear_requests();
    server.enqueue(Reply::new().tool_call("c1", name, &args));
    server.enqueue(Reply::plain("done"));
    let out = Command::new(bin)
        .args(["run", "edit it", "--approval", "never"])
        .current_dir(&ws)
        .env("SEEKCLAW_HOME", home)
        .output()?;
    if !out.status.success() {
        bail!(
            "{}: seekclaw run failed: {}",
            case.name,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let mut files = BTreeMap::new();
    let mut paths: Vec<String> = case.before.keys().cloned().collect();
    if let Some(after) = &case.after {
        paths.extend(after.keys().cloned());
    }
    for path in paths {
        let text = std::fs::read(ws.join(&path))
            .ok()
            .map(|b| String::from_utf8_lossy(&b).into_owned());
        files.insert(path, text);
    }
    let result = tool_result(server);
    std::fs::remove_dir_all(&ws)?;
    Ok(Some(Outcome { files, result }))
}

/// The content of the last tool message the model was sent.
fn tool_result(server: &ProviderServer) -> String {
    let requests = server.requests();
    let Some(last) = requests.last() else {
        return String::new();
    };
    last.body["messages"]
        .as_array()
        .and_then(|m| m.iter().rev().find(|m| m["role"] == "tool"))
        .and_then(|m| m["content"].as_str().map(str::to_string))
        .unwrap_or_default()
}

/// How `outcome` compares with what `case` intends.
pub fn judge(case: &Case, outcome: &Outcome) -> Verdict {
    let untouched = case
        .before
        .iter()
        .all(|(path, text)| outcome.files.get(path) == Some(&Some(text.clone())))
        && outcome
            .files
            .iter()
            .all(|(path, text)| case.before.contains_key(path) || text.is_none());
    match &case.after {
        None if untouched => Verdict::RefusedRightly,
        None => Verdict::Corrupted,
        Some(after) if after.iter().all(|(p, t)| outcome.files.get(p) == Some(t)) => {
            Verdict::Applied
        }
        Some(_) if untouched => Verdict::Refused,
        Some(_) => Verdict::Corrupted,
    }
}
