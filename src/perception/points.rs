//! Point sets (pure). [`PointMap`]: the semi-dense point map, world points with the time
//! each was first observed (when `semidense_observations` exists; otherwise every point
//! counts as known from the start) in a horizontal grid index, queried causally: only
//! points first seen at or before `now` are returned. It is static: it does not follow
//! people. [`RecentPoints`]: the last moments of depth points (e.g. stereo from the SLAM
//! cameras), bounded in time and count, which do.

use std::collections::VecDeque;

use super::cellhash::CellMap;
use crate::time::DeviceTime;

/// Depth points older than this (behind the newest frame) are forgotten, ns.
pub const RECENT_WINDOW_NS: i64 = 500_000_000;
/// Depth points held at most (the oldest frames go first; what is refused is counted).
pub const MAX_RECENT_POINTS: usize = 40_000;

/// The recent frames of depth points, world frame.
#[derive(Clone, Debug)]
pub struct RecentPoints {
    frames: VecDeque<(i64, Vec<[f32; 3]>)>,
    window_ns: i64,
    max_points: usize,
    held: usize,
    dropped: u64,
}

impl Default for RecentPoints {
    fn default() -> Self {
        Self::new(RECENT_WINDOW_NS, MAX_RECENT_POINTS)
    }
}

impl RecentPoints {
    /// Keeps frames for `window_ns` behind the newest and at most `max_points` points.
    pub fn new(window_ns: i64, max_points: usize) -> Self {
        Self {
            frames: VecDeque::new(),
            window_ns: window_ns.max(0),
            max_points,
            held: 0,
            dropped: 0,
        }
    }

    /// Adds one frame captured at `capture_ns`. Non-finite points, a frame older than the
    /// window behind the newest, and points beyond the cap (oldest frames first, then the
    /// end of this frame) are dropped and counted.
    pub fn push(&mut self, capture_ns: i64, points_world: &[[f32; 3]]) {
        let newest = self
            .frames
            .back()
            .map_or(capture_ns, |f| f.0.max(capture_ns));
        if capture_ns < newest.saturating_sub(self.window_ns) {
            self.dropped += points_world.len() as u64;
            return;
        }
        let mut frame: Vec<[f32; 3]> = Vec::with_capacity(points_world.len().min(self.max_points));
        for p in points_world {
            if !p.iter().all(|v| v.is_finite()) || frame.len() >= self.max_points {
                self.dropped += 1;
                continue;
            }
            frame.push(*p);
        }
        self.expire(newest);
        while self.held + frame.len() > self.max_points {
            match self.frames.pop_front() {
                Some(f) => {
                    self.held -= f.1.len();
                    self.dropped += f.1.len() as u64;
                }
                None => break,
            }
        }
        self.held += frame.len();
        // Keep capture order (a slightly late frame goes before newer ones).
        let at = self.frames.partition_point(|f| f.0 <= capture_ns);
        self.frames.insert(at, (capture_ns, frame));
    }

    fn expire(&mut self, newest_ns: i64) {
        let horizon = newest_ns.saturating_sub(self.window_ns);
        while self.frames.front().is_some_and(|f| f.0 < horizon) {
            if let Some(f) = self.frames.pop_front() {
                self.held -= f.1.len();
            }
        }
    }

    /// Points held.
    pub fn len(&self) -> usize {
        self.held
    }

    /// When the newest frame held was captured, ns.
    pub fn newest_ns(&self) -> Option<i64> {
        self.frames.back().map(|f| f.0)
    }

    /// True when none are held.
    pub fn is_empty(&self) -> bool {
        self.held == 0
    }

