//! The near-miss edit corpus (crates/testkit/corpus) through the real binary:
//! `seekclaw run` in a fresh workspace per case, the testkit provider making
//! the model's slightly-off call. Every recoverable case lands exactly the
//! intended bytes and the result names the normalization; every ambiguous,
//! elided or stale case is refused with the files untouched.

use seekclaw_testkit::ProviderServer;
use seekclaw_testkit::edit_corpus::{self, EditTool, Verdict};

use crate::support::bin;

/// Runs every case that has a form for `tool`; returns how many ran.
fn corpus_through(tool: EditTool) -> usize {
    let cases = edit_corpus::load().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let server = ProviderServer::start().unwrap();
    let home = edit_corpus::home(&server, dir.path(), tool).unwrap();
    let mut wrong = Vec::new();
    let mut ran = 0;
    for case in &cases {
        let Some(outcome) =
            edit_corpus::run(bin(), &home, &server, dir.path(), case, tool).unwrap()
        else {
            continue;
        };
        ran += 1;
        let verdict = edit_corpus::judge(case, &outcome);
        let expected = if case.after.is_some() {
            Verdict::Applied
        } else {
            Verdict::RefusedRightly
        };
        if verdict != expected {
            wrong.push(format!(
                "{} ({}): {verdict:?}\n  result: {}\n  files: {:?}",
                case.name, case.class, outcome.result, outcome.files
            ));
            continue;
        }
        let said: Vec<String> = match tool {
            EditTool::Replace => case
                .normalization
                .iter()
                .map(|n| format!("normalizing {n}"))
                .collect(),
            EditTool::Patch => case.patch_normalizations.clone(),
        };
        for how in said {
            if verdict == Verdict::Applied && !outcome.result.contains(&how) {
                wrong.push(format!(
                    "{}: applied, but the result does not say {how:?}: {}",
                    case.name, outcome.result
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {ran} cases went wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    ran
}

#[test]
fn every_near_miss_through_edit_file_lands_what_was_meant_or_nothing() {
    let ran = corpus_through(EditTool::Replace);
    assert!(ran >= 100, "only {ran} cases have an edit_file form");
}

#[test]
fn every_near_miss_through_apply_patch_lands_what_was_meant_or_nothing() {
    let ran = corpus_through(EditTool::Patch);
    assert!(ran >= 150, "only {ran} cases have an apply_patch form");
}
