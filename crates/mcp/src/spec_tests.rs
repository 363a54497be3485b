use super::*;

use std::fs;

fn stdio(command: &str) -> McpServer {
    McpServer {
        command: Some(command.to_string()),
        ..McpServer::default()
    }
}

fn with_transport(transport: &str, command: Option<&str>, url: Option<&str>) -> McpServer {
    McpServer {
        transport: transport.to_string(),
        command: command.map(str::to_string),
        url: url.map(str::to_string),
        ..McpServer::default()
    }
}

fn settings(servers: &[(&str, McpServer)]) -> McpSettings {
    McpSettings {
        servers: servers
            .iter()
            .map(|(n, s)| (n.to_string(), s.clone()))
            .collect(),
        ..McpSettings::default()
    }
}

fn write_servers_file(root: &Path, text: &str) -> PathBuf {
    let path = servers_file(root);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(&path, text).unwrap();
    path
}

fn names(merged: &Merged) -> Vec<&str> {
    merged.servers.iter().map(|e| e.name.as_str()).collect()
}

fn entry<'a>(merged: &'a Merged, name: &str) -> &'a ServerEntry {
    merged
        .servers
        .iter()
        .find(|e| e.name == name)
        .unwrap_or_else(|| panic!("no entry {name} in {:?}", names(merged)))
}

fn stdio_command(entry: &ServerEntry) -> &str {
    match &entry.transport {
        Ok(Transport::Stdio { command, .. }) => command,
        other => panic!("{}: expected stdio, got {other:?}", entry.name),
    }
}

fn entry_of(name: &str, source: Source, config: McpServer) -> ServerEntry {
    ServerEntry {
        name: name.to_string(),
        source,
        transport: transport_of(name, &config),
        config,
    }
}

fn connected(tool_count: usize) -> ServerStatus {
    ServerStatus {
        connected: true,
        tool_count,
        error: None,
        state: "connected",
    }
}

// ---- sources and merging ----------------------------------------------------

#[test]
fn servers_file_lives_under_dot_seekclaw_mcp() {
    let root = Path::new("/ws/project");
    assert_eq!(
        servers_file(root),
        PathBuf::from("/ws/project/.seekclaw/mcp/servers.json")
    );
}

#[test]
fn source_scopes() {
    assert_eq!(Source::GlobalConfig.scope(), "global");
    assert_eq!(Source::ServersFile.scope(), "workspace");
    assert_eq!(Source::WorkspaceConfig.scope(), "workspace");
}

#[test]
fn global_scope_merges_only_the_global_config() {
    let global = settings(&[("b", stdio("b-cmd")), ("a", stdio("a-cmd"))]);
    let merged = merge(&global, None);
    assert_eq!(names(&merged), vec!["a", "b"]);
    assert!(
        merged
            .servers
            .iter()
            .all(|e| e.source == Source::GlobalConfig)
    );
    assert!(merged.problems.is_empty());
    assert_eq!(stdio_command(entry(&merged, "a")), "a-cmd");
}

#[test]
fn three_sources_later_wins_and_sorted_by_name() {
    let tmp = tempfile::tempdir().unwrap();
    write_servers_file(
        tmp.path(),
        r#"{"servers": {
            "shared": {"command": "file-shared"},
            "alpha": {"url": "https://alpha.example/mcp"},
            "mid": {"command": "file-mid"}
        }}"#,
    );
    let global = settings(&[
        ("zeta", stdio("global-zeta")),
        ("shared", stdio("global-shared")),
        ("both", stdio("global-both")),
    ]);
    let inline = settings(&[("mid", stdio("ws-mid")), ("beta", stdio("ws-beta"))]);

    let merged = merge(&global, Some((tmp.path(), Some(&inline))));

    assert!(merged.problems.is_empty(), "{:?}", merged.problems);
    assert_eq!(
        names(&merged),
        vec!["alpha", "beta", "both", "mid", "shared", "zeta"]
    );

    let alpha = entry(&merged, "alpha");
    assert_eq!(alpha.source, Source::ServersFile);
    assert_eq!(
        alpha.transport,
        Ok(Transport::Http {
            url: "https://alpha.example/mcp".into(),
            headers: Default::default(),
        })
    );

    let beta = entry(&merged, "beta");
    assert_eq!(beta.source, Source::WorkspaceConfig);
    assert_eq!(stdio_command(beta), "ws-beta");

    let both = entry(&merged, "both");
    assert_eq!(both.source, Source::GlobalConfig);
    assert_eq!(both.source.scope(), "global");

    // Servers file overrides global; inline workspace config overrides the file.
    let shared = entry(&merged, "shared");
    assert_eq!(shared.source, Source::ServersFile);
    assert_eq!(stdio_command(shared), "file-shared");
    assert_eq!(shared.config.command.as_deref(), Some("file-shared"));

    let mid = entry(&merged, "mid");
    assert_eq!(mid.source, Source::WorkspaceConfig);
    assert_eq!(mid.source.scope(), "workspace");
    assert_eq!(stdio_command(mid), "ws-mid");

    assert_eq!(entry(&merged, "zeta").source, Source::GlobalConfig);
}

