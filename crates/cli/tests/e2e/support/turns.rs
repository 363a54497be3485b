//! Turns over the socket: a daemon on the testkit provider, a `chat` call
//! collected to its end, its events picked out by name.

use seekclaw_testkit::{Client, DaemonProcess, ProviderServer, StartOptions};
use serde_json::{Value, json};

use super::start_with;

/// A daemon whose only provider is the testkit server (fast retries).
pub(crate) fn setup(server: &ProviderServer, opts: StartOptions) -> DaemonProcess {
    let mut config = opts.config.clone().unwrap_or_else(|| json!({}));
    config["providers"] = json!([{
        "id": "tk", "kind": "openai", "baseUrl": server.base_url(), "apiKey": "sk-tk",
        "timeoutSeconds": 20,
        "models": [
            {"id": "m1", "contextWindow": 128000, "maxOutput": 4096},
            {"id": "eyes", "contextWindow": 128000, "maxOutput": 4096, "capabilities": {"vision": true}}
        ]
    }]);
    config["routing"] = json!({"retry": {"baseDelaySeconds": 0.01, "maxDelaySeconds": 0.05}});
    start_with(StartOptions {
        config: Some(config),
        ..opts
    })
}

pub(crate) fn events(all: &[Value], name: &str) -> Vec<Value> {
    all.iter().filter(|e| e["event"] == name).cloned().collect()
}

/// `field` (a string) of every `name` event, as owned strings.
pub(crate) fn strings(all: &[Value], name: &str, field: &[&str]) -> Vec<String> {
    events(all, name)
        .iter()
        .map(|e| {
            let mut v = e;
            for f in field {
                v = &v[*f];
            }
            v.as_str().unwrap_or_default().to_string()
        })
        .collect()
}

pub(crate) fn chat(c: &mut Client, params: Value) -> Vec<Value> {
    let id = c.send("chat", params).unwrap();
    c.collect(id).unwrap()
}
