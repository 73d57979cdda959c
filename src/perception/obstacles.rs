//! Corridor analysis (pure): with the head's position and the walking direction, the map's
//! points ahead are split into floor and obstacle points. The floor's height profile along
//! the corridor gives drop-offs and steps up; obstacle points (above the local floor, below
//! the top of the head) are clustered on a world-fixed grid into things with height bands;
//! the nearest obstacle along three directions gives the walkable space.

use crate::state::{HeightBand, ThingKind, Walkable};
use crate::time::DeviceTime;

use super::cellhash::{CellMap, CellSet};
use super::points::PointMap;

/// Floor profile bin along the corridor, m.
pub const BIN_M: f32 = 0.25;
/// A floor level change larger than this is an edge, m.
pub const EDGE_M: f32 = 0.08;
/// A rise larger than this is an obstacle, not a step, m.
pub const MAX_STEP_M: f32 = 0.45;
/// Points this far above the local floor are obstacles, m.
pub const OBSTACLE_MIN_M: f32 = 0.2;
/// Obstacle points reach this far above the head (eye height), m.
pub const ABOVE_EYES_M: f32 = 0.45;
/// Things are reported within this lateral distance of the corridor's centre line, m.
pub const NEAR_PATH_M: f32 = 1.2;
/// Clustering cell, m (world-fixed, so clusters are stable across ticks).
pub const CLUSTER_CELL_M: f32 = 0.25;
/// A cluster needs at least this many points.
pub const MIN_CLUSTER_POINTS: usize = 3;
/// Lowest point of a head-height thing, above the floor, m.
pub const HEAD_BAND_FROM_M: f32 = 1.2;
/// Highest point of a ground-level thing, above the floor, m.
pub const GROUND_BAND_TO_M: f32 = 0.5;
/// The floor of a bin is this low percentile of its points' heights (obstacles standing
/// on the floor leave the floor around them visible).
pub const FLOOR_PERCENTILE: f32 = 0.1;
/// Floor points per bin kept at most.
const MAX_BIN_POINTS: usize = 256;
/// Bearing of the left / right clearance directions, degrees (10–11 and 1–2 o'clock).
pub const SIDE_BEARING_DEG: f32 = 45.0;

/// Where and how the corridor is looked at.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Corridor {
    /// Head (eye) position in the world, m.
    pub head_m: [f32; 3],
    /// Direction of the corridor, radians counter-clockwise from world +x.
    pub dir_rad: f32,
    /// Corridor width, m.
    pub width_m: f32,
    /// Look-ahead range, m.
    pub range_m: f32,
    /// Eye height over the floor assumed when the floor is not seen, m.
    pub eye_height_m: f32,
}

/// One cluster of obstacle points.
#[derive(Clone, Debug, PartialEq)]
pub struct Cluster {
    /// Obstacle or overhead.
    pub kind: ThingKind,
    /// Height band.
    pub band: HeightBand,
    /// Centroid, world, m.
    pub centroid_m: [f32; 3],
    /// Nearest point (horizontally from the head), world, m.
    pub nearest_m: [f32; 3],
    /// Horizontal distance of the nearest point, m.
    pub distance_m: f32,
    /// Whether any point lies in the corridor.
    pub in_path: bool,
    /// Points in it.
    pub points: usize,
}

/// A floor edge ahead.
#[derive(Clone, Debug, PartialEq)]
pub struct Edge {
    /// Drop-off or step up.
    pub kind: ThingKind,
    /// Distance along the corridor, m.
    pub along_m: f32,
    /// World position of the edge on the corridor's centre line, m.
    pub world_m: [f32; 3],
    /// Height change, m (+ up).
    pub rise_m: f32,
}

/// The result of one analysis.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CorridorView {
    /// Floor height under the wearer, m (world z).
    pub floor_z_m: f32,
    /// Whether the floor was seen (else assumed from the eye height).
    pub floor_seen: bool,
    /// Obstacle clusters near the path.
    pub clusters: Vec<Cluster>,
    /// The nearest floor edges ahead.
    pub edges: Vec<Edge>,
    /// Clear distances.
    pub walkable: Option<Walkable>,
    /// Points looked at.
    pub points_seen: usize,
}

#[derive(Clone, Copy)]
struct Near {
    p: [f32; 3],
    along: f32,
    lat: f32,
    h: f32,
}

#[derive(Default)]
struct CellAcc {
    n: usize,
    sum: [f32; 3],
    min_h: f32,
    max_h: f32,
    nearest_d: f32,
    nearest: [f32; 3],
    in_path: bool,
}

