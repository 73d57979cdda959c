//! Semi-dense SLAM points of a synthetic session (pure compute): on keyframes of each SLAM
//! camera, rays are cast on a [`SemidenseSpec::grid_px`] pixel grid, and a pixel becomes an
//! observation where the image has structure — a silhouette (another surface than its
//! neighbour), a depth jump, or a colour edge (text, floor checker, the surface texture's
//! detail, [`super::surface_texture`]) — plus a sparse
//! [`SemidenseSpec::sparse_px`] grid everywhere, as a semi-dense tracker keeps
//! high-gradient pixels; hits beyond [`SemidenseSpec::max_dist_m`] are not kept. Hits are
//! merged on a voxel grid into points (static surfaces
//! across frames; people, who move, per frame). Each point gets MPS-style uncertainties:
//! `inv_dist_std` drawn per point and `dist_std = inv_dist_std · d²` with `d` the closest
//! distance it was observed from. With an error model ([`super::mps_noise`], the default)
//! `inv_dist_std` follows the log-normal law of a real MPS map and the point is moved along
//! that closest observing ray by an inverse-distance error of exactly that size (1 % of
//! points: several times it, unreported); without one (`--mps-exact`) `inv_dist_std` is
//! drawn within the narrow [`SemidenseSpec::inv_dist_std`] and the point moved along its
//! first viewing ray by a normal draw of `dist_std` (millimetres). Observations keep the
//! frame timestamps at which each point was seen (for causal use) and the pixel where the
//! point projects in that camera.
//!
//! Memory is bounded by [`SemidenseSpec::max_points`] and
//! [`SemidenseSpec::max_observations`]; what is refused is counted.

use std::collections::HashMap;
use std::fmt::Write as _;

use nalgebra::{Isometry3, Point3, Vector3};

use super::mps_noise::{disturbed_distance_m, MpsErrorSpec, TrajectoryError};
use super::render::{RayTable, Scene, Surface};
use super::rng::SplitMix64;
use crate::aria::calib::CameraCalibration;

/// Header of `semidense_points.csv.gz` (MPS).
pub const POINTS_HEADER: &str = "uid,graph_uid,px_world,py_world,pz_world,inv_dist_std,dist_std";
/// Header of `semidense_observations.csv.gz` (MPS).
pub const OBSERVATIONS_HEADER: &str = "uid,frame_tracking_timestamp_us,camera_serial,u,v";

/// Sampling and noise of the semi-dense map.
#[derive(Debug, Clone, PartialEq)]
pub struct SemidenseSpec {
    /// Every how many SLAM frames a keyframe is taken.
    pub keyframe_every: usize,
    /// Pixel spacing of the edge search, px.
    pub grid_px: u32,
    /// Pixel spacing of the sparse grid kept everywhere, px (a multiple of `grid_px`).
    pub sparse_px: u32,
    /// Voxel size of point merging, m.
    pub voxel_m: f64,
    /// Farthest hit kept, m (a tracker does not triangulate far, low-parallax pixels).
    pub max_dist_m: f64,
    /// Relative depth jump between neighbours that counts as an edge.
    pub depth_jump: f64,
    /// Colour (luminance) difference between neighbours that counts as an edge, 0..=1.
    pub colour_edge: f32,
    /// Range of the per-point `inv_dist_std` without an error model (`--mps-exact`), 1/m.
    pub inv_dist_std: [f64; 2],
    /// Most points kept.
    pub max_points: usize,
    /// Most observations kept.
    pub max_observations: usize,
}

impl Default for SemidenseSpec {
    fn default() -> Self {
        Self {
            keyframe_every: 5,
            grid_px: 2,
            sparse_px: 16,
            voxel_m: 0.05,
            max_dist_m: 8.0,
            depth_jump: 0.05,
            colour_edge: 0.06,
            inv_dist_std: [0.0003, 0.0012],
            max_points: 2_000_000,
            max_observations: 8_000_000,
        }
    }
}

#[derive(Debug, Clone)]
struct MapPoint {
    true_m: Vector3<f64>,
    first_ray: Vector3<f64>,
    /// The ray from the closest observation's camera to the point (unit, world).
    closest_ray: Vector3<f64>,
    /// The point's distance from that camera, m.
    closest_dist_m: f64,
    /// When that closest observation was made, ns.
    closest_t_ns: i64,
    min_dist_m: f64,
    last_frame: u64,
    /// The surface first hit (for tests and statistics).
    surface: Surface,
}

/// One grid ray's hit: distance m, surface, luminance, world ray.
type GridHit = (f64, Surface, f32, Vector3<f64>);

#[derive(Debug, Clone)]
struct Observation {
    point: u32,
    t_us: i64,
    camera: u8,
    uv: [f32; 2],
}

