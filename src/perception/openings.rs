//! Doorways and openings from the causal semi-dense point map (pure).
//!
//! Points known at `now` within [`OpeningConfig::range_m`] of the wearer are binned on a
//! world-fixed horizontal grid. A cell is **wall-like** when it holds points at body height
//! (something a walker would hit) and its points span a tall vertical extent (a wall, a
//! jamb; not a trolley or a bench). A wall cell is a **wall end** when the wall cells
//! around it lie on a line and on one side of it only. Two wall ends `w` apart
//! ([`OpeningConfig::min_width_m`] ≤ `w` ≤ [`OpeningConfig::max_width_m`]) with nothing at
//! body height between them form:
//!
//! * a **doorway** when both walls run along the gap line, away from it (a gap in a wall),
//!   and the gap has a lintel (points above door height across it) or both jambs run from
//!   the floor to above door height;
//! * the **open end of a corridor** when both walls run side by side, perpendicular to the
//!   gap line and on the same side of it (two parallel walls that stop);
//!
//! and either only when the cameras have **seen through** it: points lie beyond the gap
//! line on lines of sight that pass through the gap ([`OpeningConfig::min_seen_through`]).
//! A gap in the map of a wall is not yet a gap in the wall: a patch not looked at yet, a
//! textureless stretch, a person standing against the wall all leave one, and nothing is
//! seen behind any of them; through a doorway the floor and the room beyond are. A held
//! opening whose gap now holds points at body height is forgotten at the next run.
//!
//! [`OpeningDetector`] runs the detection at most every [`OpeningConfig::every_ns`] of
//! device time, keeps stable ids across runs (a re-detection within
//! [`OpeningConfig::associate_m`] keeps its id) and turns the openings into
//! [`ThingKind::Door`] things in the wearer's frame every tick. Door ids start at
//! [`DOOR_ID_BASE`], far above the obstacle tracker's, so the two never collide.

use super::cellhash::{CellMap, CellSet};
use super::geom::bearing_and_distance;
use super::points::PointMap;
use crate::lexicon::thing_label;
use crate::state::{
    bearing_to_clock, Evidence, HeightBand, OpeningShape, Thing, ThingDetail, ThingKind,
};
use crate::time::DeviceTime;

/// The first id given to an opening (obstacle tracks count up from 1).
pub const DOOR_ID_BASE: u32 = 1_000_000_000;
/// Openings kept at most (the farthest beyond this are dropped, counted).
pub const MAX_OPENINGS: usize = 8;

/// The tunable numbers of the opening detector, with their units.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OpeningConfig {
    /// Points within this horizontal radius of the wearer are looked at, m.
    pub range_m: f32,
    /// Grid cell, m.
    pub cell_m: f32,
    /// Narrowest opening, m.
    pub min_width_m: f32,
    /// Widest doorway, m.
    pub max_width_m: f32,
    /// Widest open corridor end, m.
    pub max_corridor_end_m: f32,
    /// Body band (a walker hits what is here), above the floor, m.
    pub body_band_m: [f32; 2],
    /// A wall cell's points span at least this height, m.
    pub wall_span_m: f32,
    /// A lintel's points are at least this high above the floor, m.
    pub lintel_from_m: f32,
    /// A jamb from floor to ceiling reaches at least this high, m.
    pub jamb_top_m: f32,
    /// Radius of the neighbourhood that says whether a wall cell is a wall end, m.
    pub end_radius_m: f32,
    /// A wall end's wall runs at least this far from it, m.
    pub min_wall_run_m: f32,
    /// Detection runs at most this often, device ns.
    pub every_ns: i64,
    /// A re-detection this close keeps the opening's id, m.
    pub associate_m: f32,
    /// An opening not re-detected for this long is forgotten, ns.
    pub forget_after_ns: i64,
    /// An opening is seen through when at least this many points lie beyond it.
    pub min_seen_through: u32,
    /// How far beyond the gap line points are looked for, m.
    pub through_range_m: f32,
    /// A point this far beyond the gap line is beyond the wall, not on it, m.
    pub wall_depth_m: f32,
    /// Eye height above the floor for the lines of sight through a gap, m.
    pub eye_height_m: f32,
}

