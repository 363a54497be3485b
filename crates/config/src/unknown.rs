//! Keys a file holds that this version does not read. They are kept (every
//! struct collects them in its `extra` map, so the file round-trips) and
//! reported, since a typo (`maxStep`) would otherwise be silently ignored.

use serde_json::{Map, Value};

use crate::config::{
    AgentSettings, Config, DaemonSettings, McpServer, McpSettings, Profile, Retry, Routing,
};
use crate::lenient::FieldWarning;
use crate::provider::{Capabilities, Model, Provider};
use crate::state::{State, WorkspaceConfig};

/// A file type whose unknown keys can be listed, by their path in the file.
pub trait UnknownFields {
    /// Appends the path of every key this version does not read, under `at`.
    fn unknown_fields(&self, at: &str, out: &mut Vec<String>);
}

/// The warnings for `value`'s unknown keys.
pub(crate) fn warnings(value: &impl UnknownFields) -> Vec<FieldWarning> {
    let mut paths = Vec::new();
    value.unknown_fields("", &mut paths);
    paths
        .into_iter()
        .map(|path| FieldWarning {
            path,
            message: "unknown field (kept in the file, not used)".to_string(),
        })
        .collect()
}

fn join(at: &str, key: &str) -> String {
    if at.is_empty() {
        key.to_string()
    } else {
        format!("{at}.{key}")
    }
}

pub(crate) fn extra(map: &Map<String, Value>, at: &str, out: &mut Vec<String>) {
    out.extend(map.keys().map(|k| join(at, k)));
}

impl UnknownFields for Value {
    /// A plain tree reads every key.
    fn unknown_fields(&self, _at: &str, _out: &mut Vec<String>) {}
}

impl UnknownFields for Config {
    fn unknown_fields(&self, at: &str, out: &mut Vec<String>) {
        extra(&self.extra, at, out);
        for (name, profile) in &self.profiles {
            profile.unknown_fields(&join(at, &format!("profiles.{name}")), out);
        }
        for (i, provider) in self.providers.iter().enumerate() {
            provider.unknown_fields(&join(at, &format!("providers[{i}]")), out);
        }
        self.routing.unknown_fields(&join(at, "routing"), out);
        self.agent.unknown_fields(&join(at, "agent"), out);
        self.mcp.unknown_fields(&join(at, "mcp"), out);
        self.daemon.unknown_fields(&join(at, "daemon"), out);
        self.lsp.unknown_fields(&join(at, "lsp"), out);
        self.instructions
            .unknown_fields(&join(at, "instructions"), out);
        // Only the status line's own keys: `ui`'s others stay unreported
        // (the desktop app may keep its own there).
        if let Some(status_line) = &self.ui.status_line {
            extra(&status_line.extra, &join(at, "ui.statusLine"), out);
        }
    }
}

impl UnknownFields for Profile {
    fn unknown_fields(&self, at: &str, out: &mut Vec<String>) {
        extra(&self.extra, at, out);
    }
}

impl UnknownFields for Routing {
    fn unknown_fields(&self, at: &str, out: &mut Vec<String>) {
        extra(&self.extra, at, out);
        self.retry.unknown_fields(&join(at, "retry"), out);
    }
}

impl UnknownFields for Retry {
    fn unknown_fields(&self, at: &str, out: &mut Vec<String>) {
        extra(&self.extra, at, out);
    }
}

impl UnknownFields for AgentSettings {
    fn unknown_fields(&self, at: &str, out: &mut Vec<String>) {
        extra(&self.extra, at, out);
        self.web_search.unknown_fields(&join(at, "webSearch"), out);
    }
}

impl UnknownFields for crate::WebSearchSettings {
    fn unknown_fields(&self, at: &str, out: &mut Vec<String>) {
        extra(&self.extra, at, out);
    }
}

impl UnknownFields for McpSettings {
    fn unknown_fields(&self, at: &str, out: &mut Vec<String>) {
        extra(&self.extra, at, out);
        for (name, server) in &self.servers {
            server.unknown_fields(&join(at, &format!("servers.{name}")), out);
        }
    }
}

impl UnknownFields for McpServer {
    fn unknown_fields(&self, at: &str, out: &mut Vec<String>) {
        extra(&self.extra, at, out);
        if let Some(oauth) = &self.oauth {
            extra(&oauth.extra, &join(at, "oauth"), out);
        }
    }
}

impl UnknownFields for DaemonSettings {
    fn unknown_fields(&self, at: &str, out: &mut Vec<String>) {
        extra(&self.extra, at, out);
    }
}

impl UnknownFields for Provider {
    fn unknown_fields(&self, at: &str, out: &mut Vec<String>) {
        extra(&self.extra, at, out);
        for (i, model) in self.models.iter().enumerate() {
            model.unknown_fields(&format!("{at}.models[{i}]"), out);
        }
    }
}

impl UnknownFields for Model {
    fn unknown_fields(&self, at: &str, out: &mut Vec<String>) {
        extra(&self.extra, at, out);
        self.capabilities
            .unknown_fields(&join(at, "capabilities"), out);
    }
}

impl UnknownFields for Capabilities {
    fn unknown_fields(&self, at: &str, out: &mut Vec<String>) {
        extra(&self.extra, at, out);
    }
}

impl UnknownFields for State {
    fn unknown_fields(&self, at: &str, out: &mut Vec<String>) {
        extra(&self.extra, at, out);
    }
}

impl UnknownFields for WorkspaceConfig {
    fn unknown_fields(&self, at: &str, out: &mut Vec<String>) {
        extra(&self.extra, at, out);
        if let Some(mcp) = &self.mcp {
            mcp.unknown_fields(&join(at, "mcp"), out);
        }
    }
}