#[test]
fn inline_workspace_overrides_global_without_servers_file() {
    let tmp = tempfile::tempdir().unwrap();
    let global = settings(&[("s", stdio("global"))]);
    let inline = settings(&[("s", stdio("inline"))]);
    let merged = merge(&global, Some((tmp.path(), Some(&inline))));
    assert!(merged.problems.is_empty());
    assert_eq!(merged.servers.len(), 1);
    assert_eq!(merged.servers[0].source, Source::WorkspaceConfig);
    assert_eq!(stdio_command(&merged.servers[0]), "inline");
}

#[test]
fn a_later_invalid_entry_replaces_an_earlier_valid_one() {
    let tmp = tempfile::tempdir().unwrap();
    let global = settings(&[("s", stdio("ok"))]);
    let inline = settings(&[("s", with_transport("carrier-pigeon", Some("x"), None))]);
    let merged = merge(&global, Some((tmp.path(), Some(&inline))));
    let s = entry(&merged, "s");
    assert_eq!(s.source, Source::WorkspaceConfig);
    assert_eq!(s.transport, Err(invalid_combination("s")));
    assert!(merged.specs(tmp.path()).is_empty());
}

#[test]
fn claude_style_mcp_servers_file_is_accepted() {
    let tmp = tempfile::tempdir().unwrap();
    // JSON5 (comments, trailing commas) is accepted too.
    write_servers_file(
        tmp.path(),
        r#"{
            // Claude Code style
            "mcpServers": {
                "gh": {"command": "npx", "args": ["-y", "gh-mcp"], "env": {"GH_TOKEN": "secret"}},
                "web": {"type": "http", "url": "https://web.example/mcp"},
            },
        }"#,
    );
    let merged = merge(&McpSettings::default(), Some((tmp.path(), None)));
    assert!(merged.problems.is_empty(), "{:?}", merged.problems);
    assert_eq!(names(&merged), vec!["gh", "web"]);

    let gh = entry(&merged, "gh");
    assert_eq!(gh.source, Source::ServersFile);
    assert_eq!(
        gh.transport,
        Ok(Transport::Stdio {
            command: "npx".into(),
            args: vec!["-y".into(), "gh-mcp".into()],
            env: BTreeMap::from([("GH_TOKEN".to_string(), "secret".to_string())]),
        })
    );
    assert_eq!(
        entry(&merged, "web").transport,
        Ok(Transport::Http {
            url: "https://web.example/mcp".into(),
            headers: Default::default(),
        })
    );
}

