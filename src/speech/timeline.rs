//! The session timeline in audio samples: session clock time ↔ sample index, so audio
//! written by position lines up with the replay.

use crate::time::HostTime;

/// Maps session clock time to a sample index: index 0 is `origin`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timeline {
    /// The session time of sample 0.
    pub origin: HostTime,
    /// Samples per second.
    pub rate_hz: u32,
}

impl Timeline {
    /// The sample playing at `t` (floor; times before the origin map to 0).
    pub fn index_of(&self, t: HostTime) -> u64 {
        let ns = t.since(self.origin).max(0) as i128;
        (ns * self.rate_hz as i128 / 1_000_000_000) as u64
    }

    /// The first sample that starts at or after `t` (where speech decided at `t` can begin).
    pub fn index_at_or_after(&self, t: HostTime) -> u64 {
        let ns = t.since(self.origin).max(0) as i128;
        let rate = self.rate_hz as i128;
        ((ns * rate + 999_999_999) / 1_000_000_000) as u64
    }

    /// The session time at which sample `index` starts (rounded up to the nanosecond, so
    /// `index_of(time_of(i)) == i`).
    pub fn time_of(&self, index: u64) -> HostTime {
        let rate = self.rate_hz.max(1) as i128;
        let ns = (index as i128 * 1_000_000_000 + rate - 1) / rate;
        HostTime(
            self.origin
                .0
                .saturating_add(ns.min(i64::MAX as i128) as i64),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_sample_starts() {
        let tl = Timeline {
            origin: HostTime(1_000),
            rate_hz: 22_050,
        };
        assert_eq!(tl.index_of(HostTime(0)), 0);
        assert_eq!(tl.index_of(HostTime(1_000 + 1_000_000_000)), 22_050);
        for i in [0u64, 1, 7, 22_049, 22_050, 10_000_000] {
            assert_eq!(tl.index_of(tl.time_of(i)), i);
            assert_eq!(
                tl.index_of(HostTime(tl.time_of(i).0 - 1)),
                i.saturating_sub(1)
            );
        }
    }
}
