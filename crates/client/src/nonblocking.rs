//! The async client (tokio, feature `tokio`): one connection shared by any
//! number of tasks. One reader task routes each envelope by request id: a
//! [`AsyncClient::call`] gets its terminal envelope back, an
//! [`AsyncClient::stream`] every envelope of its request; the rest
//! (broadcasts, requests sent with [`AsyncClient::send`]) go to the channel
//! [`AsyncClient::connect`] returns, in arrival order.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use seekclaw_protocol::MethodType;
use serde::Serialize;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::UnixStream;
use tokio::net::unix::{OwnedReadHalf, OwnedWriteHalf};
use tokio::sync::{mpsc, oneshot};

use crate::error::ClientError;
use crate::wire::{Event, RequestIds, method_name, read_result, read_result_as, request_line};

/// Where the reader sends a request's envelopes.
enum Route {
    /// Only the terminal one; the others are dropped.
    Terminal(oneshot::Sender<Event>),
    /// Every one, the terminal last.
    Stream(mpsc::UnboundedSender<Event>),
}

/// The open requests, and whether the reader has stopped (then nothing is
/// routed any more, so a new request fails at once instead of waiting for
/// ever on a daemon that only half-closed the connection).
#[derive(Default)]
struct Table {
    open: HashMap<i64, Route>,
    closed: bool,
}

type Routes = Arc<Mutex<Table>>;

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // The map stays consistent whatever a panicking holder did (insert/remove only).
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// An async connection to the daemon.
pub struct AsyncClient {
    path: PathBuf,
    writer: tokio::sync::Mutex<OwnedWriteHalf>,
    ids: Arc<RequestIds>,
    routes: Routes,
}

impl AsyncClient {
    /// Connects to the socket at `path`. Envelopes no call or stream claims
    /// arrive on the returned channel, which closes with the connection (drop
    /// it to ignore them).
    pub async fn connect(
        path: impl AsRef<Path>,
    ) -> Result<(AsyncClient, mpsc::UnboundedReceiver<Event>), ClientError> {
        Self::open(path.as_ref(), Arc::default()).await
    }

    async fn open(
        path: &Path,
        ids: Arc<RequestIds>,
    ) -> Result<(AsyncClient, mpsc::UnboundedReceiver<Event>), ClientError> {
        let stream = UnixStream::connect(path)
            .await
            .map_err(|source| ClientError::Connect {
                path: path.to_path_buf(),
                source,
            })?;
        let (read, write) = stream.into_split();
        let routes = Routes::default();
        let (tx, rx) = mpsc::unbounded_channel();
        tokio::spawn(read_envelopes(BufReader::new(read), routes.clone(), tx));
        let client = AsyncClient {
            path: path.to_path_buf(),
            writer: tokio::sync::Mutex::new(write),
            ids,
            routes,
        };
        Ok((client, rx))
    }

    /// A new connection to the same socket (after the daemon restarted),
    /// with request ids that go on from this one's.
    pub async fn reconnect(
        &self,
    ) -> Result<(AsyncClient, mpsc::UnboundedReceiver<Event>), ClientError> {
        Self::open(&self.path, self.ids.clone()).await
    }

    /// Sends a request whose envelopes go to the unclaimed channel; returns its id.
    pub async fn send<M: MethodType>(&self, params: &M::Params) -> Result<i64, ClientError> {
        self.send_named(method_name::<M>(), params).await
    }

    /// [`AsyncClient::send`] by method name, with any params.
    pub async fn send_named<P: Serialize + ?Sized>(
        &self,
        method: &str,
        params: &P,
    ) -> Result<i64, ClientError> {
        let id = self.ids.next();
        self.write(id, method, params).await?;
        Ok(id)
    }

    /// Sends a request and reads its terminal envelope as `M`'s result.
    pub async fn call<M: MethodType>(&self, params: &M::Params) -> Result<M::Result, ClientError> {
        let env = self.request(method_name::<M>(), params).await?;
        read_result::<M>(&env)
    }

    /// [`AsyncClient::call`] that gives up after `limit` with
    /// [`ClientError::Timeout`]; the answer, if it comes later, is dropped.
    pub async fn call_within<M: MethodType>(
        &self,
        params: &M::Params,
        limit: Duration,
    ) -> Result<M::Result, ClientError> {
        let env = self
            .request_within(method_name::<M>(), params, Some(limit))
            .await?;
        read_result::<M>(&env)
    }

    /// [`AsyncClient::call_within`] whose JSON result is read as `T`, the
    /// caller's own view of it (see [`read_result_as`]).
    pub async fn call_as<M: MethodType, T: serde::de::DeserializeOwned>(
        &self,
        params: &M::Params,
        limit: Option<Duration>,
    ) -> Result<T, ClientError> {
        let env = self
            .request_within(method_name::<M>(), params, limit)
            .await?;
        read_result_as::<M, T>(&env)
    }

