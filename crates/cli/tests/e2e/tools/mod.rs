//! The tools that reach past the workspace, driven through the daemon:
//! `web_search` against a local fake engine (never the internet) and
//! `capture_screen` on an Xvfb display; and the language servers an edit's
//! diagnostics come from (`diagnostics`, through `seekclaw run`).

mod capture_screen;
mod diagnostics;
mod web_search;
