//! Turn history (pure): the wearer's completed turns, from the heading.
//!
//! The state's motion is what the wearer does now; "Did I just turn?" asks what was done a
//! moment ago. [`TurnTracker`] follows the compass heading (the head's, from the
//! magnetometer and gyro) at every perception tick and keeps the heading last *held*: a
//! heading is held when every sample of the last [`HOLD_NS`] lies within [`STEADY_DEG`] of
//! their mean. When a new heading is held at least [`MIN_TURN_DEG`] from the one before, a
//! turn is complete: its signed angle, from when the old heading was last held to when the
//! new one was first held. A held heading less than half of [`MIN_TURN_DEG`] from the last
//! one replaces it (walking sway and slow drift never add up to a turn); between half and
//! the whole, the old one is kept, so a turn made in two pauses still counts.
//!
//! The history is short and bounded: at most [`MAX_TURNS`] turns, none older than
//! [`MAX_AGE_NS`]. With no heading for [`GAP_NS`] (no magnetometer), the held heading is
//! forgotten; the turns already seen are kept until they age out. The heading is the
//! head's: a look over the shoulder held for longer than [`HOLD_NS`] reads as a turn.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use crate::time::DeviceTime;

/// A heading is held when all samples of this long lie within [`STEADY_DEG`], ns.
pub const HOLD_NS: i64 = 500_000_000;
/// Largest distance of a held heading's samples from their mean, degrees.
pub const STEADY_DEG: f32 = 8.0;
/// Smallest change between two held headings that is a turn, degrees.
pub const MIN_TURN_DEG: f32 = 45.0;
/// A turn of at least this much is a turn around, degrees.
pub const AROUND_DEG: f32 = 135.0;
/// Turns kept, newest first.
pub const MAX_TURNS: usize = 4;
/// Turns older than this (since they ended) are forgotten, ns.
pub const MAX_AGE_NS: i64 = 60_000_000_000;
/// No heading for this long forgets the held heading, ns.
pub const GAP_NS: i64 = 2_000_000_000;
/// Heading samples kept for the hold test (bounds the window at any tick rate).
const MAX_SAMPLES: usize = 64;

/// Which way a turn went.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TurnDirection {
    /// Counter-clockwise seen from above.
    Left,
    /// Clockwise seen from above.
    Right,
    /// At least [`AROUND_DEG`] either way.
    Around,
}

/// One completed turn.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TurnFact {
    /// Which way.
    pub direction: TurnDirection,
    /// The heading's change, degrees, + clockwise (to the right), in `(-180, 180]`.
    pub angle_deg: f32,
    /// When the heading before the turn was last held (device time).
    pub started: DeviceTime,
    /// When the heading after the turn was first held (device time).
    pub ended: DeviceTime,
}

impl TurnFact {
    /// The direction of a signed heading change.
    pub fn direction_of(angle_deg: f32) -> TurnDirection {
        if angle_deg.abs() >= AROUND_DEG {
            TurnDirection::Around
        } else if angle_deg < 0.0 {
            TurnDirection::Left
        } else {
            TurnDirection::Right
        }
    }
}

/// `deg` wrapped into `(-180, 180]`.
fn wrap_deg(deg: f32) -> f32 {
    let w = (deg + 180.0).rem_euclid(360.0) - 180.0;
    if w <= -180.0 {
        w + 360.0
    } else {
        w
    }
}

/// The heading held before the wearer moved away from it.
#[derive(Clone, Copy, Debug)]
struct Held {
    heading_deg: f32,
    /// The last time the heading was within [`STEADY_DEG`] of it.
    last_ns: i64,
}

/// Follows the heading and keeps the completed turns (see the module doc).
#[derive(Clone, Debug, Default)]
pub struct TurnTracker {
    samples: VecDeque<(i64, f32)>,
    held: Option<Held>,
    last_heading_ns: Option<i64>,
    turns: VecDeque<TurnFact>,
}