/// A point of the finished map.
#[derive(Debug, Clone, PartialEq)]
pub struct FinishedPoint {
    /// Point id.
    pub uid: u64,
    /// Noisy position, m (world).
    pub position_m: Vector3<f64>,
    /// The true surface position it samples, m.
    pub true_m: Vector3<f64>,
    /// Standard deviation of the inverse distance, 1/m.
    pub inv_dist_std: f64,
    /// Standard deviation of the distance, m.
    pub dist_std: f64,
    /// The surface it lies on.
    pub surface: Surface,
    /// Whether its error is an outlier's (larger than `inv_dist_std` says).
    pub outlier: bool,
}

/// How the map's frame differs from the world: the session's trajectory error, the true
/// device position (world, m) at a device time (ns), and the session's start (ns).
pub struct MapFrame<'a> {
    /// The trajectory error of the session.
    pub error: &'a TrajectoryError,
    /// The true device position at a device time, m.
    pub device_at: &'a dyn Fn(i64) -> Vector3<f64>,
    /// Device time of the session's start (time 0 of `error`), ns.
    pub t0_ns: i64,
}

/// The semi-dense map being built.
#[derive(Debug, Default)]
pub struct SemidenseMap {
    spec: SemidenseSpec,
    voxels: HashMap<(i64, i64, i64, u64), u32>,
    points: Vec<MapPoint>,
    observations: Vec<Observation>,
    cameras: Vec<String>,
    frame: u64,
    /// Points refused because the map was full.
    pub dropped_points: u64,
    /// Observations refused because the map was full.
    pub dropped_observations: u64,
    hits: Vec<Option<GridHit>>,
}

impl SemidenseMap {
    /// An empty map.
    pub fn new(spec: SemidenseSpec) -> Self {
        Self {
            spec,
            ..Self::default()
        }
    }

    /// The sampling specification.
    pub fn spec(&self) -> &SemidenseSpec {
        &self.spec
    }

    /// Adds the observations of one keyframe of camera `cam` (its serial names it in the
    /// observations file) at `t_ns`, seen from `t_world_camera`.
    pub fn observe(
        &mut self,
        scene: &Scene,
        cam: &CameraCalibration,
        rays: &RayTable,
        t_world_camera: &Isometry3<f64>,
        t_ns: i64,
    ) {
        self.frame += 1;
        let camera = match self.cameras.iter().position(|c| *c == cam.serial_number) {
            Some(i) => i,
            None => {
                self.cameras.push(cam.serial_number.clone());
                self.cameras.len() - 1
            }
        } as u8;
        let g = self.spec.grid_px.max(1);
        let (gw, gh) = (rays.width.div_ceil(g), rays.height.div_ceil(g));
        let o = (t_world_camera * Point3::origin()).coords;
        let rot = t_world_camera.rotation;
        let view = scene.view(&o);
        let mut hits = std::mem::take(&mut self.hits);
        hits.clear();
        for gy in 0..gh {
            for gx in 0..gw {
                let hit = rays.ray(gx * g, gy * g).and_then(|r| {
                    let d = rot * r;
                    view.hit(&d).map(|h| {
                        // What the camera sees: the surface texture's detail is structure
                        // a semi-dense tracker keeps.
                        let h = view.textured(h, &d, rays.px_angle_rad);
                        let lum = 0.299 * h.rgb[0] + 0.587 * h.rgb[1] + 0.114 * h.rgb[2];
                        (h.t_m, h.surface, lum, d)
                    })
                });
                hits.push(hit);
            }
        }
        let sparse = (self.spec.sparse_px / g).max(1);
        let t_camera_world = t_world_camera.inverse();
        for gy in 0..gh {
            for gx in 0..gw {
                let i = (gy * gw + gx) as usize;
                let Some(Some((t, surface, lum, d))) = hits.get(i).copied() else {
                    continue;
                };
                let differs = |j: Option<usize>| match j.and_then(|j| hits.get(j)) {
                    Some(Some((t2, s2, l2, _))) => {
                        *s2 != surface
                            || (t2 - t).abs() > self.spec.depth_jump * t
                            || (l2 - lum).abs() > self.spec.colour_edge
                    }
                    // Next to sky or outside the image: an edge.
                    Some(None) => true,
                    None => false,
                };
                let right = (gx + 1 < gw).then_some(i + 1);
                let down = (gy + 1 < gh).then_some(i + gw as usize);
                let keep = t <= self.spec.max_dist_m
                    && ((gx % sparse == 0 && gy % sparse == 0) || differs(right) || differs(down));
                if keep {
                    self.add(o + d * t, d, t, surface, camera, t_ns, cam, &t_camera_world);
                }
            }
        }
        self.hits = hits;
    }