impl Default for OpeningConfig {
    fn default() -> Self {
        Self {
            range_m: 12.0,
            cell_m: 0.1,
            min_width_m: 0.7,
            max_width_m: 2.0,
            max_corridor_end_m: 2.5,
            body_band_m: [0.3, 1.8],
            wall_span_m: 1.0,
            lintel_from_m: 1.8,
            jamb_top_m: 1.95,
            end_radius_m: 0.6,
            min_wall_run_m: 0.4,
            every_ns: 500_000_000,
            associate_m: 0.6,
            forget_after_ns: 10_000_000_000,
            min_seen_through: 5,
            through_range_m: 6.0,
            wall_depth_m: 0.25,
            eye_height_m: 1.6,
        }
    }
}

/// What kind of opening.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpeningKind {
    /// A gap of door width in a wall, with a lintel or full-height jambs.
    Doorway,
    /// Two parallel walls that stop: the open end of a corridor.
    CorridorEnd,
}

/// One opening, in the world frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Opening {
    /// Doorway or corridor end.
    pub kind: OpeningKind,
    /// Centre of the opening at floor level, world, m.
    pub center_m: [f32; 3],
    /// Clear width between the jambs, m.
    pub width_m: f32,
    /// The two jambs (wall ends), world x/y, m.
    pub jambs_m: [[f32; 2]; 2],
    /// Whether points above door height span the gap.
    pub lintel: bool,
    /// Whether both jambs run from the floor to above door height.
    pub full_height_jambs: bool,
}

#[derive(Clone, Copy, Debug)]
struct CellStats {
    body: u32,
    high: u32,
    min_h: f32,
    max_h: f32,
    /// Bounding box of the cell's points, `[min x, min y, max x, max y]`, m.
    bb: [f32; 4],
}

impl Default for CellStats {
    fn default() -> Self {
        Self {
            body: 0,
            high: 0,
            min_h: f32::INFINITY,
            max_h: f32::NEG_INFINITY,
            bb: [
                f32::INFINITY,
                f32::INFINITY,
                f32::NEG_INFINITY,
                f32::NEG_INFINITY,
            ],
        }
    }
}

impl CellStats {
    /// The point of the cell's box farthest against `run` (the face of a wall end that
    /// borders the opening), on the line through the box centre.
    fn end_face(&self, run: [f32; 2]) -> [f32; 2] {
        let c = [
            (self.bb[0] + self.bb[2]) / 2.0,
            (self.bb[1] + self.bb[3]) / 2.0,
        ];
        let half = [
            (self.bb[2] - self.bb[0]) / 2.0,
            (self.bb[3] - self.bb[1]) / 2.0,
        ];
        let back = half[0] * run[0].abs() + half[1] * run[1].abs();
        [c[0] - run[0] * back, c[1] - run[1] * back]
    }
}

/// A wall end: the face of its cell that borders the opening, and the unit direction in
/// which its wall runs.
#[derive(Clone, Copy, Debug)]
struct WallEnd {
    xy: [f32; 2],
    run: [f32; 2],
    key: (i32, i32),
}

fn dot(a: [f32; 2], b: [f32; 2]) -> f32 {
    a[0] * b[0] + a[1] * b[1]
}

/// The grid of one detection.
struct Grid {
    cell_m: f32,
    cells: CellMap<CellStats>,
    walls: CellSet,
}

impl Grid {
    fn key(&self, x: f32, y: f32) -> (i32, i32) {
        (
            (x / self.cell_m).floor() as i32,
            (y / self.cell_m).floor() as i32,
        )
    }

    fn centre(&self, k: (i32, i32)) -> [f32; 2] {
        [
            (k.0 as f32 + 0.5) * self.cell_m,
            (k.1 as f32 + 0.5) * self.cell_m,
        ]
    }
}

