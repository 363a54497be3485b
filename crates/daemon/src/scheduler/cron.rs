//! Cron expressions: exactly five fields (minute hour day-of-month month
//! day-of-week), evaluated in the machine's local time zone (`TZ` honoured),
//! with next runs strictly after a given instant and stored in UTC.

use chrono::{
    DateTime, FixedOffset, Local, MappedLocalTime, NaiveDate, NaiveDateTime, Offset, TimeZone, Utc,
};
use croner::Cron;
use croner::parser::{CronParser, Seconds, Year};

/// A parsed, validated cron expression.
#[derive(Debug, Clone)]
pub struct CronSchedule {
    cron: Cron,
}

/// Why an expression was refused; its text is the wire error.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Invalid cron expression: {0}")]
pub struct InvalidCron(pub String);

impl CronSchedule {
    /// Parses `expr`, refusing anything but five fields, and expressions that
    /// never match (e.g. `0 0 31 2 *`), which would silently never run.
    pub fn parse(expr: &str) -> Result<CronSchedule, InvalidCron> {
        let fields = expr.split_whitespace().count();
        if fields != 5 {
            return Err(InvalidCron(format!(
                "expected 5 fields (minute hour day-of-month month day-of-week), got {fields} in \"{}\"",
                expr.trim()
            )));
        }
        let cron = parse_fields(expr).map_err(|e| {
            let culprit = bad_field(expr).unwrap_or_default();
            InvalidCron(format!("{culprit}{e} (in \"{}\")", expr.trim()))
        })?;
        let never = || InvalidCron(format!("\"{}\" never matches a real date", expr.trim()));
        // croner skips empty list items, so a field of only commas selects
        // nothing; finding that by search would take croner seconds of CPU
        // (every minute up to its year limit).
        let p = &cron.pattern;
        let fields = [&p.minutes, &p.hours, &p.days, &p.months, &p.days_of_week];
        if fields
            .iter()
            .any(|f| f.values().is_empty() && !f.has_modifiers())
        {
            return Err(never());
        }
        let schedule = CronSchedule { cron };
        if schedule.next_after_in(Utc::now(), &Utc).is_none() {
            return Err(never());
        }
        Ok(schedule)
    }

    /// The first occurrence strictly after `after`, in the local time zone.
    pub fn next_after(&self, after: DateTime<Utc>) -> Option<DateTime<Utc>> {
        self.next_after_in(after, &SystemZone)
    }

    /// The first occurrence strictly after `after`, with wall-clock fields read
    /// in `tz`. Across a DST gap a fixed time runs at the first instant after
    /// the gap; in a repeated hour it runs once (the earlier instant).
    pub fn next_after_in<Tz: TimeZone>(
        &self,
        after: DateTime<Utc>,
        tz: &Tz,
    ) -> Option<DateTime<Utc>> {
        self.cron
            .find_next_occurrence(&after.with_timezone(tz), false)
            .ok()
            .map(|t| t.with_timezone(&Utc))
    }
}

/// The five fields' names, in order, for errors that name the one to blame.
const FIELD_NAMES: [&str; 5] = ["minute", "hour", "day-of-month", "month", "day-of-week"];

fn parse_fields(expr: &str) -> Result<Cron, croner::errors::CronError> {
    CronParser::builder()
        .seconds(Seconds::Disallowed)
        .year(Year::Disallowed)
        // A day of month and a day of week must both match, as in Cronos
        // (the original's parser; croner's default is either).
        .dom_and_dow(true)
        .build()
        .parse(&super::cron_syntax::normalize(expr))
}

/// `the hour field "25" is invalid: ` for the first field that fails on its
/// own (the others as `*`); croner's own errors do not say which field.
fn bad_field(expr: &str) -> Option<String> {
    let fields: Vec<&str> = expr.split_whitespace().collect();
    (0..fields.len()).find_map(|i| {
        let alone: Vec<&str> = (0..fields.len())
            .map(|j| if j == i { fields[j] } else { "*" })
            .collect();
        parse_fields(&alone.join(" ")).err().map(|_| {
            format!(
                "the {} field \"{}\" is invalid: ",
                FIELD_NAMES.get(i).copied().unwrap_or("?"),
                fields[i]
            )
        })
    })
}

/// The machine's time zone (`chrono::Local`, which honours `TZ`) with one fix:
/// for a repeated wall-clock time (clocks going back), chrono 0.4.45 lists the
/// later instant first, while `MappedLocalTime::Ambiguous` promises the
/// earliest first and croner relies on it. Left as is, a daily 01:30 job would
/// run at the second 01:30 and a `*/30` job would skip an hour of runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SystemZone;

impl TimeZone for SystemZone {
    type Offset = FixedOffset;

    fn from_offset(_: &FixedOffset) -> SystemZone {
        SystemZone
    }

    fn offset_from_local_date(&self, local: &NaiveDate) -> MappedLocalTime<FixedOffset> {
        Local.offset_from_local_date(local)
    }

    fn offset_from_local_datetime(&self, local: &NaiveDateTime) -> MappedLocalTime<FixedOffset> {
        match Local.offset_from_local_datetime(local) {
            // The larger offset is the earlier instant.
            MappedLocalTime::Ambiguous(a, b) if a.local_minus_utc() < b.local_minus_utc() => {
                MappedLocalTime::Ambiguous(b, a)
            }
            other => other,
        }
    }

    fn offset_from_utc_date(&self, utc: &NaiveDate) -> FixedOffset {
        Local.offset_from_utc_date(utc).fix()
    }

    fn offset_from_utc_datetime(&self, utc: &NaiveDateTime) -> FixedOffset {
        Local.offset_from_utc_datetime(utc).fix()
    }
}

/// The stored form of the next run after `after`: UTC in the store's format.
pub fn next_run_iso(cron: &str, after: DateTime<Utc>) -> Option<String> {
    CronSchedule::parse(cron)
        .ok()
        .and_then(|s| s.next_after(after))
        .map(seekclaw_store::format_iso)
}

#[cfg(test)]
#[path = "cron_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "cron_proptests.rs"]
mod proptests;
