use seekclaw_testkit::{DaemonProcess, ProviderServer, Reply, StartOptions};
use serde_json::{Value, json};

use crate::support::start;

fn upsert_testkit(
    c: &mut seekclaw_testkit::Client,
    id: &str,
    server: &ProviderServer,
    key: &str,
) -> Value {
    c.ok_json(
        "provider.upsert",
        json!({"id": id, "kind": "openai", "baseUrl": server.base_url(), "apiKey": key, "models": ["m1", "m2"], "timeoutSeconds": 5}),
    )
    .unwrap()
}

/// The refs `model.catalog` marks active.
fn active_refs(catalog: &Value) -> Vec<String> {
    catalog
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["active"] == true)
        .map(|m| m["ref"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn provider_admin_round_trip_with_reference_shapes() {
    let server = ProviderServer::start().unwrap();
    let d = start();
    let mut c = d.connect().unwrap();
    let p = upsert_testkit(&mut c, "tk", &server, "sk-test-123");
    let keys: Vec<&String> = p.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "id",
            "name",
            "kind",
            "baseUrl",
            "apiKey",
            "apiKeyConfigured",
            "models",
            "enabled",
            "priority",
            "timeoutSeconds",
            "modelListUrl",
            "promptCaching",
            "proxy",
            "active"
        ]
    );
    assert_eq!(
        (p["apiKey"].as_str(), p["apiKeyConfigured"].as_bool()),
        (Some("sk-test-123"), Some(true))
    );
    assert_eq!(p["models"], json!(["m1", "m2"]));
    // An empty key keeps the stored one; clearApiKey removes it.
    let kept = c
        .ok_json("provider.upsert", json!({"id": "tk", "apiKey": ""}))
        .unwrap();
    assert_eq!(kept["apiKey"], "sk-test-123");
    let cleared = c
        .ok_json("provider.upsert", json!({"id": "tk", "clearApiKey": true}))
        .unwrap();
    assert_eq!(
        (
            cleared["apiKey"].clone(),
            cleared["apiKeyConfigured"].clone()
        ),
        (Value::Null, json!(false))
    );
    upsert_testkit(&mut c, "tk", &server, "sk-test-123");

    assert_eq!(
        c.err("provider.upsert", json!({"id": "x", "kind": "gemini"}))
            .unwrap()["data"],
        "Provider kind must be openai or anthropic"
    );
    assert_eq!(
        c.err("provider.upsert", json!({"id": "x", "models": ["a"]}))
            .unwrap()["data"],
        "Provider baseUrl is required"
    );
    assert_eq!(
        c.err("provider.upsert", json!({"id": "x", "baseUrl": "http://h"}))
            .unwrap()["data"],
        "At least one model is required"
    );
    // Failed creates leave nothing behind.
    assert_eq!(
        c.ok_json("provider.list", json!({}))
            .unwrap()
            .as_array()
            .unwrap()
            .len(),
        1
    );

    assert_eq!(c.ok("provider.use", json!({"id": "tk"})).unwrap(), "tk");
    assert_eq!(
        c.ok_json("provider.list", json!({})).unwrap()[0]["active"],
        true
    );
    assert_eq!(
        c.ok_json("model.list", json!({})).unwrap(),
        json!(["tk/m1", "tk/m2"])
    );
    assert_eq!(
        c.ok("model.switch", json!({"model": "m2"})).unwrap(),
        "switched to tk/m2"
    );
    assert_eq!(
        c.err("model.switch", json!({"model": "zzz"})).unwrap()["data"],
        "Unknown model zzz"
    );
    let catalog = c.ok_json("model.catalog", json!({})).unwrap();
    assert_eq!(active_refs(&catalog), ["tk/m2"]);
    assert_eq!(catalog[0]["capabilities"]["maxReasoningLevel"], "max");
    assert_eq!(
        catalog[0]["inputPricePerMTok"], 0.0,
        "prices for a client's cost"
    );
    // In a workspace with its own model, that model is where a chat starts.
    let tmp = tempfile::tempdir().unwrap();
    let ws = crate::support::project_dir(tmp.path(), "ws");
    std::fs::create_dir_all(ws.join(".seekclaw")).unwrap();
    std::fs::write(ws.join(".seekclaw/config.json"), r#"{"model": "m1"}"#).unwrap();
    c.ok_json("workspace.open", json!({"path": ws})).unwrap();
    let catalog = c.ok_json("model.catalog", json!({})).unwrap();
    assert_eq!(active_refs(&catalog), ["tk/m1"]);

    let upd = c
        .ok_json("model.update", json!({"provider": "tk", "id": "m1", "alias": "fast", "contextWindow": 64000, "maxOutput": 4096, "vision": true}))
        .unwrap();
    assert_eq!(
        upd,
        json!({"provider": "tk", "id": "m1", "alias": "fast", "contextWindow": 64000, "maxOutput": 4096, "vision": true})
    );
    assert_eq!(
        c.err(
            "model.update",
            json!({"provider": "tk", "id": "m1", "contextWindow": 5})
        )
        .unwrap()["details"]["param"],
        "contextWindow"
    );
    assert_eq!(
        c.err("model.update", json!({"provider": "tk", "id": "nope"}))
            .unwrap()["data"],
        "Model not found: tk/nope"
    );
    assert_eq!(
        c.err("model.update", json!({"provider": "zz", "id": "m1"}))
            .unwrap()["data"],
        "Provider not found: zz"
    );

    // profiles and routing
    assert_eq!(
        c.ok(
            "profile.upsert",
            json!({"name": "fast", "provider": "tk", "model": "m1", "temperature": 0.1})
        )
        .unwrap(),
        "fast"
    );
    // Names match without case; the answer is the name as sent.
    assert_eq!(
        c.ok(
            "profile.upsert",
            json!({"name": "FAST", "provider": "tk", "model": "m1", "temperature": 0.1})
        )
        .unwrap(),
        "FAST"
    );
    assert_eq!(
        c.ok("profile.use", json!({"name": "fast"})).unwrap(),
        "fast"
    );
    let profiles = c.ok_json("profile.list", json!({})).unwrap();
    assert_eq!(
        profiles
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == "fast")
            .unwrap()["active"],
        true
    );
    assert_eq!(
        c.err("profile.remove", json!({"name": "fast"})).unwrap()["data"],
        "Cannot remove the active profile"
    );
    assert_eq!(
        c.ok("profile.use", json!({"name": "default"})).unwrap(),
        "default"
    );
    assert_eq!(
        c.ok("profile.remove", json!({"name": "fast"})).unwrap(),
        "fast"
    );
    assert_eq!(
        c.err("profile.use", json!({"name": "fast"})).unwrap()["data"],
        "Profile not found: fast"
    );
    let routing = c.ok_json("routing.get", json!({})).unwrap();
    assert_eq!(
        (
            routing["failoverEnabled"].as_bool(),
            routing["deepSeekOptimizationEnabled"].as_bool()
        ),
        (Some(true), Some(false)),
        "{routing}"
    );
    assert!(routing["failoverPolicy"]["scope"].is_string(), "{routing}");
    assert_eq!(
        c.ok_json("routing.set", json!({"failoverEnabled": false}))
            .unwrap()["failoverEnabled"],
        false
    );
    assert_eq!(
        c.err("routing.set", json!({})).unwrap()["data"],
        "params.failoverEnabled (boolean) is required"
    );

    assert_eq!(c.ok("provider.remove", json!({"id": "tk"})).unwrap(), "tk");
    assert_eq!(
        c.err("provider.remove", json!({"id": "tk"})).unwrap()["data"],
        "Provider not found: tk"
    );
    assert_eq!(c.ok_json("model.list", json!({})).unwrap(), json!([]));
}

