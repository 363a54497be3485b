//! The turn bus: every turn the engine runs on a session, whoever started it
//! (a client, the scheduler, a goal continuation, `serve`), published to the
//! session's watchers (the daemon's `session.watch`, and the front ends to
//! come). The [`crate::TurnHandle`] publishes as it is read.
//!
//! Every item gets a `seq`, strictly increasing per session (one counter for
//! the engine, started from the clock so a restarted daemon never reuses one
//! a client kept), and stays in the session's bounded replay buffer: a
//! watcher that comes back with the last `seq` it saw is sent everything
//! after it, then the live items, with no gap and no duplicate (both happen
//! under the session's one lock). When the buffer no longer reaches back
//! that far the watcher is told to reload instead ([`Resume::Resync`]).

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use seekclaw_agent::{AgentEvent, TurnOutcome};
use tokio::sync::mpsc;

use crate::sync::Locked;

/// Items a watcher may hold before it is dropped for falling behind.
const WATCH_QUEUE: usize = 4096;

/// What a watcher sees.
#[derive(Debug, Clone)]
pub enum Watched {
    /// A turn started on the session.
    TurnStart {
        /// The user message (or the scheduled/goal prompt).
        message: String,
        /// Who started it: `chat`, `schedule`, `goal`, `run` or `serve`.
        origin: &'static str,
    },
    /// One of the turn's events.
    Event(AgentEvent),
    /// The turn ended.
    TurnEnd(TurnOutcome),
}

/// An item with its place in the session's stream.
#[derive(Debug, Clone)]
pub struct Sequenced {
    /// Its `seq`.
    pub seq: u64,
    /// The item.
    pub item: Watched,
}

/// How much each session's replay buffer keeps, and how many idle
/// sessions keep theirs.
#[derive(Debug, Clone, Copy)]
pub struct BufferLimits {
    /// Items per session.
    pub items: usize,
    /// Bytes (about) per session.
    pub bytes: usize,
    /// Sessions with no running turn and no watcher that keep their buffer
    /// (the oldest is forgotten first).
    pub idle_sessions: usize,
    /// Bytes (about) the idle sessions' buffers hold together, at most.
    pub idle_bytes: usize,
}

impl Default for BufferLimits {
    fn default() -> Self {
        BufferLimits {
            items: 16 * 1024,
            bytes: 8 << 20,
            idle_sessions: 64,
            idle_bytes: 32 << 20,
        }
    }
}

/// A watcher: its key, its reader (a front end's own tag, e.g. a
/// connection), its queue.
type Watcher = (u64, u64, mpsc::Sender<Sequenced>);

/// A buffered item, with the reader whose own turn it belongs to. Kept
/// small: most of a turn is streamed text, held inline; the rest is boxed.
struct Buffered {
    seq: u64,
    from: Option<u64>,
    kept: Kept,
}

enum Kept {
    Delta(Box<str>),
    Thinking(Box<str>),
    Other(Box<Watched>),
}

impl Kept {
    fn of(item: Watched) -> Kept {
        match item {
            Watched::Event(AgentEvent::Delta(t)) => Kept::Delta(t.into_boxed_str()),
            Watched::Event(AgentEvent::Thinking(t)) => Kept::Thinking(t.into_boxed_str()),
            other => Kept::Other(Box::new(other)),
        }
    }

    fn watched(&self) -> Watched {
        match self {
            Kept::Delta(t) => Watched::Event(AgentEvent::Delta(t.to_string())),
            Kept::Thinking(t) => Watched::Event(AgentEvent::Thinking(t.to_string())),
            Kept::Other(w) => (**w).clone(),
        }
    }

    /// About how much memory it holds.
    fn bytes(&self) -> usize {
        match self {
            Kept::Delta(t) | Kept::Thinking(t) => 64 + t.len(),
            Kept::Other(w) => approx_bytes(w),
        }
    }
}

/// One session's stream: its buffer, its watchers, its turns.
#[derive(Default)]
struct StreamState {
    buf: VecDeque<Buffered>,
    bytes: usize,
    /// Replay reaches every item after this seq.
    horizon: u64,
    /// The last seq given out.
    last: u64,
    watchers: Vec<Watcher>,
    /// Recent turns: the seq of their `turn_start` and their turn id (the
    /// owner of their log entries).
    turns: VecDeque<(u64, String)>,
    /// Turns running now.
    running: usize,
    /// When it last had something published (for forgetting idle ones).
    touched: u64,
}

