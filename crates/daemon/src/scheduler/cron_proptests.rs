//! Property tests: no cron string can crash or hang the parser, a valid one
//! always has a next run after now, and the rewritten Cronos syntax (wrapping
//! ranges, Sunday as 7, single-start steps) runs exactly on the values it
//! names. `PROPTEST_CASES` raises the case count (`scripts/fuzz --proptest`
//! runs them long).

use std::sync::mpsc;
use std::time::{Duration, Instant};

use chrono::{Datelike, Timelike};
use proptest::prelude::*;

use super::super::cron_syntax::normalize;
use super::*;

/// Parsing plus a few next runs must end well within this, even in a debug
/// build on a loaded machine. The slowest real case is an expression that
/// never matches a date (croner searches day by day to its year limit:
/// about 0.5 s in debug); a field that selects nothing once took a minute.
const LIMIT: Duration = Duration::from_secs(5);

/// Runs `f` on its own thread and fails the case if it panics or is still
/// running after [`LIMIT`] (a hang).
fn within<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> Result<T, TestCaseError> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(LIMIT).map_err(|e| match e {
        mpsc::RecvTimeoutError::Timeout => {
            TestCaseError::fail(format!("still running after {LIMIT:?}"))
        }
        mpsc::RecvTimeoutError::Disconnected => TestCaseError::fail("panicked"),
    })
}

/// The next runs in UTC, and the next one in local time.
type Runs = (Vec<DateTime<Utc>>, Option<DateTime<Utc>>);

/// What [`run_expr`] saw.
#[derive(Debug)]
struct Outcome {
    /// The runs, or the error text.
    result: Result<Runs, String>,
    elapsed: Duration,
}

/// Parses `expr` and, if valid, takes its next five runs after `now`.
fn run_expr(expr: String, now: DateTime<Utc>) -> Outcome {
    let start = Instant::now();
    let result = CronSchedule::parse(&expr)
        .map_err(|e| e.to_string())
        .map(|s| {
            let mut runs = Vec::new();
            let mut after = now;
            while runs.len() < 5 {
                match s.next_after_in(after, &Utc) {
                    Some(t) => {
                        runs.push(t);
                        after = t;
                    }
                    None => break,
                }
            }
            (runs, s.next_after(now))
        });
    Outcome {
        result,
        elapsed: start.elapsed(),
    }
}

/// Any expression: an error that says so, or a schedule whose next run is
/// after now (and each later run after the one before), all in bounded time.
fn check_expr(expr: String) -> Result<(), TestCaseError> {
    let now = Utc::now();
    let outcome = within({
        let expr = expr.clone();
        move || run_expr(expr, now)
    })?;
    match outcome.result {
        Err(e) => prop_assert!(e.starts_with("Invalid cron expression: "), "{e}"),
        Ok((runs, local)) => {
            prop_assert!(!runs.is_empty(), "{expr:?} parsed but has no next run");
            prop_assert!(runs[0] > now, "{expr:?}: {} is not after {now}", runs[0]);
            for w in runs.windows(2) {
                prop_assert!(w[1] > w[0], "{expr:?}: runs not increasing: {runs:?}");
            }
            if let Some(local) = local {
                prop_assert!(
                    local > now,
                    "{expr:?}: local next run {local} is not after {now}"
                );
            }
        }
    }
    prop_assert!(
        outcome.elapsed < LIMIT,
        "{expr:?} took {:?}",
        outcome.elapsed
    );
    Ok(())
}

/// A field's values and names, for generating its parts.
#[derive(Debug, Clone, Copy)]
struct Spec {
    lo: u32,
    hi: u32,
    names: &'static [&'static str],
}

const MONTHS: &[&str] = &[
    "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC",
];
const DAYS: &[&str] = &["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"];

/// Minute, hour, day of month, month, day of week.
const SPECS: [Spec; 5] = [
    Spec {
        lo: 0,
        hi: 59,
        names: &[],
    },
    Spec {
        lo: 0,
        hi: 23,
        names: &[],
    },
    Spec {
        lo: 1,
        hi: 31,
        names: &[],
    },
    Spec {
        lo: 1,
        hi: 12,
        names: MONTHS,
    },
    Spec {
        lo: 0,
        hi: 7,
        names: DAYS,
    },
];