    /// Sends a request by name and returns its terminal envelope as sent
    /// (an `error` envelope included).
    pub async fn request<P: Serialize + ?Sized>(
        &self,
        method: &str,
        params: &P,
    ) -> Result<Event, ClientError> {
        self.request_within(method, params, None).await
    }

    /// [`AsyncClient::request`] that gives up after `limit`, when given.
    pub async fn request_within<P: Serialize + ?Sized>(
        &self,
        method: &str,
        params: &P,
        limit: Option<Duration>,
    ) -> Result<Event, ClientError> {
        let id = self.ids.next();
        let rx = self.route_terminal(id)?;
        self.write_routed(id, method, params).await?;
        let answer = match limit {
            Some(limit) => match tokio::time::timeout(limit, rx).await {
                Ok(answer) => answer,
                Err(_) => {
                    lock(&self.routes).open.remove(&id);
                    return Err(ClientError::Timeout {
                        method: method.to_string(),
                    });
                }
            },
            None => rx.await,
        };
        answer.map_err(|_| ClientError::Closed)
    }

    /// Sends a request and streams its envelopes, the terminal one last.
    pub async fn stream<M: MethodType>(
        &self,
        params: &M::Params,
    ) -> Result<EventStream, ClientError> {
        let id = self.ids.next();
        let (tx, rx) = mpsc::unbounded_channel();
        self.add_route(id, Route::Stream(tx))?;
        self.write_routed(id, method_name::<M>(), params).await?;
        Ok(EventStream {
            id,
            rx,
            ended: false,
        })
    }

    fn route_terminal(&self, id: i64) -> Result<oneshot::Receiver<Event>, ClientError> {
        let (tx, rx) = oneshot::channel();
        self.add_route(id, Route::Terminal(tx))?;
        Ok(rx)
    }

    fn add_route(&self, id: i64, route: Route) -> Result<(), ClientError> {
        let mut table = lock(&self.routes);
        if table.closed {
            return Err(ClientError::Closed);
        }
        table.open.insert(id, route);
        Ok(())
    }

    /// Writes a routed request; its route goes if the write fails.
    async fn write_routed<P: Serialize + ?Sized>(
        &self,
        id: i64,
        method: &str,
        params: &P,
    ) -> Result<(), ClientError> {
        let written = self.write(id, method, params).await;
        if written.is_err() {
            lock(&self.routes).open.remove(&id);
        }
        written
    }

    async fn write<P: Serialize + ?Sized>(
        &self,
        id: i64,
        method: &str,
        params: &P,
    ) -> Result<(), ClientError> {
        let line = request_line(id, method, params)?;
        let mut w = self.writer.lock().await;
        w.write_all(&line).await?;
        w.flush().await?;
        Ok(())
    }
}

/// One request's envelopes; [`EventStream::next`] is `None` after the terminal one.
pub struct EventStream {
    id: i64,
    rx: mpsc::UnboundedReceiver<Event>,
    ended: bool,
}

impl EventStream {
    /// The request's id (what `agent.steer` and `agent.cancel` name).
    pub fn id(&self) -> i64 {
        self.id
    }

    /// The next envelope; `Some(Err(Closed))` if the connection ends first.
    pub async fn next(&mut self) -> Option<Result<Event, ClientError>> {
        if self.ended {
            return None;
        }
        match self.rx.recv().await {
            Some(env) => {
                self.ended = env.is_terminal();
                Some(Ok(env))
            }
            None => {
                self.ended = true;
                Some(Err(ClientError::Closed))
            }
        }
    }
}

