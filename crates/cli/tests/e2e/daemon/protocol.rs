use std::collections::HashMap;
use std::io::{Read, Write};
use std::time::{Duration, Instant};

use seekclaw_testkit::StartOptions;
use serde_json::{Value, json};

use crate::support::{start, start_with};

#[test]
fn envelopes_have_wire_key_order_and_string_data() {
    let d = start();
    let mut c = d.connect().unwrap();
    c.send_raw(b"{\"id\":1,\"method\":\"ping\"}\n").unwrap();
    assert_eq!(
        c.read_line().unwrap(),
        "{\"id\":1,\"event\":\"pong\",\"data\":\"\"}\n"
    );
    c.send_raw(b"{\"id\":2,\"method\":\"protocol.info\"}\n")
        .unwrap();
    let line = c.read_line().unwrap();
    assert!(
        line.starts_with("{\"id\":2,\"event\":\"result\",\"data\":\""),
        "{line}"
    );
    c.send_raw(b"{\"id\":3,\"method\":\"nope.nope\"}\n")
        .unwrap();
    let line = c.read_line().unwrap();
    assert_eq!(
        line,
        "{\"id\":3,\"event\":\"error\",\"data\":\"Unknown method: nope.nope\",\"details\":{\"code\":\"unknown_method\"}}\n"
    );
}

#[test]
fn protocol_info_lists_exactly_what_is_served() {
    let d = start();
    let mut c = d.connect().unwrap();
    let info = c.ok_json("protocol.info", json!({})).unwrap();
    assert_eq!(info["version"], "2.1");
    assert_eq!(info["transport"], "jsonl");
    assert!(
        info["capabilities"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c == "session")
    );
    let methods: Vec<String> = info["methods"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap().to_string())
        .collect();
    for must in [
        "ping",
        "protocol.info",
        "workspace.get",
        "session.truncate",
        "session.new",
        "project.upsert",
        "lock.list",
        "doctor.run",
        "shutdown",
    ] {
        assert!(
            methods.iter().any(|m| m == must),
            "{must} missing from {methods:?}"
        );
    }
    // Every listed method is served: none answers `unknown_method`.
    for m in methods
        .iter()
        .filter(|m| !["shutdown", "factory.reset"].contains(&m.as_str()))
    {
        let env = c.request(m, json!({})).unwrap();
        assert_ne!(
            env["details"]["code"], "unknown_method",
            "{m} listed but not served"
        );
    }
}

#[test]
fn bad_lines_get_errors_and_the_connection_survives() {
    let d = start();
    let mut c = d.connect().unwrap();
    for (line, code, data) in [
        ("{not json", "invalid_json", "Invalid JSON request"),
        ("[1,2,3]", "invalid_json", "Invalid JSON request"),
        ("\"hello\"", "invalid_json", "Invalid JSON request"),
        (
            "{\"id\":\"7\",\"method\":\"ping\"}",
            "invalid_request",
            "Request id and method have invalid types",
        ),
        (
            "{\"id\":1,\"method\":42}",
            "invalid_request",
            "Request id and method have invalid types",
        ),
    ] {
        c.send_raw(format!("{line}\n").as_bytes()).unwrap();
        let env: Value = serde_json::from_str(&c.read_line().unwrap()).unwrap();
        assert_eq!(env["id"], 0, "{line}");
        assert_eq!(env["event"], "error");
        assert_eq!(env["data"], data);
        assert_eq!(env["details"]["code"], code);
    }
    c.send_raw(b"\xff\xfe\xfd\n").unwrap();
    let env: Value = serde_json::from_str(&c.read_line().unwrap()).unwrap();
    assert_eq!(env["details"]["code"], "invalid_json");
    // Blank lines are skipped, a missing method is an unknown (empty) method.
    c.send_raw(b"\n\r\n{\"id\":9}\n").unwrap();
    let env: Value = serde_json::from_str(&c.read_line().unwrap()).unwrap();
    assert_eq!(
        (env["id"].as_i64(), env["data"].as_str()),
        (Some(9), Some("Unknown method: "))
    );
    assert_eq!(c.request("ping", json!({})).unwrap()["event"], "pong");
}

#[test]
fn wrongly_typed_params_name_the_param_and_never_drop_the_connection() {
    let d = start();
    let mut c = d.connect().unwrap();
    let cases = [
        ("session.get", json!({"id": 123}), "id"),
        (
            "session.list",
            json!({"includeArchived": "yes"}),
            "includeArchived",
        ),
        ("session.list", json!({"global": 1}), "global"),
        (
            "session.new",
            json!({"reasoningLevel": 5}),
            "reasoningLevel",
        ),
        (
            "session.new",
            json!({"networkEnabled": "no"}),
            "networkEnabled",
        ),
        ("session.update", json!({"id": "x", "title": 7}), "title"),
        (
            "session.truncate",
            json!({"id": "x", "keepCount": "2"}),
            "keepCount",
        ),
        ("workspace.open", json!({"path": 5}), "path"),
        ("agent.mode.switch", json!({"mode": 1}), "mode"),
        ("project.upsert", json!({"path": ["a"]}), "path"),
        (
            "project.remove",
            json!({"id": "p", "keepSessions": "true"}),
            "keepSessions",
        ),
        ("session.resume", json!({"id": {"a": 1}}), "id"),
    ];
    for (method, params, param) in cases {
        let env = c.err(method, params.clone()).unwrap();
        assert_eq!(
            env["details"]["code"], "invalid_request",
            "{method} {params}: {env}"
        );
        let data = env["data"].as_str().unwrap();
        assert!(
            data.contains(&format!("params.{param}")),
            "{method}: {data}"
        );
    }
    assert_eq!(c.request("ping", json!(null)).unwrap()["event"], "pong");
    c.send_raw(b"{\"id\":77,\"method\":\"session.list\",\"params\":[1]}\n")
        .unwrap();
    let env = c.collect(77).unwrap().pop().unwrap();
    assert_eq!(
        env["event"], "result",
        "non-object params count as {{}}: {env}"
    );
    c.send_raw(b"{\"id\":78,\"method\":\"chat\",\"params\":\"hi\"}\n")
        .unwrap();
    let env = c.collect(78).unwrap().pop().unwrap();
    assert_eq!(env["event"], "error");
    assert_eq!(env["data"], "params.message or params.images is required");
    assert_eq!(c.request("ping", json!({})).unwrap()["event"], "pong");
}

