//! `search`: full-text search on the big home (10,000 sessions, 1,000,000
//! events; the `startup` bench's home): `session.search` round trips over the
//! socket and `Store::search` in this process, p50/p99 per query shape, from
//! a rare word to one in three quarters of all events. Same-run baselines:
//! `ping` (the transport floor) and `session.get` of a 100-event session over
//! the socket; `Store::session` (one indexed row) in process.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, bail};
use seekclaw_store::Store;
use serde_json::{Value, json};

use crate::daemon::{DaemonProc, JsonlClient};
use crate::populate::SCOPE;
use crate::startup::prepare_home;
use crate::stats::{Tail, ms};

const TARGET_MS: f64 = 50.0;
/// The limit every search asks for (the daemon's default).
const LIMIT: usize = 50;
/// A scope this bench adds to the home: one session of 10 user messages, 3
/// of them with the home's most common word (time in process only: no
/// workspace directory has this key).
const SMALL_SCOPE: &str = "bench-small-scope";
const SMALL_SCOPE_SESSION: &str = "20260103-000000-5c09e0";
/// A session of the populated home with the usual 100 events.
const SMALL_SESSION_ID: &str = "20260102-000112-000048";

pub struct SearchArgs<'a> {
    pub bin: &'a Path,
    /// Reuse (or create and keep) this home instead of a temporary one.
    pub home: Option<PathBuf>,
    /// Round trips (and store calls) per query.
    pub runs: usize,
    pub json: bool,
}

/// One query shape; `hits` is what it must find on the bench home.
struct Case {
    name: &'static str,
    query: &'static str,
    /// `None`: every scope (the daemon's default).
    scope: Option<&'static str>,
    hits: usize,
    /// Timed in process only: no workspace of the bench home has this key.
    store_only: bool,
}

const CASES: &[Case] = &[
    Case {
        name: "rare word (25 events of one session)",
        query: "4321",
        scope: None,
        hits: 25,
        store_only: false,
    },
    Case {
        name: "common word (~750k events)",
        query: "configuration",
        scope: None,
        hits: LIMIT,
        store_only: false,
    },
    Case {
        name: "two common words",
        query: "typed error",
        scope: None,
        hits: LIMIT,
        store_only: false,
    },
    Case {
        name: "prefix (valid*)",
        query: "valid*",
        scope: None,
        hits: LIMIT,
        store_only: false,
    },
    Case {
        name: "rare AND common word",
        query: "session 4321 failing",
        scope: None,
        hits: 25,
        store_only: false,
    },
    Case {
        name: "no match",
        query: "heliotrope",
        scope: None,
        hits: 0,
        store_only: false,
    },
    Case {
        name: "common word, global scope",
        query: "configuration",
        scope: Some(SCOPE),
        hits: LIMIT,
        store_only: false,
    },
    Case {
        name: "common word, 3 events of a small scope",
        query: "configuration",
        scope: Some(SMALL_SCOPE),
        hits: 3,
        store_only: true,
    },
];

struct Figures {
    socket: Option<Tail>,
    store: Tail,
}