async fn read_envelopes(
    mut reader: BufReader<OwnedReadHalf>,
    routes: Routes,
    unclaimed: mpsc::UnboundedSender<Event>,
) {
    let mut line = String::new();
    loop {
        line.clear();
        match reader.read_line(&mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let Ok(env) = Event::parse(&line) else {
            continue;
        };
        let (id, terminal) = (env.id, env.is_terminal());
        let mut table = lock(&routes);
        match table.open.get(&id) {
            Some(Route::Terminal(_)) if terminal => {
                if let Some(Route::Terminal(tx)) = table.open.remove(&id) {
                    let _ = tx.send(env);
                }
            }
            // A call's other envelopes are nobody's business.
            Some(Route::Terminal(_)) => {}
            Some(Route::Stream(tx)) => {
                let _ = tx.send(env);
                if terminal {
                    table.open.remove(&id);
                }
            }
            None => {
                drop(table);
                // Nobody listening (an embedder that only calls) is fine:
                // the envelope is dropped and calls go on being answered.
                let _ = unclaimed.send(env);
            }
        }
    }
    // Pending calls and streams see Closed when their senders drop.
    let mut table = lock(&routes);
    table.closed = true;
    table.open.clear();
}

#[cfg(test)]
mod tests {
    use seekclaw_protocol::api::{ChatParams, NoParams};
    use seekclaw_protocol::{TurnOutcome, method};
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    use tokio::net::UnixListener;

    use super::AsyncClient;

    #[tokio::test]
    async fn calls_streams_and_broadcasts_are_routed_by_id() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("daemon.sock");
        let listener = UnixListener::bind(&path).unwrap();
        let server = tokio::spawn(async move {
            let (sock, _) = listener.accept().await.unwrap();
            let (r, mut w) = sock.into_split();
            let mut lines = BufReader::new(r).lines();
            for _ in 0..2 {
                lines.next_line().await.unwrap().unwrap();
            }
            // Chat is 1, ping 2: the turn's events interleave with the pong.
            for line in [
                r#"{"id":1,"event":"delta","data":"he","sessionId":"s"}"#,
                r#"{"id":2,"event":"pong","data":""}"#,
                r#"{"id":0,"event":"schedule.upcoming","data":"t"}"#,
                r#"{"id":1,"event":"done","data":"hello","sessionId":"s"}"#,
            ] {
                w.write_all(format!("{line}\n").as_bytes()).await.unwrap();
            }
            lines
        });
        let (client, mut unclaimed) = AsyncClient::connect(&path).await.unwrap();
        let chat = ChatParams {
            message: Some("hi".into()),
            ..Default::default()
        };
        let mut turn = client.stream::<method::Chat>(&chat).await.unwrap();
        client.call::<method::Ping>(&NoParams {}).await.unwrap();
        let mut names = Vec::new();
        let mut last = None;
        while let Some(env) = turn.next().await {
            let env = env.unwrap();
            names.push(env.event.clone());
            last = Some(env);
        }
        assert_eq!(names, ["delta", "done"]);
        let end = crate::read_result::<method::Chat>(&last.unwrap()).unwrap();
        assert_eq!(end.outcome, TurnOutcome::Done);
        assert_eq!(unclaimed.recv().await.unwrap().event, "schedule.upcoming");
        drop(server.await.unwrap());
        // The daemon hung up: a call fails as a disconnect.
        let err = client.call::<method::Ping>(&NoParams {}).await.unwrap_err();
        assert!(err.is_disconnect(), "{err}");
    }

    /// A typed request whose answer is read into the caller's own view.
    #[tokio::test]
    async fn call_as_reads_the_answer_into_the_callers_type() {
        #[derive(Debug, serde::Deserialize)]
        struct Seen {
            id: String,
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("daemon.sock");
        let listener = UnixListener::bind(&path).unwrap();
        let server = tokio::spawn(async move {
            let (sock, _) = listener.accept().await.unwrap();
            let (r, mut w) = sock.into_split();
            let mut lines = BufReader::new(r).lines();
            let request = lines.next_line().await.unwrap().unwrap();
            let answer = r#"{"id":1,"event":"result","data":"{\"id\":\"s1\",\"entries\":[]}"}"#;
            w.write_all(format!("{answer}\n").as_bytes()).await.unwrap();
            (request, lines, w)
        });
        let (client, _unclaimed) = AsyncClient::connect(&path).await.unwrap();
        let params = seekclaw_protocol::api::SessionTimelineParams {
            id: seekclaw_protocol::api::Required("s1".into()),
            ..Default::default()
        };
        let seen: Seen = client
            .call_as::<method::SessionTimeline, Seen>(&params, None)
            .await
            .unwrap();
        assert_eq!(seen.id, "s1");
        let (request, _lines, _w) = server.await.unwrap();
        assert_eq!(
            request,
            r#"{"id":1,"method":"session.timeline","params":{"id":"s1"}}"#
        );
    }

    /// A daemon that stops writing but keeps the socket open: requests fail
    /// at once instead of waiting for ever.
    #[tokio::test]
    async fn a_half_closed_connection_fails_requests_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("daemon.sock");
        let listener = UnixListener::bind(&path).unwrap();
        let (client, unclaimed) = AsyncClient::connect(&path).await.unwrap();
        drop(unclaimed);
        let (sock, _) = listener.accept().await.unwrap();
        let (read, mut write) = sock.into_split();
        write.shutdown().await.unwrap();
        // Whether the reader has seen the end yet or not, the request ends.
        let limit = std::time::Duration::from_secs(5);
        let answer = tokio::time::timeout(limit, client.request("ping", &serde_json::json!({})))
            .await
            .expect("the request ends");
        assert!(answer.unwrap_err().is_disconnect());
        let again = client.call::<method::Ping>(&NoParams {}).await.unwrap_err();
        assert!(matches!(again, crate::ClientError::Closed), "{again}");
        drop(read);
    }
}
