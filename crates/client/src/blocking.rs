//! The blocking client: one connection, requests numbered from 1, envelopes
//! read on the caller's thread. Envelopes of other requests read while
//! waiting for one are kept, in order, for later reads.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use seekclaw_protocol::MethodType;
use serde::Serialize;

use crate::error::ClientError;
use crate::transport::{Opened, open};
use crate::wire::{Event, RequestIds, method_name, read_result, request_line};

/// Called with every line read, as read (a test harness checks each against
/// the protocol's schema).
pub type LineHook = Box<dyn FnMut(&str) + Send>;

/// A blocking connection to the daemon.
pub struct Client {
    path: PathBuf,
    reader: BufReader<Box<dyn Read + Send>>,
    writer: Box<dyn Write + Send>,
    #[cfg(unix)]
    socket: std::os::unix::net::UnixStream,
    read_timeout: Option<Duration>,
    ids: RequestIds,
    /// Envelopes read while waiting for another request's.
    pending: VecDeque<Event>,
    hook: Option<LineHook>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("path", &self.path)
            .field("pending", &self.pending.len())
            .finish_non_exhaustive()
    }
}

impl Client {
    /// Connects to the socket at `path` (`$SEEKCLAW_HOME/daemon.sock`). Only
    /// connects: starting a daemon when none runs is the caller's choice.
    pub fn connect(path: impl AsRef<Path>) -> Result<Client, ClientError> {
        let path = path.as_ref().to_path_buf();
        let opened = open(&path).map_err(|source| ClientError::Connect {
            path: path.clone(),
            source,
        })?;
        Ok(Client::over(
            path,
            opened,
            None,
            RequestIds::default(),
            None,
        ))
    }

    fn over(
        path: PathBuf,
        opened: Opened,
        read_timeout: Option<Duration>,
        ids: RequestIds,
        hook: Option<LineHook>,
    ) -> Client {
        let mut client = Client {
            path,
            reader: BufReader::new(opened.reader),
            writer: opened.writer,
            #[cfg(unix)]
            socket: opened.socket,
            read_timeout: None,
            ids,
            pending: VecDeque::new(),
            hook,
        };
        // Best effort: a fresh socket takes a timeout.
        let _ = client.set_read_timeout(read_timeout);
        client
    }

    /// The socket this client connects to.
    pub fn socket_path(&self) -> &Path {
        &self.path
    }

    /// The connection's socket, for what a client library does not do
    /// (half-closing it, raw writes from another thread).
    #[cfg(unix)]
    pub fn socket(&self) -> &std::os::unix::net::UnixStream {
        &self.socket
    }

    /// How long a read waits for the daemon before failing with
    /// [`ClientError::Io`] (`None`: for ever). Kept across reconnects.
    pub fn set_read_timeout(&mut self, limit: Option<Duration>) -> Result<(), ClientError> {
        self.read_timeout = limit;
        #[cfg(unix)]
        self.socket.set_read_timeout(limit)?;
        Ok(())
    }

    /// Calls `hook` with every line read from now on.
    pub fn on_line(&mut self, hook: LineHook) {
        self.hook = Some(hook);
    }

    /// Opens a new connection to the same socket (after the daemon restarted).
    /// Request ids go on from where they were, so no answer on the new
    /// connection is mistaken for one on the old; envelopes not yet read from
    /// the old one are dropped with it.
    pub fn reconnect(&mut self) -> Result<(), ClientError> {
        let opened = open(&self.path).map_err(|source| ClientError::Connect {
            path: self.path.clone(),
            source,
        })?;
        let ids = std::mem::take(&mut self.ids);
        let hook = self.hook.take();
        *self = Client::over(self.path.clone(), opened, self.read_timeout, ids, hook);
        Ok(())
    }

    /// [`Client::reconnect`], trying again until `limit` passes (a daemon
    /// that restarts takes a moment to listen); then `ping`s, so the new
    /// connection is known to be served.
    pub fn reconnect_within(&mut self, limit: Duration) -> Result<(), ClientError> {
        let deadline = Instant::now() + limit;
        loop {
            let tried = self
                .reconnect()
                .and_then(|()| self.call::<seekclaw_protocol::method::Ping>(&Default::default()));
            match tried {
                Ok(()) => return Ok(()),
                Err(e) if Instant::now() >= deadline => return Err(e),
                Err(e) if !matches!(e, ClientError::Connect { .. }) && !e.is_disconnect() => {
                    return Err(e);
                }
                Err(_) => std::thread::sleep(Duration::from_millis(50)),
            }
        }
    }

    /// Sends a request of method `M`; returns its id. Its envelopes are read
    /// with [`Client::next_event_for`], [`Client::collect`] or [`Client::terminal`].
    pub fn send<M: MethodType>(&mut self, params: &M::Params) -> Result<i64, ClientError> {
        self.send_named(method_name::<M>(), params)
    }