/// Turn starts a stream remembers.
const RECENT_TURNS: usize = 32;

/// One session's stream (shared by its turn handles and the bus).
pub struct Stream {
    state: Mutex<StreamState>,
}

/// Where a session's stream stands.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StreamPosition {
    /// The last seq given out (the clock-based start when nothing was).
    pub seq: u64,
    /// The running turn: its `turn_start`'s seq and its turn id.
    pub running: Option<(u64, String)>,
}

/// What a resuming watcher gets before the live items.
pub enum Resume {
    /// Every item after the asked seq (its own reader's turns left out).
    Replay(Vec<Sequenced>),
    /// The buffer no longer reaches back to the asked seq: reload, then
    /// follow from `seq` (the live items that follow come after it).
    Resync {
        /// The seq the watcher asked for.
        after: u64,
        /// The oldest seq replay could still give.
        oldest: u64,
        /// The last seq given out; live items follow it.
        seq: u64,
    },
}

/// Forgotten sessions whose last seq is remembered, at most.
const FORGOTTEN: usize = 4096;

/// The sessions' streams, and what is left of those forgotten.
#[derive(Default)]
struct Streams {
    live: HashMap<String, Arc<Stream>>,
    /// A forgotten session's last seq: its stream, made again, replays
    /// nothing from before it.
    forgotten: HashMap<String, u64>,
    /// Every other session had nothing before this seq that replay could
    /// still give (this engine's start, or past the forgotten ones it no
    /// longer lists).
    forgotten_before: u64,
}

impl Streams {
    fn forget(&mut self, sid: String, last: u64) {
        if self.forgotten.len() >= FORGOTTEN {
            let most = self.forgotten.drain().map(|(_, l)| l).max().unwrap_or(0);
            self.forgotten_before = self.forgotten_before.max(most);
        }
        self.forgotten.insert(sid, last);
    }
}

/// The watchers and streams of every session.
pub struct TurnBus {
    next: AtomicU64,
    next_key: AtomicU64,
    streams: Mutex<Streams>,
    limits: BufferLimits,
}

impl Default for TurnBus {
    fn default() -> Self {
        TurnBus::with_limits(BufferLimits::default())
    }
}

/// A watcher's registration; dropping it unregisters.
pub struct WatchGuard<'a> {
    bus: &'a TurnBus,
    session: String,
    key: u64,
}

impl Drop for WatchGuard<'_> {
    fn drop(&mut self) {
        if let Some(stream) = self.bus.existing(&self.session) {
            stream
                .state
                .locked()
                .watchers
                .retain(|(k, _, _)| *k != self.key);
        }
        self.bus.forget_idle();
    }
}

