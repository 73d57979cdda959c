//! [`LiveMap`]: a map of the wearer's surroundings built live from stereo depth (pure,
//! bounded), for input without MPS's semi-dense map. Each depth frame's world points (placed
//! with the device pose: visual odometry's, live) fall into voxels; a voxel seen in
//! [`LiveMapConfig::min_frames`] frames becomes a map point (its points' mean) from then, and
//! one seen again at
//! least [`CONFIRM_SPAN_NS`] after its first frame stays for good — one seen only briefly
//! (a passer-by, a mismatch) fades after [`super::points::TRANSIENT_HOLD_NS`], exactly as
//! the semi-dense map's points do. A voxel that more of the frames which saw it saw
//! *through* ([`LiveMap::see_through`], [`super::see_through`]) is not a map point: a
//! mismatch that repeats while the wearer stands, or the place a passer-by has left.
//! [`LiveMap::snapshot`] gives a [`PointMap`], so the
//! corridor analysis, drop-offs, openings and text placement read the live map where they
//! read the semi-dense one.
//!
//! Memory is bounded: voxels farther than [`LiveMapConfig::radius_m`] from the wearer are
//! forgotten, and beyond [`LiveMapConfig::max_voxels`] the least recently seen go; both are
//! counted.

use std::collections::HashMap;

use serde::Serialize;

use super::points::{MapPoint, PointMap};
use super::see_through::{SeeThrough, Verdict};
use super::stereo::filter::depth_tolerance_m;

/// A voxel seen again this long after its first frame is static for good, ns.
pub const CONFIRM_SPAN_NS: i64 = 500_000_000;

/// Settings of the map.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LiveMapConfig {
    /// Voxel side, m.
    pub voxel_m: f32,
    /// Voxels farther than this from the wearer (horizontally) are forgotten, m.
    pub radius_m: f32,
    /// Voxels held at most.
    pub max_voxels: usize,
    /// Frames a voxel must be seen in to be a map point (a mismatch rarely repeats).
    pub min_frames: u32,
    /// Seen through ([`super::see_through`]) beyond the depth error of this many pixels of
    /// disparity.
    pub disparity_err_px: f32,
}

impl Default for LiveMapConfig {
    /// 8 cm voxels within 12 m, at most 80 000 (about 4 MB), seen in three frames.
    fn default() -> Self {
        Self {
            voxel_m: 0.08,
            radius_m: 12.0,
            max_voxels: 80_000,
            min_frames: 3,
            disparity_err_px: 0.5,
        }
    }
}

/// Counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct LiveMapStats {
    /// Depth frames folded in.
    pub frames: u64,
    /// Points folded in.
    pub points: u64,
    /// Non-finite points skipped.
    pub skipped: u64,
    /// Voxels forgotten for being far from the wearer.
    pub evicted_far: u64,
    /// Voxels forgotten for the cap (least recently seen first).
    pub evicted_cap: u64,
    /// Voxels held now.
    pub voxels: u64,
    /// Times a voxel was seen through by a depth frame.
    pub seen_through: u64,
}

#[derive(Debug, Clone, Copy)]
struct Voxel {
    sum: [f32; 3],
    n: u32,
    first_ns: i64,
    last_ns: i64,
    /// Frames that saw it.
    frames: u32,
    /// Frames that saw through it (free space where it is).
    misses: u32,
    /// The frame that made it a map point, or `i64::MAX`.
    second_ns: i64,
    /// When it was seen again at least [`CONFIRM_SPAN_NS`] after its first frame, or
    /// `i64::MAX`.
    confirmed_ns: i64,
}

/// The live map.
#[derive(Debug, Clone, Default)]
pub struct LiveMap {
    cfg: LiveMapConfig,
    voxels: HashMap<(i32, i32, i32), Voxel>,
    see: SeeThrough,
    stats: LiveMapStats,
}

impl LiveMap {
    /// An empty map.
    pub fn new(cfg: LiveMapConfig) -> Self {
        Self {
            cfg,
            voxels: HashMap::new(),
            see: SeeThrough::new(),
            stats: LiveMapStats::default(),
        }
    }