/// Mostly a value of the field; sometimes one just outside it, with leading
/// zeros or a sign, or past `u32` and `u64`.
fn arb_number(spec: Spec) -> impl Strategy<Value = String> {
    prop_oneof![
        30 => (spec.lo..=spec.hi).prop_map(|n| n.to_string()),
        1 => prop::sample::select(&[
            "0", "00", "007", "+5", "-1", "32", "60", "61", "4294967295", "4294967296",
            "18446744073709551616", "99999999999999999999999",
        ][..]).prop_map(str::to_string),
        1 => any::<u32>().prop_map(|n| n.to_string()),
    ]
}

/// Names of this field (or, rarely, of another one, or none) in any case.
fn arb_name(spec: Spec) -> impl Strategy<Value = String> {
    let own = if spec.names.is_empty() {
        DAYS
    } else {
        spec.names
    };
    let names = prop_oneof![
        12 => prop::sample::select(own),
        1 => prop::sample::select(&["JAN", "SUN", "FOO", "MONDAY", ""][..]),
    ];
    (names, any::<bool>()).prop_map(|(n, lower)| {
        if lower {
            n.to_lowercase()
        } else {
            n.to_string()
        }
    })
}

/// A step: mostly one that fits the field, sometimes any number.
fn arb_step(spec: Spec) -> impl Strategy<Value = String> {
    prop_oneof![
        12 => (1..=spec.hi - spec.lo).prop_map(|n| n.to_string()),
        1 => arb_number(spec),
    ]
}

fn arb_atom(spec: Spec) -> impl Strategy<Value = String> {
    let names = if spec.names.is_empty() { 0 } else { 6 };
    prop_oneof![
        16 => arb_number(spec),
        names => arb_name(spec),
        1 => prop::sample::select(&[
            "*", "?", "L", "LW", "15W", "5L", "5#3", "1#6", "#", "W", "-", "/", ",", "",
        ][..]).prop_map(str::to_string),
    ]
}

/// One comma-separated piece: a value, a range (wrapping or not), with or
/// without a step.
fn arb_part(spec: Spec) -> impl Strategy<Value = String> {
    prop_oneof![
        3 => arb_atom(spec),
        3 => (arb_atom(spec), arb_atom(spec)).prop_map(|(a, b)| format!("{a}-{b}")),
        2 => (arb_atom(spec), arb_atom(spec), arb_step(spec)).prop_map(|(a, b, s)| format!("{a}-{b}/{s}")),
        2 => (arb_atom(spec), arb_step(spec)).prop_map(|(a, s)| format!("{a}/{s}")),
        1 => arb_step(spec).prop_map(|s| format!("*/{s}")),
    ]
}

fn arb_field(spec: Spec) -> impl Strategy<Value = String> {
    prop_oneof![
        2 => Just("*".to_string()),
        3 => prop::collection::vec(arb_part(spec), 1..3).prop_map(|p| p.join(",")),
    ]
}

/// Mostly five fields, sometimes four or six, with odd whitespace.
fn arb_expr() -> impl Strategy<Value = String> {
    let sep = prop_oneof![
        8 => Just(" "),
        1 => prop::sample::select(&["  ", "\t", " \u{a0}"][..]),
    ];
    let fields = (
        arb_field(SPECS[0]),
        arb_field(SPECS[1]),
        arb_field(SPECS[2]),
        arb_field(SPECS[3]),
        arb_field(SPECS[4]),
        arb_field(SPECS[0]),
    );
    (
        prop_oneof![8 => Just(5usize), 1 => Just(4usize), 1 => Just(6usize)],
        fields,
        prop::collection::vec(sep, 6),
        prop::sample::select(&["", "", " ", "\n"][..]),
    )
        .prop_map(|(n, (a, b, c, d, e, f), seps, pad)| {
            let mut out = pad.to_string();
            for (field, sep) in [a, b, c, d, e, f].into_iter().zip(seps).take(n) {
                out.push_str(&field);
                out.push_str(sep);
            }
            out.push_str(pad);
            out
        })
}

/// One field of the five, for the semantic checks.
#[derive(Debug, Clone, Copy)]
struct Unit {
    position: usize,
    min: u32,
    max: u32,
    /// Cronos' last value (7 for days of week: Sunday again).
    last: u32,
}

