//! Cronos syntax croner does not take, rewritten into forms it does:
//! ranges that wrap past the end of a field (`23-01` hours, `FRI-MON`,
//! `45-15/2` minutes) and a single start with a step (`1/2`). Everything
//! else is passed through for croner to accept or refuse.

/// Bounds of the five fields; day of week wraps as 0-6 (7 is Sunday too).
const FIELDS: [(u32, u32, &[&str]); 5] = [
    (0, 59, &[]),
    (0, 23, &[]),
    (1, 31, &[]),
    (
        1,
        12,
        &[
            "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC",
        ],
    ),
    (0, 6, &["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"]),
];

/// `expr` with its wrapping ranges and single-start steps spelled out; the
/// field count is the caller's to check.
pub fn normalize(expr: &str) -> String {
    expr.split_whitespace()
        .enumerate()
        .map(|(i, field)| match FIELDS.get(i) {
            Some(&(min, max, names)) => field
                .split(',')
                .map(|part| part_of(part, min, max, names))
                .collect::<Vec<_>>()
                .join(","),
            None => field.to_string(),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn part_of(part: &str, min: u32, max: u32, names: &[&str]) -> String {
    let (range, step) = match part.split_once('/') {
        Some((r, s)) => match s.parse::<u32>() {
            Ok(s) if s > 0 => (r, Some(s)),
            _ => return part.to_string(),
        },
        None => (part, None),
    };
    let value = |v: &str| -> Option<u32> {
        v.parse::<u32>().ok().or_else(|| {
            let first = min as usize;
            names
                .iter()
                .position(|n| n.eq_ignore_ascii_case(v))
                .map(|i| (i + first) as u32)
        })
    };
    match (range.split_once('-'), step) {
        // `1/2`: from 1 to the field's end.
        (None, Some(s)) => match value(range) {
            Some(start) if start <= max => format!("{start}-{max}/{s}"),
            _ => part.to_string(),
        },
        // Sunday may be 7: as a start it is day 0; as an end (`6-7`) no wrap.
        (Some((a, b)), step) => match (
            value(a).map(|a| if a == 7 && max == 6 { 0 } else { a }),
            value(b),
        ) {
            (Some(a), Some(b)) if a > b && a <= max && b >= min => {
                let s = step.unwrap_or(1);
                let last = a + (max - a) / s * s;
                // The step carries on across the wrap.
                let next = last + s - (max - min + 1);
                let head = format!("{a}-{max}/{s}");
                if next <= b {
                    format!("{head},{next}-{b}/{s}")
                } else {
                    head
                }
            }
            _ => part.to_string(),
        },
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
            ("*/5 9-17 * * MON-FRI", "*/5 9-17 * * MON-FRI"),
            ("0 0 L * *", "0 0 L * *"),
            ("0 0 * * 5#3", "0 0 * * 5#3"),
        ] {
            assert_eq!(normalize(given), want, "{given}");
        }
    }
}