#[test]
fn every_request_gets_exactly_one_terminal() {
    let d = start();
    let mut c = d.connect().unwrap();
    let mut batch = String::new();
    let methods = [
        "ping",
        "protocol.info",
        "session.list",
        "session.get",
        "nope",
        "workspace.get",
        "doctor",
        "project.list",
        "session.new",
        "lock.list",
    ];
    for i in 0..200 {
        let m = methods[i % methods.len()];
        batch.push_str(&format!(
            "{{\"id\":{},\"method\":\"{m}\",\"params\":{{}}}}\n",
            i + 1
        ));
    }
    c.send_raw(batch.as_bytes()).unwrap();
    let mut terminals: HashMap<i64, usize> = HashMap::new();
    while terminals.len() < 200 {
        let env = c.next_envelope().unwrap();
        *terminals.entry(env["id"].as_i64().unwrap()).or_default() += 1;
    }
    assert!(terminals.values().all(|n| *n == 1));
    // Nothing more arrives: the next line answers the next request.
    assert_eq!(c.request("ping", json!({})).unwrap()["id"], 1);
}

#[test]
fn a_70_mb_line_is_too_large_and_the_daemon_stays_up() {
    let d = start();
    let mut c = d.connect().unwrap();
    let mut big = Vec::with_capacity(70 * 1024 * 1024 + 64);
    big.extend_from_slice(b"{\"id\":5,\"method\":\"ping\",\"params\":{\"pad\":\"");
    big.resize(70 * 1024 * 1024, b'a');
    big.extend_from_slice(b"\"}}\n");
    let mut w = c.stream().try_clone().unwrap();
    let writer = std::thread::spawn(move || w.write_all(&big).is_ok());
    let env: Value = serde_json::from_str(&c.read_line().unwrap()).unwrap();
    assert!(writer.join().unwrap());
    assert_eq!(env["event"], "error");
    assert_eq!(env["details"]["code"], "too_large");
    assert_eq!(c.request("ping", json!({})).unwrap()["event"], "pong");
    let mut other = d.connect().unwrap();
    assert_eq!(other.request("ping", json!({})).unwrap()["event"], "pong");
}

#[test]
fn a_large_line_under_the_limit_is_accepted() {
    let d = start();
    let mut c = d.connect().unwrap();
    let pad = "b".repeat(8 * 1024 * 1024);
    let env = c.request("ping", json!({"pad": pad})).unwrap();
    assert_eq!(env["event"], "pong");
}

#[test]
fn two_hundred_concurrent_connections() {
    let d = start();
    let socket = d.socket.clone();
    let threads: Vec<_> = (0..200)
        .map(|_| {
            let socket = socket.clone();
            std::thread::spawn(move || {
                let mut c = seekclaw_testkit::Client::connect(&socket).unwrap();
                assert_eq!(c.request("ping", json!({})).unwrap()["event"], "pong");
                let list = c.ok_json("session.list", json!({"global": true})).unwrap();
                assert!(list.is_array());
                c
            })
        })
        .collect();
    let clients: Vec<_> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    // All 200 are open at once and still served.
    for mut c in clients {
        assert_eq!(c.request("ping", json!({})).unwrap()["event"], "pong");
    }
}

#[test]
fn a_client_that_never_reads_is_cut_off_and_nobody_else_notices() {
    let d = start_with(StartOptions {
        config: Some(json!({"daemon": {"slowClientTimeoutSeconds": 1}})),
        ..Default::default()
    });
    let stuck = d.connect().unwrap();
    let mut w = stuck.stream().try_clone().unwrap();
    let line = b"{\"id\":1,\"method\":\"protocol.info\"}\n".repeat(200);
    // Floods requests and never reads a byte of the answers.
    let flooder = std::thread::spawn(move || {
        for _ in 0..2000 {
            if w.write_all(&line).is_err() {
                return;
            }
        }
    });
    let mut ok = d.connect().unwrap();
    let start = Instant::now();
    let mut worst = Duration::ZERO;
    while start.elapsed() < Duration::from_secs(4) {
        let t = Instant::now();
        assert_eq!(ok.request("ping", json!({})).unwrap()["event"], "pong");
        worst = worst.max(t.elapsed());
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        worst < Duration::from_millis(500),
        "ping stalled for {worst:?}"
    );
    // The stuck client was disconnected: reading drains, then hits EOF or a reset.
    let mut r = stuck.stream().try_clone().unwrap();
    r.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut buf = vec![0u8; 1 << 20];
    let closed = loop {
        match r.read(&mut buf) {
            Ok(0) => break true,
            Ok(_) => continue,
            Err(e)
                if e.kind() == std::io::ErrorKind::WouldBlock
                    || e.kind() == std::io::ErrorKind::TimedOut =>
            {
                break false;
            }
            Err(_) => break true,
        }
    };
    assert!(closed, "the stuck client was not disconnected");
    let _ = flooder.join();
    assert_eq!(ok.request("ping", json!({})).unwrap()["event"], "pong");
}
