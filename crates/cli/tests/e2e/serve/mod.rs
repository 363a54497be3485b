//! `seekclaw serve`: the OpenSeek stream over stdin/stdout.

mod hooks;
mod rewind;
mod stream;