fn build_grid(
    map: &PointMap,
    centre_xy: [f32; 2],
    floor_z_m: f32,
    now: DeviceTime,
    cfg: &OpeningConfig,
) -> Grid {
    let mut g = Grid {
        cell_m: cfg.cell_m.max(0.02),
        cells: CellMap::default(),
        walls: CellSet::default(),
    };
    let cell = g.cell_m;
    let cells = &mut g.cells;
    map.for_each_near(centre_xy[0], centre_xy[1], cfg.range_m, now, |p| {
        let h = p.p[2] - floor_z_m;
        // Floor points say nothing about walls; far above any ceiling is noise.
        if !(0.15..=4.0).contains(&h) {
            return;
        }
        let k = (
            (p.p[0] / cell).floor() as i32,
            (p.p[1] / cell).floor() as i32,
        );
        let s = cells.entry(k).or_default();
        if (cfg.body_band_m[0]..=cfg.body_band_m[1]).contains(&h) {
            s.body += 1;
        }
        if h >= cfg.lintel_from_m {
            s.high += 1;
        }
        s.min_h = s.min_h.min(h);
        s.max_h = s.max_h.max(h);
        s.bb = [
            s.bb[0].min(p.p[0]),
            s.bb[1].min(p.p[1]),
            s.bb[2].max(p.p[0]),
            s.bb[3].max(p.p[1]),
        ];
    });
    // A wall cell holds a point at body height, and its points with those of the cells
    // around it (a sparse map leaves few points per cell) span a wall's height.
    for (k, s) in g.cells.iter() {
        if s.body == 0 {
            continue;
        }
        let (mut lo, mut hi) = (s.min_h, s.max_h);
        for dx in -1..=1 {
            for dy in -1..=1 {
                if let Some(n) = g.cells.get(&(k.0 + dx, k.1 + dy)) {
                    lo = lo.min(n.min_h);
                    hi = hi.max(n.max_h);
                }
            }
        }
        if hi - lo >= cfg.wall_span_m {
            g.walls.insert(*k);
        }
    }
    g
}

/// Wall ends: wall cells whose neighbouring wall cells lie along a line, on one side.
fn wall_ends(g: &Grid, cfg: &OpeningConfig) -> Vec<WallEnd> {
    let r = (cfg.end_radius_m / g.cell_m).ceil() as i32;
    let r2 = cfg.end_radius_m * cfg.end_radius_m;
    let mut keys: Vec<(i32, i32)> = g.walls.iter().copied().collect();
    keys.sort_unstable();
    let mut out = Vec::new();
    let mut nb: Vec<[f32; 2]> = Vec::new();
    for k in keys {
        let c = g.centre(k);
        nb.clear();
        for dx in -r..=r {
            for dy in -r..=r {
                let q = (k.0 + dx, k.1 + dy);
                if !g.walls.contains(&q) {
                    continue;
                }
                let p = g.centre(q);
                let d = [p[0] - c[0], p[1] - c[1]];
                if dot(d, d) <= r2 {
                    nb.push(d);
                }
            }
        }
        if nb.len() < 3 {
            continue;
        }
        let n = nb.len() as f32;
        let (mx, my) = (
            nb.iter().map(|d| d[0]).sum::<f32>() / n,
            nb.iter().map(|d| d[1]).sum::<f32>() / n,
        );
        let (mut sxx, mut syy, mut sxy) = (0.0f32, 0.0f32, 0.0f32);
        for d in &nb {
            let (a, b) = (d[0] - mx, d[1] - my);
            sxx += a * a;
            syy += b * b;
            sxy += a * b;
        }
        let tr = sxx + syy;
        let disc = ((sxx - syy) * (sxx - syy) + 4.0 * sxy * sxy).sqrt();
        let (l1, l2) = ((tr + disc) / 2.0, (tr - disc) / 2.0);
        // Line-like: the spread across the line is small beside the spread along it.
        if l1 <= 0.0 || l2 > 0.12 * l1 {
            continue;
        }
        let a = 0.5 * (2.0 * sxy).atan2(sxx - syy);
        let dir = [a.cos(), a.sin()];
        let (mut lo, mut hi) = (f32::INFINITY, f32::NEG_INFINITY);
        for d in &nb {
            let s = dot(*d, dir);
            lo = lo.min(s);
            hi = hi.max(s);
        }
        let slack = 1.5 * g.cell_m;
        let run = if lo >= -slack && hi >= cfg.min_wall_run_m {
            dir
        } else if hi <= slack && lo <= -cfg.min_wall_run_m {
            [-dir[0], -dir[1]]
        } else {
            continue;
        };
        let xy = g.cells.get(&k).map_or(c, |s| s.end_face(run));
        out.push(WallEnd { xy, run, key: k });
    }
    out
}

