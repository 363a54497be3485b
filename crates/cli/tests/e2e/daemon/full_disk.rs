//! A home on a small private tmpfs that fills up while turns run: a terminal
//! always means the turn is stored, and nothing acknowledged is lost.

use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

use seekclaw_testkit::{DaemonProcess, PrivateTmpfs, ProviderServer, Reply, StartOptions};
use serde_json::{Value, json};

use crate::support::bin;

const SESSIONS: usize = 6;

fn config(server: &ProviderServer) -> Value {
    json!({
        "providers": [{
            "id": "tk", "kind": "openai", "baseUrl": server.base_url(), "apiKey": "sk-tk",
            "timeoutSeconds": 20,
            "models": [{"id": "m1", "contextWindow": 128000, "maxOutput": 4096}]
        }],
        "routing": {"retry": {"baseDelaySeconds": 0.01, "maxDelaySeconds": 0.05}}
    })
}

/// A long answer (~96 KB, so its closing write needs fresh pages) streamed
/// over about a second.
fn slow_answer(k: usize) -> Reply {
    let mut reply = Reply::new().chunk_delay(Duration::from_millis(60));
    for part in 0..12 {
        reply = reply.text(format!("[answer {k} part {part}]{}", "x".repeat(8 * 1024)));
    }
    reply.finish("stop")
}

