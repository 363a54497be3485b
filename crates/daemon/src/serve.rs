//! Serving one client connection: a reader that parses lines and starts requests,
//! and one writer fed by a bounded queue. Requests run concurrently; each gets exactly one
//! terminal envelope.

use std::sync::Arc;
use std::time::Duration;

use futures::FutureExt;
use seekclaw_protocol::{
    Envelope, ErrorCode, MAX_LINE_BYTES, Method, MethodError, Request, Serving, parse_request,
};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::chats::ChatStart;
use crate::connection::Connection;
use crate::ctx::Ctx;
use crate::dispatch;
use crate::framing::{Frame, LineReader, write_all_or_stall};
use crate::outbox::{Outbox, Queued};
use crate::state::Daemon;
use crate::upgrade::UpgradeServer;
use seekclaw_engine::sync::Locked;

/// Requests of one connection in flight at once; beyond this the reader stops reading
/// (back-pressure instead of unbounded task growth).
const MAX_IN_FLIGHT: usize = 512;
/// How long a closing connection waits for its running requests before giving up.
const DRAIN_GRACE: Duration = Duration::from_secs(5);
/// The one method the read loop answers itself, as a first request.
const UPGRADE: &str = "connection.upgrade";
/// Inline answers batched past this size are queued without waiting for more.
const BATCH_FLUSH_BYTES: usize = 64 * 1024;

