//! `apply_patch` for the models trained on it (issue 40, item 2), through
//! the real binary and the testkit provider: a GPT model is offered
//! `apply_patch` and not `edit_file`/`multi_edit`, and its patch lands; a
//! model without the capability is offered `edit_file` only, and its call
//! of `apply_patch` is refused with the file untouched.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use seekclaw_testkit::{ProviderServer, Reply};
use serde_json::{Value, json};

use crate::support::bin;

/// A home whose provider `tk` (the testkit server) serves `gpt-5` (an
/// OpenAI id: apply_patch by the catalog) and `m1` (no capability), and a
/// workspace holding `src/app.py`.
fn setup(server: &ProviderServer) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let ws = tmp.path().join("project");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(ws.join("src")).unwrap();
    let config = json!({"providers": [{"id": "tk", "kind": "openai", "baseUrl": server.base_url(),
        "models": [{"id": "gpt-5"}, {"id": "m1"},
            {"id": "local-coder", "capabilities": {"applyPatch": true, "freeformTools": true}}]}]});
    std::fs::write(home.join("config.json"), config.to_string()).unwrap();
    std::fs::write(
        ws.join("src/app.py"),
        "def greet():\n    print(\"Hi\")\n\n\ndef bye():\n    print(\"Bye\")\n",
    )
    .unwrap();
    (tmp, home, ws)
}

fn run(home: &Path, ws: &Path, model: &str) -> Output {
    Command::new(bin())
        .args([
            "run",
            "change the greeting",
            "--approval",
            "never",
            "--model",
            model,
        ])
        .args(["--workspace", ws.to_str().unwrap()])
        .env("SEEKCLAW_HOME", home)
        .current_dir(ws)
        .output()
        .unwrap()
}

/// The tool names a request offered.
fn offered(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .filter_map(|t| {
                    t["function"]["name"]
                        .as_str()
                        .or(t["custom"]["name"].as_str())
                })
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// The tool result the model read in `body` for `call_id`.
fn tool_result(body: &Value, call_id: &str) -> String {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool" && m["tool_call_id"] == call_id)
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default()
        .to_string()
}

const PATCH: &str = "*** Begin Patch\n*** Update File: src/app.py\n@@ def greet():\n-    print(\"Hi\")\n+    print(\"Hello\")\n*** Add File: src/util.py\n+X = 1\n*** End Patch\n";

#[test]
fn a_gpt_model_gets_apply_patch_and_its_patch_lands() {
    let server = ProviderServer::start().unwrap();
    let (_tmp, home, ws) = setup(&server);
    let args = json!({"input": PATCH}).to_string();
    server.enqueue(Reply::new().tool_call("p1", "apply_patch", args));
    server.enqueue(Reply::plain("patched"));
    let out = run(&home, &ws, "tk/gpt-5");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "patched");

    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let tools = offered(&requests[0].body);
    assert!(tools.contains(&"apply_patch".to_string()), "{tools:?}");
    assert!(
        !tools.iter().any(|t| t == "edit_file" || t == "multi_edit"),
        "never both edit families: {tools:?}"
    );
    let apply = requests[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["function"]["name"] == "apply_patch")
        .unwrap()
        .clone();
    // Not OpenAI's own API: a function tool taking the patch as `input`.
    assert_eq!(apply["type"], "function");
    assert_eq!(
        apply["function"]["parameters"]["required"],
        json!(["input"])
    );

    assert_eq!(
        std::fs::read_to_string(ws.join("src/app.py")).unwrap(),
        "def greet():\n    print(\"Hello\")\n\n\ndef bye():\n    print(\"Bye\")\n"
    );
    assert_eq!(
        std::fs::read_to_string(ws.join("src/util.py")).unwrap(),
        "X = 1\n"
    );
    let result = tool_result(&requests[1].body, "p1");
    assert!(
        result.starts_with("Updated src/app.py\nAdded src/util.py"),
        "{result}"
    );
}

#[test]
fn a_model_without_the_capability_gets_edit_file_only() {
    let server = ProviderServer::start().unwrap();
    let (_tmp, home, ws) = setup(&server);
    let before = std::fs::read_to_string(ws.join("src/app.py")).unwrap();
    // It calls apply_patch anyway: refused, naming the tools it has.
    let args = json!({"input": PATCH}).to_string();
    server.enqueue(Reply::new().tool_call("p1", "apply_patch", args));
    server.enqueue(Reply::plain("gave up"));
    let out = run(&home, &ws, "tk/m1");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let requests = server.requests();
    let tools = offered(&requests[0].body);
    assert!(
        tools.contains(&"edit_file".to_string()) && tools.contains(&"multi_edit".to_string()),
        "{tools:?}"
    );
    assert!(!tools.contains(&"apply_patch".to_string()), "{tools:?}");
    let result = tool_result(&requests[1].body, "p1");
    assert!(
        result.contains("Tool 'apply_patch' is not offered to this model: edit files with edit_file or multi_edit instead."),
        "{result}"
    );
    assert_eq!(
        std::fs::read_to_string(ws.join("src/app.py")).unwrap(),
        before
    );
    assert!(!ws.join("src/util.py").exists());
}

