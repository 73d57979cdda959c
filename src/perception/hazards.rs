//! Hazard gating (pure): a thing in the walking corridor (or, when it moves, predicted to
//! enter it) raises one alert per approach, when its time to contact falls below the alert
//! time — so the alert distance scales with the closing speed — or it comes within the
//! (minimum) alert distance while it is being approached (or the speed is unknown). Nothing
//! static alerts while the wearer stands still. After an alert the thing stays quiet until
//! it is clearly out of range again (farther than the alert distance plus a margin, and not
//! closing in) or out of the path or unseen for a while: hysteresis, so one obstacle gives
//! one alert per approach. Walking at it along a line more than [`NEW_LINE_RAD`] from the
//! one it was alerted on is a new approach too (the wearer walked past it, turned and now
//! walks at it). A thing alerted as standing while its track was too new to tell whether
//! it moves is alerted once more when its track shows it moving (a person stepping into
//! view is first a blob of points).

use std::collections::HashMap;

use crate::state::{Thing, ThingKind};

/// Things whose alert state is remembered at most.
pub const MAX_GATED: usize = 1024;
/// Below this closing speed there is no time to contact, m/s.
pub const MIN_CLOSING_MPS: f32 = 0.2;
/// A walking line this far (radians, 45°) from the one a thing was alerted on approaches
/// it anew: more than the 25–30° of a course correction around something, less than a
/// turn to walk at what was beside the way.
pub const NEW_LINE_RAD: f32 = std::f32::consts::FRAC_PI_4;

/// The gate's thresholds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GateConfig {
    /// Alert distance, m.
    pub alert_distance_m: f32,
    /// Alert time to contact, s.
    pub alert_ttc_s: f32,
    /// No alert from farther than this, m.
    pub max_alert_distance_m: f32,
    /// Re-arm margin beyond the alert distance, m.
    pub rearm_margin_m: f32,
    /// Re-arm after this long out of the path or unseen, ns.
    pub rearm_after_ns: i64,
}

#[derive(Clone, Copy, Debug)]
struct Armed {
    alerted: bool,
    away_since_ns: Option<i64>,
    /// Since when it has not been approached (the wearer stands, or walks away).
    idle_since_ns: Option<i64>,
    last_seen_ns: i64,
    /// The walking direction when it was alerted (radians), when the wearer was walking.
    alert_line_rad: Option<f32>,
    /// Whether its alert told of a thing standing before its motion was known (a new
    /// track): seen to move, it is alerted once more, as what it is.
    alerted_unsure: bool,
}

/// Whether a thing of `kind` moves on its own.
fn moves(kind: ThingKind) -> bool {
    matches!(kind, ThingKind::Person | ThingKind::Vehicle)
}

/// How one thing is being approached at one tick.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Approach {
    /// In the corridor now, or (a moving thing) predicted to enter it.
    pub in_path: bool,
    /// Distance for the alert distance (ahead along the corridor where known), m.
    pub distance_m: f32,
    /// Time to contact (or to entering the corridor), s.
    pub ttc_s: Option<f32>,
    /// Whether it is being closed in on (the wearer walks toward it, or it moves toward
    /// the corridor).
    pub approaching: bool,
    /// Whether it is (or enters) the corridor surely: within the corridor narrowed by the
    /// walking direction's uncertainty at its distance
    /// ([`super::corridor_margin::surely_within`]). Only such a thing is alerted from
    /// beyond the alert distance: farther out, a thing at the corridor's edge (the jamb
    /// beside a doorway walked through) is in it on some strides and not on others, and
    /// whether the wearer will meet it is not known yet. Within the alert distance the
    /// corridor counts as it is.
    pub sure: bool,
    /// Whether it is too newly seen to tell whether it moves (its track has no velocity yet,
    /// or the depth frames could not have seen it move yet: out of view a moment ago): it
    /// is taken for standing until its track shows otherwise.
    pub motion_unknown: bool,
}