/// Serves one accepted stream until the peer leaves, the daemon shuts down, or the
/// client is disconnected for not reading.
///
/// One task owns both halves: it reads requests, answers inline methods into a
/// pending buffer, collects the answers of spawned requests from the outbox queue,
/// and writes everything pending once no more input is waiting. Pipelined requests
/// thus cost one read and one write per batch, with no hand-off between tasks.
pub async fn serve_connection<R, W>(daemon: Arc<Daemon>, id: u64, read_half: R, mut write_half: W)
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    let kill = daemon.kill.child_token();
    let closing = daemon.ctx.shutdown.child_token();
    let (outbox, mut queued) = Outbox::new(daemon.slow_client_timeout, kill.clone());
    let conn = Arc::new(Connection::new(id, outbox.clone(), closing.clone()));
    daemon.ctx.connections.insert(id, outbox);

    let requests = TaskTracker::new();
    let permits = Arc::new(Semaphore::new(MAX_IN_FLIGHT));
    let mut reader = LineReader::new(
        BufReader::with_capacity(64 * 1024, read_half),
        MAX_LINE_BYTES,
    );
    let mut pending: Vec<u8> = Vec::with_capacity(4096);
    // The outbox budget `pending` holds: released once it is written, so the
    // queue's bound counts what the client has not taken yet.
    let mut held: Option<tokio::sync::OwnedSemaphorePermit> = None;
    let mut reading = true;
    // A request read past the in-flight limit, waiting for a slot.
    let mut parked: Option<(Method, Request)> = None;
    let mut checks: u32 = 0;
    // Only a connection's first request may upgrade it.
    let mut first = true;
    let mut upgraded: Option<Arc<UpgradeServer>> = None;
    let drain_deadline = tokio::time::sleep(Duration::MAX);
    let closed = closing.cancelled();
    let killed = kill.cancelled();
    tokio::pin!(closed, killed, drain_deadline);
    loop {
        if !pending.is_empty()
            && (!reading
                || parked.is_some()
                || !reader.has_buffered()
                || pending.len() >= BATCH_FLUSH_BYTES)
        {
            let written = tokio::select! {
                biased;
                _ = &mut killed => false,
                ok = write_all_or_stall(&mut write_half, &pending, daemon.slow_client_timeout) => ok,
            };
            pending.clear();
            held = None;
            if !written {
                kill.cancel();
                break;
            }
        }
        // Cancellation is checked explicitly now and then, because the reader branch
        // comes first and stays ready while a client pipelines requests.
        checks = checks.wrapping_add(1);
        if checks.is_multiple_of(64) {
            if kill.is_cancelled() {
                break;
            }
            if reading && closing.is_cancelled() {
                reading = false;
                stop_reading(&requests, &closing, &mut drain_deadline);
            }
        }
        tokio::select! {
            biased;
            frame = reader.next(), if reading && parked.is_none() => {
                // Every complete line already buffered is handled in this one pass.
                let mut next = Some(frame);
                while let Some(frame) = next.take() {
                    match frame {
                        Err(_) | Ok(Frame::Eof) => {
                            reading = false;
                            leave(&daemon.ctx, &conn);
                            stop_reading(&requests, &closing, &mut drain_deadline);
                            break;
                        }
                        Ok(Frame::TooLarge(len)) => {
                            let err = MethodError::new(
                                ErrorCode::TooLarge,
                                format!("Request line too large: {len} bytes (limit {MAX_LINE_BYTES} bytes)"),
                            );
                            Envelope::error(0, &err).write_line(&mut pending);
                        }
                        Ok(Frame::Line(line)) => {
                            let parsed = parse_request(&line);
                            reader.recycle(line);
                            let task = match parsed {
                                Err(bad) => {
                                    Envelope::error(bad.id, &bad.error).write_line(&mut pending);
                                    None
                                }
                                Ok(req) if first && req.method == UPGRADE => {
                                    let (server, answer) = daemon.upgrades.accept(&req);
                                    answer.write_line(&mut pending);
                                    if server.is_some() {
                                        upgraded = server;
                                        // Nothing behind it is read as this protocol.
                                        break;
                                    }
                                    None
                                }
                                Ok(req) => route(req, &mut pending),
                            };
                            if let Some(task) = task {
                                match permits.clone().try_acquire_owned() {
                                    Ok(permit) => spawn_request(&daemon, &conn, &requests, task, permit),
                                    // Past the in-flight limit the reader stops (back-pressure)
                                    // while this loop goes on writing: the requests it waits
                                    // for may be waiting for room in the outbox.
                                    Err(_) => parked = Some(task),
                                }
                            }
                        }
                    }
                    first = false;
                    if parked.is_none() && pending.len() < BATCH_FLUSH_BYTES {
                        next = reader.next_buffered().map(Ok);
                    }
                }
            }
            _ = &mut killed => break,
            // The semaphore is never closed.
            Ok(permit) = permits.clone().acquire_owned(), if parked.is_some() => {
                if let Some(task) = parked.take() {
                    spawn_request(&daemon, &conn, &requests, task, permit);
                }
            }
            Some(chunk) = queued.recv() => {
                take(&mut pending, &mut held, chunk);
                while pending.len() < BATCH_FLUSH_BYTES {
                    let Ok(more) = queued.try_recv() else { break };
                    take(&mut pending, &mut held, more);
                }
            }
            _ = &mut closed, if reading => {
                reading = false;
                stop_reading(&requests, &closing, &mut drain_deadline);
            }
            _ = requests.wait(), if !reading && parked.is_none() => {
                // Every request has finished and queued its answer: flush and go.
                while let Ok(more) = queued.try_recv() {
                    take(&mut pending, &mut held, more);
                }
                if !pending.is_empty() {
                    tokio::select! {
                        biased;
                        _ = &mut killed => {}
                        _ = write_all_or_stall(&mut write_half, &pending, daemon.slow_client_timeout) => {}
                    }
                }
                let _ = write_half.shutdown().await;
                break;
            }
            _ = &mut drain_deadline, if !reading => {
                if conn.chats.all().is_empty() {
                    tracing::warn!(conn = id, "requests still running after the drain grace; closing");
                } else {
                    tracing::debug!(conn = id, "closing; its kept turns run on without it");
                }
                kill.cancel();
                break;
            }
        }
        if upgraded.is_some() {
            break;
        }
    }
    if let Some(server) = upgraded {
        let upgrade = crate::upgrade::Upgraded {
            engine: &daemon.ctx.engine,
            connections: &daemon.ctx.connections,
            stall: daemon.slow_client_timeout,
            id,
            closing: &closing,
            kill: &kill,
        };
        upgrade.serve(server, reader, write_half, pending).await;
        return;
    }
    // Whatever still runs for this connection is told to stop (its turns as
    // `leave` decides).
    leave(&daemon.ctx, &conn);
    end_sessions(&daemon.ctx, &conn);
    daemon.ctx.connections.remove(id);
    tracing::debug!(conn = id, "connection closed");
}

/// Moves a queued chunk into `pending`, keeping its budget with the rest.
fn take(
    pending: &mut Vec<u8>,
    held: &mut Option<tokio::sync::OwnedSemaphorePermit>,
    chunk: Queued,
) {
    let (lines, permit) = chunk.into_parts();
    if pending.is_empty() {
        // Large answers move in without a copy.
        *pending = lines;
    } else {
        pending.extend_from_slice(&lines);
    }
    match held {
        Some(h) => h.merge(permit),
        None => *held = Some(permit),
    }
}

/// The connection closes: its turns stop with it, except those that outlive
/// it: a detached chat's (`chat {detach: true}`), and one whose session
/// another client watches, which runs to its end for that watcher. Decided
/// once, when the connection starts closing; at daemon shutdown every turn
/// stops anyway (their tokens are the shutdown's children).
fn leave(daemon: &Ctx, conn: &Connection) {
    if conn.closing.is_cancelled() {
        return;
    }
    conn.closing.cancel();
    for chat in conn.chats.all() {
        let watched = chat
            .session_now()
            .is_some_and(|s| daemon.engine.bus.watched_by_others(&s, conn.id));
        if watched {
            // The watcher sees its approval requests and may answer them.
            tracing::debug!(conn = conn.id, "a watched turn outlives its connection");
        } else if chat.detach {
            // Its approvals stay open: any client may come back
            // (`session.watch {afterSeq}` replays the request) and answer
            // within `agent.approvalTimeoutSeconds`.
            tracing::debug!(conn = conn.id, "a detached turn outlives its connection");
        } else {
            chat.cancel.cancel();
        }
    }
}

