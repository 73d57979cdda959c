//! Corridor analysis (pure): with the head's position and the walking direction, the
//! points ahead (the static map's and the recent depth points) are split into floor and
//! obstacle points. The floor's height profile along the corridor gives drop-offs and
//! steps up — only where a floor-like patch (points at one height) is followed by another
//! floor-like patch at a new level, so a wall's foot or a door jamb is never a step.
//! Obstacle points (above the local floor, below the top of the head) are clustered on a
//! world-fixed grid into things with height bands; a long, thin, tall cluster is a wall
//! (a line fitted through it), which counts only where the corridor meets it. The nearest
//! obstacle along three directions gives the walkable space.

use crate::state::{HeightBand, ThingKind, Walkable, FLOOR_SEEN_GAP_M, FLOOR_SEEN_START_M};
use crate::time::DeviceTime;

use super::cellhash::{CellMap, CellSet};
use super::corridor_margin::{narrowed, surely_within};
use super::points::{PointMap, RecentPoints};

/// Floor profile bin along the corridor, m.
pub const BIN_M: f32 = 0.25;
/// A floor level change larger than this is an edge, m.
pub const EDGE_M: f32 = 0.08;
/// A rise larger than this is an obstacle, not a step, m.
pub const MAX_STEP_M: f32 = crate::state::MAX_STEP_RISE_M;
/// The floor profile looks this far below the wearer's floor, m: a kerb, stairs down, a
/// loading dock or a platform edge (the track bed 1–1.4 m down) are all drop-offs.
pub const DEEPEST_DROP_M: f32 = 3.0;
/// Points this far above the local floor are obstacles, m.
pub const OBSTACLE_MIN_M: f32 = 0.2;
/// Obstacle points reach this far above the eyes, m: the top of the head is about 0.15 m
/// above the eyes (as the ground truth's `HEAD_TOP_ABOVE_EYES_M`), plus 0.1 m for the head's
/// rise and fall over a stride and the map's noise. A door lintel 0.45 m above the eyes (a
/// 2.1 m door for a 1.65 m eye height) clears the head by 0.3 m and is no obstacle.
pub const ABOVE_EYES_M: f32 = 0.25;
/// Things are reported within this lateral distance of the corridor's centre line, m.
pub const NEAR_PATH_M: f32 = 1.2;
/// Clustering cell, m (world-fixed, so clusters are stable across ticks).
pub const CLUSTER_CELL_M: f32 = 0.25;
/// Offset of the depth points' cells (their own clustering layer), in cells: far beyond
/// any grid distance between two points near the wearer.
const DYNAMIC_LAYER: i32 = 1 << 28;
/// A cluster needs at least this many points.
pub const MIN_CLUSTER_POINTS: usize = 3;
/// Lowest point of a head-height thing, above the floor, m.
pub const HEAD_BAND_FROM_M: f32 = 1.2;
/// Highest point of a ground-level thing, above the floor, m.
pub const GROUND_BAND_TO_M: f32 = 0.5;
/// The floor of a bin is this low percentile of its points' heights (obstacles standing
/// on the floor leave the floor around them visible).
pub const FLOOR_PERCENTILE: f32 = 0.1;
/// The floor under the wearer is this low percentile of the points 0.9–2.3 m below the
/// eyes within 1 m.
pub const UNDER_PERCENTILE: f32 = 0.2;
/// Slack when comparing a thing's distance ahead with the nearest wall's, m.
pub const BLOCK_SLACK_M: f32 = 0.05;
/// The floor underfoot is looked for this close to where the assumed eye height puts it, m
/// (less than a stair's or a curb's rise, more than the eye height's likely error)...
pub const EYE_FLOOR_SLACK_M: f32 = 0.1;
/// ...among at least this share of the points under the wearer (else the low percentile of
/// all of them, as when the eye height is far from the one assumed...
pub const EYE_FLOOR_SHARE: f32 = 0.25;
/// ...that lie at most this far below where the eye height puts the floor, m, when at
/// least five do: one stair's riser (0.15–0.2 m; the tread underfoot, while the head is
/// still on its way down to it). Half-way down stairs the tread underfoot is a narrow
/// strip among the points within 1 m, and the lowest level around (the foot of the
/// stairs, 0.4 m lower) is not the floor the wearer stands on: taken for it, the tread
/// ahead stood 0.34 m above it, an "obstacle ahead, 0.5 metres" on every flight down.
pub const EYE_FLOOR_BELOW_M: f32 = 0.2;
/// The floor underfoot is looked for first among the points this close (horizontally) to
/// the head, m: where the feet are. Standing at the edge of a level, the other level
/// within 1 m can outnumber the one underfoot (the street beyond a curb's far end, beside
/// the foot of stairs up: taken for the floor, the stairs' 0.6 m top became a 45 cm
/// "step up").
pub const UNDER_NEAR_M: f32 = 0.4;
/// Floor points per bin kept at most.
const MAX_BIN_POINTS: usize = 256;
/// Bearing of the left / right clearance directions, degrees (10–11 and 1–2 o'clock).
pub const SIDE_BEARING_DEG: f32 = 45.0;
/// A floor-like bin: its median is at most this far above its low percentile, m.
pub const FLOOR_SPREAD_M: f32 = 0.05;
/// A new floor level is confirmed by the next floor-like bin within this, m.
pub const LEVEL_AGREE_M: f32 = 0.04;
/// A wall is at least this long, m...
pub const WALL_MIN_LEN_M: f32 = 1.0;
/// ...at most this thick (standard deviation across its fitted line), m...
pub const WALL_MAX_SD_M: f32 = 0.1;
/// ...and reaches this high above the floor, m.
pub const WALL_MIN_TOP_M: f32 = 1.0;

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

impl Corridor {
    /// The corridor's frame on the floor plane (its direction's sine and cosine computed once).
    pub fn frame(&self) -> CorridorFrame {
        CorridorFrame {
            head_m: [self.head_m[0], self.head_m[1]],
            cos: self.dir_rad.cos(),
            sin: self.dir_rad.sin(),
        }
    }
}

/// The walking line's frame on the floor plane: `along` the corridor's direction from the
/// head, `lateral` across it (+ left). The one place world and corridor coordinates are
/// converted.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CorridorFrame {
    /// The head's world `[x, y]`, m.
    pub head_m: [f32; 2],
    /// Cosine of the corridor's direction.
    pub cos: f32,
    /// Sine of the corridor's direction.
    pub sin: f32,
}

impl CorridorFrame {
    /// A world offset from the head (or a velocity), `[x, y]`, as `(along, lateral)`.
    pub fn rotate(&self, v: [f32; 2]) -> (f32, f32) {
        (
            v[0] * self.cos + v[1] * self.sin,
            -v[0] * self.sin + v[1] * self.cos,
        )
    }

    /// A world point `[x, y]` m as `(along, lateral)` m.
    pub fn local(&self, p: [f32; 2]) -> (f32, f32) {
        self.rotate([p[0] - self.head_m[0], p[1] - self.head_m[1]])
    }

    /// The world point `[x, y]` m at `along`, `lateral` m.
    pub fn world(&self, along: f32, lateral: f32) -> [f32; 2] {
        [
            self.head_m[0] + along * self.cos - lateral * self.sin,
            self.head_m[1] + along * self.sin + lateral * self.cos,
        ]
    }
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
    /// Height of its highest point above the floor, m.
    pub top_m: f32,
    /// Whether any point lies in the corridor.
    pub in_path: bool,
    /// Points in it.
    pub points: usize,
    /// The fitted line, `[[x, y], [x, y]]` m, when it is a wall.
    pub wall_m: Option<[[f32; 2]; 2]>,
    /// Distance ahead along the corridor to its nearest part in the corridor, m (`None`
    /// when no part of it is in the corridor).
    pub ahead_m: Option<f32>,
    /// Of its points, those from the recent depth points (not the static map).
    pub dynamic_points: usize,
    /// Its horizontal spread along its longest axis (the standard deviation of its points
    /// there), m: a person is a few tenths of a metre, a wall seen in part much more.
    pub spread_m: f32,
    /// Its nearest point in the corridor (where the wearer would meet it), world, m.
    pub hit_m: Option<[f32; 3]>,
    /// Whether a part of it lies surely in the corridor: within the corridor narrowed by
    /// the walking direction's uncertainty at its distance
    /// ([`super::corridor_margin::surely_within`]).
    pub sure: bool,
    /// Of the clustering cells of its recent depth points, those where the map also holds
    /// obstacle points (0 for a cluster of map points).
    pub mapped_cells: usize,
    /// Clustering cells of its recent depth points.
    pub dynamic_cells: usize,
    /// When the newest of its recent depth points was captured, ns (`None`: it is all
    /// static map): between depth frames, or while the newest frames add nothing to it, a
    /// tick sees the same evidence of it again.
    pub newest_depth_ns: Option<i64>,
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
    /// Capture time of a recent depth point, ns (`None` for a map point).
    captured_ns: Option<i64>,
}

impl Near {
    /// Whether it is a recent depth point (not the static map's).
    fn dynamic(&self) -> bool {
        self.captured_ns.is_some()
    }
}

#[derive(Default)]
struct CellAcc {
    n: usize,
    sum: [f32; 3],
    min_h: f32,
    max_h: f32,
    /// Points in the body band (from [`GROUND_BAND_TO_M`] to [`HEAD_BAND_FROM_M`]).
    body: usize,
    nearest_d: f32,
    nearest: [f32; 3],
    in_path: bool,
    sxx: f64,
    sxy: f64,
    syy: f64,
    ahead: f32,
    hit: [f32; 3],
    dynamic: usize,
    newest_ns: Option<i64>,
    sure: bool,
    /// What holds it up (set once every point is in).
    support: Support,
}

/// What holds a clustering cell's points up, as far as the map tells.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Support {
    /// Something in it reaches below head height: it stands on the floor.
    Floor,
    /// Only points at head height, over a floor seen in the same cell: the space below is
    /// known free, so it hangs from whatever it is fixed to.
    Hanging,
    /// Only points at head height, the floor below unseen (the live map holds a far wall's
    /// top before its foot), or depth points (too few land in one cell to tell).
    #[default]
    Unknown,
}

/// [`Support`] of a cell `a`, `floor_seen` in it or not.
fn support(a: &CellAcc, floor_seen: bool) -> Support {
    match a.dynamic == 0 {
        true if a.min_h < HEAD_BAND_FROM_M => Support::Floor,
        true if floor_seen => Support::Hanging,
        _ => Support::Unknown,
    }
}