/// Decides which things need an alert now.
#[derive(Clone, Debug)]
pub struct HazardGate {
    cfg: GateConfig,
    state: HashMap<u32, Armed>,
}

/// Whether the wearer is closing in at `closing_mps` (their speed along the corridor). An
/// unknown speed is no approach: at the start of a session (or before the pose has a
/// velocity) the wearer may be standing, and a standing wearer is not about to walk into
/// what is in front of them; the alert comes as soon as the speed shows them setting off.
pub fn is_approaching(closing_mps: Option<f32>) -> bool {
    closing_mps.is_some_and(|v| v.is_finite() && v >= MIN_CLOSING_MPS)
}

/// Time to contact at `closing_mps`, s, when closing in.
pub fn time_to_contact_s(distance_m: f32, closing_mps: Option<f32>) -> Option<f32> {
    let v = closing_mps?;
    (v.is_finite() && v >= MIN_CLOSING_MPS && distance_m.is_finite())
        .then(|| (distance_m.max(0.0)) / v)
}

impl HazardGate {
    /// A gate with `cfg`.
    pub fn new(cfg: GateConfig) -> Self {
        Self {
            cfg,
            state: HashMap::new(),
        }
    }

    /// The things among `things` that need an alert at `t_ns`, with their time to
    /// contact; `closing_mps` is the wearer's speed along the corridor.
    pub fn update(
        &mut self,
        t_ns: i64,
        things: &[Thing],
        closing_mps: Option<f32>,
    ) -> Vec<(usize, Option<f32>)> {
        let approaches: Vec<Approach> = things
            .iter()
            .map(|th| Approach {
                in_path: th.in_path,
                distance_m: th.distance_m,
                ttc_s: if th.in_path {
                    time_to_contact_s(th.distance_m, closing_mps)
                } else {
                    None
                },
                approaching: is_approaching(closing_mps),
                sure: th.in_path,
                motion_unknown: false,
            })
            .collect();
        self.update_approaches(t_ns, things, &approaches)
    }

    /// Like [`Self::update`], with each thing's approach given (`approaches[i]` belongs to
    /// `things[i]`; a thing without one is not in the path).
    pub fn update_approaches(
        &mut self,
        t_ns: i64,
        things: &[Thing],
        approaches: &[Approach],
    ) -> Vec<(usize, Option<f32>)> {
        self.update_walking(t_ns, things, approaches, None)
    }