/// Reusable buffers of the analysis (no allocation per tick once warmed up).
#[derive(Default)]
pub struct CorridorAnalyzer {
    near: Vec<Near>,
    under: Vec<f32>,
    done: CellSet,
    keys: Vec<(i32, i32)>,
    bins: Vec<Vec<f32>>,
    floor: Vec<f32>,
    cells: CellMap<CellAcc>,
    stack: Vec<(i32, i32)>,
}

impl std::fmt::Debug for CorridorAnalyzer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CorridorAnalyzer").finish_non_exhaustive()
    }
}

fn percentile(v: &mut [f32], q: f32) -> Option<f32> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f32::total_cmp);
    let i = ((v.len() - 1) as f32 * q).round() as usize;
    v.get(i).copied()
}

impl CorridorAnalyzer {
    /// Empty buffers.
    pub fn new() -> Self {
        Self::default()
    }

    /// Analyses `map` around `c` at `now` (causal points only).
    pub fn analyze(&mut self, map: &PointMap, c: &Corridor, now: DeviceTime) -> CorridorView {
        let [hx, hy, hz] = c.head_m;
        let (cs, sn) = (c.dir_rad.cos(), c.dir_rad.sin());
        let range = c.range_m.max(0.5);
        // Floor under the wearer: median of the low points within 1 m.
        self.under.clear();
        let under = &mut self.under;
        map.for_each_near(hx, hy, 1.0, now, |mp| {
            let dz = hz - mp.p[2];
            if (0.9..=2.3).contains(&dz) && under.len() < 4096 {
                under.push(mp.p[2]);
            }
        });
        let (floor_z, floor_seen) = match percentile(&mut self.under, 0.5) {
            Some(z) if self.under.len() >= 5 => (z, true),
            _ => (hz - c.eye_height_m, false),
        };
        // Points ahead: those in the corridor (floor profile) and, anywhere, those high
        // enough above the wearer's floor to be obstacles (local floors ahead may differ by
        // a step at most).
        self.near.clear();
        let near = &mut self.near;
        let half = c.width_m / 2.0;
        let low_cut = OBSTACLE_MIN_M - MAX_STEP_M;
        map.for_each_near(hx, hy, range + 0.2, now, |mp| {
            let (dx, dy) = (mp.p[0] - hx, mp.p[1] - hy);
            let along = dx * cs + dy * sn;
            let lat = -dx * sn + dy * cs;
            let h = mp.p[2] - floor_z;
            if along > 0.1 && along <= range && (lat.abs() <= half || h >= low_cut) {
                near.push(Near {
                    p: mp.p,
                    along,
                    lat,
                    h,
                });
            }
        });
        // Floor profile along the corridor.
        let nbins = (range / BIN_M).ceil() as usize;
        self.bins.resize_with(nbins, Vec::new);
        for b in self.bins.iter_mut() {
            b.clear();
        }
        for n in &self.near {
            if n.lat.abs() <= half && (-1.0..=MAX_STEP_M + 0.1).contains(&n.h) {
                let i = ((n.along / BIN_M) as usize).min(nbins.saturating_sub(1));
                if let Some(b) = self.bins.get_mut(i) {
                    if b.len() < MAX_BIN_POINTS {
                        b.push(n.h);
                    }
                }
            }
        }
        self.floor.clear();
        let mut level = 0.0f32;
        let mut edges = Vec::new();
        let (mut drop_seen, mut step_seen) = (false, false);
        for (i, b) in self.bins.iter_mut().enumerate() {
            let known = if b.len() >= 3 {
                percentile(b, FLOOR_PERCENTILE)
            } else {
                None
            };
            let along = i as f32 * BIN_M;
            if let Some(f) = known {
                let diff = f - level;
                let kind = if diff < -EDGE_M && !drop_seen {
                    drop_seen = true;
                    Some(ThingKind::DropOff)
                } else if diff > EDGE_M && diff < MAX_STEP_M && !step_seen {
                    step_seen = true;
                    Some(ThingKind::StepUp)
                } else {
                    None
                };
                if let Some(kind) = kind {
                    edges.push(Edge {
                        kind,
                        along_m: along,
                        world_m: [hx + cs * along, hy + sn * along, floor_z + level],
                        rise_m: diff,
                    });
                }
                if diff.abs() < MAX_STEP_M {
                    level = f;
                }
            }
            self.floor.push(level);
        }
        // Obstacle points, clustered on a world grid.
        self.cells.clear();
        let top = (hz - floor_z) + ABOVE_EYES_M;
        let dirs = [
            0.0f32,
            SIDE_BEARING_DEG.to_radians(),
            -SIDE_BEARING_DEG.to_radians(),
        ]
        .map(|a| ((c.dir_rad + a).cos(), (c.dir_rad + a).sin()));
        let mut clear = [range; 3];
        for n in &self.near {
            let i = ((n.along / BIN_M) as usize).min(nbins.saturating_sub(1));
            let local = self.floor.get(i).copied().unwrap_or(0.0);
            let h = n.h - local;
            if !(OBSTACLE_MIN_M..=top - local).contains(&h) {
                continue;
            }
            let (dx, dy) = (n.p[0] - hx, n.p[1] - hy);
            for (k, &(c2, s2)) in dirs.iter().enumerate() {
                let al = dx * c2 + dy * s2;
                let la = -dx * s2 + dy * c2;
                if al > 0.0 && la.abs() <= half {
                    if let Some(v) = clear.get_mut(k) {
                        *v = v.min(al);
                    }
                }
            }
            if n.lat.abs() > NEAR_PATH_M {
                continue;
            }
            let key = (
                (n.p[0] / CLUSTER_CELL_M).floor() as i32,
                (n.p[1] / CLUSTER_CELL_M).floor() as i32,
            );
            let d = dx.hypot(dy);
            let acc = self.cells.entry(key).or_insert_with(|| CellAcc {
                min_h: f32::INFINITY,
                max_h: f32::NEG_INFINITY,
                nearest_d: f32::INFINITY,
                ..CellAcc::default()
            });
            acc.n += 1;
            for (s, v) in acc.sum.iter_mut().zip(n.p) {
                *s += v;
            }
            acc.min_h = acc.min_h.min(h);
            acc.max_h = acc.max_h.max(h);
            if d < acc.nearest_d {
                acc.nearest_d = d;
                acc.nearest = n.p;
            }
            acc.in_path |= n.lat.abs() <= half;
        }
        let clusters = self.cluster();
        if let Some(e) = edges.iter().find(|e| e.kind == ThingKind::DropOff) {
            clear[0] = clear[0].min(e.along_m);
        }
        let walkable = Some(Walkable {
            clear_ahead_m: clear[0],
            clear_left_m: clear[1],
            clear_right_m: clear[2],
        });
        CorridorView {
            floor_z_m: floor_z,
            floor_seen,
            clusters,
            edges,
            walkable,
            points_seen: self.near.len(),
        }
    }

