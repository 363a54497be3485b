use chrono::FixedOffset;

use super::*;

fn utc(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
}

fn next(expr: &str, after: &str) -> String {
    let s = CronSchedule::parse(expr).unwrap();
    s.next_after(utc(after)).unwrap().to_rfc3339()
}

#[test]
fn five_fields_only_and_errors_say_why() {
    for (expr, why) in [
        ("* * * *", "expected 5 fields"),
        ("0 * * * * *", "got 6"),
        ("@daily", "got 1"),
        ("", "got 0"),
        ("61 * * * *", "the minute field \"61\" is invalid"),
        ("* 24 * * *", "the hour field \"24\" is invalid"),
        ("* * 0 * *", "the day-of-month field \"0\" is invalid"),
        ("* * * 13 *", "the month field \"13\" is invalid"),
        ("0 9 * * MOX", "the day-of-week field \"MOX\" is invalid"),
        ("x * * * *", "(in \"x * * * *\")"),
        ("0 0 31 2 *", "never matches"),
    ] {
        let err = CronSchedule::parse(expr).unwrap_err().to_string();
        assert!(
            err.starts_with("Invalid cron expression: "),
            "{expr}: {err}"
        );
        assert!(err.contains(why), "{expr}: {err}");
    }
    for ok in [
        "* * * * *",
        "*/5 9-17 * * MON-FRI",
        "0 9 * * 1-5",
        "30 2 1 JAN *",
        "0 0 L * *",
    ] {
        assert!(CronSchedule::parse(ok).is_ok(), "{ok}");
    }
}

/// Found by `cron_proptests`: croner takes a field of only commas as one
/// that selects nothing, and searched every minute up to its year limit
/// before refusing `, * * * *` (8 s of CPU in release, a minute in debug).
#[test]
fn fields_that_select_nothing_are_refused_at_once() {
    for expr in [
        ", * * * *",
        "0 ,, * * *",
        "0 0 , * *",
        "0 0 * , *",
        "0 0 * * ,",
    ] {
        let start = std::time::Instant::now();
        let err = CronSchedule::parse(expr).unwrap_err().to_string();
        assert!(err.contains("never matches"), "{expr}: {err}");
        assert!(
            start.elapsed() < std::time::Duration::from_secs(2),
            "{expr}: {:?}",
            start.elapsed()
        );
    }
    // Empty items beside real ones are skipped, as before.
    assert!(CronSchedule::parse("1,,2 * * * *").is_ok());
}

#[test]
fn next_run_is_strictly_after_now() {
    let s = CronSchedule::parse("0 9 * * *").unwrap();
    let at_nine = utc("2026-05-04T09:00:00Z");
    assert_eq!(
        s.next_after_in(at_nine, &Utc).unwrap(),
        utc("2026-05-05T09:00:00Z"),
        "exactly on an occurrence: the next one"
    );
    let just_before = utc("2026-05-04T08:59:59.999Z");
    assert_eq!(s.next_after_in(just_before, &Utc).unwrap(), at_nine);
    let every = CronSchedule::parse("* * * * *").unwrap();
    assert_eq!(
        every
            .next_after_in(utc("2026-05-04T09:00:00.5Z"), &Utc)
            .unwrap(),
        utc("2026-05-04T09:01:00Z")
    );
}

#[test]
fn fields_are_read_in_the_given_zone_and_stored_in_utc() {
    let s = CronSchedule::parse("0 9 * * *").unwrap();
    let shanghai = FixedOffset::east_opt(8 * 3600).unwrap();
    assert_eq!(
        s.next_after_in(utc("2026-05-04T00:00:00Z"), &shanghai)
            .unwrap(),
        utc("2026-05-04T01:00:00Z")
    );
    // Day-of-week is the local day: Monday 09:00 in UTC+8 is Monday 01:00 UTC.
    let monday = CronSchedule::parse("0 9 * * MON").unwrap();
    assert_eq!(
        monday
            .next_after_in(utc("2026-05-03T20:00:00Z"), &shanghai)
            .unwrap(),
        utc("2026-05-04T01:00:00Z")
    );
    let iso = next_run_iso("0 9 * * *", utc("2026-05-04T00:00:00Z")).unwrap();
    assert_eq!(iso.len(), "2026-07-31T12:00:00.0000000+00:00".len());
    assert!(iso.ends_with(":00:00.0000000+00:00"), "{iso}");
    assert_eq!(next_run_iso("nope", Utc::now()), None);
}

