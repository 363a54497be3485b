//! `seekclaw-client` against the real daemon over its real socket: typed
//! calls, a turn streamed to its terminal envelope, error envelopes read as
//! typed errors with their `details.code`, and a reconnect after a restart.

use std::time::Duration;

use seekclaw_client::{Client, TurnOutcome};
use seekclaw_protocol::api::{
    ChatParams, NoParams, Required, SessionListParams, SessionNewParams, SessionRefParams,
};
use seekclaw_protocol::events::UsageDetails;
use seekclaw_protocol::{ErrorCode, event, method};
use seekclaw_testkit::{DaemonProcess, ProviderServer, Reply, StartOptions};
use serde_json::json;

fn connect(d: &DaemonProcess) -> Client {
    let mut c = Client::connect(&d.socket).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    c
}

fn global_session(c: &mut Client) -> String {
    let params = SessionNewParams {
        global: Some(true),
        ..Default::default()
    };
    c.call::<method::SessionNew>(&params).unwrap()
}

#[test]
fn typed_calls_read_the_daemons_answers() {
    let server = ProviderServer::start().unwrap();
    let d = crate::support::turns::setup(&server, StartOptions::default());
    let mut c = connect(&d);

    c.call::<method::Ping>(&NoParams {}).unwrap();
    let info = c.call::<method::ProtocolInfo>(&NoParams {}).unwrap();
    assert_eq!(
        (info.version.as_str(), info.transport.as_str()),
        ("2.1", "jsonl")
    );
    assert_eq!(
        info.methods.len(),
        seekclaw_protocol::ProtocolInfo::from_table().methods.len()
    );

    let sid = global_session(&mut c);
    let list = c
        .call::<method::SessionList>(&SessionListParams {
            global: Some(true),
            ..Default::default()
        })
        .unwrap();
    assert!(list.iter().any(|s| s.id == sid), "{sid} in {list:?}");

    // Config reads: JSON rows, and text with its structured twin in details.
    let providers = c.call::<method::ProviderList>(&NoParams {}).unwrap();
    assert_eq!(providers[0].id, "tk");
    assert_eq!(providers[0].models, ["m1", "eyes"]);
    let routing = c.call::<method::RoutingGet>(&NoParams {}).unwrap();
    assert!(routing.failover_enabled);
    let mode = c.call::<method::AgentModeGet>(&NoParams {}).unwrap();
    assert_eq!(mode.text, mode.details.mode);
}

#[test]
fn a_turn_streams_to_its_one_terminal_envelope() {
    let server = ProviderServer::start().unwrap();
    server.enqueue(Reply::new().text("Hello ").text("world").usage(120, 20, 7));
    let d = crate::support::turns::setup(&server, StartOptions::default());
    let mut c = connect(&d);
    let sid = global_session(&mut c);

    let chat = ChatParams {
        message: Some("Say hello".into()),
        session_id: Some(sid.clone()),
        global: Some(true),
        ..Default::default()
    };
    let mut turn = c.stream::<method::Chat>(&chat).unwrap();
    let (mut names, mut deltas, mut usage) = (Vec::new(), String::new(), None);
    for env in turn.by_ref() {
        let env = env.unwrap();
        assert_eq!(env.session_id.as_deref(), Some(sid.as_str()), "{env:?}");
        if env.event == event::DELTA {
            deltas.push_str(&env.data);
        }
        usage = usage.or(env.details_as::<UsageDetails>());
        names.push(env.event);
    }
    let end = turn.finish().unwrap();
    assert_eq!(
        (end.outcome, end.text.as_str()),
        (TurnOutcome::Done, "Hello world")
    );
    assert_eq!(deltas, "Hello world");
    assert_eq!(names.last().map(String::as_str), Some(event::DONE));
    assert_eq!(names.iter().filter(|n| event::is_terminal(n)).count(), 1);
    let usage = usage.unwrap();
    assert_eq!(
        (
            usage.input_tokens,
            usage.cached_input_tokens,
            usage.output_tokens
        ),
        (120, 20, 7)
    );

    let get = SessionRefParams {
        id: Required(sid.clone()),
        global: Some(true),
        ..Default::default()
    };
    let detail = c.call::<method::SessionGet>(&get).unwrap();
    let last = detail.messages.last().unwrap();
    assert_eq!(
        (last.role.as_str(), last.text.as_str()),
        ("assistant", "Hello world")
    );
    assert_eq!(last.model_ref.as_deref(), Some("tk/m1"));
}

#[test]
fn error_envelopes_are_typed_errors_with_their_code() {
    let d = crate::support::start();
    let mut c = connect(&d);

    let missing = SessionRefParams {
        id: Required("20200101-000000-aaaaaa".into()),
        global: Some(true),
        ..Default::default()
    };
    let err = c.call::<method::SessionGet>(&missing).unwrap_err();
    assert_eq!(err.code(), Some(ErrorCode::NotFound), "{err}");
    assert!(!err.is_disconnect());

    // Params the typed API cannot write, sent by name: the code and the param.
    let id = c.send_named("session.get", &json!({"id": 5})).unwrap();
    let env = c.terminal(id).unwrap();
    let e = env.as_error().unwrap();
    assert_eq!(
        (e.code, e.param.as_deref()),
        (Some(ErrorCode::InvalidRequest), Some("id"))
    );
    assert_eq!(e.message, "Invalid request: params.id must be a string");

    let id = c.send_named("no.such.method", &json!({})).unwrap();
    let e = c.terminal(id).unwrap().as_error().unwrap();
    assert_eq!(e.code, Some(ErrorCode::UnknownMethod));

    // The connection is still good after errors.
    c.call::<method::Ping>(&NoParams {}).unwrap();
}

#[test]
fn the_client_reconnects_after_the_daemon_restarts() {
    let mut d = crate::support::start();
    let mut c = connect(&d);
    let sid = global_session(&mut c);

    c.call::<method::Shutdown>(&NoParams {}).unwrap();
    d.wait_exit(Duration::from_secs(20)).unwrap();
    let gone = c.call::<method::Ping>(&NoParams {}).unwrap_err();
    assert!(gone.is_disconnect(), "{gone}");

    let _again =
        DaemonProcess::spawn(crate::support::bin(), &d.home, &StartOptions::default()).unwrap();
    c.reconnect_within(Duration::from_secs(20)).unwrap();
    let list = c
        .call::<method::SessionList>(&SessionListParams {
            global: Some(true),
            ..Default::default()
        })
        .unwrap();
    assert!(list.iter().any(|s| s.id == sid), "{sid} in {list:?}");
}
