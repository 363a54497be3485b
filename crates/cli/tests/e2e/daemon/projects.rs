use seekclaw_testkit::StartOptions;
use serde_json::json;

use crate::support::{project_dir, start_with};

#[test]
fn project_registry_upsert_dedupe_list_remove() {
    let tmp = tempfile::tempdir().unwrap();
    let user_home = tmp.path().join("user");
    std::fs::create_dir_all(&user_home).unwrap();
    let p1 = project_dir(tmp.path(), "alpha");
    let p2 = project_dir(tmp.path(), "beta");
    let d = start_with(StartOptions {
        env: vec![("HOME".into(), user_home.display().to_string())],
        ..Default::default()
    });
    let mut c = d.connect().unwrap();
    let a = c
        .ok_json(
            "project.upsert",
            json!({"path": p1.display().to_string(), "id": "p-alpha"}),
        )
        .unwrap();
    assert_eq!(a["id"], "p-alpha");
    assert_eq!(a["name"], "alpha");
    assert_eq!(a["path"], p1.display().to_string());
    let keys: Vec<&String> = a.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["id", "path", "name", "createdAt", "updatedAt"]);
    // Same path with a trailing slash and another id: the existing row keeps its id.
    let again = c
        .ok_json(
            "project.upsert",
            json!({"path": format!("{}/", p1.display()), "id": "other", "name": "Alpha!"}),
        )
        .unwrap();
    assert_eq!(
        (again["id"].as_str(), again["name"].as_str()),
        (Some("p-alpha"), Some("Alpha!"))
    );
    let b = c
        .ok_json("project.upsert", json!({"path": p2.display().to_string()}))
        .unwrap();
    assert!(!b["id"].as_str().unwrap().is_empty());
    let list = c.ok_json("project.list", json!({})).unwrap();
    assert_eq!(list.as_array().unwrap().len(), 2);
    assert_eq!(list[0]["id"], b["id"], "newest first");

    for forbidden in [user_home.clone(), d.home.clone()] {
        let err = c
            .err(
                "project.upsert",
                json!({"path": forbidden.display().to_string()}),
            )
            .unwrap();
        assert_eq!(
            err["data"],
            "The user profile or the SeekClaw state directory cannot be registered as a project."
        );
        assert_eq!(err["details"]["code"], "forbidden");
    }

    // remove with keepSessions keeps them; without, the scope's sessions go.
    let w1 = p1.display().to_string();
    let w2 = p2.display().to_string();
    let s1 = c.ok("session.new", json!({"workspace": w1})).unwrap();
    let s2 = c.ok("session.new", json!({"workspace": w2})).unwrap();
    assert_eq!(
        c.ok(
            "project.remove",
            json!({"id": "p-alpha", "keepSessions": true})
        )
        .unwrap(),
        "p-alpha"
    );
    assert!(
        c.ok_json("session.get", json!({"id": s1, "workspace": w1}))
            .is_ok()
    );
    let bid = b["id"].as_str().unwrap();
    assert_eq!(c.ok("project.remove", json!({"id": bid})).unwrap(), bid);
    assert_eq!(
        c.err("session.get", json!({"id": s2, "workspace": w2}))
            .unwrap()["details"]["code"],
        "not_found"
    );
    assert_eq!(c.ok_json("project.list", json!({})).unwrap(), json!([]));
    assert_eq!(
        c.err("project.remove", json!({"id": "ghost"})).unwrap()["data"],
        "Project not found: ghost"
    );
}