impl TurnBus {
    /// A bus whose buffers keep `limits`.
    pub fn with_limits(limits: BufferLimits) -> TurnBus {
        // Microseconds since the epoch: a restarted engine's seqs are past
        // any an earlier one gave out (a client's kept seq reads as old).
        let start = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_micros() as u64)
            .unwrap_or(0);
        TurnBus {
            next: AtomicU64::new(start),
            next_key: AtomicU64::new(0),
            streams: Mutex::new(Streams {
                forgotten_before: start,
                ..Streams::default()
            }),
            limits,
        }
    }

    fn existing(&self, session: &str) -> Option<Arc<Stream>> {
        self.streams.locked().live.get(session).cloned()
    }

    /// The session's stream, made on first use (its replay starts now).
    fn stream(&self, session_id: &str) -> Arc<Stream> {
        let key = session_id.to_lowercase();
        let mut streams = self.streams.locked();
        let Streams {
            live,
            forgotten,
            forgotten_before,
        } = &mut *streams;
        live.entry(key.clone())
            .or_insert_with(|| {
                let now = self.next.load(Ordering::Acquire);
                // Replay reaches back as far as this engine knows the
                // session had nothing it no longer keeps.
                let horizon = forgotten.remove(&key).unwrap_or(*forgotten_before);
                Arc::new(Stream {
                    state: Mutex::new(StreamState {
                        horizon,
                        last: now,
                        touched: now,
                        ..StreamState::default()
                    }),
                })
            })
            .clone()
    }

    /// A turn with id `turn` starts on `session_id` (read by `from`): its
    /// `turn_start` is published, and the stream returned for its events.
    pub(crate) fn turn_start(
        &self,
        session_id: &str,
        from: Option<u64>,
        turn: &str,
        item: Watched,
    ) -> (Arc<Stream>, u64) {
        let stream = self.stream(session_id);
        let seq = {
            let mut s = stream.state.locked();
            s.running += 1;
            let seq = self.push(&mut s, from, item);
            s.turns.push_back((seq, turn.to_string()));
            if s.turns.len() > RECENT_TURNS {
                s.turns.pop_front();
            }
            seq
        };
        (stream, seq)
    }

    /// Publishes `item` on `stream` for reader `from`; its seq.
    pub(crate) fn publish(&self, stream: &Stream, from: Option<u64>, item: Watched) -> u64 {
        let mut s = stream.state.locked();
        self.push(&mut s, from, item)
    }

    /// Publishes a turn's end; the stream may be forgotten once idle.
    pub(crate) fn turn_end(&self, stream: &Stream, from: Option<u64>, item: Watched) -> u64 {
        let seq = {
            let mut s = stream.state.locked();
            s.running = s.running.saturating_sub(1);
            self.push(&mut s, from, item)
        };
        self.forget_idle();
        seq
    }

    /// A turn was dropped before its end was published.
    pub(crate) fn turn_dropped(&self, stream: &Stream) {
        {
            let mut s = stream.state.locked();
            s.running = s.running.saturating_sub(1);
        }
        self.forget_idle();
    }

    /// An event outside any turn handle (a checkpoint taken between turns).
    pub fn event(&self, session_id: &str, from: Option<u64>, ev: &AgentEvent) -> u64 {
        let stream = self.stream(session_id);
        let seq = self.publish(&stream, from, Watched::Event(ev.clone()));
        self.forget_idle();
        seq
    }

    /// Gives `item` the next seq, keeps it for replay and hands it to the
    /// watchers (except those of reader `from`: a client's own turn already
    /// streams to it). A watcher whose queue is full is dropped: its watch
    /// ends.
    fn push(&self, s: &mut StreamState, from: Option<u64>, item: Watched) -> u64 {
        let seq = self.next.fetch_add(1, Ordering::AcqRel) + 1;
        s.last = seq;
        s.touched = seq;
        if !s.watchers.is_empty() {
            let live = Sequenced {
                seq,
                item: item.clone(),
            };
            s.watchers.retain(|(_, reader, tx)| {
                Some(*reader) == from || tx.try_send(live.clone()).is_ok()
            });
        }
        let kept = Kept::of(item);
        s.bytes += kept.bytes();
        s.buf.push_back(Buffered { seq, from, kept });
        while s.buf.len() > self.limits.items || (s.bytes > self.limits.bytes && s.buf.len() > 1) {
            let Some(old) = s.buf.pop_front() else { break };
            s.bytes -= old.kept.bytes();
            s.horizon = old.seq;
        }
        seq
    }

    /// Forgets the buffers of the idle sessions past the limits (count and
    /// bytes), oldest first.
    fn forget_idle(&self) {
        let mut streams = self.streams.locked();
        let mut idle: Vec<(u64, String, usize)> = streams
            .live
            .iter()
            .filter_map(|(sid, stream)| {
                let s = stream.state.locked();
                (s.running == 0 && s.watchers.is_empty()).then(|| (s.touched, sid.clone(), s.bytes))
            })
            .collect();
        let mut bytes: usize = idle.iter().map(|(_, _, b)| b).sum();
        if idle.len() <= self.limits.idle_sessions && bytes <= self.limits.idle_bytes {
            return;
        }
        idle.sort_unstable();
        let mut left = idle.len();
        for (_, sid, held) in idle {
            if left <= self.limits.idle_sessions && bytes <= self.limits.idle_bytes {
                break;
            }
            if let Some(gone) = streams.live.remove(&sid) {
                let last = gone.state.locked().last;
                streams.forget(sid, last);
            }
            left -= 1;
            bytes -= held;
        }
    }

    /// Registers a live watcher of `session_id` for reader `conn`.
    pub fn add(&self, session_id: &str, conn: u64) -> (WatchGuard<'_>, mpsc::Receiver<Sequenced>) {
        let (guard, rx, _) = self.resume(session_id, conn, None);
        (guard, rx)
    }

    /// Registers a watcher of `session_id` for reader `conn` and, when
    /// `after` is given, what it missed after that seq: replayed or a
    /// resync. Items after the replay arrive on the receiver.
    pub fn resume(
        &self,
        session_id: &str,
        conn: u64,
        after: Option<u64>,
    ) -> (WatchGuard<'_>, mpsc::Receiver<Sequenced>, Option<Resume>) {
        let (tx, rx) = mpsc::channel(WATCH_QUEUE);
        let key = self.next_key.fetch_add(1, Ordering::Relaxed);
        let stream = self.stream(session_id);
        let resume = {
            let mut s = stream.state.locked();
            let resume = after.map(|after| replay(&s, conn, after));
            s.watchers.push((key, conn, tx));
            resume
        };
        let guard = WatchGuard {
            bus: self,
            session: session_id.to_lowercase(),
            key,
        };
        (guard, rx, resume)
    }

    /// Where `session_id`'s stream stands.
    ///
    /// The stream is made if the session has none, so a watch that follows
    /// from this position replays from it.
    pub fn position(&self, session_id: &str) -> StreamPosition {
        let stream = self.stream(session_id);
        let s = stream.state.locked();
        let running = (s.running > 0).then(|| s.turns.back().cloned()).flatten();
        StreamPosition {
            seq: s.last,
            running,
        }
    }

    /// The ids of the turns on `session_id` that started after `seq`.
    pub fn turns_after(&self, session_id: &str, seq: u64) -> Vec<String> {
        let Some(stream) = self.existing(&session_id.to_lowercase()) else {
            return Vec::new();
        };
        let s = stream.state.locked();
        s.turns
            .iter()
            .filter(|(start, _)| *start > seq)
            .map(|(_, id)| id.clone())
            .collect()
    }

    /// Whether a reader other than `reader` watches `session_id` (a turn
    /// whose own client leaves still has someone to run for).
    pub fn watched_by_others(&self, session_id: &str, reader: u64) -> bool {
        self.existing(&session_id.to_lowercase())
            .is_some_and(|stream| {
                stream
                    .state
                    .locked()
                    .watchers
                    .iter()
                    .any(|(_, r, tx)| *r != reader && !tx.is_closed())
            })
    }
}