/// Whether the straight gap from `a` to `b` is free at body height (its ends excluded).
fn gap_is_free(g: &Grid, a: [f32; 2], b: [f32; 2], width: f32) -> bool {
    let step = g.cell_m / 2.0;
    let margin = 1.5 * g.cell_m;
    let n = (width / step).floor() as i32;
    let u = [(b[0] - a[0]) / width, (b[1] - a[1]) / width];
    for i in 0..=n {
        let s = i as f32 * step;
        if s < margin || s > width - margin {
            continue;
        }
        let k = g.key(a[0] + u[0] * s, a[1] + u[1] * s);
        if g.walls.contains(&k) || g.cells.get(&k).is_some_and(|c| c.body >= 2) {
            return false;
        }
    }
    true
}

/// Whether the cameras have seen through the gap between `jambs`: at least
/// [`OpeningConfig::min_seen_through`] points known at `now` lie more than
/// [`OpeningConfig::wall_depth_m`] beyond the gap line (on the far side from `centre_xy`)
/// and within [`OpeningConfig::through_range_m`] of the gap, each on a line of sight from
/// an eye [`OpeningConfig::eye_height_m`] over the floor at `centre_xy` that crosses the
/// gap between its jambs (10 cm in from each) and below a lintel. A wearer standing in the
/// gap line sees through it by being in it.
fn seen_through(
    map: &PointMap,
    centre_xy: [f32; 2],
    floor_z_m: f32,
    now: DeviceTime,
    jambs: [[f32; 2]; 2],
    cfg: &OpeningConfig,
) -> bool {
    const INSET_M: f32 = 0.1;
    let [a, b] = jambs;
    let width = (b[0] - a[0]).hypot(b[1] - a[1]);
    if !(width.is_finite() && width > 2.0 * INSET_M) {
        return false;
    }
    let u = [(b[0] - a[0]) / width, (b[1] - a[1]) / width];
    let mid = [(a[0] + b[0]) / 2.0, (a[1] + b[1]) / 2.0];
    let mut n = [-u[1], u[0]];
    let side = dot([mid[0] - centre_xy[0], mid[1] - centre_xy[1]], n);
    if side.abs() < INSET_M {
        return true;
    }
    if side < 0.0 {
        n = [-n[0], -n[1]];
    }
    let eye = cfg.eye_height_m;
    // How far the wearer's eye is from the gap line, along its normal.
    let to_line = dot([a[0] - centre_xy[0], a[1] - centre_xy[1]], n);
    let mut count = 0u32;
    let radius = cfg.through_range_m + width / 2.0;
    map.for_each_near(mid[0], mid[1], radius, now, |p| {
        if count >= cfg.min_seen_through {
            return;
        }
        let h = p.p[2] - floor_z_m;
        if !(-0.3..=4.0).contains(&h) {
            return;
        }
        let q = [p.p[0], p.p[1]];
        if dot([q[0] - a[0], q[1] - a[1]], n) < cfg.wall_depth_m {
            return;
        }
        let d = [q[0] - centre_xy[0], q[1] - centre_xy[1]];
        let dn = dot(d, n);
        if dn <= 0.0 {
            return;
        }
        // The horizontal line of sight crosses the gap line at fraction `t` of the way.
        let t = to_line / dn;
        if !(0.0..1.0).contains(&t) {
            return;
        }
        let x = [centre_xy[0] + t * d[0], centre_xy[1] + t * d[1]];
        let along = dot([x[0] - a[0], x[1] - a[1]], u);
        if along < INSET_M || along > width - INSET_M {
            return;
        }
        let z_cross = eye + (h - eye) * t;
        if (0.0..=cfg.lintel_from_m).contains(&z_cross) {
            count += 1;
        }
    });
    count >= cfg.min_seen_through
}