/// Whether two neighbouring cells belong to one thing: all but a hanging cell beside one
/// on the floor (a sign sticking out of a wall is a thing of its own).
fn joins(a: Support, b: Support) -> bool {
    !matches!(
        (a, b),
        (Support::Floor, Support::Hanging) | (Support::Hanging, Support::Floor)
    )
}

/// The points a corridor analysis reads.
#[derive(Clone, Copy, Default)]
pub struct Sources<'a> {
    /// The static map (MPS's semi-dense points, or the live map).
    pub map: Option<&'a PointMap>,
    /// Recent depth points the depth filter kept (things above the floor).
    pub recent: Option<&'a RecentPoints>,
    /// Recent depth points at floor level, where no static map shows the floor: they
    /// give the floor underfoot and the floor profile ahead (steps, kerbs, drop-offs), never
    /// obstacles.
    pub floor: Option<FloorDepth<'a>>,
}

/// Depth points at floor level and how noisy their heights are.
#[derive(Clone, Copy)]
pub struct FloorDepth<'a> {
    /// The points (world, m).
    pub points: &'a RecentPoints,
    /// A depth point's range error is this times the square of its range (m⁻¹: the
    /// disparity error over focal length × baseline, for stereo).
    pub range_error_per_m2: f32,
}

/// A floor-like bin of floor-level depth points holds at least this many.
pub const MIN_DEPTH_FLOOR_POINTS: usize = 8;
/// A bin of floor-level depth points is floor-like while their interquartile range is at
/// most this many times noise's own (1.35 σ for a normal error)...
pub const DEPTH_FLOOR_IQR_NOISE: f32 = 1.5;

/// Floor-level depth frames a bin's level is read from at most (the newest).
pub const MAX_DEPTH_FLOOR_FRAMES: usize = 8;
/// A bin's level from floor-level depth needs this many frames agreeing on it, or, where no
/// frame alone holds [`MIN_DEPTH_FLOOR_POINTS`] there (a dark, smooth surface stereo matches
/// sparsely: the street beyond a kerb), the frames' points pooled being one level.
pub const DEPTH_FLOOR_FRAMES_AGREE: usize = 2;

/// The level most of the frames' `levels` (of one bin) agree on within [`LEVEL_AGREE_M`]
/// (their mean), when at least [`DEPTH_FLOOR_FRAMES_AGREE`] do: one frame's error (a
/// mismatch, its pose's pitch) is no floor.
fn frames_agree(levels: &mut [f32]) -> Option<f32> {
    levels.sort_by(f32::total_cmp);
    let mut best: Option<(usize, f32)> = None;
    for (i, &l) in levels.iter().enumerate() {
        let (n, sum) = levels
            .iter()
            .skip(i)
            .take_while(|&&m| m - l <= LEVEL_AGREE_M)
            .fold((0usize, 0.0f32), |(n, s), &m| (n + 1, s + m));
        if n >= DEPTH_FLOOR_FRAMES_AGREE && best.is_none_or(|(b, _)| n > b) {
            best = Some((n, sum / n as f32));
        }
    }
    best.map(|(_, l)| l)
}

/// The floor height of a bin of floor-level depth heights `hs` (sorted in place), whose
/// height error is `sigma_m`: their median, unbiased by the noise that grows with range
/// (a low percentile of noisy heights sinks with range and raised phantom drop-offs), when
/// they are at least [`MIN_DEPTH_FLOOR_POINTS`] and spread no wider than one level and its
/// noise; `None` otherwise (a level change or an object's foot within the bin).
fn depth_floor_level(hs: &mut [f32], sigma_m: f32) -> Option<f32> {
    if hs.len() < MIN_DEPTH_FLOOR_POINTS {
        return None;
    }
    hs.sort_by(f32::total_cmp);
    let q = |f: f32| {
        hs.get(((hs.len() - 1) as f32 * f).round() as usize)
            .copied()
    };
    let (q1, mid, q3) = (q(0.25)?, q(0.5)?, q(0.75)?);
    let allowed = FLOOR_SPREAD_M.max(DEPTH_FLOOR_IQR_NOISE * 1.35 * sigma_m);
    (q3 - q1 <= allowed).then_some(mid)
}

/// Reusable buffers of the analysis (no allocation per tick once warmed up).
#[derive(Default)]
pub struct CorridorAnalyzer {
    near: Vec<Near>,
    under: Vec<f32>,
    under_near: Vec<f32>,
    done: CellSet,
    keys: Vec<(i32, i32)>,
    bins: Vec<Vec<f32>>,
    /// Floor-level depth heights per frame and bin (see [`FloorDepth`]).
    depth_bins: Vec<Vec<f32>>,
    /// The capture times of those frames, newest first.
    depth_frames: Vec<i64>,
    /// One bin's level in each of those frames.
    levels: Vec<f32>,
    /// One bin's floor-level depth heights of all those frames.
    pooled: Vec<f32>,
    floor: Vec<f32>,
    cells: CellMap<CellAcc>,
    /// Cells of the static map where the floor is seen.
    floor_cells: CellSet,
    stack: Vec<(i32, i32)>,
    comp: Vec<(i32, i32)>,
}

impl std::fmt::Debug for CorridorAnalyzer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CorridorAnalyzer").finish_non_exhaustive()
    }
}

/// The floor among the heights `zs` (sorted in place) where the eye height puts it at
/// `expected`: the low percentile of those within [`EYE_FLOOR_SLACK_M`] of it, when they
/// are at least five and [`EYE_FLOOR_SHARE`] of all those that could be a floor (not more
/// than a step, [`MAX_STEP_M`], above it: a broad top higher up — the top of a 0.6 m rise
/// beside the wearer — is no floor they stand on, and must not outnumber the one they do).
fn floor_at_eye(zs: &mut [f32], expected: f32) -> Option<f32> {
    zs.sort_by(f32::total_cmp);
    let lo = zs.partition_point(|&z| z < expected - EYE_FLOOR_SLACK_M);
    let hi = zs.partition_point(|&z| z <= expected + EYE_FLOOR_SLACK_M);
    let all = zs.partition_point(|&z| z <= expected + MAX_STEP_M);
    match zs.get_mut(lo..hi) {
        Some(s) if s.len() >= 5 && s.len() as f32 >= EYE_FLOOR_SHARE * all as f32 => {
            percentile(s, UNDER_PERCENTILE)
        }
        _ => None,
    }
}