impl TurnTracker {
    /// Nothing seen yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Folds in the heading at `at` (degrees clockwise from north; `None` when unknown) and
    /// returns the turns kept, newest first.
    pub fn update(&mut self, at: DeviceTime, heading_deg: Option<f32>) -> Vec<TurnFact> {
        let t = at.ns();
        match heading_deg.filter(|h| h.is_finite()) {
            Some(h) => self.on_heading(t, h),
            None => {
                if self
                    .last_heading_ns
                    .is_none_or(|last| t.saturating_sub(last) >= GAP_NS)
                {
                    self.samples.clear();
                    self.held = None;
                }
            }
        }
        while self
            .turns
            .back()
            .is_some_and(|x| t.saturating_sub(x.ended.ns()) > MAX_AGE_NS)
        {
            self.turns.pop_back();
        }
        self.turns.iter().cloned().collect()
    }

    fn on_heading(&mut self, t: i64, h: f32) {
        if self
            .last_heading_ns
            .is_some_and(|last| t.saturating_sub(last) >= GAP_NS || t < last)
        {
            self.samples.clear();
            self.held = None;
        }
        self.last_heading_ns = Some(t);
        self.samples.push_back((t, h));
        // Keep one sample at or before the window's start, so a full window spans HOLD_NS.
        while self.samples.len() > MAX_SAMPLES
            || self
                .samples
                .get(1)
                .is_some_and(|&(t1, _)| t1 <= t - HOLD_NS)
        {
            self.samples.pop_front();
        }
        if let Some(held) = self.held.as_mut() {
            if wrap_deg(h - held.heading_deg).abs() <= STEADY_DEG {
                held.last_ns = t;
            }
        }
        let Some((since, mean)) = self.steady(t) else {
            return;
        };
        let Some(held) = self.held else {
            self.held = Some(Held {
                heading_deg: mean,
                last_ns: t,
            });
            return;
        };
        let change = wrap_deg(mean - held.heading_deg);
        if change.abs() >= MIN_TURN_DEG {
            let turn = TurnFact {
                direction: TurnFact::direction_of(change),
                angle_deg: change,
                started: DeviceTime(held.last_ns.min(since)),
                ended: DeviceTime(since),
            };
            log::debug!(
                "turn {:?} {:.0}° from {:.2} s to {:.2} s",
                turn.direction,
                change,
                turn.started.ns() as f64 * 1e-9,
                turn.ended.ns() as f64 * 1e-9
            );
            self.turns.push_front(turn);
            self.turns.truncate(MAX_TURNS);
            self.held = Some(Held {
                heading_deg: mean,
                last_ns: t,
            });
        } else if change.abs() < MIN_TURN_DEG / 2.0 {
            self.held = Some(Held {
                heading_deg: mean,
                last_ns: t,
            });
        }
    }