/// A model set to take freeform tools gets `apply_patch` as a custom tool
/// with its Lark grammar, and its call replays as a custom call.
#[test]
fn a_freeform_model_gets_the_patch_grammar_and_its_calls_replay_as_custom() {
    let server = ProviderServer::start().unwrap();
    let (_tmp, home, ws) = setup(&server);
    let args = json!({"input": PATCH}).to_string();
    server.enqueue(Reply::new().tool_call("p1", "apply_patch", args));
    server.enqueue(Reply::plain("patched"));
    let out = run(&home, &ws, "tk/local-coder");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let requests = server.requests();
    let tools = requests[0].body["tools"].as_array().unwrap();
    let apply = tools
        .iter()
        .find(|t| t["custom"]["name"] == "apply_patch")
        .unwrap_or_else(|| panic!("no custom apply_patch: {tools:?}"));
    assert_eq!(apply["type"], "custom");
    let grammar = &apply["custom"]["format"]["grammar"];
    assert_eq!(apply["custom"]["format"]["type"], "grammar");
    assert_eq!(grammar["syntax"], "lark");
    assert!(
        grammar["definition"]
            .as_str()
            .unwrap()
            .contains("\"*** Begin Patch\"")
    );
    assert!(!offered(&requests[0].body).contains(&"edit_file".to_string()));
    let replayed = requests[1].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find_map(|m| m["tool_calls"].as_array())
        .unwrap()[0]
        .clone();
    assert_eq!(
        replayed,
        json!({"id": "p1", "type": "custom", "custom": {"name": "apply_patch", "input": PATCH}})
    );
    assert!(tool_result(&requests[1].body, "p1").starts_with("Updated src/app.py"));
}

/// Over the daemon: one `file_diff` per file of the patch, a checkpoint
/// covering every file it touched, and a rewind that puts each back.
#[test]
fn a_patch_over_the_socket_diffs_checkpoints_and_rewinds_every_file() {
    use crate::support::turns::{chat, events};
    use seekclaw_testkit::StartOptions;

    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let ws = crate::support::project_dir(tmp.path(), "proj");
    std::fs::write(ws.join("a.txt"), "one\ntwo\n").unwrap();
    std::fs::write(ws.join("c.txt"), "bye\n").unwrap();
    let w = ws.display().to_string();
    let config = json!({"providers": [{"id": "tk", "kind": "openai", "baseUrl": server.base_url(),
        "timeoutSeconds": 20, "models": [{"id": "gpt-5"}]}]});
    let d = crate::support::start_with(StartOptions {
        config: Some(config),
        ..StartOptions::default()
    });
    let mut c = d.connect().unwrap();
    let patch = "*** Begin Patch\n*** Update File: a.txt\n@@\n one\n-two\n+TWO\n*** Add File: b.txt\n+new\n*** Delete File: c.txt\n*** End Patch";
    let args = json!({"input": patch}).to_string();
    server.enqueue(Reply::new().tool_call("p1", "apply_patch", args));
    server.enqueue(Reply::plain("patched"));
    let all = chat(&mut c, json!({"message": "patch it", "workspace": w}));
    assert_eq!(all.last().unwrap()["event"], "done", "{all:?}");
    assert_eq!(
        std::fs::read_to_string(ws.join("a.txt")).unwrap(),
        "one\nTWO\n"
    );
    assert_eq!(std::fs::read_to_string(ws.join("b.txt")).unwrap(), "new\n");
    assert!(!ws.join("c.txt").exists());

    let diffs = events(&all, "file_diff");
    let paths: Vec<&str> = diffs.iter().map(|e| e["data"].as_str().unwrap()).collect();
    assert_eq!(paths, ["a.txt", "b.txt", "c.txt"], "{diffs:?}");
    let diff = |i: usize| diffs[i]["details"]["diff"].as_str().unwrap().to_string();
    assert!(diff(0).starts_with("--- a/a.txt\n+++ b/a.txt\n") && diff(0).contains("-two\n+TWO\n"));
    assert!(
        !diff(0).contains("b.txt"),
        "one file per event: {}",
        diff(0)
    );
    assert!(diff(1).contains("+new\n") && diff(2).contains("-bye\n"));

    let touched: Vec<String> = events(&all, "checkpoint")
        .iter()
        .map(|e| serde_json::from_str::<Value>(e["data"].as_str().unwrap()).unwrap())
        .flat_map(|n| n["files"].as_array().cloned().unwrap_or_default())
        .map(|f| f["path"].as_str().unwrap().to_string())
        .collect();
    for path in ["a.txt", "b.txt", "c.txt"] {
        assert!(touched.iter().any(|t| t == path), "{path}: {touched:?}");
    }
    let sid = all[0]["sessionId"].as_str().unwrap().to_string();
    let session = c
        .ok_json("session.get", json!({"id": sid, "workspace": w}))
        .unwrap();
    let turn = session["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "user")
        .unwrap()["seq"]
        .clone();
    c.ok_json(
        "session.rewind",
        json!({"id": sid, "workspace": w, "seq": turn, "restore": "code"}),
    )
    .unwrap();
    assert_eq!(
        std::fs::read_to_string(ws.join("a.txt")).unwrap(),
        "one\ntwo\n"
    );
    assert_eq!(std::fs::read_to_string(ws.join("c.txt")).unwrap(), "bye\n");
    assert!(!ws.join("b.txt").exists());
}
