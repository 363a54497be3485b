//! Timestamps stored as text: UTC ISO-8601 with 7 fractional digits and an
//! explicit `+00:00` offset (the .NET round-trip format the clients already
//! know). Fixed width, so they sort correctly as text.

use chrono::{DateTime, Timelike, Utc};

/// The current time as `2026-07-31T12:00:00.1234567+00:00`.
pub fn now_iso() -> String {
    format_iso(Utc::now())
}

/// Formats a UTC time as `2026-07-31T12:00:00.1234567+00:00`.
pub fn format_iso(t: DateTime<Utc>) -> String {
    // chrono only offers 3/6/9 fractional digits; .NET ticks are 100 ns.
    // A leap second shows up as nanos >= 1e9: clamp so the width stays 7.
    let ticks = (t.nanosecond() / 100).min(9_999_999);
    format!("{}.{ticks:07}+00:00", t.format("%Y-%m-%dT%H:%M:%S"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn formats_with_seven_digits_and_offset() {
        let t = Utc
            .with_ymd_and_hms(2026, 7, 31, 12, 0, 0)
            .single()
            .unwrap()
            .with_nanosecond(123_456_789)
            .unwrap();
        assert_eq!(format_iso(t), "2026-07-31T12:00:00.1234567+00:00");
        let t0 = Utc.with_ymd_and_hms(2026, 1, 2, 3, 4, 5).single().unwrap();
        assert_eq!(format_iso(t0), "2026-01-02T03:04:05.0000000+00:00");
    }

    #[test]
    fn now_has_fixed_width_and_sorts() {
        let a = now_iso();
        let b = now_iso();
        assert_eq!(a.len(), "2026-07-31T12:00:00.1234567+00:00".len());
        assert!(a <= b);
        assert!(a.ends_with("+00:00"));
    }
}
