//! `seekclaw inspect`: the real binary serving a home whose sessions real
//! `seekclaw run` turns made against the testkit provider. HTTP checks over
//! a raw socket (token, cookie, Host, headers, API, live tail), then the page
//! in a real headless Chromium (`--dump-dom` after its script ran, and a
//! screenshot of each view under `target/inspect-shots/`).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use seekclaw_testkit::{ProviderServer, Reply};
use serde_json::{Value, json};

use crate::support::webdriver::Browser;
use crate::support::{bin, project_dir};

/// What the probes put into a prompt (the title) and a tool output.
const PROMPT: &str = "<script>document.title='pwned'</script> read <img src=x onerror=\"document.title='pwned'\"> notes";
const FILE: &str = "the word is <img src=x onerror=\"document.title='pwned'\"> heliotrope\n";

pub(super) fn seekclaw(cwd: &Path, home: &Path, args: &[&str]) -> String {
    let out = Command::new(bin())
        .args(args)
        .current_dir(cwd)
        .env("SEEKCLAW_HOME", home)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "seekclaw {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// A home with one workspace session (a tool call, then an answer) and one
/// global session. Returns (home, workspace, workspace session id).
fn sessions(dir: &Path, server: &ProviderServer) -> (PathBuf, PathBuf, String) {
    let home = dir.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let config = json!({"providers": [{"id": "tk", "kind": "openai", "baseUrl": server.base_url(),
        "models": [{"id": "m1"}]}]});
    std::fs::write(home.join("config.json"), config.to_string()).unwrap();
    let ws = project_dir(dir, "ws");
    std::fs::write(ws.join("notes.txt"), FILE).unwrap();
    server.enqueue(
        Reply::new()
            .reasoning("I should read it")
            .tool_call("call_1", "read_file", r#"{"path":"notes.txt"}"#)
            .usage(100, 0, 10),
    );
    server.enqueue(Reply::plain("It is heliotrope.").usage(150, 100, 5));
    let ws_arg = ws.to_str().unwrap();
    seekclaw(&ws, &home, &["run", PROMPT, "--workspace", ws_arg]);
    server.enqueue(Reply::plain("Hello from the global scope.").usage(10, 0, 4));
    seekclaw(&ws, &home, &["run", "a global question", "--global"]);
    let listed: Value = serde_json::from_str(&seekclaw(
        &ws,
        &home,
        &["sessions", "list", "--json", "--workspace", ws_arg],
    ))
    .unwrap();
    let id = listed[0]["id"].as_str().unwrap().to_string();
    (home, ws, id)
}

/// A process started in its own group; the group is killed on drop.
pub(super) struct Group(Child);

impl Drop for Group {
    fn drop(&mut self) {
        // SAFETY: a signal to the process group this test started.
        unsafe { libc::kill(-(self.0.id() as i32), libc::SIGKILL) };
        let _ = self.0.wait();
    }
}

fn spawn_group(cmd: &mut Command) -> Group {
    use std::os::unix::process::CommandExt;
    Group(cmd.process_group(0).spawn().unwrap())
}

/// `seekclaw inspect --port 0`: the server and its printed URL.
pub(super) fn inspect(home: &Path) -> (Group, String) {
    let mut server = spawn_group(
        Command::new(bin())
            .args(["inspect", "--port", "0"])
            .env("SEEKCLAW_HOME", home)
            .stdout(Stdio::piped())
            .stderr(Stdio::null()),
    );
    let mut line = String::new();
    BufReader::new(server.0.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line.trim().to_string();
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    (server, url)
}

struct Answer {
    status: u16,
    head: String,
    body: String,
}

/// One HTTP/1.1 GET with these extra header lines; the whole answer.
fn get(port: u16, path: &str, headers: &[String]) -> Answer {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut req = format!("GET {path} HTTP/1.1\r\nConnection: close\r\n");
    for h in headers {
        req.push_str(h);
        req.push_str("\r\n");
    }
    req.push_str("\r\n");
    s.write_all(req.as_bytes()).unwrap();
    let mut raw = String::new();
    s.read_to_string(&mut raw).unwrap();
    let (head, body) = raw.split_once("\r\n\r\n").unwrap();
    Answer {
        status: head[9..12].parse().unwrap(),
        head: head.to_ascii_lowercase(),
        body: body.to_string(),
    }
}

fn port_and_token(url: &str) -> (u16, String) {
    let rest = url.strip_prefix("http://127.0.0.1:").unwrap();
    let (port, query) = rest.split_once('/').unwrap();
    let token = query.split("token=").nth(1).unwrap().to_string();
    (port.parse().unwrap(), token)
}

/// Where the screenshots go: `target/inspect-shots/`.
pub(super) fn shots_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/inspect-shots");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Headless Chromium on `url` with `what` (`--dump-dom` or `--screenshot=…`):
/// its stdout. Killed with its group if it hangs.
fn chromium(profile: &Path, url: &str, what: &str) -> String {
    let out_file = profile.with_extension("out");
    let file = std::fs::File::create(&out_file).unwrap();
    let mut child = spawn_group(
        Command::new("chromium")
            .args(seekclaw_testkit::chromium_args(profile))
            .arg("--virtual-time-budget=5000")
            .arg(what)
            .arg(url)
            .stdout(file)
            .stderr(Stdio::null()),
    );
    let deadline = Instant::now() + Duration::from_secs(90);
    while child.0.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "chromium hung on {url}");
        std::thread::sleep(Duration::from_millis(50));
    }
    drop(child);
    std::fs::read_to_string(&out_file).unwrap()
}

#[test]
fn inspect_guards_every_request_and_serves_the_sessions() {
    let dir = tempfile::tempdir().unwrap();
    let server = ProviderServer::start().unwrap();
    let (home, ws, id) = sessions(dir.path(), &server);
    let (_inspect, url) = inspect(&home);
    let (port, token) = port_and_token(&url);
    let host = format!("Host: 127.0.0.1:{port}");

    // No token, a wrong one, a bad Host: 403, with the security headers still on.
    let none = get(port, "/api/sessions", std::slice::from_ref(&host));
    assert_eq!(none.status, 403);
    assert!(
        none.head
            .contains("content-security-policy: default-src 'none'")
    );
    assert_eq!(get(port, "/", std::slice::from_ref(&host)).status, 403);
    assert_eq!(
        get(port, "/?token=nope", std::slice::from_ref(&host)).status,
        403
    );
    let wrong_cookie = format!("Cookie: seekclaw_inspect={}x", token);
    assert_eq!(
        get(port, "/api/sessions", &[host.clone(), wrong_cookie]).status,
        403
    );
    let rebound = format!("/api/sessions?token={token}");
    for bad in [
        "Host: evil.example",
        &format!("Host: evil.example:{port}"),
        "Host: 127.0.0.1:1",
    ] {
        assert_eq!(get(port, &rebound, &[bad.to_string()]).status, 403, "{bad}");
    }

    // The token in the URL: 200, the cookie, the headers.
    let page = get(
        port,
        &format!("/?token={token}"),
        &[format!("Host: localhost:{port}")],
    );
    assert_eq!(page.status, 200);
    assert!(page.head.contains("httponly") && page.head.contains("samesite=strict"));
    for h in [
        "content-security-policy: default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'",
        "x-content-type-options: nosniff",
        "referrer-policy: no-referrer",
    ] {
        assert!(page.head.contains(h), "{h} in {}", page.head);
    }
    assert!(!page.body.contains("<script>"), "no inline script");

    // Then the cookie alone.
    let cookie = format!("Cookie: seekclaw_inspect={token}");
    let auth = [host.clone(), cookie];
    let listed = get(port, "/api/sessions?archived=1", &auth);
    assert_eq!(listed.status, 200);
    let listed: Value = serde_json::from_str(&listed.body).unwrap();
    let rows = listed.as_array().unwrap();
    assert_eq!(rows.len(), 2, "{listed}");
    assert!(
        rows.iter()
            .any(|s| s["id"] == id.as_str() && s["global"] == false)
    );
    assert!(rows.iter().any(|s| s["global"] == true));
    assert!(rows.iter().all(|s| s["turns"] == 1), "{listed}");
    let events = get(port, &format!("/api/sessions/{id}/events"), &auth);
    let events: Value = serde_json::from_str(&events.body).unwrap();
    let kinds: Vec<&str> = events["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["item"]["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        ["user", "assistant", "tool_result", "assistant", "terminal"]
    );
    // Each step carries what the provider counted for it.
    let usage = |i: usize| events["events"][i]["item"]["usage"].clone();
    assert_eq!(usage(1)["inputTokens"], 100, "{events}");
    assert_eq!(usage(1)["outputTokens"], 10);
    assert_eq!(
        (
            usage(3)["inputTokens"].clone(),
            usage(3)["cachedInputTokens"].clone()
        ),
        (json!(150), json!(100))
    );
    // The model view before the answer: the prompt, the call, its result.
    let model = get(port, &format!("/api/sessions/{id}/model?seq=4"), &auth);
    let model: Value = serde_json::from_str(&model.body).unwrap();
    let roles: Vec<&str> = model["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["user", "assistant", "tool"], "{model}");
    assert!(
        model["messages"][2]["text"]
            .as_str()
            .unwrap()
            .contains("heliotrope")
    );
    // … exactly what the provider was sent for that step (its second request).
    let sent = &server.requests()[1].body["messages"];
    let sent: Vec<(String, String)> = sent
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] != "system")
        .map(|m| {
            let text = m["content"].as_str().unwrap_or_default().to_string();
            (m["role"].as_str().unwrap().to_string(), text)
        })
        .collect();
    let shown: Vec<(String, String)> = model["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let role = m["role"].as_str().unwrap().to_string();
            (role, m["text"].as_str().unwrap_or_default().to_string())
        })
        .collect();
    assert_eq!(shown, sent, "model view vs the request");
    // The system prompt the turn recorded is the one it sent.
    let system = server.requests()[1].body["messages"][0].clone();
    assert_eq!(system["role"], "system");
    assert_eq!(model["systemPrompt"], system["content"], "{model}");
    // … and the tools it offered, with the engine's token estimates.
    let requests = server.requests();
    let offered: Vec<&str> = requests[1].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    let listed: Vec<&str> = model["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(listed, offered, "{model}");
    assert!(model["toolTokens"].as_u64().unwrap() > 0);
    assert!(model["messages"][0]["tokens"].as_u64().unwrap() > 0);

    // Full-text search over every session, matches marked.
    let found = get(port, "/api/search?q=heliotrope", &auth);
    let found: Value = serde_json::from_str(&found.body).unwrap();
    let hits = found.as_array().unwrap();
    assert!(hits.len() >= 2, "{found}");
    assert!(hits.iter().all(|h| h["sessionId"] == id.as_str()));
    assert!(
        hits.iter()
            .any(|h| h["snippet"].as_str().unwrap().contains("«heliotrope»")),
        "{found}"
    );
    let none = get(port, "/api/search?q=%22%20OR%20", &auth);
    assert_eq!(none.status, 200, "a query of punctuation is no error");

    live_tail_pushes_a_new_turn(port, &auth, &id, &server, &home, &ws);
    in_the_browser(dir.path(), &url, &id, &home);
}