/// Runs `case` of [`tz_child`] in a copy of this test binary with `TZ` set:
/// chrono's `Local` reads `TZ`, and changing the environment of this
/// (multi-threaded) process is not sound.
fn in_zone(tz: &str, case: &str) {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "scheduler::cron::tests::tz_child",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("TZ", tz)
        .env("SEEKCLAW_TZ_CASE", case)
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{tz} {case}: {text}");
    assert!(text.contains("1 passed"), "{tz} {case}: {text}");
    assert!(text.contains(&format!("tz case {case} ran")), "{text}");
}

#[test]
fn new_york_across_both_dst_changes() {
    in_zone("America/New_York", "new_york");
}

#[test]
fn shanghai_has_no_dst() {
    in_zone("Asia/Shanghai", "shanghai");
}

/// The zone-dependent assertions; does nothing unless started by [`in_zone`].
#[test]
#[ignore = "started by in_zone with TZ set"]
fn tz_child() {
    let Ok(case) = std::env::var("SEEKCLAW_TZ_CASE") else {
        return;
    };
    match case.as_str() {
        "new_york" => {
            // 2026: DST starts Sun Mar 8 02:00 EST (-5) -> 03:00 EDT (-4),
            // ends Sun Nov 1 02:00 EDT -> 01:00 EST.
            assert_eq!(
                next("0 9 * * *", "2026-03-06T15:00:00Z"),
                "2026-03-07T14:00:00+00:00",
                "09:00 EST"
            );
            assert_eq!(
                next("0 9 * * *", "2026-03-07T15:00:00Z"),
                "2026-03-08T13:00:00+00:00",
                "09:00 EDT, the day the clocks spring forward"
            );
            // 02:30 does not exist on Mar 8: the run moves to the first
            // instant after the gap (03:00 EDT), then back to 02:30.
            assert_eq!(
                next("30 2 * * *", "2026-03-07T08:00:00Z"),
                "2026-03-08T07:00:00+00:00"
            );
            assert_eq!(
                next("30 2 * * *", "2026-03-08T07:00:00Z"),
                "2026-03-09T06:30:00+00:00"
            );
            // 01:30 happens twice on Nov 1: a daily job runs once.
            assert_eq!(
                next("30 1 * * *", "2026-10-31T12:00:00Z"),
                "2026-11-01T05:30:00+00:00",
                "01:30 EDT"
            );
            assert_eq!(
                next("30 1 * * *", "2026-11-01T05:30:00Z"),
                "2026-11-02T06:30:00+00:00",
                "not again at 01:30 EST"
            );
            assert_eq!(
                next("0 1 * * *", "2026-10-31T12:00:00Z"),
                "2026-11-01T05:00:00+00:00",
                "01:00 EDT, the first of the two"
            );
            // An interval job keeps its real-time rhythm through the repeated hour.
            assert_eq!(
                next("*/30 * * * *", "2026-11-01T05:00:00Z"),
                "2026-11-01T05:30:00+00:00"
            );
            assert_eq!(
                next("*/30 * * * *", "2026-11-01T05:30:00Z"),
                "2026-11-01T06:00:00+00:00"
            );
            assert_eq!(
                next("*/30 * * * *", "2026-11-01T06:00:00Z"),
                "2026-11-01T06:30:00+00:00"
            );
            assert_eq!(
                next("*/30 * * * *", "2026-11-01T06:30:00Z"),
                "2026-11-01T07:00:00+00:00"
            );
            // And through the skipped one in spring: 01:30 EST, then 03:00 EDT.
            assert_eq!(
                next("*/30 * * * *", "2026-03-08T06:00:00Z"),
                "2026-03-08T06:30:00+00:00"
            );
            assert_eq!(
                next("*/30 * * * *", "2026-03-08T06:30:00Z"),
                "2026-03-08T07:00:00+00:00"
            );
            assert_eq!(
                next("0 9 * * *", "2026-11-01T12:00:00Z"),
                "2026-11-01T14:00:00+00:00",
                "09:00 EST after the change"
            );
        }
        "shanghai" => {
            for (after, want) in [
                ("2026-01-15T02:00:00Z", "2026-01-16T01:00:00+00:00"),
                ("2026-03-07T15:00:00Z", "2026-03-08T01:00:00+00:00"),
                ("2026-07-01T00:00:00Z", "2026-07-01T01:00:00+00:00"),
                ("2026-11-01T00:00:00Z", "2026-11-01T01:00:00+00:00"),
            ] {
                assert_eq!(next("0 9 * * *", after), want);
            }
            // Monday in Shanghai starts on Sunday 16:00 UTC.
            assert_eq!(
                next("0 0 * * MON", "2026-05-01T00:00:00Z"),
                "2026-05-03T16:00:00+00:00"
            );
        }
        other => panic!("unknown case {other}"),
    }
    println!("tz case {case} ran");
}

