//! The blocking client against a tiny in-test socket server.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::time::Duration;

use seekclaw_protocol::api::{ChatParams, NoParams};
use seekclaw_protocol::{TurnOutcome, method};
use serde_json::Value;

use crate::{Client, ClientError};

fn read_request(r: &mut BufReader<UnixStream>) -> Value {
    let mut line = String::new();
    r.read_line(&mut line).unwrap();
    serde_json::from_str(&line).unwrap()
}

#[test]
fn a_turn_streams_to_its_terminal_while_other_answers_wait_their_turn() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("daemon.sock");
    let listener = UnixListener::bind(&path).unwrap();
    let server = std::thread::spawn(move || {
        let (sock, _) = listener.accept().unwrap();
        let mut r = BufReader::new(sock.try_clone().unwrap());
        let chat = read_request(&mut r);
        assert_eq!(
            (chat["id"].as_i64(), chat["method"].as_str()),
            (Some(1), Some("chat"))
        );
        assert_eq!(chat["params"], serde_json::json!({"message": "hi"}));
        let ping = read_request(&mut r);
        assert_eq!(ping["method"], "ping");
        let mut w = sock;
        for line in [
            r#"{"id":2,"event":"pong","data":""}"#,
            r#"{"id":1,"event":"delta","data":"he","sessionId":"s1"}"#,
            r#"{"id":0,"event":"schedule.upcoming","data":"t"}"#,
            r#"{"id":1,"event":"done","data":"hello","sessionId":"s1"}"#,
        ] {
            writeln!(w, "{line}").unwrap();
        }
    });
    let mut c = Client::connect(&path).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let chat = ChatParams {
        message: Some("hi".into()),
        ..Default::default()
    };
    let mut turn = c.stream::<method::Chat>(&chat).unwrap();
    let ping = turn.client().send::<method::Ping>(&NoParams {}).unwrap();
    let events: Vec<String> = turn.by_ref().map(|e| e.unwrap().event).collect();
    assert_eq!(events, ["delta", "done"]);
    let end = turn.finish().unwrap();
    assert_eq!(
        (end.outcome, end.text.as_str()),
        (TurnOutcome::Done, "hello")
    );
    assert_eq!(c.terminal(ping).unwrap().event, "pong");
    assert_eq!(c.next_event().unwrap().event, "schedule.upcoming");
    server.join().unwrap();
}

#[test]
fn reconnects_after_the_daemon_restarts_and_ids_go_on() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("daemon.sock");
    let listener = UnixListener::bind(&path).unwrap();
    let mut c = Client::connect(&path).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    // The first "daemon" reads one request and goes away without answering.
    let (sock, _) = listener.accept().unwrap();
    let id = c.send::<method::Ping>(&NoParams {}).unwrap();
    let _ = read_request(&mut BufReader::new(sock.try_clone().unwrap()));
    drop(sock);
    drop(listener);
    let err = c.terminal(id).unwrap_err();
    assert!(err.is_disconnect(), "{err}");

    std::fs::remove_file(&path).unwrap();
    let listener = UnixListener::bind(&path).unwrap();
    let server = std::thread::spawn(move || {
        let (sock, _) = listener.accept().unwrap();
        let mut r = BufReader::new(sock.try_clone().unwrap());
        let mut w = sock;
        let mut ids = Vec::new();
        for _ in 0..2 {
            let req = read_request(&mut r);
            let id = req["id"].as_i64().unwrap();
            ids.push(id);
            writeln!(w, r#"{{"id":{id},"event":"pong","data":""}}"#).unwrap();
        }
        ids
    });
    c.reconnect_within(Duration::from_secs(5)).unwrap();
    c.call::<method::Ping>(&NoParams {}).unwrap();
    let ids = server.join().unwrap();
    assert!(ids.iter().all(|i| *i > id), "{ids:?} after {id}");
    assert!(matches!(
        Client::connect(dir.path().join("none.sock")),
        Err(ClientError::Connect { .. })
    ));
}