/// Whether points above door height span the middle of the gap.
fn has_lintel(g: &Grid, a: [f32; 2], b: [f32; 2], width: f32) -> bool {
    let u = [(b[0] - a[0]) / width, (b[1] - a[1]) / width];
    let n = (width / g.cell_m).floor() as i32;
    let (mut cells, mut covered) = (0, 0);
    for i in 1..n {
        let s = i as f32 * g.cell_m;
        if s < 0.25 * width || s > 0.75 * width {
            continue;
        }
        cells += 1;
        let k = g.key(a[0] + u[0] * s, a[1] + u[1] * s);
        let hit = (-1..=1).any(|dx| {
            (-1..=1).any(|dy| {
                g.cells
                    .get(&(k.0 + dx, k.1 + dy))
                    .is_some_and(|c| c.high >= 1 && c.body == 0)
            })
        });
        if hit {
            covered += 1;
        }
    }
    cells > 0 && covered * 2 >= cells
}

/// Whether the wall at a jamb runs from near the floor to above door height.
fn full_height(g: &Grid, key: (i32, i32), cfg: &OpeningConfig) -> bool {
    let (mut lo, mut hi) = (f32::INFINITY, f32::NEG_INFINITY);
    for dx in -1..=1 {
        for dy in -1..=1 {
            if let Some(c) = g.cells.get(&(key.0 + dx, key.1 + dy)) {
                if g.walls.contains(&(key.0 + dx, key.1 + dy)) {
                    lo = lo.min(c.min_h);
                    hi = hi.max(c.max_h);
                }
            }
        }
    }
    lo <= 0.5 && hi >= cfg.jamb_top_m
}

/// From wall end `a`, walks across the gap (against its wall's run) under a lintel to
/// the first points at body height: a doorway when the walk is door-wide, mostly under a
/// lintel, and the wall resumes there.
fn lintel_walk(g: &Grid, a: &WallEnd, floor_z_m: f32, cfg: &OpeningConfig) -> Option<Opening> {
    let u = [-a.run[0], -a.run[1]];
    let perp = [-u[1], u[0]];
    let step = g.cell_m / 2.0;
    let n = (cfg.max_width_m / step).ceil() as i32 + 1;
    // The cells across the walk line at distance `s`, 20 cm either side (the wall's
    // direction is known to a few degrees only).
    let across = |s: f32| {
        (-2..=2).map(move |d| {
            let o = d as f32 * g.cell_m;
            g.key(
                a.xy[0] + u[0] * s + perp[0] * o,
                a.xy[1] + u[1] * s + perp[1] * o,
            )
        })
    };
    let body_at = |k: (i32, i32)| g.cells.get(&k).filter(|c| c.body >= 1);
    let (mut cells, mut covered) = (0u32, 0u32);
    let mut last: Option<(i32, i32)> = None;
    for i in 1..=n {
        let s = i as f32 * step;
        let k = g.key(a.xy[0] + u[0] * s, a.xy[1] + u[1] * s);
        if Some(k) == last || k == a.key || s < g.cell_m {
            continue;
        }
        last = Some(k);
        if let Some(c) = across(s).find_map(body_at) {
            // The far jamb: door-wide, mostly under a lintel, the wall going on beyond.
            let face = c.end_face(u);
            let width = (face[0] - a.xy[0]).hypot(face[1] - a.xy[1]);
            if width < cfg.min_width_m || cells == 0 || covered * 3 < cells * 2 {
                return None;
            }
            let beyond =
                (1..=4).any(|j| across(s + j as f32 * g.cell_m).any(|q| body_at(q).is_some()));
            if !beyond {
                return None;
            }
            let c = [(a.xy[0] + face[0]) / 2.0, (a.xy[1] + face[1]) / 2.0];
            return Some(Opening {
                kind: OpeningKind::Doorway,
                center_m: [c[0], c[1], floor_z_m],
                width_m: width,
                jambs_m: [a.xy, face],
                lintel: true,
                full_height_jambs: false,
            });
        }
        cells += 1;
        if across(s).any(|q| g.cells.get(&q).is_some_and(|c| c.high >= 1)) {
            covered += 1;
        }
    }
    None
}

