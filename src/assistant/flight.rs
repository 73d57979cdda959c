//! Stairs from floor edges (pure): several edges of the same kind in a row, each of a
//! riser's height and a tread's depth from the one before, are a flight of stairs going up
//! (step-ups) or down (drop-offs). One edge alone is a step, whatever its height: a single
//! edge of curb height outdoors is said as a "step up" or a "drop-off", never a curb or
//! stairs, since nothing in the state says more.
//!
//! An edge's height is perception's typed fact ([`ThingDetail::Edge`]); an edge without one
//! is never part of a flight. The steps counted are the edges seen: "I can see 3 stairs".

use std::ops::RangeInclusive;

use crate::lexicon::numbers::count_word;
use crate::state::{EnvironmentState, Thing, ThingDetail, ThingKind};

/// Heights of a stair's riser, metres.
pub const RISER_M: RangeInclusive<f32> = 0.10..=0.22;
/// Horizontal distances between the edges of two successive stairs (a tread), metres.
pub const TREAD_M: RangeInclusive<f32> = 0.2..=0.5;
/// Successive edges of one flight lie within this many clock hours of the first.
pub const FLIGHT_CLOCK_HOURS: u8 = 1;

/// A flight of stairs: two or more edges of one kind, nearest first.
#[derive(Clone, Debug, PartialEq)]
pub struct Flight<'a> {
    /// Step-ups (stairs going up) or drop-offs (going down).
    pub up: bool,
    /// The edges, nearest first (at least two).
    pub edges: Vec<&'a Thing>,
}

impl<'a> Flight<'a> {
    /// The nearest edge (where the stairs start).
    pub fn first(&self) -> Option<&'a Thing> {
        self.edges.first().copied()
    }

    /// Whether `thing` is one of its edges.
    pub fn holds(&self, thing: &Thing) -> bool {
        self.edges.iter().any(|e| e.id == thing.id)
    }
}

/// The height of a floor edge, metres, when perception measured one.
pub fn edge_rise_m(t: &Thing) -> Option<f32> {
    match (t.kind, t.detail) {
        (ThingKind::DropOff | ThingKind::StepUp, ThingDetail::Edge { rise_m }) => {
            (rise_m.is_finite() && rise_m > 0.0).then_some(rise_m)
        }
        _ => None,
    }
}

fn clock_diff(a: u8, b: u8) -> u8 {
    let d = (i16::from(a) - i16::from(b)).rem_euclid(12) as u8;
    d.min(12 - d)
}

/// Horizontal distance between two edges: their world positions when both have one, else
/// the difference of their distances from the head.
fn spacing_m(a: &Thing, b: &Thing) -> f32 {
    match (a.world_m, b.world_m) {
        (Some(p), Some(q)) => (p[0] - q[0]).hypot(p[1] - q[1]),
        _ => (b.distance_m - a.distance_m).abs(),
    }
}

/// The flights among the floor edges of `state`, nearest first.
pub fn flights(state: &EnvironmentState) -> Vec<Flight<'_>> {
    let mut edges: Vec<&Thing> = state
        .things
        .iter()
        .filter(|t| edge_rise_m(t).is_some_and(|r| RISER_M.contains(&r)))
        .collect();
    edges.sort_by(|a, b| a.distance_m.total_cmp(&b.distance_m));
    let mut out = Vec::new();
    let mut used = vec![false; edges.len()];
    for i in 0..edges.len() {
        if used[i] {
            continue;
        }
        let first = edges[i];
        let mut run = vec![first];
        for (j, &e) in edges.iter().enumerate().skip(i + 1) {
            let Some(&last) = run.last() else { break };
            if used[j]
                || e.kind != first.kind
                || clock_diff(e.clock.get(), first.clock.get()) > FLIGHT_CLOCK_HOURS
            {
                continue;
            }
            if TREAD_M.contains(&spacing_m(last, e)) {
                used[j] = true;
                run.push(e);
            }
        }
        if run.len() >= 2 {
            used[i] = true;
            out.push(Flight {
                up: first.kind == ThingKind::StepUp,
                edges: run,
            });
        }
    }
    out
}

/// "Stairs going down at 12 o'clock, 2 metres, in your path. I can see three stairs."
pub fn flight_sentences(f: &Flight<'_>) -> Vec<String> {
    let Some(first) = f.first() else {
        return Vec::new();
    };
    let mut s = format!(
        "Stairs going {} at {}, {}",
        if f.up { "up" } else { "down" },
        super::phrase::clock(first.clock),
        super::phrase::about_metres(first.distance_m)
    );
    if first.in_path {
        s.push_str(", in your path");
    }
    s.push('.');
    vec![
        s,
        format!("I can see {} stairs.", count_word(f.edges.len())),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::{ClockHour, Evidence};
    use crate::time::DeviceTime;

    fn edge(id: u32, kind: ThingKind, cm: u32, along: f32) -> Thing {
        let detail = ThingDetail::Edge {
            rise_m: cm as f32 / 100.0,
        };
        Thing {
            id,
            kind,
            label: crate::lexicon::thing_label(kind, &detail, None),
            detail,
            class: None,
            clock: ClockHour::new(12),
            bearing_left_deg: None,
            distance_m: along,
            height: None,
            world_m: Some([along, 0.0, 0.0]),
            in_path: true,
            first_seen: DeviceTime(0),
            last_seen: DeviceTime(0),
            confidence: 0.8,
            evidence: Evidence::Points,
        }
    }

    #[test]
    fn edges_of_riser_height_a_tread_apart_are_stairs() {
        let mut s = EnvironmentState::empty(DeviceTime(0));
        s.things = vec![
            edge(3, ThingKind::DropOff, 17, 2.3),
            edge(2, ThingKind::DropOff, 17, 2.0),
            edge(4, ThingKind::DropOff, 17, 2.6),
        ];
        let f = flights(&s);
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(!f[0].up);
        let ids: Vec<u32> = f[0].edges.iter().map(|e| e.id).collect();
        assert_eq!(ids, [2, 3, 4]);
        assert_eq!(
            flight_sentences(&f[0]),
            [
                "Stairs going down at 12 o'clock, 2 metres, in your path.",
                "I can see three stairs."
            ]
        );
    }

    #[test]
    fn one_edge_or_edges_apart_or_too_high_are_no_stairs() {
        let mut s = EnvironmentState::empty(DeviceTime(0));
        // A curb-height edge alone.
        s.things = vec![edge(1, ThingKind::StepUp, 15, 2.0)];
        assert!(flights(&s).is_empty());
        // Two curbs across a road (7 m apart), a platform edge and a step 30 cm apart,
        // a step up and a drop-off a tread apart.
        s.things = vec![
            edge(1, ThingKind::DropOff, 15, 0.5),
            edge(2, ThingKind::DropOff, 15, 7.5),
            edge(3, ThingKind::DropOff, 90, 3.0),
            edge(4, ThingKind::DropOff, 15, 3.3),
            edge(5, ThingKind::StepUp, 15, 8.0),
        ];
        assert!(flights(&s).is_empty(), "{:?}", flights(&s));
        let mut odd = edge(6, ThingKind::StepUp, 15, 1.0);
        odd.detail = ThingDetail::None;
        assert_eq!(edge_rise_m(&odd), None);
        assert_eq!(
            edge_rise_m(&edge(7, ThingKind::StepUp, 15, 1.0)),
            Some(0.15)
        );
    }
}
