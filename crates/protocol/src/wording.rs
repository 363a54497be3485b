//! The few sentences both wires carry the same way (the daemon's envelopes
//! and `serve`'s events): a failover, a retry, a turn whose end could not be
//! saved. Worded once here, at the protocol edge; the engine and the agent
//! hold data only.

/// "tk/m1 failed: … — answered by tk/m2", and "… — answered by other/m2
/// (another provider)" when the request went to another provider (another
/// vendor may mean another price and another destination for the prompt).
pub fn failover_notice(failed: &str, error: &str, to: &str) -> String {
    if crosses_provider(failed, to) {
        format!("{failed} failed: {error} — answered by {to} (another provider)")
    } else {
        format!("{failed} failed: {error} — answered by {to}")
    }
}

/// Whether a failover from `failed` to `to` (both `provider/model`) changes provider.
pub fn crosses_provider(failed: &str, to: &str) -> bool {
    let provider = |r: &str| r.split_once('/').map_or(r, |(p, _)| p).to_ascii_lowercase();
    provider(failed) != provider(to)
}

/// "tk/m1: retrying 2/3 after HTTP 500 (in 0.5 s)".
pub fn retry_notice(
    model: &str,
    attempt: u32,
    max_attempts: u32,
    reason: &str,
    delay_ms: u64,
) -> String {
    format!(
        "{model}: retrying {attempt}/{max_attempts} after {reason} (in {:.1} s)",
        delay_ms as f64 / 1000.0
    )
}

/// What every front end says of a turn whose end could not be saved.
pub fn unsaved_message(error: &str) -> String {
    format!("The turn could not be saved: {error}")
}

/// What a command that takes `--workspace`/`--global` (`run`, fleets,
/// `serve`) says when the directory it was started in is too broad to be
/// the workspace.
pub const IMPLICIT_WORKSPACE: &str =
    "Run seekclaw in a project directory, name one with `--workspace DIR`, or use `--global`.";

/// What the next turn reads of a background job the process stopped
/// unfinished (it exited: `seekclaw run`'s end, a daemon or `serve` stopping).
pub fn job_stopped_at_exit(job_id: &str, command: &str) -> String {
    format!(
        "background job {job_id} was stopped unfinished: the seekclaw process that ran it exited (command: {command})"
    )
}

/// One finished hook run as a front end prints it: "hook PreToolUse
/// `./guard.sh`: deny (exit 2, 12 ms): no pushes on Fridays"; "killed"
/// stands for the exit code of a hook stopped at its timeout or never started.
pub fn hook_line(
    event: &str,
    command: &str,
    decision: &str,
    exit_code: Option<i32>,
    duration_ms: f64,
    message: Option<&str>,
) -> String {
    let exit = exit_code.map_or_else(|| "killed".to_string(), |c| format!("exit {c}"));
    let mut line = format!("hook {event} `{command}`: {decision} ({exit}, {duration_ms:.0} ms)");
    if let Some(m) = message.map(str::trim).filter(|m| !m.is_empty()) {
        // One line: a hook's stderr may run long; the log keeps it whole.
        let first = m.lines().next().unwrap_or_default();
        line.push_str(": ");
        line.push_str(first);
    }
    line
}

/// Said once to a session whose workspace's hooks do not run: why (the
/// folder is not trusted, or its hook set was not approved), how to change
/// that, and what they would run.
pub fn hooks_off(trusted: bool, commands: &[&str]) -> String {
    let why = if !trusted {
        "this folder is not a trusted project (open `seekclaw` in it once and choose to trust it; an app trusts a folder by adding it as a project)"
    } else {
        "this workspace's hook set is new or changed and was not approved (review and approve it in `seekclaw`, or with `seekclaw hooks list` then `seekclaw hooks approve`)"
    };
    format!(
        "The workspace's hooks are off: {why}. They would run: {}",
        commands.join("; ")
    )
}

/// Why a project plugin is not installed in an untrusted workspace.
pub fn plugin_untrusted(workspace: &str) -> String {
    format!(
        "{workspace} is not a trusted project, and a project's plugins run only where it is: open `seekclaw` in it once and choose to trust it (an app trusts a folder by adding it as a project), or install the plugin for yourself (without --project)"
    )
}

/// A budget's amount as people read it: dollars (`$0.0420`, `$12.50`) or tokens.
pub fn budget_amount(usd: Option<f64>, tokens: u64) -> String {
    match usd {
        Some(v) if v.abs() < 1.0 => format!("${v:.4}"),
        Some(v) => format!("${v:.2}"),
        None => format!("{tokens} tokens"),
    }
}

/// The text a turn stopped by a budget ends with: the budget, what was
/// spent, and how to raise it (`raise`: the CLI command; `key`: the config
/// key). `unpriced`: the model without a price whose tokens are counted.
pub fn budget_exhausted(
    name: &str,
    limit: &str,
    spent: &str,
    next: &str,
    (raise, key): (&str, &str),
    unpriced: Option<&str>,
) -> String {
    let why = unpriced.map_or(String::new(), |m| {
        format!(" ({m} has no price in the model catalog, so its tokens are counted)")
    });
    format!(
        "Budget reached: the {name} budget is {limit}{why} and {spent} is spent; the next model request (about {next}) would exceed it, so the turn stopped before sending it. Nothing was lost. To go on, raise the budget (`{raise}`, the daemon's budget.set, or `{key}` in config.json) and send \"go on\"."
    )
}

/// How a budget is named in a sentence (`scope`: `session`, `schedule`,
/// `project` or `day`; `tokens`: a token budget).
pub fn budget_name(scope: &str, tokens: bool) -> String {
    let what = match scope {
        "schedule" => "scheduled run",
        "project" => "project's monthly",
        "day" => "daily",
        other => other,
    };
    if tokens {
        format!("{what} token")
    } else {
        what.to_string()
    }
}