    /// Like [`Self::update_approaches`], with the wearer's walking direction (radians
    /// counter-clockwise from world +x; `None` while not walking): a thing alerted on
    /// another walking line (more than [`NEW_LINE_RAD`] from this one) is approached anew.
    pub fn update_walking(
        &mut self,
        t_ns: i64,
        things: &[Thing],
        approaches: &[Approach],
        walking_rad: Option<f32>,
    ) -> Vec<(usize, Option<f32>)> {
        let c = self.cfg;
        let mut out = Vec::new();
        for (i, th) in things.iter().enumerate() {
            let ap = approaches.get(i).copied().unwrap_or(Approach {
                in_path: false,
                distance_m: th.distance_m,
                ttc_s: None,
                approaching: false,
                sure: false,
                motion_unknown: false,
            });
            let ttc = if ap.in_path { ap.ttc_s } else { None };
            // Within the alert distance counts only while it is being approached: someone
            // standing and turning their head towards a wall 2 m away is not about to walk
            // into it; the alert comes when they set off. From farther (by time to
            // contact), only what is surely in the corridor.
            let close = ap.in_path
                && ((ap.approaching && ap.distance_m <= c.alert_distance_m)
                    || (ap.sure
                        && ttc.is_some_and(|s| s <= c.alert_ttc_s)
                        && ap.distance_m <= c.max_alert_distance_m));
            let far = ap.distance_m > c.alert_distance_m + c.rearm_margin_m
                && ttc.is_none_or(|s| s > c.alert_ttc_s + 2.0);
            let st = self.state.entry(th.id).or_insert(Armed {
                alerted: false,
                away_since_ns: None,
                idle_since_ns: None,
                last_seen_ns: t_ns,
                alert_line_rad: None,
                alerted_unsure: false,
            });
            // Unseen for long: a new approach.
            if t_ns.saturating_sub(st.last_seen_ns) >= c.rearm_after_ns {
                st.alerted = false;
                st.away_since_ns = None;
                st.idle_since_ns = None;
            }
            // Not approached for long (the wearer stopped in front of it): the approach is
            // over, and setting off toward it again is a new one (a curb alerted from 4 m,
            // the wearer stops, turns and walks to it at another point).
            if ap.approaching {
                st.idle_since_ns = None;
            } else if st.alerted {
                let since = *st.idle_since_ns.get_or_insert(t_ns);
                if t_ns.saturating_sub(since) >= c.rearm_after_ns {
                    st.alerted = false;
                    st.idle_since_ns = None;
                }
            }
            st.last_seen_ns = t_ns;
            let turned = |from: f32, to: f32| {
                let d = (to - from).rem_euclid(std::f32::consts::TAU);
                d.min(std::f32::consts::TAU - d) > NEW_LINE_RAD
            };
            if st.alerted
                && matches!((st.alert_line_rad, walking_rad), (Some(a), Some(w)) if turned(a, w))
            {
                st.alerted = false;
            }
            // Alerted as standing before its motion was known, now seen to move: the wearer
            // was told of something that stays put, and it is a hazard of another kind.
            // Once its track has said it stands, later motion is not taken for a new
            // hazard (a still thing's position wanders with the pose and the view).
            if st.alerted_unsure && !ap.motion_unknown {
                st.alerted_unsure = false;
                if st.alerted && moves(th.kind) {
                    st.alerted = false;
                }
            }
            if st.alerted {
                if !ap.in_path {
                    let since = *st.away_since_ns.get_or_insert(t_ns);
                    if t_ns.saturating_sub(since) >= c.rearm_after_ns {
                        st.alerted = false;
                    }
                } else {
                    st.away_since_ns = None;
                    if far {
                        st.alerted = false;
                    }
                }
            }
            if !st.alerted && close {
                st.alerted = true;
                st.alerted_unsure = ap.motion_unknown && !moves(th.kind);
                st.alert_line_rad = walking_rad;
                st.away_since_ns = None;
                st.idle_since_ns = None;
                out.push((i, ttc));
            }
        }
        let horizon = c.rearm_after_ns.saturating_mul(4);
        self.state
            .retain(|_, s| t_ns.saturating_sub(s.last_seen_ns) <= horizon);
        // Bounded: beyond MAX_GATED ids, the least recently seen are forgotten (they re-arm).
        while self.state.len() > MAX_GATED {
            let oldest = self
                .state
                .iter()
                .min_by_key(|(id, s)| (s.last_seen_ns, **id))
                .map(|(id, _)| *id);
            match oldest {
                Some(id) => {
                    self.state.remove(&id);
                }
                None => break,
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::{ClockHour, Evidence, ThingKind};
    use crate::time::DeviceTime;

    fn thing(id: u32, d: f32, in_path: bool) -> Thing {
        Thing {
            id,
            kind: ThingKind::Obstacle,
            label: "obstacle".into(),
            detail: Default::default(),
            class: None,
            clock: ClockHour::new(12),
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

    fn gate() -> HazardGate {
        HazardGate::new(GateConfig {
            alert_distance_m: 3.0,
            alert_ttc_s: 3.0,
            max_alert_distance_m: 4.5,
            rearm_margin_m: 1.5,
            rearm_after_ns: 3_000,
        })
    }

    #[test]
    fn one_alert_per_approach() {
        let mut g = gate();
        let mut alerts = 0;
        // Approach from 5 m to 0.5 m at 1 m/s with jitter around the threshold.
        for i in 0..90 {
            let d = 5.0 - i as f32 * 0.05 + if i % 2 == 0 { 0.04 } else { -0.04 };
            alerts += g.update(i * 10, &[thing(7, d, true)], Some(0.5)).len();
        }
        assert_eq!(alerts, 1);
        // Walk away beyond 4.5 m and come back: a second alert.
        assert!(g
            .update(1_000, &[thing(7, 5.0, true)], Some(0.0))
            .is_empty());
        assert_eq!(g.update(1_010, &[thing(7, 2.5, true)], Some(0.5)).len(), 1);
    }

    #[test]
    fn a_new_thing_alerted_as_standing_is_alerted_again_once_its_track_shows_it_moving() {
        let mut g = gate();
        let ap = |d: f32, motion_unknown: bool| Approach {
            in_path: true,
            distance_m: d,
            ttc_s: Some(d),
            approaching: true,
            sure: true,
            motion_unknown,
        };
        let person = |d: f32| Thing {
            kind: ThingKind::Person,
            ..thing(9, d, true)
        };
        // Too new for a velocity: alerted as standing.
        let th = [thing(9, 2.0, true)];
        assert_eq!(g.update_walking(0, &th, &[ap(2.0, true)], None).len(), 1);
        assert!(g.update_walking(10, &th, &[ap(1.9, true)], None).is_empty());
        // Its track shows it walking: a person, of whom the wearer was not told.
        assert_eq!(
            g.update_walking(20, &[person(1.8)], &[ap(1.8, false)], None)
                .len(),
            1
        );
        // Once, and not again when it is taken for still and moving by turns.
        let th = [thing(9, 1.7, true)];
        assert!(g
            .update_walking(30, &th, &[ap(1.7, false)], None)
            .is_empty());
        assert!(g
            .update_walking(40, &[person(1.6)], &[ap(1.6, false)], None)
            .is_empty());
        // A thing whose track said it stands when it was alerted is not alerted again when
        // it later seems to move (a still thing's position wanders with the pose).
        let th = [thing(10, 2.0, true)];
        assert_eq!(g.update_walking(50, &th, &[ap(2.0, false)], None).len(), 1);
        let moving = Thing {
            kind: ThingKind::Person,
            ..thing(10, 1.9, true)
        };
        assert!(g
            .update_walking(60, &[moving], &[ap(1.9, false)], None)
            .is_empty());
    }

    #[test]
    fn standing_still_is_no_approach_until_the_wearer_sets_off() {
        let mut g = gate();
        // Standing 2 m from a wall (closing 0): no alert.
        assert!(g.update(0, &[thing(3, 2.0, true)], Some(0.0)).is_empty());
        assert!(g.update(10, &[thing(3, 2.0, true)], Some(0.05)).is_empty());
        assert_eq!(g.update(20, &[thing(3, 2.0, true)], Some(0.6)).len(), 1);
        // Speed not known yet (the session's first ticks): no alert, whether by distance
        // or by time to contact; it comes once the wearer is seen setting off.
        assert!(g.update(30, &[thing(4, 2.0, true)], None).is_empty());
        assert!(g
            .update(40, &[thing(4, 2.0, true)], Some(f32::NAN))
            .is_empty());
        assert_eq!(g.update(50, &[thing(4, 2.0, true)], Some(0.4)).len(), 1);
    }

    #[test]
    fn stopping_in_front_of_a_thing_ends_the_approach() {
        let mut g = gate();
        // Alerted at 2.5 m while walking.
        assert_eq!(g.update(0, &[thing(5, 2.5, true)], Some(1.0)).len(), 1);
        // The wearer stops 2 m from it (still in the path, still seen, never far) for
        // less than the re-arm time, and sets off again: the same approach, no alert.
        for t in (10..2_000).step_by(10) {
            assert!(g.update(t, &[thing(5, 2.0, true)], Some(0.0)).is_empty());
        }
        assert!(g
            .update(2_000, &[thing(5, 2.0, true)], Some(0.8))
            .is_empty());
        // Now stopped for longer than the re-arm time: setting off is a new approach.
        for t in (2_010..6_000).step_by(10) {
            assert!(g.update(t, &[thing(5, 1.9, true)], Some(0.0)).is_empty());
        }
        assert_eq!(g.update(6_000, &[thing(5, 1.9, true)], Some(0.8)).len(), 1);
        // Walking on at it, one alert only.
        for t in (6_010..7_000).step_by(10) {
            assert!(g.update(t, &[thing(5, 1.5, true)], Some(0.8)).is_empty());
        }
    }

    #[test]
    fn walking_at_it_along_a_new_line_is_a_new_approach() {
        let mut g = gate();
        let ap = |d: f32| Approach {
            in_path: true,
            distance_m: d,
            ttc_s: Some(d),
            approaching: true,
            sure: true,
            motion_unknown: false,
        };
        let th = [thing(9, 2.0, true)];
        // Alerted walking along +x.
        assert_eq!(g.update_walking(0, &th, &[ap(2.5)], Some(0.0)).len(), 1);
        // A course correction of 30°: the same approach.
        assert!(g.update_walking(10, &th, &[ap(2.0)], Some(0.52)).is_empty());
        // Standing (no walking line): nothing changes.
        assert!(g.update_walking(20, &th, &[ap(2.0)], None).is_empty());
        // Walking at it after a 90° turn: a new approach, alerted once.
        assert_eq!(g.update_walking(30, &th, &[ap(1.0)], Some(1.57)).len(), 1);
        assert!(g.update_walking(40, &th, &[ap(0.9)], Some(1.57)).is_empty());
        // Across ±π: 350° and 10° are one line.
        let th = [thing(10, 2.0, true)];
        assert_eq!(g.update_walking(50, &th, &[ap(2.0)], Some(-0.17)).len(), 1);
        assert!(g.update_walking(60, &th, &[ap(1.9)], Some(6.1)).is_empty());
    }

    #[test]
    fn at_the_corridor_edge_only_the_alert_distance_counts() {
        let mut g = gate();
        let th = [thing(11, 4.0, true)];
        let ap = |d: f32, sure: bool| Approach {
            in_path: true,
            distance_m: d,
            ttc_s: Some(d / 1.5),
            approaching: true,
            sure,
            motion_unknown: false,
        };
        // 4 m ahead at 1.5 m/s (2.7 s to contact) but in the corridor only within the
        // walking direction's uncertainty: no alert from there...
        assert!(g.update_approaches(0, &th, &[ap(4.0, false)]).is_empty());
        assert!(g.update_approaches(10, &th, &[ap(3.5, false)]).is_empty());
        // ...but within the alert distance, as for anything in the corridor.
        assert_eq!(g.update_approaches(20, &th, &[ap(3.0, false)]).len(), 1);
        // Surely in the corridor, the same thing is alerted by its time to contact.
        let mut g = gate();
        assert_eq!(g.update_approaches(0, &th, &[ap(4.0, true)]).len(), 1);
    }

    #[test]
    fn ttc_alerts_early_and_off_path_never() {
        let mut g = gate();
        // 4 m at 1.5 m/s: 2.7 s to contact.
        let a = g.update(0, &[thing(1, 4.0, true)], Some(1.5));
        assert_eq!(a.len(), 1);
        assert!((a[0].1.unwrap() - 4.0 / 1.5).abs() < 1e-5);
        assert!(g.update(0, &[thing(2, 1.0, false)], Some(1.5)).is_empty());
        assert_eq!(time_to_contact_s(2.0, Some(0.1)), None);
        assert_eq!(time_to_contact_s(2.0, Some(f32::NAN)), None);
    }
}