    #[allow(clippy::too_many_arguments)]
    fn add(
        &mut self,
        p: Vector3<f64>,
        d: Vector3<f64>,
        dist: f64,
        surface: Surface,
        camera: u8,
        t_ns: i64,
        cam: &CameraCalibration,
        t_camera_world: &Isometry3<f64>,
    ) {
        let v = self.spec.voxel_m;
        // Moving bodies make new points every frame.
        let epoch = if matches!(surface, Surface::Cylinder(_)) {
            self.frame
        } else {
            0
        };
        let key = (
            (p.x / v).floor() as i64,
            (p.y / v).floor() as i64,
            (p.z / v).floor() as i64,
            epoch,
        );
        let idx = match self.voxels.get(&key) {
            Some(&i) => i,
            None => {
                if self.points.len() >= self.spec.max_points {
                    self.dropped_points += 1;
                    return;
                }
                let i = self.points.len() as u32;
                self.points.push(MapPoint {
                    true_m: p,
                    first_ray: d,
                    closest_ray: d,
                    closest_dist_m: dist,
                    closest_t_ns: t_ns,
                    min_dist_m: dist,
                    last_frame: 0,
                    surface,
                });
                self.voxels.insert(key, i);
                i
            }
        };
        let Some(mp) = self.points.get_mut(idx as usize) else {
            return;
        };
        if mp.last_frame == self.frame {
            return;
        }
        mp.last_frame = self.frame;
        if dist < mp.min_dist_m {
            // The ray toward the point itself (the hit that made it may be elsewhere in
            // the voxel).
            let to_point = mp.true_m - (p - d * dist);
            mp.closest_ray = to_point.try_normalize(1e-9).unwrap_or(d);
            mp.closest_dist_m = to_point.norm();
            mp.closest_t_ns = t_ns;
        }
        mp.min_dist_m = mp.min_dist_m.min(dist);
        let Some(uv) = cam.project(&(t_camera_world * Point3::from(mp.true_m)).coords) else {
            return;
        };
        if self.observations.len() >= self.spec.max_observations {
            self.dropped_observations += 1;
            return;
        }
        self.observations.push(Observation {
            point: idx,
            t_us: t_ns.div_euclid(1000),
            camera,
            uv: [uv.x as f32, uv.y as f32],
        });
    }

    /// Number of points so far.
    pub fn len(&self) -> usize {
        self.points.len()
    }

    /// True when no point was made.
    pub fn is_empty(&self) -> bool {
        self.points.is_empty()
    }

    /// Number of observations so far.
    pub fn observation_count(&self) -> usize {
        self.observations.len()
    }

    /// The points with their uncertainties and noisy positions (uids from 0 in creation
    /// order; deterministic for `rng`), under the error model `error` or, without one, the
    /// narrow exact-geometry noise. With an error model, each point is also carried into
    /// the map frame by the trajectory's slow error at its closest observation (`map`), so
    /// points and the trajectory agree as MPS's joint estimate does.
    pub fn finish_points(
        &self,
        error: Option<&MpsErrorSpec>,
        map: Option<MapFrame<'_>>,
        rng: &mut SplitMix64,
    ) -> Vec<FinishedPoint> {
        let [lo, hi] = self.spec.inv_dist_std;
        self.points
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let (position_m, inv, d, outlier) = match error {
                    Some(spec) => {
                        let d = p.closest_dist_m;
                        let inv = spec.point_inv_dist_std(rng);
                        let (err, outlier) = spec.point_error_inv_m(inv, rng);
                        let moved = disturbed_distance_m(d, err) - d;
                        let mut q = p.true_m + p.closest_ray * moved;
                        if let Some(m) = &map {
                            let t_s = (p.closest_t_ns - m.t0_ns) as f64 * 1e-9;
                            if let Some(e) = m.error.at(t_s) {
                                q = e.map_point(&(m.device_at)(p.closest_t_ns), &q);
                            }
                        }
                        (q, inv, d, outlier)
                    }
                    None => {
                        let d = p.min_dist_m;
                        let inv = lo + (hi - lo) * rng.uniform();
                        let dist_std = inv * d * d;
                        let moved = p.first_ray * (rng.normal() * dist_std);
                        (p.true_m + moved, inv, d, false)
                    }
                };
                FinishedPoint {
                    uid: i as u64,
                    position_m,
                    true_m: p.true_m,
                    inv_dist_std: inv,
                    dist_std: inv * d * d,
                    surface: p.surface,
                    outlier,
                }
            })
            .collect()
    }

    /// `semidense_points.csv` text of `points` in map `graph_uid`.
    pub fn points_csv(points: &[FinishedPoint], graph_uid: &str) -> String {
        let mut out = String::with_capacity(points.len() * 90 + 80);
        out.push_str(POINTS_HEADER);
        out.push('\n');
        for p in points {
            let _ = writeln!(
                out,
                "{},{graph_uid},{:.6},{:.6},{:.6},{:.8},{:.8}",
                p.uid, p.position_m.x, p.position_m.y, p.position_m.z, p.inv_dist_std, p.dist_std
            );
        }
        out
    }

    /// `semidense_observations.csv` text, in observation (time) order.
    pub fn observations_csv(&self) -> String {
        let mut out = String::with_capacity(self.observations.len() * 64 + 64);
        out.push_str(OBSERVATIONS_HEADER);
        out.push('\n');
        for o in &self.observations {
            let serial = self
                .cameras
                .get(o.camera as usize)
                .map_or("", String::as_str);
            let _ = writeln!(
                out,
                "{},{},{serial},{:.3},{:.3}",
                o.point, o.t_us, o.uv[0], o.uv[1]
            );
        }
        out
    }
}
