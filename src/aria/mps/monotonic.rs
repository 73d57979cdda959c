//! Timestamp order checks. MPS files are expected to be in non-decreasing tracking time;
//! the readers never reorder rows (file order is kept), they report instead.

use crate::time::DeviceTime;

/// How well a sequence of timestamps is ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct MonotonicReport {
    /// Number of timestamps seen.
    pub count: u64,
    /// Steps where the time went backwards (`t[i] < t[i-1]`).
    pub backward_steps: u64,
    /// Steps where the time repeated (`t[i] == t[i-1]`).
    pub repeated_steps: u64,
    /// Index of the first backward step (the later sample), if any.
    pub first_backward_index: Option<u64>,
}

impl MonotonicReport {
    /// True when no step goes backwards (repeats allowed).
    pub fn is_non_decreasing(&self) -> bool {
        self.backward_steps == 0
    }
}

/// Incremental version of [`check_monotonic`], for streaming readers.
#[derive(Debug, Clone, Default)]
pub struct MonotonicCheck {
    last: Option<DeviceTime>,
    report: MonotonicReport,
}

impl MonotonicCheck {
    /// Accounts for the next timestamp.
    pub fn push(&mut self, t: DeviceTime) {
        if let Some(prev) = self.last {
            if t < prev {
                self.report.backward_steps += 1;
                if self.report.first_backward_index.is_none() {
                    self.report.first_backward_index = Some(self.report.count);
                }
            } else if t == prev {
                self.report.repeated_steps += 1;
            }
        }
        self.report.count += 1;
        self.last = Some(t);
    }

    /// The report so far.
    pub fn report(&self) -> MonotonicReport {
        self.report
    }
}

/// Checks the order of `times` (file order) without changing it.
pub fn check_monotonic(times: impl IntoIterator<Item = DeviceTime>) -> MonotonicReport {
    let mut check = MonotonicCheck::default();
    for t in times {
        check.push(t);
    }
    check.report()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_backward_and_repeated_steps() {
        let t = |v: &[i64]| v.iter().map(|&x| DeviceTime(x)).collect::<Vec<_>>();
        let r = check_monotonic(t(&[1, 2, 2, 5, 3, 4, 0]));
        assert_eq!(r.count, 7);
        assert_eq!(r.backward_steps, 2);
        assert_eq!(r.repeated_steps, 1);
        assert_eq!(r.first_backward_index, Some(4));
        assert!(!r.is_non_decreasing());
        assert!(check_monotonic(t(&[1, 1, 2])).is_non_decreasing());
        assert_eq!(check_monotonic(Vec::new()).count, 0);
    }
}