/// The SSE tail: a turn appended by another process arrives as an `events`
/// message.
fn live_tail_pushes_a_new_turn(
    port: u16,
    auth: &[String],
    id: &str,
    server: &ProviderServer,
    home: &Path,
    ws: &Path,
) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let mut req = format!("GET /api/sessions/{id}/tail?after=5 HTTP/1.1\r\n");
    for h in auth {
        req.push_str(h);
        req.push_str("\r\n");
    }
    s.write_all(format!("{req}\r\n").as_bytes()).unwrap();
    server.enqueue(Reply::plain("You are welcome.").usage(5, 0, 3));
    seekclaw(ws, home, &["run", "thanks", "--session", id]);
    let seen = Instant::now();
    let mut got = String::new();
    let mut buf = [0u8; 4096];
    while !(got.contains("event: events") && got.contains("\"terminal\"")) {
        let n = s.read(&mut buf).unwrap();
        assert!(n > 0, "tail closed: {got}");
        got.push_str(&String::from_utf8_lossy(&buf[..n]));
    }
    assert!(got.starts_with("HTTP/1.1 200"), "{got}");
    assert!(got.contains("text/event-stream"));
    assert!(got.contains("You are welcome."), "{got}");
    assert!(seen.elapsed() < Duration::from_secs(5));
    let last: u64 = got
        .lines()
        .filter_map(|l| l.strip_prefix("id: "))
        .next_back()
        .unwrap_or_else(|| panic!("no message id: {got}"))
        .trim()
        .parse()
        .unwrap();
    drop(s);
    tail_resumes_after_the_last_event_id(port, auth, id, (server, home, ws), last);
}

