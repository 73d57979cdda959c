//! Floor edges of a synthetic world (pure compute): every line where the walkable floor
//! changes level, as the renderer builds it. A height step of the scenario is a slab
//! ([`crate::synth::render::step_box`]: raised when its rise is positive, a pit in the floor when
//! negative) `depth_m` deep beyond its declared edge and `width_m` wide; the declared edge is
//! one of its four sides. The other three are edges too wherever the level beyond them
//! differs from the slab's (the far end of a raised landing drops to the floor; the far end
//! of a pit rises back to it), unless another step's declared edge lies there. The hazard
//! ground truth ([`super::truth_hazards`]) treats every such edge like a declared one.

use crate::synth::render::step_box;
use crate::synth::scenario::{HeightStep, World};

/// A level change smaller than this is no edge, m.
pub const MIN_RISE_M: f64 = 0.05;
/// Sides are examined in pieces this long, m.
pub const PIECE_M: f64 = 0.1;
/// The level either side of a side is read this far from it, m.
const PROBE_M: f64 = 0.02;
/// A side piece this close to another step's declared edge is that edge, m.
const SAME_EDGE_M: f64 = 0.05;

/// One floor edge.
#[derive(Clone, Debug, PartialEq)]
pub struct FloorEdge {
    /// Label: the step's, with "far edge" or "side" for the sides found.
    pub label: String,
    /// Its two ends, `[x, y]` m.
    pub ends_m: [[f64; 2]; 2],
    /// Unit direction (world `[x, y]`) in which crossing it changes the level by `rise_m`.
    pub facing: [f64; 2],
    /// Level change crossing it along `facing`, m (negative: a drop-off).
    pub rise_m: f64,
    /// Floor level before it (against `facing`), m.
    pub z_m: f64,
    /// The scenario's step, when this is its declared edge.
    pub declared: Option<usize>,
}

/// The floor level at `p` (`[x, y]` m): the top of the highest raised slab there, else the
/// floor of the deepest pit, else the world's floor.
pub fn level_at(world: &World, p: [f64; 2]) -> f64 {
    let (mut raised, mut pit): (Option<f64>, Option<f64>) = (None, None);
    for s in &world.steps {
        let b = step_box(s);
        let inside =
            (b.min_m[0]..=b.max_m[0]).contains(&p[0]) && (b.min_m[1]..=b.max_m[1]).contains(&p[1]);
        if !inside {
            continue;
        }
        if s.rise_m > 0.0 {
            raised = Some(raised.map_or(b.max_m[2], |r: f64| r.max(b.max_m[2])));
        } else {
            pit = Some(pit.map_or(b.min_m[2], |q: f64| q.min(b.min_m[2])));
        }
    }
    raised.or(pit).unwrap_or(world.floor_z_m)
}

/// The ends of a step's declared edge, `[x, y]` m.
pub fn edge_ends(s: &HeightStep) -> [[f64; 2]; 2] {
    let f = s.facing_deg.to_radians();
    // Along the edge: perpendicular to the facing direction.
    let (ex, ey) = (-f.sin() * s.width_m / 2.0, f.cos() * s.width_m / 2.0);
    [
        [s.edge_m[0] - ex, s.edge_m[1] - ey],
        [s.edge_m[0] + ex, s.edge_m[1] + ey],
    ]
}

