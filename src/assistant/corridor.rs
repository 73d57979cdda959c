//! The walking corridor: which things lie on a straight walk in a given clock direction.
//! Pure geometry in the user frame, shared by the templates (which never send the user into
//! a hazard) and the guard (which blocks text that would). It works on what the state says
//! (a direction and a distance per thing: the measured bearing when perception gives one,
//! else the thing's clock hour), for any heading an answer may name; perception's
//! alert corridor (`perception::obstacles::CorridorFrame`) works on world points along the
//! walking direction. The two answer different questions from different data.

use crate::state::{clock_to_bearing_deg, ClockHour, EnvironmentState, Thing, ThingKind};

/// Half the width of the corridor a walking person sweeps, metres.
pub const HALF_WIDTH_M: f32 = 0.6;

/// Whether a thing of this kind is dangerous to walk into (everything but doors and text).
pub fn is_hazard(kind: ThingKind) -> bool {
    !matches!(kind, ThingKind::Door | ThingKind::Text)
}

/// Whether `thing` lies within `range_m` along a straight walk towards clock `heading` and
/// within `half_width_m` of its line. Straight ahead (12) also counts perception's `in_path`
/// flag for things in front. The thing's direction is [`Thing::direction_left_deg`]; the
/// heading's is the centre of its clock hour (what a walker told "towards 1 o'clock" aims
/// at).
pub fn in_corridor(thing: &Thing, heading: ClockHour, range_m: f32, half_width_m: f32) -> bool {
    if !thing.distance_m.is_finite() || thing.distance_m > range_m {
        return false;
    }
    let rel = (thing.direction_left_deg() - clock_to_bearing_deg(heading)).to_radians();
    // Perception's walking path can differ from where the head points (looking back while
    // walking on), so `in_path` only counts for a thing in front of the head.
    if heading.get() == 12 && thing.in_path && rel.cos() > 0.0 {
        return true;
    }
    let along = thing.distance_m * rel.cos();
    let lateral = (thing.distance_m * rel.sin()).abs();
    along > 0.0 && along <= range_m && lateral <= half_width_m
}

/// Hazards in the corridor towards `heading` within `range_m`, nearest first.
pub fn blockers(state: &EnvironmentState, heading: ClockHour, range_m: f32) -> Vec<&Thing> {
    let mut v: Vec<&Thing> = state
        .things
        .iter()
        .filter(|t| is_hazard(t.kind) && in_corridor(t, heading, range_m, HALF_WIDTH_M))
        .collect();
    v.sort_by(|a, b| a.distance_m.total_cmp(&b.distance_m));
    v
}

/// Hazards on the way on within `range_m`, nearest first: those on a straight walk where
/// the head faces ([`blockers`] towards 12 o'clock) and those perception finds in the
/// walking path wherever the head faces (a wearer looking aside, or turning, while walking
/// on). What a claim that the way is clear must answer to: a thing in the walking path at
/// 3 o'clock is still in the way of "Can I keep going?".
pub fn path_hazards(state: &EnvironmentState, range_m: f32) -> Vec<&Thing> {
    let mut v = blockers(state, ClockHour::new(12), range_m);
    for t in &state.things {
        let walking_path = t.in_path && is_hazard(t.kind) && t.distance_m <= range_m;
        if walking_path && !v.iter().any(|b| b.id == t.id) {
            v.push(t);
        }
    }
    v.sort_by(|a, b| a.distance_m.total_cmp(&b.distance_m));
    v
}

/// The heading that passes `thing` on its left (`left`) or right: one clock hour beside it.
pub fn passing_heading(thing: &Thing, left: bool) -> ClockHour {
    let h = thing.clock.get();
    ClockHour::new(if left { h + 11 } else { h + 1 })
}

