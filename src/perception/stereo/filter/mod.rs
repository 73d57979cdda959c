//! Filters between stereo depth and perception: which world points of a depth frame the
//! corridor analysis may see. Unfiltered, stereo depth raised phantom hazard alerts (floor
//! texture, the wearer's hands, mismatches that flicker from frame to frame, noise around
//! walls the static map already holds); filtered, it adds what it is for — people and
//! other things the static map lacks.
//!
//! * [`band`]: range and height band (no hands, floor or ceiling).
//! * [`explained`]: points the static map already explains are dropped.
//! * [`persist`]: only dense patches that persist (or move at walking speed) across
//!   frames are kept.
//!
//! [`DepthFilter`] chains them, in that order, and counts what each removed.

pub mod band;
pub mod explained;
pub mod persist;

use serde::Serialize;

use crate::perception::points::PointMap;
use crate::time::DeviceTime;

pub use band::{band_verdict, BandConfig, BandVerdict};
pub use explained::{depth_tolerance_m, explained, explained_along_ray, VoxelSet};
pub use persist::{PersistConfig, Persistence};

/// The Gen1 SLAM pair as [`super::StereoConfig::default`] rectifies it: 180 px focal
/// length, 0.138 m baseline.
pub const GEN1_SLAM_FOCAL_BASELINE_PX_M: f32 = 24.8;

/// Settings of the whole filter.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DepthFilterConfig {
    /// Range and height band.
    pub band: BandConfig,
    /// Cell of the static map's voxel set, m.
    pub map_cell_m: f32,
    /// A map point within this many cells (each axis) explains a stereo point.
    pub map_reach: i32,
    /// Map points count only once known this long before the depth frame, ns (the
    /// semi-dense map also holds moving people where they were; those are not "static").
    pub map_min_age_ns: i64,
    /// Map points are looked at within this horizontal radius of the cameras, m.
    pub map_radius_m: f32,
    /// Disparity error, px, whose depth error along the viewing ray a map surface may
    /// still explain a stereo point across (see [`explained_along_ray`]; 0: the fixed
    /// reach only).
    pub map_disparity_err_px: f32,
    /// The stereo pair's rectified focal length, px, times its baseline, m.
    pub focal_baseline_px_m: f32,
    /// Temporal consistency.
    pub persist: PersistConfig,
}

impl Default for DepthFilterConfig {
    fn default() -> Self {
        Self {
            band: BandConfig::default(),
            map_cell_m: 0.15,
            map_reach: 1,
            map_min_age_ns: 1_000_000_000,
            map_radius_m: 9.0,
            map_disparity_err_px: 1.0,
            focal_baseline_px_m: GEN1_SLAM_FOCAL_BASELINE_PX_M,
            persist: PersistConfig::default(),
        }
    }
}

impl DepthFilterConfig {
    /// Keeps every finite point (for diagnostics and A/B runs: the unfiltered input).
    pub fn passthrough() -> Self {
        Self {
            band: BandConfig {
                min_range_m: 0.0,
                min_height_m: f32::NEG_INFINITY,
                max_height_m: f32::INFINITY,
            },
            map_reach: -1,
            persist: PersistConfig {
                min_support: 0,
                min_points: 0,
                ..PersistConfig::default()
            },
            ..Self::default()
        }
    }
}

/// What the filter removed, by reason (points).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct DepthFilterStats {
    /// Frames filtered.
    pub frames: u64,
    /// Points offered.
    pub input: u64,
    /// Non-finite.
    pub invalid: u64,
    /// Closer than the band's range (hands, body, near mismatches).
    pub near: u64,
    /// At floor level.
    pub floor: u64,
    /// Above the band.
    pub ceiling: u64,
    /// On something the static map holds.
    pub explained: u64,
    /// Sparse or not persistent.
    pub transient: u64,
    /// Kept.
    pub kept: u64,
    /// Dropped unfiltered: no pose to place the cameras.
    pub unplaced: u64,
}