    /// Connected components of the occupied cells (8-neighbourhood).
    fn cluster(&mut self) -> Vec<Cluster> {
        self.keys.clear();
        self.keys.extend(self.cells.keys().copied());
        self.keys.sort_unstable();
        self.done.clear();
        let mut out = Vec::new();
        for &k in &self.keys {
            if !self.done.insert(k) {
                continue;
            }
            self.stack.clear();
            self.stack.push(k);
            let mut n = 0usize;
            let mut sum = [0.0f32; 3];
            let (mut min_h, mut max_h) = (f32::INFINITY, f32::NEG_INFINITY);
            let (mut nd, mut np) = (f32::INFINITY, [0.0f32; 3]);
            let mut in_path = false;
            while let Some((x, y)) = self.stack.pop() {
                let Some(a) = self.cells.get(&(x, y)) else {
                    continue;
                };
                n += a.n;
                for (s, v) in sum.iter_mut().zip(a.sum) {
                    *s += v;
                }
                min_h = min_h.min(a.min_h);
                max_h = max_h.max(a.max_h);
                if a.nearest_d < nd {
                    nd = a.nearest_d;
                    np = a.nearest;
                }
                in_path |= a.in_path;
                for ddx in -1..=1 {
                    for ddy in -1..=1 {
                        let q = (x + ddx, y + ddy);
                        if self.cells.contains_key(&q) && self.done.insert(q) {
                            self.stack.push(q);
                        }
                    }
                }
            }
            if n < MIN_CLUSTER_POINTS {
                continue;
            }
            let band = if min_h >= HEAD_BAND_FROM_M {
                HeightBand::Head
            } else if max_h < GROUND_BAND_TO_M {
                HeightBand::Ground
            } else {
                HeightBand::Body
            };
            let kind = if band == HeightBand::Head {
                ThingKind::Overhead
            } else {
                ThingKind::Obstacle
            };
            let inv = 1.0 / n as f32;
            out.push(Cluster {
                kind,
                band,
                centroid_m: [sum[0] * inv, sum[1] * inv, sum[2] * inv],
                nearest_m: np,
                distance_m: nd,
                in_path,
                points: n,
            });
        }
        out.sort_by(|a, b| a.distance_m.total_cmp(&b.distance_m));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::perception::points::MapPoint;

    fn grid(out: &mut Vec<MapPoint>, x: (f32, f32), y: (f32, f32), z: (f32, f32), step: f32) {
        let n = |a: f32, b: f32| ((b - a) / step).round().max(0.0) as usize;
        for i in 0..=n(x.0, x.1) {
            for j in 0..=n(y.0, y.1) {
                for k in 0..=n(z.0, z.1) {
                    out.push(MapPoint {
                        p: [
                            x.0 + i as f32 * step,
                            y.0 + j as f32 * step,
                            z.0 + k as f32 * step,
                        ],
                        first_seen_ns: 0,
                    });
                }
            }
        }
    }

    fn corridor(x: f32) -> Corridor {
        Corridor {
            head_m: [x, 0.0, 1.6],
            dir_rad: 0.0,
            width_m: 0.8,
            range_m: 5.0,
            eye_height_m: 1.6,
        }
    }

    #[test]
    fn a_pole_is_an_obstacle_not_a_step() {
        let mut pts = Vec::new();
        grid(&mut pts, (-1.0, 12.0), (-1.5, 1.5), (0.0, 0.0), 0.1);
        // A pole 8 cm square, 2.2 m tall, at x = 6, y = 0.1 (its faces).
        grid(&mut pts, (5.96, 6.04), (0.06, 0.06), (0.0, 2.2), 0.04);
        grid(&mut pts, (5.96, 6.04), (0.14, 0.14), (0.0, 2.2), 0.04);
        grid(&mut pts, (5.96, 5.96), (0.06, 0.14), (0.0, 2.2), 0.04);
        grid(&mut pts, (6.04, 6.04), (0.06, 0.14), (0.0, 2.2), 0.04);
        let map = PointMap::new(pts, false);
        let mut a = CorridorAnalyzer::new();
        for i in 0..40 {
            let x = 1.0 + i as f32 * 0.1;
            let v = a.analyze(&map, &corridor(x), DeviceTime(0));
            assert!(v.floor_seen && v.floor_z_m.abs() < 1e-6);
            assert!(v.edges.is_empty(), "x {x}: {:?}", v.edges);
            let c = &v.clusters;
            assert_eq!(c.len(), 1, "x {x}");
            assert!((c[0].distance_m - (5.96 - x)).abs() < 0.01);
            assert_eq!(c[0].band, HeightBand::Body);
            assert!(c[0].in_path);
            let w = v.walkable.unwrap();
            assert!((w.clear_ahead_m - (5.96 - x)).abs() < 0.01, "{w:?}");
        }
    }

    #[test]
    fn drop_offs_steps_and_overheads() {
        let mut pts = Vec::new();
        grid(&mut pts, (-1.0, 3.0), (-1.0, 1.0), (0.0, 0.0), 0.1);
        grid(&mut pts, (3.05, 8.0), (-1.0, 1.0), (-0.15, -0.15), 0.1);
        // A branch 1.7–1.8 m above the upper floor at x = 2.
        grid(&mut pts, (1.9, 2.1), (-0.5, 0.5), (1.7, 1.8), 0.05);
        let map = PointMap::new(pts, false);
        let v = CorridorAnalyzer::new().analyze(&map, &corridor(0.0), DeviceTime(0));
        assert_eq!(v.edges.len(), 1, "{:?}", v.edges);
        let e = &v.edges[0];
        assert_eq!(e.kind, ThingKind::DropOff);
        assert!((e.along_m - 3.0).abs() <= BIN_M, "{e:?}");
        assert!((e.rise_m + 0.15).abs() < 0.02);
        assert_eq!(v.clusters.len(), 1);
        assert_eq!(v.clusters[0].kind, ThingKind::Overhead);
        assert_eq!(v.clusters[0].band, HeightBand::Head);
        let w = v.walkable.unwrap();
        assert!(w.clear_ahead_m <= 1.9 + 1e-3, "{w:?}");
        // A step up of 15 cm at x = 2 seen from x = 0.
        let mut pts = Vec::new();
        grid(&mut pts, (-1.0, 2.0), (-1.0, 1.0), (0.0, 0.0), 0.1);
        grid(&mut pts, (2.05, 8.0), (-1.0, 1.0), (0.15, 0.15), 0.1);
        grid(&mut pts, (2.0, 2.0), (-1.0, 1.0), (0.0, 0.15), 0.05);
        let map = PointMap::new(pts, false);
        let v = CorridorAnalyzer::new().analyze(&map, &corridor(0.0), DeviceTime(0));
        assert_eq!(v.edges.len(), 1, "{:?}", v.edges);
        assert_eq!(v.edges[0].kind, ThingKind::StepUp);
        assert!((v.edges[0].along_m - 2.0).abs() <= BIN_M);
        assert!(v.clusters.is_empty(), "{:?}", v.clusters);
    }
}