/// The openings in `map` within the configured range of `centre_xy`, seen from points
/// known at `now`, on a floor at `floor_z_m`. Pure; sorted by distance from `centre_xy`.
pub fn detect(
    map: &PointMap,
    centre_xy: [f32; 2],
    floor_z_m: f32,
    now: DeviceTime,
    cfg: &OpeningConfig,
) -> Vec<Opening> {
    if !(centre_xy.iter().all(|v| v.is_finite()) && floor_z_m.is_finite()) {
        return Vec::new();
    }
    let g = build_grid(map, centre_xy, floor_z_m, now, cfg);
    let ends = wall_ends(&g, cfg);
    let cos_par = 20f32.to_radians().cos();
    let mut found: Vec<(f32, Opening)> = Vec::new();
    for (i, a) in ends.iter().enumerate() {
        for b in ends.iter().skip(i + 1) {
            let d = [b.xy[0] - a.xy[0], b.xy[1] - a.xy[1]];
            let width = dot(d, d).sqrt();
            if width < cfg.min_width_m || width > cfg.max_corridor_end_m {
                continue;
            }
            let u = [d[0] / width, d[1] / width];
            // A gap in a wall: a's wall runs away from b, b's away from a.
            let doorway = dot(a.run, u) <= -cos_par && dot(b.run, u) >= cos_par;
            // A corridor end: both walls perpendicular to the gap, on the same side.
            let corridor = dot(a.run, u).abs() <= 0.35
                && dot(b.run, u).abs() <= 0.35
                && dot(a.run, b.run) >= cos_par;
            if !(doorway || corridor) || !gap_is_free(&g, a.xy, b.xy, width) {
                continue;
            }
            if !seen_through(map, centre_xy, floor_z_m, now, [a.xy, b.xy], cfg) {
                continue;
            }
            let lintel = has_lintel(&g, a.xy, b.xy, width);
            let full = full_height(&g, a.key, cfg) && full_height(&g, b.key, cfg);
            let clear = width;
            let kind = if doorway {
                if !(lintel || full) || clear > cfg.max_width_m {
                    continue;
                }
                OpeningKind::Doorway
            } else {
                OpeningKind::CorridorEnd
            };
            if clear < cfg.min_width_m || clear > cfg.max_corridor_end_m {
                continue;
            }
            let c = [(a.xy[0] + b.xy[0]) / 2.0, (a.xy[1] + b.xy[1]) / 2.0];
            found.push((
                clear,
                Opening {
                    kind,
                    center_m: [c[0], c[1], floor_z_m],
                    width_m: clear,
                    jambs_m: [a.xy, b.xy],
                    lintel,
                    full_height_jambs: full,
                },
            ));
        }
    }
    // A sparse map may miss one jamb's wall: a lintel walked from a wall end, across the
    // gap, to the next points at body height gives the doorway too.
    for a in &ends {
        if let Some(o) = lintel_walk(&g, a, floor_z_m, cfg) {
            if seen_through(map, centre_xy, floor_z_m, now, o.jambs_m, cfg) {
                found.push((o.width_m, o));
            }
        }
    }
    // Neighbouring end cells give near-duplicates: keep the narrowest per place (the
    // innermost jambs), doorways before corridor ends.
    found.sort_by(|x, y| {
        (x.1.kind != OpeningKind::Doorway)
            .cmp(&(y.1.kind != OpeningKind::Doorway))
            .then(x.0.total_cmp(&y.0))
    });
    let mut out: Vec<Opening> = Vec::new();
    for (_, o) in found {
        let dup = out.iter().any(|k| {
            (k.center_m[0] - o.center_m[0]).hypot(k.center_m[1] - o.center_m[1])
                < cfg.associate_m.max(k.width_m / 2.0)
        });
        if !dup {
            out.push(o);
        }
    }
    let dist = |o: &Opening| (o.center_m[0] - centre_xy[0]).hypot(o.center_m[1] - centre_xy[1]);
    out.sort_by(|x, y| dist(x).total_cmp(&dist(y)));
    out
}

