//! `sessions show`, `export` and `compact` take a unique start of a session
//! id (or its end) as `schedule` does; an ambiguous one lists the candidates.

use seekclaw_testkit::{ProviderServer, Reply};

use super::sessions::{fails, home, ok};
use crate::support::project_dir;

#[test]
fn a_unique_part_of_an_id_names_the_session_and_an_ambiguous_one_lists_them() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let home = home(tmp.path(), "home", &server);
    let ws = project_dir(tmp.path(), "proj");
    server.enqueue(Reply::plain("Hello there."));
    ok(&ws, &home, &["run", "say hello", "--global"]);
    let listed: serde_json::Value =
        serde_json::from_str(&ok(&ws, &home, &["sessions", "list", "--global", "--json"])).unwrap();
    let id = listed[0]["id"].as_str().unwrap().to_string();
    let file = tmp.path().join("s.jsonl");
    let f = file.to_str().unwrap();
    ok(
        &ws,
        &home,
        &["sessions", "export", &id, "--global", "-o", f],
    );
    for new in ["alpha-one", "alpha-two", "beta-1"] {
        ok(
            &ws,
            &home,
            &["sessions", "import", f, "--global", "--id", new],
        );
    }
    // A unique start, in the named scope and (none named) in any scope.
    let shown = ok(&ws, &home, &["sessions", "show", "beta", "--global"]);
    assert!(shown.contains("say hello"), "{shown}");
    let shown = ok(&ws, &home, &["sessions", "show", "bet"]);
    assert!(shown.contains("Hello there."), "{shown}");
    // The end of an id (its random tail) works too.
    let exported = ok(&ws, &home, &["sessions", "export", "a-two"]);
    assert!(exported.contains("alpha-two"), "{exported}");
    let tail = &id[id.len() - 6..];
    let shown = ok(&ws, &home, &["sessions", "show", tail]);
    assert!(shown.contains("say hello"), "{shown}");
    // Ambiguous: every candidate, and nothing printed.
    let err = fails(&ws, &home, &["sessions", "show", "alpha", "--global"]);
    assert!(
        err.contains("\"alpha\" matches more than one session; give more of the id:"),
        "{err}"
    );
    assert!(
        err.contains("  alpha-one  (the global scope)")
            && err.contains("  alpha-two  (the global scope)"),
        "{err}"
    );
    let err = fails(&ws, &home, &["sessions", "export", "alpha"]);
    assert!(
        err.contains("alpha-one") && err.contains("alpha-two"),
        "{err}"
    );
    // No match at all.
    let err = fails(&ws, &home, &["sessions", "show", "zzz", "--global"]);
    assert!(
        err.contains(
            "session zzz not found in the global scope: no id there starts or ends with it"
        ),
        "{err}"
    );
    // The full id still wins over a longer id it starts.
    ok(
        &ws,
        &home,
        &["sessions", "import", f, "--global", "--id", "beta-10"],
    );
    let shown = ok(
        &ws,
        &home,
        &["sessions", "show", "beta-1", "--global", "--json"],
    );
    assert!(shown.contains("say hello"), "{shown}");
}