#[test]
fn read_servers_file_missing_empty_and_present() {
    let tmp = tempfile::tempdir().unwrap();
    let path = servers_file(tmp.path());
    assert_eq!(read_servers_file(&path), Ok(None));

    write_servers_file(tmp.path(), "{}");
    assert_eq!(read_servers_file(&path), Ok(Some(BTreeMap::new())));

    write_servers_file(tmp.path(), r#"{"servers": {"x": {"command": "run-x"}}}"#);
    let servers = read_servers_file(&path).unwrap().unwrap();
    assert_eq!(servers.len(), 1);
    assert_eq!(servers["x"].command.as_deref(), Some("run-x"));
    assert!(servers["x"].enabled, "enabled defaults to true");
}

#[test]
fn missing_or_blank_servers_file_is_not_a_problem() {
    let tmp = tempfile::tempdir().unwrap();
    let global = settings(&[("g", stdio("g"))]);
    let merged = merge(&global, Some((tmp.path(), None)));
    assert!(merged.problems.is_empty());
    assert_eq!(names(&merged), vec!["g"]);

    write_servers_file(tmp.path(), "  \n");
    let merged = merge(&global, Some((tmp.path(), None)));
    assert!(merged.problems.is_empty(), "{:?}", merged.problems);
    assert_eq!(names(&merged), vec!["g"]);
}

#[test]
fn corrupt_servers_file_is_a_problem_and_other_sources_still_merge() {
    let tmp = tempfile::tempdir().unwrap();
    let path = write_servers_file(tmp.path(), "{ \"servers\": { broken");
    let global = settings(&[("g", stdio("global-cmd"))]);
    let inline = settings(&[("w", stdio("ws-cmd"))]);

    let merged = merge(&global, Some((tmp.path(), Some(&inline))));

    assert_eq!(merged.problems.len(), 1, "{:?}", merged.problems);
    assert!(
        merged.problems[0].contains(&path.display().to_string()),
        "{:?}",
        merged.problems
    );
    assert_eq!(names(&merged), vec!["g", "w"]);
    assert_eq!(entry(&merged, "g").source, Source::GlobalConfig);
    assert_eq!(entry(&merged, "w").source, Source::WorkspaceConfig);
    // The user's file is left where it is, untouched.
    assert_eq!(
        fs::read_to_string(&path).unwrap(),
        "{ \"servers\": { broken"
    );
}

#[test]
fn servers_file_with_a_wrongly_typed_entry_is_a_problem() {
    let tmp = tempfile::tempdir().unwrap();
    let path = write_servers_file(
        tmp.path(),
        r#"{"servers": {"x": {"command": "x", "args": "not-a-list"}}}"#,
    );
    let global = settings(&[("g", stdio("g"))]);
    let merged = merge(&global, Some((tmp.path(), None)));
    assert_eq!(merged.problems, vec![path.display().to_string()]);
    assert_eq!(names(&merged), vec!["g"]);
}

// ---- transport validation ---------------------------------------------------

#[test]
fn stdio_needs_a_command() {
    let t = transport_of(
        "s",
        &McpServer {
            command: Some("  node  ".into()),
            args: Some(vec!["server.js".into()]),
            env: Some(BTreeMap::from([("K".to_string(), "v".to_string())])),
            ..McpServer::default()
        },
    );
    assert_eq!(
        t,
        Ok(Transport::Stdio {
            command: "node".into(),
            args: vec!["server.js".into()],
            env: BTreeMap::from([("K".to_string(), "v".to_string())]),
        })
    );

    // Explicit, differently cased transport name.
    assert!(matches!(
        transport_of("s", &with_transport(" STDIO ", Some("x"), None)),
        Ok(Transport::Stdio { .. })
    ));

    for config in [
        with_transport("stdio", None, None),
        with_transport("stdio", Some("   "), None),
        with_transport("", None, None),
    ] {
        assert_eq!(
            transport_of("s", &config),
            Err("MCP server 's' has an invalid transport/command/url combination".to_string()),
            "{config:?}"
        );
    }
}

#[test]
fn stdio_without_args_or_env_gets_empty_ones() {
    assert_eq!(
        transport_of("s", &stdio("cmd")),
        Ok(Transport::Stdio {
            command: "cmd".into(),
            args: Vec::new(),
            env: BTreeMap::new(),
        })
    );
}

#[test]
fn http_transports_need_an_absolute_http_url() {
    for kind in ["http", "sse", "streamable-http", "HTTP", "Streamable-HTTP"] {
        let remote = |url: &str| {
            let (url, headers) = (url.to_string(), Default::default());
            if kind == "sse" {
                Transport::Sse { url, headers }
            } else {
                Transport::Http { url, headers }
            }
        };
        assert_eq!(
            transport_of(
                "h",
                &with_transport(kind, None, Some("https://h.example/mcp"))
            ),
            Ok(remote("https://h.example/mcp")),
            "{kind}"
        );
        assert_eq!(
            transport_of(
                "h",
                &with_transport(kind, None, Some("http://127.0.0.1:8080/mcp"))
            ),
            Ok(remote("http://127.0.0.1:8080/mcp")),
            "{kind}"
        );
        // A command does not make an HTTP entry usable.
        assert_eq!(
            transport_of("h", &with_transport(kind, Some("node"), None)),
            Err(invalid_combination("h")),
            "{kind}"
        );
    }
}

#[test]
fn url_is_trimmed() {
    assert_eq!(
        transport_of(
            "h",
            &with_transport("http", None, Some("  https://h.example/mcp \n"))
        ),
        Ok(Transport::Http {
            url: "https://h.example/mcp".into(),
            headers: Default::default(),
        })
    );
}

#[test]
fn relative_or_non_http_urls_are_rejected() {
    for url in [
        "/mcp",
        "mcp",
        "h.example/mcp",
        "localhost:8080/mcp",
        "http://",
        "https://",
        "https:///mcp",
        "ftp://h.example/mcp",
        "ws://h.example/mcp",
        "   ",
    ] {
        assert_eq!(
            transport_of("h", &with_transport("http", None, Some(url))),
            Err(invalid_combination("h")),
            "{url:?}"
        );
        // Url-only (Claude style) entries follow the same rule.
        assert_eq!(
            transport_of("h", &with_transport("stdio", None, Some(url))),
            Err(invalid_combination("h")),
            "{url:?}"
        );
    }
}

#[test]
fn url_only_entry_is_http() {
    // Default transport is "stdio": no command but a url → HTTP.
    let config = McpServer {
        url: Some("https://u.example/mcp".into()),
        ..McpServer::default()
    };
    assert_eq!(config.transport, "stdio");
    assert_eq!(
        transport_of("u", &config),
        Ok(Transport::Http {
            url: "https://u.example/mcp".into(),
            headers: Default::default(),
        })
    );
    assert_eq!(
        transport_of(
            "u",
            &with_transport("", None, Some("https://u.example/mcp"))
        ),
        Ok(Transport::Http {
            url: "https://u.example/mcp".into(),
            headers: Default::default(),
        })
    );
}

#[test]
fn stdio_with_both_command_and_url_is_stdio() {
    assert!(matches!(
        transport_of("b", &with_transport("stdio", Some("cmd"), Some("https://x.example"))),
        Ok(Transport::Stdio { command, .. }) if command == "cmd"
    ));
}

#[test]
fn unknown_transport_is_invalid_with_exact_text() {
    let config = with_transport("websocket", Some("cmd"), Some("https://x.example/mcp"));
    assert_eq!(
        transport_of("weird", &config),
        Err("MCP server 'weird' has an invalid transport/command/url combination".to_string())
    );
    assert_eq!(
        invalid_combination("my server"),
        "MCP server 'my server' has an invalid transport/command/url combination"
    );
}

// ---- specs --------------------------------------------------------------------

#[test]
fn specs_skip_disabled_and_invalid_and_set_cwd() {
    let tmp = tempfile::tempdir().unwrap();
    let global = settings(&[
        ("a-stdio", stdio("a-cmd")),
        (
            "b-disabled",
            McpServer {
                enabled: false,
                ..stdio("b-cmd")
            },
        ),
        ("c-invalid", with_transport("http", None, Some("/relative"))),
        (
            "d-http",
            with_transport("http", None, Some("https://d.example/mcp")),
        ),
        (
            "e-disabled-invalid",
            McpServer {
                enabled: false,
                ..with_transport("nope", None, None)
            },
        ),
    ]);
    let merged = merge(&global, None);
    assert_eq!(merged.servers.len(), 5);

    let cwd = tmp.path().join("repo");
    let specs = merged.specs(&cwd);
    assert_eq!(
        specs,
        vec![
            ServerSpec {
                name: "a-stdio".into(),
                transport: Transport::Stdio {
                    command: "a-cmd".into(),
                    args: Vec::new(),
                    env: BTreeMap::new(),
                },
                cwd: cwd.clone(),
            },
            ServerSpec {
                name: "d-http".into(),
                transport: Transport::Http {
                    url: "https://d.example/mcp".into(),
                    headers: Default::default(),
                },
                cwd: cwd.clone(),
            },
        ]
    );
}

#[test]
fn specs_of_empty_merge_are_empty() {
    assert!(Merged::default().specs(Path::new("/x")).is_empty());
}

// ---- timeouts -------------------------------------------------------------------

#[test]
fn timeouts_default_to_30_and_120_seconds() {
    let t = Timeouts::from_settings(&McpSettings::default());
    assert_eq!(t.connect, Duration::from_secs(30));
    assert_eq!(t.call, Duration::from_secs(120));
    assert_eq!(t, Timeouts::default());
}

#[test]
fn timeouts_are_taken_from_settings_and_clamped() {
    let with = |connect: Option<u64>, call: Option<u64>| {
        Timeouts::from_settings(&McpSettings {
            connect_timeout_seconds: connect,
            call_timeout_seconds: call,
            ..McpSettings::default()
        })
    };
    let t = with(Some(45), Some(300));
    assert_eq!(
        (t.connect, t.call),
        (Duration::from_secs(45), Duration::from_secs(300))
    );

    let t = with(Some(0), Some(0));
    assert_eq!(
        (t.connect, t.call),
        (Duration::from_secs(1), Duration::from_secs(1))
    );

    let t = with(Some(10_000), Some(100_000));
    assert_eq!(
        (t.connect, t.call),
        (Duration::from_secs(600), Duration::from_secs(3600))
    );

    let t = with(Some(600), Some(3600));
    assert_eq!(
        (t.connect, t.call),
        (Duration::from_secs(600), Duration::from_secs(3600))
    );

    // One set, the other default.
    let t = with(None, Some(7));
    assert_eq!(
        (t.connect, t.call),
        (Duration::from_secs(30), Duration::from_secs(7))
    );
}

#[test]
fn timeouts_read_from_config_json_keys() {
    let settings: McpSettings = serde_json::from_value(serde_json::json!({
        "connectTimeoutSeconds": 5,
        "callTimeoutSeconds": 9000
    }))
    .unwrap();
    let t = Timeouts::from_settings(&settings);
    assert_eq!(t.connect, Duration::from_secs(5));
    assert_eq!(t.call, Duration::from_secs(3600));
}

// ---- mcp.list rows -----------------------------------------------------------------

#[test]
fn listing_json_shape_and_key_order() {
    let config = McpServer {
        command: Some("npx".into()),
        args: Some(vec!["-y".into(), "srv".into()]),
        env: Some(BTreeMap::from([
            ("TOKEN".to_string(), "tok-value-123".to_string()),
            ("A_KEY".to_string(), "a-value-456".to_string()),
        ])),
        ..McpServer::default()
    };
    let listing = ServerListing::new(&entry_of("gh", Source::ServersFile, config), connected(3));
    let json = serde_json::to_string(&listing).unwrap();
    assert_eq!(
        json,
        r#"{"name":"gh","scope":"workspace","transport":"stdio","command":"npx","args":["-y","srv"],"url":null,"envKeys":["A_KEY","TOKEN"],"enabled":true,"connected":true,"toolCount":3,"error":null,"status":"connected","headerKeys":[]}"#
    );

    let value = serde_json::to_value(&listing).unwrap();
    let keys: Vec<&str> = value
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        vec![
            "name",
            "scope",
            "transport",
            "command",
            "args",
            "url",
            "envKeys",
            "enabled",
            "connected",
            "toolCount",
            "error",
            "status",
            "headerKeys"
        ]
    );
}

