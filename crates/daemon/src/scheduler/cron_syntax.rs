//! Cronos syntax croner does not take, rewritten into forms it does:
//! ranges that wrap past the end of a field (`23-01` hours, `FRI-MON`,
//! `45-15/2` minutes), Sunday as 7 starting a range (`7-2`) and a single
//! start with a step (`1/2`). Everything else is passed through for croner
//! to accept or refuse.

/// One field's bounds: wrapping runs `min..=max`; Cronos' last value caps
/// steps and ends single-start steps (7 for days of week: Sunday again).
struct Field {
    min: u32,
    max: u32,
    last: u32,
    names: &'static [&'static str],
}

const FIELDS: [Field; 5] = [
    Field {
        min: 0,
        max: 59,
        last: 59,
        names: &[],
    },
    Field {
        min: 0,
        max: 23,
        last: 23,
        names: &[],
    },
    Field {
        min: 1,
        max: 31,
        last: 31,
        names: &[],
    },
    Field {
        min: 1,
        max: 12,
        last: 12,
        names: &[
            "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC",
        ],
    },
    Field {
        min: 0,
        max: 6,
        last: 7,
        names: &["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"],
    },
];

/// `expr` with its wrapping ranges and single-start steps spelled out; the
/// field count is the caller's to check.
pub fn normalize(expr: &str) -> String {
    expr.split_whitespace()
        .enumerate()
        .map(|(i, field)| match FIELDS.get(i) {
            Some(f) => field
                .split(',')
                .map(|part| part_of(part, f))
                .collect::<Vec<_>>()
                .join(","),
            None => field.to_string(),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn part_of(part: &str, f: &Field) -> String {
    // Cronos takes steps from 1 to the field's last value; others are left
    // for croner to refuse (and no arithmetic below can overflow).
    let (range, step) = match part.split_once('/') {
        Some((r, s)) => match s.parse::<u32>() {
            Ok(s) if (1..=f.last).contains(&s) => (r, Some(s)),
            _ => return part.to_string(),
        },
        None => (part, None),
    };
    let value = |v: &str| -> Option<u32> {
        v.parse::<u32>().ok().or_else(|| {
            f.names
                .iter()
                .position(|n| n.eq_ignore_ascii_case(v))
                .map(|i| i as u32 + f.min)
        })
    };
    match (range.split_once('-'), step) {
        // `1/2`: from 1 to the field's last value.
        (None, Some(s)) => match value(range) {
            Some(start) if start <= f.last => format!("{start}-{}/{s}", f.last),
            _ => part.to_string(),
        },
        (Some((a, b)), step) => {
            let s = step.unwrap_or(1);
            match (value(a), value(b)) {
                // Sunday as 7 starting a range of days: from day 0.
                (Some(7), Some(b)) if f.last == 7 && b < 7 => format!("0-{b}/{s}"),
                // Sunday to Sunday is Sunday: croner reads a range's `-SUN`
                // as `-7` (MON-SUN is the whole week), so SUN-SUN would be
                // every day.
                (Some(0), Some(0)) if f.last == 7 && b.eq_ignore_ascii_case("SUN") => {
                    "0".to_string()
                }
                (Some(a), Some(b)) if a > b && a <= f.max && b >= f.min => {
                    let end = a + (f.max - a) / s * s;
                    // The step carries on across the wrap.
                    let next = end + s - (f.max - f.min + 1);
                    let head = format!("{a}-{}/{s}", f.max);
                    if next <= b {
                        format!("{head},{next}-{b}/{s}")
                    } else {
                        head
                    }
                }
                _ => part.to_string(),
            }
        }
        (None, None) => part.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::normalize;

    #[test]
    fn wrapping_ranges_and_single_start_steps_are_spelled_out() {
        for (given, want) in [
            ("0 23-01 * * *", "0 23-23/1,0-1/1 * * *"),
            ("5-2 * * * *", "5-59/1,0-2/1 * * * *"),
            ("30,45-15/2 1 * * *", "30,45-59/2,1-15/2 1 * * *"),
            ("0 0 1 DEC-FEB *", "0 0 1 12-12/1,1-2/1 *"),
            ("0 9 * * FRI-MON", "0 9 * * 5-6/1,0-1/1"),
            ("0 9 * * 6-7", "0 9 * * 6-7"),
            ("1/2 * * * *", "1-59/2 * * * *"),
            ("0 9 * * 1/2", "0 9 * * 1-7/2"),
            ("0 9 * * 7-2", "0 9 * * 0-2/1"),
            ("0 9 * * SUN-SUN", "0 9 * * 0"),
            ("0 9 * * 0-sun/2", "0 9 * * 0"),
            ("0 9 * * MON-SUN", "0 9 * * 1-6/1,0-0/1"),
            ("5-2/4294967295 * * * *", "5-2/4294967295 * * * *"),
            ("5-2/60 * * * *", "5-2/60 * * * *"),
            ("*/5 9-17 * * MON-FRI", "*/5 9-17 * * MON-FRI"),
            ("0 0 L * *", "0 0 L * *"),
            ("0 0 * * 5#3", "0 0 * * 5#3"),
        ] {
            assert_eq!(normalize(given), want, "{given}");
        }
    }
}
