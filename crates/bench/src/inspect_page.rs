//! The inspector's page in headless Chromium (Debian's `chromium` driven by
//! `chromedriver` over WebDriver): the time from navigation start to the
//! session's log drawn, which the page itself records
//! (`<html data-rendered-ms>`, `performance.now()` when it has drawn).

use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};

use crate::http;

/// The load times of one page.
pub struct Loads {
    pub session: String,
    /// Navigation start to drawn, ms.
    pub samples: Vec<f64>,
}

impl Loads {
    fn median(&self) -> f64 {
        crate::stats::median_f64(&self.samples)
    }

    fn max(&self) -> f64 {
        self.samples.iter().copied().fold(0.0, f64::max)
    }

    pub fn to_json(&self) -> Value {
        json!({"session": self.session, "medianMs": self.median(), "maxMs": self.max(),
               "samplesMs": self.samples})
    }

    pub fn print(&self) {
        println!(
            "page interactive, session {}: median {:.0} ms, max {:.0} ms over {} loads (target < 500 ms: {})",
            self.session,
            self.median(),
            self.max(),
            self.samples.len(),
            if self.max() < 500.0 { "met" } else { "MISSED" }
        );
    }
}

/// A chromedriver with one browser; its process group is killed on drop.
struct Driver {
    child: Child,
    port: u16,
    session: String,
}

impl Drop for Driver {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let path = format!("/session/{}", self.session);
            let _ = http::request(self.port, "DELETE", &path, &[], None);
        }
        // SAFETY: the process group this bench created for chromedriver.
        let pgid = self.child.id() as i32;
        if pgid > 1 {
            unsafe { libc::kill(-pgid, libc::SIGKILL) };
        }
        let _ = self.child.wait();
    }
}

impl Driver {
    fn start(profile: &Path) -> Result<Driver> {
        use std::os::unix::process::CommandExt;
        let port = TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
        let child = Command::new("chromedriver")
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .context("spawn chromedriver")?;
        let mut driver = Driver {
            child,
            port,
            session: String::new(),
        };
        let deadline = Instant::now() + Duration::from_secs(20);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            if Instant::now() > deadline {
                bail!("chromedriver did not listen");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let args = seekclaw_testkit::chromium_args(profile);
        let caps = json!({"capabilities": {"alwaysMatch": {"goog:chromeOptions": {
            "binary": "/usr/bin/chromium", "args": args}}}});
        let created = driver.call("POST", "/session", &caps)?;
        driver.session = created["sessionId"]
            .as_str()
            .context("no session id")?
            .to_string();
        Ok(driver)
    }

    fn call(&self, method: &str, path: &str, body: &Value) -> Result<Value> {
        let answer = http::request(self.port, method, path, &[], Some(&body.to_string()))?;
        let v: Value = serde_json::from_slice(&answer.body)?;
        if !v["value"]["error"].is_null() {
            bail!("webdriver {path}: {}", v["value"]);
        }
        Ok(v["value"].clone())
    }

    /// Navigates and waits for the page's own "drawn" mark.
    fn load(&self, url: &str) -> Result<f64> {
        let s = &self.session;
        self.call("POST", &format!("/session/{s}/url"), &json!({"url": url}))?;
        let script = json!({"script": "return document.documentElement.dataset.renderedMs || null", "args": []});
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let v = self.call("POST", &format!("/session/{s}/execute/sync"), &script)?;
            if let Some(ms) = v.as_str().and_then(|t| t.parse::<f64>().ok()) {
                return Ok(ms);
            }
            if Instant::now() > deadline {
                bail!("{url}: the page never drew");
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

/// `loads` timed loads (after one warm-up) of the page opened on each of
/// `sessions`; empty when chromedriver is not installed (said on stderr).
pub fn time_loads(
    url: &str,
    sessions: &[&str],
    loads: usize,
    scratch: &Path,
) -> Result<Vec<Loads>> {
    if Command::new("chromedriver")
        .arg("--version")
        .stdout(Stdio::null())
        .status()
        .is_err()
    {
        eprintln!("chromedriver is not installed: page load not measured");
        return Ok(Vec::new());
    }
    let driver = Driver::start(&scratch.join("chromium-profile"))?;
    let mut out = Vec::new();
    for id in sessions {
        let page = format!("{url}&session={id}&tail=0");
        driver.load(&page)?;
        let samples = (0..loads.max(1))
            .map(|_| driver.load(&page))
            .collect::<Result<Vec<_>>>()?;
        out.push(Loads {
            session: id.to_string(),
            samples,
        });
    }
    Ok(out)
}