/// The connection's user has left the sessions it ran turns on: their
/// `SessionEnd` hooks run (reason `other`), off this task, once a turn the
/// leaving cancelled has wound down. A session whose turn outlives the
/// connection (detached, or watched by another client) is left to the
/// engine's close.
fn end_sessions(daemon: &Ctx, conn: &Connection) {
    let ran = std::mem::take(&mut *conn.ran.locked());
    if ran.is_empty() {
        return;
    }
    let engine = daemon.engine.clone();
    tokio::spawn(async move {
        for (scope, sid) in ran {
            let mut waits = 0;
            loop {
                match engine.turns.by_session(&sid) {
                    None => {
                        engine.end_session(&scope, &sid, "other").await;
                        break;
                    }
                    // Cancelled by the leaving: it ends in a moment.
                    Some(t) if t.cancel.is_cancelled() && waits < END_WAITS => {
                        waits += 1;
                        tokio::time::sleep(END_WAIT).await;
                    }
                    Some(_) => break,
                }
            }
        }
    });
}

/// How long a cancelled turn is waited for before its session's end is
/// left to the engine's close: `END_WAITS` × `END_WAIT` (10 s).
const END_WAITS: u32 = 200;
const END_WAIT: Duration = Duration::from_millis(50);

/// The peer left or the daemon is stopping: no more requests are read; running
/// ones get a grace period to answer.
fn stop_reading(
    requests: &TaskTracker,
    closing: &CancellationToken,
    deadline: &mut std::pin::Pin<&mut tokio::time::Sleep>,
) {
    closing.cancel();
    requests.close();
    deadline
        .as_mut()
        .reset(tokio::time::Instant::now() + DRAIN_GRACE);
}

/// Answers inline methods and unknown names into `batch`; returns the request when
/// it must run as a task.
fn route(req: Request, batch: &mut Vec<u8>) -> Option<(Method, Request)> {
    let Some(method) = Method::from_name(&req.method) else {
        let err = MethodError::new(
            ErrorCode::UnknownMethod,
            format!("Unknown method: {}", req.method),
        );
        Envelope::error(req.id, &err).write_line(batch);
        return None;
    };
    if method.spec().serving == Serving::Inline {
        dispatch::inline(method, &req).write_line(batch);
        return None;
    }
    Some((method, req))
}

fn spawn_request(
    daemon: &Arc<Daemon>,
    conn: &Arc<Connection>,
    requests: &TaskTracker,
    (method, req): (Method, Request),
    permit: tokio::sync::OwnedSemaphorePermit,
) {
    let daemon = daemon.clone();
    let conn = conn.clone();
    // Registered before the next line is read: a cancel or steer right behind
    // the chat finds it.
    let chat = (method == Method::Chat).then(|| register_chat(&daemon.ctx, &conn, &req));
    // A chat may outlive its connection: shutdown waits for it as well.
    let running = chat.is_some().then(|| daemon.chat_tasks.token());
    requests.spawn(async move {
        let _running = running;
        let id = req.id;
        let run = dispatch::handle(&daemon.ctx, &conn, method, req, chat);
        let env = match std::panic::AssertUnwindSafe(run).catch_unwind().await {
            Ok(env) => env,
            Err(_) => {
                tracing::error!(method = method.spec().name, "request handler panicked");
                Envelope::error(
                    id,
                    &MethodError::internal("Internal error while handling the request"),
                )
            }
        };
        conn.outbox.send(&env).await;
        drop(permit);
    });
}

fn register_chat(daemon: &Ctx, conn: &Connection, req: &Request) -> ChatStart {
    let requested = req
        .params
        .str_opt("sessionId")
        .ok()
        .flatten()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string);
    // A client that announces `approvals` is asked; any other (the
    // desktop's protocol has no approvals) gets calls needing one refused.
    let approvals = if matches!(req.params.bool_opt("approvals"), Ok(Some(true))) {
        // …and fills in the forms MCP servers ask for during a call.
        seekclaw_agent::Approvals::attended_with_forms()
    } else {
        seekclaw_agent::Approvals::default()
    };
    let detach = matches!(req.params.bool_opt("detach"), Ok(Some(true)));
    // Stopped by the daemon's shutdown, or by its connection's end (`leave`).
    let cancel = daemon.shutdown.child_token();
    conn.chats
        .register(req.id, requested, (cancel, approvals), detach)
}
