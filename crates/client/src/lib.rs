//! A typed client of the SeekClaw daemon protocol 2.1.
//!
//! Requests are written with the params types of [`seekclaw_protocol::api`]
//! and answers read as the result type the method table gives each method
//! ([`MethodType::Result`]), so a call names its method once, as a type:
//!
//! ```no_run
//! use seekclaw_client::{Client, ClientError};
//! use seekclaw_protocol::{api, method, event};
//!
//! fn main() -> Result<(), ClientError> {
//!     let home = std::env::var("SEEKCLAW_HOME").unwrap_or_else(|_| "/tmp/seekclaw".into());
//!     let mut client = Client::connect(format!("{home}/daemon.sock"))?;
//!
//!     let info = client.call::<method::ProtocolInfo>(&api::NoParams {})?;
//!     println!("protocol {} with {} methods", info.version, info.methods.len());
//!
//!     let chat = api::ChatParams { message: Some("hello".into()), ..Default::default() };
//!     let mut turn = client.stream::<method::Chat>(&chat)?;
//!     for env in turn.by_ref() {
//!         let env = env?;
//!         if env.event == event::DELTA {
//!             print!("{}", env.data);
//!         }
//!     }
//!     let end = turn.finish()?; // the terminal envelope, read: done or cancelled
//!     println!("\n[{:?}]", end.outcome);
//!     Ok(())
//! }
//! ```
//!
//! What the client does: connect (it never starts a daemon: the CLI and the
//! terminal UI decide that), number requests, write one line each, read
//! envelopes, keep the ones of other requests for later while one request
//! is read to its one terminal envelope, turn an `error` envelope into
//! [`ClientError::Daemon`] with its `details.code`, and reconnect after the
//! daemon restarts. [`Client`] is blocking; `AsyncClient` (feature
//! `tokio`) shares one connection between tasks; the wire without I/O
//! ([`Event`], [`read_result`], [`request_line`]) is public for other
//! runtimes. [`Event::kind`] reads an envelope as an [`EventKind`]: its
//! event matched once, its details as the protocol's types.
//! `upgrade` (feature `tokio`) switches a new connection to another
//! protocol the daemon serves (`connection.upgrade`, for `seekclaw acp`).
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]
#![warn(missing_docs)]

mod blocking;
mod error;
#[cfg(all(unix, feature = "tokio"))]
mod nonblocking;
mod transport;
mod typed;
#[cfg(all(unix, feature = "tokio"))]
mod upgrade;
mod wire;

pub use blocking::{Client, EventStream, LineHook};
pub use error::{ClientError, DaemonError};
#[cfg(all(unix, feature = "tokio"))]
pub use nonblocking::{AsyncClient, EventStream as AsyncEventStream};
pub use seekclaw_protocol::{MethodType, TextWithDetails, TurnEnd, TurnOutcome};
pub use typed::EventKind;
#[cfg(all(unix, feature = "tokio"))]
pub use upgrade::{Upgraded, upgrade};
pub use wire::{Event, RequestIds, method_name, read_result, read_result_as, request_line};

#[cfg(all(test, unix))]
mod blocking_tests;
