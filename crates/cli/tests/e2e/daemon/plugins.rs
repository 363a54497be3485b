//! Plugins through the real binary (issue 41): a plugin folder in Claude
//! Code's layout (crates/testkit/fixtures/plugins/demo: a skill, a command,
//! an agent, a `PreToolUse` hook and the Python SDK fixture MCP server)
//! installed with `seekclaw plugin add` from a folder and from a local git
//! repository; its skill reaches the model as `demo:greet`, its server's
//! tools are callable as `mcp__plugin_demo_fx__*`, its hook runs; disabled
//! or removed, all of it is gone, with no daemon restart. A project's plugin
//! is inactive until the workspace is trusted. The `plugin.*` methods.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use seekclaw_testkit::{Client, DaemonProcess, ProviderServer, Reply, StartOptions, mcp_servers};
use serde_json::{Value, json};

use crate::support::turns::{chat, events, setup};
use crate::support::{bin, project_dir};

/// The fixture copied to `dir/name`, its server script beside it and its
/// `python3` made the test venv's (which has the MCP SDK).
fn plugin_source(dir: &Path, name: &str) -> PathBuf {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let src = dir.join(name);
    copy_dir(&repo.join("crates/testkit/fixtures/plugins/demo"), &src);
    std::fs::create_dir_all(src.join("server")).unwrap();
    std::fs::copy(
        repo.join("crates/testkit/fixtures/mcp_fixture_server.py"),
        src.join("server/mcp_fixture_server.py"),
    )
    .unwrap();
    let python = mcp_servers::sdk_python().unwrap();
    let mcp = std::fs::read_to_string(src.join(".mcp.json")).unwrap();
    let mcp = mcp.replace("\"python3\"", &serde_json::to_string(&python).unwrap());
    std::fs::write(src.join(".mcp.json"), mcp).unwrap();
    src
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let dest = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &dest);
        } else {
            std::fs::copy(entry.path(), dest).unwrap();
        }
    }
}

