//! Hazard ground truth (pure compute): what a blind walker would walk into, from the world
//! geometry and the scripted trajectory.
//!
//! # The rule
//!
//! The wearer's **walking corridor** at a moment is the strip ahead of the body along the
//! walking direction (the direction of the current walk or climb, not where the head
//! looks), [`CORRIDOR_HALF_WIDTH_M`] to each side (body half-width [`BODY_HALF_WIDTH_M`] +
//! margin [`MARGIN_M`]), from the body to [`AHEAD_M`] ahead.
//!
//! * **Static things** — every obstacle box (whose height range overlaps the body, floor
//!   to the top of the head), every wall segment, every floor step or drop-off edge — are
//!   hazards while the wearer **walks** (a walk or climb action) and the thing overlaps the
//!   corridor within [`AHEAD_M`] (its nearest part in the corridor: an obstacle's centre
//!   no longer has to be within [`AHEAD_M`] too, which made a long thing along the way —
//!   the 1.2 m low branch of `mixed_walk` — relevant only once its near end was 4.4 m
//!   ahead). Standing, turning or looking around is no approach. A wall the wearer walks
//!   along, or a wall beside the door they walk through, is no hazard unless the corridor
//!   reaches it. Floor edges are every level change of the floor as rendered
//!   ([`super::truth_edges`]): a step's declared edge, and the far end or sides of its
//!   slab where the level beyond differs (the end of a raised landing, the far side of a
//!   pit). A step crossed toward its new level is its own kind (`step_up` /
//!   `drop_off` by the sign of its rise); crossed the other way the rise is reversed.
//!   Nothing farther than the nearest wall in the corridor counts (it is behind that wall).
//! * **People** are hazards while they are within [`AHEAD_M`] of the head and, moving at
//!   their current velocity relative to the wearer's current velocity, are in the corridor
//!   now or enter it within [`PERSON_PREDICT_S`] (their path crosses the corridor); while
//!   the wearer stands, only a person closing in counts.
//! * **Vehicles** are hazards while their footprint (a rectangle along their heading),
//!   moving at their current velocity relative to the wearer's, is in the corridor now or
//!   enters it within [`PERSON_PREDICT_S`], at any distance (a car covers 24 m in that
//!   time; what matters is when it reaches the path); while the wearer stands, only a
//!   moving vehicle closing in counts. An alert is useful until the vehicle is in the
//!   corridor or its nearest part within [`LAST_ALERT_M`] of the head.
//!
//! A moving hazard (person, vehicle) carries its **track** (positions every
//! [`TRACK_STEP_S`] over its window, [`TRACK_MARGIN_S`] either side): the scorer compares
//! an alert with where it was when the alert was decided.
//!
//! A thing standing on another inside its footprint (a bottle on a table) is part of what
//! it stands on ([`rests_on`]): walking into it means walking into that first.
//!
//! Each **approach** (a maximal stretch of time in which the rule holds, gaps shorter than
//! [`MERGE_GAP_S`] bridged; for a static thing, also a stop in front of it from which the
//! wearer sets off toward it again within [`LAST_ALERT_M`] without walking elsewhere) is one
//! [`Hazard`]: `relevant_from_ns` is its start; its
//! `position_m` is the obstacle's centre, the person's position at that time, or, for a wall
//! or step edge, the point where the corridor's centre line meets it (else the corridor's
//! nearest point on it); `latest_alert_ns` is, as before, the first time from then on the
//! head is within [`LAST_ALERT_M`] of that position (for an obstacle, or a wall or edge
//! approached obliquely, the first time its nearest part is within [`LAST_ALERT_M`] ahead
//! in the corridor, if sooner: a long thing along the way is reached at its near end);
//! `None` when the wearer never gets that close. An approach that starts already
//! inside [`LAST_ALERT_M`] keeps its alert useful until the wearer is within
//! [`CONTACT_M`] of it (or the approach ends).
//!
//! A static thing's approach in which the wearer never gets within [`LAST_ALERT_M`] of it
//! and, walking, is never within [`REACH_S`] (the corridor's 5 m at a 1 m/s walk) of
//! reaching it at their pace is listed with `relevant_from_ns` `None`: it only ever stood
//! at the corridor's far end while the wearer slowed to a stop or walked obliquely past
//! (`stairs_curb_branch`: the far end of the plaza enters the corridor 0.5 s before the
//! walk ends 4.8 m short of it, 5.2 s away at the slowing pace; the plaza's side, 7.9 s
//! away for 0.3 s of a diagonal walk). Nothing was about to be walked into, so no alert is
//! required — the window would otherwise run from there to the session's end, through
//! time in which the wearer stands, which is no approach by this very rule — and an alert
//! about it is not false either. Every other approach of the scenarios that never comes
//! within [`LAST_ALERT_M`] (a wall the wearer stops 2.5 m short of, 3.4 s away at 0.8 m/s)
//! is at most 4.4 s away at some moment and stays a hazard.
//!
//! # The `hazard` flags of the scenario
//!
//! A scenario's `hazard: true` on an obstacle, step or person is now an **explicit
//! override**: a flagged thing that the rule never finds in the corridor is still listed,
//! with the older window (first time within [`AHEAD_M`] and [`OVERRIDE_BEARING_DEG`] of the
//! head direction, then within [`LAST_ALERT_M`]; for an obstacle, measured to the nearest
//! point of its footprint; `relevant_from_ns` `None` when never). `hazard: false` no longer hides
//! anything the rule finds.

pub use super::truth_edges::edge_ends;
use super::truth_edges::floor_edges;
use super::{Hazard, TrackSample};
use crate::synth::scenario::{Action, Obstacle, Scenario, Wall};
use crate::synth::trajectory::WearerPath;

/// Half the width of the wearer's body, m.
pub const BODY_HALF_WIDTH_M: f64 = 0.25;
/// Clearance the corridor keeps beyond the body on each side, m.
pub const MARGIN_M: f64 = 0.1;
/// Half-width of the walking corridor, m.
pub const CORRIDOR_HALF_WIDTH_M: f64 = BODY_HALF_WIDTH_M + MARGIN_M;
/// How far ahead the corridor reaches, m.
pub const AHEAD_M: f64 = 5.0;
/// An alert is useless once the wearer is this close, m.
pub const LAST_ALERT_M: f64 = 1.5;
/// An approach that starts inside [`LAST_ALERT_M`]: useful until this close, m.
pub const CONTACT_M: f64 = 0.2;
/// The top of the head above the eyes, m (things higher up are no hazard).
pub const HEAD_TOP_ABOVE_EYES_M: f64 = 0.15;
/// A person entering the corridor within this time counts, s.
pub const PERSON_PREDICT_S: f64 = 3.0;
/// A walking pace of 1 m/s, the scenarios' usual walk, m/s.
pub const REFERENCE_PACE_MPS: f64 = 1.0;
/// A static thing the wearer never comes within [`LAST_ALERT_M`] of is a hazard only if,
/// walking toward it, they were at some moment no more than this from reaching it at their
/// pace, s: the corridor's reach ([`AHEAD_M`]) in time at [`REFERENCE_PACE_MPS`].
pub const REACH_S: f64 = AHEAD_M / REFERENCE_PACE_MPS;
/// Below this walking speed there is no time to reach, m/s.
pub const MIN_PACE_MPS: f64 = 0.05;
/// Step of the person's path prediction, s.
pub const PREDICT_STEP_S: f64 = 0.1;
/// Gaps shorter than this do not split an approach, s.
pub const MERGE_GAP_S: f64 = 2.0;
/// Bearing window of the flag override, degrees.
pub const OVERRIDE_BEARING_DEG: f64 = 45.0;
/// Sampling step of the time scan, s.
pub const SCAN_STEP_S: f64 = 0.01;
/// Step of a moving hazard's track, s.
pub const TRACK_STEP_S: f64 = 0.1;
/// A moving hazard's track reaches this far before and after its window, s.
pub const TRACK_MARGIN_S: f64 = 2.0;