#[test]
fn listing_never_contains_env_values() {
    let config = McpServer {
        command: Some("srv".into()),
        env: Some(BTreeMap::from([
            (
                "GITHUB_TOKEN".to_string(),
                "ghp_SuperSecretValue".to_string(),
            ),
            ("API_KEY".to_string(), "sk-live-hunter2".to_string()),
        ])),
        ..McpServer::default()
    };
    let entry = entry_of("s", Source::GlobalConfig, config);
    // Valid, connected, and also failed with an error: values never leak.
    for status in [
        connected(1),
        ServerStatus {
            error: Some("boom".into()),
            state: "failed",
            ..ServerStatus::default()
        },
    ] {
        let listing = ServerListing::new(&entry, status);
        assert_eq!(listing.env_keys, vec!["API_KEY", "GITHUB_TOKEN"]);
        let json = serde_json::to_string(&listing).unwrap();
        assert!(!json.contains("ghp_SuperSecretValue"), "{json}");
        assert!(!json.contains("sk-live-hunter2"), "{json}");
        assert!(
            json.contains("\"envKeys\":[\"API_KEY\",\"GITHUB_TOKEN\"]"),
            "{json}"
        );
    }
}

#[test]
fn listing_of_an_invalid_entry_shows_its_error() {
    let config = with_transport("bogus", Some("cmd"), None);
    let entry = entry_of("bad", Source::WorkspaceConfig, config);
    // Whatever the manager says, an invalid entry is reported as invalid.
    let listing = ServerListing::new(&entry, connected(4));
    assert_eq!(listing.status, "invalid");
    assert_eq!(listing.error, Some(invalid_combination("bad")));
    assert!(!listing.connected);
    assert_eq!(listing.tool_count, 0);
    assert_eq!(listing.transport, "bogus");
    assert_eq!(listing.scope, "workspace");
    let value = serde_json::to_value(&listing).unwrap();
    assert_eq!(value["status"], "invalid");
    assert_eq!(
        value["error"],
        "MCP server 'bad' has an invalid transport/command/url combination"
    );
}