/// `seekclaw plugin ARGS` in `cwd` against the daemon's home, stdin not a terminal.
fn plugin(d: &DaemonProcess, cwd: &Path, args: &[&str]) -> Output {
    Command::new(bin())
        .arg("plugin")
        .args(args)
        .current_dir(cwd)
        .env("SEEKCLAW_HOME", &d.home)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn ok(out: Output) -> String {
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

fn tool_names(request: &Value) -> Vec<String> {
    request["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| {
            t["function"]["name"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
        .collect()
}

fn system(request: &Value) -> String {
    request["messages"][0]["content"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

fn tool_message(request: &Value, call_id: &str) -> String {
    request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool" && m["tool_call_id"] == call_id)
        .and_then(|m| m["content"].as_str())
        .unwrap_or_else(|| panic!("no tool result for {call_id}"))
        .to_string()
}

/// One turn whose model runs `echo hi` and then adds 2 and 40 with the
/// plugin's server (when it has it): returns the first request's body and
/// the tool result of the addition. Call ids are the turn's own (turns
/// continue the workspace's session, whose history holds earlier ones).
fn turn(server: &ProviderServer, c: &mut Client, ws: &Path, with_tool: bool) -> (Value, String) {
    server.clear_requests();
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let (b, add) = (format!("b{n}"), format!("c{n}"));
    server.enqueue(Reply::new().tool_call(&b, "bash", r#"{"command":"echo hi"}"#));
    server.enqueue(Reply::new().tool_call(&add, "mcp__plugin_demo_fx__add", r#"{"a":2,"b":40}"#));
    server.enqueue(Reply::plain("done"));
    let all = chat(
        c,
        json!({"message": "greet and add", "workspace": ws.display().to_string()}),
    );
    assert_eq!(all.last().unwrap()["event"], "done", "{all:?}");
    assert_eq!(events(&all, "tool_done").len(), 2, "{all:?}");
    let requests = server.requests();
    let first = requests[0].body.clone();
    let added = tool_message(&requests[2].body, &add);
    assert_eq!(
        with_tool,
        tool_names(&first)
            .iter()
            .any(|n| n == "mcp__plugin_demo_fx__add"),
        "{:?}",
        tool_names(&first)
    );
    (first, added)
}

static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(1);

fn start(server: &ProviderServer, ws: &Path) -> DaemonProcess {
    setup(
        server,
        StartOptions {
            cwd: Some(ws.to_path_buf()),
            ..StartOptions::default()
        },
    )
}

#[test]
fn a_plugin_from_a_folder_works_in_turns_until_disabled_and_removed() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let ws = project_dir(tmp.path(), "proj");
    let src = plugin_source(tmp.path(), "demo-src");
    let d = start(&server, &ws);
    let mut c = d.connect().unwrap();
    let s = src.display().to_string();

    // No terminal and no --yes: the summary is shown, nothing is installed.
    let refused = plugin(&d, &ws, &["add", &s]);
    assert!(!refused.status.success());
    let shown = String::from_utf8_lossy(&refused.stdout);
    let plugin_dir = d.home.join("plugins/demo");
    for want in [
        "Plugin demo 0.3.1",
        "skills: demo:greet",
        "commands: /demo:review",
        "MCP server plugin_demo_fx starts:",
        &format!(
            "hook on PreToolUse (Bash) runs: sh \"{}/hooks/record.sh\"",
            plugin_dir.display()
        ),
    ] {
        assert!(shown.contains(want), "{want} in {shown}");
    }
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--yes"));
    assert!(!plugin_dir.exists());

    ok(plugin(&d, &ws, &["add", &s, "--yes"]));
    let again = plugin(&d, &ws, &["add", &s, "--yes"]);
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("already installed"));
    let listed: Value = serde_json::from_str(&ok(plugin(&d, &ws, &["list", "--json"]))).unwrap();
    assert_eq!(listed[0]["name"], "demo", "{listed}");
    assert_eq!(listed[0]["active"], true, "{listed}");
    assert_eq!(listed[0]["skills"], json!(["demo:greet"]));
    assert_eq!(listed[0]["agents"], json!(["helper"]));
    assert_eq!(listed[0]["commands"][0]["name"], "review");

    // The running daemon's next turn has all of it.
    let (first, added) = turn(&server, &mut c, &ws, true);
    let sys = system(&first);
    assert!(sys.contains("## demo:greet"), "{sys}");
    assert!(sys.contains("PLUGIN-GREETING-7731"), "{sys}");
    assert_eq!(added.trim(), "42");
    let hook: Value =
        serde_json::from_str(&std::fs::read_to_string(ws.join("plugin-hook.json")).unwrap())
            .unwrap();
    assert_eq!(hook["tool_name"], "Bash", "{hook}");
    let root = std::fs::read_to_string(ws.join("plugin-hook-root.txt")).unwrap();
    assert_eq!(
        Path::new(&root),
        plugin_dir,
        "CLAUDE_PLUGIN_ROOT in the hook's environment"
    );
    let skills = c.ok_json("skill.list", json!({})).unwrap();
    assert!(skills.to_string().contains("demo:greet"), "{skills}");

    // Disabled: no skill, no server, no hook.
    ok(plugin(&d, &ws, &["disable", "demo"]));
    std::fs::remove_file(ws.join("plugin-hook.json")).unwrap();
    let (first, added) = turn(&server, &mut c, &ws, false);
    assert!(!system(&first).contains("PLUGIN-GREETING-7731"));
    assert!(added.contains("Unknown tool"), "{added}");
    assert!(
        !ws.join("plugin-hook.json").exists(),
        "a disabled plugin's hook ran"
    );
    let listed: Value = serde_json::from_str(&ok(plugin(&d, &ws, &["list", "--json"]))).unwrap();
    assert_eq!(listed[0]["enabled"], false);

    // Enabled again, then removed: gone with its folder.
    ok(plugin(&d, &ws, &["enable", "demo"]));
    ok(plugin(&d, &ws, &["remove", "demo"]));
    assert!(!plugin_dir.exists());
    let (first, _) = turn(&server, &mut c, &ws, false);
    assert!(!system(&first).contains("PLUGIN-GREETING-7731"));
    let listed = c.ok_json("mcp.list", json!({})).unwrap();
    assert!(!listed.to_string().contains("plugin_demo_fx"), "{listed}");
    assert!(
        !ws.join("plugin-hook.json").exists(),
        "a removed plugin's hook ran"
    );
    assert!(ok(plugin(&d, &ws, &["list"])).contains("No plugins"));
}

#[test]
fn a_plugin_installs_from_a_local_git_repository() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let ws = project_dir(tmp.path(), "proj");
    let repo = plugin_source(tmp.path(), "demo-repo");
    let git = |args: &[&str]| {
        let out = Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
            .args(args)
            .current_dir(&repo)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    git(&["init", "-q"]);
    git(&["add", "-A"]);
    git(&["commit", "-qm", "plugin"]);
    let d = start(&server, &ws);
    let url = format!("file://{}", repo.display());
    ok(plugin(&d, &ws, &["add", &url, "--yes"]));
    let installed = d.home.join("plugins/demo");
    assert!(installed.join("skills/greet/SKILL.md").is_file());
    assert!(
        !installed.join(".git").exists(),
        "the clone's .git is not kept"
    );
    let state: Value = serde_json::from_str(
        &std::fs::read_to_string(d.home.join("plugins/installed.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(state["demo"]["source"], url.as_str(), "{state}");
    assert_eq!(state["demo"]["version"], "0.3.1");
    let mut c = d.connect().unwrap();
    let (first, added) = turn(&server, &mut c, &ws, true);
    assert!(system(&first).contains("PLUGIN-GREETING-7731"));
    assert_eq!(added.trim(), "42");
    // A git URL that does not exist fails with git's own words.
    let bad = plugin(&d, &ws, &["add", "file:///nonexistent/repo", "--yes"]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("git clone"));
}

#[test]
fn a_project_plugin_is_inactive_until_the_workspace_is_trusted() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let ws = project_dir(tmp.path(), "proj");
    // The repository comes with a project plugin (as if cloned with it).
    let plugins = ws.join(".seekclaw/plugins");
    plugin_source(&plugins, "demo");
    std::fs::write(
        plugins.join("installed.json"),
        r#"{"demo": {"source": "./demo", "enabled": true}}"#,
    )
    .unwrap();
    let d = start(&server, &ws);
    let mut c = d.connect().unwrap();
    let text = ok(plugin(&d, &ws, &["list"]));
    assert!(
        text.contains("demo 0.3.1  [project]  inactive: the workspace is not a trusted project"),
        "{text}"
    );
    let (first, _) = turn(&server, &mut c, &ws, false);
    assert!(!system(&first).contains("PLUGIN-GREETING-7731"));
    assert!(
        !ws.join("plugin-hook.json").exists(),
        "an untrusted project's hook ran"
    );
    // Installing into an untrusted project is refused.
    let src = plugin_source(tmp.path(), "other");
    let refused = plugin(
        &d,
        &ws,
        &["add", &src.display().to_string(), "--project", "--yes"],
    );
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("not a trusted project"));

    // Trusted: its skill and server take part; its hook waits for approval
    // like the workspace's own hooks.
    let w = ws.display().to_string();
    c.ok_json("project.upsert", json!({"path": w})).unwrap();
    let rows = c.ok_json("plugin.list", json!({"workspace": w})).unwrap();
    assert_eq!(rows[0]["scope"], "project", "{rows}");
    assert_eq!(rows[0]["active"], true, "{rows}");
    let (first, added) = turn(&server, &mut c, &ws, true);
    assert!(system(&first).contains("PLUGIN-GREETING-7731"));
    assert_eq!(added.trim(), "42");
    assert!(
        !ws.join("plugin-hook.json").exists(),
        "an unapproved hook ran"
    );
    let hooks = c.ok_json("hooks.list", json!({"workspace": w})).unwrap();
    assert_eq!(hooks["hooksApproved"], false, "{hooks}");
    assert!(hooks.to_string().contains("record.sh"), "{hooks}");
    // The daemon's listing shows the trusted project's plugin server too.
    let listed = c.ok_json("mcp.list", json!({})).unwrap();
    assert!(listed.to_string().contains("plugin_demo_fx"), "{listed}");
}

#[test]
fn the_plugin_methods_install_list_toggle_and_remove() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let ws = project_dir(tmp.path(), "proj");
    let src = plugin_source(tmp.path(), "demo-src");
    let d = start(&server, &ws);
    let mut c = d.connect().unwrap();
    let info = c.ok_json("protocol.info", json!({})).unwrap();
    assert!(
        info["capabilities"]
            .as_array()
            .unwrap()
            .contains(&json!("plugins"))
    );
    assert_eq!(c.ok_json("plugin.list", json!({})).unwrap(), json!([]));
    let row = c
        .ok_json(
            "plugin.install",
            json!({"source": src.display().to_string()}),
        )
        .unwrap();
    assert_eq!(row["name"], "demo", "{row}");
    assert_eq!(row["scope"], "user");
    assert_eq!(row["mcpServers"][0]["name"], "plugin_demo_fx");
    assert_eq!(row["hooks"][0]["event"], "PreToolUse");
    assert!(
        row["commands"][0]["body"]
            .as_str()
            .unwrap()
            .contains("$ARGUMENTS")
    );
    let dup = c
        .err(
            "plugin.install",
            json!({"source": src.display().to_string()}),
        )
        .unwrap();
    assert_eq!(dup["details"]["code"], "conflict", "{dup}");
    let forbidden = c
        .err(
            "plugin.install",
            json!({"source": src.display().to_string(), "scope": "project"}),
        )
        .unwrap();
    assert_eq!(forbidden["details"]["code"], "forbidden", "{forbidden}");
    // Its server is listed with the MCP servers and connects in the background.
    let mcp = c.ok_json("mcp.list", json!({})).unwrap();
    assert!(mcp.to_string().contains("plugin_demo_fx"), "{mcp}");

    let rows = c
        .ok_json("plugin.toggle", json!({"name": "demo", "enabled": false}))
        .unwrap();
    assert_eq!(rows[0]["enabled"], false);
    assert_eq!(rows[0]["inactiveReason"], "disabled");
    let missing = c
        .err("plugin.toggle", json!({"name": "nope", "enabled": true}))
        .unwrap();
    assert_eq!(missing["details"]["code"], "not_found", "{missing}");
    let rows = c.ok_json("plugin.remove", json!({"name": "demo"})).unwrap();
    assert_eq!(rows, json!([]));
    assert!(!d.home.join("plugins/demo").exists());
}

#[test]
fn a_plugin_installs_by_name_from_a_marketplace() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let ws = project_dir(tmp.path(), "proj");
    let market = tmp.path().join("acme-market");
    plugin_source(&market.join("plugins"), "demo");
    std::fs::create_dir_all(market.join(".claude-plugin")).unwrap();
    std::fs::write(
        market.join(".claude-plugin/marketplace.json"),
        r#"{"name": "acme", "plugins": [
            {"name": "demo", "source": "./plugins/demo", "description": "The demo plugin"}
        ]}"#,
    )
    .unwrap();
    let d = start(&server, &ws);
    let unknown = plugin(&d, &ws, &["add", "demo@acme", "--yes"]);
    assert!(!unknown.status.success());
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("unknown marketplace 'acme'"));
    let added = ok(plugin(
        &d,
        &ws,
        &["marketplace", "add", &market.display().to_string()],
    ));
    assert!(
        added.contains("Added marketplace acme (1 plugins)"),
        "{added}"
    );
    let listed = ok(plugin(&d, &ws, &["marketplace", "list"]));
    assert!(listed.contains("demo@acme  The demo plugin"), "{listed}");
    ok(plugin(&d, &ws, &["add", "demo@acme", "--yes"]));
    let rows: Value = serde_json::from_str(&ok(plugin(&d, &ws, &["list", "--json"]))).unwrap();
    assert_eq!(rows[0]["source"], "demo@acme", "{rows}");
    assert_eq!(rows[0]["active"], true, "{rows}");
}