/// Where the wearer's body is and where it goes at one moment.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Walker {
    /// Body position on the floor (the head projected onto the walking line), `[x, y]` m.
    pub origin_m: [f64; 2],
    /// Unit walking direction (the body's facing while standing), `[x, y]`.
    pub dir: [f64; 2],
    /// Velocity, `[x, y]` m/s (zero while standing).
    pub velocity_mps: [f64; 2],
    /// Whether a walk or climb action is under way.
    pub walking: bool,
    /// Floor height under the wearer, m.
    pub floor_z_m: f64,
    /// Eye height above that floor, m.
    pub eye_height_m: f64,
}

/// A point in corridor coordinates: `(along, lateral)`, m (lateral positive to the left).
fn to_corridor(w: &Walker, p: [f64; 2]) -> (f64, f64) {
    let (dx, dy) = (p[0] - w.origin_m[0], p[1] - w.origin_m[1]);
    let [ux, uy] = w.dir;
    (dx * ux + dy * uy, -dx * uy + dy * ux)
}

fn from_corridor(w: &Walker, along: f64, lat: f64) -> [f64; 2] {
    let [ux, uy] = w.dir;
    [
        w.origin_m[0] + along * ux - lat * uy,
        w.origin_m[1] + along * uy + lat * ux,
    ]
}

/// Clips a convex polygon (or a segment: two vertices), in corridor coordinates, to
/// `|lateral| ≤ half_m`.
fn clip_lateral(poly: &[(f64, f64)], half_m: f64) -> Vec<(f64, f64)> {
    let mut cur: Vec<(f64, f64)> = poly.to_vec();
    for sign in [1.0, -1.0] {
        // Keep sign·lat ≤ half.
        let inside = |p: &(f64, f64)| sign * p.1 <= half_m;
        let mut out = Vec::with_capacity(cur.len() + 2);
        let n = cur.len();
        for i in 0..n {
            let (Some(&a), Some(&b)) = (cur.get(i), cur.get((i + 1) % n)) else {
                continue;
            };
            let (ia, ib) = (inside(&a), inside(&b));
            if ia {
                out.push(a);
            }
            if ia != ib {
                let t = (sign * half_m - a.1) / (b.1 - a.1);
                out.push((a.0 + t * (b.0 - a.0), a.1 + t * (b.1 - a.1)));
            }
        }
        cur = out;
    }
    cur
}

/// How a shape meets the corridor: the nearest distance ahead (0 when it reaches the
/// body) and the point of it where the centre line meets it, else its nearest corridor
/// point (world `[x, y]`). `None` when it is outside the corridor or beyond `ahead_m`.
pub fn corridor_hit(w: &Walker, shape_m: &[[f64; 2]], ahead_m: f64) -> Option<(f64, [f64; 2])> {
    let local: Vec<(f64, f64)> = shape_m.iter().map(|&p| to_corridor(w, p)).collect();
    let clipped = clip_lateral(&local, CORRIDOR_HALF_WIDTH_M);
    let min_along = clipped.iter().map(|p| p.0).reduce(f64::min)?;
    let max_along = clipped.iter().map(|p| p.0).reduce(f64::max)?;
    if max_along <= 0.0 || min_along > ahead_m {
        return None;
    }
    let ahead = min_along.max(0.0);
    // Where the centre line (lateral 0) crosses the shape's edges, nearest ahead first.
    let n = local.len();
    let mut centre: Option<f64> = None;
    for i in 0..n {
        let (Some(&a), Some(&b)) = (local.get(i), local.get((i + 1) % n)) else {
            continue;
        };
        if (a.1 <= 0.0 && b.1 >= 0.0) || (a.1 >= 0.0 && b.1 <= 0.0) {
            let along = if (b.1 - a.1).abs() < 1e-12 {
                a.0.min(b.0)
            } else {
                a.0 + (0.0 - a.1) / (b.1 - a.1) * (b.0 - a.0)
            };
            if along >= 0.0 {
                centre = Some(centre.map_or(along, |c: f64| c.min(along)));
            }
        }
    }
    let point = match centre {
        Some(a) => from_corridor(w, a, 0.0),
        None => {
            let p = clipped
                .iter()
                .copied()
                .min_by(|x, y| x.0.max(0.0).total_cmp(&y.0.max(0.0)))?;
            from_corridor(w, p.0.max(0.0), p.1)
        }
    };
    Some((ahead, point))
}

/// The wearer at `t_s` (walking direction from the current walk or climb action).
pub fn walker_at(path: &WearerPath, eye_height_m: f64, t_s: f64) -> Walker {
    let h = path.head(t_s);
    let cur = path
        .actions()
        .filter(|(start, _, _)| *start <= t_s)
        .last()
        .filter(|(start, dur, _)| t_s <= start + dur);
    let head_xy = [h.position_m.x, h.position_m.y];
    let floor_z_m = h.position_m.z - eye_height_m;
    let standing = |yaw: f64| Walker {
        origin_m: head_xy,
        dir: [yaw.cos(), yaw.sin()],
        velocity_mps: [0.0, 0.0],
        walking: false,
        floor_z_m,
        eye_height_m,
    };
    match cur {
        Some((start, dur, Action::Walk { .. } | Action::Climb { .. })) => {
            let a = path.head(start).position_m;
            let b = path.head(start + dur).position_m;
            let (dx, dy) = (b.x - a.x, b.y - a.y);
            let len = dx.hypot(dy);
            if len < 1e-9 {
                return standing(h.yaw_rad);
            }
            let u = [dx / len, dy / len];
            let along = |t: f64| {
                let p = path.head(t).position_m;
                (p.x - a.x) * u[0] + (p.y - a.y) * u[1]
            };
            let s = along(t_s);
            let e = 0.005;
            let v = (along(t_s + e) - along(t_s - e)) / (2.0 * e);
            Walker {
                origin_m: [a.x + s * u[0], a.y + s * u[1]],
                dir: u,
                velocity_mps: [v * u[0], v * u[1]],
                walking: true,
                floor_z_m,
                eye_height_m,
            }
        }
        Some((start, _, Action::LookAround { .. })) => standing(path.head(start).yaw_rad),
        _ => standing(h.yaw_rad),
    }
}

/// The footprint corners of an obstacle, `[x, y]` m.
pub fn footprint(o: &Obstacle) -> [[f64; 2]; 4] {
    let [cx, cy, _] = o.center_m;
    let (hx, hy) = (o.size_m[0] / 2.0, o.size_m[1] / 2.0);
    [
        [cx - hx, cy - hy],
        [cx + hx, cy - hy],
        [cx + hx, cy + hy],
        [cx - hx, cy + hy],
    ]
}

/// The point of an obstacle's footprint nearest to `p`, `[x, y]` m (`p` itself inside).
pub fn nearest_on_footprint(o: &Obstacle, p: [f64; 2]) -> [f64; 2] {
    let c = |k: usize| {
        let (Some(&centre), Some(&size), Some(&v)) = (o.center_m.get(k), o.size_m.get(k), p.get(k))
        else {
            return 0.0;
        };
        v.clamp(centre - size / 2.0, centre + size / 2.0)
    };
    [c(0), c(1)]
}

/// Whether an obstacle's height range meets the body of a wearer on `w`'s floor.
pub fn meets_body(o: &Obstacle, w: &Walker) -> bool {
    let bottom = o.center_m[2] - w.floor_z_m;
    let top = bottom + o.size_m[2];
    bottom < w.eye_height_m + HEAD_TOP_ABOVE_EYES_M && top > 0.0
}

/// How far a thing may overhang, or float above, what it rests on and still count as
/// resting on it, m.
const REST_SLACK_M: f64 = 0.02;