    /// Counts, for every voxel, whether one whole depth frame (`points_world`, world, m,
    /// every point it measured at any range) captured with the cameras at `origin_m` saw
    /// through it; `focal_baseline_px_m` (the stereo pair's rectified focal length, px,
    /// times its baseline, m) sets the frame's depth error. Call before
    /// [`Self::insert`]ing the frame's points.
    pub fn see_through(
        &mut self,
        origin_m: [f32; 3],
        points_world: &[[f32; 3]],
        focal_baseline_px_m: f32,
    ) {
        self.see.set_frame(origin_m, points_world);
        let side = self.cfg.voxel_m;
        let err_px = self.cfg.disparity_err_px;
        for v in self.voxels.values_mut() {
            if v.n == 0 {
                continue;
            }
            let n = v.n as f32;
            let c = [v.sum[0] / n, v.sum[1] / n, v.sum[2] / n];
            let r2 = (c[0] - origin_m[0]).powi(2)
                + (c[1] - origin_m[1]).powi(2)
                + (c[2] - origin_m[2]).powi(2);
            let tolerance = depth_tolerance_m(r2.sqrt(), err_px, focal_baseline_px_m);
            if self.see.verdict(c, side, tolerance) == Verdict::SeenThrough {
                v.misses = v.misses.saturating_add(1);
                self.stats.seen_through += 1;
            }
        }
    }

    /// The counters so far.
    pub fn stats(&self) -> LiveMapStats {
        LiveMapStats {
            voxels: self.voxels.len() as u64,
            ..self.stats
        }
    }