/// Whether the middle of `o`'s gap holds points at body height known at `now`.
fn gap_filled(
    map: &PointMap,
    o: &Opening,
    floor_z_m: f32,
    now: DeviceTime,
    cfg: &OpeningConfig,
) -> bool {
    const RADIUS_M: f32 = 0.15;
    const MIN_POINTS: u32 = 3;
    let mut n = 0u32;
    map.for_each_near(o.center_m[0], o.center_m[1], RADIUS_M, now, |p| {
        let h = p.p[2] - floor_z_m;
        if (cfg.body_band_m[0]..=cfg.body_band_m[1]).contains(&h) {
            n += 1;
        }
    });
    n >= MIN_POINTS
}

/// An opening with a stable id.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TrackedOpening {
    /// Stable id (from [`DOOR_ID_BASE`]).
    pub id: u32,
    /// The latest detection.
    pub opening: Opening,
    /// First detected, device ns.
    pub first_seen_ns: i64,
    /// Last detected, device ns.
    pub last_seen_ns: i64,
}

/// Counters of the detector.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OpeningStats {
    /// Detection runs.
    pub runs: u64,
    /// Openings dropped beyond [`MAX_OPENINGS`].
    pub dropped: u64,
}

/// Runs [`detect`] now and then and keeps stable ids; see the module documentation.
#[derive(Clone, Debug)]
pub struct OpeningDetector {
    cfg: OpeningConfig,
    tracks: Vec<TrackedOpening>,
    next_id: u32,
    last_run_ns: Option<i64>,
    stats: OpeningStats,
}

impl Default for OpeningDetector {
    fn default() -> Self {
        Self::new(OpeningConfig::default())
    }
}

impl OpeningDetector {
    /// A detector with `cfg`.
    pub fn new(cfg: OpeningConfig) -> Self {
        Self {
            cfg,
            tracks: Vec::new(),
            next_id: DOOR_ID_BASE,
            last_run_ns: None,
            stats: OpeningStats::default(),
        }
    }

    /// Counters.
    pub fn stats(&self) -> OpeningStats {
        self.stats
    }

    /// The openings held now.
    pub fn tracks(&self) -> &[TrackedOpening] {
        &self.tracks
    }

    /// Folds in a detection at `t_ns` (when due) and returns the openings held.
    pub fn update(
        &mut self,
        map: &PointMap,
        centre_xy: [f32; 2],
        floor_z_m: f32,
        t_ns: i64,
    ) -> &[TrackedOpening] {
        let due = self
            .last_run_ns
            .is_none_or(|l| t_ns.saturating_sub(l) >= self.cfg.every_ns || t_ns < l);
        if due {
            self.last_run_ns = Some(t_ns);
            self.stats.runs += 1;
            let found = detect(map, centre_xy, floor_z_m, DeviceTime(t_ns), &self.cfg);
            self.merge(found, t_ns);
            // An opening not found again whose gap now holds points at body height was a
            // gap in the map only.
            let cfg = self.cfg;
            self.tracks.retain(|t| {
                t.last_seen_ns == t_ns
                    || !gap_filled(map, &t.opening, floor_z_m, DeviceTime(t_ns), &cfg)
            });
        }
        &self.tracks
    }

