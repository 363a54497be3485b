//! `seekclaw serve`: the OpenSeek stream over stdin/stdout.

mod rewind;
mod stream;