/// `(turn, kind)` of every event of every session, straight from the database.
fn log_rows(db: &Path) -> HashMap<String, Vec<(Option<String>, String, String)>> {
    let conn =
        rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap();
    let ok: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(ok, "ok");
    let mut stmt = conn
        .prepare(
            "SELECT s.id, e.turn, e.kind, e.payload FROM session_events e \
             JOIN sessions s ON s.pk = e.session_pk ORDER BY s.id, e.seq",
        )
        .unwrap();
    let mut out: HashMap<String, Vec<_>> = HashMap::new();
    let rows = stmt
        .query_map([], |r| {
            Ok((r.get::<_, String>(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
        })
        .unwrap();
    for row in rows {
        let (sid, turn, kind, payload) = row.unwrap();
        out.entry(sid).or_default().push((turn, kind, payload));
    }
    out
}

/// Every turn of every session has exactly one terminal; returns the
/// terminals' statuses per session, in order.
fn terminals_per_turn(db: &Path) -> HashMap<String, Vec<String>> {
    let mut statuses = HashMap::new();
    for (sid, rows) in log_rows(db) {
        let mut count: HashMap<String, usize> = HashMap::new();
        let mut ordered = Vec::new();
        for (turn, kind, payload) in &rows {
            let turn = turn.clone().expect("every event names its turn");
            let n = count.entry(turn).or_default();
            if kind == "terminal" {
                *n += 1;
                let v: Value = serde_json::from_str(payload).unwrap();
                ordered.push(v["status"].as_str().unwrap().to_string());
            }
        }
        for (turn, n) in count {
            assert_eq!(n, 1, "turn {turn} of {sid} has {n} terminals: {rows:?}");
        }
        statuses.insert(sid, ordered);
    }
    statuses
}

/// A 16 MB private tmpfs with the home on it; `None` (test skipped) where
/// one cannot be made.
struct Disk {
    tmp: tempfile::TempDir,
    tmpfs: PrivateTmpfs,
    home: std::path::PathBuf,
}

fn small_disk() -> Option<Disk> {
    if seekclaw_testkit::capability_missing("tmpfs", PrivateTmpfs::missing()) {
        return None;
    }
    let tmp = tempfile::tempdir().unwrap();
    let tmpfs = PrivateTmpfs::mount(&tmp.path().join("mnt"), 16 << 20).unwrap();
    let home = tmpfs.mount_point().join("home");
    Some(Disk { tmp, tmpfs, home })
}

#[test]
fn a_full_disk_never_acknowledges_an_unsaved_turn() {
    let Some(Disk { tmp, tmpfs, home }) = small_disk() else {
        return;
    };
    let server = ProviderServer::start().unwrap();
    let opts = StartOptions {
        config: Some(config(&server)),
        ..StartOptions::default()
    };
    let mut d = DaemonProcess::spawn_in(&tmpfs, bin(), &home, &opts).unwrap();
    let mut c = d.connect().unwrap();
    let sids: Vec<String> = (0..SESSIONS)
        .map(|_| c.ok("session.new", json!({"global": true})).unwrap())
        .collect();
    for k in 0..SESSIONS {
        server.enqueue(slow_answer(k));
    }
    let ids: Vec<i64> = sids
        .iter()
        .map(|sid| {
            c.send(
                "chat",
                json!({"sessionId": sid, "global": true, "message": "write a lot"}),
            )
            .unwrap()
        })
        .collect();
    // Every turn is streaming and its opening (the user message, written
    // beside the first model request) is committed: now the disk fills.
    server
        .wait_requests(SESSIONS, Duration::from_secs(20))
        .unwrap();
    let mut reader = d.connect().unwrap();
    seekclaw_testkit::wait_until("every turn's opening", Duration::from_secs(20), || {
        sids.iter().all(|sid| {
            let got = reader
                .ok_json("session.get", json!({"id": sid, "global": true}))
                .unwrap();
            got["messages"]
                .as_array()
                .unwrap()
                .iter()
                .any(|m| m["role"] == "user" && m["text"] == "write a lot")
        })
    });
    let filler = home.join("filler");
    assert!(tmpfs.fill(&filler).unwrap() > 0);

    let mut acknowledged = HashMap::new();
    let mut unsaved = Vec::new();
    for (sid, id) in sids.iter().zip(&ids) {
        let all = c.collect(*id).unwrap();
        let terminals: Vec<&Value> = all
            .iter()
            .filter(|e| ["done", "cancelled", "error"].contains(&e["event"].as_str().unwrap()))
            .collect();
        assert_eq!(terminals.len(), 1, "one terminal per request");
        let end = terminals[0];
        let streamed: String = all
            .iter()
            .filter(|e| e["event"] == "delta")
            .map(|e| e["data"].as_str().unwrap())
            .collect();
        match end["event"].as_str().unwrap() {
            "done" => {
                assert_eq!(end["data"].as_str().unwrap(), streamed);
                acknowledged.insert(sid.clone(), streamed);
            }
            "error" => {
                assert_eq!(end["details"]["code"], "storage", "{end}");
                if end["details"]["ended"] == "done" {
                    // The user keeps what they saw.
                    assert_eq!(end["details"]["answer"].as_str().unwrap(), streamed);
                    assert!(end["data"].as_str().unwrap().contains("could not be saved"));
                }
                unsaved.push(sid.clone());
            }
            other => panic!("unexpected terminal {other}: {end}"),
        }
    }
    eprintln!(
        "while full: {} acknowledged, {} refused with a storage error",
        acknowledged.len(),
        unsaved.len()
    );
    assert!(
        !unsaved.is_empty(),
        "the full disk stopped no closing write: the test exercised nothing"
    );

    // Space comes back: half of the sessions go on at once, the rest only
    // after a crash and a restart.
    std::fs::remove_file(tmpfs.outside(&filler)).unwrap();
    for (k, sid) in sids.iter().enumerate().filter(|(k, _)| k % 2 == 0) {
        server.enqueue(Reply::plain(format!("follow-up {k}")));
        let all = crate::support::turns::chat(
            &mut c,
            json!({"sessionId": sid, "global": true, "message": "again"}),
        );
        let end = all.last().unwrap();
        assert_eq!(end["event"], "done", "{end}");
        acknowledged.insert(
            format!("{sid}/2"),
            end["data"].as_str().unwrap().to_string(),
        );
    }
    d.kill9().unwrap();
    drop(c);
    let mut d = DaemonProcess::spawn_in(&tmpfs, bin(), &home, &opts).unwrap();
    let mut c = d.connect().unwrap();
    let mut logs = Vec::new();
    for sid in &sids {
        logs.push(
            c.ok_json("session.get", json!({"id": sid, "global": true}))
                .unwrap(),
        );
    }
    c.request("shutdown", json!({})).unwrap();
    d.wait_exit(Duration::from_secs(20)).unwrap();
    // SQLite resolves `/proc/<pid>/root` to this namespace's `/`: read a copy.
    let copy = tmp.path().join("copy");
    std::fs::create_dir_all(&copy).unwrap();
    for f in ["seekclaw.db", "seekclaw.db-wal"] {
        let from = d.home.join(f);
        if from.exists() {
            std::fs::copy(from, copy.join(f)).unwrap();
        }
    }
    let statuses = terminals_per_turn(&copy.join("seekclaw.db"));
    for (k, (sid, s)) in sids.iter().zip(&logs).enumerate() {
        let got = &statuses[sid];
        let first = if unsaved.contains(sid) {
            "interrupted"
        } else {
            "finished"
        };
        let want: Vec<&str> = if k % 2 == 0 {
            vec![first, "finished"]
        } else {
            vec![first]
        };
        assert_eq!(got, &want, "session {sid}");
        // Every acknowledged answer is in the session as the client saw it.
        let answers: Vec<&str> = s["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["role"] == "assistant")
            .map(|m| m["text"].as_str().unwrap())
            .collect();
        for key in [sid.clone(), format!("{sid}/2")] {
            if let Some(text) = acknowledged.get(&key) {
                assert!(answers.contains(&text.as_str()), "{key} lost its answer");
            }
        }
    }
}

#[test]
fn a_cancel_while_the_disk_is_full_keeps_what_was_shown() {
    let Some(Disk {
        tmp: _tmp,
        tmpfs,
        home,
    }) = small_disk()
    else {
        return;
    };
    let server = ProviderServer::start().unwrap();
    let mut slow = Reply::new().chunk_delay(Duration::from_millis(50));
    for i in 0..200 {
        slow = slow.text(format!("part{i} "));
    }
    server.enqueue(slow.finish("stop"));
    let opts = StartOptions {
        config: Some(config(&server)),
        ..StartOptions::default()
    };
    let d = DaemonProcess::spawn_in(&tmpfs, bin(), &home, &opts).unwrap();
    let mut c = d.connect().unwrap();
    let sid = c.ok("session.new", json!({"global": true})).unwrap();
    let id = c
        .send(
            "chat",
            json!({"sessionId": sid, "global": true, "message": "talk"}),
        )
        .unwrap();
    let first = c.wait_for("delta").unwrap();
    // Not an ordering: a few more parts stream (and show) before the disk fills.
    std::thread::sleep(Duration::from_millis(300));
    tmpfs.fill(&home.join("filler")).unwrap();
    c.send("agent.cancel", json!({"requestId": id})).unwrap();
    let all = c.collect(id).unwrap();
    let streamed: String = std::iter::once(&first)
        .chain(all.iter())
        .filter(|e| e["event"] == "delta")
        .map(|e| e["data"].as_str().unwrap())
        .collect();
    let end = all.last().unwrap();
    assert!(!streamed.is_empty());
    // Either the end still fit (cancelled, stored) or it did not (storage);
    // both keep the partial answer the user saw.
    match end["event"].as_str().unwrap() {
        "cancelled" => assert_eq!(end["data"].as_str().unwrap(), streamed),
        "error" => {
            assert_eq!(end["details"]["code"], "storage", "{end}");
            assert_eq!(end["details"]["ended"], "cancelled", "{end}");
            assert_eq!(end["details"]["answer"].as_str().unwrap(), streamed);
        }
        other => panic!("unexpected terminal {other}: {end}"),
    }
}
