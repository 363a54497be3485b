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
