//! [`RateDial`]: how much a stage that does optional work stretches its interval, shared
//! between the stage (which reads it at every decision, lock-free) and the governor (which
//! sets it). 100 % is the stage's own rate; 200 % runs it half as often; [`PAUSED`] skips
//! its optional work altogether. Work a wearer asked for (a whole-frame read, an answer)
//! never reads a dial.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

/// The stretch that pauses a stage's optional work.
pub const PAUSED: u32 = 0;
/// The stage's own rate.
pub const FULL_RATE_PCT: u32 = 100;

/// A stage's interval stretch in percent, shared; cheap to clone, every clone the same dial.
#[derive(Clone, Debug)]
pub struct RateDial(Arc<AtomicU32>);

impl Default for RateDial {
    fn default() -> Self {
        Self::new()
    }
}

impl RateDial {
    /// A dial at the stage's own rate.
    pub fn new() -> Self {
        Self(Arc::new(AtomicU32::new(FULL_RATE_PCT)))
    }

    /// The stretch now, percent ([`PAUSED`]: paused).
    pub fn stretch_pct(&self) -> u32 {
        self.0.load(Ordering::Relaxed)
    }

    /// Sets the stretch, percent ([`PAUSED`] pauses; below 100 is the stage's own rate).
    pub fn set_stretch_pct(&self, pct: u32) {
        let pct = if pct == PAUSED {
            PAUSED
        } else {
            pct.max(FULL_RATE_PCT)
        };
        self.0.store(pct, Ordering::Relaxed);
    }

    /// Whether the stage's optional work is paused.
    pub fn is_paused(&self) -> bool {
        self.stretch_pct() == PAUSED
    }

    /// The stage's interval `base_ns` stretched by the dial (`i64::MAX` when paused).
    pub fn interval_ns(&self, base_ns: i64) -> i64 {
        match self.stretch_pct() {
            PAUSED => i64::MAX,
            pct => {
                let stretched = i128::from(base_ns.max(0)) * i128::from(pct) / 100;
                i64::try_from(stretched).unwrap_or(i64::MAX)
            }
        }
    }

    /// Whether a stage whose own interval is `base_ns`, `since_last_ns` after its last run,
    /// skips this time: `None` runs it; `Some(held_back)` skips it, `held_back` when only
    /// the dial's stretch made it skip (its own rate would have run it).
    pub fn skips(&self, base_ns: i64, since_last_ns: i64) -> Option<bool> {
        (since_last_ns < self.interval_ns(base_ns)).then_some(since_last_ns >= base_ns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stretches_pauses_and_is_shared() {
        let d = RateDial::new();
        assert_eq!(d.interval_ns(200), 200);
        let other = d.clone();
        other.set_stretch_pct(150);
        assert_eq!(d.interval_ns(200), 300);
        assert_eq!(d.skips(200, 250), Some(true));
        assert_eq!(d.skips(200, 300), None);
        assert_eq!(
            d.skips(200, 150),
            Some(false),
            "within the stage's own interval"
        );
        other.set_stretch_pct(50);
        assert_eq!(
            d.stretch_pct(),
            FULL_RATE_PCT,
            "never faster than the stage's own"
        );
        other.set_stretch_pct(PAUSED);
        assert!(d.is_paused());
        assert_eq!(d.interval_ns(200), i64::MAX);
        d.set_stretch_pct(u32::MAX);
        assert_eq!(d.interval_ns(i64::MAX), i64::MAX, "saturates");
    }
}
