//! Spend budgets, once for every front end: the limits that apply to a
//! session (its own from `budget.set`, a front end's `--max-cost`, a
//! scheduled task's, the config's `budgets`), what was spent against each
//! (the usage ledger: the session, today, this month in the project), and
//! the gate a turn asks before each model request. Days and months are
//! calendar ones in local time.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use chrono::{Datelike, Local, NaiveDate, TimeZone, Utc};
use seekclaw_agent::{RequestEstimate, SpendGate, SpendVerdict};
use seekclaw_config::Budgets;
use seekclaw_protocol::wording;
use seekclaw_store::{BudgetOwner, Spent, Store};

/// Which budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BudgetScope {
    /// One session, all its turns.
    Session,
    /// One scheduled run (its session).
    Schedule,
    /// One project's sessions, this calendar month.
    Project,
    /// Every session, today.
    Day,
}

impl BudgetScope {
    /// The wire and config name.
    pub fn as_str(self) -> &'static str {
        match self {
            BudgetScope::Session => "session",
            BudgetScope::Schedule => "schedule",
            BudgetScope::Project => "project",
            BudgetScope::Day => "day",
        }
    }

    /// From the wire name.
    pub fn parse(name: &str) -> Option<BudgetScope> {
        [
            BudgetScope::Session,
            BudgetScope::Schedule,
            BudgetScope::Project,
            BudgetScope::Day,
        ]
        .into_iter()
        .find(|s| s.as_str().eq_ignore_ascii_case(name.trim()))
    }
}

/// A front end's budget for the sessions of its turns (`run --max-cost`,
/// `serve --max-cost`, a scheduled run's): the session budget unless the
/// session has its own.
#[derive(Debug, Clone, PartialEq)]
pub struct FrontEndBudget {
    /// USD (`None`: the config's, for a scheduled run).
    pub usd: Option<f64>,
    /// The scheduled task the run is of (its budget is the `schedule` one).
    pub task: Option<String>,
}

/// One limit in effect, and what was spent against it.
#[derive(Debug, Clone, PartialEq)]
pub struct BudgetLine {
    /// Which budget.
    pub scope: BudgetScope,
    /// USD limit (`None`: a token limit).
    pub usd: Option<f64>,
    /// Token limit for unpriced models (`None`: a dollar limit).
    pub tokens: Option<u64>,
    /// USD spent in the budget's span.
    pub spent_usd: f64,
    /// Unpriced tokens used in the budget's span.
    pub spent_tokens: u64,
    /// Where the limit comes from: `config`, `session` (its own), `task`
    /// (the scheduled task's own) or `frontEnd` (`--max-cost`).
    pub source: &'static str,
    /// The scheduled task, for a `schedule` budget.
    pub task: Option<String>,
}

impl BudgetLine {
    /// What is left (never below 0), in the line's unit.
    pub fn remaining(&self) -> (Option<f64>, Option<u64>) {
        (
            self.usd.map(|u| (u - self.spent_usd).max(0.0)),
            self.tokens.map(|t| t.saturating_sub(self.spent_tokens)),
        )
    }
}

/// What the budgets of a session (or of the day and a project) stand at.
#[derive(Debug, Clone, PartialEq)]
pub struct BudgetStatus {
    /// Every limit in effect.
    pub lines: Vec<BudgetLine>,
    /// The warning share.
    pub warn_at: f64,
    /// Spent today (every session).
    pub today_usd: f64,
    /// Spent this calendar month (every session).
    pub month_usd: f64,
}

impl BudgetStatus {
    /// As `budget.get` answers it (the CLI prints the same).
    pub fn view(self, session_id: Option<String>) -> seekclaw_protocol::api::BudgetView {
        let budgets = self
            .lines
            .into_iter()
            .map(|l| {
                let (remaining_usd, remaining_tokens) = l.remaining();
                seekclaw_protocol::api::BudgetEntry {
                    scope: l.scope.as_str().to_string(),
                    usd: l.usd,
                    tokens: l.tokens,
                    spent_usd: l.spent_usd,
                    spent_tokens: l.spent_tokens,
                    remaining_usd,
                    remaining_tokens,
                    source: l.source.to_string(),
                    task_id: l.task,
                }
            })
            .collect();
        seekclaw_protocol::api::BudgetView {
            session_id,
            budgets,
            warn_at: self.warn_at,
            today_cost_usd: self.today_usd,
            month_cost_usd: self.month_usd,
        }
    }
}

