//! Where a sound sits between the ears: an alert about a thing at 3 o'clock is heard from the
//! right, one at 9 o'clock from the left, so its direction is heard before its words are.
//! Pure. Speech is mono; every sink places it in stereo by its [`Pan`] with a balance law
//! (the near side at full level, the far side attenuated), so speech from the centre keeps
//! the level of the mono voice on both ears.

use std::f32::consts::PI;

/// A position between the ears, in percent of the way to the right ear: −100 is the left
/// ear alone, 0 the centre, +100 the right ear alone.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct Pan(i8);

/// How far to one side a thing straight beside the wearer is placed, percent: never one ear
/// alone (a listener with one ear, or one earbud out, still hears every alert).
pub const MAX_SIDE_PCT: i8 = 80;

impl Pan {
    /// The centre (both ears alike).
    pub const CENTRE: Pan = Pan(0);

    /// `right_pct` percent of the way to the right ear, clamped to ±100.
    pub fn new(right_pct: i32) -> Self {
        Pan(right_pct.clamp(-100, 100) as i8)
    }

    /// Percent of the way to the right ear.
    pub fn right_pct(self) -> i8 {
        self.0
    }

    /// Whether it is the centre.
    pub fn is_centre(&self) -> bool {
        self.0 == 0
    }

    /// The position of a thing at clock hour `hour` (12 ahead, 3 right, 9 left, 6 behind):
    /// the sine of its bearing, scaled to at most [`MAX_SIDE_PCT`]. Ahead and behind are
    /// the centre; an hour outside 1–12 is the centre.
    pub fn of_clock_hour(hour: u8) -> Self {
        if !(1..=12).contains(&hour) {
            return Self::CENTRE;
        }
        let bearing_rad = f32::from(hour % 12) * PI / 6.0;
        Pan((bearing_rad.sin() * f32::from(MAX_SIDE_PCT)).round() as i8)
    }

    /// The gains of the left and right ear, each 0–1: the side it leans to at full level,
    /// the other lowered in proportion.
    pub fn gains(self) -> (f32, f32) {
        let p = f32::from(self.0) / 100.0;
        ((1.0 - p).min(1.0), (1.0 + p).min(1.0))
    }

    /// `mono` as interleaved stereo frames (left, right), appended to `out`.
    pub fn place(self, mono: &[i16], out: &mut Vec<i16>) {
        let (l, r) = self.gains();
        out.reserve(mono.len() * 2);
        for &s in mono {
            let s = f32::from(s);
            out.push((s * l).round() as i16);
            out.push((s * r).round() as i16);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_hours_lean_to_their_side_and_never_to_one_ear_alone() {
        assert_eq!(Pan::of_clock_hour(12), Pan::CENTRE);
        assert_eq!(Pan::of_clock_hour(6), Pan::CENTRE);
        assert_eq!(Pan::of_clock_hour(3).right_pct(), MAX_SIDE_PCT);
        assert_eq!(Pan::of_clock_hour(9).right_pct(), -MAX_SIDE_PCT);
        assert_eq!(Pan::of_clock_hour(1).right_pct(), 40);
        assert_eq!(Pan::of_clock_hour(11).right_pct(), -40);
        assert_eq!(Pan::of_clock_hour(0), Pan::CENTRE);
        assert_eq!(Pan::of_clock_hour(13), Pan::CENTRE);
        for h in 1..=12 {
            let (l, r) = Pan::of_clock_hour(h).gains();
            assert!(l > 0.15 && r > 0.15 && l.max(r) == 1.0, "{h}: {l} {r}");
        }
    }

    #[test]
    fn the_centre_keeps_the_mono_level_and_a_side_lowers_the_other_ear() {
        let mut out = Vec::new();
        Pan::CENTRE.place(&[1000, -2000], &mut out);
        assert_eq!(out, vec![1000, 1000, -2000, -2000]);
        out.clear();
        Pan::of_clock_hour(3).place(&[1000], &mut out);
        assert_eq!(out, vec![200, 1000]);
        out.clear();
        Pan::new(-500).place(&[i16::MIN, i16::MAX], &mut out);
        assert_eq!(out, vec![i16::MIN, 0, i16::MAX, 0]);
    }
}