/// Whether `o` stands on top of `base`, inside its footprint (a bottle on a table).
pub fn rests_on(o: &Obstacle, base: &Obstacle) -> bool {
    let top = base.center_m[2] + base.size_m[2];
    let inside = (0..2).all(|k| {
        let (lo, hi) = (
            o.center_m[k] - o.size_m[k] / 2.0,
            o.center_m[k] + o.size_m[k] / 2.0,
        );
        let (blo, bhi) = (
            base.center_m[k] - base.size_m[k] / 2.0,
            base.center_m[k] + base.size_m[k] / 2.0,
        );
        lo >= blo - REST_SLACK_M && hi <= bhi + REST_SLACK_M
    });
    inside && (o.center_m[2] - top).abs() <= REST_SLACK_M
}

fn wall_ends(wall: &Wall) -> [[f64; 2]; 2] {
    [wall.from_m, wall.to_m]
}

/// Distance ahead of a shape in the corridor at `t_s` while walking.
fn walking_hit(
    path: &WearerPath,
    eye_height_m: f64,
    t_s: f64,
    shape_m: &[[f64; 2]],
) -> Option<f64> {
    let w = walker_at(path, eye_height_m, t_s);
    if !w.walking {
        return None;
    }
    corridor_hit(&w, shape_m, AHEAD_M).map(|h| h.0)
}

/// The distance ahead of the nearest wall in `w`'s corridor (infinite when none).
fn wall_block(walls: &[Wall], w: &Walker) -> f64 {
    walls
        .iter()
        .filter(|wall| wall.height_m > 0.0)
        .filter_map(|wall| corridor_hit(w, &wall_ends(wall), AHEAD_M).map(|h| h.0))
        .fold(f64::INFINITY, f64::min)
}

/// Slack when comparing a thing's distance with the nearest wall's, m.
const BLOCK_SLACK_M: f64 = 0.05;

/// What one scan step says about one thing: in the corridor (with the distance ahead and
/// the point), or not.
type Probe<'a> = Box<dyn Fn(f64, &Walker) -> Option<(f64, [f64; 2])> + 'a>;

/// Whether a person at `p` (radius `r_m`) with velocity `v` is a hazard to `w` now.
pub fn person_conflict(w: &Walker, p: [f64; 2], v: [f64; 2], r_m: f64) -> bool {
    let head_d = (p[0] - w.origin_m[0]).hypot(p[1] - w.origin_m[1]);
    if head_d >= AHEAD_M {
        return false;
    }
    let rel = [v[0] - w.velocity_mps[0], v[1] - w.velocity_mps[1]];
    if !w.walking {
        // Standing: only someone closing in.
        let closing = rel[0] * (p[0] - w.origin_m[0]) + rel[1] * (p[1] - w.origin_m[1]) < 0.0;
        let moving = v[0].hypot(v[1]) > 0.1;
        if !(closing && moving) {
            return false;
        }
    }
    let steps = (PERSON_PREDICT_S / PREDICT_STEP_S).round() as usize;
    (0..=steps).any(|i| {
        let dt = i as f64 * PREDICT_STEP_S;
        let q = [p[0] + rel[0] * dt, p[1] + rel[1] * dt];
        let (along, lat) = to_corridor(w, q);
        lat.abs() <= CORRIDOR_HALF_WIDTH_M + r_m && along > 0.0 && along - r_m <= AHEAD_M
    })
}

/// The footprint corners of a vehicle centred at `c` heading `yaw_rad` with half length
/// and half width `half_m`, `[x, y]` m.
pub fn vehicle_footprint(c: [f64; 2], yaw_rad: f64, half_m: [f64; 2]) -> [[f64; 2]; 4] {
    let (u, v) = (
        [yaw_rad.cos(), yaw_rad.sin()],
        [-yaw_rad.sin(), yaw_rad.cos()],
    );
    let corner = |a: f64, b: f64| {
        [
            c[0] + a * half_m[0] * u[0] + b * half_m[1] * v[0],
            c[1] + a * half_m[0] * u[1] + b * half_m[1] * v[1],
        ]
    };
    [
        corner(1.0, 1.0),
        corner(-1.0, 1.0),
        corner(-1.0, -1.0),
        corner(1.0, -1.0),
    ]
}

/// Horizontal distance from `p` to a convex footprint (0 inside), m.
pub fn footprint_distance(fp: &[[f64; 2]; 4], p: [f64; 2]) -> f64 {
    let mut inside = true;
    let mut best = f64::INFINITY;
    for i in 0..4 {
        let (Some(a), Some(b)) = (fp.get(i), fp.get((i + 1) % 4)) else {
            continue;
        };
        let (ex, ey) = (b[0] - a[0], b[1] - a[1]);
        let (px, py) = (p[0] - a[0], p[1] - a[1]);
        let len2 = ex * ex + ey * ey;
        let t = if len2 > 0.0 {
            ((px * ex + py * ey) / len2).clamp(0.0, 1.0)
        } else {
            0.0
        };
        best = best.min((px - t * ex).hypot(py - t * ey));
        // Corners run counter-clockwise: inside is to the left of every edge.
        if ex * py - ey * px < 0.0 {
            inside = false;
        }
    }
    if inside {
        0.0
    } else {
        best
    }
}

/// When a vehicle with footprint `fp` (world corners now) moving at `v_mps` enters `w`'s
/// corridor (within [`AHEAD_M`]), within [`PERSON_PREDICT_S`] at its velocity relative to
/// the wearer's: seconds from now (0: in it now). Like a person, except that no distance
/// gate applies: a car at 8 m/s covers 24 m in that time, and what matters is when it
/// reaches the path. While the wearer stands, only a moving vehicle closing in counts.
pub fn vehicle_conflict(w: &Walker, fp: &[[f64; 2]; 4], v_mps: [f64; 2]) -> Option<f64> {
    let rel = [v_mps[0] - w.velocity_mps[0], v_mps[1] - w.velocity_mps[1]];
    let c = fp
        .iter()
        .fold([0.0, 0.0], |s, p| [s[0] + p[0] / 4.0, s[1] + p[1] / 4.0]);
    if !w.walking {
        let closing = rel[0] * (c[0] - w.origin_m[0]) + rel[1] * (c[1] - w.origin_m[1]) < 0.0;
        if !(closing && v_mps[0].hypot(v_mps[1]) > 0.1) {
            return None;
        }
    }
    let steps = (PERSON_PREDICT_S / PREDICT_STEP_S).round() as usize;
    (0..=steps).find_map(|i| {
        let dt = i as f64 * PREDICT_STEP_S;
        let moved = fp.map(|p| [p[0] + rel[0] * dt, p[1] + rel[1] * dt]);
        corridor_hit(w, &moved, AHEAD_M).map(|_| dt)
    })
}

struct Approach {
    from_s: f64,
    to_s: f64,
    position: [f64; 2],
    reversed: bool,
    /// The least time, over the approach, in which the wearer walking on at their pace
    /// would reach the thing (distance ahead / walking speed), s; infinite when never
    /// walking toward it at a measurable pace.
    soonest_reach_s: f64,
}

/// Whether a static thing's approach is a hazard: the wearer came within
/// [`LAST_ALERT_M`] of it (`latest_s` is set), or, walking, was at some moment at most
/// [`REACH_S`] from reaching it at their pace.
fn static_relevant(a: &Approach, latest_s: Option<f64>) -> bool {
    latest_s.is_some() || a.soonest_reach_s <= REACH_S
}

/// Whether a thing's approach survives the wearer stopping in front of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Resume {
    /// A static thing: setting off again toward it from within [`LAST_ALERT_M`], without
    /// having walked anywhere in between, continues the approach that brought the wearer
    /// there (see [`approaches`]).
    Continues,
    /// A mover: every stretch in the corridor is its own approach.
    NewApproach,
}