    /// Folds in one depth frame captured at `capture_ns` with the cameras at `origin_m`
    /// (world, m). Frames must come in capture order (an older one is folded in as if it
    /// were the newest).
    pub fn insert<'a>(
        &mut self,
        capture_ns: i64,
        origin_m: [f32; 3],
        points_world: impl IntoIterator<Item = &'a [f32; 3]>,
    ) {
        self.stats.frames += 1;
        let inv = 1.0 / self.cfg.voxel_m.max(1e-3);
        for p in points_world {
            if !p.iter().all(|v| v.is_finite()) {
                self.stats.skipped += 1;
                continue;
            }
            self.stats.points += 1;
            let key = (
                (p[0] * inv).floor() as i32,
                (p[1] * inv).floor() as i32,
                (p[2] * inv).floor() as i32,
            );
            let v = self.voxels.entry(key).or_insert(Voxel {
                sum: [0.0; 3],
                n: 0,
                first_ns: capture_ns,
                last_ns: capture_ns,
                frames: 1,
                misses: 0,
                second_ns: i64::MAX,
                confirmed_ns: i64::MAX,
            });
            if capture_ns > v.last_ns {
                v.frames += 1;
                if v.second_ns == i64::MAX && v.frames >= self.cfg.min_frames {
                    v.second_ns = capture_ns;
                }
                if v.confirmed_ns == i64::MAX && capture_ns - v.first_ns >= CONFIRM_SPAN_NS {
                    v.confirmed_ns = capture_ns;
                }
                v.last_ns = capture_ns;
            }
            // A running mean of at most 64 points (later ones still move it a little).
            if v.n >= 64 {
                let k = 63.0 / 64.0;
                v.sum = [v.sum[0] * k, v.sum[1] * k, v.sum[2] * k];
                v.n = 63;
            }
            v.sum = [v.sum[0] + p[0], v.sum[1] + p[1], v.sum[2] + p[2]];
            v.n += 1;
        }
        self.bound(origin_m);
    }

    fn bound(&mut self, origin_m: [f32; 3]) {
        let r2 = self.cfg.radius_m * self.cfg.radius_m;
        let inv = 1.0 / self.cfg.voxel_m.max(1e-3);
        let (ox, oy) = (origin_m[0] * inv, origin_m[1] * inv);
        let r2_vox = r2 * inv * inv;
        let before = self.voxels.len();
        self.voxels.retain(|k, _| {
            let (dx, dy) = (k.0 as f32 + 0.5 - ox, k.1 as f32 + 0.5 - oy);
            dx * dx + dy * dy <= r2_vox
        });
        self.stats.evicted_far += (before - self.voxels.len()) as u64;
        if self.voxels.len() > self.cfg.max_voxels {
            let mut last: Vec<i64> = self.voxels.values().map(|v| v.last_ns).collect();
            let cut = self.voxels.len() - self.cfg.max_voxels;
            let (_, &mut nth, _) = last.select_nth_unstable(cut);
            let before = self.voxels.len();
            // Older than the cut go, then as many at the cut as still needed.
            self.voxels.retain(|_, v| v.last_ns >= nth);
            if self.voxels.len() > self.cfg.max_voxels {
                let extra = self.voxels.len() - self.cfg.max_voxels;
                let keys: Vec<_> = self
                    .voxels
                    .iter()
                    .filter(|(_, v)| v.last_ns == nth)
                    .map(|(k, _)| *k)
                    .take(extra)
                    .collect();
                for k in keys {
                    self.voxels.remove(&k);
                }
            }
            self.stats.evicted_cap += (before - self.voxels.len()) as u64;
        }
    }

    /// The map as a causal [`PointMap`]: every voxel seen in enough frames (and seen through
    /// in fewer than half of them), first seen at the frame that made it so, confirmed when
    /// seen again after [`CONFIRM_SPAN_NS`].
    pub fn snapshot(&self) -> PointMap {
        PointMap::with_confirmations(
            self.voxels
                .values()
                .filter(|v| v.second_ns != i64::MAX && v.n > 0 && 2 * v.misses < v.frames)
                .map(|v| {
                    let n = v.n as f32;
                    (
                        MapPoint {
                            p: [v.sum[0] / n, v.sum[1] / n, v.sum[2] / n],
                            first_seen_ns: v.second_ns,
                        },
                        v.confirmed_ns,
                    )
                }),
            true,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::perception::stereo::filter::GEN1_SLAM_FOCAL_BASELINE_PX_M as GEN1_FB;
    use crate::time::DeviceTime;

    fn count_near(map: &PointMap, x: f32, y: f32, t_ns: i64) -> usize {
        let mut n = 0;
        map.for_each_near(x, y, 0.5, DeviceTime::from_ns(t_ns), |_| n += 1);
        n
    }

    /// A wall seen frame after frame stays; a point seen in one frame never counts; a
    /// passer-by's points seen in two frames fade.
    #[test]
    fn a_wall_stays_a_glimpse_never_counts_and_a_passer_by_fades() {
        let s = 1_000_000_000i64;
        let mut m = LiveMap::new(LiveMapConfig::default());
        let wall: Vec<[f32; 3]> = (0..20)
            .map(|k| [3.0, -0.8 + 0.08 * k as f32, 1.0])
            .collect();
        for f in 0..10 {
            let t = s + f * 200_000_000;
            let mut pts = wall.clone();
            if f == 0 {
                pts.push([1.0, 5.0, 1.0]); // a glimpse
            }
            if (1..=3).contains(&f) {
                pts.push([-2.0, 0.0, 1.0]); // a passer-by, three frames
            }
            if f == 5 || f == 6 {
                pts.push([1.0, -5.0, 1.0]); // a mismatch that repeats once
            }
            m.insert(t, [0.0, 0.0, 1.6], &pts);
        }
        let snap = m.snapshot();
        let end = s + 9 * 200_000_000;
        assert!(count_near(&snap, 3.0, 0.0, end) >= 10);
        assert_eq!(count_near(&snap, 1.0, 5.0, end), 0);
        assert_eq!(count_near(&snap, 1.0, -5.0, end), 0);
        // The passer-by: there once seen three times, gone 3 s later.
        assert_eq!(count_near(&snap, -2.0, 0.0, s + 500_000_000), 0);
        assert_eq!(count_near(&snap, -2.0, 0.0, s + 700_000_000), 1);
        assert_eq!(count_near(&snap, -2.0, 0.0, s + 5 * s), 0);
        // The wall is there for good (confirmed).
        assert!(count_near(&snap, 3.0, 0.0, s + 60 * s) >= 10);
        // Causal: nothing before the third frame.
        assert_eq!(count_near(&snap, 3.0, 0.0, s + 300_000_000), 0);
        assert!(count_near(&snap, 3.0, 0.0, s + 400_000_000) >= 10);
        assert_eq!(m.stats().frames, 10);
    }

    /// Map points within 0.3 m of `p`.
    fn near3(map: &PointMap, p: [f32; 3], t_ns: i64) -> usize {
        let mut n = 0;
        map.for_each_near(p[0], p[1], 0.5, DeviceTime::from_ns(t_ns), |mp| {
            let d2: f32 = mp.p.iter().zip(p).map(|(a, b)| (a - b) * (a - b)).sum();
            n += usize::from(d2 < 0.09);
        });
        n
    }

    /// A mismatch that lands at one place in every frame (the wearer standing) stands in
    /// open air: the frame sees through it to the wall behind, and it never becomes a map
    /// point; a box at the same distance does. A passer-by who was mapped while standing
    /// is cleared once the cameras see the wall where they stood.
    #[test]
    fn what_the_cameras_see_through_is_not_mapped() {
        let wall = |x: f32| -> Vec<[f32; 3]> {
            (0..60)
                .flat_map(|i| (0..30).map(move |k| [x, -1.2 + 0.04 * i as f32, 0.05 * k as f32]))
                .collect()
        };
        let patch = |x: f32, y: f32| -> Vec<[f32; 3]> {
            (0..8)
                .flat_map(|i| (0..10).map(move |k| [x, y + 0.03 * i as f32, 0.2 + 0.05 * k as f32]))
                .collect()
        };
        let floor: Vec<[f32; 3]> = (0..56)
            .flat_map(|i| (0..25).map(move |k| [0.5 + 0.1 * i as f32, -1.2 + 0.1 * k as f32, 0.0]))
            .collect();
        let origin = [0.0, 0.0, 1.6];
        let s = 1_000_000_000i64;
        let mut m = LiveMap::new(LiveMapConfig::default());
        for f in 0..10 {
            let mut pts = wall(6.0);
            pts.extend(floor.iter().copied());
            pts.push([2.0, 0.3, 1.2]); // the mismatch, every frame
            pts.extend(patch(2.5, -0.6)); // a box
            if f < 5 {
                pts.extend(patch(3.0, 0.6)); // someone standing, then gone
            }
            m.see_through(origin, &pts, GEN1_FB);
            m.insert(s + f * 100_000_000, origin, &pts);
            let snap = m.snapshot();
            let now = s + f * 100_000_000;
            assert_eq!(near3(&snap, [2.0, 0.3, 1.2], now), 0, "frame {f}");
            if f >= 2 {
                assert!(near3(&snap, [2.5, -0.5, 0.45], now) >= 5, "frame {f}");
            }
            if (2..5).contains(&f) {
                assert!(near3(&snap, [3.0, 0.7, 0.45], now) >= 5, "frame {f}");
            }
        }
        let end = s + 9 * 100_000_000;
        assert_eq!(near3(&m.snapshot(), [3.0, 0.7, 0.45], end), 0);
        assert!(m.stats().seen_through > 0);
        // Without the free-space test the mismatch would have been mapped.
        let mut plain = LiveMap::new(LiveMapConfig::default());
        for f in 0..10 {
            plain.insert(s + f * 100_000_000, origin, &[[2.0, 0.3, 1.2]]);
        }
        assert_eq!(near3(&plain.snapshot(), [2.0, 0.3, 1.2], end), 1);
    }

    /// What is far behind is forgotten, and the cap holds the most recently seen.
    #[test]
    fn memory_is_bounded_by_distance_and_count() {
        let cfg = LiveMapConfig {
            voxel_m: 0.1,
            radius_m: 5.0,
            max_voxels: 100,
            min_frames: 2,
            ..LiveMapConfig::default()
        };
        let mut m = LiveMap::new(cfg);
        // Walking along x for 100 m, 50 new voxels per frame around the wearer.
        for f in 0..200i64 {
            let x = f as f32 * 0.5;
            let pts: Vec<[f32; 3]> = (0..50).map(|k| [x + 1.0, k as f32 * 0.1, 1.0]).collect();
            m.insert(f * 100_000_000, [x, 0.0, 1.6], &pts);
            assert!(m.stats().voxels <= 100);
        }
        let st = m.stats();
        assert!(st.evicted_far > 0 && st.evicted_cap > 0, "{st:?}");
        // The newest frame's voxels are all there.
        let mut m2 = m.clone();
        m2.insert(200 * 100_000_000, [100.0, 0.0, 1.6], &[[101.0, 0.0, 1.0]]);
        let snap = m2.snapshot();
        assert!(count_near(&snap, 100.5, 2.0, 200 * 100_000_000) <= 100);
        // Non-finite points are skipped and counted.
        m.insert(1, [0.0; 3], &[[f32::NAN, 0.0, 0.0]]);
        assert_eq!(m.stats().skipped, 1);
    }
}
