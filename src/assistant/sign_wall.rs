//! The wall a sign hangs on (pure). A goal that resolves to a sign ("Take me to the lift"
//! with only the sign "LIFT" read) ends at the wall the sign is on: that wall is where the
//! wearer is going, not something in the way to "go around".

use super::goal::{SIGN_CLOCK_HOURS, SIGN_DISTANCE_REL};
use crate::state::{EnvironmentState, TextFact, Thing, ThingDetail};

/// A wall this close is within reach of the wearer, metres.
pub const REACH_M: f32 = 1.0;

fn clock_diff(a: u8, b: u8) -> u8 {
    let d = (i16::from(a) - i16::from(b)).rem_euclid(12) as u8;
    d.min(12 - d)
}

/// The nearest wall at `sign`: within [`SIGN_CLOCK_HOURS`] of its direction and, its
/// distance known, within [`SIGN_DISTANCE_REL`] of it (at least 1 m), not beyond it by more
/// than that. `None` when the sign's distance is unknown or no wall is there.
pub fn wall_under_sign<'a>(state: &'a EnvironmentState, sign: &TextFact) -> Option<&'a Thing> {
    let d = sign.distance_m?;
    let tol = (SIGN_DISTANCE_REL * d).max(1.0);
    state
        .things
        .iter()
        .filter(|t| {
            t.detail == ThingDetail::Wall
                && clock_diff(t.clock.get(), sign.clock.get()) <= SIGN_CLOCK_HOURS
                && (t.distance_m - d).abs() <= tol
        })
        .min_by(|a, b| a.distance_m.total_cmp(&b.distance_m))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::{ClockHour, Evidence, ThingKind};
    use crate::time::DeviceTime;

    fn thing(id: u32, label: &str, clock: u8, d: f32) -> Thing {
        Thing {
            id,
            kind: ThingKind::Obstacle,
            label: label.into(),
            detail: if label == "wall" {
                ThingDetail::Wall
            } else {
                ThingDetail::None
            },
            class: None,
            clock: ClockHour::new(clock),
            bearing_left_deg: None,
            distance_m: d,
            height: None,
            world_m: None,
            in_path: true,
            first_seen: DeviceTime(0),
            last_seen: DeviceTime(0),
            confidence: 0.9,
            evidence: Evidence::Points,
        }
    }

    fn sign(clock: u8, d: Option<f32>) -> TextFact {
        TextFact {
            text: "LIFT".into(),
            confidence: 0.9,
            clock: ClockHour::new(clock),
            distance_m: d,
            rgb_box: [0.0; 4],
            gazed: false,
            at: DeviceTime(0),
        }
    }

    #[test]
    fn the_wall_at_the_sign_is_found_and_nothing_else() {
        let mut s = EnvironmentState::empty(DeviceTime(0));
        s.things = vec![
            thing(1, "obstacle", 11, 0.5),
            thing(2, "wall", 3, 0.6),
            thing(3, "wall", 11, 0.5),
        ];
        assert_eq!(
            wall_under_sign(&s, &sign(11, Some(0.6))).map(|t| t.id),
            Some(3)
        );
        assert_eq!(
            wall_under_sign(&s, &sign(12, Some(0.6))).map(|t| t.id),
            Some(3)
        );
        // A sign far beyond the wall, in another direction, or at an unknown distance.
        assert!(wall_under_sign(&s, &sign(11, Some(6.0))).is_none());
        assert!(wall_under_sign(&s, &sign(7, Some(0.6))).is_none());
        assert!(wall_under_sign(&s, &sign(11, None)).is_none());
    }
}
