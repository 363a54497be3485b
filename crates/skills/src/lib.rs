//! SeekClaw skills: directories of instructions the agent applies when a
//! task calls for them.
//!
//! - [`load_skill`]: one directory → one [`Skill`] (`skill.yaml`/`skill.yml`,
//!   `SKILL.md` with front matter, or a bare `prompt.txt`).
//! - [`list`]: discovery in the global and workspace roots, workspace
//!   shadowing, name order, enabled state and the wire [`SkillListing`].
//! - [`prompt_section`]: the system-prompt section (small skills inline, the
//!   rest listed by path).
//! - [`import()`]: installing a `.md` or `.zip` into the global root.
#![warn(missing_docs)]
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]

mod archive;
mod catalog;
mod error;
mod import;
mod prompt;
mod skill;

pub use archive::{MAX_ARCHIVE_BYTES, MAX_ARCHIVE_ENTRIES};
pub use catalog::{
    SkillEntry, SkillListing, discover, enabled, list, list_with, plugin_skill, sources,
    workspace_skills_dir,
};
pub use error::ImportError;
pub use import::import;
pub use prompt::{MAX_INLINE_SKILL_CHARS, MAX_INLINE_TOTAL_CHARS, listed_paths, prompt_section};
pub use skill::{Skill, SkillScope, load_skill};
