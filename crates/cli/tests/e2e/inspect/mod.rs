//! `seekclaw inspect` and what issue 39 added to it: hook rows in a
//! session's timeline and in its live tail (the page's other tests are in
//! `cli/inspect*.rs`).

mod hooks;