pub fn run(args: &SearchArgs<'_>) -> Result<()> {
    if args.runs == 0 {
        bail!("--runs must be at least 1");
    }
    let scratch = tempfile::Builder::new()
        .prefix("sc-bench-search-")
        .tempdir()?;
    let home_path = match &args.home {
        Some(h) => std::path::absolute(h)?,
        None => scratch.path().join("home"),
    };
    let opened = Instant::now();
    let home = prepare_home(&home_path)?;
    let prepare_secs = opened.elapsed().as_secs_f64();
    let log = scratch.path().join("daemon.stderr");
    let db = home.path.join("seekclaw.db");

    let mut daemon = DaemonProc::spawn(args.bin, &home.path, &log)?;
    let (_, mut client) = daemon.wait_answering()?;
    let store = Store::open(&db)?;
    add_small_scope(&store)?;

    eprintln!("baselines ...");
    let ping = socket_runs(&mut client, r#""method":"ping""#, args.runs, |_| Ok(0))?;
    let get_params =
        format!(r#""method":"session.get","params":{{"id":"{SMALL_SESSION_ID}","global":true}}"#);
    let get = socket_runs(&mut client, &get_params, args.runs, |env| {
        let data: Value = serde_json::from_str(env["data"].as_str().unwrap_or_default())?;
        Ok(data["messages"].as_array().map_or(0, Vec::len))
    })?;
    let header = store_runs(args.runs, || {
        Ok(usize::from(
            store.session(SCOPE, SMALL_SESSION_ID)?.is_some(),
        ))
    })?;

    let mut rows = Vec::new();
    for case in CASES {
        eprintln!("{} ...", case.name);
        let store_fig = store_runs(args.runs, || {
            let hits = store.search(case.query, case.scope, LIMIT)?;
            check(case, hits.len())
        })?;
        let socket_fig = if case.store_only {
            None
        } else {
            let params =
                json!({"query": case.query, "limit": LIMIT, "global": case.scope.is_some()});
            let call = format!(r#""method":"session.search","params":{params}"#);
            Some(socket_runs(&mut client, &call, args.runs, |env| {
                let data: Value = serde_json::from_str(env["data"].as_str().unwrap_or_default())?;
                check(case, data.as_array().map_or(0, Vec::len))
            })?)
        };
        rows.push(Figures {
            socket: socket_fig,
            store: store_fig,
        });
    }
    drop(client);
    daemon.shutdown().context("daemon shutdown")?;

    if args.json {
        let cases: Vec<Value> = CASES
            .iter()
            .zip(&rows)
            .map(|(c, f)| {
                json!({"name": c.name, "query": c.query, "scope": c.scope, "hits": c.hits,
                       "socket": f.socket.as_ref().map(tail_json), "store": tail_json(&f.store)})
            })
            .collect();
        let doc = json!({
            "bench": "search",
            "home": home.path.display().to_string(),
            "sessions": home.sessions,
            "prepareSeconds": prepare_secs,
            "runs": args.runs,
            "limit": LIMIT,
            "baselines": {"ping": tail_json(&ping), "sessionGetSmall": tail_json(&get),
                          "storeSessionHeader": tail_json(&header)},
            "cases": cases,
            "targetMs": TARGET_MS,
        });
        println!("{doc}");
    } else {
        print_report(
            &home.path,
            prepare_secs,
            args.runs,
            (&ping, &get, &header),
            &rows,
        );
    }
    Ok(())
}

/// Adds the [`SMALL_SCOPE`] session unless an earlier run did.
fn add_small_scope(store: &Store) -> Result<()> {
    if store.session(SMALL_SCOPE, SMALL_SCOPE_SESSION)?.is_some() {
        return Ok(());
    }
    store.create_session(&seekclaw_store::NewSession {
        scope: SMALL_SCOPE.into(),
        id: SMALL_SCOPE_SESSION.into(),
        workspace: None,
        title: None,
        reasoning_level: "high".into(),
        network_enabled: true,
    })?;
    let items: Vec<seekclaw_store::EventItem> = (0..10)
        .map(|i| {
            let text = if i % 3 == 0 && i > 0 {
                format!("question {i} about the configuration")
            } else {
                format!("question {i}")
            };
            seekclaw_store::EventItem::User(seekclaw_store::UserMessage {
                text,
                images: Vec::new(),
            })
        })
        .collect();
    store.append_events(SMALL_SCOPE, SMALL_SCOPE_SESSION, None, &items)?;
    Ok(())
}

fn check(case: &Case, found: usize) -> Result<usize> {
    if found != case.hits {
        bail!(
            "{} ({:?}): {found} hits, the bench home should give {}",
            case.name,
            case.query,
            case.hits
        );
    }
    Ok(found)
}

/// `runs` round trips of one request after one warm-up; `count` checks each
/// answer (outside the timing).
fn socket_runs(
    client: &mut JsonlClient,
    method_and_params: &str,
    runs: usize,
    count: impl Fn(&Value) -> Result<usize>,
) -> Result<Tail> {
    let mut samples = Vec::with_capacity(runs);
    for i in 0..=runs {
        let request = format!(r#"{{"id":{},{method_and_params}}}"#, i + 10);
        let (elapsed, env) = client.timed(&request)?;
        count(&env)?;
        if i > 0 {
            samples.push(elapsed);
        }
    }
    Tail::of(&samples).context("no samples")
}

/// `runs` calls of `f` in this process after one warm-up.
fn store_runs(runs: usize, f: impl Fn() -> Result<usize>) -> Result<Tail> {
    let mut samples = Vec::with_capacity(runs);
    for i in 0..=runs {
        let start = Instant::now();
        f()?;
        if i > 0 {
            samples.push(start.elapsed());
        }
    }
    Tail::of(&samples).context("no samples")
}

fn tail_json(t: &Tail) -> Value {
    json!({"n": t.n, "p50Ms": ms(t.p50), "p99Ms": ms(t.p99), "maxMs": ms(t.max)})
}

fn cells(t: Option<&Tail>) -> String {
    t.map_or_else(
        || format!("{:>9} {:>9}", "-", "-"),
        |t| format!("{:>9.3} {:>9.3}", ms(t.p50), ms(t.p99)),
    )
}

fn verdict(t: &Tail) -> &'static str {
    if ms(t.p99) < TARGET_MS {
        "met"
    } else {
        "MISSED"
    }
}

fn print_report(
    home: &Path,
    prepare_secs: f64,
    runs: usize,
    (ping, get, header): (&Tail, &Tail, &Tail),
    rows: &[Figures],
) {
    println!();
    println!(
        "search: home {} (ready in {prepare_secs:.1} s), {runs} runs per row, limit {LIMIT}",
        home.display()
    );
    println!(
        "{:<42} | {:^19} | {:^19} | p99 < {TARGET_MS} ms",
        "ms", "socket p50    p99", "store p50    p99"
    );
    println!("{}", "-".repeat(42 + 3 + 19 + 3 + 19 + 16));
    let row = |name: &str, socket: Option<&Tail>, store: Option<&Tail>, mark: &str| {
        println!("{name:<42} | {} | {} | {mark}", cells(socket), cells(store));
    };
    row("ping (baseline)", Some(ping), None, "");
    row(
        "session.get, 100 events / header (baseline)",
        Some(get),
        Some(header),
        "",
    );
    for (case, f) in CASES.iter().zip(rows) {
        let worst = f
            .socket
            .as_ref()
            .map_or(&f.store, |s| if s.p99 > f.store.p99 { s } else { &f.store });
        row(case.name, f.socket.as_ref(), Some(&f.store), verdict(worst));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_small_session_is_one_the_home_holds() {
        assert_eq!(SMALL_SESSION_ID, crate::populate::session_id(72));
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("seekclaw.db");
        let shape = crate::populate::HomeShape {
            sessions: 80,
            events: 8_000,
            big_messages: 100,
        };
        crate::populate::populate(&db, shape).unwrap();
        let store = Store::open(&db).unwrap();
        assert!(store.session(SCOPE, SMALL_SESSION_ID).unwrap().is_some());
        assert_eq!(store.search("42", None, 100).unwrap().len(), 25);
        assert_eq!(store.search("configuration", None, 50).unwrap().len(), 50);
        add_small_scope(&store).unwrap();
        add_small_scope(&store).unwrap();
        let small = store
            .search("configuration", Some(SMALL_SCOPE), 50)
            .unwrap();
        assert_eq!(small.len(), 3);
    }
}
