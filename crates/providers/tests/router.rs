//! The providers router end to end: `Providers::chat` over real HTTP against the
//! testkit's scripted provider server (both wire formats, faults, failover,
//! breaker, cancellation, key hygiene, connection pooling).
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "router/support.rs"]
mod support;

#[path = "router/cancel_secrets.rs"]
mod cancel_secrets;
#[path = "router/failover.rs"]
mod failover;
#[path = "router/pool.rs"]
mod pool;
#[path = "router/retry.rs"]
mod retry;
#[path = "router/stream.rs"]
mod stream;
