//! Scheduled tasks over the socket: a daemon ticking every 100 ms on the
//! testkit provider, a task created, an event waited for.

use seekclaw_testkit::{Client, DaemonProcess, ProviderServer, StartOptions};
use serde_json::{Value, json};

use super::start_with;

/// A daemon whose only provider is the testkit server, ticking every 100 ms.
pub(crate) fn setup(server: &ProviderServer, extra: Value) -> DaemonProcess {
    start_with(options(server, extra, Vec::new()))
}

pub(crate) fn options(
    server: &ProviderServer,
    extra: Value,
    env: Vec<(String, String)>,
) -> StartOptions {
    let mut config = json!({
        "providers": [{
            "id": "tk", "kind": "openai", "baseUrl": server.base_url(), "apiKey": "sk-tk",
            "timeoutSeconds": 30,
            "models": [{"id": "m1", "contextWindow": 128000, "maxOutput": 4096}]
        }],
        "routing": {"retry": {"baseDelaySeconds": 0.01, "maxDelaySeconds": 0.05}},
        "agent": {"autoVerify": false},
        "daemon": {"schedulerTickMilliseconds": 100}
    });
    if let Value::Object(more) = extra {
        for (section, fields) in more {
            if let (Some(into), Value::Object(fields)) = (config[&section].as_object_mut(), fields)
            {
                into.extend(fields);
            }
        }
    }
    StartOptions {
        config: Some(config),
        env,
        ..StartOptions::default()
    }
}

pub(crate) fn create(c: &mut Client, params: Value) -> Value {
    c.ok_json("schedule.create", params).unwrap()
}

/// Reads envelopes until one named `event` arrives (others are skipped).
pub(crate) fn wait_event(c: &mut Client, event: &str) -> Value {
    loop {
        let env = c.next_envelope().unwrap();
        if env["event"] == event {
            return env;
        }
    }
}