/// The chained filters; see the module documentation.
#[derive(Debug, Clone)]
pub struct DepthFilter {
    cfg: DepthFilterConfig,
    persist: Persistence,
    map_voxels: VoxelSet,
    scratch: Vec<[f32; 3]>,
    stats: DepthFilterStats,
}

impl Default for DepthFilter {
    fn default() -> Self {
        Self::new(DepthFilterConfig::default())
    }
}

impl DepthFilter {
    /// A filter with `cfg`.
    pub fn new(cfg: DepthFilterConfig) -> Self {
        Self {
            persist: Persistence::new(cfg.persist),
            map_voxels: VoxelSet::new(cfg.map_cell_m),
            scratch: Vec::new(),
            cfg,
            stats: DepthFilterStats::default(),
        }
    }

    /// The settings.
    pub fn config(&self) -> &DepthFilterConfig {
        &self.cfg
    }

    /// Counts so far.
    pub fn stats(&self) -> DepthFilterStats {
        self.stats
    }

    /// Counts a frame of `n` points that could not be filtered (no camera position).
    pub fn count_unplaced(&mut self, n: usize) {
        self.stats.frames += 1;
        self.stats.input += n as u64;
        self.stats.unplaced += n as u64;
    }

    /// The points of one depth frame (world, m) captured at `capture_ns` with the
    /// cameras at `origin` (world, m) over a floor at `floor_z_m`, that perception should
    /// see, given the static `map` (when there is one).
    pub fn apply(
        &mut self,
        capture_ns: i64,
        origin: [f32; 3],
        floor_z_m: f32,
        map: Option<&PointMap>,
        points: &[[f32; 3]],
    ) -> Vec<[f32; 3]> {
        let st = &mut self.stats;
        st.frames += 1;
        st.input += points.len() as u64;
        self.map_voxels.clear();
        if let (Some(m), true) = (map, self.cfg.map_reach >= 0) {
            let known = DeviceTime(capture_ns.saturating_sub(self.cfg.map_min_age_ns));
            let vox = &mut self.map_voxels;
            m.for_each_near(origin[0], origin[1], self.cfg.map_radius_m, known, |mp| {
                vox.insert(&mp.p)
            });
        }
        self.scratch.clear();
        for p in points {
            match band_verdict(p, &origin, floor_z_m, &self.cfg.band) {
                BandVerdict::Kept => {}
                BandVerdict::Near => {
                    st.near += 1;
                    continue;
                }
                BandVerdict::Floor => {
                    st.floor += 1;
                    continue;
                }
                BandVerdict::Ceiling => {
                    st.ceiling += 1;
                    continue;
                }
                BandVerdict::Invalid => {
                    st.invalid += 1;
                    continue;
                }
            }
            let range = {
                let d = [p[0] - origin[0], p[1] - origin[1], p[2] - origin[2]];
                (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt()
            };
            let tol = depth_tolerance_m(
                range,
                self.cfg.map_disparity_err_px,
                self.cfg.focal_baseline_px_m,
            );
            if self.cfg.map_reach >= 0
                && explained_along_ray(p, &origin, &self.map_voxels, self.cfg.map_reach, tol)
            {
                st.explained += 1;
                continue;
            }
            self.scratch.push(*p);
        }
        let mut out = Vec::with_capacity(self.scratch.len());
        let kept = self.persist.filter(capture_ns, &self.scratch, &mut out);
        st.transient += (self.scratch.len() - kept) as u64;
        st.kept += kept as u64;
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::perception::points::MapPoint;

    #[test]
    fn a_person_passes_and_the_rest_is_counted_out() {
        // A mapped wall at x = 5 m, known from the start.
        let mut wall = Vec::new();
        for j in 0..30 {
            for k in 0..12 {
                wall.push(MapPoint {
                    p: [5.0, -3.0 + 0.2 * j as f32, 0.2 * k as f32],
                    first_seen_ns: i64::MIN,
                });
            }
        }
        let map = PointMap::new(wall, true);
        let mut f = DepthFilter::default();
        let origin = [0.0, 0.0, 1.6];
        let frame = |t: i64, person_y: f32| {
            let mut pts = Vec::new();
            for i in 0..60 {
                let z = 0.1 + 1.6 * i as f32 / 60.0;
                // The person 2.5 m ahead (their feet are floor-level points).
                pts.push([2.5 + 0.001 * i as f32, person_y + 0.003 * i as f32, z]);
                // The wall with depth noise.
                pts.push([
                    5.0 + if i % 2 == 0 { 0.07 } else { -0.07 },
                    0.01 * i as f32,
                    z,
                ]);
            }
            // A hand, the floor, the ceiling.
            pts.extend([[0.3, 0.0, 1.2], [1.5, 0.2, 0.02], [2.0, 0.0, 2.7]]);
            // A lone mismatch that moves each frame.
            for k in 0..8 {
                pts.push([1.0 + t as f32 * 1e-9 * 7.0, -1.0, 0.5 + 0.1 * k as f32]);
            }
            pts
        };
        let first = f.apply(0, origin, 0.0, Some(&map), &frame(0, 0.0));
        assert!(first.is_empty(), "nothing has support yet");
        let second = f.apply(
            200_000_000,
            origin,
            0.0,
            Some(&map),
            &frame(200_000_000, 0.2),
        );
        // Only the person's points in the band remain.
        assert!(!second.is_empty());
        assert!(
            second
                .iter()
                .all(|p| (p[0] - 2.5).abs() < 0.1 && p[2] >= 0.25),
            "{second:?}"
        );
        let s = f.stats();
        assert_eq!(s.frames, 2);
        assert_eq!(s.near, 2);
        assert_eq!(s.ceiling, 2);
        // Per frame: the person's and the wall's six lowest points and the floor point.
        assert_eq!(s.floor, 2 * 13, "{s:?}");
        assert_eq!(s.explained, 2 * (60 - 6), "{s:?}");
        assert_eq!(s.kept as usize, second.len());
        assert_eq!(
            s.input,
            s.unplaced
                + s.invalid
                + s.near
                + s.floor
                + s.ceiling
                + s.explained
                + s.transient
                + s.kept
        );
    }

    #[test]
    fn a_mapped_obstacle_seen_short_by_far_stereo_is_no_new_obstacle() {
        // A trolley's front face at x = 4.7 m in the map, known from the start.
        let mut face = Vec::new();
        for j in 0..6 {
            for k in 0..8 {
                face.push(MapPoint {
                    p: [4.7, -0.1 + 0.1 * j as f32, 0.2 + 0.1 * k as f32],
                    first_seen_ns: i64::MIN,
                });
            }
        }
        let map = PointMap::new(face, true);
        let origin = [0.6, 0.1, 1.6];
        // Stereo sees the face 4.1 m away and, in two frames running, 0.6 m short of
        // it (under one pixel of disparity at that range): a dense, persistent patch
        // that the fixed reach alone would let through as a phantom obstacle in front of
        // the trolley.
        let frame: Vec<[f32; 3]> = (0..40)
            .map(|i| [4.1, -0.05 + 0.005 * i as f32, 0.3 + 0.015 * i as f32])
            .collect();
        let mut reach_only = DepthFilter::new(DepthFilterConfig {
            map_disparity_err_px: 0.0,
            ..DepthFilterConfig::default()
        });
        reach_only.apply(0, origin, 0.0, Some(&map), &frame);
        let leaked = reach_only.apply(200_000_000, origin, 0.0, Some(&map), &frame);
        assert!(!leaked.is_empty(), "the case needs the ray");
        let mut f = DepthFilter::default();
        f.apply(0, origin, 0.0, Some(&map), &frame);
        let kept = f.apply(200_000_000, origin, 0.0, Some(&map), &frame);
        assert!(kept.is_empty(), "{kept:?}");
        assert_eq!(f.stats().explained, 80);
    }
}