/// Approaches of one thing over `[0, duration_s]`.
///
/// A static thing's approach is not split by a stop in front of it: when the wearer walks
/// up to a thing, stands (or turns, or looks around) without walking anywhere, and sets
/// off toward it again from within [`LAST_ALERT_M`] (a blind walker who stops at the top of
/// the stairs or at the curb, finds the edge, and then goes down it on purpose), the
/// warning that brought them to a stop there is the one they needed. A second "new"
/// approach would open with the thing already at their feet (often within [`CONTACT_M`]:
/// a window of one scan step, in which no alert can land) and would ask for a warning about
/// the very edge they have just stopped at and chosen to step over. Setting off from
/// farther away, or after walking elsewhere in between, is a new approach.
fn approaches(
    path: &WearerPath,
    eye_height_m: f64,
    duration_s: f64,
    probe: &Probe<'_>,
    dir_sign: impl Fn(&Walker) -> bool,
    resume: Resume,
) -> Vec<Approach> {
    let n = (duration_s / SCAN_STEP_S).floor() as usize;
    let mut out: Vec<Approach> = Vec::new();
    // Whether the wearer walked (without the thing in the corridor) since its last hit.
    let mut walked_since_hit = false;
    for i in 0..=n {
        let t = i as f64 * SCAN_STEP_S;
        let w = walker_at(path, eye_height_m, t);
        let Some((ahead_m, point)) = probe(t, &w) else {
            walked_since_hit |= w.walking;
            continue;
        };
        let reversed = dir_sign(&w);
        let speed = w.velocity_mps[0].hypot(w.velocity_mps[1]);
        let reach = if w.walking && speed > MIN_PACE_MPS {
            ahead_m.max(0.0) / speed
        } else {
            f64::INFINITY
        };
        let resumed = resume == Resume::Continues && !walked_since_hit && ahead_m < LAST_ALERT_M;
        walked_since_hit = false;
        match out.last_mut() {
            Some(a) if (t - a.to_s < MERGE_GAP_S || resumed) && a.reversed == reversed => {
                a.to_s = t;
                a.soonest_reach_s = a.soonest_reach_s.min(reach);
            }
            _ => out.push(Approach {
                from_s: t,
                to_s: t,
                position: point,
                reversed,
                soonest_reach_s: reach,
            }),
        }
    }
    out
}

/// The old window (first time within [`AHEAD_M`] and [`OVERRIDE_BEARING_DEG`] of the head
/// direction, then within [`LAST_ALERT_M`]) of a flagged thing the rule never found.
fn override_window(
    path: &WearerPath,
    duration_s: f64,
    at: &dyn Fn(f64) -> [f64; 2],
) -> (Option<f64>, Option<f64>, [f64; 2]) {
    let n = (duration_s / SCAN_STEP_S).floor() as usize;
    let mut relevant = None;
    let mut where_ = at(0.0);
    for i in 0..=n {
        let t = i as f64 * SCAN_STEP_S;
        let h = path.head(t);
        let p = at(t);
        let (dx, dy) = (p[0] - h.position_m.x, p[1] - h.position_m.y);
        let d = dx.hypot(dy);
        let b = (dy.atan2(dx) - h.yaw_rad).to_degrees();
        let b = (b + 180.0).rem_euclid(360.0) - 180.0;
        if relevant.is_none() && d < AHEAD_M && b.abs() < OVERRIDE_BEARING_DEG {
            relevant = Some(t);
            where_ = p;
        }
        if relevant.is_some() && d < LAST_ALERT_M {
            return (relevant, Some(t), where_);
        }
    }
    (relevant, None, where_)
}

/// The first time from `from_s` at which `near(t)` holds, within the session.
fn first_when(from_s: f64, duration_s: f64, near: impl Fn(f64) -> bool) -> Option<f64> {
    let i0 = (from_s / SCAN_STEP_S).round() as usize;
    let n = (duration_s / SCAN_STEP_S).floor() as usize;
    (i0..=n).map(|i| i as f64 * SCAN_STEP_S).find(|&t| near(t))
}

