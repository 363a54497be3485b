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
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::skill::SkillScope;

    fn skill(name: &str, description: &str, text: &str) -> Skill {
        let directory = PathBuf::from(format!("/skills/{name}"));
        Skill {
            name: name.to_string(),
            description: description.to_string(),
            version: None,
            prompt_path: directory.join("SKILL.md"),
            directory,
            scope: SkillScope::Global,
            text: text.to_string(),
            error: None,
        }
    }

    #[test]
    fn no_skills_no_section() {
        assert_eq!(prompt_section(&[]), None);
        let empty = skill("empty", "  ", "  \n");
        assert_eq!(prompt_section(&[&empty]), None);
        assert!(listed_paths(&[&empty]).is_empty());
    }

    #[test]
    fn small_skills_are_inlined_in_name_order() {
        let b = skill("beta", "", "\n  Beta text.  \n");
        let a = skill("Alpha", "ignored when inline", "Alpha text.");
        let section = prompt_section(&[&b, &a]).unwrap();
        assert_eq!(
            section,
            "# Skills\n\
         Instructions for specific kinds of work. Apply a skill when the task calls for it.\n\
         \n\
         ## Alpha\n\
         Alpha text.\n\
         \n\
         ## beta\n\
         Beta text."
        );
        assert!(listed_paths(&[&b, &a]).is_empty());
    }

    #[test]
    fn big_skill_and_textless_skill_with_description_are_listed() {
        let big = skill(
            "big",
            "A big\n one",
            &"x".repeat(MAX_INLINE_SKILL_CHARS + 1),
        );
        let small = skill("small", "", "Small.");
        let bare = skill("bare", "", "");
        let described = skill("described", "", "");
        let described = Skill {
            description: "Has a description".to_string(),
            ..described
        };
        let skills = [&big, &small, &bare, &described];
        let section = prompt_section(&skills).unwrap();
        assert_eq!(
            section,
            "# Skills\n\
         Instructions for specific kinds of work. Apply a skill when the task calls for it.\n\
         \n\
         ## small\n\
         Small.\n\
         \n\
         ## More skills\n\
         These skills are not shown in full. When a task matches one, open its file with read_file before starting, then follow it.\n\
         - big — A big one — /skills/big/SKILL.md\n\
         - described — Has a description — /skills/described/SKILL.md"
        );
        assert_eq!(
            listed_paths(&skills),
            [
                PathBuf::from("/skills/big/SKILL.md"),
                PathBuf::from("/skills/described/SKILL.md")
            ]
        );
    }

    #[test]
    fn exactly_at_the_per_skill_limit_is_inlined() {
        let text = "é".repeat(MAX_INLINE_SKILL_CHARS); // chars, not bytes
        let s = skill("edge", "", &text);
        assert!(listed_paths(&[&s]).is_empty());
        assert!(prompt_section(&[&s]).unwrap().contains(&text));
    }

    #[test]
    fn budget_overflow_goes_to_the_list() {
        let text = "y".repeat(MAX_INLINE_SKILL_CHARS);
        let names = ["a", "b", "c", "d", "e"];
        let skills: Vec<Skill> = names.iter().map(|n| skill(n, "", &text)).collect();
        let tiny = skill("f", "", "fits");
        let mut refs: Vec<&Skill> = skills.iter().rev().collect();
        refs.push(&tiny);
        // 4 × 4,000 = 16,000 fills the budget exactly, so "e" and even the tiny
        // "f" are listed.
        let section = prompt_section(&refs).unwrap();
        for name in ["a", "b", "c", "d"] {
            assert!(section.contains(&format!("## {name}\n")), "{name} inline");
        }
        assert!(section.contains("- e — (no description) — /skills/e/SKILL.md"));
        assert!(section.contains("- f — (no description) — /skills/f/SKILL.md"));
        assert_eq!(
            listed_paths(&refs),
            [
                PathBuf::from("/skills/e/SKILL.md"),
                PathBuf::from("/skills/f/SKILL.md")
            ]
        );
    }

    #[test]
    fn a_listed_skill_does_not_use_up_the_budget() {
        let huge = skill("a-huge", "", &"z".repeat(MAX_INLINE_TOTAL_CHARS));
        let fits = skill("b-fits", "", &"w".repeat(MAX_INLINE_SKILL_CHARS));
        let section = prompt_section(&[&huge, &fits]).unwrap();
        assert!(section.contains("## b-fits\n"));
        assert_eq!(
            listed_paths(&[&huge, &fits]),
            [PathBuf::from("/skills/a-huge/SKILL.md")]
        );
        // Only the list part when nothing is small enough.
        let section = prompt_section(&[&huge]).unwrap();
        assert!(section.contains("## More skills\n"));
        assert!(!section.contains("## a-huge"));
    }
}