#[test]
fn listing_of_a_disabled_entry() {
    let config = McpServer {
        enabled: false,
        ..stdio("cmd")
    };
    let entry = entry_of("off", Source::GlobalConfig, config);
    let listing = ServerListing::new(
        &entry,
        ServerStatus {
            connected: true,
            tool_count: 2,
            error: Some("stale".into()),
            state: "connected",
        },
    );
    assert_eq!(listing.status, "disabled");
    assert!(!listing.enabled);
    assert!(!listing.connected);
    assert_eq!(listing.tool_count, 0);
    assert_eq!(listing.error, None);
    assert_eq!(listing.scope, "global");
}

#[test]
fn listing_of_a_disabled_invalid_entry_is_invalid() {
    let config = McpServer {
        enabled: false,
        ..with_transport("stdio", None, None)
    };
    let listing = ServerListing::new(
        &entry_of("x", Source::GlobalConfig, config),
        ServerStatus::default(),
    );
    assert_eq!(listing.status, "invalid");
    assert_eq!(listing.error, Some(invalid_combination("x")));
}

#[test]
fn listing_passes_through_live_status_of_valid_entries() {
    let config = with_transport("http", None, Some("https://h.example/mcp"));
    let entry = entry_of("h", Source::GlobalConfig, config);
    let listing = ServerListing::new(
        &entry,
        ServerStatus {
            connected: false,
            tool_count: 0,
            error: Some("connection refused".into()),
            state: "failed",
        },
    );
    assert_eq!(listing.status, "failed");
    assert_eq!(listing.error.as_deref(), Some("connection refused"));
    assert_eq!(listing.transport, "http");
    assert_eq!(listing.url.as_deref(), Some("https://h.example/mcp"));
    assert_eq!(listing.command, None);
    assert!(listing.args.is_empty());
    assert!(listing.env_keys.is_empty());
}