/// The floor among the heights `zs` (sorted in place) when the eye height's window does
/// not tell it: the low percentile of those at most [`EYE_FLOOR_BELOW_M`] below
/// `expected` and at most [`MAX_STEP_M`] above it (of all those at most a step above it,
/// when fewer than five are); `None` with fewer than five such heights. Nothing higher than
/// a step above where the eye height puts the floor is the floor the wearer stands on: a
/// table top within reach, seen while the floor at the feet is not, put every step and drop
/// ahead 0.5 m off.
fn floor_below_eye(zs: &mut [f32], expected: f32) -> Option<f32> {
    zs.sort_by(f32::total_cmp);
    let highest = zs.partition_point(|&z| z <= expected + MAX_STEP_M);
    if highest < 5 {
        return None;
    }
    let lowest = zs.partition_point(|&z| z < expected - EYE_FLOOR_BELOW_M);
    match zs.get_mut(lowest..highest) {
        Some(s) if s.len() >= 5 => percentile(s, UNDER_PERCENTILE),
        _ => zs
            .get_mut(..highest)
            .and_then(|s| percentile(s, UNDER_PERCENTILE)),
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
        self.analyze_with(Some(map), None, c, now)
    }

    /// Analyses the static `map` and the `recent` depth points around `c` at `now`.
    pub fn analyze_with(
        &mut self,
        map: Option<&PointMap>,
        recent: Option<&RecentPoints>,
        c: &Corridor,
        now: DeviceTime,
    ) -> CorridorView {
        self.analyze_sources(
            Sources {
                map,
                recent,
                floor: None,
            },
            c,
            now,
        )
    }

    /// Analyses every source of points around `c` at `now`.
    pub fn analyze_sources(
        &mut self,
        sources: Sources<'_>,
        c: &Corridor,
        now: DeviceTime,
    ) -> CorridorView {
        let Sources { map, recent, floor } = sources;
        let [hx, hy, hz] = c.head_m;
        // Each point with its capture time when it is a recent depth point (`None`: the map).
        let each = |r: f32, f: &mut dyn FnMut(&[f32; 3], Option<i64>)| {
            if let Some(m) = map {
                m.for_each_near(hx, hy, r, now, |mp| f(&mp.p, None));
            }
            if let Some(rp) = recent {
                rp.for_each_near_captured(hx, hy, r, now, |p, t| f(p, Some(t)));
            }
        };
        let frame = c.frame();
        let range = c.range_m.max(0.5);
        // Floor under the wearer: the low points within 1 m (and those within
        // UNDER_NEAR_M, where the feet are).
        self.under.clear();
        self.under_near.clear();
        let (under, under_near) = (&mut self.under, &mut self.under_near);
        let mut push_under = |p: &[f32; 3]| {
            let dz = hz - p[2];
            if (0.9..=2.3).contains(&dz) && under.len() < 4096 {
                under.push(p[2]);
                if (p[0] - hx).hypot(p[1] - hy) <= UNDER_NEAR_M {
                    under_near.push(p[2]);
                }
            }
        };
        each(1.0, &mut |p, _| push_under(p));
        if let Some(fl) = floor {
            fl.points.for_each_near(hx, hy, 1.0, now, &mut push_under);
        }
        // A low percentile, not the median: the feet of walls and things within 1 m are
        // above the floor, never below it. Where the eye height says the floor is, when
        // enough of the points are there (nearest the feet first): standing at the top of
        // stairs down (or a curb), the lower levels within 1 m ahead are not the floor
        // underfoot.
        let expected = hz - c.eye_height_m;
        // Away from the eye height's window only over a static map's floor: the cameras
        // seldom see the floor within 1 m, so depth points there are mostly the tops of
        // low things (a bench, a table), which taken for the floor put a drop-off ahead.
        let (floor_z, floor_seen) = match floor_at_eye(&mut self.under_near, expected)
            .or_else(|| floor_at_eye(&mut self.under, expected))
            .or_else(|| {
                floor
                    .is_none()
                    .then(|| floor_below_eye(&mut self.under, expected))
                    .flatten()
            }) {
            Some(z) => (z, true),
            None => (expected, false),
        };
        // Points ahead: those in the corridor (floor profile) and, anywhere, those high
        // enough above the wearer's floor to be obstacles (local floors ahead may differ by
        // a step at most).
        self.near.clear();
        let near = &mut self.near;
        let half = c.width_m / 2.0;
        let low_cut = OBSTACLE_MIN_M - MAX_STEP_M;
        each(range + 0.2, &mut |p, captured_ns| {
            let (along, lat) = frame.local([p[0], p[1]]);
            let h = p[2] - floor_z;
            if along > 0.1 && along <= range && (lat.abs() <= half || h >= low_cut) {
                near.push(Near {
                    p: *p,
                    along,
                    lat,
                    h,
                    captured_ns,
                });
            }
        });
        // Floor profile along the corridor.
        let nbins = (range / BIN_M).ceil() as usize;
        self.bins.resize_with(nbins, Vec::new);
        self.depth_bins
            .resize_with(nbins * MAX_DEPTH_FLOOR_FRAMES, Vec::new);
        for b in self.bins.iter_mut().chain(self.depth_bins.iter_mut()) {
            b.clear();
        }
        let push_bin = |bins: &mut [Vec<f32>], along: f32, lat: f32, h: f32| {
            if lat.abs() <= half && (-DEEPEST_DROP_M..=MAX_STEP_M + 0.1).contains(&h) {
                let i = ((along / BIN_M) as usize).min(nbins.saturating_sub(1));
                if let Some(b) = bins.get_mut(i) {
                    if b.len() < MAX_BIN_POINTS {
                        b.push(h);
                    }
                }
            }
        };
        for n in &self.near {
            push_bin(&mut self.bins, n.along, n.lat, n.h);
        }
        // Floor-level depth points binned per frame (the newest frames' first): each frame's
        // errors are its own (its pose, its matching), so a bin's level is what separate
        // frames agree on.
        let depth_frames = &mut self.depth_frames;
        depth_frames.clear();
        if let Some(fl) = floor {
            depth_frames.extend(fl.points.frame_times(now));
            depth_frames.sort_unstable_by(|a, b| b.cmp(a));
            depth_frames.truncate(MAX_DEPTH_FLOOR_FRAMES);
            let depth_bins = &mut self.depth_bins;
            let mut slot = (i64::MIN, None);
            fl.points
                .for_each_near_captured(hx, hy, range + 0.2, now, |p, t| {
                    if slot.0 != t {
                        slot = (t, depth_frames.iter().position(|&f| f == t));
                    }
                    let (along, lat) = frame.local([p[0], p[1]]);
                    if let Some(k) = slot.1.filter(|_| along > 0.1 && along <= range) {
                        let bins = depth_bins
                            .get_mut(k * nbins..(k + 1) * nbins)
                            .unwrap_or_default();
                        push_bin(bins, along, lat, p[2] - floor_z);
                    }
                });
        }
        // The height error of a floor-level depth point `along` metres ahead: its range
        // error's share along the vertical.
        let eye_over_floor = (hz - floor_z).max(0.5);
        let depth_sigma = |along: f32| {
            floor.map_or(0.0, |fl| {
                along.hypot(eye_over_floor) * eye_over_floor * fl.range_error_per_m2
            })
        };
        self.floor.clear();
        let mut level = 0.0f32;
        let mut edges = Vec::new();
        let (mut drop_seen, mut step_seen) = (false, false);
        // An edge waits for the next floor-like bin to confirm its new level.
        let mut pending: Option<(ThingKind, f32, f32, f32, usize)> = None;
        let mut last_floor = None;
        // A floor-like bin between the level and an edge's worth from it (see below).
        let mut between: Option<f32> = None;
        // Whether the level is a static map's measured floor (else the eye height's
        // assumption, or floor-level depth points near the feet, which the cameras mostly
        // do not see: a low thing's top there passes for the floor).
        let mut level_seen = floor_seen && floor.is_none();
        // Whether the level is one seen bin's alone (the assumption replaced by the first
        // floor seen, no other bin agreeing with it yet).
        let mut lone = false;
        // How far ahead the floor was seen (see `Walkable::floor_seen_m`).
        let mut seen_to: Option<f32> = None;
        let trace = log::log_enabled!(log::Level::Trace);
        let mut read: Vec<(usize, Option<f32>)> = Vec::new();
        let levels = &mut self.levels;
        for (i, b) in self.bins.iter_mut().enumerate() {
            let along = i as f32 * BIN_M;
            // The floor-level depth points first: they are this moment's view of the floor
            // (a live map's floor drifts with the pose that placed it).
            let sigma = depth_sigma(along + BIN_M / 2.0);
            levels.clear();
            for k in 0..depth_frames.len() {
                if let Some(l) = self
                    .depth_bins
                    .get_mut(k * nbins + i)
                    .and_then(|db| depth_floor_level(db, sigma))
                {
                    levels.push(l);
                }
            }
            let known = frames_agree(levels)
                .or_else(|| {
                    // No two frames agree: the frames' points pooled, when none of them
                    // alone held enough for a level and together they are one level.
                    if !levels.is_empty() {
                        return None;
                    }
                    let pooled = &mut self.pooled;
                    pooled.clear();
                    for k in 0..depth_frames.len() {
                        if let Some(db) = self.depth_bins.get(k * nbins + i) {
                            pooled.extend_from_slice(db);
                        }
                    }
                    depth_floor_level(pooled, sigma)
                })
                .or_else(|| {
                    if b.len() < 3 {
                        return None;
                    }
                    let lo = percentile(b, FLOOR_PERCENTILE);
                    let mid = percentile(b, 0.5);
                    match (lo, mid) {
                        (Some(lo), Some(mid)) if mid - lo <= FLOOR_SPREAD_M => Some(lo),
                        _ => None,
                    }
                });
            if trace {
                let depth_points: usize = (0..depth_frames.len())
                    .filter_map(|k| self.depth_bins.get(k * nbins + i))
                    .map(Vec::len)
                    .sum();
                read.push((b.len() + depth_points, known));
            }
            if known.is_some() {
                let end = along + BIN_M;
                seen_to = match seen_to {
                    None if along <= FLOOR_SEEN_START_M => Some(end),
                    Some(to) if along - to <= FLOOR_SEEN_GAP_M => Some(end),
                    other => other,
                };
            }
            if let Some(f) = known {
                let anchored_here = !level_seen;
                if !level_seen
                    && (f.abs() <= EYE_FLOOR_SLACK_M
                        || (f + floor_z - expected).abs() <= EYE_FLOOR_SLACK_M)
                {
                    // The floor underfoot was not measured, only assumed: the first floor
                    // seen ahead within that assumption's error (or the eye height's) sets
                    // the level. A few centimetres between a guess and a measurement are no
                    // edge (the head's bob over a stride moves the guess that much).
                    level = f;
                    lone = true;
                }
                level_seen = true;
                if let Some((kind, at, diff, new_level, from_bin)) = pending.take() {
                    // Confirmed by the next floor-like bin on the new level, or, on stairs,
                    // one more step on in the same direction.
                    let on = f - new_level;
                    let stairs =
                        on * diff > 0.0 && on.abs() > LEVEL_AGREE_M && on.abs() < MAX_STEP_M;
                    if on.abs() <= LEVEL_AGREE_M || stairs {
                        // The bins since the edge were already on the new level; those
                        // between a drop-off's edge and its confirmed lower level (the upper
                        // floor's last strip, the treads of stairs going down) keep the
                        // upper level as theirs: nothing there standing less than an
                        // obstacle's height above the upper floor is an obstacle (the floor
                        // at the top of stairs down is no "obstacle ahead").
                        let transition = if kind == ThingKind::DropOff {
                            level
                        } else {
                            new_level
                        };
                        for fl in self.floor.iter_mut().skip(from_bin) {
                            *fl = transition;
                        }
                        match kind {
                            ThingKind::DropOff => drop_seen = true,
                            _ => step_seen = true,
                        }
                        edges.push(Edge {
                            kind,
                            along_m: at,
                            world_m: [hx + frame.cos * at, hy + frame.sin * at, floor_z + level],
                            rise_m: diff,
                        });
                        level = new_level;
                    }
                }
                let mut diff = f - level;
                if lone && !anchored_here && diff.abs() <= LEVEL_AGREE_M {
                    lone = false;
                }
                if lone
                    && diff.abs() > EDGE_M
                    && (f.abs() <= EYE_FLOOR_SLACK_M
                        || (f + floor_z - expected).abs() <= EYE_FLOOR_SLACK_M)
                {
                    // The level is one bin's, and this one is as likely the floor underfoot
                    // continued: one bin is no level to measure an edge from (the top of a
                    // low thing, a patch of mismatches). This one sets it instead.
                    level = f;
                    diff = 0.0;
                }
                let kind = if diff < -EDGE_M && !drop_seen {
                    Some(ThingKind::DropOff)
                } else if diff > EDGE_M && diff < MAX_STEP_M && !step_seen {
                    Some(ThingKind::StepUp)
                } else {
                    None
                };
                // The edge lies between the last floor-like bin and this one (the bins
                // between are on the new level once it is confirmed); where, occlusion
                // says: the floor below a drop-off is hidden behind its edge from eye
                // height, so the edge is where the upper floor was last seen; a step up
                // shows its tread from its edge on, so the edge is where the new level
                // starts.
                let at = edge_along(kind, last_floor, along);
                if let Some(kind) = kind {
                    pending = Some((kind, at, diff, f, last_floor.map_or(i, |l| l + 1)));
                } else if (LEVEL_AGREE_M..=EDGE_M).contains(&diff.abs())
                    && !between.is_some_and(|b: f32| (f - b).abs() <= LEVEL_AGREE_M)
                {
                    // Between one level and an edge's worth: a bin straddling an edge
                    // (points of both levels, as noisy depth spreads them) or the start of
                    // a slope. The level holds until the next bin tells which (two bins
                    // agreeing on it: a gentle change): followed bin by bin, a kerb seen
                    // through noise became two changes each too small to be an edge.
                    between = Some(f);
                } else if diff.abs() < MAX_STEP_M {
                    level = f;
                    between = None;
                }
                if kind.is_some() {
                    between = None;
                }
                last_floor = Some(i);
            }
            self.floor.push(level);
        }
        if trace {
            // The floor profile as it was read: per bin along the corridor, its points and
            // its floor height over the floor underfoot (`?`: too few points, or spread
            // wider than a floor).
            let profile: Vec<String> = read
                .iter()
                .map(|(n, f)| match f {
                    Some(f) => format!("{n}:{f:+.2}"),
                    None => format!("{n}:?"),
                })
                .collect();
            log::trace!(
                "{} floor underfoot {:.2} m (seen {}, eye height puts it at {:.2}), edges {:?}, bins {}",
                now.ns(),
                floor_z,
                floor_seen,
                expected,
                edges
                    .iter()
                    .map(|e| (e.kind, e.along_m, e.rise_m))
                    .collect::<Vec<_>>(),
                profile.join(" ")
            );
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
        self.floor_cells.clear();
        for n in &self.near {
            let i = ((n.along / BIN_M) as usize).min(nbins.saturating_sub(1));
            let local = self.floor.get(i).copied().unwrap_or(0.0);
            let h = n.h - local;
            if !n.dynamic() && h.abs() < EDGE_M {
                self.floor_cells.insert((
                    (n.p[0] / CLUSTER_CELL_M).floor() as i32,
                    (n.p[1] / CLUSTER_CELL_M).floor() as i32,
                ));
            }
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
            // Depth points are clustered across the whole range (a person walking in from
            // the side is tracked before they reach the path).
            if n.lat.abs() > NEAR_PATH_M && !n.dynamic() {
                continue;
            }
            // Depth points cluster apart from the static map's (a layer of their own): a
            // person passing a mapped bench is not merged with it, which would hand the
            // bench's track to the person's and re-arm its alert once they part.
            let layer = if n.dynamic() { DYNAMIC_LAYER } else { 0 };
            let key = (
                (n.p[0] / CLUSTER_CELL_M).floor() as i32,
                ((n.p[1] / CLUSTER_CELL_M).floor() as i32).saturating_add(layer),
            );
            let d = dx.hypot(dy);
            let acc = self.cells.entry(key).or_insert_with(|| CellAcc {
                min_h: f32::INFINITY,
                max_h: f32::NEG_INFINITY,
                nearest_d: f32::INFINITY,
                ahead: f32::INFINITY,
                ..CellAcc::default()
            });
            acc.n += 1;
            for (s, v) in acc.sum.iter_mut().zip(n.p) {
                *s += v;
            }
            acc.min_h = acc.min_h.min(h);
            acc.max_h = acc.max_h.max(h);
            acc.body += usize::from((GROUND_BAND_TO_M..HEAD_BAND_FROM_M).contains(&h));
            if d < acc.nearest_d {
                acc.nearest_d = d;
                acc.nearest = n.p;
            }
            if n.lat.abs() <= half {
                acc.in_path = true;
                acc.sure |= surely_within(half, n.along, n.lat);
                if n.along < acc.ahead {
                    acc.ahead = n.along;
                    acc.hit = n.p;
                }
            }
            let (px, py) = (f64::from(n.p[0]), f64::from(n.p[1]));
            acc.dynamic += usize::from(n.dynamic());
            acc.newest_ns = acc.newest_ns.max(n.captured_ns);
            acc.sxx += px * px;
            acc.sxy += px * py;
            acc.syy += py * py;
        }
        for (k, a) in self.cells.iter_mut() {
            a.support = support(a, self.floor_cells.contains(k));
        }
        let clusters = self.cluster(c);
        if let Some(e) = edges.iter().find(|e| e.kind == ThingKind::DropOff) {
            clear[0] = clear[0].min(e.along_m);
        }
        let walkable = Some(Walkable {
            clear_ahead_m: clear[0],
            clear_left_m: clear[1],
            clear_right_m: clear[2],
            floor_seen_m: Some(seen_to.unwrap_or(0.0).min(range)),
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

    /// Connected components of the occupied cells (8-neighbourhood); long thin tall ones
    /// are walls, kept only where the corridor `c` meets their fitted line.
    fn cluster(&mut self, c: &Corridor) -> Vec<Cluster> {
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
            self.comp.clear();
            let mut n = 0usize;
            let mut sum = [0.0f32; 3];
            let (mut sxx, mut sxy, mut syy) = (0.0f64, 0.0f64, 0.0f64);
            let (mut min_h, mut max_h) = (f32::INFINITY, f32::NEG_INFINITY);
            let mut body = 0usize;
            let (mut nd, mut np) = (f32::INFINITY, [0.0f32; 3]);
            let mut in_path = false;
            let mut ahead = f32::INFINITY;
            let mut hit = [0.0f32; 3];
            let mut dynamic = 0usize;
            let mut newest_depth_ns: Option<i64> = None;
            let mut sure = false;
            let (mut dynamic_cells, mut mapped_cells) = (0usize, 0usize);
            while let Some((x, y)) = self.stack.pop() {
                let Some(a) = self.cells.get(&(x, y)) else {
                    continue;
                };
                if a.dynamic > 0 && y >= DYNAMIC_LAYER / 2 {
                    dynamic_cells += 1;
                    mapped_cells += usize::from(self.cells.contains_key(&(x, y - DYNAMIC_LAYER)));
                }
                self.comp.push((x, y));
                n += a.n;
                for (s, v) in sum.iter_mut().zip(a.sum) {
                    *s += v;
                }
                sxx += a.sxx;
                sxy += a.sxy;
                syy += a.syy;
                min_h = min_h.min(a.min_h);
                max_h = max_h.max(a.max_h);
                body += a.body;
                if a.nearest_d < nd {
                    nd = a.nearest_d;
                    np = a.nearest;
                }
                in_path |= a.in_path;
                if a.ahead < ahead {
                    ahead = a.ahead;
                    hit = a.hit;
                }
                dynamic += a.dynamic;
                newest_depth_ns = newest_depth_ns.max(a.newest_ns);
                sure |= a.sure;
                // Something held up only by what it is fixed to (a sign sticking out of a
                // wall, a shelf): the map's cells hanging over a seen floor do not join
                // cells standing on it, so a protrusion is a thing of its own at head
                // height, not a part of the wall; a thing all at head height stays one
                // whether or not the floor is seen under all of it.
                for ddx in -1..=1 {
                    for ddy in -1..=1 {
                        let q = (x + ddx, y + ddy);
                        if self
                            .cells
                            .get(&q)
                            .is_some_and(|b| joins(a.support, b.support))
                            && self.done.insert(q)
                        {
                            self.stack.push(q);
                        }
                    }
                }
            }
            if n < MIN_CLUSTER_POINTS {
                continue;
            }
            // At head height with nothing at body height below it: what hangs there is
            // what a walker meets (a cane finds what lies on the floor; points within a
            // noisy floor's reach under a branch are no body to it).
            let hangs = max_h >= HEAD_BAND_FROM_M && body == 0;
            let band = if min_h >= HEAD_BAND_FROM_M || hangs {
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
            let centroid = [sum[0] * inv, sum[1] * inv, sum[2] * inv];
            // A wall stands on the floor: a long thin thing overhead (a branch) is not one.
            let wall = if max_h >= WALL_MIN_TOP_M && min_h < GROUND_BAND_TO_M {
                self.wall_line(centroid, n, [sxx, sxy, syy])
            } else {
                None
            };
            let mut cl = Cluster {
                kind,
                band,
                centroid_m: centroid,
                nearest_m: np,
                distance_m: nd,
                top_m: max_h,
                in_path,
                points: n,
                wall_m: wall,
                ahead_m: in_path.then_some(ahead),
                dynamic_points: dynamic,
                spread_m: major_spread_m(centroid, n, [sxx, sxy, syy]),
                hit_m: in_path.then_some(hit),
                sure,
                mapped_cells,
                dynamic_cells,
                newest_depth_ns,
            };
            if let Some(line) = wall {
                // A wall is a thing only where the corridor meets it: at the centre line's
                // crossing (else its nearest part in the corridor).
                let Some((along, at)) = segment_in_corridor(c, line) else {
                    continue;
                };
                let z = c.head_m[2] - c.eye_height_m;
                let (dx, dy) = (at[0] - c.head_m[0], at[1] - c.head_m[1]);
                cl.centroid_m = [at[0], at[1], z];
                cl.nearest_m = [at[0], at[1], z];
                cl.distance_m = dx.hypot(dy);
                cl.in_path = true;
                cl.ahead_m = Some(along);
                cl.hit_m = Some([at[0], at[1], z]);
                cl.sure = segment_in_corridor(&narrowed(c, along), line).is_some();
            }
            log::debug!(
                "cluster of {} points ({} depth, {} body) {:.2}-{:.2} m high at ({:.2}, {:.2}), in path {}, mapped cells {}/{}",
                cl.points,
                cl.dynamic_points,
                body,
                min_h,
                max_h,
                cl.centroid_m[0],
                cl.centroid_m[1],
                cl.in_path,
                cl.mapped_cells,
                cl.dynamic_cells
            );
            out.push(cl);
        }
        // Nothing behind the nearest wall in the corridor is in the path (a wall seen
        // through a door beside the corridor is behind the jamb the corridor meets).
        let block = out
            .iter()
            .filter(|c| c.wall_m.is_some())
            .filter_map(|c| c.ahead_m)
            .fold(f32::INFINITY, f32::min);
        out.retain(|c| c.wall_m.is_none() || c.ahead_m.is_some_and(|a| a <= block + BLOCK_SLACK_M));
        for c in &mut out {
            if c.ahead_m.is_some_and(|a| a > block + BLOCK_SLACK_M) {
                c.in_path = false;
                c.sure = false;
                c.ahead_m = None;
                c.hit_m = None;
            }
        }
        out.sort_by(|a, b| a.distance_m.total_cmp(&b.distance_m));
        out
    }

    /// The line through a component (its cells are in `self.comp`) when it is long and
    /// thin: principal axis of the points, ends from the cells' extent along it.
    fn wall_line(&self, centroid: [f32; 3], n: usize, s2: [f64; 3]) -> Option<[[f32; 2]; 2]> {
        let nf = n as f64;
        let (mx, my) = (f64::from(centroid[0]), f64::from(centroid[1]));
        let cxx = s2[0] / nf - mx * mx;
        let cxy = s2[1] / nf - mx * my;
        let cyy = s2[2] / nf - my * my;
        let theta = 0.5 * (2.0 * cxy).atan2(cxx - cyy);
        let (ux, uy) = (theta.cos(), theta.sin());
        let minor = (cxx * uy * uy - 2.0 * cxy * ux * uy + cyy * ux * ux).max(0.0);
        let sd = minor.sqrt();
        if sd.is_nan() || sd > f64::from(WALL_MAX_SD_M) {
            return None;
        }
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for &(x, y) in &self.comp {
            let Some(a) = self.cells.get(&(x, y)) else {
                continue;
            };
            let k = 1.0 / a.n.max(1) as f64;
            let (cx, cy) = (f64::from(a.sum[0]) * k - mx, f64::from(a.sum[1]) * k - my);
            let t = cx * ux + cy * uy;
            lo = lo.min(t);
            hi = hi.max(t);
        }
        let half_cell = f64::from(CLUSTER_CELL_M) / 2.0;
        let (lo, hi) = (lo - half_cell, hi + half_cell);
        let len = hi - lo;
        if len.is_nan() || len < f64::from(WALL_MIN_LEN_M) {
            return None;
        }
        let at = |t: f64| [(mx + t * ux) as f32, (my + t * uy) as f32];
        Some([at(lo), at(hi)])
    }
}

/// The standard deviation along the major horizontal axis of `n` points with centroid
/// `centroid` and raw second moments `s2` (`Σx²`, `Σxy`, `Σy²`), m.
fn major_spread_m(centroid: [f32; 3], n: usize, s2: [f64; 3]) -> f32 {
    let nf = n.max(1) as f64;
    let (mx, my) = (f64::from(centroid[0]), f64::from(centroid[1]));
    let cxx = s2[0] / nf - mx * mx;
    let cxy = s2[1] / nf - mx * my;
    let cyy = s2[2] / nf - my * my;
    let half = 0.5 * (cxx - cyy);
    let major = 0.5 * (cxx + cyy) + (half * half + cxy * cxy).sqrt();
    let sd = major.max(0.0).sqrt() as f32;
    if sd.is_finite() {
        sd
    } else {
        f32::INFINITY
    }
}

/// Where a floor edge lies along the corridor, m, between the end of the last floor-like
/// bin `last_floor` (none: the edge is at `along`) and the start `along` of the first bin
/// on the new level: for a drop-off at the former (the lower floor is hidden behind the
/// edge, so the bins between are the unseen part of the lower floor), for a step up at
/// the latter (its riser hides nothing of its tread), else half-way.
pub fn edge_along(kind: Option<ThingKind>, last_floor: Option<usize>, along: f32) -> f32 {
    let Some(l) = last_floor else {
        return along;
    };
    let end = (l + 1) as f32 * BIN_M;
    match kind {
        Some(ThingKind::DropOff) => end,
        Some(ThingKind::StepUp) => along,
        _ => (end + along) / 2.0,
    }
}

/// Where the segment `line` meets the corridor `c` within its range: the distance ahead
/// of its nearest part in the corridor, and the point where the centre line crosses it
/// (else that nearest part), world `[x, y]` m.
pub fn segment_in_corridor(c: &Corridor, line: [[f32; 2]; 2]) -> Option<(f32, [f32; 2])> {
    let f = c.frame();
    let world = |along: f32, lat: f32| f.world(along, lat);
    let (a, b) = (f.local(line[0]), f.local(line[1]));
    let half = c.width_m / 2.0;
    // The part of the segment with |lat| ≤ half: parameters [t0, t1] of a + t (b − a).
    let dl = b.1 - a.1;
    let (mut t0, mut t1) = (0.0f32, 1.0f32);
    if dl.abs() < 1e-6 {
        if a.1.abs() > half {
            return None;
        }
    } else {
        let (ta, tb) = ((-half - a.1) / dl, (half - a.1) / dl);
        t0 = t0.max(ta.min(tb));
        t1 = t1.min(ta.max(tb));
        if t0 > t1 {
            return None;
        }
    }
    let along_at = |t: f32| a.0 + t * (b.0 - a.0);
    let (p0, p1) = (along_at(t0), along_at(t1));
    let (near, far) = (p0.min(p1), p0.max(p1));
    if far <= 0.0 || near > c.range_m {
        return None;
    }
    let ahead = near.max(0.0);
    // The centre line's crossing, when the segment crosses it ahead.
    if dl.abs() >= 1e-6 {
        let t = -a.1 / dl;
        if (0.0..=1.0).contains(&t) {
            let al = along_at(t);
            if al >= 0.0 {
                return Some((ahead, world(al, 0.0)));
            }
        }
    }
    let (t_near, along_near) = if p0 <= p1 { (t0, p0) } else { (t1, p1) };
    let lat = a.1 + t_near * dl;
    Some((ahead, world(along_near.max(0.0), lat)))
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
    fn major_spread_tells_a_person_from_a_wall_in_any_direction() {
        let moments = |pts: &[[f32; 2]]| {
            let n = pts.len();
            let mut c = [0.0f32; 3];
            let mut s2 = [0.0f64; 3];
            for p in pts {
                c[0] += p[0] / n as f32;
                c[1] += p[1] / n as f32;
                let (x, y) = (f64::from(p[0]), f64::from(p[1]));
                s2[0] += x * x;
                s2[1] += x * y;
                s2[2] += y * y;
            }
            major_spread_m(c, n, s2)
        };
        // A person: a 0.4 × 0.3 m footprint, far from the origin (the moments are raw).
        let person: Vec<[f32; 2]> = (0..20)
            .flat_map(|i| (0..15).map(move |j| [50.0 + i as f32 * 0.02, 30.0 + j as f32 * 0.02]))
            .collect();
        let sd = moments(&person);
        assert!((0.1..0.2).contains(&sd), "{sd}");
        // 4 m of wall along a diagonal: uniform over 4 m has sd 4/√12 ≈ 1.15 m.
        let wall: Vec<[f32; 2]> = (0..200)
            .map(|i| {
                let t = i as f32 * 0.02;
                [50.0 + t * 0.6, 30.0 + t * 0.8]
            })
            .collect();
        let sd = moments(&wall);
        assert!((sd - 1.155).abs() < 0.02, "{sd}");
        assert!(sd > crate::perception::engine::MOVER_MAX_SPREAD_M);
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
    fn depth_points_beside_a_mapped_thing_are_a_cluster_of_their_own() {
        let mut pts = Vec::new();
        grid(&mut pts, (-1.0, 8.0), (-1.5, 1.5), (0.0, 0.0), 0.1);
        // A mapped bench beside the path, 0.5 m high, at x 3–4, y -1.0 to -0.6.
        grid(&mut pts, (3.0, 4.0), (-1.0, -0.6), (0.5, 0.5), 0.05);
        let map = PointMap::new(pts, false);
        // A person's depth points standing against the bench's inner edge.
        let mut recent = RecentPoints::new(500_000_000, 10_000);
        let person: Vec<[f32; 3]> = (0..60)
            .map(|i| {
                let a = i as f32 * 0.5;
                [
                    3.5 + 0.15 * a.cos(),
                    -0.4 + 0.15 * a.sin(),
                    0.3 + 0.025 * i as f32,
                ]
            })
            .collect();
        recent.push(0, &person);
        let mut a = CorridorAnalyzer::new();
        let v = a.analyze_with(Some(&map), Some(&recent), &corridor(1.0), DeviceTime(0));
        assert_eq!(v.clusters.len(), 2, "{:?}", v.clusters);
        let dynamic: Vec<usize> = v.clusters.iter().map(|c| c.dynamic_points).collect();
        assert!(dynamic.contains(&60) && dynamic.contains(&0), "{dynamic:?}");
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

    /// A platform edge: the track bed 1.1 m below the platform, seen beyond the edge, is a
    /// drop-off (the profile once looked only 1 m down and saw the floor end).
    #[test]
    fn a_platform_edge_is_a_drop_off_of_its_depth() {
        let mut pts = Vec::new();
        grid(&mut pts, (-1.0, 3.0), (-1.0, 1.0), (0.0, 0.0), 0.1);
        // The edge's face, then the track bed from where it shows beyond the edge.
        grid(&mut pts, (3.0, 3.0), (-1.0, 1.0), (-1.1, 0.0), 0.05);
        grid(&mut pts, (4.0, 8.0), (-1.0, 1.0), (-1.1, -1.1), 0.1);
        let map = PointMap::new(pts, false);
        let v = CorridorAnalyzer::new().analyze(&map, &corridor(0.0), DeviceTime(0));
        assert_eq!(v.edges.len(), 1, "{:?}", v.edges);
        let e = &v.edges[0];
        assert_eq!(e.kind, ThingKind::DropOff);
        assert!((e.along_m - 3.0).abs() <= BIN_M, "{e:?}");
        assert!((e.rise_m + 1.1).abs() < 0.02, "{e:?}");
        assert!(v.clusters.is_empty(), "{:?}", v.clusters);
        let w = v.walkable.unwrap();
        assert!(w.clear_ahead_m <= 3.0 + 1e-3, "{w:?}");
    }

    /// A sign fixed to a wall beside the path and sticking out over it at head height is a
    /// thing at head height of its own, not a part of the wall (which it was, and "the
    /// path ahead is clear" was said under it). Only over a floor seen: the same points
    /// with nothing seen below them (a far wall whose top the live map holds before its
    /// foot) stay one thing with the wall.
    #[test]
    fn a_sign_sticking_out_of_a_wall_is_head_high_on_its_own() {
        let wall = |pts: &mut Vec<MapPoint>| {
            grid(pts, (-1.0, 8.0), (-1.5, 1.5), (0.0, 0.0), 0.1);
            grid(pts, (-1.0, 8.0), (1.0, 1.0), (0.2, 2.6), 0.1);
        };
        let mut pts = Vec::new();
        wall(&mut pts);
        // From the wall at y = 1 across the path to y = 0.1, 1.55–2.0 m up, at x = 3.
        grid(&mut pts, (2.95, 3.05), (0.1, 1.0), (1.55, 2.0), 0.05);
        let map = PointMap::new(pts, false);
        let v = CorridorAnalyzer::new().analyze(&map, &corridor(0.0), DeviceTime(0));
        let head: Vec<&Cluster> = v
            .clusters
            .iter()
            .filter(|c| c.band == HeightBand::Head)
            .collect();
        assert_eq!(head.len(), 1, "{:?}", v.clusters);
        assert_eq!(head[0].kind, ThingKind::Overhead);
        assert!(head[0].in_path);
        assert!((head[0].distance_m - 2.95).abs() < 0.1, "{:?}", head[0]);
        // No floor seen under the sign: not known to be free below, so no head-high thing.
        let mut pts = Vec::new();
        wall(&mut pts);
        pts.retain(|p| !(p.p[2] == 0.0 && p.p[1] < 1.0 && (2.5..3.5).contains(&p.p[0])));
        grid(&mut pts, (2.95, 3.05), (0.1, 1.0), (1.55, 2.0), 0.05);
        let map = PointMap::new(pts, false);
        let v = CorridorAnalyzer::new().analyze(&map, &corridor(0.0), DeviceTime(0));
        assert!(
            v.clusters.iter().all(|c| c.band != HeightBand::Head),
            "{:?}",
            v.clusters
        );
        // Without the sign: the wall beside the path is no thing in it.
        let mut pts = Vec::new();
        wall(&mut pts);
        let map = PointMap::new(pts, false);
        let v = CorridorAnalyzer::new().analyze(&map, &corridor(0.0), DeviceTime(0));
        assert!(v.clusters.iter().all(|c| !c.in_path), "{:?}", v.clusters);
    }

    /// A branch at head height over a floor seen under part of it only is one thing (its
    /// cells over the seen floor and those over the unseen one were two, and two alerts).
    #[test]
    fn a_branch_half_over_a_seen_floor_is_one_thing() {
        let mut pts = Vec::new();
        grid(&mut pts, (-1.0, 3.0), (-1.0, 1.0), (0.0, 0.0), 0.1);
        grid(&mut pts, (2.5, 3.5), (-0.5, 0.5), (1.7, 1.8), 0.05);
        let map = PointMap::new(pts, false);
        let v = CorridorAnalyzer::new().analyze(&map, &corridor(0.0), DeviceTime(0));
        assert_eq!(v.clusters.len(), 1, "{:?}", v.clusters);
        assert_eq!(v.clusters[0].kind, ThingKind::Overhead);
    }

    /// Stereo depth of a floor is noisy: in live mode (depth points, no map) a few floor
    /// points read 0.3 m up under a branch fall in its clustering cells. The branch still
    /// hangs at head height (a cane does not find it), however the floor's noise is
    /// clustered with it; a post under it, with points at body height, stands.
    #[test]
    fn a_branch_over_noisy_floor_points_is_head_high_a_post_under_it_is_not() {
        let scene = |under: &[[f32; 3]]| {
            let mut depth = Vec::new();
            for i in 0..20 {
                for k in 0..3 {
                    depth.push([2.95 + 0.05 * k as f32, -0.5 + 0.05 * i as f32, 1.72]);
                }
            }
            depth.extend_from_slice(under);
            let mut recent = RecentPoints::new(500_000_000, 10_000);
            recent.push(0, &depth);
            let v = CorridorAnalyzer::new().analyze_with(
                None,
                Some(&recent),
                &corridor(0.0),
                DeviceTime(0),
            );
            v.clusters.iter().map(|c| c.band).collect::<Vec<_>>()
        };
        assert_eq!(scene(&[]), vec![HeightBand::Head]);
        let noise = [[3.0, 0.0, 0.3], [3.02, 0.05, 0.35], [2.98, -0.04, 0.42]];
        assert_eq!(scene(&noise), vec![HeightBand::Head]);
        let post: Vec<[f32; 3]> = (0..30)
            .map(|i| [3.0, 0.0, 0.25 + 0.05 * i as f32])
            .collect();
        assert_eq!(scene(&post), vec![HeightBand::Body]);
    }

    #[test]
    fn a_lintel_over_the_head_is_no_obstacle_a_branch_at_head_top_is() {
        // Eyes 1.6 m over the floor: a lintel from 2.05 m (0.45 m above the eyes, 0.3 m
        // over the head) at x = 3 is walked under; a branch from 1.7 m at x = 3 is not.
        let floor = |pts: &mut Vec<MapPoint>| grid(pts, (-1.0, 8.0), (-1.0, 1.0), (0.0, 0.0), 0.1);
        let mut pts = Vec::new();
        floor(&mut pts);
        grid(&mut pts, (2.95, 3.05), (-0.5, 0.5), (2.05, 2.5), 0.05);
        let map = PointMap::new(pts, false);
        let v = CorridorAnalyzer::new().analyze(&map, &corridor(0.0), DeviceTime(0));
        assert!(v.clusters.is_empty(), "{:?}", v.clusters);
        let mut pts = Vec::new();
        floor(&mut pts);
        grid(&mut pts, (2.95, 3.05), (-0.5, 0.5), (1.7, 1.8), 0.05);
        let map = PointMap::new(pts, false);
        let v = CorridorAnalyzer::new().analyze(&map, &corridor(0.0), DeviceTime(0));
        assert_eq!(v.clusters.len(), 1, "{:?}", v.clusters);
        assert!(v.clusters[0].in_path);
        assert_eq!(v.clusters[0].band, HeightBand::Head);
    }

    #[test]
    fn the_top_of_stairs_down_is_a_drop_off_not_an_obstacle() {
        // stairs_curb_branch: a floor at -0.15 to x = 14, then treads 0.3 m deep 0.17 m
        // down each (-0.32, -0.49) onto a floor at -0.66; risers face away (unseen).
        let mut pts = Vec::new();
        grid(&mut pts, (8.0, 13.98), (-1.0, 1.0), (-0.15, -0.15), 0.05);
        grid(&mut pts, (14.02, 14.28), (-1.0, 1.0), (-0.32, -0.32), 0.05);
        grid(&mut pts, (14.32, 14.58), (-1.0, 1.0), (-0.49, -0.49), 0.05);
        grid(&mut pts, (14.62, 20.0), (-1.0, 1.0), (-0.66, -0.66), 0.05);
        let map = PointMap::new(pts, false);
        let mut a = CorridorAnalyzer::new();
        for i in 0..30 {
            let x = 10.0 + i as f32 * 0.13;
            let c = Corridor {
                head_m: [x, 0.0, -0.15 + 1.65],
                ..corridor(0.0)
            };
            let v = a.analyze(&map, &c, DeviceTime(0));
            assert!(v.clusters.is_empty(), "x {x}: {:?}", v.clusters);
            assert_eq!(
                v.edges.first().map(|e| e.kind),
                Some(ThingKind::DropOff),
                "x {x}: {:?}",
                v.edges
            );
        }
        // Half-way down, the head at its lowest in a stride (as in the rendered session,
        // 1.34 m at x = 14.16): the tread underfoot is a strip of the points within 1 m;
        // the floor is that tread, not the foot of the stairs, and the next tread is no
        // obstacle.
        let c = Corridor {
            head_m: [14.16, 0.0, 1.34],
            ..corridor(0.0)
        };
        let v = a.analyze(&map, &c, DeviceTime(0));
        assert!((v.floor_z_m + 0.32).abs() < 0.02, "{}", v.floor_z_m);
        assert!(v.clusters.is_empty(), "{:?}", v.clusters);
        // Going down them: the head descends 0.51 m over 1 m from x = 13.93.
        for i in 0..=20 {
            let x = 13.93 + i as f32 * 0.05;
            let c = Corridor {
                head_m: [x, 0.0, -0.15 - 0.51 * (x - 13.93) + 1.65],
                ..corridor(0.0)
            };
            let v = a.analyze(&map, &c, DeviceTime(0));
            assert!(v.clusters.is_empty(), "x {x}: {:?}", v.clusters);
            assert!(
                v.edges.iter().all(|e| e.kind == ThingKind::DropOff),
                "x {x}: {:?}",
                v.edges
            );
        }
    }

    #[test]
    fn a_broad_top_beside_the_wearer_is_not_the_floor_underfoot() {
        // mixed_walk at the foot of its stairs up: the wearer stands at the far end of a
        // curb's lower level (-0.15 for x < 23.1) beside the street (0 beyond), facing a
        // 0.6 m rise (its riser at y = 0.4) whose top, densely mapped, is most of the
        // points within 1 m. The floor is the lower level; the rise is an obstacle ahead,
        // not a 45 cm step up.
        let mut pts = Vec::new();
        grid(&mut pts, (20.0, 23.05), (-1.0, 0.35), (-0.15, -0.15), 0.05);
        grid(&mut pts, (23.15, 25.0), (-1.0, 0.35), (0.0, 0.0), 0.05);
        grid(&mut pts, (22.1, 24.1), (0.42, 3.0), (0.45, 0.45), 0.02);
        grid(&mut pts, (22.1, 24.1), (0.4, 0.4), (-0.15, 0.45), 0.05);
        let map = PointMap::new(pts, false);
        let c = Corridor {
            head_m: [23.09, 0.15, 1.5],
            ..corridor_w(0.0, 0.0, 90.0)
        };
        let v = CorridorAnalyzer::new().analyze(&map, &c, DeviceTime(0));
        assert!((v.floor_z_m + 0.15).abs() < 0.02, "{}", v.floor_z_m);
        assert!(
            v.edges.iter().all(|e| e.kind != ThingKind::StepUp),
            "{:?}",
            v.edges
        );
        assert!(v.clusters.iter().any(|c| c.in_path), "{:?}", v.clusters);
    }

    fn corridor_w(x: f32, y: f32, dir_deg: f32) -> Corridor {
        Corridor {
            head_m: [x, y, 1.6],
            dir_rad: dir_deg.to_radians(),
            width_m: 0.7,
            range_m: 5.0,
            eye_height_m: 1.6,
        }
    }

    #[test]
    fn a_wall_across_the_corridor_is_one_thing_where_the_centre_line_meets_it() {
        let mut pts = Vec::new();
        grid(&mut pts, (-1.0, 3.9), (-3.0, 3.0), (0.0, 0.0), 0.1);
        // A wall along x = 4, 2.5 m tall, every 5 cm sideways and 10 cm up.
        grid(&mut pts, (4.0, 4.0), (-3.0, 3.0), (0.0, 2.5), 0.1);
        let map = PointMap::new(pts, false);
        // Head-on from (0.5, 0.2): the centre line meets it at (4, 0.2), 3.5 m ahead.
        let v = CorridorAnalyzer::new().analyze(&map, &corridor_w(0.5, 0.2, 0.0), DeviceTime(0));
        assert!(
            v.edges.is_empty(),
            "a wall's foot is no step: {:?}",
            v.edges
        );
        assert_eq!(v.clusters.len(), 1, "{:?}", v.clusters);
        let c = &v.clusters[0];
        assert!(c.wall_m.is_some() && c.in_path);
        assert!((c.centroid_m[0] - 4.0).abs() < 0.01 && (c.centroid_m[1] - 0.2).abs() < 0.01);
        assert!((c.ahead_m.unwrap() - 3.5).abs() < 0.01);
        // At 30° to the left from (0.5, 0): the centre line meets x = 4 at
        // y = 3.5 tan 30° = 2.021 (the thing is there); the corridor's right edge (lateral
        // −0.35) meets it first, at y = (1.75 − 0.35) / cos 30° = 1.617, along
        // 3.5 cos 30° + 1.617 sin 30° = 3.839.
        let v = CorridorAnalyzer::new().analyze(&map, &corridor_w(0.5, 0.0, 30.0), DeviceTime(0));
        let walls: Vec<&Cluster> = v.clusters.iter().filter(|c| c.wall_m.is_some()).collect();
        assert_eq!(walls.len(), 1, "{:?}", v.clusters);
        let a = walls[0].ahead_m.unwrap();
        assert!((a - 3.839).abs() < 0.03, "{a}");
        let p = walls[0].centroid_m;
        assert!(
            (p[0] - 4.0).abs() < 0.02 && (p[1] - 2.021).abs() < 0.02,
            "{p:?}"
        );
    }

    #[test]
    fn walls_beside_the_corridor_and_door_jambs_are_not_things_or_steps() {
        let mut pts = Vec::new();
        grid(&mut pts, (-1.0, 8.0), (-1.0, 1.0), (0.0, 0.0), 0.1);
        // Hall walls at y = ±1.0 (inside the 1.2 m clustering reach, outside the corridor).
        grid(&mut pts, (-1.0, 8.0), (1.0, 1.0), (0.0, 2.5), 0.1);
        grid(&mut pts, (-1.0, 8.0), (-1.0, -1.0), (0.0, 2.5), 0.1);
        // An end wall at x = 4 with a door 1 m wide (|y| < 0.5), jambs 10 cm deep.
        grid(&mut pts, (4.0, 4.1), (0.5, 1.0), (0.0, 2.5), 0.05);
        grid(&mut pts, (4.0, 4.1), (-1.0, -0.5), (0.0, 2.5), 0.05);
        let map = PointMap::new(pts, false);
        for x in [0.0f32, 1.0, 2.0, 3.0, 3.5] {
            let v = CorridorAnalyzer::new().analyze(&map, &corridor_w(x, 0.0, 0.0), DeviceTime(0));
            assert!(v.edges.is_empty(), "x {x}: {:?}", v.edges);
            assert!(
                v.clusters.iter().all(|c| !c.in_path),
                "x {x}: {:?}",
                v.clusters
            );
            assert!(v.clusters.iter().all(|c| c.wall_m.is_none() || c.in_path));
        }
    }

    #[test]
    fn a_30_cm_step_is_a_step_and_its_tread_no_obstacle() {
        let mut pts = Vec::new();
        grid(&mut pts, (-1.0, 2.0), (-1.0, 1.0), (0.0, 0.0), 0.1);
        grid(&mut pts, (2.05, 8.0), (-1.0, 1.0), (0.3, 0.3), 0.1);
        grid(&mut pts, (2.0, 2.0), (-1.0, 1.0), (0.0, 0.3), 0.05);
        let map = PointMap::new(pts, false);
        let v = CorridorAnalyzer::new().analyze(&map, &corridor(0.0), DeviceTime(0));
        assert_eq!(v.edges.len(), 1, "{:?}", v.edges);
        assert_eq!(v.edges[0].kind, ThingKind::StepUp);
        assert!((v.edges[0].rise_m - 0.3).abs() < 0.02);
        assert!((v.edges[0].along_m - 2.0).abs() <= BIN_M);
        assert!(v.clusters.is_empty(), "{:?}", v.clusters);
    }

    #[test]
    fn edges_sit_where_occlusion_puts_them() {
        // A drop-off at x = 3 whose lower floor is hidden behind the edge up to x = 4 (as
        // from eye height): the edge is where the upper floor ends, not half-way to where
        // the lower floor shows again.
        let mut pts = Vec::new();
        grid(&mut pts, (-1.0, 2.9), (-1.0, 1.0), (0.0, 0.0), 0.1);
        grid(&mut pts, (4.02, 8.0), (-1.0, 1.0), (-0.15, -0.15), 0.1);
        let map = PointMap::new(pts, false);
        let v = CorridorAnalyzer::new().analyze(&map, &corridor(0.0), DeviceTime(0));
        assert_eq!(v.edges.len(), 1, "{:?}", v.edges);
        assert_eq!(v.edges[0].kind, ThingKind::DropOff);
        assert!((v.edges[0].along_m - 3.0).abs() < 0.13, "{:?}", v.edges);
        // A step up at x = 3 with no floor seen between x = 2 and its tread: the edge is
        // where the tread starts.
        let mut pts = Vec::new();
        grid(&mut pts, (-1.0, 1.9), (-1.0, 1.0), (0.0, 0.0), 0.1);
        grid(&mut pts, (3.02, 8.0), (-1.0, 1.0), (0.15, 0.15), 0.1);
        let map = PointMap::new(pts, false);
        let v = CorridorAnalyzer::new().analyze(&map, &corridor(0.0), DeviceTime(0));
        assert_eq!(v.edges.len(), 1, "{:?}", v.edges);
        assert_eq!(v.edges[0].kind, ThingKind::StepUp);
        assert!((v.edges[0].along_m - 3.0).abs() < 0.13, "{:?}", v.edges);
        // No gap: the same either way.
        assert_eq!(edge_along(Some(ThingKind::DropOff), Some(11), 3.0), 3.0);
        assert_eq!(edge_along(Some(ThingKind::StepUp), Some(11), 3.0), 3.0);
        assert_eq!(edge_along(None, Some(7), 3.0), 2.5);
        assert_eq!(edge_along(Some(ThingKind::DropOff), None, 1.25), 1.25);
    }

    #[test]
    fn stairs_whose_treads_fill_one_bin_each_are_one_step_up_not_an_obstacle() {
        // Treads 25 cm deep, 15 cm rises, from x = 1 onto a landing 45 cm up: each level is
        // one floor-like bin, so no level is confirmed by a second bin on it.
        let mut pts = Vec::new();
        grid(&mut pts, (-1.0, 0.92), (-1.0, 1.0), (0.0, 0.0), 0.1);
        grid(&mut pts, (1.02, 1.22), (-1.0, 1.0), (0.15, 0.15), 0.1);
        grid(&mut pts, (1.27, 1.47), (-1.0, 1.0), (0.3, 0.3), 0.1);
        grid(&mut pts, (1.52, 8.0), (-1.0, 1.0), (0.45, 0.45), 0.1);
        let map = PointMap::new(pts, false);
        let v = CorridorAnalyzer::new().analyze(&map, &corridor(0.0), DeviceTime(0));
        assert_eq!(v.edges.len(), 1, "{:?}", v.edges);
        assert_eq!(v.edges[0].kind, ThingKind::StepUp);
        assert!((v.edges[0].along_m - 1.0).abs() <= BIN_M, "{:?}", v.edges);
        assert!((v.edges[0].rise_m - 0.15).abs() < 0.02, "{:?}", v.edges);
        // The landing is floor, not an obstacle.
        assert!(v.clusters.is_empty(), "{:?}", v.clusters);
        // A lone raised bin (a mat, a threshold) between two floor-like bins on the old
        // level is no step.
        let mut pts = Vec::new();
        grid(&mut pts, (-1.0, 0.92), (-1.0, 1.0), (0.0, 0.0), 0.1);
        grid(&mut pts, (1.02, 1.22), (-1.0, 1.0), (0.1, 0.1), 0.1);
        grid(&mut pts, (1.27, 8.0), (-1.0, 1.0), (0.0, 0.0), 0.1);
        let map = PointMap::new(pts, false);
        let v = CorridorAnalyzer::new().analyze(&map, &corridor(0.0), DeviceTime(0));
        assert!(v.edges.is_empty(), "{:?}", v.edges);
    }

    #[test]
    fn a_jamb_at_the_corridor_edge_far_ahead_is_in_it_but_not_surely() {
        // A 0.35 m half-corridor along +x; a door jamb's edge 4.5 m ahead, 0.34 m to the
        // left (a 1 m doorway seen along a walking line 1° off), and a pole on the line
        // 4 m ahead.
        let mut pts = Vec::new();
        grid(&mut pts, (-1.0, 8.0), (-1.5, 1.5), (0.0, 0.0), 0.1);
        grid(&mut pts, (4.5, 4.5), (0.34, 0.6), (0.0, 1.8), 0.05);
        grid(&mut pts, (4.0, 4.0), (-0.04, 0.04), (0.0, 1.8), 0.04);
        let map = PointMap::new(pts, false);
        let c = corridor_w(0.0, 0.0, 0.0);
        let v = CorridorAnalyzer::new().analyze(&map, &c, DeviceTime(0));
        let at = |x: f32| {
            v.clusters
                .iter()
                .find(|cl| (cl.centroid_m[0] - x).abs() < 0.1)
                .unwrap_or_else(|| panic!("none at {x}: {:?}", v.clusters))
        };
        let (jamb, pole) = (at(4.5), at(4.0));
        assert!(jamb.in_path && !jamb.sure, "{jamb:?}");
        assert!(pole.in_path && pole.sure, "{pole:?}");
        // 0.3 m ahead, the jamb's edge is surely in the corridor.
        let v = CorridorAnalyzer::new().analyze(&map, &corridor_w(4.2, 0.0, 0.0), DeviceTime(0));
        let jamb = v
            .clusters
            .iter()
            .find(|cl| (cl.centroid_m[0] - 4.5).abs() < 0.1)
            .unwrap();
        assert!(jamb.in_path && jamb.sure, "{jamb:?}");
    }

    #[test]
    fn segment_in_corridor_matches_hand_geometry() {
        let c = corridor_w(0.0, 0.0, 0.0);
        // (2, 1)–(4, −1): inside |y| ≤ 0.35 for x ∈ [2.65, 3.35]; crosses y = 0 at x = 3.
        let (a, p) = segment_in_corridor(&c, [[2.0, 1.0], [4.0, -1.0]]).unwrap();
        assert!((a - 2.65).abs() < 1e-5 && (p[0] - 3.0).abs() < 1e-5 && p[1].abs() < 1e-5);
        // Parallel outside, behind, beyond the range.
        assert!(segment_in_corridor(&c, [[1.0, 0.4], [9.0, 0.4]]).is_none());
        assert!(segment_in_corridor(&c, [[-3.0, -1.0], [-3.0, 1.0]]).is_none());
        assert!(segment_in_corridor(&c, [[5.5, -1.0], [5.5, 1.0]]).is_none());
        // Parallel inside at y = 0.2 from x = 1 to 9: 1 m ahead, nearest end (1, 0.2).
        let (a, p) = segment_in_corridor(&c, [[9.0, 0.2], [1.0, 0.2]]).unwrap();
        assert!((a - 1.0).abs() < 1e-5 && (p[0] - 1.0).abs() < 1e-5 && (p[1] - 0.2).abs() < 1e-5);
    }

    /// Floor-level stereo points seen from eyes at (0, 0, 1.6) over a floor at z 0 up to
    /// `edge_x` and `drop_m` lower beyond it (the lower floor's part hidden behind the edge
    /// left out), each moved along its ray by a normal range error of `k`·r², in `frames`
    /// frames 0.1 s apart.
    fn noisy_floor(edge_x: f32, drop_m: f32, k: f32, frames: i64) -> RecentPoints {
        noisy_floor_thinned(edge_x, drop_m, k, frames, 1)
    }

    /// [`noisy_floor`] with one in `beyond_every` of the points beyond the edge kept (a
    /// lower level that gives stereo few matches: dark asphalt, a step's shadow).
    fn noisy_floor_thinned(
        edge_x: f32,
        drop_m: f32,
        k: f32,
        frames: i64,
        beyond_every: usize,
    ) -> RecentPoints {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut uniform = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            ((seed >> 11) as f64 / (1u64 << 53) as f64) as f32
        };
        let eye = [0.0f32, 0.0, 1.6];
        let mut recent = RecentPoints::new(300_000_000, 40_000);
        for f in 0..frames {
            let mut pts = Vec::new();
            for i in 0..60 {
                for j in 0..16 {
                    let (x, y) = (0.5 + i as f32 * 0.05, -0.4 + j as f32 * 0.05);
                    // Hidden: below the edge, nearer than the eye's line over it.
                    let z = if x > edge_x { -drop_m } else { 0.0 };
                    if x > edge_x && x < edge_x * 1.6 / (1.6 - drop_m) {
                        continue;
                    }
                    if x > edge_x && (i * 16 + j + f as usize) % beyond_every != 0 {
                        continue;
                    }
                    let d = [x - eye[0], y - eye[1], z - eye[2]];
                    let r = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
                    // Box–Muller.
                    let (u1, u2) = (uniform().max(1e-9), uniform());
                    let n = (-2.0 * u1.ln()).sqrt() * (std::f32::consts::TAU * u2).cos();
                    let s = 1.0 + k * r * n;
                    pts.push([eye[0] + d[0] * s, eye[1] + d[1] * s, eye[2] + d[2] * s]);
                }
            }
            recent.push(f * 100_000_000, &pts);
        }
        recent
    }

    #[test]
    fn floor_level_depth_points_give_a_kerb_and_no_phantom_drop() {
        // A quarter pixel of disparity error on the Gen1 SLAM pair (f·B = 24.8 px·m).
        let k = 0.25 / 24.8;
        let at = DeviceTime(200_000_000);
        let view = |recent: &RecentPoints| {
            let floor = Some(FloorDepth {
                points: recent,
                range_error_per_m2: k,
            });
            let sources = Sources {
                map: None,
                recent: None,
                floor,
            };
            CorridorAnalyzer::new().analyze_sources(sources, &corridor(0.0), at)
        };
        // A flat floor: its noise grows with range, and no drop-off comes of it.
        let flat = view(&noisy_floor(10.0, 0.0, k, 3));
        assert!(
            flat.floor_seen && flat.floor_z_m.abs() < 0.03,
            "{}",
            flat.floor_z_m
        );
        assert!(flat.edges.is_empty(), "{:?}", flat.edges);
        // A 15 cm kerb down at 2 m.
        let kerb = view(&noisy_floor(2.0, 0.15, k, 3));
        let e = kerb.edges.first().expect("the kerb");
        assert_eq!(e.kind, ThingKind::DropOff, "{:?}", kerb.edges);
        assert!((e.along_m - 2.0).abs() <= 0.3, "{e:?}");
        assert!((e.rise_m + 0.15).abs() < 0.05, "{e:?}");
        // The street beyond it giving each frame too few points for a level of its own:
        // two frames' points together are one level, and the kerb is seen.
        let sparse = noisy_floor_thinned(2.0, 0.15, k, 2, 13);
        let e = view(&sparse).edges.first().cloned().expect("the kerb");
        assert_eq!(e.kind, ThingKind::DropOff);
        assert!((e.along_m - 2.0).abs() <= 0.3, "{e:?}");
        // A flat floor as sparse everywhere is no edge.
        let flat = view(&noisy_floor_thinned(0.4, 0.0, k, 2, 13));
        assert!(flat.edges.is_empty(), "{:?}", flat.edges);
    }

    #[test]
    fn one_bin_is_no_level_to_measure_an_edge_from() {
        // Floor-level depth points in two frames, the floor underfoot unseen (only assumed
        // from the eye height): the first bin seen, 1.25–1.5 m ahead, 9.5 cm up (a mat, a
        // low thing's top), then the floor at the eye height's level to 3.5 m. The one bin
        // set the level, and the floor after it was a 9.5 cm drop-off 1.5 m ahead; it is no
        // edge. The same floor 9.5 cm lower beyond 2.5 m after five bins at +9.5 cm is one.
        let view = |raised_to: f32, drop_from: f32| {
            let mut recent = RecentPoints::new(300_000_000, 40_000);
            for f in 0..2i64 {
                let mut pts = Vec::new();
                for i in 0..45 {
                    for j in 0..12 {
                        let x = 1.26 + i as f32 * 0.05;
                        let y = -0.3 + j as f32 * 0.05;
                        let z = if x < raised_to {
                            0.095
                        } else if x >= drop_from {
                            0.0
                        } else {
                            0.095
                        };
                        pts.push([x, y, z]);
                    }
                }
                recent.push(f * 100_000_000, &pts);
            }
            let floor = Some(FloorDepth {
                points: &recent,
                range_error_per_m2: 0.01,
            });
            let sources = Sources {
                map: None,
                recent: None,
                floor,
            };
            CorridorAnalyzer::new().analyze_sources(
                sources,
                &corridor(0.0),
                DeviceTime(100_000_000),
            )
        };
        let lone = view(1.5, 1.5);
        assert!(lone.edges.is_empty(), "{:?}", lone.edges);
        let kerb = view(2.5, 2.5);
        let e = kerb
            .edges
            .first()
            .expect("a kerb after five bins of its level");
        assert_eq!(e.kind, ThingKind::DropOff, "{:?}", kerb.edges);
        assert!((e.along_m - 2.5).abs() <= 0.25, "{e:?}");
    }

    #[test]
    fn a_depth_floor_bin_is_its_median_within_its_noise() {
        let mut hs: Vec<f32> = (0..20).map(|i| (i as f32 - 9.5) * 0.006).collect();
        let got = depth_floor_level(&mut hs, 0.03).unwrap();
        assert!(got.abs() < 0.01, "{got}");
        // Too few.
        assert_eq!(depth_floor_level(&mut hs[..5].to_vec(), 0.03), None);
        // Half floor, half a 15 cm kerb top: no one level.
        let mut mixed: Vec<f32> = (0..20).map(|i| if i < 10 { 0.0 } else { 0.15 }).collect();
        assert_eq!(depth_floor_level(&mut mixed, 0.03), None);
        // Where the noise is nearly three times larger (far away), the same spread is noise.
        assert!(depth_floor_level(&mut mixed, 0.08).is_some());
    }

    #[test]
    fn a_bin_level_is_what_two_frames_agree_on() {
        // One frame alone is no floor.
        assert_eq!(frames_agree(&mut [0.02]), None);
        // Two agree; the third (a mismatch, a pitch error) is left out.
        let got = frames_agree(&mut [0.01, -0.12, 0.03]).unwrap();
        assert!((got - 0.02).abs() < 1e-6, "{got}");
        // Three frames that all disagree: no level.
        assert_eq!(frames_agree(&mut [0.0, 0.1, -0.1]), None);
        // The larger group wins.
        let got = frames_agree(&mut [0.15, 0.0, 0.16, 0.01, 0.14]).unwrap();
        assert!((got - 0.15).abs() < 1e-6, "{got}");
    }

    #[test]
    fn a_low_top_near_the_feet_is_not_the_floor_underfoot() {
        // Floor-level depth points: the top of a low thing 0.2 m high beside the wearer,
        // within 1 m (the cameras do not see the floor there), and the floor ahead from
        // 1.5 m on, in three frames.
        let mut recent = RecentPoints::new(500_000_000, 40_000);
        for f in 0..3 {
            let mut pts = Vec::new();
            for i in 0..12 {
                for j in 0..16 {
                    pts.push([0.3 + i as f32 * 0.04, 0.6 + j as f32 * 0.02, 0.2]);
                    pts.push([1.5 + i as f32 * 0.15, -0.4 + j as f32 * 0.05, 0.0]);
                }
            }
            recent.push(f * 100_000_000, &pts);
        }
        let sources = Sources {
            map: None,
            recent: None,
            floor: Some(FloorDepth {
                points: &recent,
                range_error_per_m2: 0.01,
            }),
        };
        let v = CorridorAnalyzer::new().analyze_sources(
            sources,
            &corridor(0.0),
            DeviceTime(200_000_000),
        );
        assert!(v.floor_z_m.abs() < 0.05, "floor {}", v.floor_z_m);
        assert!(v.edges.is_empty(), "{:?}", v.edges);
        let seen = v.walkable.and_then(|w| w.floor_seen_m).unwrap();
        assert!((3.0..=3.5).contains(&seen), "{seen}");
    }
}