/// What a watcher of reader `conn` missed after `after`.
fn replay(s: &StreamState, conn: u64, after: u64) -> Resume {
    if after < s.horizon || after > s.last {
        return Resume::Resync {
            after,
            oldest: s.horizon + 1,
            seq: s.last,
        };
    }
    // The buffer is in seq order: skip to the first item after `after`.
    let start = s.buf.partition_point(|b| b.seq <= after);
    Resume::Replay(
        s.buf
            .range(start..)
            .filter(|b| b.from != Some(conn))
            .map(|b| Sequenced {
                seq: b.seq,
                item: b.kept.watched(),
            })
            .collect(),
    )
}

/// About how much memory an item holds (its text; a fixed cost else).
fn approx_bytes(item: &Watched) -> usize {
    const BASE: usize = 96;
    BASE + match item {
        Watched::TurnStart { message, .. } => message.len(),
        Watched::TurnEnd(_) => 256,
        Watched::Event(ev) => match ev {
            AgentEvent::Delta(t) | AgentEvent::Thinking(t) => t.len(),
            AgentEvent::ToolDone {
                summary, output, ..
            } => summary.len() + output.len(),
            AgentEvent::FileDiff { path, diff, .. } => path.len() + diff.len(),
            AgentEvent::ApprovalRequested { summary, diff, .. } => {
                1024 + summary.len() + diff.as_ref().map_or(0, String::len)
            }
            AgentEvent::ContextYield { answer, .. } => answer.len(),
            AgentEvent::Reminder { text, .. } | AgentEvent::Steer { text, .. } => text.len(),
            _ => 256,
        },
    }
}

#[cfg(test)]
#[path = "bus_tests.rs"]
mod tests;