/// Additions to `provider.upsert` (the reference takes model ids only): full
/// model objects in `models`, mixed with ids, and `activateIfNone`.
#[test]
fn provider_upsert_takes_full_model_entries_and_activate_if_none() {
    let d = start();
    let mut c = d.connect().unwrap();
    let created = c
        .ok_json(
            "provider.upsert",
            json!({"id": "p", "baseUrl": "http://127.0.0.1:9", "activateIfNone": true,
                "models": [{"id": "big", "contextWindow": 500000, "capabilities": {"vision": true}}, "m1"]}),
        )
        .unwrap();
    assert_eq!(
        (&created["models"], &created["active"]),
        (&json!(["big", "m1"]), &json!(true))
    );
    c.ok_json(
        "model.update",
        json!({"provider": "p", "id": "m1", "maxOutput": 4096}),
    )
    .unwrap();
    // An id keeps the stored settings; an object is taken as given.
    c.ok_json(
        "provider.upsert",
        json!({"id": "p", "models": ["m1", {"id": "big", "maxOutput": 1000}]}),
    )
    .unwrap();
    let catalog = c.ok_json("model.catalog", json!({})).unwrap();
    let got: Vec<(String, Value, Value, Value)> = catalog
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["ref"].as_str().unwrap().to_string(),
                m["contextWindow"].clone(),
                m["maxOutput"].clone(),
                m["capabilities"]["vision"].clone(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("p/m1".into(), json!(128000), json!(4096), json!(false)),
            ("p/big".into(), json!(128000), json!(1000), json!(false)),
        ]
    );
    // A second provider does not take over the active profile.
    let other = c
        .ok_json(
            "provider.upsert",
            json!({"id": "q", "baseUrl": "http://h", "models": ["x"], "activateIfNone": true}),
        )
        .unwrap();
    assert_eq!(other["active"], false);

    for (models, message) in [
        (
            json!([{"contextWindow": 1}]),
            "params.models[0] is not a valid model: id is required",
        ),
        (json!([1]), "params.models must be an array of model ids"),
        (json!("m1"), "params.models must be an array of model ids"),
    ] {
        let err = c
            .err("provider.upsert", json!({"id": "p", "models": models}))
            .unwrap();
        assert_eq!(
            (&err["data"], &err["details"]["param"]),
            (&json!(message), &json!("models"))
        );
    }
    let err = c
        .err(
            "provider.upsert",
            json!({"id": "p", "models": ["m1", {"id": "z", "contextWindow": "big"}]}),
        )
        .unwrap();
    assert!(
        err["data"]
            .as_str()
            .unwrap()
            .starts_with("params.models[1] is not a valid model: "),
        "{err}"
    );
    assert_eq!(
        c.err(
            "provider.upsert",
            json!({"id": "a/b", "baseUrl": "http://h", "models": ["m"]})
        )
        .unwrap()["data"],
        "params.id must not contain '/'"
    );
}

