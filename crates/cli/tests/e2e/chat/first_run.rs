//! First run: with no provider, the chat opens on a welcome that adds one in
//! place (a custom OpenAI-compatible URL here, against the testkit server):
//! the key typed hidden, the endpoint's models listed, saved, tested, then
//! the chat, which answers with it.

use seekclaw_testkit::{ProviderServer, Reply, StartOptions};

use crate::support::screen::{Screen, WAIT};

const SECRET: &str = "sk-hidden-key-42";

#[test]
fn the_welcome_adds_a_provider_with_a_hidden_key_then_the_chat_answers() {
    let server = ProviderServer::start().unwrap();
    server.set_models(["tk-one", "tk-two"]);
    server.enqueue(Reply::plain("hello from tk-two"));
    let d = crate::support::start_with(StartOptions::default());
    let screen = Screen::chat(&d.home, &["--global"]);
    let welcome = screen.wait_for("Welcome to seekclaw");
    assert!(
        welcome.contains("No model provider is configured"),
        "{welcome}"
    );
    assert!(welcome.contains("seekclaw provider add"), "{welcome}");

    // The list ends with the custom endpoints; Up wraps to them.
    screen.seen();
    screen.keys(&["Up", "Up"]);
    screen.wait_for("› Custom OpenAI-compatible URL");
    screen.keys(&["Enter"]);
    screen.wait_for("the API's base URL");
    screen.type_text("localhost:1");
    screen.keys(&["Enter"]);
    screen.wait_for("must start with http");
    for _ in 0.."localhost:1".len() {
        screen.keys(&["BSpace"]);
    }
    screen.type_text(&server.base_url());
    screen.keys(&["Enter"]);
    screen.wait_for("the API key (hidden");
    screen.type_text(SECRET);
    let typed = screen.wait_for(&"•".repeat(SECRET.len()));
    assert!(!typed.contains(SECRET), "the key is hidden: {typed}");
    screen.keys(&["Enter"]);
    let models = screen.wait_for("choose a model");
    assert!(
        models.contains("› tk-one") && models.contains("tk-two"),
        "{models}"
    );
    screen.seen();
    screen.keys(&["Down", "Enter"]);
    let chat = screen.wait_for("Ask anything");
    assert!(chat.contains("Added custom: it answered"), "{chat}");
    assert!(!chat.contains(SECRET), "{chat}");

    screen.submit("hello");
    screen.wait_for("hello from tk-two");
    screen.wait_idle();
    let requests = server.wait_requests(1, WAIT).unwrap();
    let chat_request = requests
        .iter()
        .find(|r| r.body["model"].is_string())
        .expect("a chat request");
    assert_eq!(chat_request.body["model"], "tk-two");
    let config = std::fs::read_to_string(d.home.join("config.json")).unwrap();
    assert!(
        config.contains(SECRET) && config.contains("tk-two"),
        "{config}"
    );
    screen.submit("/quit");
    screen.wait_exit();

    // Configured now: the next chat opens straight on the prompt.
    let again = Screen::chat(&d.home, &["--global"]);
    let shown = again.wait_for("Ask anything");
    assert!(!shown.contains("Welcome to seekclaw"), "{shown}");
    again.submit("/quit");
    again.wait_exit();
}

#[test]
fn esc_skips_the_welcome_and_says_how_to_add_a_provider_later() {
    let d = crate::support::start_with(StartOptions::default());
    let screen = Screen::chat(&d.home, &["--global"]);
    screen.wait_for("Welcome to seekclaw");
    screen.seen();
    screen.keys(&["Escape"]);
    let chat = screen.wait_for("Ask anything");
    assert!(chat.contains("No provider yet"), "{chat}");
    screen.submit("/quit");
    screen.wait_exit();
}