    /// Sends a request by method name, with any params: for methods this
    /// client's protocol version does not know, and for tests of what the
    /// daemon does with wrong params.
    pub fn send_named<P: Serialize + ?Sized>(
        &mut self,
        method: &str,
        params: &P,
    ) -> Result<i64, ClientError> {
        let id = self.ids.next();
        let line = request_line(id, method, params)?;
        self.write_raw(&line)?;
        Ok(id)
    }

    /// Writes bytes as they are (they need not be a request, or one line).
    pub fn write_raw(&mut self, bytes: &[u8]) -> Result<(), ClientError> {
        self.writer.write_all(bytes)?;
        self.writer.flush()?;
        Ok(())
    }

    /// Reads one line off the connection, as sent (envelopes kept for later
    /// reads are not in it: see [`Client::next_event`]).
    pub fn read_line(&mut self) -> Result<String, ClientError> {
        let mut line = String::new();
        if self.reader.read_line(&mut line)? == 0 {
            return Err(ClientError::Closed);
        }
        if let Some(hook) = self.hook.as_mut() {
            hook(&line);
        }
        Ok(line)
    }

    /// The next envelope: one kept from earlier, else the next line.
    pub fn next_event(&mut self) -> Result<Event, ClientError> {
        match self.pending.pop_front() {
            Some(env) => Ok(env),
            None => Event::parse(&self.read_line()?),
        }
    }

    /// The next envelope of request `id`; others read on the way are kept,
    /// in order.
    pub fn next_event_for(&mut self, id: i64) -> Result<Event, ClientError> {
        if let Some(i) = self.pending.iter().position(|e| e.id == id)
            && let Some(env) = self.pending.remove(i)
        {
            return Ok(env);
        }
        loop {
            let env = Event::parse(&self.read_line()?)?;
            if env.id == id {
                return Ok(env);
            }
            self.pending.push_back(env);
        }
    }

    /// Every envelope of request `id` up to and including its terminal one.
    pub fn collect(&mut self, id: i64) -> Result<Vec<Event>, ClientError> {
        let mut out = Vec::new();
        loop {
            let env = self.next_event_for(id)?;
            let end = env.is_terminal();
            out.push(env);
            if end {
                return Ok(out);
            }
        }
    }

    /// The terminal envelope of request `id` (its other envelopes dropped).
    pub fn terminal(&mut self, id: i64) -> Result<Event, ClientError> {
        loop {
            let env = self.next_event_for(id)?;
            if env.is_terminal() {
                return Ok(env);
            }
        }
    }

    /// Sends a request and reads its terminal envelope as `M`'s result; an
    /// `error` envelope is [`ClientError::Daemon`].
    pub fn call<M: MethodType>(&mut self, params: &M::Params) -> Result<M::Result, ClientError> {
        let id = self.send::<M>(params)?;
        let env = self.terminal(id)?;
        read_result::<M>(&env)
    }

    /// Sends a request and streams its envelopes (a turn's `delta`s, tool
    /// events, …) up to and including the terminal one.
    pub fn stream<M: MethodType>(
        &mut self,
        params: &M::Params,
    ) -> Result<EventStream<'_, M>, ClientError> {
        let id = self.send::<M>(params)?;
        Ok(self.stream_of(id))
    }

    /// Streams the envelopes of a request already sent.
    pub fn stream_of<M: MethodType>(&mut self, id: i64) -> EventStream<'_, M> {
        EventStream {
            client: self,
            id,
            end: None,
            failed: false,
            method: PhantomData,
        }
    }
}

/// One request's envelopes, in order, the terminal one last; then `None`.
pub struct EventStream<'c, M> {
    client: &'c mut Client,
    id: i64,
    end: Option<Event>,
    /// A read failed: the stream ends (the connection is likely gone).
    failed: bool,
    method: PhantomData<M>,
}

impl<M: MethodType> EventStream<'_, M> {
    /// The request's id (what `agent.steer` and `agent.cancel` name).
    pub fn id(&self) -> i64 {
        self.id
    }

    /// The client, to send another request (`agent.cancel`, `agent.steer`)
    /// while this one streams; its envelopes are kept for this stream.
    pub fn client(&mut self) -> &mut Client {
        self.client
    }

    /// Reads the rest of the stream and its terminal envelope as `M`'s result.
    pub fn finish(mut self) -> Result<M::Result, ClientError> {
        while self.end.is_none() {
            self.failed = false;
            self.client_next()?;
        }
        match &self.end {
            Some(env) => read_result::<M>(env),
            None => Err(ClientError::Closed),
        }
    }

    fn client_next(&mut self) -> Result<Event, ClientError> {
        let env = self
            .client
            .next_event_for(self.id)
            .inspect_err(|_| self.failed = true)?;
        if env.is_terminal() {
            self.end = Some(env.clone());
        }
        Ok(env)
    }
}

impl<M: MethodType> Iterator for EventStream<'_, M> {
    type Item = Result<Event, ClientError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.end.is_some() || self.failed {
            return None;
        }
        Some(self.client_next())
    }
}
