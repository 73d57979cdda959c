//! Ground truth of moving bodies at a request (pure compute): for every person and vehicle,
//! where it is from the wearer's head (clock hour, metres), whether it moves and comes
//! closer, and for people which way they face (as a clock hour in the wearer's frame: 12 =
//! the same way as the wearer, 6 = toward the wearer) and whether they wave. Social-cue
//! requests ("is someone coming to talk to me?") are scored against it.

use serde::Serialize;

use super::scenario::World;
use super::trajectory::WearerPath;
use super::truth::clock_and_distance;

/// A body is "facing you" when its facing direction is within this angle of the direction
/// from it to the wearer's head, degrees.
pub const FACING_YOU_DEG: f64 = 30.0;
/// Look-ahead for "coming closer", s.
pub const APPROACH_DT_S: f64 = 0.5;
/// Closing speed above which a body counts as coming closer, m/s.
pub const APPROACH_MIN_MPS: f64 = 0.2;

/// One person or vehicle at a request.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct BodyTruth {
    /// Label.
    pub label: String,
    /// "person" or "vehicle".
    pub kind: String,
    /// Clock direction from the head (12 = straight ahead).
    pub clock: u8,
    /// Horizontal distance, m (one decimal).
    pub distance_m: f64,
    /// Whether it is walking or driving.
    pub moving: bool,
    /// Whether it comes closer (closing faster than [`APPROACH_MIN_MPS`]).
    pub approaching: bool,
    /// The way it faces (people) or drives (vehicles) as a clock hour in the wearer's frame:
    /// 12 = the same way as the wearer's head, 6 = toward the wearer, 3 = to the right.
    pub facing_clock: u8,
    /// Whether it faces the wearer (within [`FACING_YOU_DEG`]).
    pub facing_you: bool,
    /// Whether it waves (people only).
    pub waving: bool,
}

/// Clock hour of a world yaw `yaw` (rad) relative to `head_yaw` (rad).
pub fn yaw_clock(yaw: f64, head_yaw: f64) -> u8 {
    let rel = (yaw - head_yaw).to_degrees();
    let hour = (12 - (rel / 30.0).round() as i64).rem_euclid(12);
    if hour == 0 {
        12
    } else {
        hour as u8
    }
}

/// A moving body as the truth sees it at one instant.
struct Mover<'a> {
    label: &'a str,
    kind: &'a str,
    at: &'a dyn Fn(f64) -> [f64; 2],
    yaw: f64,
    moving: bool,
    waving: bool,
}

fn body(path: &WearerPath, t_s: f64, m: &Mover) -> BodyTruth {
    let [x, y] = (m.at)(t_s);
    let (clock, d) = clock_and_distance(path, t_s, [x, y, 0.0]);
    let [x2, y2] = (m.at)(t_s + APPROACH_DT_S);
    let (_, d2) = clock_and_distance(path, t_s + APPROACH_DT_S, [x2, y2, 0.0]);
    let head = path.head(t_s);
    let to_wearer = (head.position_m.y - y).atan2(head.position_m.x - x);
    let off = ((m.yaw - to_wearer).to_degrees() + 180.0).rem_euclid(360.0) - 180.0;
    BodyTruth {
        label: m.label.to_string(),
        kind: m.kind.to_string(),
        clock,
        distance_m: (d * 10.0).round() / 10.0,
        moving: m.moving,
        approaching: (d - d2) / APPROACH_DT_S > APPROACH_MIN_MPS,
        facing_clock: yaw_clock(m.yaw, head.yaw_rad),
        facing_you: off.abs() <= FACING_YOU_DEG,
        waving: m.waving,
    }
}

/// Every person and vehicle of `world` seen from the wearer at `t_s`.
pub fn bodies_at(world: &World, path: &WearerPath, t_s: f64) -> Vec<BodyTruth> {
    let people = world.people.iter().map(|p| {
        let m = Mover {
            label: &p.label,
            kind: "person",
            at: &|t| p.position_at(t),
            yaw: p.facing_at(t_s),
            moving: p.walking_at(t_s),
            waving: p.waving_at(t_s),
        };
        body(path, t_s, &m)
    });
    let vehicles = world.vehicles.iter().map(|v| {
        let m = Mover {
            label: &v.label,
            kind: "vehicle",
            at: &|t| v.position_at(t),
            yaw: v.heading_at(t_s),
            moving: v.moving_at(t_s),
            waving: false,
        };
        body(path, t_s, &m)
    });
    people.chain(vehicles).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synth::scenario::{Action, Person, Wearer};
    use nalgebra::Isometry3;

    #[test]
    fn a_person_walking_up_and_stopping_faces_the_wearer() {
        // Wearer at the origin facing +x; a person walks from (6, 0) to (1.5, 0) at 1.5 m/s
        // from t = 0 (3 s), then stands there; facing: unset (the last walked direction, −x).
        let w = Wearer {
            start_m: [0.0, 0.0],
            heading_deg: 0.0,
            eye_height_m: 1.6,
            script: vec![Action::Stop { duration_s: 10.0 }],
            repeat: 1,
        };
        let path = WearerPath::new(&w, 0.0, Isometry3::identity());
        let world = World {
            people: vec![Person {
                label: "friend".into(),
                path_m: vec![[6.0, 0.0], [1.5, 0.0]],
                speed_mps: 1.5,
                start_s: 0.0,
                radius_m: 0.25,
                height_m: 1.7,
                hazard: false,
                facing_deg: None,
                wave_s: None,
            }],
            ..World::default()
        };
        let b = &bodies_at(&world, &path, 1.0)[0];
        // At 1 s: 6 − 1.5 = 4.5 m ahead, walking toward the wearer.
        assert_eq!((b.clock, b.distance_m), (12, 4.5));
        assert!(b.moving && b.approaching && b.facing_you);
        assert_eq!(b.facing_clock, 6);
        let b = &bodies_at(&world, &path, 5.0)[0];
        assert_eq!((b.clock, b.distance_m), (12, 1.5));
        assert!(!b.moving && !b.approaching && b.facing_you);
    }

    #[test]
    fn facing_clock_follows_the_watch_face() {
        assert_eq!(yaw_clock(0.0, 0.0), 12);
        assert_eq!(yaw_clock(std::f64::consts::FRAC_PI_2, 0.0), 9);
        assert_eq!(yaw_clock(-std::f64::consts::FRAC_PI_2, 0.0), 3);
        assert_eq!(yaw_clock(std::f64::consts::PI, 0.0), 6);
    }
}