    fn merge(&mut self, found: Vec<Opening>, t_ns: i64) {
        let mut taken = vec![false; self.tracks.len()];
        for o in found {
            let near = self
                .tracks
                .iter()
                .enumerate()
                .filter(|(i, _)| !taken.get(*i).copied().unwrap_or(true))
                .map(|(i, t)| {
                    let c = t.opening.center_m;
                    (i, (c[0] - o.center_m[0]).hypot(c[1] - o.center_m[1]))
                })
                .filter(|(_, d)| *d <= self.cfg.associate_m)
                .min_by(|a, b| a.1.total_cmp(&b.1));
            match near.and_then(|(i, _)| self.tracks.get_mut(i).map(|t| (i, t))) {
                Some((i, t)) => {
                    t.opening = o;
                    t.last_seen_ns = t_ns;
                    if let Some(f) = taken.get_mut(i) {
                        *f = true;
                    }
                }
                None => {
                    if self.tracks.len() >= MAX_OPENINGS {
                        self.stats.dropped += 1;
                        continue;
                    }
                    let id = self.next_id;
                    self.next_id = self.next_id.checked_add(1).unwrap_or(DOOR_ID_BASE);
                    self.tracks.push(TrackedOpening {
                        id,
                        opening: o,
                        first_seen_ns: t_ns,
                        last_seen_ns: t_ns,
                    });
                    taken.push(true);
                }
            }
        }
        let horizon = self.cfg.forget_after_ns;
        self.tracks
            .retain(|t| t_ns.saturating_sub(t.last_seen_ns) <= horizon);
    }

    /// The openings as [`ThingKind::Door`] things seen from a head at `head_xy` with yaw
    /// `yaw_rad` (radians counter-clockwise from world +x), at `at`.
    pub fn things(&self, head_xy: [f64; 2], yaw_rad: f64, at: DeviceTime) -> Vec<Thing> {
        self.tracks
            .iter()
            .map(|t| opening_thing(t, head_xy, yaw_rad, at))
            .collect()
    }
}

/// One tracked opening as a door thing in the wearer's frame: its clock direction and
/// distance are those of the opening's centre; it is never "in the path" (doors are not
/// hazards; the jambs are obstacles of their own).
pub fn opening_thing(t: &TrackedOpening, head_xy: [f64; 2], yaw_rad: f64, at: DeviceTime) -> Thing {
    let o = &t.opening;
    let (b, d) = bearing_and_distance(
        head_xy[0],
        head_xy[1],
        yaw_rad,
        f64::from(o.center_m[0]),
        f64::from(o.center_m[1]),
    );
    let detail = ThingDetail::Opening {
        shape: match o.kind {
            OpeningKind::Doorway => OpeningShape::Doorway,
            OpeningKind::CorridorEnd => OpeningShape::CorridorEnd,
        },
    };
    let confidence = match (o.kind, o.lintel, o.full_height_jambs) {
        (OpeningKind::Doorway, true, true) => 0.9,
        (OpeningKind::Doorway, _, _) => 0.7,
        (OpeningKind::CorridorEnd, _, _) => 0.6,
    };
    Thing {
        id: t.id,
        kind: ThingKind::Door,
        label: thing_label(ThingKind::Door, &detail, Some(HeightBand::Body)),
        detail,
        class: None,
        clock: bearing_to_clock(b),
        bearing_left_deg: Some(b),
        distance_m: d,
        height: Some(HeightBand::Body),
        world_m: Some(o.center_m),
        in_path: false,
        first_seen: DeviceTime(t.first_seen_ns),
        last_seen: DeviceTime(t.last_seen_ns.min(at.ns())),
        confidence,
        evidence: Evidence::Points,
    }
}
