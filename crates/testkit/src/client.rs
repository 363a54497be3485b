//! The tests' client: `seekclaw-client` underneath (connect, request ids,
//! reading a request to its one terminal envelope while other requests'
//! envelopes wait), with envelopes as JSON values for assertions, raw
//! writes for malformed input, and (feature `schema-check`) every line read
//! checked against the protocol's schema.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use seekclaw_client::{Event, MethodType};
use serde_json::{Map, Value};

/// The method of each request sent (by id), to check its answers.
type Sent = Arc<Mutex<HashMap<i64, String>>>;

/// A blocking JSONL client for tests.
pub struct Client {
    inner: seekclaw_client::Client,
    sent: Sent,
}

impl Client {
    pub fn connect(socket: &Path) -> Result<Client> {
        let mut inner = seekclaw_client::Client::connect(socket)?;
        inner.set_read_timeout(Some(Duration::from_secs(30)))?;
        let sent = Sent::default();
        #[cfg(feature = "schema-check")]
        {
            let sent = sent.clone();
            inner.on_line(Box::new(move |line| {
                let sent = sent.lock().unwrap_or_else(PoisonError::into_inner);
                crate::schema_check::check_line(line, &sent);
            }));
        }
        Ok(Client { inner, sent })
    }

    /// The typed client underneath (`call`, `stream`, `reconnect`, …).
    pub fn typed(&mut self) -> &mut seekclaw_client::Client {
        &mut self.inner
    }

    pub fn set_read_timeout(&self, t: Duration) -> Result<()> {
        self.inner.socket().set_read_timeout(Some(t))?;
        Ok(())
    }

    pub fn stream(&self) -> &std::os::unix::net::UnixStream {
        self.inner.socket()
    }

    fn note(&self, id: i64, method: &str) {
        self.sent
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(id, method.to_string());
    }

    pub fn send_raw(&mut self, bytes: &[u8]) -> Result<()> {
        self.note_requests(bytes);
        self.inner.write_raw(bytes)?;
        Ok(())
    }

    /// Remembers the id and method of each well-formed request line in `bytes`.
    fn note_requests(&mut self, bytes: &[u8]) {
        for line in bytes.split(|b| *b == b'\n') {
            let Ok(v) = serde_json::from_slice::<Value>(line) else {
                continue;
            };
            if let Some(method) = v.get("method").and_then(Value::as_str) {
                let id = match v.get("id") {
                    None | Some(Value::Null) => Some(0),
                    Some(id) => id.as_i64(),
                };
                if let Some(id) = id {
                    self.note(id, method);
                }
            }
        }
    }

    /// Sends a request and returns its id.
    pub fn send(&mut self, method: &str, params: Value) -> Result<i64> {
        let id = self.inner.send_named(method, &params)?;
        self.note(id, method);
        Ok(id)
    }

    /// A typed call (`seekclaw-client`): `M`'s params in, its result out.
    pub fn call<M: MethodType>(&mut self, params: &M::Params) -> Result<M::Result> {
        let id = self.inner.send::<M>(params)?;
        self.note(id, seekclaw_client::method_name::<M>());
        let env = self.inner.terminal(id)?;
        Ok(seekclaw_client::read_result::<M>(&env)?)
    }

    /// Reads the next envelope line from the socket, as sent.
    pub fn read_line(&mut self) -> Result<String> {
        Ok(self.inner.read_line()?)
    }

    pub fn next_envelope(&mut self) -> Result<Value> {
        Ok(as_value(self.inner.next_event()?))
    }

    /// Reads until an envelope with event `name` arrives and returns it (envelopes
    /// read on the way are dropped).
    pub fn wait_for(&mut self, name: &str) -> Result<Value> {
        loop {
            let env = self.inner.next_event()?;
            if env.event == name {
                return Ok(as_value(env));
            }
        }
    }

    /// Reads until the terminal envelope of `id`; returns every envelope of `id`
    /// (the terminal last). Envelopes of other ids are kept for later reads.
    pub fn collect(&mut self, id: i64) -> Result<Vec<Value>> {
        Ok(self.inner.collect(id)?.into_iter().map(as_value).collect())
    }

    /// Sends a request and returns its terminal envelope.
    pub fn request(&mut self, method: &str, params: Value) -> Result<Value> {
        let id = self.send(method, params)?;
        let env = self.inner.terminal(id).context("no terminal envelope")?;
        Ok(as_value(env))
    }

    /// A request that must succeed: returns `data`.
    pub fn ok(&mut self, method: &str, params: Value) -> Result<String> {
        let env = self.request(method, params)?;
        match env["event"].as_str() {
            Some("error") => bail!("{method} failed: {env}"),
            _ => Ok(env["data"].as_str().unwrap_or_default().to_string()),
        }
    }

    /// A request whose `data` is JSON: returns it parsed.
    pub fn ok_json(&mut self, method: &str, params: Value) -> Result<Value> {
        let data = self.ok(method, params)?;
        serde_json::from_str(&data).with_context(|| format!("{method} data is not JSON: {data}"))
    }

    /// A request that must fail: returns the error envelope.
    pub fn err(&mut self, method: &str, params: Value) -> Result<Value> {
        let env = self.request(method, params)?;
        if env["event"] != "error" {
            bail!("{method} was expected to fail: {env}");
        }
        Ok(env)
    }
}

/// An envelope as the JSON object it was on the wire, keys in wire order
/// (`sessionId` and `details` only when sent).
fn as_value(env: Event) -> Value {
    let mut m = Map::new();
    m.insert("id".into(), env.id.into());
    m.insert("event".into(), env.event.into());
    m.insert("data".into(), env.data.into());
    if let Some(s) = env.session_id {
        m.insert("sessionId".into(), s.into());
    }
    if let Some(d) = env.details {
        m.insert("details".into(), d);
    }
    if let Some(seq) = env.seq {
        m.insert("seq".into(), seq.into());
    }
    Value::Object(m)
}
