//! Clock directions and steps: how positions are said to the user.

use serde::{Deserialize, Serialize};

/// A typical adult step, metres (used to turn metres into steps).
pub const STEP_LENGTH_M: f32 = 0.7;

/// A clock hour, 1..=12: 12 is straight ahead, 3 to the right, 6 behind, 9 to the left.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ClockHour(u8);

impl ClockHour {
    /// The hour, `1..=12`; anything else is taken modulo 12 (0 becomes 12).
    pub fn new(hour: u8) -> Self {
        let h = hour % 12;
        Self(if h == 0 { 12 } else { h })
    }

    /// The hour, `1..=12`.
    pub fn get(self) -> u8 {
        self.0
    }
}

impl std::fmt::Display for ClockHour {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} o'clock", self.0)
    }
}

/// The clock hour of a horizontal bearing in degrees, positive to the **left**
/// (counter-clockwise seen from above, as in a right-handed world with z up): 0° is 12,
/// −90° (right) is 3, +90° (left) is 9. Non-finite bearings give 12.
pub fn bearing_to_clock(bearing_left_deg: f32) -> ClockHour {
    if !bearing_left_deg.is_finite() {
        return ClockHour::new(12);
    }
    let hour = (12 - (bearing_left_deg / 30.0).round() as i64).rem_euclid(12);
    ClockHour::new(hour as u8)
}

/// The bearing (degrees, positive to the left) at the centre of a clock hour.
pub fn clock_to_bearing_deg(hour: ClockHour) -> f32 {
    let b = (12 - i32::from(hour.get())) as f32 * 30.0;
    if b > 180.0 {
        b - 360.0
    } else {
        b
    }
}

/// Metres as a whole number of steps (at least 1 for any positive distance).
pub fn metres_to_steps(m: f32) -> u32 {
    if !m.is_finite() || m <= 0.0 {
        return 0;
    }
    ((m / STEP_LENGTH_M).round() as u32).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_hours_follow_the_dial() {
        assert_eq!(bearing_to_clock(0.0).get(), 12);
        assert_eq!(bearing_to_clock(-90.0).get(), 3);
        assert_eq!(bearing_to_clock(90.0).get(), 9);
        assert_eq!(bearing_to_clock(180.0).get(), 6);
        assert_eq!(bearing_to_clock(-180.0).get(), 6);
        assert_eq!(bearing_to_clock(-60.0).get(), 2);
        assert_eq!(bearing_to_clock(-14.0).get(), 12);
        assert_eq!(bearing_to_clock(-16.0).get(), 1);
        assert_eq!(bearing_to_clock(f32::NAN).get(), 12);
        for h in 1..=12u8 {
            assert_eq!(
                bearing_to_clock(clock_to_bearing_deg(ClockHour::new(h))).get(),
                h
            );
        }
    }

    #[test]
    fn steps_round_and_never_vanish() {
        assert_eq!(metres_to_steps(0.0), 0);
        assert_eq!(metres_to_steps(0.1), 1);
        assert_eq!(metres_to_steps(1.4), 2);
        assert_eq!(metres_to_steps(f32::INFINITY), 0);
    }
}
