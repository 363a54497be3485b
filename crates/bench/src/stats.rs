//! Small order statistics over samples. Nearest-rank percentiles: with few
//! samples (20 runs) interpolation would only pretend to precision we lack.

use std::time::Duration;

/// The `p`-th percentile (0..=100) of already sorted samples, nearest rank.
/// `None` for no samples.
pub fn percentile_sorted<T: Copy>(sorted: &[T], p: f64) -> Option<T> {
    if sorted.is_empty() {
        return None;
    }
    let rank = (p / 100.0 * sorted.len() as f64).ceil() as usize;
    let index = rank.clamp(1, sorted.len()) - 1;
    sorted.get(index).copied()
}

/// The median of `values` (mean of the middle two for an even count, so two
/// rounds give their mean). NaN for no values.
pub fn median_f64(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match (v.get(n.wrapping_sub(1) / 2), v.get(n / 2)) {
        (Some(a), Some(b)) => (a + b) / 2.0,
        _ => f64::NAN,
    }
}

/// Min, median and p95 of a set of timings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Timings {
    pub min: Duration,
    pub median: Duration,
    pub p95: Duration,
    pub max: Duration,
}

impl Timings {
    pub fn of(samples: &[Duration]) -> Option<Timings> {
        let mut s = samples.to_vec();
        s.sort();
        Some(Timings {
            min: *s.first()?,
            median: percentile_sorted(&s, 50.0)?,
            p95: percentile_sorted(&s, 95.0)?,
            max: *s.last()?,
        })
    }
}

/// Count, median, p99 and max: the tail of many latency samples.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tail {
    pub n: usize,
    pub p50: Duration,
    pub p99: Duration,
    pub max: Duration,
}

impl Tail {
    pub fn of(samples: &[Duration]) -> Option<Tail> {
        let mut s = samples.to_vec();
        s.sort();
        Some(Tail {
            n: s.len(),
            p50: percentile_sorted(&s, 50.0)?,
            p99: percentile_sorted(&s, 99.0)?,
            max: *s.last()?,
        })
    }
}

/// Milliseconds with fractions, for printing and JSON.
pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let v: Vec<u32> = (1..=100).collect();
        assert_eq!(percentile_sorted(&v, 50.0), Some(50));
        assert_eq!(percentile_sorted(&v, 99.0), Some(99));
        assert_eq!(percentile_sorted(&v, 100.0), Some(100));
        assert_eq!(percentile_sorted(&v, 0.0), Some(1));
        let twenty: Vec<u32> = (1..=20).collect();
        assert_eq!(percentile_sorted(&twenty, 95.0), Some(19));
        assert_eq!(percentile_sorted::<u32>(&[], 50.0), None);
        assert_eq!(percentile_sorted(&[7], 99.0), Some(7));
    }

    #[test]
    fn median_of_rounds() {
        assert_eq!(median_f64(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median_f64(&[1.0, 2.0]), 1.5);
        assert_eq!(median_f64(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert!(median_f64(&[]).is_nan());
    }

    #[test]
    fn timings_summary() {
        let d: Vec<Duration> = [5, 1, 3, 2, 4].map(Duration::from_millis).to_vec();
        let t = Timings::of(&d).unwrap();
        assert_eq!(t.min, Duration::from_millis(1));
        assert_eq!(t.median, Duration::from_millis(3));
        assert_eq!(t.p95, Duration::from_millis(5));
        assert_eq!(t.max, Duration::from_millis(5));
        assert!(Timings::of(&[]).is_none());
        let tail = Tail::of(
            &(1..=100)
                .rev()
                .map(Duration::from_millis)
                .collect::<Vec<_>>(),
        )
        .unwrap();
        assert_eq!(
            (tail.n, tail.p50, tail.p99),
            (100, Duration::from_millis(50), Duration::from_millis(99))
        );
        assert_eq!(tail.max, Duration::from_millis(100));
        assert!(Tail::of(&[]).is_none());
        assert_eq!(ms(Duration::from_micros(1500)), 1.5);
    }
}
