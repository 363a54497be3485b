//! `seekclaw review`: a headless read-only review of `base...HEAD` on a real
//! git repository, against the testkit provider.

mod headless;
mod worktree;
