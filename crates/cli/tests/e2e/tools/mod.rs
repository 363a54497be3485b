//! The tools, driven through the real binary: the edit corpus through
//! `edit_file`, `web_search` against a local fake engine (never the internet)
//! and `capture_screen` on an Xvfb display.

mod capture_screen;
mod edit_corpus;
mod web_search;
