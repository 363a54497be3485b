use super::*;
use crate::config::Profile;

/// What a caller of [`edit_config`] maps both kinds of failure into.
#[derive(Debug, PartialEq)]
enum Failed {
    File(String),
    Edit(EditError),
}

impl From<ConfigError> for Failed {
    fn from(e: ConfigError) -> Self {
        Failed::File(e.to_string())
    }
}

impl From<EditError> for Failed {
    fn from(e: EditError) -> Self {
        Failed::Edit(e)
    }
}

fn edit(id: &str) -> ProviderEdit {
    ProviderEdit {
        id: id.into(),
        base_url: Some("http://h/v1/".into()),
        models: Some(vec![ModelEntry::Id("m1".into())]),
        ..ProviderEdit::default()
    }
}

fn model(id: &str, context: u64) -> Model {
    Model {
        id: id.into(),
        context_window: context,
        ..Model::default()
    }
}

#[test]
fn upsert_creates_then_updates_keeping_what_is_not_named() {
    let mut config = Config::default();
    let created = upsert_provider(
        &mut config,
        &ProviderEdit {
            api_key: ApiKeyEdit::Set("sk-1".into()),
            proxy: Some("http://proxy".into()),
            priority: Some(3),
            ..edit("Local")
        },
    )
    .unwrap();
    assert_eq!(
        (
            created.id.as_str(),
            created.kind.as_str(),
            created.base_url.as_str()
        ),
        ("Local", "openai", "http://h/v1")
    );
    assert_eq!(config.providers.len(), 1);

    // Case-insensitive id; blank key and blank proxy keep the stored values.
    let updated = upsert_provider(
        &mut config,
        &ProviderEdit {
            id: "local".into(),
            kind: Some(" Anthropic ".into()),
            api_key: ApiKeyEdit::Set("  ".into()),
            proxy: Some(" ".into()),
            model_list_url: Some(Some("http://h/models".into())),
            ..ProviderEdit::default()
        },
    )
    .unwrap();
    assert_eq!(config.providers.len(), 1);
    assert_eq!(updated.id, "Local", "the stored id's spelling stays");
    assert_eq!(updated.kind, "anthropic");
    assert_eq!(updated.api_key.as_deref(), Some("sk-1"));
    assert_eq!(updated.proxy.as_deref(), Some("http://proxy"));
    assert_eq!(updated.priority, 3);
    assert_eq!(updated.model_list_url.as_deref(), Some("http://h/models"));
    assert_eq!(config.providers[0], updated);

    let cleared = upsert_provider(
        &mut config,
        &ProviderEdit {
            id: "local".into(),
            api_key: ApiKeyEdit::Clear,
            model_list_url: Some(Some(String::new())),
            ..ProviderEdit::default()
        },
    )
    .unwrap();
    assert_eq!((cleared.api_key, cleared.model_list_url), (None, None));
}

#[test]
fn a_refused_edit_changes_nothing() {
    let mut config = Config::default();
    upsert_provider(&mut config, &edit("a")).unwrap();
    let before = config.clone();
    let cases = [
        (
            ProviderEdit {
                kind: Some("gemini".into()),
                ..edit("a")
            },
            "kind",
            "Provider kind must be openai or anthropic",
        ),
        (
            ProviderEdit {
                base_url: None,
                ..edit("new")
            },
            "baseUrl",
            "Provider baseUrl is required",
        ),
        (
            ProviderEdit {
                models: None,
                ..edit("new")
            },
            "models",
            "At least one model is required",
        ),
        (
            ProviderEdit {
                models: Some(vec![ModelEntry::Id(" ".into())]),
                ..edit("a")
            },
            "models",
            "At least one model is required",
        ),
        (
            ProviderEdit {
                timeout_seconds: Some(0),
                ..edit("a")
            },
            "timeoutSeconds",
            "params.timeoutSeconds must be between 1 and 3600",
        ),
        (edit("a/b"), "id", "params.id must not contain '/'"),
        (edit(" "), "id", "params.id is required"),
    ];
    for (bad, field, message) in cases {
        assert_eq!(
            upsert_provider(&mut config, &bad),
            Err(EditError::Invalid {
                field,
                message: message.into()
            })
        );
        assert_eq!(config, before);
    }
}

#[test]
fn a_model_list_keeps_stored_settings_for_ids_and_takes_full_entries_as_given() {
    let mut config = Config::default();
    upsert_provider(
        &mut config,
        &ProviderEdit {
            models: Some(vec![
                ModelEntry::Full(Box::new(model("a", 1000))),
                ModelEntry::Full(Box::new(model("b", 2000))),
            ]),
            ..edit("p")
        },
    )
    .unwrap();
    let p = upsert_provider(
        &mut config,
        &ProviderEdit {
            id: "p".into(),
            models: Some(vec![
                ModelEntry::Id(" b ".into()),
                ModelEntry::Full(Box::new(model("a", 5000))),
                ModelEntry::Id("c".into()),
                ModelEntry::Id("b".into()),
                ModelEntry::Full(Box::new(model(" ", 1))),
            ]),
            ..ProviderEdit::default()
        },
    )
    .unwrap();
    let got: Vec<(&str, u64)> = p
        .models
        .iter()
        .map(|m| (m.id.as_str(), m.context_window))
        .collect();
    assert_eq!(
        got,
        [
            ("b", 2000),
            ("a", 5000),
            ("c", Model::default().context_window)
        ]
    );
}

