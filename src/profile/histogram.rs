//! A latency histogram in nanoseconds (HDR, 3 significant digits) that never panics:
//! negative values count as 0 (and are counted apart), values above the range saturate.

use hdrhistogram::Histogram;

/// The largest value a [`LatencyHistogram`] resolves: 100 s. Larger values are recorded
/// as 100 s (and counted in [`LatencyHistogram::saturated`]).
pub const MAX_TRACKED_NS: u64 = 100_000_000_000;

/// Percentiles of a histogram, in microseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Percentiles {
    /// Number of values recorded.
    pub count: u64,
    /// Median, µs.
    pub p50: f64,
    /// 95th percentile, µs.
    pub p95: f64,
    /// 99th percentile, µs.
    pub p99: f64,
    /// Largest value, µs (exact, not bucketed; saturated values report the true value).
    pub max: f64,
}

/// An HDR histogram of durations in nanoseconds, with a fixed footprint allocated once at
/// construction (recording never allocates).
#[derive(Clone, Debug)]
pub struct LatencyHistogram {
    hist: Option<Histogram<u64>>,
    count: u64,
    negative: u64,
    saturated: u64,
    max_ns: i64,
    min_ns: i64,
}

impl Default for LatencyHistogram {
    fn default() -> Self {
        Self::new()
    }
}

impl LatencyHistogram {
    /// An empty histogram covering 1 ns ..= [`MAX_TRACKED_NS`] at 3 significant digits.
    pub fn new() -> Self {
        // The bounds are constants that hdrhistogram accepts; if it ever refused them the
        // histogram would still count, min and max, and report 0 for percentiles.
        let hist = Histogram::new_with_bounds(1, MAX_TRACKED_NS, 3).ok();
        Self {
            hist,
            count: 0,
            negative: 0,
            saturated: 0,
            max_ns: i64::MIN,
            min_ns: i64::MAX,
        }
    }

    /// Records one value in nanoseconds. Never panics: negative values are recorded as 0
    /// (and counted in [`LatencyHistogram::negative`]), values above [`MAX_TRACKED_NS`] as
    /// the maximum (counted in [`LatencyHistogram::saturated`]).
    pub fn record_ns(&mut self, ns: i64) {
        self.count = self.count.saturating_add(1);
        self.max_ns = self.max_ns.max(ns);
        self.min_ns = self.min_ns.min(ns);
        let v = if ns < 0 {
            self.negative += 1;
            0
        } else {
            ns as u64
        };
        if v > MAX_TRACKED_NS {
            self.saturated += 1;
        }
        if let Some(h) = self.hist.as_mut() {
            h.saturating_record(v.min(MAX_TRACKED_NS));
        }
    }

    /// Adds every value of `other` (saturating).
    pub fn merge(&mut self, other: &LatencyHistogram) {
        if let (Some(a), Some(b)) = (self.hist.as_mut(), other.hist.as_ref()) {
            // Same bounds on both sides, so `add` cannot fail; a failure would only lose
            // percentiles, never panic.
            let _ = a.add(b);
        }
        self.count = self.count.saturating_add(other.count);
        self.negative += other.negative;
        self.saturated += other.saturated;
        self.max_ns = self.max_ns.max(other.max_ns);
        self.min_ns = self.min_ns.min(other.min_ns);
    }

    /// Number of values recorded.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Values that were negative (recorded as 0).
    pub fn negative(&self) -> u64 {
        self.negative
    }

    /// Values above [`MAX_TRACKED_NS`] (recorded as the maximum).
    pub fn saturated(&self) -> u64 {
        self.saturated
    }

    /// The value at quantile `q` (clamped to 0..=1, NaN as 0) in nanoseconds (0 when empty).
    pub fn quantile_ns(&self, q: f64) -> u64 {
        match &self.hist {
            Some(h) if self.count > 0 => {
                let q = if q.is_nan() { 0.0 } else { q.clamp(0.0, 1.0) };
                h.value_at_quantile(q)
            }
            _ => 0,
        }
    }

    /// Median in µs.
    pub fn p50_us(&self) -> f64 {
        self.quantile_ns(0.50) as f64 / 1e3
    }
    /// 95th percentile in µs.
    pub fn p95_us(&self) -> f64 {
        self.quantile_ns(0.95) as f64 / 1e3
    }
    /// 99th percentile in µs.
    pub fn p99_us(&self) -> f64 {
        self.quantile_ns(0.99) as f64 / 1e3
    }
    /// The exact largest value recorded, in µs (0 when empty).
    pub fn max_us(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.max_ns as f64 / 1e3
        }
    }
    /// The exact smallest value recorded, in µs (0 when empty).
    pub fn min_us(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.min_ns as f64 / 1e3
        }
    }

    /// All percentiles at once.
    pub fn percentiles(&self) -> Percentiles {
        Percentiles {
            count: self.count,
            p50: self.p50_us(),
            p95: self.p95_us(),
            p99: self.p99_us(),
            max: self.max_us(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_match_a_known_distribution() {
        let mut h = LatencyHistogram::new();
        // 1..=1000 µs: the q-quantile is q × 1000 µs (within the 0.1% HDR precision).
        for us in 1..=1000i64 {
            h.record_ns(us * 1_000);
        }
        assert_eq!(h.count(), 1000);
        for (got, want) in [
            (h.p50_us(), 500.0),
            (h.p95_us(), 950.0),
            (h.p99_us(), 990.0),
        ] {
            assert!((got - want).abs() <= want * 1e-3, "{got} vs {want}");
        }
        assert_eq!(h.max_us(), 1000.0);
        assert_eq!(h.min_us(), 1.0);
    }

    #[test]
    fn out_of_range_values_never_panic() {
        let mut h = LatencyHistogram::new();
        h.record_ns(-5);
        h.record_ns(i64::MIN);
        h.record_ns(i64::MAX);
        h.record_ns(0);
        assert_eq!(h.count(), 4);
        assert_eq!(h.negative(), 2);
        assert_eq!(h.saturated(), 1);
        assert_eq!(h.max_us(), i64::MAX as f64 / 1e3);
        assert!(h.quantile_ns(1.0) >= MAX_TRACKED_NS);
        assert_eq!(h.quantile_ns(0.25), 0);
        assert_eq!(h.quantile_ns(f64::NAN), h.quantile_ns(f64::NAN));
    }

    #[test]
    fn empty_reports_zero_and_merge_adds() {
        let mut a = LatencyHistogram::new();
        assert_eq!(a.percentiles(), Percentiles::default());
        let mut b = LatencyHistogram::new();
        b.record_ns(2_000);
        a.record_ns(1_000);
        a.merge(&b);
        assert_eq!(a.count(), 2);
        assert_eq!(a.max_us(), 2.0);
    }
}
