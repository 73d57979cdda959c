//! [`StereoOdometry`]: the device's position from the two SLAM cameras (pure, synchronous),
//! with the orientation given by the IMU's attitude filter. Each pair is rectified (the
//! stereo stage's [`Rectification`]); features — corners of the left image, each with a
//! depth from the right image and so a point in the world — are tracked into the next left
//! image (pyramidal Lucas–Kanade, starting where the predicted pose projects their point),
//! and the position that most of them agree with is solved ([`super::translation`]).
//! Tracked features refine their world point with each new stereo depth (weighted by the
//! depth's precision); cells of the image without a feature get new ones. Fewer agreeing
//! features than [`OdometryConfig::min_inliers`] lose the track: the features are dropped
//! and the next pair starts again from the predicted position (the caller's dead
//! reckoning), so a lost track never gives a confident wrong position.

use nalgebra::{UnitQuaternion, Vector3};
use serde::Serialize;

use super::corners::{self, CornerConfig};
use super::image::{Grey, Pyramid};
use super::klt::{self, KltConfig};
use super::stereo_match::{self, MatchConfig};
use super::translation::{self, CameraFrame, Sighting, SolveConfig};
use crate::perception::stereo::{Rectification, StereoGeometry};

/// Settings of the odometry.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OdometryConfig {
    /// Corner detection.
    pub corners: CornerConfig,
    /// Frame-to-frame tracking.
    pub klt: KltConfig,
    /// Left/right matching of a feature.
    pub stereo: MatchConfig,
    /// The position solve.
    pub solve: SolveConfig,
    /// Pyramid levels (the first is the image).
    pub pyramid_levels: usize,
    /// Features kept at most.
    pub max_features: usize,
    /// Agreeing features needed for a position.
    pub min_inliers: usize,
    /// Features nearer than this are not made (too close to match), m.
    pub min_depth_m: f64,
    /// Features farther than this are not made (their depth says little), m.
    pub max_depth_m: f64,
}

impl Default for OdometryConfig {
    /// Three pyramid levels, 160 features, 8 agreeing, features 0.4–12 m away.
    fn default() -> Self {
        Self {
            corners: CornerConfig::default(),
            klt: KltConfig::default(),
            stereo: MatchConfig::default(),
            solve: SolveConfig::default(),
            pyramid_levels: 3,
            max_features: 160,
            min_inliers: 8,
            min_depth_m: 0.4,
            max_depth_m: 12.0,
        }
    }
}

/// What one pair gave.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// A position, with how many features agreed and how many were tracked.
    Fixed {
        /// Device origin, world frame, m.
        t_world: Vector3<f64>,
        /// Features that agreed.
        inliers: usize,
        /// Features tracked into this pair.
        tracked: usize,
    },
    /// No previous features to track (the first pair, or the one after a loss): the
    /// features of this pair were placed at the predicted position.
    Started {
        /// Features made.
        features: usize,
    },
    /// Too few features agreed on a position: the track is lost.
    Lost {
        /// Features tracked into this pair.
        tracked: usize,
    },
}

/// Counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct OdometryStats {
    /// Pairs given.
    pub pairs: u64,
    /// Pairs that gave a position.
    pub fixed: u64,
    /// Pairs that started a track.
    pub started: u64,
    /// Pairs on which the track was lost.
    pub lost: u64,
    /// Features tracked, summed over the pairs.
    pub tracked: u64,
    /// Features that agreed, summed over the fixed pairs.
    pub inliers: u64,
    /// Features made.
    pub made: u64,
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct Feature {
    xy: [f32; 2],
    x_world: Vector3<f64>,
    /// Sum of the precisions of the depths averaged into `x_world`, 1/m².
    weight: f64,
}

/// The odometry.
#[derive(Debug, Clone)]
pub struct StereoOdometry {
    cfg: OdometryConfig,
    rect: Rectification,
    left_valid: Vec<bool>,
    rect_left: Vec<u8>,
    rect_right: Vec<u8>,
    prev: Option<Pyramid>,
    features: Vec<Feature>,
    stats: OdometryStats,
}

impl StereoOdometry {
    /// Over a rectified pair.
    pub fn new(rect: Rectification, cfg: OdometryConfig) -> Self {
        let left_valid = rect.left_map.valid_mask();
        Self {
            cfg,
            rect,
            left_valid,
            rect_left: Vec::new(),
            rect_right: Vec::new(),
            prev: None,
            features: Vec::new(),
            stats: OdometryStats::default(),
        }
    }

    /// The counters so far.
    pub fn stats(&self) -> OdometryStats {
        self.stats
    }

    /// The raw image sizes the pair must have, `((left w, h), (right w, h))`, px.
    pub fn source_size(&self) -> ((u32, u32), (u32, u32)) {
        (
            self.rect.left_map.source_size(),
            self.rect.right_map.source_size(),
        )
    }

    /// The rectified pair's geometry.
    pub fn geometry(&self) -> &StereoGeometry {
        &self.rect.geometry
    }

    /// The camera frame for the solver at attitude `r_world_device`.
    fn camera(&self, r_world_device: &UnitQuaternion<f64>) -> CameraFrame {
        let g = &self.rect.geometry;
        let r_rect_device = g.r_device_rect.inverse();
        CameraFrame {
            m: r_rect_device.matrix() * r_world_device.inverse().to_rotation_matrix().matrix(),
            c: r_rect_device * g.left_centre_m,
        }
    }

    fn project(&self, q: &Vector3<f64>) -> Option<[f32; 2]> {
        let g = &self.rect.geometry;
        (q.z > 0.05).then(|| {
            [
                (g.focal_px * q.x / q.z + g.cu_px) as f32,
                (g.focal_px * q.y / q.z + g.cv_px) as f32,
            ]
        })
    }