/// Distance from `p` to the segment `ab`, m.
fn to_segment(p: [f64; 2], a: [f64; 2], b: [f64; 2]) -> f64 {
    let (ex, ey) = (b[0] - a[0], b[1] - a[1]);
    let len2 = ex * ex + ey * ey;
    let t = if len2 > 0.0 {
        (((p[0] - a[0]) * ex + (p[1] - a[1]) * ey) / len2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (p[0] - a[0] - t * ex).hypot(p[1] - a[1] - t * ey)
}

/// Every floor edge of `world`: each step's declared edge, then the sides found.
pub fn floor_edges(world: &World) -> Vec<FloorEdge> {
    let declared: Vec<[[f64; 2]; 2]> = world.steps.iter().map(edge_ends).collect();
    let mut out = Vec::new();
    for (i, s) in world.steps.iter().enumerate() {
        let f = s.facing_deg.to_radians();
        let u = [f.cos(), f.sin()];
        out.push(FloorEdge {
            label: s.label.clone(),
            ends_m: edge_ends(s),
            facing: u,
            rise_m: s.rise_m,
            z_m: s.edge_m[2],
            declared: Some(i),
        });
        // The other three sides, each with its outward normal.
        let a = [-u[1], u[0]];
        let (e, w, d) = ([s.edge_m[0], s.edge_m[1]], s.width_m / 2.0, s.depth_m);
        let at = |along: f64, across: f64| {
            [
                e[0] + u[0] * along + a[0] * across,
                e[1] + u[1] * along + a[1] * across,
            ]
        };
        let sides = [
            ("far edge", at(d, -w), at(d, w), u),
            ("side", at(0.0, w), at(d, w), a),
            ("side", at(0.0, -w), at(d, -w), [-a[0], -a[1]]),
        ];
        for (name, p0, p1, n) in sides {
            let len = (p1[0] - p0[0]).hypot(p1[1] - p0[1]);
            let pieces = (len / PIECE_M).ceil().max(1.0) as usize;
            let step = len / pieces as f64;
            let dir = [(p1[0] - p0[0]) / len, (p1[1] - p0[1]) / len];
            let pt = |s: f64| [p0[0] + dir[0] * s, p0[1] + dir[1] * s];
            // The current run: (start along the side, end, rise, level inside).
            let mut run: Option<(f64, f64, f64, f64)> = None;
            let mut flush = |run: &mut Option<(f64, f64, f64, f64)>| {
                if let Some((s0, s1, rise, inner)) = run.take() {
                    out.push(FloorEdge {
                        label: format!("{} {name}", s.label),
                        ends_m: [pt(s0), pt(s1)],
                        facing: n,
                        rise_m: rise,
                        z_m: inner,
                        declared: None,
                    });
                }
            };
            for k in 0..pieces {
                let (s0, s1) = (k as f64 * step, (k + 1) as f64 * step);
                let m = pt((s0 + s1) / 2.0);
                let inner = level_at(world, [m[0] - n[0] * PROBE_M, m[1] - n[1] * PROBE_M]);
                let outer = level_at(world, [m[0] + n[0] * PROBE_M, m[1] + n[1] * PROBE_M]);
                let rise = outer - inner;
                let covered = declared
                    .iter()
                    .enumerate()
                    .any(|(j, de)| j != i && to_segment(m, de[0], de[1]) <= SAME_EDGE_M);
                if rise.abs() < MIN_RISE_M || covered {
                    flush(&mut run);
                    continue;
                }
                match run.as_mut() {
                    Some(r) if (r.2 - rise).abs() < 0.01 => r.1 = s1,
                    _ => {
                        flush(&mut run);
                        run = Some((s0, s1, rise, inner));
                    }
                }
            }
            flush(&mut run);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(label: &str, edge: [f64; 3], rise: f64, facing: f64, w: f64, d: f64) -> HeightStep {
        HeightStep {
            label: label.into(),
            edge_m: edge,
            rise_m: rise,
            hazard: false,
            facing_deg: facing,
            width_m: w,
            depth_m: d,
        }
    }

    #[test]
    fn a_landing_drops_at_its_far_end_and_sides_and_a_pit_rises_at_its_far_end() {
        // mixed_walk: a curb pit (x 12–23.1, y −2–2, floor −0.15) and a 0.6 m landing on
        // it (x 22.1–24.1, y 0.4–8, top 0.45).
        let world = World {
            steps: vec![
                step("curb", [12.0, 0.0, 0.0], -0.15, 0.0, 4.0, 11.1),
                step("stairs", [23.1, 0.4, -0.15], 0.6, 90.0, 2.0, 7.6),
            ],
            ..World::default()
        };
        assert!((level_at(&world, [20.0, 0.0]) + 0.15).abs() < 1e-9);
        assert!((level_at(&world, [22.5, 1.0]) - 0.45).abs() < 1e-9);
        assert!(level_at(&world, [30.0, 0.0]).abs() < 1e-9);
        let edges = floor_edges(&world);
        let find = |label: &str, p: [f64; 2]| {
            edges
                .iter()
                .find(|e| e.label == label && to_segment(p, e.ends_m[0], e.ends_m[1]) < 0.06)
                .unwrap_or_else(|| panic!("no {label} at {p:?}: {edges:#?}"))
        };
        // The pit's far end at x = 23.1 rises 0.15 to the floor where the landing is not
        // (y −2 to 0.4) and is no edge under the landing.
        let e = find("curb far edge", [23.1, 0.0]);
        assert!((e.rise_m - 0.15).abs() < 1e-9 && e.facing == [1.0, 0.0]);
        assert!(e.ends_m.iter().all(|p| p[1] <= 0.4 + 1e-9), "{e:?}");
        // The landing's far end at y = 8 drops 0.45 to the floor, along its whole width.
        let e = find("stairs far edge", [23.1, 8.0]);
        assert!((e.rise_m + 0.45).abs() < 1e-9);
        let len = (e.ends_m[1][0] - e.ends_m[0][0]).hypot(e.ends_m[1][1] - e.ends_m[0][1]);
        assert!((len - 2.0).abs() < 1e-6, "{e:?}");
        // Its west side drops 0.6 into the pit (y 0.4–2), then 0.45 to the floor.
        let e = find("stairs side", [22.1, 1.0]);
        assert!((e.rise_m + 0.6).abs() < 1e-9, "{e:?}");
        let e = find("stairs side", [22.1, 5.0]);
        assert!((e.rise_m + 0.45).abs() < 1e-9, "{e:?}");
        // The declared edges come first, as declared.
        assert_eq!(edges[0].declared, Some(0));
        assert!((edges[0].rise_m + 0.15).abs() < 1e-9);
    }

    #[test]
    fn a_side_on_another_steps_declared_edge_or_at_one_level_is_no_new_edge() {
        // street_crossing: the road (a pit x 2–9) and the far curb declared at x = 9 on a
        // slab level with the floor: the pit's far end is the far curb, the slab's far end
        // is level.
        let world = World {
            steps: vec![
                step("curb", [2.0, 0.0, 0.0], -0.15, 0.0, 30.0, 7.0),
                step("far curb", [9.0, 0.0, -0.15], 0.15, 0.0, 30.0, 3.0),
            ],
            ..World::default()
        };
        let edges = floor_edges(&world);
        let labels: Vec<&str> = edges.iter().map(|e| e.label.as_str()).collect();
        // Only the pit's own sides (y = ±15, 0.15 up to the floor) besides the two curbs.
        assert_eq!(
            labels,
            ["curb", "curb side", "curb side", "far curb"],
            "{edges:#?}"
        );
    }
}