/// Where a session or project budget lives, for the command that raises it
/// (`seekclaw budget` otherwise looks in the current folder's project).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BudgetPlace<'a> {
    /// The global scope (`--global`).
    Global,
    /// A project (`--workspace PATH`).
    Workspace(&'a str),
    /// Not known: no flag.
    Unknown,
}

impl BudgetPlace<'_> {
    fn flag(self) -> String {
        match self {
            BudgetPlace::Global => " --global".to_string(),
            BudgetPlace::Workspace(path) if path.contains([' ', '\'', '"']) => {
                format!(" --workspace '{}'", path.replace('\'', "'\\''"))
            }
            BudgetPlace::Workspace(path) => format!(" --workspace {path}"),
            BudgetPlace::Unknown => String::new(),
        }
    }
}

/// The command that raises a budget (`scope` as in [`budget_name`]) to
/// `suggest` (USD, or tokens for a token budget), and its config key.
pub fn budget_raise(
    (scope, tokens): (&str, bool),
    suggest: f64,
    (session, task): (&str, Option<&str>),
    place: BudgetPlace,
) -> (String, &'static str) {
    let usd = (suggest * 100.0).ceil() / 100.0;
    let count = suggest.ceil() as u64;
    let (command, key) = match (scope, tokens) {
        ("session", false) => (
            format!("seekclaw budget set session {usd} --session {session}"),
            "budgets.session",
        ),
        ("session", true) => (
            format!("seekclaw budget set session --tokens {count} --session {session}"),
            "budgets.tokens.session",
        ),
        ("schedule", _) => match task {
            Some(task) => (
                format!("seekclaw budget set schedule {usd} --task {task}"),
                "budgets.schedule",
            ),
            None => (
                format!("seekclaw budget set schedule {usd}"),
                "budgets.schedule",
            ),
        },
        ("project", _) => (
            format!("seekclaw budget set project {usd}"),
            "budgets.project",
        ),
        (_, true) => (
            format!("seekclaw budget set day --tokens {count}"),
            "budgets.tokens.day",
        ),
        _ => (format!("seekclaw budget set day {usd}"), "budgets.day"),
    };
    let flag = match scope {
        "session" | "project" => place.flag(),
        _ => String::new(),
    };
    (command + &flag, key)
}

/// The warning that a budget is nearly used up.
pub fn budget_warning(name: &str, limit: &str, spent: &str, unpriced: Option<&str>) -> String {
    let why = unpriced.map_or(String::new(), |m| {
        format!(" ({m} has no price, so its tokens are counted)")
    });
    format!("Budget warning: {spent} of the {name} budget of {limit} is spent{why}.")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_budget_raise_names_where_its_session_lives() {
        let raise = |place| budget_raise(("session", false), 0.041, ("s1", None), place).0;
        assert_eq!(
            raise(BudgetPlace::Global),
            "seekclaw budget set session 0.05 --session s1 --global"
        );
        assert!(raise(BudgetPlace::Workspace("/w/app")).ends_with(" --workspace /w/app"));
        assert!(raise(BudgetPlace::Workspace("/w/my app")).ends_with(" --workspace '/w/my app'"));
        assert!(raise(BudgetPlace::Unknown).ends_with("--session s1"));
        let day = budget_raise(("day", true), 1200.2, ("s1", None), BudgetPlace::Global);
        assert_eq!(
            day,
            (
                "seekclaw budget set day --tokens 1201".into(),
                "budgets.tokens.day"
            )
        );
        assert_eq!(budget_name("project", false), "project's monthly");
        assert_eq!(budget_name("day", true), "daily token");
    }

    #[test]
    fn a_failover_to_another_provider_says_so() {
        assert_eq!(
            failover_notice("tk/m1", "HTTP 500", "tk/m2"),
            "tk/m1 failed: HTTP 500 — answered by tk/m2"
        );
        assert_eq!(
            failover_notice("local/m1", "refused", "cloud/c1"),
            "local/m1 failed: refused — answered by cloud/c1 (another provider)"
        );
        assert!(!crosses_provider("TK/m1", "tk/m2"));
    }

    #[test]
    fn a_hook_line_names_the_event_command_and_outcome() {
        assert_eq!(
            hook_line(
                "PreToolUse",
                "./guard.sh",
                "deny",
                Some(2),
                12.4,
                Some("no\nmore")
            ),
            "hook PreToolUse `./guard.sh`: deny (exit 2, 12 ms): no"
        );
        assert_eq!(
            hook_line("Stop", "sleep 9", "timeout", None, 1000.0, None),
            "hook Stop `sleep 9`: timeout (killed, 1000 ms)"
        );
    }

    #[test]
    fn a_budget_stop_says_the_budget_the_spend_and_how_to_raise_it() {
        let text = budget_exhausted(
            "session",
            &budget_amount(Some(0.05), 0),
            &budget_amount(Some(0.042), 0),
            &budget_amount(Some(0.012), 0),
            (
                "seekclaw budget set session 0.10 --session s1",
                "budgets.session",
            ),
            None,
        );
        assert!(
            text.contains("the session budget is $0.0500 and $0.0420 is spent"),
            "{text}"
        );
        assert!(text.contains("seekclaw budget set session 0.10 --session s1"));
        assert!(text.contains("budget.set") && text.contains("\"go on\""));
        assert_eq!(budget_amount(None, 12), "12 tokens");
        assert_eq!(budget_amount(Some(12.5), 0), "$12.50");
    }
}
