//! The tools, driven through the real binary: the near-miss edit corpus
//! through `edit_file` and `apply_patch`, the language servers an edit's
//! diagnostics come from (`diagnostics`, through `seekclaw run`), `web_search`
//! against a local fake engine (never the internet) and `capture_screen` on an
//! Xvfb display.

mod apply_patch;
mod capture_screen;
mod diagnostics;
mod edit_corpus;
mod web_search;
