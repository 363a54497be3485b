//! The tools that reach past the workspace, driven through the daemon:
//! `web_search` against a local fake engine (never the internet) and
//! `capture_screen` on an Xvfb display.

mod apply_patch;
mod capture_screen;
mod web_search;