#[test]
fn a_day_of_month_and_a_day_of_week_must_both_match() {
    let s = CronSchedule::parse("0 0 13 * 5").unwrap();
    // From Monday 2026-11-30: the next Friday the 13th, not the next Friday.
    assert_eq!(
        s.next_after_in(utc("2026-11-30T00:00:00Z"), &Utc).unwrap(),
        utc("2027-08-13T00:00:00Z")
    );
    let s = CronSchedule::parse("0 9 1 * 1").unwrap();
    assert_eq!(
        s.next_after_in(utc("2026-11-30T00:00:00Z"), &Utc).unwrap(),
        utc("2027-02-01T09:00:00Z"),
        "a Monday the 1st"
    );
    // Either one alone still works as usual.
    let s = CronSchedule::parse("0 9 * * 1").unwrap();
    assert_eq!(
        s.next_after_in(utc("2026-11-30T10:00:00Z"), &Utc).unwrap(),
        utc("2026-12-07T09:00:00Z")
    );
}

#[test]
fn cronos_ranges_that_wrap_and_single_start_steps_are_taken() {
    // Overnight hours: 23:00, then 00:00 and 01:00.
    let s = CronSchedule::parse("0 23-01 * * *").unwrap();
    let mut t = utc("2026-05-04T12:00:00Z");
    let mut seen = Vec::new();
    for _ in 0..4 {
        t = s.next_after_in(t, &Utc).unwrap();
        seen.push(t.to_rfc3339());
    }
    assert_eq!(
        seen,
        [
            "2026-05-04T23:00:00+00:00",
            "2026-05-05T00:00:00+00:00",
            "2026-05-05T01:00:00+00:00",
            "2026-05-05T23:00:00+00:00"
        ]
    );
    // Friday to Monday, and a step carried across the wrap.
    assert_eq!(
        next("0 9 * * FRI-MON", "2026-12-01T00:00:00Z"),
        "2026-12-04T09:00:00+00:00"
    );
    assert_eq!(
        next("45-15/2 1 * * *", "2026-05-04T01:59:30Z"),
        "2026-05-05T01:01:00+00:00"
    );
    assert_eq!(
        next("1/2 * * * *", "2026-05-04T01:00:30Z"),
        "2026-05-04T01:01:00+00:00"
    );
    assert_eq!(
        next("0 0 1 DEC-FEB *", "2026-03-01T00:00:00Z"),
        "2026-12-01T00:00:00+00:00"
    );
    // Days of week run to 7 (Sunday) for a single-start step and as a start.
    assert_eq!(
        next("0 9 * * 1/2", "2026-12-05T10:00:00Z"),
        "2026-12-06T09:00:00+00:00"
    );
    assert_eq!(
        next("0 9 * * 7-2", "2026-12-02T10:00:00Z"),
        "2026-12-06T09:00:00+00:00"
    );
}