    /// Points dropped (non-finite, too old, beyond the cap).
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// Capture times of the frames held in `(now − window, now]`, oldest first.
    pub fn frame_times(&self, now: DeviceTime) -> impl Iterator<Item = i64> + '_ {
        let from = now.ns().saturating_sub(self.window_ns);
        self.frames
            .iter()
            .map(|f| f.0)
            .filter(move |&t| t > from && t <= now.ns())
    }

    /// Calls `f` with every point within `radius_m` (horizontally) of `(x, y)` captured in
    /// `(now − window, now]`.
    pub fn for_each_near(
        &self,
        x: f32,
        y: f32,
        radius_m: f32,
        now: DeviceTime,
        mut f: impl FnMut(&[f32; 3]),
    ) {
        self.for_each_near_captured(x, y, radius_m, now, |p, _| f(p));
    }

    /// As [`Self::for_each_near`], with each point's capture time, ns.
    pub fn for_each_near_captured(
        &self,
        x: f32,
        y: f32,
        radius_m: f32,
        now: DeviceTime,
        mut f: impl FnMut(&[f32; 3], i64),
    ) {
        if !(x.is_finite() && y.is_finite() && radius_m.is_finite()) || radius_m < 0.0 {
            return;
        }
        let from = now.ns().saturating_sub(self.window_ns);
        let r2 = radius_m * radius_m;
        for (t, pts) in &self.frames {
            if *t <= from || *t > now.ns() {
                continue;
            }
            for p in pts {
                let (dx, dy) = (p[0] - x, p[1] - y);
                if dx * dx + dy * dy <= r2 {
                    f(p, *t);
                }
            }
        }
    }
}

/// Grid cell size, m.
pub const CELL_M: f32 = 0.5;
/// Points kept at most (a map beyond this is cut, and the cut is counted).
pub const MAX_POINTS: usize = 4_000_000;

/// One point: world position (m) and first observation time (ns; `i64::MIN` when
/// unknown).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MapPoint {
    /// World position, m.
    pub p: [f32; 3],
    /// First observation, device ns.
    pub first_seen_ns: i64,
}

/// A point observed at one moment only counts this long after it, unless it is seen again
/// at another moment (then from that moment on for good), ns. A static surface is seen
/// again from the next keyframes; a point seen once and never again was on something that
/// moved on (a passer-by, a passing car: the semi-dense map keeps such points where they
/// were), and its trail must not stand in the way for the rest of the session.
pub const TRANSIENT_HOLD_NS: i64 = 2_500_000_000;

/// A static point map with a grid index.
#[derive(Clone, Debug, Default)]
pub struct PointMap {
    points: Vec<MapPoint>,
    /// Per point, when it was seen at a second moment (`i64::MIN`: counts for good from its
    /// first observation; `i64::MAX`: never seen again).
    confirmed_ns: Vec<i64>,
    cells: CellMap<Vec<u32>>,
    causal: bool,
    dropped: usize,
}

fn cell_of(x: f32, y: f32) -> (i32, i32) {
    ((x / CELL_M).floor() as i32, (y / CELL_M).floor() as i32)
}

impl PointMap {
    /// A map of `points`. `causal`: whether first-seen times are real (from observations);
    /// when false, every point is returned at any time. Non-finite points are skipped;
    /// beyond [`MAX_POINTS`] points are dropped and counted.
    pub fn new(points: impl IntoIterator<Item = MapPoint>, causal: bool) -> Self {
        Self::with_confirmations(points.into_iter().map(|p| (p, i64::MIN)), causal)
    }

    /// Like [`Self::new`], each point with the time it was seen at a second moment
    /// (`i64::MAX`: never): in a causal map, a point not yet seen again counts only for
    /// [`TRANSIENT_HOLD_NS`] after its first observation.
    pub fn with_confirmations(
        points: impl IntoIterator<Item = (MapPoint, i64)>,
        causal: bool,
    ) -> Self {
        let mut map = Self {
            causal,
            ..Self::default()
        };
        for (mp, confirmed) in points {
            if !mp.p.iter().all(|v| v.is_finite()) {
                map.dropped += 1;
                continue;
            }
            if map.points.len() >= MAX_POINTS {
                map.dropped += 1;
                continue;
            }
            let i = map.points.len() as u32;
            map.cells
                .entry(cell_of(mp.p[0], mp.p[1]))
                .or_default()
                .push(i);
            map.points.push(mp);
            map.confirmed_ns.push(confirmed);
        }
        // Within a cell, earliest first: a causal query stops at the first future point.
        for idx in map.cells.values_mut() {
            let pts = &map.points;
            idx.sort_by_key(|&i| pts.get(i as usize).map_or(i64::MAX, |p| p.first_seen_ns));
        }
        map
    }

