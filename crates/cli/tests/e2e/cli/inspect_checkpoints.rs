//! The inspector marks a session's checkpoints on its timeline (issue 38):
//! a real `seekclaw run` turn edits a file, the page (headless Chromium)
//! shows a marker on the event the checkpoint stands at, and opening it
//! shows the unified diff, read-only from `checkpoints.db`.

use std::time::Duration;

use seekclaw_testkit::{ProviderServer, Reply};
use serde_json::{Value, json};

use super::inspect::{inspect, seekclaw, shots_dir};
use crate::support::project_dir;
use crate::support::webdriver::Browser;

#[test]
fn checkpoints_are_marked_on_the_timeline_and_open_to_their_diffs() {
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
    std::fs::write(ws.join("notes.txt"), "original\n").unwrap();
    server.enqueue(Reply::new().tool_call(
        "c1",
        "write_file",
        json!({"path": "notes.txt", "content": "checkpointed <b>text</b>\n"}).to_string(),
    ));
    server.enqueue(Reply::plain("Written."));
    let ws_arg = ws.to_str().unwrap();
    seekclaw(
        &ws,
        &home,
        &["run", "write the notes", "--workspace", ws_arg],
    );
    let listed: Value = serde_json::from_str(&seekclaw(
        &ws,
        &home,
        &["sessions", "list", "--json", "--workspace", ws_arg],
    ))
    .unwrap();
    let id = listed[0]["id"].as_str().unwrap().to_string();
    assert!(home.join("checkpoints.db").exists());

    let (_inspect, url) = inspect(&home);
    let browser = Browser::start(&dir.path().join("webdriver-profile"));
    browser.goto(&format!("{url}&session={id}&tail=0"));
    browser.wait_for(
        "return [...document.querySelectorAll('#view .event .checkpoint summary')]\
         .some((s) => s.textContent.includes('step'))",
        Duration::from_secs(20),
    );
    let marks = browser.eval(
        "return [...document.querySelectorAll('#view .event .checkpoint summary')]\
         .map((s) => s.textContent)",
    );
    let step = marks
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .find(|m| m.contains("step"))
        .unwrap()
        .to_string();
    assert_eq!(step, "◆ checkpoint · step · 1 file +1 −1", "{marks}");
    // The marker stands on a tool result's row (the step that wrote).
    let on = browser.eval(
        "const m = [...document.querySelectorAll('#view .event .checkpoint')]\
         .find((d) => d.textContent.includes('step')); \
         return m.closest('.event').querySelector('.kind').textContent",
    );
    assert_eq!(on, json!("tool_result"));

    // Opening it fetches the diff; the file's text stays text.
    browser.eval(
        "const m = [...document.querySelectorAll('#view .event .checkpoint')]\
         .find((d) => d.textContent.includes('step')); m.open = true; return 0",
    );
    browser.wait_for(
        "return !!document.querySelector('#view .checkpoint .diff')",
        Duration::from_secs(10),
    );
    let shown =
        browser.eval("return document.querySelector('#view .checkpoint[open]').textContent");
    let shown = shown.as_str().unwrap();
    assert!(shown.contains("modified notes.txt +1 −1"), "{shown}");
    assert!(shown.contains("-original"), "{shown}");
    assert!(shown.contains("+checkpointed <b>text</b>"), "{shown}");
    assert_eq!(
        browser.eval("return document.querySelectorAll('#view .checkpoint b').length"),
        json!(0),
        "diff text is never markup"
    );
    browser.screenshot(&shots_dir().join("checkpoints.png"));

    // A later turn's checkpoint is marked live, without a reload.
    let (_again, url) = inspect(&home);
    browser.goto(&format!("{url}&session={id}"));
    let steps = "return [...document.querySelectorAll('#view .event .checkpoint summary')]\
         .filter((s) => s.textContent.includes('step')).length";
    browser.wait_for(
        &format!("{steps} === 1 && document.getElementById('live').textContent.includes('live')"),
        Duration::from_secs(20),
    );
    server.enqueue(Reply::new().tool_call(
        "c2",
        "write_file",
        json!({"path": "more.txt", "content": "one\ntwo\n"}).to_string(),
    ));
    server.enqueue(Reply::plain("More."));
    seekclaw(&ws, &home, &["run", "write more", "--session", &id]);
    browser.wait_for(&format!("{steps} === 2"), Duration::from_secs(10));
    let marks = browser.eval(
        "return [...document.querySelectorAll('#view .event .checkpoint summary')]\
         .map((s) => s.textContent).join('\\n')",
    );
    assert!(
        marks
            .as_str()
            .unwrap()
            .contains("◆ checkpoint · step · 1 file +2 −0"),
        "{marks}"
    );
}
