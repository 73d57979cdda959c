//! Host-to-device clock offset, estimated from arrivals (pure compute).
//!
//! Each arrival gives `d = arrival_host − capture_device` = offset + link latency. Latency is
//! never negative and is smallest for the least-delayed samples, so the offset is estimated
//! as the *minimum* of `d` over a sliding window (robust to jitter and bursts, which only
//! add delay). The window is kept as per-bucket minima so the estimate follows slow drift
//! of the two clocks. Link latency is then `arrival − (capture + offset)`: the delay beyond
//! the fastest delivery seen in the window. Without a shared clock the constant part of the
//! latency cannot be observed; this is the honest, measurable part.

use std::collections::VecDeque;

/// Sliding-window minimum of `arrival − capture`.
#[derive(Clone, Debug)]
pub struct OffsetEstimator {
    bucket_ns: i64,
    buckets: usize,
    /// `(bucket index by host time, minimum d in that bucket)`, oldest first.
    minima: VecDeque<(i64, i64)>,
}

impl OffsetEstimator {
    /// A window of `buckets` buckets of `bucket_ns` host time each (e.g. 10 × 1 s).
    pub fn new(bucket_ns: i64, buckets: usize) -> Self {
        Self {
            bucket_ns: bucket_ns.max(1),
            buckets: buckets.max(1),
            minima: VecDeque::new(),
        }
    }

    /// Forgets everything (a new connection may come from a rebooted device).
    pub fn reset(&mut self) {
        self.minima.clear();
    }

    /// Adds one arrival; returns the link latency of this sample in ns (≥ 0) under the
    /// updated estimate.
    pub fn observe(&mut self, capture_ns: i64, arrival_ns: i64) -> i64 {
        let d = arrival_ns.saturating_sub(capture_ns);
        let b = arrival_ns.div_euclid(self.bucket_ns);
        match self.minima.back_mut() {
            Some((last, m)) if *last == b => *m = (*m).min(d),
            _ => self.minima.push_back((b, d)),
        }
        while self
            .minima
            .front()
            .is_some_and(|(first, _)| b - *first >= self.buckets as i64)
        {
            self.minima.pop_front();
        }
        let offset = self.offset_ns().unwrap_or(d);
        d.saturating_sub(offset).max(0)
    }

    /// The current offset estimate (host ns − device ns), if anything was observed.
    pub fn offset_ns(&self) -> Option<i64> {
        self.minima.iter().map(|(_, m)| *m).min()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recovers_offset_under_jitter() {
        // True offset 5 s, latency 1 ms + pseudo-random jitter up to 20 ms.
        let mut e = OffsetEstimator::new(1_000_000_000, 10);
        let mut x: u64 = 12345;
        let mut worst = 0;
        for i in 0..5_000i64 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let jitter = ((x >> 33) % 20_000_000) as i64;
            let capture = i * 1_000_000;
            let arrival = capture + 5_000_000_000 + 1_000_000 + jitter;
            let lat = e.observe(capture, arrival);
            if i > 100 {
                worst = worst.max((lat - jitter).abs());
            }
        }
        let off = e.offset_ns().unwrap();
        assert!((off - 5_001_000_000).abs() < 200_000, "{off}");
        assert!(worst < 200_000, "{worst}");
    }

    #[test]
    fn follows_a_step_after_the_window() {
        let mut e = OffsetEstimator::new(100, 3);
        for t in 0..500 {
            e.observe(t, t + 1_000);
        }
        assert_eq!(e.offset_ns(), Some(1_000));
        // The device clock jumps (reboot without reset): the old minimum ages out.
        for t in 500..1_000 {
            e.observe(t - 10_000, t + 1_000);
        }
        assert_eq!(e.offset_ns(), Some(11_000));
    }
}
