//! Embeds the client: connects to a running daemon, lists what it serves and
//! the sessions of the global scope, then runs one turn and prints its events
//! as they stream.
//!
//! ```sh
//! seekclaw daemon &                     # or an on-demand daemon
//! cargo run -p seekclaw-client --example embed -- "Say hello"
//! ```
//!
//! The socket is `$SEEKCLAW_HOME/daemon.sock` (default `~/.seekclaw`).

use std::path::PathBuf;
use std::process::ExitCode;

use seekclaw_client::{Client, ClientError};
use seekclaw_protocol::api::{ChatParams, NoParams, SessionListParams};
use seekclaw_protocol::events::ToolStartDetails;
use seekclaw_protocol::{event, method};

fn socket() -> PathBuf {
    let home = std::env::var_os("SEEKCLAW_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".seekclaw")))
        .unwrap_or_else(|| PathBuf::from(".seekclaw"));
    home.join("daemon.sock")
}

fn run(message: String) -> Result<(), ClientError> {
    let mut client = Client::connect(socket())?;

    let info = client.call::<method::ProtocolInfo>(&NoParams {})?;
    println!(
        "protocol {} ({} methods, {} capabilities)",
        info.version,
        info.methods.len(),
        info.capabilities.len()
    );
    let global = SessionListParams {
        global: Some(true),
        ..Default::default()
    };
    for s in client.call::<method::SessionList>(&global)? {
        println!("session {} {}", s.id, s.title.unwrap_or_default());
    }

    let chat = ChatParams {
        message: Some(message),
        global: Some(true),
        ..Default::default()
    };
    let mut turn = client.stream::<method::Chat>(&chat)?;
    for env in turn.by_ref() {
        let env = env?;
        match env.event.as_str() {
            event::DELTA => print!("{}", env.data),
            event::TOOL_START => {
                let summary = env.details_as::<ToolStartDetails>().map(|d| d.summary);
                println!("\n[tool {} {}]", env.data, summary.unwrap_or_default());
            }
            event::TOOL_DONE => println!("[tool done: {}]", env.data),
            other if !event::is_terminal(other) => eprintln!("[{other}] {}", env.data),
            _ => {}
        }
    }
    let end = turn.finish()?;
    println!("\n[{:?}]", end.outcome);
    Ok(())
}

fn main() -> ExitCode {
    let message = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "Say hello".into());
    match run(message) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // A daemon's error names its class (`details.code`) as well.
            match e.code() {
                Some(code) => eprintln!("error ({}): {e}", code.as_str()),
                None => eprintln!("error: {e}"),
            }
            ExitCode::FAILURE
        }
    }
}