#[test]
fn activate_if_none_names_the_provider_only_when_none_is_named() {
    let mut config = Config::default();
    upsert_provider(&mut config, &edit("a")).unwrap();
    assert_eq!(config.active_profile().unwrap().provider, None);
    let first = ProviderEdit {
        activate_if_none: true,
        ..edit("b")
    };
    upsert_provider(&mut config, &first).unwrap();
    let second = ProviderEdit {
        activate_if_none: true,
        ..edit("c")
    };
    upsert_provider(&mut config, &second).unwrap();
    assert_eq!(
        config.active_profile().unwrap().provider.as_deref(),
        Some("b")
    );
}

#[test]
fn remove_clears_the_profiles_that_named_it() {
    let mut config = Config::default();
    upsert_provider(&mut config, &edit("a")).unwrap();
    upsert_provider(&mut config, &edit("b")).unwrap();
    config.profiles.insert(
        "work".into(),
        Profile {
            provider: Some("A".into()),
            model: Some("m1".into()),
            ..Profile::default()
        },
    );
    config.active_profile_mut().provider = Some("b".into());
    let removed = remove_provider(&mut config, " a ").unwrap();
    assert_eq!(removed.id, "a");
    assert_eq!(config.providers.len(), 1);
    assert_eq!(
        (
            &config.profiles["work"].provider,
            &config.profiles["work"].model
        ),
        (&None, &None)
    );
    assert_eq!(
        config.active_profile().unwrap().provider.as_deref(),
        Some("b")
    );
    assert_eq!(
        remove_provider(&mut config, "a"),
        Err(EditError::ProviderNotFound("a".into()))
    );
    assert_eq!(
        EditError::ProviderNotFound("a".into()).to_string(),
        "Provider not found: a"
    );
}

#[test]
fn keys_stay_out_of_debug_output() {
    let e = ProviderEdit {
        api_key: ApiKeyEdit::Set("sk-secret".into()),
        ..edit("a")
    };
    let text = format!("{e:?}");
    assert!(!text.contains("sk-secret"), "{text}");
    assert!(text.contains("Set(<redacted>)"), "{text}");
}

#[test]
fn concurrent_locked_edits_are_all_kept() {
    let dir = tempfile::tempdir().unwrap();
    let home = Home::at(dir.path().join("h"));
    home.ensure().unwrap();
    let threads: Vec<_> = (0..8)
        .map(|i| {
            let home = home.clone();
            std::thread::spawn(move || {
                for j in 0..5 {
                    edit_config(&home, |c| {
                        Ok::<_, Failed>(upsert_provider(c, &edit(&format!("p{i}-{j}")))?)
                    })
                    .unwrap();
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let loaded = crate::load_json_file::<Config>(&home.config_path()).unwrap();
    assert_eq!(loaded.value.providers.len(), 40);
}

#[test]
fn a_refused_locked_edit_leaves_the_file_alone() {
    let dir = tempfile::tempdir().unwrap();
    let home = Home::at(dir.path().join("h"));
    home.ensure().unwrap();
    let out = edit_config(&home, |c| Ok::<_, Failed>(remove_provider(c, "none")?));
    assert_eq!(
        out.unwrap_err(),
        Failed::Edit(EditError::ProviderNotFound("none".into()))
    );
    assert!(!home.config_path().exists());
    let done = edit_config(&home, |c| Ok::<_, Failed>(upsert_provider(c, &edit("a"))?)).unwrap();
    assert_eq!(done.value.id, "a");
    assert!(done.warnings.is_empty());
}

#[test]
fn an_edit_of_a_config_that_is_not_json_is_refused_and_the_file_stays() {
    let dir = tempfile::tempdir().unwrap();
    let home = Home::at(dir.path().join("h"));
    home.ensure().unwrap();
    std::fs::write(home.config_path(), "{ nope").unwrap();
    let out = edit_config(&home, |c| Ok::<_, Failed>(upsert_provider(c, &edit("a"))?));
    assert!(
        matches!(out, Err(Failed::File(ref e)) if e.contains("config.json: line 1, column")),
        "{out:?}"
    );
    assert_eq!(
        std::fs::read_to_string(home.config_path()).unwrap(),
        "{ nope"
    );
}

#[test]
fn an_edit_keeps_wrongly_typed_fields_and_other_providers_verbatim() {
    let dir = tempfile::tempdir().unwrap();
    let home = Home::at(dir.path().join("h"));
    home.ensure().unwrap();
    std::fs::write(
        home.config_path(),
        r#"{"agent": {"maxSteps": "forty"}, "providers": [{"id": "old", "baseUrl": "http://o", "models": [{"id": "m"}], "note": "mine"}]}"#,
    )
    .unwrap();
    let done = edit_config(&home, |c| Ok::<_, Failed>(upsert_provider(c, &edit("a"))?)).unwrap();
    let paths: Vec<&str> = done.warnings.iter().map(|w| w.path.as_str()).collect();
    assert_eq!(paths, ["agent.maxSteps", "providers[0].note"]);
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(home.config_path()).unwrap()).unwrap();
    assert_eq!(saved["agent"]["maxSteps"], "forty");
    assert_eq!(saved["providers"][0]["note"], "mine");
    assert_eq!(saved["providers"][1]["id"], "a");
}