    /// Number of points held.
    pub fn len(&self) -> usize {
        self.points.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.points.is_empty()
    }

    /// Whether first-seen times are known (queries are causal).
    pub fn is_causal(&self) -> bool {
        self.causal
    }

    /// Every point held, in no particular order.
    pub fn points(&self) -> &[MapPoint] {
        &self.points
    }

    /// Points dropped at construction (non-finite or beyond the cap).
    pub fn dropped(&self) -> usize {
        self.dropped
    }

    /// Calls `f` with every point within `radius_m` (horizontally) of `(x, y)` known at
    /// `now` (and, when seen at one moment only so far, seen within [`TRANSIENT_HOLD_NS`]).
    pub fn for_each_near(
        &self,
        x: f32,
        y: f32,
        radius_m: f32,
        now: DeviceTime,
        mut f: impl FnMut(&MapPoint),
    ) {
        if !(x.is_finite() && y.is_finite() && radius_m.is_finite()) || radius_m < 0.0 {
            return;
        }
        let (c0x, c0y) = cell_of(x - radius_m, y - radius_m);
        let (c1x, c1y) = cell_of(x + radius_m, y + radius_m);
        let r2 = radius_m * radius_m;
        for cx in c0x..=c1x {
            for cy in c0y..=c1y {
                let Some(idx) = self.cells.get(&(cx, cy)) else {
                    continue;
                };
                for &i in idx {
                    let Some(p) = self.points.get(i as usize) else {
                        continue;
                    };
                    if self.causal {
                        if p.first_seen_ns > now.ns() {
                            break;
                        }
                        let confirmed = self.confirmed_ns.get(i as usize).copied();
                        let transient = now.ns().saturating_sub(p.first_seen_ns)
                            > TRANSIENT_HOLD_NS
                            && confirmed.is_some_and(|c| c > now.ns());
                        if transient {
                            continue;
                        }
                    }
                    let (dx, dy) = (p.p[0] - x, p.p[1] - y);
                    if dx * dx + dy * dy <= r2 {
                        f(p);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_point_seen_at_one_moment_only_fades_and_one_seen_again_stays() {
        let at = |x: f32, t: i64| MapPoint {
            p: [x, 0.0, 1.0],
            first_seen_ns: t,
        };
        let s = 1_000_000_000;
        let m = PointMap::with_confirmations(
            [
                // A passer-by's point: one moment (1 s), never again.
                (at(1.0, s), i64::MAX),
                // A wall's point: first 1 s, again at 5 s (after a gap longer than the hold).
                (at(1.1, s), 5 * s),
                // A point known for good from its first observation.
                (at(1.2, s), i64::MIN),
            ],
            true,
        );
        let seen = |now: i64| {
            let mut xs = Vec::new();
            m.for_each_near(1.0, 0.0, 1.0, DeviceTime(now), |p| xs.push(p.p[0]));
            xs.sort_by(f32::total_cmp);
            xs
        };
        assert!(seen(0).is_empty());
        assert_eq!(seen(s), vec![1.0, 1.1, 1.2]);
        assert_eq!(seen(s + TRANSIENT_HOLD_NS), vec![1.0, 1.1, 1.2]);
        assert_eq!(seen(s + TRANSIENT_HOLD_NS + 1), vec![1.2]);
        assert_eq!(seen(5 * s), vec![1.1, 1.2]);
        assert_eq!(seen(60 * s), vec![1.1, 1.2]);
        // A map without observation times keeps everything.
        let m = PointMap::with_confirmations([(at(1.0, 0), i64::MAX)], false);
        let mut n = 0;
        m.for_each_near(1.0, 0.0, 1.0, DeviceTime(60 * s), |_| n += 1);
        assert_eq!(n, 1);
    }

    #[test]
    fn radius_and_causality() {
        let pts = vec![
            MapPoint {
                p: [1.0, 0.0, 0.0],
                first_seen_ns: 5,
            },
            MapPoint {
                p: [1.2, 0.1, 1.0],
                first_seen_ns: 1,
            },
            MapPoint {
                p: [3.0, 0.0, 0.0],
                first_seen_ns: 0,
            },
            MapPoint {
                p: [f32::NAN, 0.0, 0.0],
                first_seen_ns: 0,
            },
        ];
        let m = PointMap::new(pts.clone(), true);
        assert_eq!((m.len(), m.dropped()), (3, 1));
        let count = |m: &PointMap, now: i64| {
            let mut n = 0;
            m.for_each_near(0.0, 0.0, 1.5, DeviceTime(now), |_| n += 1);
            n
        };
        assert_eq!(count(&m, 0), 0);
        assert_eq!(count(&m, 1), 1);
        assert_eq!(count(&m, 5), 2);
        let all = PointMap::new(pts, false);
        assert_eq!(count(&all, 0), 2);
        // Brute force agrees on a random-ish cloud.
        let cloud: Vec<MapPoint> = (0..500)
            .map(|i| {
                let a = i as f32 * 0.37;
                MapPoint {
                    p: [a.sin() * 4.0, (a * 1.7).cos() * 4.0, 0.0],
                    first_seen_ns: i64::from(i % 7),
                }
            })
            .collect();
        let m = PointMap::new(cloud.clone(), true);
        for (x, y, r, now) in [(0.0, 0.0, 2.0, 3), (1.3, -2.2, 1.1, 6), (-3.9, 0.2, 0.6, 0)] {
            let mut got = 0;
            m.for_each_near(x, y, r, DeviceTime(now), |_| got += 1);
            let want = cloud
                .iter()
                .filter(|p| {
                    p.first_seen_ns <= now && (p.p[0] - x).powi(2) + (p.p[1] - y).powi(2) <= r * r
                })
                .count();
            assert_eq!(got, want);
        }
    }

    #[test]
    fn recent_points_are_bounded_in_time_and_count() {
        let mut r = RecentPoints::new(500, 10);
        r.push(0, &[[1.0, 0.0, 0.0], [f32::NAN, 0.0, 0.0]]);
        assert_eq!((r.len(), r.dropped()), (1, 1));
        r.push(300, &[[1.0, 0.0, 1.0]; 4]);
        let count = |r: &RecentPoints, now: i64| {
            let mut n = 0;
            r.for_each_near(0.0, 0.0, 2.0, DeviceTime(now), |_| n += 1);
            n
        };
        // Causal: the frame at 300 is not seen at 200.
        assert_eq!((count(&r, 200), count(&r, 300)), (1, 5));
        // At 600 the frame at 0 is out of the window (500 ns).
        assert_eq!(count(&r, 600), 4);
        // A frame at 700 expires the one at 0; too old a frame is refused.
        r.push(700, &[[0.5, 0.5, 0.5]; 3]);
        assert_eq!(r.len(), 7);
        r.push(100, &[[0.0; 3]; 2]);
        assert_eq!((r.len(), r.dropped()), (7, 3));
        // Beyond 10 points the oldest frame goes, counted.
        r.push(750, &[[0.0; 3]; 6]);
        assert_eq!((r.len(), r.dropped()), (9, 7));
        // A frame larger than the cap keeps its first 10 points.
        r.push(800, &[[0.0; 3]; 12]);
        assert_eq!(r.len(), 10);
        assert_eq!(r.dropped(), 7 + 2 + 9);
        // Far away: nothing.
        let mut n = 0;
        r.for_each_near(50.0, 0.0, 1.0, DeviceTime(800), |_| n += 1);
        assert_eq!(n, 0);
    }
}