#[test]
fn model_test_probe_fetch_optimize_and_usage_against_a_real_http_server() {
    let server = ProviderServer::start().unwrap();
    server.set_models(["m1", "m3", "m4"]);
    let d = start();
    let mut c = d.connect().unwrap();
    upsert_testkit(&mut c, "tk", &server, "sk-abc");

    server.enqueue(Reply::plain("ok"));
    let t = c.ok_json("model.test", json!({"model": "tk/m1"})).unwrap();
    assert_eq!(
        (
            t["model"].as_str(),
            t["success"].as_bool(),
            t["detail"].as_str()
        ),
        (Some("tk/m1"), Some(true), Some("ok"))
    );
    let req = server.requests().into_iter().last().unwrap();
    assert_eq!(req.path, "/chat/completions");
    assert_eq!(req.header("authorization"), Some("Bearer sk-abc"));
    assert_eq!(req.body["model"], "m1");
    assert_eq!(
        req.body["messages"][0]["content"],
        "Reply with the single word: ok"
    );

    server.enqueue(Reply::http_error(
        401,
        json!({"error": {"message": "Invalid API key supplied"}}),
        None,
    ));
    let t = c.ok_json("model.test", json!({"model": "tk/m2"})).unwrap();
    assert_eq!(t["success"], false);
    assert_eq!(
        t["detail"],
        "tk returned HTTP 401: Invalid API key supplied"
    );
    assert_eq!(
        c.err("model.test", json!({"model": "nope"})).unwrap()["data"],
        "Model not found: nope"
    );
    // A disabled provider's models are not found (resolution skips them).
    c.ok_json(
        "provider.upsert",
        json!({"id": "off", "enabled": false, "baseUrl": server.base_url(), "models": ["offm"]}),
    )
    .unwrap();
    assert_eq!(
        c.err("model.test", json!({"model": "off/offm"})).unwrap()["data"],
        "Model not found: off/offm"
    );
    c.ok("provider.remove", json!({"id": "off"})).unwrap();

    let probe = c.ok_json("provider.test", json!({"id": "tk"})).unwrap();
    assert_eq!(
        (probe[0]["online"].as_bool(), probe[0]["detail"].as_str()),
        (Some(true), Some("ok"))
    );
    assert_eq!(
        c.err("provider.test", json!({"id": "none"})).unwrap()["data"],
        "No matching providers"
    );
    let fetched = c
        .ok_json("provider.models.fetch", json!({"id": "tk"}))
        .unwrap();
    assert_eq!(fetched, json!(["m1", "m3", "m4"]));
    assert_eq!(
        c.ok_json("provider.list", json!({})).unwrap()[0]["models"],
        json!(["m1", "m2", "m3", "m4"])
    );

    server.enqueue(Reply::plain("Rewritten: be precise."));
    let out = c
        .ok(
            "prompt.optimize",
            json!({"text": "fix stuff", "model": "tk/m1"}),
        )
        .unwrap();
    assert_eq!(out, "Rewritten: be precise.");
    let req = server.requests().into_iter().last().unwrap();
    assert_eq!(req.body["temperature"], 0.2);
    assert!(
        req.body["messages"][1]["content"]
            .as_str()
            .unwrap()
            .contains("<prompt_to_optimize>\nfix stuff\n</prompt_to_optimize>")
    );
    server.enqueue(Reply::plain("   "));
    assert_eq!(
        c.err("prompt.optimize", json!({"text": "x", "model": "tk/m1"}))
            .unwrap()["data"],
        "The selected model returned an empty optimized prompt."
    );
    assert_eq!(
        c.err("prompt.optimize", json!({"text": "x", "model": "zz/zz"}))
            .unwrap()["data"],
        "Unknown model: zz/zz"
    );

    let usage = c.ok_json("usage.get", json!({"days": 1})).unwrap();
    let rows = usage.as_array().unwrap();
    let m1 = rows.iter().find(|r| r["model"] == "m1").unwrap();
    assert_eq!(m1["calls"], 3);
    let m2 = rows.iter().find(|r| r["model"] == "m2").unwrap();
    assert_eq!(
        (
            m2["calls"].as_u64(),
            m2["failures"].as_u64(),
            m2["successRate"].as_f64()
        ),
        (Some(1), Some(1), Some(0.0))
    );

    let checks = c.ok_json("doctor.run", json!({})).unwrap();
    let row = checks
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "Provider tk")
        .unwrap();
    assert_eq!(
        (row["ok"].as_bool(), row["kind"].as_str()),
        (Some(true), Some("provider"))
    );
    assert!(row["detail"].as_str().unwrap().starts_with("ok ("));
}

