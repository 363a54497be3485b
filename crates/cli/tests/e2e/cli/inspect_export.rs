//! `seekclaw inspect --export` of a long session: the file grows with the
//! session (not with its square), its model views are the served ones, and
//! the page opens a long session at its end; the usage view's per-turn
//! table sums what its header shows.

use std::time::Duration;

use seekclaw_testkit::{ProviderServer, Reply};
use serde_json::{Value, json};

use super::inspect::{inspect, seekclaw, shots_dir};
use crate::support::project_dir;
use crate::support::webdriver::Browser;

/// Steps of the session: file reads, then the answer.
const STEPS: usize = 30;

#[test]
fn a_long_session_exports_in_linear_size_and_opens_at_its_end() {
    if seekclaw_testkit::capability_missing(
        "chromium",
        seekclaw_testkit::program_missing("chromedriver"),
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let server = ProviderServer::start().unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let config = json!({"providers": [{"id": "tk", "kind": "openai", "baseUrl": server.base_url(),
        "models": [{"id": "m1"}]}]});
    std::fs::write(home.join("config.json"), config.to_string()).unwrap();
    let ws = project_dir(dir.path(), "ws");
    for i in 0..STEPS - 1 {
        let text = format!("notes {i}: ") + &"the loader validates every field. ".repeat(45);
        std::fs::write(ws.join(format!("notes_{i}.txt")), text).unwrap();
        server.enqueue(
            Reply::new()
                .tool_call(
                    format!("call_{i}"),
                    "read_file",
                    format!(r#"{{"path":"notes_{i}.txt"}}"#),
                )
                .usage(100, 0, 10),
        );
    }
    server.enqueue(Reply::plain("All notes read.").usage(100, 0, 10));
    let ws_arg = ws.to_str().unwrap();
    seekclaw(
        &ws,
        &home,
        &["run", "read every note", "--workspace", ws_arg],
    );
    let listed: Value = serde_json::from_str(&seekclaw(
        &ws,
        &home,
        &["sessions", "list", "--json", "--workspace", ws_arg],
    ))
    .unwrap();
    let id = listed[0]["id"].as_str().unwrap().to_string();

    // The baked data against the session file of the same log: a small
    // multiple (each step's whole model view baked, as before, was ~15x).
    let file = dir.path().join("session.jsonl");
    let page = dir.path().join("export.html");
    let (file_arg, page_arg) = (file.to_str().unwrap(), page.to_str().unwrap());
    seekclaw(
        &ws,
        &home,
        &["sessions", "export", &id, "--output", file_arg],
    );
    seekclaw(
        &ws,
        &home,
        &["inspect", "--export", page_arg, "--session", &id],
    );
    let log_bytes = std::fs::metadata(&file).unwrap().len() as usize;
    let html = std::fs::read_to_string(&page).unwrap();
    let start = html.find(r#"id="seekclaw-data">"#).unwrap();
    let blob = &html[start..html[start..].find("</script>").unwrap() + start];
    assert!(
        blob.len() < 3 * log_bytes,
        "export data {} bytes for a {log_bytes}-byte log",
        blob.len()
    );

    let browser = Browser::start(&dir.path().join("webdriver-profile"));
    let messages = "return [...document.querySelectorAll('#view .msg')].map((m) => m.textContent)";
    // The export: opened at its end; the model view at the last step.
    browser.goto(&format!("file://{}", page.display()));
    browser.wait_for(
        "return document.querySelectorAll('#view .event').length > 60",
        Duration::from_secs(20),
    );
    let at_end = "const v = document.getElementById('view'); \
                  return v.scrollTop > 0 && v.scrollTop + v.clientHeight >= v.scrollHeight - 2";
    assert_eq!(
        browser.eval(at_end),
        json!(true),
        "the export opens at its end"
    );
    browser.screenshot(&shots_dir().join("export-long.png"));
    browser.goto(&format!("file://{}?view=model", page.display()));
    browser.wait_for(
        "return document.querySelectorAll('#view .msg').length > 50",
        Duration::from_secs(20),
    );
    let baked = browser.eval(messages);

    // The served page: the same end, the same model view.
    let (_inspect, url) = inspect(&home);
    browser.goto(&format!("{url}&session={id}&tail=0"));
    browser.wait_for(
        "return document.querySelectorAll('#view .event').length > 60",
        Duration::from_secs(20),
    );
    assert_eq!(
        browser.eval(at_end),
        json!(true),
        "the page opens at the end"
    );
    browser.goto(&format!("{url}&session={id}&tail=0&view=model"));
    browser.wait_for(
        "return document.querySelectorAll('#view .msg').length > 50",
        Duration::from_secs(20),
    );
    assert_eq!(browser.eval(messages), baked);

    // The per-turn table sums what the header shows.
    browser.goto(&format!("{url}&session={id}&tail=0&view=usage"));
    browser.wait_for(
        "return document.getElementById('usage-turns') !== null",
        Duration::from_secs(20),
    );
    let header = browser.eval(
        "return [...document.querySelectorAll('#view table.totals:not(#usage-turns) td')].map((c) => c.textContent)",
    );
    let input = (100 * STEPS).to_string();
    let input = format!("{},{}", &input[..1], &input[1..]);
    assert_eq!(header[3], json!(input), "{header}");
    let cells = browser.eval(
        "return [...document.querySelectorAll('#usage-turns tr:nth-child(2) td')].map((c) => c.textContent)",
    );
    assert_eq!(
        cells,
        json!([
            "1",
            STEPS.to_string(),
            input,
            "0",
            (10 * STEPS).to_string(),
            "0",
            "$0.0000"
        ])
    );
}