/// Every hazard of `sc` for the wearer on `path`, per approach, in the order obstacles,
/// walls, steps, people (each by approach time).
pub fn hazards(sc: &Scenario, path: &WearerPath, t0_ns: i64, duration_s: f64) -> Vec<Hazard> {
    let ns = |t_s: f64| t0_ns + (t_s * 1e9).round() as i64;
    let world = &sc.world;
    let eye = sc.wearer.eye_height_m;
    let head_xy = |t: f64| {
        let h = path.head(t);
        [h.position_m.x, h.position_m.y]
    };
    let dist = |t: f64, p: [f64; 2]| {
        let h = head_xy(t);
        (p[0] - h[0]).hypot(p[1] - h[1])
    };
    let mut out = Vec::new();
    // Static things: (kind, label, position of a flag override, probe, reversed-kind).
    let static_window = |a: &Approach, ahead_of: &dyn Fn(f64) -> Option<f64>| {
        let near = |t: f64| {
            dist(t, a.position) < LAST_ALERT_M || ahead_of(t).is_some_and(|d| d < LAST_ALERT_M)
        };
        let mut latest = first_when(a.from_s, duration_s, near);
        if latest.is_some_and(|l| l <= a.from_s) {
            // Started inside the last-alert distance: useful until contact.
            latest = first_when(a.from_s + SCAN_STEP_S, duration_s, |t| {
                dist(t, a.position) < CONTACT_M
                    || ahead_of(t).is_some_and(|d| d < CONTACT_M)
                    || t > a.to_s
            });
        }
        latest
    };
    for o in &world.obstacles {
        // A thing standing on another, inside its footprint (a bottle on a table), is
        // reached only by walking into what it stands on, whose nearest part is nearer:
        // that one's warning is the warning. Listing it too would ask for two alerts about
        // one collision, the second about something perception cannot tell from the first.
        if world
            .obstacles
            .iter()
            .any(|base| !std::ptr::eq(base, o) && rests_on(o, base))
        {
            continue;
        }
        let kind = serde_json::to_value(o.kind)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        let fp = footprint(o);
        let centre = [o.center_m[0], o.center_m[1]];
        let probe: Probe<'_> = Box::new(move |_, w| {
            if !w.walking || !meets_body(o, w) {
                return None;
            }
            corridor_hit(w, &fp, AHEAD_M)
                .filter(|(d, _)| *d <= wall_block(&world.walls, w) + BLOCK_SLACK_M)
                .map(|(d, _)| (d, centre))
        });
        let found = approaches(path, eye, duration_s, &probe, |_| false, Resume::Continues);
        // Close is close to its nearest part, not to its centre: a long thing along the
        // way (a 1.2 m branch) is reached at its near end.
        let ahead_of = |t: f64| walking_hit(path, eye, t, &fp);
        let near_part = |t: f64| nearest_on_footprint(o, head_xy(t));
        for a in &found {
            let latest = static_window(a, &ahead_of);
            out.push(Hazard {
                kind: kind.clone(),
                label: o.label.clone(),
                position_m: o.center_m,
                moving: false,
                relevant_from_ns: static_relevant(a, latest).then(|| ns(a.from_s)),
                latest_alert_ns: latest.map(ns),
                track: Vec::new(),
                half_extent_m: None,
            });
        }
        if found.is_empty() && o.hazard {
            let (from, latest, _) = override_window(path, duration_s, &near_part);
            out.push(Hazard {
                kind,
                label: o.label.clone(),
                position_m: o.center_m,
                moving: false,
                relevant_from_ns: from.map(ns),
                latest_alert_ns: latest.map(ns),
                track: Vec::new(),
                half_extent_m: None,
            });
        }
    }
    for (i, wall) in world.walls.iter().enumerate() {
        let ends = wall_ends(wall);
        let probe: Probe<'_> = Box::new(move |_, w| {
            if !w.walking || wall.height_m <= 0.0 {
                return None;
            }
            corridor_hit(w, &ends, AHEAD_M)
                .filter(|(d, _)| *d <= wall_block(&world.walls, w) + BLOCK_SLACK_M)
        });
        for a in approaches(path, eye, duration_s, &probe, |_| false, Resume::Continues) {
            let ahead_of = |t: f64| walking_hit(path, eye, t, &ends);
            let latest = static_window(&a, &ahead_of);
            out.push(Hazard {
                kind: "wall".into(),
                label: format!("wall {}", i + 1),
                position_m: [a.position[0], a.position[1], world.floor_z_m],
                moving: false,
                relevant_from_ns: static_relevant(&a, latest).then(|| ns(a.from_s)),
                latest_alert_ns: latest.map(ns),
                track: Vec::new(),
                half_extent_m: None,
            });
        }
    }
    for e in floor_edges(world) {
        let ends = e.ends_m;
        let facing = e.facing;
        let probe: Probe<'_> = Box::new(move |_, w| {
            if !w.walking {
                return None;
            }
            corridor_hit(w, &ends, AHEAD_M)
                .filter(|(d, _)| *d <= wall_block(&world.walls, w) + BLOCK_SLACK_M)
        });
        let reversed = |w: &Walker| w.dir[0] * facing[0] + w.dir[1] * facing[1] < 0.0;
        let found = approaches(path, eye, duration_s, &probe, reversed, Resume::Continues);
        let kind_of = |rev: bool| {
            let rise = if rev { -e.rise_m } else { e.rise_m };
            (if rise < 0.0 { "drop_off" } else { "step_up" }).to_string()
        };
        for a in &found {
            let ahead_of = |t: f64| walking_hit(path, eye, t, &ends);
            let z = if a.reversed { e.z_m + e.rise_m } else { e.z_m };
            let latest = static_window(a, &ahead_of);
            out.push(Hazard {
                kind: kind_of(a.reversed),
                label: e.label.clone(),
                position_m: [a.position[0], a.position[1], z],
                moving: false,
                relevant_from_ns: static_relevant(a, latest).then(|| ns(a.from_s)),
                latest_alert_ns: latest.map(ns),
                track: Vec::new(),
                half_extent_m: None,
            });
        }
        let flagged = e
            .declared
            .and_then(|i| world.steps.get(i))
            .filter(|s| s.hazard);
        if let (true, Some(s)) = (found.is_empty(), flagged) {
            let c = [s.edge_m[0], s.edge_m[1]];
            let (from, latest, _) = override_window(path, duration_s, &|_| c);
            out.push(Hazard {
                kind: kind_of(false),
                label: s.label.clone(),
                position_m: s.edge_m,
                moving: false,
                relevant_from_ns: from.map(ns),
                latest_alert_ns: latest.map(ns),
                track: Vec::new(),
                half_extent_m: None,
            });
        }
    }
    // A mover's positions around its window, for the scorer.
    let track_of = |from_s: f64, to_s: f64, at: &dyn Fn(f64) -> ([f64; 2], f64)| {
        let (a, b) = (
            (from_s - TRACK_MARGIN_S).max(0.0),
            (to_s + TRACK_MARGIN_S).min(duration_s),
        );
        let n = ((b - a) / TRACK_STEP_S).floor().max(0.0) as usize;
        (0..=n)
            .map(|i| {
                let t = a + i as f64 * TRACK_STEP_S;
                let (p, yaw) = at(t);
                TrackSample {
                    t_ns: ns(t),
                    position_m: p,
                    yaw_rad: yaw,
                }
            })
            .collect::<Vec<_>>()
    };
    for person in &world.people {
        let at = |t: f64| person.position_at(t);
        let vel = |t: f64| {
            let (a, b) = (at(t - 0.05), at(t + 0.05));
            [(b[0] - a[0]) / 0.1, (b[1] - a[1]) / 0.1]
        };
        let pose = |t: f64| (person.position_at(t), person.facing_at(t));
        let r = person.radius_m;
        let probe: Probe<'_> = Box::new(move |t, w| {
            let p = at(t);
            person_conflict(w, p, vel(t), r).then_some((0.0, p))
        });
        let found = approaches(
            path,
            eye,
            duration_s,
            &probe,
            |_| false,
            Resume::NewApproach,
        );
        for a in &found {
            let latest = first_when(a.from_s, duration_s, |t| dist(t, at(t)) < LAST_ALERT_M);
            out.push(Hazard {
                kind: "person".into(),
                label: person.label.clone(),
                position_m: [a.position[0], a.position[1], world.floor_z_m],
                moving: true,
                relevant_from_ns: Some(ns(a.from_s)),
                latest_alert_ns: latest.map(ns),
                track: track_of(a.from_s, latest.unwrap_or(a.to_s), &pose),
                half_extent_m: None,
            });
        }
        if found.is_empty() && person.hazard {
            let (from, latest, p) = override_window(path, duration_s, &at);
            let track = match from {
                Some(f) => track_of(f, latest.unwrap_or(duration_s), &pose),
                None => Vec::new(),
            };
            out.push(Hazard {
                kind: "person".into(),
                label: person.label.clone(),
                position_m: [p[0], p[1], world.floor_z_m],
                moving: true,
                relevant_from_ns: from.map(ns),
                latest_alert_ns: latest.map(ns),
                track,
                half_extent_m: None,
            });
        }
    }
    for vehicle in &world.vehicles {
        let half = [vehicle.size_m[0] / 2.0, vehicle.size_m[1] / 2.0];
        let pose = |t: f64| (vehicle.position_at(t), vehicle.heading_at(t));
        let fp = |t: f64| {
            let (c, yaw) = pose(t);
            vehicle_footprint(c, yaw, half)
        };
        let vel = |t: f64| {
            let (a, b) = (vehicle.position_at(t - 0.05), vehicle.position_at(t + 0.05));
            [(b[0] - a[0]) / 0.1, (b[1] - a[1]) / 0.1]
        };
        let probe: Probe<'_> =
            Box::new(move |t, w| vehicle_conflict(w, &fp(t), vel(t)).map(|_| (0.0, pose(t).0)));
        let found = approaches(
            path,
            eye,
            duration_s,
            &probe,
            |_| false,
            Resume::NewApproach,
        );
        for a in &found {
            // Useful until it is in the corridor, or its nearest part within the last-alert
            // distance of the head.
            let latest = first_when(a.from_s, duration_s, |t| {
                let w = walker_at(path, eye, t);
                let f = fp(t);
                corridor_hit(&w, &f, AHEAD_M).is_some()
                    || footprint_distance(&f, head_xy(t)) < LAST_ALERT_M
            });
            out.push(Hazard {
                kind: "vehicle".into(),
                label: vehicle.label.clone(),
                position_m: [a.position[0], a.position[1], world.floor_z_m],
                moving: true,
                relevant_from_ns: Some(ns(a.from_s)),
                latest_alert_ns: latest.map(ns),
                track: track_of(a.from_s, latest.unwrap_or(a.to_s), &pose),
                half_extent_m: Some(half),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synth::scenario::{HeightStep, ObstacleKind, Person, Vehicle, Wearer, World};
    use nalgebra::Isometry3;

    const T0: i64 = 1_000_000_000;

    fn scenario(world: World, script: Vec<Action>) -> (Scenario, WearerPath) {
        let wearer = Wearer {
            start_m: [0.0, 0.0],
            heading_deg: 0.0,
            eye_height_m: 1.6,
            script,
            repeat: 1,
        };
        let path = WearerPath::new(&wearer, 0.0, Isometry3::identity());
        let sc = Scenario {
            name: "t".into(),
            summary: String::new(),
            categories: vec![],
            duration_s: 20.0,
            rgb_fps: 0.0,
            world,
            wearer,
            gaze: vec![],
            requests: vec![],
        };
        (sc, path)
    }

    fn walk(d: f64) -> Action {
        Action::Walk {
            distance_m: d,
            speed_mps: 1.0,
        }
    }

    fn boxed(label: &str, c: [f64; 2], size: [f64; 3], hazard: bool) -> Obstacle {
        Obstacle {
            kind: ObstacleKind::Box,
            label: label.into(),
            center_m: [c[0], c[1], 0.0],
            size_m: size,
            hazard,
            rgb: None,
            photo: None,
        }
    }

    fn wall(a: [f64; 2], b: [f64; 2]) -> Wall {
        Wall {
            from_m: a,
            to_m: b,
            height_m: 2.5,
        }
    }

    fn t_s(ns: i64) -> f64 {
        (ns - T0) as f64 * 1e-9
    }

    fn head_x(path: &WearerPath, ns: i64) -> f64 {
        path.head(t_s(ns)).position_m.x
    }

    #[test]
    fn a_box_ahead_is_a_hazard_from_5_m_to_1_5_m_and_one_beside_is_not() {
        let world = World {
            obstacles: vec![
                // Centre on the line: 5 m and 1.5 m from the head are at x = 1 and 4.5.
                boxed("ahead", [6.0, 0.0], [0.4, 0.4, 0.8], false),
                // Near side 0.30 m from the line: inside the 0.35 m half-width.
                boxed("grazing", [9.0, -0.5], [0.4, 0.4, 0.8], false),
                // Near side 0.40 m from the line: outside.
                boxed("beside", [12.0, 0.6], [0.4, 0.4, 0.8], true),
                // A lintel from 2.0 m up: over the head (eyes 1.6 m, head top 1.75 m).
                boxed("lintel", [14.0, 0.0], [0.2, 1.0, 0.5], false),
            ],
            ..World::default()
        };
        let mut world = world;
        world.obstacles[3].center_m[2] = 2.0;
        let (sc, path) = scenario(world, vec![walk(16.0)]);
        let hz = hazards(&sc, &path, T0, 18.0);
        let labels: Vec<&str> = hz.iter().map(|h| h.label.as_str()).collect();
        // "beside" is flagged: listed by the override, with the old bearing window.
        assert_eq!(labels, ["ahead", "grazing", "beside"]);
        let a = &hz[0];
        let from = a.relevant_from_ns.unwrap();
        let to = a.latest_alert_ns.unwrap();
        // Its near face (x = 5.8) 5 m ahead, then 1.5 m ahead.
        assert!(
            (head_x(&path, from) - 0.8).abs() < 0.02,
            "{}",
            head_x(&path, from)
        );
        assert!(
            (head_x(&path, to) - 4.3).abs() < 0.02,
            "{}",
            head_x(&path, to)
        );
        assert_eq!(a.kind, "box");
        assert_eq!(a.position_m, [6.0, 0.0, 0.0]);
        // The grazing box: its near face (x = 8.8) is 5 m ahead at x = 3.8.
        let g = &hz[1];
        assert!((head_x(&path, g.relevant_from_ns.unwrap()) - 3.8).abs() < 0.02);
    }

    #[test]
    fn a_thing_the_walk_ends_far_short_of_is_not_required_and_one_stopped_near_is() {
        // A box on the line, its near face at x = 5.8.
        let world = || World {
            obstacles: vec![boxed("ahead", [6.0, 0.0], [0.4, 0.4, 0.8], false)],
            ..World::default()
        };
        // The walk ends at x = 1.0: the face enters the 5 m corridor 0.2 m before the stop,
        // while the wearer slows down, and is never nearer than 4.8 m (more than 5 s at the
        // slowing pace): listed, not relevant.
        let (sc, path) = scenario(world(), vec![walk(1.0), Action::Stop { duration_s: 5.0 }]);
        let hz = hazards(&sc, &path, T0, 7.0);
        assert_eq!(hz.len(), 1);
        assert_eq!(hz[0].relevant_from_ns, None);
        assert_eq!(hz[0].latest_alert_ns, None);
        // The walk ends at x = 3.5, 2.3 m short (2.5 s at 1 m/s before slowing down):
        // never within 1.5 m, but the wearer was about to reach it. Relevant, its window
        // open to the session's end.
        let (sc, path) = scenario(world(), vec![walk(3.5), Action::Stop { duration_s: 5.0 }]);
        let hz = hazards(&sc, &path, T0, 9.0);
        assert_eq!(hz.len(), 1);
        assert!(hz[0].relevant_from_ns.is_some());
        assert_eq!(hz[0].latest_alert_ns, None);
    }

    #[test]
    fn walls_count_only_where_the_corridor_meets_them() {
        // A hall 3 m wide walked along its middle; an end wall at x = 10 with a 1 m door
        // at y ∈ [-0.5, 0.5] walked straight through; a back wall at x = -1 behind.
        let world = World {
            walls: vec![
                wall([-1.0, -1.5], [20.0, -1.5]),
                wall([-1.0, 1.5], [20.0, 1.5]),
                wall([10.0, -1.5], [10.0, -0.5]),
                wall([10.0, 0.5], [10.0, 1.5]),
                wall([-1.0, -1.5], [-1.0, 1.5]),
            ],
            ..World::default()
        };
        let (sc, path) = scenario(
            world,
            vec![
                Action::Stop { duration_s: 1.0 },
                Action::LookAround {
                    amplitude_deg: 60.0,
                    duration_s: 3.0,
                },
                walk(14.0),
            ],
        );
        assert!(hazards(&sc, &path, T0, 20.0).is_empty());
    }

    #[test]
    fn walking_toward_a_wall_obliquely_and_head_on() {
        // From (0, 0) at 30° left toward the wall y = 2: the corridor's left edge
        // (lateral 0.35) meets it where x = (2 cos 30° − 0.35) / sin 30° = 2.764, which is
        // 2.764 cos 30° + 2 sin 30° = 3.394 m ahead: relevant as the walk starts. The
        // centre line meets it at x = 2 / tan 30° = 3.464.
        let world = World {
            walls: vec![wall([-5.0, 2.0], [20.0, 2.0])],
            ..World::default()
        };
        let (sc, path) = scenario(
            world,
            vec![
                Action::Turn {
                    angle_deg: 30.0,
                    duration_s: 1.0,
                },
                Action::Stop { duration_s: 1.0 },
                Action::Walk {
                    distance_m: 2.0,
                    speed_mps: 1.0,
                },
            ],
        );
        let hz = hazards(&sc, &path, T0, 8.0);
        assert_eq!(hz.len(), 1, "{hz:?}");
        let h = &hz[0];
        assert_eq!(h.kind, "wall");
        assert_eq!(h.relevant_from_ns, Some(T0 + 2_000_000_000));
        assert!((h.position_m[0] - 2.0 / 30f64.to_radians().tan()).abs() < 1e-6);
        assert!((h.position_m[1] - 2.0).abs() < 1e-9);
        // The walk ends at (√3, 1): 2 m short of the hit point and 1.37 m ahead of the
        // wall's nearest corridor point (3.394 − 2): within 1.5 m ahead before the end.
        let to = t_s(h.latest_alert_ns.unwrap());
        let p = path.head(to).position_m;
        let done = (p.x * 30f64.to_radians().cos() + p.y * 30f64.to_radians().sin()).max(0.0);
        assert!((3.394 - done - 1.5).abs() < 0.02, "{}", 3.394 - done);
    }

    #[test]
    fn a_curb_is_a_drop_off_one_way_and_a_step_up_the_other() {
        // The road beyond the curb runs 20 m on: its far side (a step up) is never within
        // reach (`truth_edges` makes it an edge of its own).
        let world = World {
            steps: vec![HeightStep {
                label: "curb".into(),
                edge_m: [4.0, 0.0, 0.0],
                rise_m: -0.15,
                hazard: false,
                facing_deg: 0.0,
                width_m: 4.0,
                depth_m: 20.0,
            }],
            ..World::default()
        };
        let (sc, path) = scenario(
            world,
            vec![
                walk(6.0),
                Action::Turn {
                    angle_deg: 180.0,
                    duration_s: 2.0,
                },
                walk(6.0),
            ],
        );
        let hz = hazards(&sc, &path, T0, 20.0);
        let kinds: Vec<&str> = hz.iter().map(|h| h.kind.as_str()).collect();
        assert_eq!(kinds, ["drop_off", "step_up"], "{hz:?}");
        for h in &hz {
            assert!((h.position_m[0] - 4.0).abs() < 1e-6 && h.position_m[1].abs() < 0.03);
            let to = h.latest_alert_ns.unwrap();
            assert!((path.head(t_s(to)).position_m.x - 4.0).abs() < 1.5 + 0.02);
        }
        // Coming back the wearer starts 2 m beyond the edge: relevant when walking starts
        // (6.6 s walk + 2 s turn).
        let back = t_s(hz[1].relevant_from_ns.unwrap());
        assert!((back - 8.6).abs() <= 0.011, "{back}");
        assert!((hz[1].position_m[2] + 0.15).abs() < 1e-9);
    }

    fn curb_at_4_m() -> World {
        World {
            steps: vec![HeightStep {
                label: "curb".into(),
                edge_m: [4.0, 0.0, 0.0],
                rise_m: -0.15,
                hazard: false,
                facing_deg: 0.0,
                width_m: 4.0,
                depth_m: 20.0,
            }],
            ..World::default()
        }
    }

    fn step_down(d: f64) -> Action {
        Action::Climb {
            distance_m: d,
            rise_m: -0.15,
            speed_mps: 0.5,
        }
    }

    #[test]
    fn stopping_at_the_curb_and_then_stepping_down_is_one_approach() {
        // Walk to 0.1 m short of the edge, stand 3 s (longer than the 2 s merge gap), step
        // down: the warning on the way there is the one that counts; setting off from the
        // edge opens no second window (it would open 0.1 m from the edge, inside the 0.2 m
        // contact distance: a window of one scan step).
        let (sc, path) = scenario(
            curb_at_4_m(),
            vec![walk(3.9), Action::Stop { duration_s: 3.0 }, step_down(0.5)],
        );
        let hz = hazards(&sc, &path, T0, 14.0);
        assert_eq!(hz.len(), 1, "{hz:?}");
        let h = &hz[0];
        assert_eq!(h.kind, "drop_off");
        // Relevant from the start (4 m ahead), useful until 1.5 m from the edge (x = 2.5).
        assert_eq!(h.relevant_from_ns, Some(T0));
        let to = h.latest_alert_ns.unwrap();
        assert!(
            (head_x(&path, to) - 2.5).abs() < 0.02,
            "{}",
            head_x(&path, to)
        );
    }

    #[test]
    fn setting_off_from_afar_or_after_walking_elsewhere_is_a_new_approach() {
        // Stop 2.6 m short of the edge (outside the last-alert distance), stand 3 s, walk
        // on: a new approach, which needs its own warning.
        let (sc, path) = scenario(
            curb_at_4_m(),
            vec![walk(1.4), Action::Stop { duration_s: 3.0 }, walk(3.0)],
        );
        let hz = hazards(&sc, &path, T0, 14.0);
        assert_eq!(hz.len(), 2, "{hz:?}");
        // Walk to the edge, turn back and walk 2 m away, turn and come back to the edge: the
        // walk away (the curb behind, out of the corridor) ends the first approach.
        let turn = |deg: f64| Action::Turn {
            angle_deg: deg,
            duration_s: 1.0,
        };
        let (sc, path) = scenario(
            curb_at_4_m(),
            vec![
                walk(3.0),
                turn(180.0),
                walk(2.0),
                turn(180.0),
                walk(1.9),
                Action::Stop { duration_s: 3.0 },
                step_down(0.5),
            ],
        );
        let hz = hazards(&sc, &path, T0, 20.0);
        let drops = hz.iter().filter(|h| h.kind == "drop_off").count();
        assert_eq!(drops, 2, "{hz:?}");
    }

    #[test]
    fn a_bottle_on_a_table_is_the_table_s_hazard() {
        let mut bottle = boxed("bottle", [3.0, 0.05], [0.07, 0.07, 0.22], false);
        bottle.center_m[2] = 0.7;
        // A bottle on the floor beside the table's far side is its own thing.
        let floor_bottle = boxed("floor bottle", [3.35, 0.0], [0.07, 0.07, 0.22], false);
        let world = World {
            obstacles: vec![
                boxed("table", [3.0, 0.0], [0.6, 0.6, 0.7], false),
                bottle,
                floor_bottle,
            ],
            ..World::default()
        };
        assert!(rests_on(&world.obstacles[1], &world.obstacles[0]));
        assert!(!rests_on(&world.obstacles[2], &world.obstacles[0]));
        assert!(!rests_on(&world.obstacles[0], &world.obstacles[1]));
        let (sc, path) = scenario(world, vec![walk(1.5)]);
        let hz = hazards(&sc, &path, T0, 6.0);
        let labels: Vec<&str> = hz.iter().map(|h| h.label.as_str()).collect();
        assert_eq!(labels, ["table", "floor bottle"]);
    }

    #[test]
    fn a_long_thing_along_the_way_is_close_at_its_near_end() {
        // A box 1.2 m long along the path, centred at x = 8 (near end x = 7.4), and a
        // flagged branch of the same shape at x = 16 whose underside (1.9 m) clears the
        // head top (1.75 m): the rule never finds it, the flag lists it.
        let mut branch = boxed("branch", [16.0, 0.0], [1.2, 0.1, 0.1], true);
        branch.center_m[2] = 1.9;
        let world = World {
            obstacles: vec![
                boxed("long box", [8.0, 0.0], [1.2, 0.1, 0.8], false),
                branch,
            ],
            ..World::default()
        };
        let (sc, path) = scenario(world, vec![walk(18.0)]);
        let hz = hazards(&sc, &path, T0, 20.0);
        let labels: Vec<&str> = hz.iter().map(|h| h.label.as_str()).collect();
        assert_eq!(labels, ["long box", "branch"]);
        // The box: relevant 5 m before its near end (x = 2.4), useful until 1.5 m before
        // it (x = 5.9), not until 1.5 m before its centre (x = 6.5).
        let b = &hz[0];
        assert!((head_x(&path, b.relevant_from_ns.unwrap()) - 2.4).abs() < 0.02);
        let to = head_x(&path, b.latest_alert_ns.unwrap());
        assert!((to - 5.9).abs() < 0.02, "{to}");
        // The branch, by the flag's window: its near end (x = 15.4) within 5 m (x = 10.4),
        // then within 1.5 m (x = 13.9).
        let br = &hz[1];
        let from = head_x(&path, br.relevant_from_ns.unwrap());
        assert!((from - 10.4).abs() < 0.02, "{from}");
        let to = head_x(&path, br.latest_alert_ns.unwrap());
        assert!((to - 13.9).abs() < 0.02, "{to}");
        assert_eq!(br.position_m, [16.0, 0.0, 1.9]);
    }

    fn person(path_m: Vec<[f64; 2]>, start_s: f64) -> Person {
        Person {
            label: "p".into(),
            path_m,
            speed_mps: 1.0,
            start_s,
            radius_m: 0.25,
            height_m: 1.7,
            hazard: false,
            facing_deg: None,
            wave_s: None,
        }
    }

    #[test]
    fn people_who_cross_the_corridor_not_those_walking_alongside() {
        // A person crossing x = 4 from y = 3 to y = −3 from t = 1 s, while the wearer
        // walks east from t = 0 (0.7 m done at t = 1 s): the person's disc reaches the
        // corridor (|y| ≤ 0.35 + 0.25) 2.4 s after setting off, 4 − 3.1 = 0.9 m ahead;
        // with 3 s of prediction it counts as soon as its velocity (a ±50 ms difference)
        // reaches 0.8 m/s, i.e. within 1.0–1.1 s. It is 4.5 m away then.
        let world = World {
            people: vec![
                person(vec![[4.0, 3.0], [4.0, -3.0]], 1.0),
                person(vec![[0.0, 2.5], [20.0, 2.5]], 0.0),
            ],
            ..World::default()
        };
        let (sc, path) = scenario(world, vec![walk(8.0)]);
        let hz = hazards(&sc, &path, T0, 10.0);
        assert_eq!(hz.len(), 1, "{hz:?}");
        let from = t_s(hz[0].relevant_from_ns.unwrap());
        assert!((1.0..=1.1).contains(&from), "{from}");
        assert!(hz[0].moving);
        // Deadline: head within 1.5 m of the person.
        let to = t_s(hz[0].latest_alert_ns.unwrap());
        let h = path.head(to).position_m;
        let p = sc.world.people[0].position_at(to);
        let d = (h.x - p[0]).hypot(h.y - p[1]);
        assert!(d < 1.5 && d > 1.45, "{d}");
    }

    #[test]
    fn standing_still_only_someone_closing_in_counts() {
        // The wearer stands facing +x; one person walks toward them along the line, one
        // walks away, one stands 2 m ahead.
        let world = World {
            people: vec![
                person(vec![[6.0, 0.0], [1.0, 0.0]], 0.0),
                person(vec![[2.0, 0.3], [9.0, 0.3]], 0.0),
                person(vec![[2.0, -0.2]], 0.0),
            ],
            ..World::default()
        };
        let (sc, path) = scenario(world, vec![Action::Stop { duration_s: 10.0 }]);
        let hz = hazards(&sc, &path, T0, 10.0);
        assert_eq!(hz.len(), 1, "{hz:?}");
        // Within 5 m (disc centre) from t = 1 s.
        let from = t_s(hz[0].relevant_from_ns.unwrap());
        assert!((from - 1.0).abs() < 0.02, "{from}");
        assert_eq!(hz[0].position_m[1], 0.0);
    }

    fn car(path_m: Vec<[f64; 2]>, speed_mps: f64) -> Vehicle {
        Vehicle {
            label: "car".into(),
            path_m,
            speed_mps,
            start_s: 0.0,
            size_m: [4.2, 1.8, 1.5],
            hazard: false,
        }
    }

    #[test]
    fn a_car_crossing_the_path_is_a_hazard_one_alongside_is_not() {
        // The wearer walks east from (0, 0); a car drives south along x = 6 at 8 m/s from
        // y = 30 (its front end, 2.1 m ahead of its centre, at y = 27.9 − 8t). Its
        // footprint (x 5.1–6.9) is within the corridor's 5 m once the wearer is past
        // x = 0.1. With 3 s of prediction it counts once 27.9 − 8t − 24 ≤ 0.35, i.e. from
        // t = 0.444 s, at 26 m: no distance gate. Useful until the front end is in the
        // corridor (27.9 − 8t ≤ 0.35: t = 3.444 s). A second car drives east alongside at
        // y = −3, a third stands parked at y = 3: neither enters the corridor.
        let world = World {
            vehicles: vec![
                car(vec![[6.0, 30.0], [6.0, -30.0]], 8.0),
                car(vec![[-5.0, -3.0], [40.0, -3.0]], 3.0),
                car(vec![[8.0, 3.0]], 1.0),
            ],
            ..World::default()
        };
        let (sc, path) = scenario(world, vec![walk(10.0)]);
        let hz = hazards(&sc, &path, T0, 12.0);
        assert_eq!(hz.len(), 1, "{hz:?}");
        let h = &hz[0];
        assert_eq!((h.kind.as_str(), h.label.as_str()), ("vehicle", "car"));
        assert!(h.moving);
        let from = t_s(h.relevant_from_ns.unwrap());
        assert!((from - 0.444).abs() <= 0.011, "{from}");
        let to = t_s(h.latest_alert_ns.unwrap());
        assert!((to - 3.444).abs() <= 0.011, "{to}");
        assert_eq!(h.half_extent_m, Some([2.1, 0.9]));
        // The track covers the window with 2 s either side, every 0.1 s, and follows the car.
        let first = h.track.first().unwrap();
        let last = h.track.last().unwrap();
        assert_eq!(first.t_ns, T0);
        assert!((t_s(last.t_ns) - (to + 2.0)).abs() <= 0.1, "{last:?}");
        for s in &h.track {
            let want = sc.world.vehicles[0].position_at(t_s(s.t_ns));
            assert!((s.position_m[0] - want[0]).abs() < 1e-9);
            assert!((s.position_m[1] - want[1]).abs() < 1e-9);
        }
    }

    #[test]
    fn standing_at_the_curb_only_an_approaching_car_counts() {
        // Standing at the origin facing +x; a car passes 3 m ahead along x = 4 (footprint
        // x 3.1–4.9), driving south from y = 20 at 8 m/s. It counts while it closes in:
        // from when its front end (17.9 − 8t) is 24 m from the corridor (|y| ≤ 0.35), i.e.
        // at once, until it is in the corridor (t = 2.194 s).
        let world = World {
            vehicles: vec![car(vec![[4.0, 20.0], [4.0, -20.0]], 8.0)],
            ..World::default()
        };
        let (sc, path) = scenario(world, vec![Action::Stop { duration_s: 8.0 }]);
        let hz = hazards(&sc, &path, T0, 8.0);
        assert_eq!(hz.len(), 1, "{hz:?}");
        let to = t_s(hz[0].latest_alert_ns.unwrap());
        assert!((to - 2.194).abs() <= 0.011, "{to}");
        assert!(t_s(hz[0].relevant_from_ns.unwrap()) <= 0.06);
    }

    #[test]
    fn footprint_distance_and_corners() {
        let fp = vehicle_footprint([1.0, 2.0], std::f64::consts::FRAC_PI_2, [2.0, 1.0]);
        // Heading +y: 2 m half length along y, 1 m half width along x.
        assert!(footprint_distance(&fp, [1.0, 2.0]) == 0.0);
        assert!((footprint_distance(&fp, [4.0, 2.0]) - 2.0).abs() < 1e-9);
        assert!((footprint_distance(&fp, [1.0, -1.0]) - 1.0).abs() < 1e-9);
        assert!((footprint_distance(&fp, [5.0, 7.0]) - 3f64.hypot(3.0)).abs() < 1e-9);
    }

    #[test]
    fn clipping_matches_hand_geometry() {
        let w = Walker {
            origin_m: [0.0, 0.0],
            dir: [1.0, 0.0],
            velocity_mps: [1.0, 0.0],
            walking: true,
            floor_z_m: 0.0,
            eye_height_m: 1.6,
        };
        // A segment from (2, 1) to (4, -1): within |y| ≤ 0.35 from x = 2.65 to 3.35; the
        // centre line meets it at (3, 0).
        let (d, p) = corridor_hit(&w, &[[2.0, 1.0], [4.0, -1.0]], 5.0).unwrap();
        assert!((d - 2.65).abs() < 1e-9 && (p[0] - 3.0).abs() < 1e-9 && p[1].abs() < 1e-9);
        // Parallel and outside; behind; beyond range.
        assert!(corridor_hit(&w, &[[1.0, 0.4], [9.0, 0.4]], 5.0).is_none());
        assert!(corridor_hit(&w, &[[-3.0, -1.0], [-3.0, 1.0]], 5.0).is_none());
        assert!(corridor_hit(&w, &[[5.5, -1.0], [5.5, 1.0]], 5.0).is_none());
        // A square around the body: distance 0.
        let sq = [[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]];
        assert_eq!(corridor_hit(&w, &sq, 5.0).map(|h| h.0), Some(0.0));
    }
}
