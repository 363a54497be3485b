//! The skills section of the system prompt: small skills inline, the rest
//! as a list of files the model opens on demand.

use std::path::PathBuf;

use crate::catalog::by_name;
use crate::skill::Skill;

/// A skill whose trimmed text is longer than this (in chars) is never
/// inlined: one large skill would crowd out everything else in the prompt.
pub const MAX_INLINE_SKILL_CHARS: usize = 4_000;

/// Total chars of inlined skill text; skills that would push the total past
/// this are listed instead, keeping the prompt's size bounded.
pub const MAX_INLINE_TOTAL_CHARS: usize = 16_000;

const HEADER: &str = "# Skills\n\
Instructions for specific kinds of work. Apply a skill when the task calls for it.";

const LIST_HEADER: &str = "## More skills\n\
These skills are not shown in full. When a task matches one, open its file with read_file before starting, then follow it.";

/// Which skills go inline and which are listed.
struct Plan<'a> {
    inline: Vec<&'a Skill>,
    listed: Vec<&'a Skill>,
}

/// Decides in name order, so the prompt's bytes do not depend on the order
/// of `skills`. Skills without text and description are left out.
fn plan<'a>(skills: &[&'a Skill]) -> Plan<'a> {
    let mut sorted = skills.to_vec();
    sorted.sort_by(|a, b| by_name(&a.name, &b.name));
    let mut plan = Plan {
        inline: Vec::new(),
        listed: Vec::new(),
    };
    let mut total = 0;
    for skill in sorted {
        let text = skill.text.trim();
        if text.is_empty() {
            if !skill.description.trim().is_empty() {
                plan.listed.push(skill);
            }
            continue;
        }
        let chars = text.chars().count();
        if chars <= MAX_INLINE_SKILL_CHARS && total + chars <= MAX_INLINE_TOTAL_CHARS {
            total += chars;
            plan.inline.push(skill);
        } else {
            plan.listed.push(skill);
        }
    }
    plan
}

/// The skills section for the system prompt, or `None` when no skill has
/// anything to show. Pass enabled skills only (see [`crate::enabled`]).
pub fn prompt_section(skills: &[&Skill]) -> Option<String> {
    let plan = plan(skills);
    if plan.inline.is_empty() && plan.listed.is_empty() {
        return None;
    }
    let mut parts = vec![HEADER.to_string()];
    for skill in &plan.inline {
        parts.push(format!("## {}\n{}", skill.name, skill.text.trim()));
    }
    if !plan.listed.is_empty() {
        let mut list = LIST_HEADER.to_string();
        for skill in &plan.listed {
            let description = one_line(&skill.description);
            let description = if description.is_empty() {
                "(no description)"
            } else {
                &description
            };
            list.push_str(&format!(
                "\n- {} — {} — {}",
                skill.name,
                description,
                skill.prompt_path.display()
            ));
        }
        parts.push(list);
    }
    Some(parts.join("\n\n"))
}

/// Prompt files of the skills [`prompt_section`] lists rather than inlines:
/// the model is told to read them, so read_file must allow these paths even
/// outside the workspace.
pub fn listed_paths(skills: &[&Skill]) -> Vec<PathBuf> {
    plan(skills)
        .listed
        .into_iter()
        .map(|s| s.prompt_path.clone())
        .collect()
}

/// A list item must stay on one line.
fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
#[path = "prompt_tests.rs"]
mod tests;
