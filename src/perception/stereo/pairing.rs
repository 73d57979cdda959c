//! [`StereoPairer`]: pairs left and right SLAM frames by capture time (pure, bounded). The
//! Gen1 SLAM cameras are triggered together (timestamps within microseconds), so a pair is
//! two frames within `max_skew_ns`; a frame that can no longer find a partner, or that
//! overflows the pending queue, is dropped and counted.

use std::collections::VecDeque;

use super::rectify::Side;
use crate::sample::{ImageFrame, Payload, Sample, StreamId};

/// A left and a right frame captured together.
#[derive(Debug, Clone, PartialEq)]
pub struct StereoPair<T> {
    /// Capture time of the left frame, device ns.
    pub capture_ns: i64,
    /// Capture time of the right frame minus the left's, ns.
    pub skew_ns: i64,
    /// The left frame.
    pub left: T,
    /// The right frame.
    pub right: T,
}

/// Counts of a pairer.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct PairingStats {
    /// Pairs formed.
    pub paired: u64,
    /// Left frames dropped without a partner (none within the skew, or queue full).
    pub dropped_left: u64,
    /// Right frames dropped without a partner.
    pub dropped_right: u64,
    /// Frames dropped for a capture time before the last one of their side.
    pub out_of_order: u64,
}

/// Pairs frames of the two sides by capture time, holding at most `capacity` unpaired
/// frames per side.
#[derive(Debug, Clone)]
pub struct StereoPairer<T> {
    max_skew_ns: i64,
    capacity: usize,
    left: VecDeque<(i64, T)>,
    right: VecDeque<(i64, T)>,
    last_ns: [Option<i64>; 2],
    stats: PairingStats,
}

/// Default largest left/right capture-time difference, ns (a tenth of the 10 fps period).
pub const DEFAULT_MAX_SKEW_NS: i64 = 10_000_000;
/// Default unpaired frames held per side.
pub const DEFAULT_CAPACITY: usize = 4;

impl<T> Default for StereoPairer<T> {
    fn default() -> Self {
        Self::new(DEFAULT_MAX_SKEW_NS, DEFAULT_CAPACITY)
    }
}

impl<T> StereoPairer<T> {
    /// A pairer accepting `|t_right − t_left| <= max_skew_ns`, holding at most `capacity`
    /// (at least 1) unpaired frames per side.
    pub fn new(max_skew_ns: i64, capacity: usize) -> Self {
        let capacity = capacity.max(1);
        Self {
            max_skew_ns: max_skew_ns.max(0),
            capacity,
            left: VecDeque::with_capacity(capacity),
            right: VecDeque::with_capacity(capacity),
            last_ns: [None, None],
            stats: PairingStats::default(),
        }
    }

    /// Counts so far.
    pub fn stats(&self) -> PairingStats {
        self.stats
    }

    /// Unpaired frames held `(left, right)`.
    pub fn pending(&self) -> (usize, usize) {
        (self.left.len(), self.right.len())
    }

    fn count_drop(&mut self, side: Side, n: usize) {
        match side {
            Side::Left => self.stats.dropped_left += n as u64,
            Side::Right => self.stats.dropped_right += n as u64,
        }
    }

    /// Adds a frame of one side captured at `capture_ns`; returns the pair it completes.
    pub fn push(&mut self, side: Side, capture_ns: i64, frame: T) -> Option<StereoPair<T>> {
        let k = side as usize;
        if self.last_ns[k].is_some_and(|l| capture_ns < l) {
            self.stats.out_of_order += 1;
            return None;
        }
        self.last_ns[k] = Some(capture_ns);
        let other_side = match side {
            Side::Left => Side::Right,
            Side::Right => Side::Left,
        };
        let skew = self.max_skew_ns;
        let other = match side {
            Side::Left => &mut self.right,
            Side::Right => &mut self.left,
        };
        // Other-side frames too old to pair with this one or any later one: gone.
        let stale = other
            .iter()
            .take_while(|(t, _)| *t < capture_ns.saturating_sub(skew))
            .count();
        other.drain(..stale);
        let partner = other
            .front()
            .is_some_and(|(t, _)| t.abs_diff(capture_ns) <= skew.unsigned_abs());
        let found = if partner { other.pop_front() } else { None };
        self.count_drop(other_side, stale);
        if let Some((t_other, f_other)) = found {
            self.stats.paired += 1;
            let (capture_ns, skew_ns, left, right) = match side {
                Side::Left => (capture_ns, t_other - capture_ns, frame, f_other),
                Side::Right => (t_other, capture_ns - t_other, f_other, frame),
            };
            return Some(StereoPair {
                capture_ns,
                skew_ns,
                left,
                right,
            });
        }
        // No partner yet. If the other side has already moved past this frame, none will
        // come (each side arrives in capture order).
        let other_ahead =
            self.last_ns[other_side as usize].is_some_and(|t| t > capture_ns.saturating_add(skew));
        if other_ahead {
            self.count_drop(side, 1);
            return None;
        }
        let mine = match side {
            Side::Left => &mut self.left,
            Side::Right => &mut self.right,
        };
        mine.push_back((capture_ns, frame));
        let over = mine.len().saturating_sub(self.capacity);
        mine.drain(..over);
        self.count_drop(side, over);
        None
    }
}

impl StereoPairer<ImageFrame> {
    /// Feeds a runtime sample: SLAM-left and SLAM-right image samples are paired, every
    /// other sample is ignored (`None`).
    pub fn push_sample(&mut self, sample: &Sample) -> Option<StereoPair<ImageFrame>> {
        let side = match sample.stream {
            StreamId::CameraSlamLeft => Side::Left,
            StreamId::CameraSlamRight => Side::Right,
            _ => return None,
        };
        let Payload::Image(frame) = &sample.payload else {
            return None;
        };
        self.push(side, sample.capture.ns(), frame.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_within_skew_and_counts_what_it_drops() {
        let mut p = StereoPairer::new(1_000, 2);
        assert!(p.push(Side::Left, 10_000, "L0").is_none());
        let pair = p.push(Side::Right, 10_012, "R0").unwrap();
        assert_eq!(
            (pair.capture_ns, pair.skew_ns, pair.left, pair.right),
            (10_000, 12, "L0", "R0")
        );
        // Right arrives first, then left.
        assert!(p.push(Side::Right, 20_000, "R1").is_none());
        let pair = p.push(Side::Left, 19_990, "L1").unwrap();
        assert_eq!((pair.capture_ns, pair.skew_ns), (19_990, 10));
        // A left frame with no right partner is dropped when a later right frame comes.
        assert!(p.push(Side::Left, 30_000, "L2").is_none());
        let pair = p.push(Side::Right, 40_000, "R3");
        assert!(pair.is_none());
        assert_eq!(p.stats().dropped_left, 1);
        // R3 waits; L3 pairs with it.
        assert!(p.push(Side::Left, 40_001, "L3").is_some());
        // Overflow: three left frames with no right partner, capacity 2.
        for (t, f) in [(50_000, "a"), (60_000, "b"), (70_000, "c")] {
            assert!(p.push(Side::Left, t, f).is_none());
        }
        assert_eq!(p.pending(), (2, 0));
        assert_eq!(p.stats().dropped_left, 2);
        // Out of order on one side is refused and counted.
        assert!(p.push(Side::Left, 65_000, "old").is_none());
        assert_eq!(p.stats().out_of_order, 1);
        // A right frame behind the left side's latest can never pair: dropped at once.
        assert!(p.push(Side::Right, 55_000, "late").is_none());
        assert_eq!(p.stats().dropped_right, 1);
        assert_eq!(p.stats().paired, 3);
    }
}