/// The budgets already warned about, per session (said once each).
#[derive(Debug, Default)]
pub struct BudgetWarnings(Mutex<HashSet<(String, &'static str)>>);

impl BudgetWarnings {
    /// True the first time for `(session, what)`.
    fn first(&self, session: &str, what: &'static str) -> bool {
        match self.0.lock() {
            Ok(mut said) => said.insert((session.to_string(), what)),
            Err(_) => false,
        }
    }
}

/// The start of today and of this month, local time, as ledger times.
pub fn local_starts() -> (String, String) {
    let today = Local::now().date_naive();
    let month = NaiveDate::from_ymd_opt(today.year(), today.month(), 1).unwrap_or(today);
    (local_midnight(today), local_midnight(month))
}

fn local_midnight(day: NaiveDate) -> String {
    let midnight = day.and_hms_opt(0, 0, 0).unwrap_or_default();
    // A midnight skipped by a clock change starts at the earliest valid time.
    let utc = Local
        .from_local_datetime(&midnight)
        .earliest()
        .map(|t| t.with_timezone(&Utc))
        .unwrap_or_else(|| Utc.from_utc_datetime(&midnight));
    seekclaw_store::format_iso(utc)
}

/// Whose budgets: a session of a scope (either may be unknown for `budget.get`).
#[derive(Debug, Clone, Default)]
pub struct BudgetSubject {
    /// The store scope (the project), if known.
    pub scope: Option<String>,
    /// The session, if any.
    pub session: Option<String>,
    /// A front end's session budget.
    pub front_end: Option<FrontEndBudget>,
}

/// The limits in effect for `subject` and what was spent against each:
/// the session's (its own, else the front end's or its task's, else the
/// config's), the project's this month, and the day's. Blocking.
pub fn status(store: &Store, budgets: &Budgets, subject: &BudgetSubject) -> BudgetStatus {
    collect(store, budgets, subject, true)
}

/// [`status`]; without `totals`, the day's and month's totals are read only
/// as far as a budget needs them (a turn's check before each request).
fn collect(
    store: &Store,
    budgets: &Budgets,
    subject: &BudgetSubject,
    totals: bool,
) -> BudgetStatus {
    let (today, month) = local_starts();
    let spent_since = |since: &str, scope: Option<&str>| {
        store.spent_since(since, scope).unwrap_or_else(|e| {
            tracing::warn!(error = %e, "cannot read the spend for budgets");
            Spent::default()
        })
    };
    let day_limited = budgets.day.is_some() || budgets.tokens.day.is_some();
    let today_all = match totals || day_limited {
        true => spent_since(&today, None),
        false => Spent::default(),
    };
    let month_all = match totals {
        true => spent_since(&month, None),
        false => Spent::default(),
    };
    let mut lines = Vec::new();
    if let (Some(scope), Some(id)) = (&subject.scope, &subject.session) {
        lines.extend(session_lines(store, budgets, subject, (scope, id)));
    }
    if subject.session.is_none() {
        // No session asked about: the per-session and per-run limits as
        // configured (nothing spent against them yet).
        let none = Spent::default();
        for (scope, usd) in [
            (BudgetScope::Session, budgets.session),
            (BudgetScope::Schedule, budgets.schedule),
        ] {
            if let Some(usd) = Budgets::usable(usd) {
                lines.push(line(scope, Some(usd), None, none, "config", None));
            }
        }
        if let Some(t) = budgets.tokens.session {
            lines.push(line(
                BudgetScope::Session,
                None,
                Some(t),
                none,
                "config",
                None,
            ));
        }
    }
    if let (Some(scope), Some(usd)) = (&subject.scope, Budgets::usable(budgets.project)) {
        let spent = spent_since(&month, Some(scope));
        lines.push(line(
            BudgetScope::Project,
            Some(usd),
            None,
            spent,
            "config",
            None,
        ));
    }
    if let Some(usd) = Budgets::usable(budgets.day) {
        lines.push(line(
            BudgetScope::Day,
            Some(usd),
            None,
            today_all,
            "config",
            None,
        ));
    }
    if let Some(t) = budgets.tokens.day {
        lines.push(line(
            BudgetScope::Day,
            None,
            Some(t),
            today_all,
            "config",
            None,
        ));
    }
    BudgetStatus {
        lines,
        warn_at: budgets.warn_share(),
        today_usd: today_all.usd,
        month_usd: month_all.usd,
    }
}

/// The session's own lines: its dollar limit (the first set of its own,
/// its task's own, the config's for scheduled runs, the front end's, the
/// config's for sessions) and its token limit.
fn session_lines(
    store: &Store,
    budgets: &Budgets,
    subject: &BudgetSubject,
    (scope, id): (&String, &String),
) -> Vec<BudgetLine> {
    let mut lines = Vec::new();
    let owner = BudgetOwner::Session {
        scope: scope.clone(),
        id: id.clone(),
    };
    let own = store.own_budget(&owner).unwrap_or_default();
    let spent = store.session_spent(scope, id).unwrap_or_default();
    let task = subject.front_end.as_ref().and_then(|f| f.task.clone());
    let task_own = task
        .as_ref()
        .and_then(|t| store.own_budget(&BudgetOwner::Task(t.clone())).ok())
        .and_then(|b| b.usd);
    let front_end = subject
        .front_end
        .as_ref()
        .and_then(|f| Budgets::usable(f.usd));
    // The session's own, the task's own, the config's for scheduled
    // runs, the front end's, the config's for sessions: the first set.
    let session_usd = Budgets::usable(own.usd)
        .map(|u| (u, "session", BudgetScope::Session))
        .or_else(|| Budgets::usable(task_own).map(|u| (u, "task", BudgetScope::Schedule)))
        .or_else(|| {
            let scheduled = task.as_ref().and(Budgets::usable(budgets.schedule));
            scheduled.map(|u| (u, "config", BudgetScope::Schedule))
        })
        .or_else(|| front_end.map(|u| (u, "frontEnd", BudgetScope::Session)))
        .or_else(|| Budgets::usable(budgets.session).map(|u| (u, "config", BudgetScope::Session)));
    if let Some((usd, source, kind)) = session_usd {
        let task = task.filter(|_| kind == BudgetScope::Schedule);
        lines.push(line(kind, Some(usd), None, spent, source, task));
    }
    let tokens = own.tokens.map(|t| (t, "session"));
    if let Some((t, source)) = tokens.or(budgets.tokens.session.map(|t| (t, "config"))) {
        lines.push(line(
            BudgetScope::Session,
            None,
            Some(t),
            spent,
            source,
            None,
        ));
    }
    lines
}

fn line(
    scope: BudgetScope,
    usd: Option<f64>,
    tokens: Option<u64>,
    spent: Spent,
    source: &'static str,
    task: Option<String>,
) -> BudgetLine {
    BudgetLine {
        scope,
        usd,
        tokens,
        spent_usd: spent.usd,
        spent_tokens: spent.unpriced_tokens,
        source,
        task,
    }
}

/// The gate of one turn: the config's budgets as the turn started.
#[derive(Debug)]
pub(crate) struct BudgetGate {
    pub(crate) store: Store,
    pub(crate) budgets: Budgets,
    pub(crate) subject: BudgetSubject,
    pub(crate) warned: Arc<BudgetWarnings>,
}

impl BudgetGate {
    /// Whether anything can limit the turn besides the session's own
    /// budget (which only the store knows).
    fn configured(&self) -> bool {
        let b = &self.budgets;
        let front_end = self.subject.front_end.as_ref();
        b.session.is_some()
            || b.day.is_some()
            || b.project.is_some()
            || !b.tokens.is_empty()
            || front_end.is_some_and(|f| f.usd.is_some() || f.task.is_some())
    }

    /// Nothing limits the turn: no budget in the config or from the front
    /// end, and none of the session's own (one indexed read).
    fn unlimited(&self) -> bool {
        if self.configured() {
            return false;
        }
        let (Some(scope), Some(id)) = (&self.subject.scope, &self.subject.session) else {
            return true;
        };
        let owner = BudgetOwner::Session {
            scope: scope.clone(),
            id: id.clone(),
        };
        self.store
            .own_budget(&owner)
            .is_ok_and(|b| b.usd.is_none() && b.tokens.is_none())
    }
}

impl SpendGate for BudgetGate {
    fn check(&self, e: &RequestEstimate) -> SpendVerdict {
        if self.unlimited() {
            return SpendVerdict::Go(Vec::new());
        }
        let status = collect(&self.store, &self.budgets, &self.subject, false);
        let session = self.subject.session.clone().unwrap_or_default();
        let unpriced = (!e.priced).then_some(e.model.as_str());
        let mut warnings = Vec::new();
        let mut counted = false;
        for l in &status.lines {
            // Dollars limit priced requests; tokens limit unpriced ones.
            let (spent, next, limit) = match (l.usd, l.tokens) {
                (Some(limit), _) if e.priced => (l.spent_usd + e.pending_usd, e.usd, limit),
                (_, Some(limit)) if !e.priced => (
                    l.spent_tokens.saturating_add(e.pending_tokens) as f64,
                    e.tokens() as f64,
                    limit as f64,
                ),
                _ => continue,
            };
            counted = true;
            let amount = |v: f64| match l.usd {
                Some(_) => wording::budget_amount(Some(v), 0),
                None => wording::budget_amount(None, v.round().max(0.0) as u64),
            };
            if spent + next > limit {
                let raise = wording::budget_raise(
                    (l.scope.as_str(), l.tokens.is_some()),
                    (spent + next).max(limit * 2.0),
                    (&session, l.task.as_deref()),
                    place(self.subject.scope.as_deref()),
                );
                return SpendVerdict::Stop(wording::budget_exhausted(
                    &name(l),
                    &amount(limit),
                    &amount(spent),
                    &amount(next),
                    (&raise.0, raise.1),
                    unpriced,
                ));
            }
            let what = (l.scope.as_str(), l.usd.is_some());
            if spent >= limit * status.warn_at && self.warned.first(&session, warn_key(what)) {
                warnings.push(wording::budget_warning(
                    &name(l),
                    &amount(limit),
                    &amount(spent),
                    unpriced,
                ));
            }
        }
        // Dollar budgets cannot count an unpriced model: said once.
        let dollars = status.lines.iter().any(|l| l.usd.is_some());
        if !e.priced && !counted && dollars && self.warned.first(&session, "unpriced") {
            warnings.push(format!(
                "{} has no price in the model catalog: its requests are not counted against the dollar budgets (set budgets.tokens to limit its tokens).",
                e.model
            ));
        }
        SpendVerdict::Go(warnings)
    }
}

fn warn_key((scope, usd): (&'static str, bool)) -> &'static str {
    match (scope, usd) {
        ("session", true) => "session",
        ("session", false) => "session-tokens",
        ("schedule", _) => "schedule",
        ("project", _) => "project",
        ("day", true) => "day",
        _ => "day-tokens",
    }
}

/// How a budget is named in a sentence.
fn name(l: &BudgetLine) -> String {
    wording::budget_name(l.scope.as_str(), l.tokens.is_some())
}

/// Where the subject's budget lives, from its store scope key.
fn place(scope: Option<&str>) -> wording::BudgetPlace<'_> {
    match scope {
        Some(seekclaw_config::GLOBAL_SCOPE) => wording::BudgetPlace::Global,
        Some(key) => key.strip_prefix("workspace|").map_or(
            wording::BudgetPlace::Unknown,
            wording::BudgetPlace::Workspace,
        ),
        None => wording::BudgetPlace::Unknown,
    }
}

#[cfg(test)]
#[path = "budget_tests.rs"]
mod tests;