    fn bearing(&self, xy: [f32; 2]) -> Vector3<f64> {
        let g = &self.rect.geometry;
        Vector3::new(
            (f64::from(xy[0]) - g.cu_px) / g.focal_px,
            (f64::from(xy[1]) - g.cv_px) / g.focal_px,
            1.0,
        )
        .normalize()
    }

    /// One raw (fisheye) greyscale pair at the SLAM cameras' recorded size, with the
    /// device's attitude at its capture (`R_world_device`) and the position dead reckoning
    /// predicts for it.
    pub fn track(
        &mut self,
        left_raw: &[u8],
        right_raw: &[u8],
        r_world_device: &UnitQuaternion<f64>,
        predicted: &Vector3<f64>,
    ) -> Outcome {
        self.stats.pairs += 1;
        self.rect.left_map.apply(left_raw, &mut self.rect_left);
        self.rect.right_map.apply(right_raw, &mut self.rect_right);
        let g = self.rect.geometry;
        let (w, h) = (g.width_px as usize, g.height_px as usize);
        let left = Pyramid::new(
            Grey::from_u8(w, h, &self.rect_left),
            self.cfg.pyramid_levels,
        );
        let right = Grey::from_u8(w, h, &self.rect_right);
        let cam = self.camera(r_world_device);

        let mut tracked = Vec::with_capacity(self.features.len());
        if let Some(prev) = &self.prev {
            for f in &self.features {
                let Some(guess) = self.project(&cam.in_camera(&f.x_world, predicted)) else {
                    continue;
                };
                if let Ok(xy) = klt::track(prev, &left, f.xy, guess, &self.cfg.klt) {
                    tracked.push(Feature { xy, ..*f });
                }
            }
        }
        let n_tracked = tracked.len();
        self.stats.tracked += n_tracked as u64;
        let (outcome, t_world) = if self.prev.is_none() || self.features.is_empty() {
            (Outcome::Started { features: 0 }, *predicted)
        } else {
            let sightings: Vec<Sighting> = tracked
                .iter()
                .map(|f| Sighting {
                    x_world: f.x_world,
                    bearing: self.bearing(f.xy),
                })
                .collect();
            match translation::solve(
                &cam,
                &sightings,
                predicted,
                self.cfg.min_inliers,
                &self.cfg.solve,
            ) {
                Some(sol) => {
                    let mut k = 0;
                    tracked.retain(|_| {
                        let keep = sol.inliers.get(k).copied().unwrap_or(false);
                        k += 1;
                        keep
                    });
                    (
                        Outcome::Fixed {
                            t_world: sol.t_world,
                            inliers: sol.inlier_count,
                            tracked: n_tracked,
                        },
                        sol.t_world,
                    )
                }
                None => {
                    tracked.clear();
                    (Outcome::Lost { tracked: n_tracked }, *predicted)
                }
            }
        };
        // Each kept feature's world point, refined by this pair's depth.
        let r_wd = r_world_device;
        for f in &mut tracked {
            if let Some(x) = self.stereo_point(&left.levels[0], &right, f.xy, r_wd, &t_world) {
                let (p, wn) = x;
                f.x_world = (f.x_world * f.weight + p * wn) / (f.weight + wn);
                f.weight += wn;
            }
        }
        // New features in the cells without one.
        let existing: Vec<[f32; 2]> = tracked.iter().map(|f| f.xy).collect();
        let (found, _) = corners::detect(
            &left.levels[0],
            &self.left_valid,
            &existing,
            &self.cfg.corners,
        );
        let mut made = 0;
        for c in found {
            if tracked.len() >= self.cfg.max_features {
                break;
            }
            if let Some((p, wn)) = self.stereo_point(&left.levels[0], &right, c.xy, r_wd, &t_world)
            {
                tracked.push(Feature {
                    xy: c.xy,
                    x_world: p,
                    weight: wn,
                });
                made += 1;
            }
        }
        self.stats.made += made as u64;
        self.features = tracked;
        self.prev = Some(left);
        match outcome {
            Outcome::Started { .. } => {
                self.stats.started += 1;
                Outcome::Started { features: made }
            }
            Outcome::Fixed { inliers, .. } => {
                self.stats.fixed += 1;
                self.stats.inliers += inliers as u64;
                outcome
            }
            Outcome::Lost { .. } => {
                self.stats.lost += 1;
                outcome
            }
        }
    }

    /// The world point seen at left rectified pixel `xy` (its stereo depth, placed with the
    /// pose) and its precision (1/m², from the depth's: a disparity error of 0.25 px).
    fn stereo_point(
        &self,
        left: &Grey,
        right: &Grey,
        xy: [f32; 2],
        r_world_device: &UnitQuaternion<f64>,
        t_world: &Vector3<f64>,
    ) -> Option<(Vector3<f64>, f64)> {
        let g = &self.rect.geometry;
        let d = stereo_match::disparity(left, right, xy, &self.cfg.stereo)?;
        let z = g.depth_m(f64::from(d));
        if !(self.cfg.min_depth_m..=self.cfg.max_depth_m).contains(&z) {
            return None;
        }
        let p_device = g.unproject_left(f64::from(xy[0]), f64::from(xy[1]), z);
        let p = r_world_device * p_device.coords + t_world;
        // σ_z = z² σ_d / (f B).
        let sigma = z * z * 0.25 / (g.focal_px * g.baseline_m);
        Some((p, 1.0 / (sigma * sigma).max(1e-6)))
    }
}