const MINUTE: Unit = Unit {
    position: 0,
    min: 0,
    max: 59,
    last: 59,
};
const HOUR: Unit = Unit {
    position: 1,
    min: 0,
    max: 23,
    last: 23,
};
const WEEKDAY: Unit = Unit {
    position: 4,
    min: 0,
    max: 6,
    last: 7,
};

impl Unit {
    /// The expression with `field` in this position and the fields below it
    /// at their first value, so one period has few runs.
    fn expr(self, field: &str) -> String {
        let mut fields = ["0", "0", "*", "*", "*"];
        fields[self.position] = field;
        fields.join(" ")
    }

    /// The values this field takes over one period, read off the runs.
    fn observed(self, s: &CronSchedule) -> Vec<u32> {
        // 2026-01-04 is a Sunday.
        let start = Utc.with_ymd_and_hms(2026, 1, 4, 0, 0, 0).unwrap();
        let period = match self.position {
            0 => chrono::Duration::hours(1),
            1 => chrono::Duration::days(1),
            _ => chrono::Duration::weeks(1),
        };
        let mut seen = Vec::new();
        let mut after = start - chrono::Duration::seconds(1);
        while let Some(t) = s.next_after_in(after, &Utc) {
            if t >= start + period || seen.len() > 60 {
                break;
            }
            seen.push(match self.position {
                0 => t.minute(),
                1 => t.hour(),
                _ => t.weekday().num_days_from_sunday(),
            });
            after = t;
        }
        seen.sort_unstable();
        seen.dedup();
        seen
    }

