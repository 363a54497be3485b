//! The fleet beyond one machine, checked offline (no cluster, no container
//! engine here): the Kubernetes manifests against the Kubernetes schemas
//! (`kubernetes-validate`), the Job's own command line run here against the
//! testkit provider, and the Dockerfile's shape.

use std::path::{Path, PathBuf};
use std::process::Command;

use seekclaw_testkit::{KUBERNETES_VALIDATE, ProviderServer, Reply, capability_missing};
use serde_json::Value;

use crate::support::bin;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .unwrap()
        .to_path_buf()
}

fn manifests() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(repo().join("deploy/k8s"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    files
}

/// `kubernetes-validate` and its venv's Python, or `None` to skip (a
/// failure instead where CI requires it).
fn tools() -> Option<(PathBuf, PathBuf)> {
    let found = seekclaw_testkit::kubernetes_validate();
    if capability_missing(KUBERNETES_VALIDATE, found.as_ref().err().cloned()) {
        return None;
    }
    found.ok()
}

/// Every document of the manifests, as JSON (PyYAML comes with kubernetes-validate).
fn documents(python: &Path) -> Vec<Value> {
    let script = "import json, sys, yaml\n\
                  print(json.dumps([d for f in sys.argv[1:] for d in yaml.safe_load_all(open(f))]))";
    let out = Command::new(python)
        .arg("-c")
        .arg(script)
        .args(manifests())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice::<Vec<Value>>(&out.stdout).unwrap()
}

fn kind<'a>(docs: &'a [Value], kind: &str) -> &'a Value {
    docs.iter()
        .find(|d| d["kind"] == kind)
        .unwrap_or_else(|| panic!("no {kind} in deploy/k8s"))
}

#[test]
fn the_kubernetes_manifests_match_the_kubernetes_schemas() {
    let Some((validate, python)) = tools() else {
        return;
    };
    let files = manifests();
    assert!(files.len() >= 2, "{files:?}");
    let out = Command::new(&validate)
        .arg("--strict")
        .args(&files)
        .output()
        .unwrap();
    let report = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{report}");
    assert_eq!(
        report.matches(" passed for resource ").count(),
        2,
        "{report}"
    );

    // And what the schemas cannot say: an Indexed Job with one completion
    // per task, its tasks and config where the pod reads them.
    let docs = documents(&python);
    let job = kind(&docs, "Job");
    let tasks = kind(&docs, "ConfigMap")["data"]["tasks.txt"]
        .as_str()
        .unwrap()
        .lines()
        .count();
    assert_eq!(job["spec"]["completionMode"], "Indexed");
    assert_eq!(job["spec"]["completions"], tasks, "one completion per task");
    let pod = &job["spec"]["template"]["spec"];
    assert_eq!(pod["securityContext"]["runAsNonRoot"], true);
    let secret = pod["volumes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["secret"].is_object())
        .unwrap();
    assert_eq!(secret["secret"]["items"][0]["key"], "config.json");
}

/// The Job's container command, run here as a pod would (index 1 of the
/// ConfigMap's list, the home and workspace swapped for local folders).
#[test]
fn the_jobs_command_runs_its_indexed_task_here() {
    let Some((_, python)) = tools() else {
        return;
    };
    let docs = documents(&python);
    let job = kind(&docs, "Job");
    let container = &job["spec"]["template"]["spec"]["containers"][0];
    let tmp = tempfile::tempdir().unwrap();
    let (home, ws) = (tmp.path().join("home"), tmp.path().join("repo"));
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(ws.join(".git")).unwrap();
    let tasks_file = tmp.path().join("tasks.txt");
    let tasks = kind(&docs, "ConfigMap")["data"]["tasks.txt"]
        .as_str()
        .unwrap()
        .to_string();
    std::fs::write(&tasks_file, &tasks).unwrap();
    let server = ProviderServer::start().unwrap();
    let config = serde_json::json!({"providers": [{"id": "tk", "kind": "openai", "baseUrl": server.base_url(), "models": [{"id": "m1"}]}]});
    std::fs::write(home.join("config.json"), config.to_string()).unwrap();
    server.enqueue(Reply::plain("task one done"));

    let args: Vec<String> = container["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| match a.as_str().unwrap() {
            "$(JOB_COMPLETION_INDEX)" => "1".to_string(),
            "/tasks/tasks.txt" => tasks_file.display().to_string(),
            "/workspace/repo" => ws.display().to_string(),
            other => other.to_string(),
        })
        .collect();
    assert!(
        args.starts_with(&["run".to_string(), "--json".to_string()]),
        "{args:?}"
    );
    let out = Command::new(bin())
        .args(&args)
        .env("SEEKCLAW_HOME", &home)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{args:?}\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let last: Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    assert_eq!(last["event"], "done", "{stdout}");
    assert_eq!(last["data"], "task one done");
    let second_task = tasks.lines().nth(1).unwrap();
    let sent = &server.requests()[0].raw_body;
    assert!(sent.contains(second_task), "{sent}");
}

/// The Dockerfile as far as it can be checked without building it:
/// multi-stage, the binary alone on a slim base, a non-root user that
/// matches the Job's, the home on a volume.
#[test]
fn the_dockerfile_builds_in_one_stage_and_runs_as_non_root_in_another() {
    let text = std::fs::read_to_string(repo().join("Dockerfile")).unwrap();
    // Instructions, continuation lines joined, comments dropped.
    let joined = text.replace("\\\n", " ");
    let lines: Vec<&str> = joined
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    let stages: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].starts_with("FROM "))
        .collect();
    assert_eq!(stages.len(), 2, "{lines:#?}");
    assert!(
        lines[stages[0]].ends_with(" AS build"),
        "{}",
        lines[stages[0]]
    );
    let build = &lines[stages[0]..stages[1]];
    assert!(
        build
            .iter()
            .any(|l| l.contains("cargo build --release --locked -p seekclaw")),
        "{build:#?}"
    );
    let runtime = &lines[stages[1]..];
    let find = |word: &str| -> Vec<&str> {
        runtime
            .iter()
            .filter_map(|l| l.strip_prefix(word))
            .map(str::trim)
            .collect()
    };
    assert_eq!(
        find("COPY"),
        ["--from=build /usr/local/bin/seekclaw /usr/local/bin/seekclaw"]
    );
    assert_eq!(find("USER"), ["10001:10001"]);
    assert_eq!(find("ENTRYPOINT"), [r#"["seekclaw"]"#]);
    let home = find("ENV")
        .into_iter()
        .find_map(|e| e.strip_prefix("SEEKCLAW_HOME="))
        .expect("ENV SEEKCLAW_HOME");
    let volume = find("VOLUME");
    let volume: Vec<String> = serde_json::from_str(volume[0]).unwrap();
    assert!(
        volume.iter().any(|v| Path::new(home).starts_with(v)),
        "the home {home} is on no volume: {volume:?}"
    );
    // No toolchain in the runtime image.
    assert!(!runtime.iter().any(|l| l.contains("cargo")), "{runtime:#?}");
    // The Job runs as the image's user.
    let job = std::fs::read_to_string(repo().join("deploy/k8s/job.yaml")).unwrap();
    assert!(job.contains("runAsUser: 10001"), "{job}");
    assert!(job.contains("value: /data/home"), "{job}");
    assert_eq!(home, "/data/home");
}
