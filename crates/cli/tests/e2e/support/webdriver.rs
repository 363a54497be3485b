//! A tiny WebDriver client: `chromedriver` driving Debian's headless
//! Chromium over plain HTTP/1.1 (no client crate), for pages that must be
//! watched while they change (the inspector's live tail).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// A running chromedriver with one browser session; both end on drop.
pub(crate) struct Browser {
    driver: Child,
    port: u16,
    session: String,
}

impl Browser {
    /// Starts chromedriver (its own process group) and a headless session.
    pub(crate) fn start(profile: &Path) -> Browser {
        use std::os::unix::process::CommandExt;
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let driver = Command::new("chromedriver")
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .unwrap();
        let mut browser = Browser {
            driver,
            port,
            session: String::new(),
        };
        let deadline = Instant::now() + Duration::from_secs(20);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "chromedriver did not listen");
            std::thread::sleep(Duration::from_millis(50));
        }
        let caps = json!({"capabilities": {"alwaysMatch": {"goog:chromeOptions": {
            "binary": "/usr/bin/chromium", "args": seekclaw_testkit::chromium_args(profile)}}}});
        let created = browser.call("POST", "/session", Some(&caps));
        browser.session = created["sessionId"].as_str().unwrap().to_string();
        browser
    }

    /// One WebDriver command; its `value`.
    fn call(&self, method: &str, path: &str, body: Option<&Value>) -> Value {
        let mut s = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        let body = body.map(Value::to_string).unwrap_or_default();
        write!(
            s,
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            self.port,
            body.len()
        )
        .unwrap();
        let mut r = BufReader::new(s);
        let (mut chunked, mut length) = (false, None);
        loop {
            let mut line = String::new();
            r.read_line(&mut line).unwrap();
            let l = line.trim().to_ascii_lowercase();
            if l.is_empty() {
                break;
            }
            chunked |= l == "transfer-encoding: chunked";
            if let Some(n) = l.strip_prefix("content-length:") {
                length = n.trim().parse::<usize>().ok();
            }
        }
        let mut raw = Vec::new();
        if chunked {
            loop {
                let mut size = String::new();
                r.read_line(&mut size).unwrap();
                let n = usize::from_str_radix(size.trim(), 16).unwrap();
                if n == 0 {
                    break;
                }
                let mut chunk = vec![0; n + 2];
                r.read_exact(&mut chunk).unwrap();
                raw.extend_from_slice(&chunk[..n]);
            }
        } else if let Some(n) = length {
            raw.resize(n, 0);
            r.read_exact(&mut raw).unwrap();
        } else {
            r.read_to_end(&mut raw).unwrap();
        }
        let v: Value = serde_json::from_slice(&raw).unwrap();
        assert!(
            v["value"]["error"].is_null(),
            "webdriver {method} {path}: {v}"
        );
        v["value"].clone()
    }

    fn at(&self, what: &str) -> String {
        format!("/session/{}/{what}", self.session)
    }

    /// Loads `url`.
    pub(crate) fn goto(&self, url: &str) {
        self.call("POST", &self.at("url"), Some(&json!({"url": url})));
    }

    /// Runs `script` (a function body) in the page; what it returns.
    pub(crate) fn eval(&self, script: &str) -> Value {
        self.call(
            "POST",
            &self.at("execute/sync"),
            Some(&json!({"script": script, "args": []})),
        )
    }

    /// Polls `script` until it returns true; how long that took.
    pub(crate) fn wait_for(&self, script: &str, limit: Duration) -> Duration {
        let start = Instant::now();
        while self.eval(script) != json!(true) {
            assert!(start.elapsed() < limit, "timed out waiting for: {script}");
            std::thread::sleep(Duration::from_millis(10));
        }
        start.elapsed()
    }

    /// Types `text` into the element `css` picks (for a file input: the
    /// path of the file to choose).
    pub(crate) fn send_keys(&self, css: &str, text: &str) {
        let found = self.call(
            "POST",
            &self.at("element"),
            Some(&json!({"using": "css selector", "value": css})),
        );
        let id = found["element-6066-11e4-a52e-4f735466cecf"]
            .as_str()
            .unwrap_or_else(|| panic!("no element {css}: {found}"));
        self.call(
            "POST",
            &self.at(&format!("element/{id}/value")),
            Some(&json!({"text": text})),
        );
    }

    /// A PNG of the viewport, written to `path`.
    pub(crate) fn screenshot(&self, path: &Path) {
        use base64::Engine as _;
        let png = self.call("GET", &self.at("screenshot"), None);
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(png.as_str().unwrap())
            .unwrap();
        std::fs::write(path, bytes).unwrap();
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        // Closes the browser; never panics (this may run while unwinding).
        if let Ok(mut s) = TcpStream::connect(("127.0.0.1", self.port)) {
            let _ = s.set_read_timeout(Some(Duration::from_secs(10)));
            let _ = write!(
                s,
                "DELETE /session/{} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\n\r\n",
                self.session, self.port
            );
            let _ = s.read_to_end(&mut Vec::new());
        }
        // SAFETY: a signal to the process group this test started.
        unsafe { libc::kill(-(self.driver.id() as i32), libc::SIGKILL) };
        let _ = self.driver.wait();
    }
}
