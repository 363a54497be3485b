//! Tests that need something of the machine (a sandboxing kernel, root, a
//! private tmpfs…) skip where it is missing, saying so; but where CI says the
//! machine has it (`SEEKCLAW_TEST_REQUIRE=sandbox,tmpfs,root`, set by
//! `.ci/run`), a missing capability fails the test instead, so a broken probe
//! or a changed machine cannot turn a test into a silent pass.

use std::path::PathBuf;

/// The environment variable naming, comma-separated, the capabilities the
/// machine is known to have.
pub const REQUIRE_ENV: &str = "SEEKCLAW_TEST_REQUIRE";

/// Whether `SEEKCLAW_TEST_REQUIRE` names `capability`.
pub fn required(capability: &str) -> bool {
    std::env::var(REQUIRE_ENV).is_ok_and(|list| listed(&list, capability))
}

fn listed(list: &str, capability: &str) -> bool {
    list.split(',')
        .map(str::trim)
        .any(|c| c.eq_ignore_ascii_case(capability))
}

/// Whether the test should skip for want of `capability`: `missing` is what
/// the caller's probe found lacking (`None`: it is there). A missing
/// capability prints `SKIPPED: …` and returns `true`, unless
/// `SEEKCLAW_TEST_REQUIRE` names it: then it panics with the reason.
///
/// ```no_run
/// # fn probe() -> Option<String> { None }
/// if seekclaw_testkit::capability_missing("sandbox", probe()) {
///     return;
/// }
/// ```
pub fn capability_missing(capability: &str, missing: Option<String>) -> bool {
    let Some(why) = missing else {
        return false;
    };
    assert!(
        !required(capability),
        "{REQUIRE_ENV} names `{capability}`, but it is missing here: {why}"
    );
    eprintln!("SKIPPED: needs {capability}: {why}");
    true
}

/// Why this process is not root, if it is not (`capability_missing("root", …)`).
pub fn not_root() -> Option<String> {
    // SAFETY: geteuid has no preconditions.
    let euid = unsafe { libc::geteuid() };
    (euid != 0).then(|| format!("runs as uid {euid}, not root"))
}

/// Why `program` cannot be started, if it cannot (`program --version`).
pub fn program_missing(program: &str) -> Option<String> {
    match std::process::Command::new(program)
        .arg("--version")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
    {
        Ok(_) => None,
        Err(e) => Some(format!("`{program}` cannot be started: {e}")),
    }
}

/// The capability `kubernetes_validate` probes (a name for `SEEKCLAW_TEST_REQUIRE`).
pub const KUBERNETES_VALIDATE: &str = "kubernetes-validate";

/// The test venv's `kubernetes-validate` (PyPI; `scripts/install-test-servers`
/// installs it) and that venv's Python, or why they cannot run: it checks
/// the manifests in `deploy/k8s/` against the Kubernetes schemas offline.
pub fn kubernetes_validate() -> Result<(PathBuf, PathBuf), String> {
    let bin = crate::mcp_servers::servers_dir().join("py").join("bin");
    let (command, python) = (bin.join("kubernetes-validate"), bin.join("python"));
    match std::process::Command::new(&command)
        .arg("--version")
        .output()
    {
        Ok(out) if out.status.success() => Ok((command, python)),
        Ok(out) => Err(format!(
            "`{} --version` failed: {}",
            command.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        )),
        Err(e) => Err(format!(
            "`{}` cannot be started ({e}): run `bash scripts/install-test-servers`",
            command.display()
        )),
    }
}

/// The capability `pyright` probes (a name for `SEEKCLAW_TEST_REQUIRE`).
pub const PYRIGHT: &str = "pyright";

/// The directory holding `pyright-langserver` (npm `pyright`, pinned in
/// `scripts/install-test-servers`), for a `PATH`, or why it cannot run.
pub fn pyright() -> Result<PathBuf, String> {
    let bin = crate::mcp_servers::servers_dir()
        .join("node_modules")
        .join(".bin");
    match std::process::Command::new(bin.join("pyright"))
        .arg("--version")
        .output()
    {
        Ok(out) if out.status.success() => Ok(bin),
        Ok(out) => Err(format!(
            "`pyright --version` failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )),
        Err(e) => Err(format!(
            "`{}` cannot be started ({e}): run `bash scripts/install-test-servers`",
            bin.join("pyright").display()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_present_capability_never_skips() {
        assert!(!capability_missing("anything", None));
    }

    #[test]
    fn the_list_is_comma_separated_and_forgiving() {
        assert!(listed("sandbox,tmpfs,root", "tmpfs"));
        assert!(listed(" sandbox , Root ", "root"));
        assert!(!listed("sandbox,tmpfs", "root"));
        assert!(!listed("", "root"));
        assert!(!listed("sandboxes", "sandbox"));
    }
}
