//! `seekclaw serve`: the OpenSeek stream over stdin/stdout.

mod stream;