#[test]
fn listing_reports_blank_transport_as_stdio() {
    let config = with_transport("  ", Some("cmd"), None);
    let listing = ServerListing::new(&entry_of("s", Source::GlobalConfig, config), connected(0));
    assert_eq!(listing.transport, "stdio");
    assert_eq!(listing.status, "connected");
}

#[test]
fn url_only_entries_are_listed_as_http() {
    let config = McpServer {
        url: Some("https://mcp.example/mcp".into()),
        ..McpServer::default()
    };
    let entry = ServerEntry {
        name: "remote".into(),
        source: Source::GlobalConfig,
        transport: transport_of("remote", &config),
        config,
    };
    assert_eq!(
        ServerListing::new(&entry, ServerStatus::default()).transport,
        "http"
    );
}

#[test]
fn transport_managed_headers_are_refused() {
    let config = McpServer {
        url: Some("https://mcp.example/mcp".into()),
        headers: Some(BTreeMap::from([(
            "Mcp-Session-Id".to_string(),
            "x".to_string(),
        )])),
        ..McpServer::default()
    };
    let err = transport_of("r", &config).unwrap_err();
    assert!(err.contains("'Mcp-Session-Id'"), "{err}");
    let fine = McpServer {
        headers: Some(BTreeMap::from([("X-Api-Key".to_string(), "k".to_string())])),
        ..config
    };
    assert!(transport_of("r", &fine).is_ok());
}

#[test]
fn plugin_servers_join_the_merge_and_user_config_overrides_them() {
    let plugin = McpServer {
        command: Some("python3".into()),
        ..McpServer::default()
    };
    let mut global = McpSettings::default();
    global.servers.insert(
        "plugin_demo_b".into(),
        McpServer {
            command: Some("override".into()),
            ..McpServer::default()
        },
    );
    let merged = merge_with_plugins(
        &global,
        None,
        &[
            ("plugin_demo_a".into(), plugin.clone(), false),
            ("plugin_demo_b".into(), plugin, true),
        ],
    );
    let a = &merged.servers[0];
    assert_eq!(a.name, "plugin_demo_a");
    assert_eq!(a.source, Source::Plugin { project: false });
    assert_eq!(a.source.scope(), "global");
    let b = &merged.servers[1];
    assert_eq!(b.source, Source::GlobalConfig);
    assert_eq!(b.config.command.as_deref(), Some("override"));
    assert_eq!(Source::Plugin { project: true }.scope(), "workspace");
}
