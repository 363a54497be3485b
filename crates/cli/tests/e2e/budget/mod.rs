//! Spend budgets through the real binary: a turn stops before the model
//! request that would cross a budget (the testkit provider counts what it
//! received), nothing is lost and a raised budget goes on; the day's budget
//! spans sessions; scheduled runs have theirs; a model without a price
//! counts tokens; `run --max-cost`; `budget.get` / `budget.set`.
//!
//! The model's prices make the arithmetic exact: input is free and output
//! costs $1000 per million tokens, with `maxOutput` 100, so each request is
//! estimated at $0.10 before it is sent and each scripted answer (50 output
//! tokens) costs $0.05.

mod daemon;
mod run;

use seekclaw_testkit::{DaemonProcess, ProviderServer, Reply, StartOptions};
use serde_json::{Value, json};

use crate::support::start_with;

/// The provider entry: `m1` priced as above, `free` without a price.
pub(crate) fn providers(server: &ProviderServer) -> Value {
    json!([{
        "id": "tk", "kind": "openai", "baseUrl": server.base_url(), "apiKey": "sk-tk",
        "timeoutSeconds": 20,
        "models": [
            {"id": "m1", "contextWindow": 128000, "maxOutput": 100,
             "inputPricePerMTok": 0.0, "outputPricePerMTok": 1000.0},
            {"id": "free", "contextWindow": 1000000, "maxOutput": 100}
        ]
    }])
}

/// The config: the providers, fast retries, no verification, and `budgets`.
pub(crate) fn config(server: &ProviderServer, budgets: Value) -> Value {
    json!({
        "providers": providers(server),
        "routing": {"retry": {"baseDelaySeconds": 0.01, "maxDelaySeconds": 0.05}},
        "agent": {"autoVerify": false},
        "daemon": {"schedulerTickMilliseconds": 100},
        "budgets": budgets,
    })
}

pub(crate) fn daemon(server: &ProviderServer, budgets: Value) -> DaemonProcess {
    start_with(StartOptions {
        config: Some(config(server, budgets)),
        ..StartOptions::default()
    })
}

/// A step that lists the folder and costs $0.05.
pub(crate) fn tool_step(n: u32) -> Reply {
    Reply::new()
        .tool_call(format!("call_{n}"), "list_dir", r#"{"path":"."}"#)
        .usage(10, 0, 50)
}

/// A final answer that costs $0.05.
pub(crate) fn answer(text: &str) -> Reply {
    Reply::plain(text).usage(10, 0, 50)
}