/// Hazards other than `thing` on the way past it on the given side (up to 1 m beyond it).
pub fn pass_blockers<'a>(state: &'a EnvironmentState, thing: &Thing, left: bool) -> Vec<&'a Thing> {
    blockers(state, passing_heading(thing, left), thing.distance_m + 1.0)
        .into_iter()
        .filter(|t| t.id != thing.id)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::Evidence;
    use crate::time::DeviceTime;

    fn thing(clock: u8, d: f32, in_path: bool) -> Thing {
        Thing {
            id: 1,
            kind: ThingKind::Obstacle,
            label: "box".into(),
            detail: Default::default(),
            class: None,
            clock: ClockHour::new(clock),
            bearing_left_deg: None,
            distance_m: d,
            height: None,
            world_m: None,
            in_path,
            first_seen: DeviceTime(0),
            last_seen: DeviceTime(0),
            confidence: 1.0,
            evidence: Evidence::Points,
        }
    }

    #[test]
    fn corridor_geometry() {
        let h12 = ClockHour::new(12);
        // Straight ahead at 2 m: in a 4 m walk ahead, not in a 1.5 m one.
        assert!(in_corridor(&thing(12, 2.0, false), h12, 4.0, HALF_WIDTH_M));
        assert!(!in_corridor(&thing(12, 2.0, false), h12, 1.5, HALF_WIDTH_M));
        // 1 o'clock at 2 m is 2·sin 30° = 1 m off the line: outside.
        assert!(!in_corridor(&thing(1, 2.0, false), h12, 4.0, HALF_WIDTH_M));
        // ...but perception's in-path flag counts straight ahead.
        assert!(in_corridor(&thing(1, 2.0, true), h12, 4.0, HALF_WIDTH_M));
        // 1 o'clock at 1 m is 0.5 m off the line: inside.
        assert!(in_corridor(&thing(1, 1.0, false), h12, 4.0, HALF_WIDTH_M));
        // Walking towards 2 o'clock, a box at 2 o'clock is in the way, one at 12 is not.
        let h2 = ClockHour::new(2);
        assert!(in_corridor(&thing(2, 3.0, false), h2, 6.0, HALF_WIDTH_M));
        assert!(!in_corridor(&thing(12, 2.5, true), h2, 6.0, HALF_WIDTH_M));
        // Behind the walk: never.
        assert!(!in_corridor(&thing(6, 1.0, false), h12, 4.0, HALF_WIDTH_M));
    }

    #[test]
    fn a_measured_bearing_places_a_thing_within_its_clock_hour() {
        let h12 = ClockHour::new(12);
        // At 1 o'clock by its hour (30° right, 1 m off a 2 m walk ahead: outside), but
        // measured 16° right: 2·sin 16° = 0.55 m off the line, inside.
        let mut t = thing(1, 2.0, false);
        assert!(!in_corridor(&t, h12, 4.0, HALF_WIDTH_M));
        t.bearing_left_deg = Some(-16.0);
        assert!(in_corridor(&t, h12, 4.0, HALF_WIDTH_M));
        // At 12 o'clock by its hour but 14° left at 4 m: 0.97 m off the line, outside.
        let mut t = thing(12, 4.0, false);
        assert!(in_corridor(&t, h12, 5.0, HALF_WIDTH_M));
        t.bearing_left_deg = Some(14.0);
        assert!(!in_corridor(&t, h12, 5.0, HALF_WIDTH_M));
        // A bearing that is not a number falls back to the hour.
        t.bearing_left_deg = Some(f32::NAN);
        assert!(in_corridor(&t, h12, 5.0, HALF_WIDTH_M));
    }

    #[test]
    fn the_way_on_holds_what_is_in_the_walking_path_wherever_the_head_faces() {
        let mut ahead = thing(12, 2.0, false);
        ahead.id = 1;
        // Looking right while walking on: the thing in the walking path is at 3 o'clock.
        let mut aside = thing(3, 1.0, true);
        aside.id = 2;
        // Beside the walk, not in it.
        let mut beside = thing(3, 1.5, false);
        beside.id = 3;
        // In the walking path but beyond the range.
        let mut far = thing(9, 6.0, true);
        far.id = 4;
        let mut state = EnvironmentState::empty(DeviceTime(0));
        state.things = vec![ahead, aside, beside, far];
        let ids: Vec<u32> = path_hazards(&state, 5.0).iter().map(|t| t.id).collect();
        assert_eq!(ids, vec![2, 1]);
        // A way past a thing at 3 o'clock is not the way on: the heading's corridor only.
        let ids: Vec<u32> = blockers(&state, ClockHour::new(12), 5.0)
            .iter()
            .map(|t| t.id)
            .collect();
        assert_eq!(ids, vec![1]);
    }
}