/// A browser's EventSource reconnects with its first URL (`after=0`) and
/// the last message's id: the stream goes on from that id, sending nothing
/// twice.
fn tail_resumes_after_the_last_event_id(
    port: u16,
    auth: &[String],
    id: &str,
    (server, home, ws): (&ProviderServer, &Path, &Path),
    last: u64,
) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let mut req =
        format!("GET /api/sessions/{id}/tail?after=0 HTTP/1.1\r\nLast-Event-ID: {last}\r\n");
    for h in auth {
        req.push_str(h);
        req.push_str("\r\n");
    }
    s.write_all(format!("{req}\r\n").as_bytes()).unwrap();
    server.enqueue(Reply::plain("Second answer.").usage(5, 0, 3));
    seekclaw(ws, home, &["run", "again", "--session", id]);
    let mut got = String::new();
    let mut buf = [0u8; 4096];
    while !(got.contains("event: events")
        && got.contains("Second answer.")
        && got.contains("\"terminal\""))
    {
        let n = s.read(&mut buf).unwrap();
        assert!(n > 0, "tail closed: {got}");
        got.push_str(&String::from_utf8_lossy(&buf[..n]));
    }
    let seqs: Vec<u64> = got
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .flat_map(|d| {
            let page: serde_json::Value = serde_json::from_str(d).unwrap();
            page["events"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| e["seq"].as_u64().unwrap())
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(
        !seqs.is_empty() && seqs.iter().all(|s| *s > last),
        "resumed after {last}: {seqs:?}"
    );
    assert!(
        !got.contains("You are welcome."),
        "the first turn came again: {got}"
    );
}

fn in_the_browser(dir: &Path, url: &str, id: &str, home: &Path) {
    if seekclaw_testkit::capability_missing(
        "chromium",
        seekclaw_testkit::program_missing("chromium"),
    ) {
        return;
    }
    let profile = dir.join("chromium");
    let shots = shots_dir();
    // `tail=0`: no open SSE stream, so the virtual time budget can run out.
    let page = format!("{url}&session={id}&tail=0");
    let dom = chromium(&profile, &page, "--dump-dom");
    assert!(dom.contains(&format!("data-id=\"{id}\"")), "sidebar: {dom}");
    assert!(dom.contains("Global"), "both scopes: {dom}");
    assert!(dom.contains("class=\"event k-tool_result"), "events: {dom}");
    assert!(dom.contains("It is heliotrope."));
    assert_inert(&dom);

    for view in ["raw", "model", "usage", "flow"] {
        let shot = shots.join(format!("{view}.png"));
        chromium(
            &profile,
            &format!("{page}&view={view}"),
            &format!("--screenshot={}", shot.display()),
        );
        assert!(std::fs::metadata(&shot).unwrap().len() > 1000, "{view}");
    }
    let model = chromium(&profile, &format!("{page}&view=model&seq=4"), "--dump-dom");
    assert!(model.contains("class=\"msg tool\""), "model view: {model}");
    assert_inert(&model);

    // The export renders from file://, its data baked in.
    let out = dir.join("export.html");
    seekclaw(
        dir,
        home,
        &[
            "inspect",
            "--export",
            out.to_str().unwrap(),
            "--session",
            id,
        ],
    );
    let html = std::fs::read_to_string(&out).unwrap();
    assert!(html.contains("http-equiv=\"Content-Security-Policy\""));
    let file_url = format!("file://{}", out.display());
    let dom = chromium(&profile, &file_url, "--dump-dom");
    assert!(dom.contains("It is heliotrope."), "export: {dom}");
    assert!(dom.contains("class=\"event k-tool_result"));
    assert_inert(&dom);
    // Its model views were computed at export time.
    let dom = chromium(
        &profile,
        &format!("{file_url}?view=model&seq=4"),
        "--dump-dom",
    );
    assert!(
        dom.contains("class=\"msg tool\""),
        "export model view: {dom}"
    );
    assert_inert(&dom);
    let shot = shots.join("export.png");
    chromium(
        &profile,
        &file_url,
        &format!("--screenshot={}", shot.display()),
    );
}

/// The probes are text: escaped in the DOM, no element from them, the
/// title untouched.
fn assert_inert(dom: &str) {
    // The rendered part: up to the page's own scripts (an export inlines its
    // code and data there).
    let dom = &dom[..dom.find("<script").unwrap()];
    assert!(
        dom.contains("&lt;img src=x onerror="),
        "probe shown as text"
    );
    assert!(
        dom.contains("&lt;script&gt;document.title"),
        "probe shown as text"
    );
    // (These sessions carry no images: any `<img` element came from a probe.
    // A text node keeps its `"` as is, so `onerror="…"` appears in the text.)
    assert!(!dom.contains("<img"), "an img element from content");
    assert!(!dom.contains("<title>pwned"), "a probe ran");
    assert!(
        !dom.contains("<script>document"),
        "a script element from content"
    );
}

/// The page follows a running session: a turn appended by `seekclaw run`
/// shows up in the open raw log without a reload.
#[test]
fn inspect_page_tails_a_live_session() {
    if seekclaw_testkit::capability_missing(
        "chromium",
        seekclaw_testkit::program_missing("chromedriver"),
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let server = ProviderServer::start().unwrap();
    let (home, ws, id) = sessions(dir.path(), &server);
    let (_inspect, url) = inspect(&home);
    let browser = Browser::start(&dir.path().join("webdriver-profile"));
    browser.goto(&format!("{url}&session={id}"));
    let events = "return document.querySelectorAll('#view .event').length";
    browser.wait_for(
        &format!("{events} === 5 && document.getElementById('live').textContent.includes('live')"),
        Duration::from_secs(20),
    );

    server.enqueue(Reply::plain("You are welcome, live.").usage(5, 0, 3));
    seekclaw(&ws, &home, &["run", "thanks", "--session", &id]);
    // The turn's events are all in the store once `run` has exited.
    let took = browser.wait_for(&format!("{events} === 8"), Duration::from_secs(5));
    eprintln!("live tail: the turn's last event on screen {took:?} after `run` exited");
    assert!(took < Duration::from_secs(2), "{took:?}");
    let text = browser.eval("return document.getElementById('view').textContent");
    assert!(text.as_str().unwrap().contains("You are welcome, live."));
    assert_eq!(
        browser.eval("return document.querySelectorAll('#view section.turn').length"),
        json!(2)
    );
    browser.screenshot(&shots_dir().join("live.png"));
}

/// Full-text search in the page finds a phrase and opens its event; the
/// usage view charts the provider's counts; the model view lists the tools.
#[test]
fn inspect_page_searches_and_charts_usage() {
    if seekclaw_testkit::capability_missing(
        "chromium",
        seekclaw_testkit::program_missing("chromedriver"),
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let server = ProviderServer::start().unwrap();
    let (home, _ws, id) = sessions(dir.path(), &server);
    let (_inspect, url) = inspect(&home);
    let browser = Browser::start(&dir.path().join("webdriver-profile"));
    browser.goto(&format!("{url}&tail=0"));
    browser.wait_for(
        "return document.querySelectorAll('#sessions .session').length === 2",
        Duration::from_secs(20),
    );
    browser.eval(
        "document.getElementById('search').value = 'global question'; \
         document.getElementById('searchform').requestSubmit(); return 0",
    );
    browser.wait_for(
        "return document.querySelectorAll('#hits .hit').length === 1",
        Duration::from_secs(10),
    );
    let hit = browser.eval("return document.querySelector('#hits .hit').textContent");
    assert!(hit.as_str().unwrap().contains("global"), "{hit}");
    assert_eq!(
        browser.eval("return document.querySelectorAll('#hits mark').length"),
        json!(2),
        "both words marked"
    );
    // Then a phrase of the workspace session: its event opens, marked.
    browser.eval(
        "document.getElementById('search').value = 'heliotrope'; \
         document.getElementById('searchform').requestSubmit(); return 0",
    );
    browser.wait_for(
        &format!("return document.querySelector('#hits .hit[data-session=\"{id}\"]') !== null"),
        Duration::from_secs(10),
    );
    browser.eval("document.querySelector('#hits .hit').click(); return 0");
    browser.wait_for(
        "return document.querySelector('#view .event.target') !== null",
        Duration::from_secs(10),
    );
    let target = browser.eval("return document.querySelector('#view .event.target').textContent");
    assert!(target.as_str().unwrap().contains("heliotrope"), "{target}");
    browser.screenshot(&shots_dir().join("search.png"));

    browser.eval("document.querySelector('#tabs button[data-view=usage]').click(); return 0");
    browser.wait_for(
        "return document.getElementById('usage-turns') !== null",
        Duration::from_secs(5),
    );
    assert_eq!(
        browser.eval("return document.querySelectorAll('#usage-bars .bar[data-seq]').length"),
        json!(2)
    );
    let legend = browser.eval("return document.getElementById('view').textContent");
    assert!(
        legend
            .as_str()
            .unwrap()
            .contains("All 2 steps as the provider counted them"),
        "{legend}"
    );
    let cells = browser.eval(
        "return [...document.querySelectorAll('#usage-turns tr:nth-child(2) td')].map(c => c.textContent)",
    );
    assert_eq!(cells, json!(["1", "2", "250", "100", "15", "0", "$0.0000"]));
    browser.screenshot(&shots_dir().join("usage.png"));

    browser.eval("document.querySelector('#tabs button[data-view=model]').click(); return 0");
    browser.wait_for(
        "return document.getElementById('model-tools') !== null",
        Duration::from_secs(5),
    );
    let tools = browser.eval("return document.querySelector('#model-tools summary').textContent");
    assert!(tools.as_str().unwrap().contains("read_file"), "{tools}");
    let legend = browser.eval("return document.getElementById('model-legend').textContent");
    assert!(
        legend
            .as_str()
            .unwrap()
            .contains("150 input tokens counted"),
        "{legend}"
    );
    browser.screenshot(&shots_dir().join("model-tools.png"));
}

/// An OpenSeek session file (§5.2 shapes, every terminal kind, a summary, a
/// notice, a bad line and the probes) picked in the page renders client-side.
#[test]
fn inspect_page_renders_an_openseek_session_file() {
    if seekclaw_testkit::capability_missing(
        "chromium",
        seekclaw_testkit::program_missing("chromedriver"),
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    // No database yet: a clear error, and none is created.
    let out = Command::new(bin())
        .arg("inspect")
        .env("SEEKCLAW_HOME", &home)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no sessions yet"));
    assert!(!home.join("seekclaw.db").exists());
    // An empty store is enough: the file never reaches the server.
    seekclaw(dir.path(), &home, &["sessions", "list", "--all"]);
    let file = dir.path().join("openseek_session-demo.jsonl");
    let lines = [
        json!({"version": 1, "id": "demo", "system_prompt": "You are OpenSeek"}),
        json!({"sequence": 1, "ts": 1752000000000u64, "item": {"kind": "user", "payload": {"content": PROMPT}}}),
        json!({"sequence": 2, "ts": 1752000004000u64, "item": {"kind": "assistant", "payload": {"content": "", "tool_calls": [{"id": "call_1", "name": "read", "arguments": "{\"path\":\"a.mbt\"}"}], "reasoning_content": "hmm"}}}),
        json!({"sequence": 3, "ts": 1752000004100u64, "item": {"kind": "tool_result", "payload": {"tool_call_id": "call_1", "tool_name": "read", "content": FILE, "is_error": false, "brief": "read a.mbt"}}}),
        json!({"sequence": 4, "ts": 1752000005000u64, "item": {"kind": "terminal", "payload": {"kind": "interrupted", "message": "stopped"}}}),
        json!({"sequence": 5, "ts": 1752000006000u64, "item": {"kind": "summary", "payload": {"content": "we read a.mbt", "from_sequence": 1, "to_sequence": 4}}}),
        json!({"sequence": 6, "ts": 1752000007000u64, "item": {"kind": "runtime_notice", "payload": {"content": "goal: keep going"}}}),
        json!({"sequence": 7, "ts": 1752000008000u64, "item": {"kind": "terminal", "payload": {"kind": "failed", "message": "provider down"}}}),
        json!({"sequence": 8, "ts": 1752000009000u64, "item": {"kind": "terminal", "payload": {"kind": "aborted", "message": "cancelled"}}}),
        json!({"sequence": 9, "ts": 1752000010000u64, "item": {"kind": "terminal", "payload": {"kind": "finished", "message": "done"}}}),
    ];
    let mut text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    text.push_str("{not json\n");
    std::fs::write(&file, text).unwrap();

    let (_inspect, url) = inspect(&home);
    let browser = Browser::start(&dir.path().join("webdriver-profile"));
    browser.goto(&url);
    browser.wait_for(
        "return document.querySelector('#sessions .empty') !== null",
        Duration::from_secs(20),
    );
    browser.send_keys("#file", file.to_str().unwrap());
    browser.wait_for(
        "return document.getElementById('title').textContent.startsWith('File: ')",
        Duration::from_secs(10),
    );
    let count =
        |css: &str| browser.eval(&format!("return document.querySelectorAll('{css}').length"));
    assert_eq!(
        count("#view .event"),
        json!(10),
        "9 events and the bad line"
    );
    assert_eq!(
        count("#view section.turn"),
        json!(5),
        "four terminals, then the bad line"
    );
    for css in [
        ".k-summary",
        ".k-runtime",
        ".k-terminal.interrupted",
        ".k-terminal.failed",
        ".k-terminal.aborted",
        ".k-terminal.finished",
        ".k-error",
    ] {
        assert_eq!(count(&format!("#view {css}")), json!(1), "{css}");
    }
    let shown = browser.eval("return document.getElementById('view').textContent");
    let shown = shown.as_str().unwrap();
    assert!(shown.contains("Summary of events #1–#4"), "{shown}");
    assert!(
        shown.contains("<img src=x onerror="),
        "the probe as text: {shown}"
    );
    assert_eq!(count("#view img"), json!(0), "no element from content");
    assert_eq!(
        browser.eval("return document.title"),
        json!("seekclaw inspect")
    );
    browser.screenshot(&shots_dir().join("dropped-file.png"));
}