    /// When the window is full and steady: its start and its mean heading.
    fn steady(&self, t: i64) -> Option<(i64, f32)> {
        let &(t0, _) = self.samples.front()?;
        let &(_, newest) = self.samples.back()?;
        if t - t0 < HOLD_NS {
            return None;
        }
        let devs: Vec<f32> = self
            .samples
            .iter()
            .map(|&(_, h)| wrap_deg(h - newest))
            .collect();
        let mean_dev = devs.iter().sum::<f32>() / devs.len() as f32;
        devs.iter()
            .all(|d| (d - mean_dev).abs() <= STEADY_DEG)
            .then(|| (t0, (newest + mean_dev).rem_euclid(360.0)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TICK_NS: i64 = 50_000_000;

    /// Feeds `heading(t_s)` every tick from `from_s` to `to_s` and returns the last turns.
    fn run(
        tr: &mut TurnTracker,
        from_s: f64,
        to_s: f64,
        heading: impl Fn(f64) -> Option<f32>,
    ) -> Vec<TurnFact> {
        let mut out = Vec::new();
        let mut t = (from_s * 1e9) as i64;
        while t <= (to_s * 1e9) as i64 {
            out = tr.update(DeviceTime(t), heading(t as f64 * 1e-9));
            t += TICK_NS;
        }
        out
    }

    /// A turn of `angle` degrees (+ clockwise) from `start_s` over `dur_s`, from `h0`,
    /// with walking sway of ±3°.
    fn turn(h0: f32, angle: f32, start_s: f64, dur_s: f64) -> impl Fn(f64) -> Option<f32> {
        move |t| {
            let x = ((t - start_s) / dur_s).clamp(0.0, 1.0) as f32;
            let sway = 3.0 * (t * 2.0 * std::f64::consts::PI).sin() as f32;
            Some((h0 + angle * x + sway).rem_euclid(360.0))
        }
    }

    #[test]
    fn a_quarter_turn_to_the_left_is_kept_with_its_times() {
        let mut tr = TurnTracker::new();
        // Heading 10° (across north), turning 90° counter-clockwise from 4 s to 5.5 s.
        let turns = run(&mut tr, 0.0, 5.7, turn(10.0, -90.0, 4.0, 1.5));
        assert!(turns.is_empty(), "not held yet 0.2 s after: {turns:?}");
        let turns = run(&mut tr, 5.75, 8.0, turn(10.0, -90.0, 4.0, 1.5));
        assert_eq!(turns.len(), 1, "{turns:?}");
        let t = &turns[0];
        assert_eq!(t.direction, TurnDirection::Left);
        assert!((t.angle_deg + 90.0).abs() < 5.0, "{t:?}");
        let (s, e) = (t.started.ns() as f64 * 1e-9, t.ended.ns() as f64 * 1e-9);
        assert!((3.8..=4.3).contains(&s), "started {s}");
        assert!((5.3..=5.8).contains(&e), "ended {e}");
    }

    #[test]
    fn a_half_turn_is_around_and_newest_comes_first() {
        let mut tr = TurnTracker::new();
        let right = turn(200.0, 60.0, 2.0, 1.0);
        run(&mut tr, 0.0, 5.0, &right);
        let around = turn(260.0, 180.0, 6.0, 3.0);
        let turns = run(&mut tr, 5.05, 12.0, around);
        let dirs: Vec<TurnDirection> = turns.iter().map(|x| x.direction).collect();
        assert_eq!(dirs, [TurnDirection::Around, TurnDirection::Right]);
        assert!((turns[0].angle_deg.abs() - 180.0).abs() < 5.0);
    }

    #[test]
    fn sway_drift_and_a_glance_are_not_turns() {
        let mut tr = TurnTracker::new();
        // Walking sway, a slow drift of 40° over 20 s, a 30° glance held for 1 s.
        let turns = run(&mut tr, 0.0, 30.0, |t| {
            let sway = 4.0 * (t * 2.0 * std::f64::consts::PI).sin();
            let drift = 2.0 * t.min(20.0);
            let glance = if (24.0..25.0).contains(&t) { 30.0 } else { 0.0 };
            Some((90.0 + sway + drift + glance).rem_euclid(360.0) as f32)
        });
        assert!(turns.is_empty(), "{turns:?}");
    }

    #[test]
    fn a_turn_in_two_pauses_counts_and_history_is_bounded_and_ages_out() {
        let mut tr = TurnTracker::new();
        // 30° then another 30°, each held for 1 s: one turn of 60° to the right.
        let turns = run(&mut tr, 0.0, 6.0, |t| {
            Some(if t < 2.0 {
                0.0
            } else if t < 3.5 {
                30.0
            } else {
                60.0
            })
        });
        assert_eq!(turns.len(), 1, "{turns:?}");
        assert_eq!(turns[0].direction, TurnDirection::Right);
        // Eight more quarter turns: only the newest MAX_TURNS are kept.
        let mut tr = TurnTracker::new();
        let turns = run(&mut tr, 0.0, 17.0, |t| {
            Some(90.0 * (t / 2.0).floor() as f32)
        });
        assert_eq!(turns.len(), MAX_TURNS);
        assert!(turns.windows(2).all(|w| w[0].ended > w[1].ended));
        // With no heading the turns stay until they are a minute old.
        let kept = run(&mut tr, 17.05, 40.0, |_| None);
        assert_eq!(kept.len(), MAX_TURNS);
        let none = run(&mut tr, 40.05, 80.0, |_| None);
        assert!(none.is_empty(), "{none:?}");
        // NaN headings are skipped like missing ones.
        assert!(tr
            .update(DeviceTime(81_000_000_000), Some(f32::NAN))
            .is_empty());
    }
}