#[test]
fn api_key_never_reaches_the_logs() {
    let server = ProviderServer::start().unwrap();
    let key = "sk-super-secret-4711";
    let mut d = DaemonProcess::start_with(
        crate::support::bin(),
        StartOptions {
            env: vec![("RUST_LOG".into(), "trace".into())],
            ..Default::default()
        },
    )
    .unwrap();
    let mut c = d.connect().unwrap();
    upsert_testkit(&mut c, "tk", &server, key);
    server.set_default(Reply::http_error(
        500,
        json!({"error": {"message": "upstream exploded"}}),
        None,
    ));
    let t = c.ok_json("model.test", json!({"model": "tk/m1"})).unwrap();
    assert_eq!(t["success"], false);
    assert!(!t["detail"].as_str().unwrap().contains(key));
    let unreachable = json!({"id": "dead", "kind": "anthropic", "baseUrl": "http://127.0.0.1:9", "apiKey": key, "models": ["x"]});
    c.ok_json("provider.upsert", unreachable).unwrap();
    let probe = c.ok_json("provider.test", json!({"id": "dead"})).unwrap();
    assert_eq!(probe[0]["online"], false);
    assert!(!probe[0]["detail"].as_str().unwrap().contains(key));
    // A model list server that echoes the credential it rejects.
    let echo = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let echo_url = format!("http://{}/models", echo.local_addr().unwrap());
    std::thread::spawn(move || {
        use std::io::{BufRead, BufReader, Write};
        let Ok((stream, _)) = echo.accept() else {
            return;
        };
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        let mut auth = String::new();
        let mut line = String::new();
        while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
            if line.to_ascii_lowercase().starts_with("authorization:") {
                auth = line["authorization:".len()..].trim().to_string();
            }
            line.clear();
        }
        let body = format!("{{\"error\":{{\"message\":\"bad key {auth}\"}}}}");
        let reply = format!(
            "HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        );
        let _ = (&stream).write_all(reply.as_bytes());
    });
    let echoing = json!({"id": "echo", "baseUrl": "http://127.0.0.1:9", "apiKey": key, "models": ["x"], "modelListUrl": echo_url});
    c.ok_json("provider.upsert", echoing).unwrap();
    let fetch = c
        .err("provider.models.fetch", json!({"id": "echo"}))
        .unwrap();
    let text = fetch["data"].as_str().unwrap();
    assert!(
        text.starts_with("Model list request failed for echo (HTTP 401)")
            && text.contains("<redacted>"),
        "{text}"
    );
    assert!(!text.contains(key), "{text}");
    server.set_default(Reply::plain("ok"));
    c.ok("prompt.optimize", json!({"text": "x", "model": "tk/m1"}))
        .unwrap();
    c.ok("shutdown", json!({})).unwrap_or_default();
    d.wait_exit(std::time::Duration::from_secs(15)).unwrap();
    let logs = d.stderr();
    assert!(
        logs.contains("TRACE") || logs.contains("DEBUG"),
        "trace logging was on"
    );
    assert!(!logs.contains(key), "the API key leaked into the logs");
}