    /// `a-b/s` read cyclically: from `a` in steps of `s`, wrapping past the
    /// end of the field, up to `b` (no wrap when `a <= b`).
    fn range(self, a: u32, b: u32, s: u32) -> Vec<u32> {
        let n = self.max - self.min + 1;
        let span = if a <= b { b - a } else { b + n - a };
        let mut v: Vec<u32> = (0..=span / s)
            .map(|k| self.min + (a - self.min + k * s) % n)
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// `a/s`: from `a` in steps of `s` to the field's last value (7 is
    /// Sunday, day 0).
    fn from(self, a: u32, s: u32) -> Vec<u32> {
        let mut v: Vec<u32> = (a..=self.last)
            .step_by(s as usize)
            .map(|x| {
                if x > self.max {
                    x - self.max - 1 + self.min
                } else {
                    x
                }
            })
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }
}

/// A value of `unit` written as a number or, for days, sometimes a name.
fn spelled(unit: Unit, v: u32, name: bool) -> String {
    const DAYS: [&str; 7] = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"];
    match DAYS.get(v as usize) {
        Some(day) if name && unit.position == 4 => day.to_string(),
        _ => v.to_string(),
    }
}

fn arb_unit() -> impl Strategy<Value = Unit> {
    prop::sample::select(&[MINUTE, HOUR, WEEKDAY][..])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Any text at all.
    #[test]
    fn any_string_parses_or_is_refused(expr in prop_oneof![
        any::<String>(),
        "[0-9*/,LW#? A-Za-z-]{0,40}",
    ]) {
        check_expr(expr)?;
    }

    /// Expressions from the grammar: fields, lists, ranges (wrapping too),
    /// steps, names in any case, `L`/`W`/`#`, huge numbers, wrong field
    /// counts.
    #[test]
    fn grammar_expressions_parse_or_are_refused(expr in arb_expr()) {
        check_expr(expr)?;
    }

    /// The Cronos rewrite is idempotent: what it produces needs no rewrite.
    #[test]
    fn normalize_is_idempotent(expr in prop_oneof![arb_expr(), any::<String>()]) {
        let once = normalize(&expr);
        prop_assert_eq!(normalize(&once), once);
    }

    /// `a-b/s` (wrapping when `a > b`: `23-01`, `FRI-MON`, `45-15/2`) runs on
    /// exactly the values met stepping from `a` around to `b`.
    #[test]
    fn ranges_run_on_the_values_they_name(
        unit in arb_unit(),
        a in any::<prop::sample::Index>(),
        b in any::<prop::sample::Index>(),
        s in any::<prop::sample::Index>(),
        stepped in any::<bool>(),
        names in any::<bool>(),
    ) {
        let n = unit.max - unit.min + 1;
        let a = unit.min + a.index(n as usize) as u32;
        let b = unit.min + b.index(n as usize) as u32;
        let s = 1 + s.index(unit.last as usize) as u32;
        let field = format!(
            "{}-{}{}",
            spelled(unit, a, names),
            spelled(unit, b, names),
            if stepped { format!("/{s}") } else { String::new() }
        );
        let s = if stepped { s } else { 1 };
        let expr = unit.expr(&field);
        let schedule = within({
            let expr = expr.clone();
            move || CronSchedule::parse(&expr)
        })?;
        let schedule = schedule.map_err(|e| TestCaseError::fail(format!("{expr:?}: {e}")))?;
        prop_assert_eq!(unit.observed(&schedule), unit.range(a, b, s), "{}", expr);
    }

    /// `a/s` runs from `a` to the field's last value (for days of week that
    /// is 7, Sunday again); `7-b` starts at Sunday.
    #[test]
    fn single_start_steps_and_sunday_seven(
        unit in arb_unit(),
        a in any::<prop::sample::Index>(),
        b in 0u32..7,
        s in any::<prop::sample::Index>(),
    ) {
        let a = unit.min + a.index((unit.last - unit.min + 1) as usize) as u32;
        let s = 1 + s.index(unit.last as usize) as u32;
        let expr = unit.expr(&format!("{a}/{s}"));
        let schedule = CronSchedule::parse(&expr).map_err(|e| TestCaseError::fail(format!("{expr:?}: {e}")))?;
        prop_assert_eq!(unit.observed(&schedule), unit.from(a, s), "{}", expr);
        if unit.position == 4 {
            let expr = unit.expr(&format!("7-{b}/{s}"));
            let schedule = CronSchedule::parse(&expr).map_err(|e| TestCaseError::fail(format!("{expr:?}: {e}")))?;
            prop_assert_eq!(unit.observed(&schedule), unit.range(0, b, s), "{}", expr);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// A field of only commas selects nothing (croner skips empty items): the
    /// expression is refused as never matching at once, not after croner's
    /// minute-by-minute search to its year limit (a minute in debug).
    #[test]
    fn fields_that_select_nothing_are_refused_at_once(
        fields in (arb_field(SPECS[0]), arb_field(SPECS[1]), arb_field(SPECS[2]), arb_field(SPECS[3]), arb_field(SPECS[4])),
        empty in 0usize..5,
        commas in 1usize..4,
    ) {
        let (a, b, c, d, e) = fields;
        let mut fields = [a, b, c, d, e];
        fields[empty] = ",".repeat(commas);
        let expr = fields.join(" ");
        let outcome = within({
            let expr = expr.clone();
            move || run_expr(expr, Utc::now())
        })?;
        let err = outcome.result.err().unwrap_or_default();
        prop_assert!(err.starts_with("Invalid cron expression: "), "{expr:?}: {err}");
        prop_assert!(outcome.elapsed < Duration::from_secs(1), "{expr:?} took {:?}", outcome.elapsed);
    }
}

/// Days that no month has (Feb 30, Apr 31 …), with or without a day of
/// week: refused as never matching, within the limit. Each case makes croner
/// search day by day to its year limit (0.1–0.5 s in debug), so this runs a
/// fixed few cases whatever `PROPTEST_CASES` says.
#[test]
fn impossible_dates_are_refused() {
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
        cases: 4,
        ..ProptestConfig::default()
    });
    let dates = prop::sample::select(
        &[
            (30, "2"),
            (31, "FEB"),
            (31, "4"),
            (31, "jun"),
            (31, "9"),
            (31, "11,2"),
        ][..],
    );
    let weekdays = prop::sample::select(&["*", "MON", "1-5", "FRI-MON", "5L"][..]);
    let result = runner.run(
        &(dates, weekdays, 0u32..60, 0u32..24),
        |((day, month), weekday, minute, hour)| {
            let expr = format!("{minute} {hour} {day} {month} {weekday}");
            let outcome = within({
                let expr = expr.clone();
                move || run_expr(expr, Utc::now())
            })?;
            let err = outcome.result.err().unwrap_or_default();
            prop_assert!(err.contains("never matches"), "{expr:?}: {err}");
            prop_assert!(
                outcome.elapsed < LIMIT,
                "{expr:?} took {:?}",
                outcome.elapsed
            );
            Ok(())
        },
    );
    if let Err(e) = result {
        panic!("{e}");
    }
}
