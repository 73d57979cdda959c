//! Change against earlier frames, with the head's rotation taken out (pure). Every coarse
//! pixel's ray is turned into each earlier frame's camera (`R_ref_cur`, from the device
//! poses) and projected there; the pixel has changed against that frame when it differs
//! from every pixel of the 3 × 3 neighbourhood it lands in (so a sub-pixel misregistration
//! of an edge is not a change). A pixel counts as moving when it has changed against
//! *every* reference frame: with references 0.2 s and 0.4 s back, the place a thing has
//! just left (the background it reveals) matches the older reference and drops out, and
//! what remains is the thing where it is now (double differencing).
//!
//! Only rotation is compensated: a translation of the head makes near things shift by
//! parallax (5 cm at 1 m is 3°), so the caller looks for movers only while the head stays
//! put, and places what it finds in the world with the full pose.

use nalgebra::Rotation3;

use super::coarse::{coarse_of_full, CoarseImage, RayGrid};
use crate::aria::calib::CameraCalibration;

/// Change thresholds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChangeConfig {
    /// Smallest grey-level difference that is a change.
    pub min_diff: u8,
    /// Difference relative to the current pixel that is a change (for bright surfaces,
    /// where JPEG and shading noise is larger).
    pub rel_diff: f32,
    /// Rays lower than this (world elevation, degrees) are not looked at: the wearer's
    /// own body and the floor within ~1.6 m.
    pub min_elevation_deg: f64,
    /// Rays higher than this are not looked at: what moves on the ground and is worth an
    /// alert is below it from 5 m on (a 4.5 m lorry's top is 30° up at 5 m).
    pub max_elevation_deg: f64,
}

impl Default for ChangeConfig {
    fn default() -> Self {
        Self {
            min_diff: 24,
            rel_diff: 0.2,
            min_elevation_deg: -45.0,
            max_elevation_deg: 30.0,
        }
    }
}

/// One earlier frame to compare with: its image, `R_ref_cur`, the rotation from the
/// current camera frame to its camera frame, and the brightness gain from it to the
/// current frame.
#[derive(Clone, Copy, Debug)]
pub struct Reference<'a> {
    /// The earlier coarse image (same camera, same block size).
    pub image: &'a CoarseImage,
    /// Current camera frame → reference camera frame.
    pub r_ref_cur: Rotation3<f64>,
    /// Its pixels times this are the current frame's brightness (the ratio of the two
    /// frames' exposure × gain: auto-exposure changes every pixel at once; 1 when
    /// unknown).
    pub gain: f32,
}

/// The brightness gain from a frame exposed with `reference` (exposure × analogue gain)
/// to one exposed with `current`: their ratio, within 1/4…4; 1 when either is unknown
/// (zero, negative or not finite).
pub fn exposure_gain(current: f32, reference: f32) -> f32 {
    if current.is_finite() && reference.is_finite() && current > 0.0 && reference > 0.0 {
        (current / reference).clamp(0.25, 4.0)
    } else {
        1.0
    }
}

/// Counts of one [`change_mask`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ChangeCounts {
    /// Pixels with a ray that every reference sees.
    pub compared: usize,
    /// Of those, changed against every reference.
    pub changed: usize,
}

/// Lattice spacing of the warp into a reference, coarse pixels.
pub const WARP_LATTICE: usize = 8;

/// Where the current frame's coarse pixels land in one reference (coarse coordinates):
/// projected exactly on a lattice every [`WARP_LATTICE`] pixels and interpolated
/// bilinearly between (a rotation's warp through the fisheye is smooth: at most 0.14 of
/// a coarse pixel off on the Gen1 SLAM calibration for turns up to 30°, which the 3 × 3
/// neighbourhood absorbs), exactly where a cell's corner does not project. One
/// projection per 64 pixels instead of one each.
struct Warp {
    lw: usize,
    lh: usize,
    pts: Vec<Option<[f64; 2]>>,
}

/// The lattice coordinate of pixel coordinate `i` of a side of length `n`: the cell and
/// the fraction into it.
#[inline]
fn cell(i: usize, n: usize) -> (usize, usize, f64) {
    let c0 = i / WARP_LATTICE;
    let x0 = c0 * WARP_LATTICE;
    let x1 = (x0 + WARP_LATTICE).min(n.saturating_sub(1));
    if x1 <= x0 {
        return (c0, c0, 0.0);
    }
    (c0, c0 + 1, (i - x0) as f64 / (x1 - x0) as f64)
}

fn project_coarse(
    camera: &CameraCalibration,
    ray_ref: &nalgebra::Vector3<f64>,
    k: usize,
) -> Option<[f64; 2]> {
    let uv = camera.project(ray_ref)?;
    Some([coarse_of_full(uv.x, k), coarse_of_full(uv.y, k)])
}

impl Warp {
    fn new(grid: &RayGrid, camera: &CameraCalibration, r_ref_cur: &Rotation3<f64>) -> Self {
        let lw = (grid.width.saturating_sub(1)).div_ceil(WARP_LATTICE) + 1;
        let lh = (grid.height.saturating_sub(1)).div_ceil(WARP_LATTICE) + 1;
        let mut pts = Vec::with_capacity(lw * lh);
        for ly in 0..lh {
            for lx in 0..lw {
                let x = (lx * WARP_LATTICE).min(grid.width.saturating_sub(1));
                let y = (ly * WARP_LATTICE).min(grid.height.saturating_sub(1));
                pts.push(
                    grid.ray(x, y)
                        .and_then(|r| project_coarse(camera, &(r_ref_cur * r), grid.k)),
                );
            }
        }
        Self { lw, lh, pts }
    }

    fn at(&self, x: usize, y: usize, grid: &RayGrid) -> Option<Option<[f64; 2]>> {
        let (x0, x1, fx) = cell(x, grid.width);
        let (y0, y1, fy) = cell(y, grid.height);
        if x1 >= self.lw || y1 >= self.lh {
            return None;
        }
        let p = |cx: usize, cy: usize| self.pts.get(cy * self.lw + cx).copied().flatten();
        let (a, b, c, d) = (p(x0, y0)?, p(x1, y0)?, p(x0, y1)?, p(x1, y1)?);
        let lerp = |i: usize| {
            let top = a[i] + (b[i] - a[i]) * fx;
            let bottom = c[i] + (d[i] - c[i]) * fx;
            top + (bottom - top) * fy
        };
        Some(Some([lerp(0), lerp(1)]))
    }
}

/// Whether `v` differs from every pixel of the 3 × 3 neighbourhood of `at` (coarse
/// coordinates) in `reference`; `None` when none of it is inside.
fn changed_at(
    v: u8,
    reference: &CoarseImage,
    gain: f32,
    at: [f64; 2],
    cfg: &ChangeConfig,
) -> Option<bool> {
    let (x, y) = (at[0].round() as isize, at[1].round() as isize);
    let mut best = u8::MAX;
    let mut seen = false;
    let unit = (gain - 1.0).abs() < 1e-3;
    for dy in -1..=1 {
        for dx in -1..=1 {
            if let Some(r) = reference.get(x + dx, y + dy) {
                seen = true;
                let r = if unit {
                    r
                } else {
                    (f32::from(r) * gain).round().clamp(0.0, 255.0) as u8
                };
                best = best.min(v.abs_diff(r));
            }
        }
    }
    if !seen {
        return None;
    }
    let limit = cfg.min_diff.max((f32::from(v) * cfg.rel_diff) as u8);
    Some(best > limit)
}

/// Marks in `mask` (resized to the grid) the coarse pixels of `current` that changed
/// against every one of `refs`; pixels without a ray, outside the band of elevations
/// (world, through `r_world_cur`, the current camera's orientation) or that a reference
/// does not see are unchanged. `camera` is the full-resolution calibration the grid was
/// made from.
pub fn change_mask(
    grid: &RayGrid,
    camera: &CameraCalibration,
    current: &CoarseImage,
    r_world_cur: &Rotation3<f64>,
    refs: &[Reference<'_>],
    cfg: &ChangeConfig,
    mask: &mut Vec<bool>,
) -> ChangeCounts {
    mask.clear();
    mask.resize(grid.width * grid.height, false);
    let mut counts = ChangeCounts::default();
    if refs.is_empty() || current.width != grid.width || current.height != grid.height {
        return counts;
    }
    let warps: Vec<Warp> = refs
        .iter()
        .map(|r| Warp::new(grid, camera, &r.r_ref_cur))
        .collect();
    let (lo, hi) = (
        cfg.min_elevation_deg.to_radians().sin(),
        cfg.max_elevation_deg.to_radians().sin(),
    );
    for y in 0..grid.height {
        for x in 0..grid.width {
            let Some(ray) = grid.ray(x, y) else {
                continue;
            };
            let up = (r_world_cur * ray).z;
            if up < lo || up > hi {
                continue;
            }
            let Some(v) = current.get(x as isize, y as isize) else {
                continue;
            };
            let mut all = true;
            let mut compared = true;
            for (r, w) in refs.iter().zip(&warps) {
                let at = match w.at(x, y, grid) {
                    Some(p) => p,
                    None => project_coarse(camera, &(r.r_ref_cur * ray), grid.k),
                };
                match at.and_then(|p| changed_at(v, r.image, r.gain, p, cfg)) {
                    Some(c) => all &= c,
                    None => {
                        compared = false;
                        break;
                    }
                }
                if !all {
                    break;
                }
            }
            if !compared {
                continue;
            }
            counts.compared += 1;
            if all {
                counts.changed += 1;
                if let Some(m) = mask.get_mut(y * grid.width + x) {
                    *m = true;
                }
            }
        }
    }
    counts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aria::calib::{CameraModel, Linear};
    use nalgebra::{Isometry3, Vector3};

    const W: u32 = 96;
    const H: u32 = 72;

    fn camera() -> CameraCalibration {
        CameraCalibration {
            label: "test".into(),
            serial_number: String::new(),
            model: CameraModel::Linear(Linear {
                fx: 60.0,
                fy: 60.0,
                cx: 47.5,
                cy: 35.5,
            }),
            t_device_camera: Isometry3::identity(),
            image_width: W,
            image_height: H,
            valid_radius_px: None,
            max_solid_angle_rad: None,
            time_offset_s: 0.0,
            readout_time_s: None,
        }
    }

    /// A camera looking along world +x (z forward, x right = −y, y down = −z), turned
    /// `yaw_deg` to the left.
    fn pose(yaw_deg: f64) -> Rotation3<f64> {
        let base = Rotation3::from_matrix_unchecked(nalgebra::Matrix3::new(
            0.0, 0.0, 1.0, //
            -1.0, 0.0, 0.0, //
            0.0, -1.0, 0.0,
        ));
        Rotation3::from_axis_angle(&Vector3::z_axis(), yaw_deg.to_radians()) * base
    }

    /// The world seen from `r_world_cam`: a smooth pattern fixed in the world, and a
    /// bright disc of 6° radius at azimuth `object_deg` on the horizon when there is one.
    fn render(r_world_cam: &Rotation3<f64>, object_deg: Option<f64>) -> Vec<u8> {
        let cam = camera();
        let mut px = Vec::with_capacity((W * H) as usize);
        for v in 0..H {
            for u in 0..W {
                let ray = cam
                    .unproject(&nalgebra::Point2::new(f64::from(u), f64::from(v)))
                    .unwrap_or_else(Vector3::z);
                let d = r_world_cam * ray.normalize();
                let az = d.y.atan2(d.x);
                let el = d.z.atan2(d.x.hypot(d.y));
                let mut g = 110.0 + 50.0 * (az * 9.0).sin() * (el * 7.0).cos();
                if let Some(o) = object_deg {
                    let od = Vector3::new(o.to_radians().cos(), o.to_radians().sin(), 0.0);
                    if d.angle(&od) < 6f64.to_radians() {
                        g = 250.0;
                    }
                }
                px.push(g as u8);
            }
        }
        px
    }

    fn coarse(px: &[u8]) -> CoarseImage {
        CoarseImage::from_grey(W as usize, H as usize, px, 2).unwrap()
    }

    fn mask_of(yaws: [f64; 3], objects: [Option<f64>; 3]) -> (Vec<bool>, ChangeCounts) {
        let cam = camera();
        let grid = RayGrid::new(&cam, 2).unwrap();
        let imgs: Vec<CoarseImage> = yaws
            .iter()
            .zip(objects)
            .map(|(y, o)| coarse(&render(&pose(*y), o)))
            .collect();
        let cur = pose(yaws[2]);
        let refs = [
            Reference {
                image: &imgs[1],
                r_ref_cur: pose(yaws[1]).inverse() * cur,
                gain: 1.0,
            },
            Reference {
                image: &imgs[0],
                r_ref_cur: pose(yaws[0]).inverse() * cur,
                gain: 1.0,
            },
        ];
        let mut mask = Vec::new();
        let counts = change_mask(
            &grid,
            &cam,
            &imgs[2],
            &cur,
            &refs,
            &ChangeConfig::default(),
            &mut mask,
        );
        (mask, counts)
    }

    #[test]
    fn the_interpolated_warp_of_the_gen1_slam_fisheye_is_within_a_fifth_of_a_pixel() {
        let rec = crate::aria::recording::AriaRecording::open(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/gen1/aria_unit_test_timecode_sequence_calib.vrs"
        ))
        .unwrap();
        let cal = crate::aria::recorded_calib::recording_calibration(&rec)
            .unwrap()
            .unwrap();
        let cam = cal.camera("camera-slam-left").unwrap();
        let grid = RayGrid::new(cam, 2).unwrap();
        let mut worst = 0.0f64;
        let mut compared = 0;
        for (axis, deg) in [
            (Vector3::y_axis(), 5.0),
            (Vector3::x_axis(), 15.0),
            (Vector3::z_axis(), 20.0),
            (Vector3::y_axis(), -30.0),
        ] {
            let r = Rotation3::from_axis_angle(&axis, f64::to_radians(deg));
            let warp = Warp::new(&grid, cam, &r);
            for y in 0..grid.height {
                for x in 0..grid.width {
                    let Some(ray) = grid.ray(x, y) else { continue };
                    let (Some(Some(a)), Some(b)) =
                        (warp.at(x, y, &grid), project_coarse(cam, &(r * ray), 2))
                    else {
                        continue;
                    };
                    compared += 1;
                    worst = worst.max((a[0] - b[0]).hypot(a[1] - b[1]));
                }
            }
        }
        assert!(compared > 100_000, "{compared}");
        assert!(worst < 0.2, "worst interpolation error {worst} coarse px");
    }

    #[test]
    fn a_longer_exposure_is_not_motion_when_the_frames_say_so() {
        let cam = camera();
        let grid = RayGrid::new(&cam, 2).unwrap();
        let r = pose(0.0);
        let dim = coarse(&render(&r, None));
        // The same view exposed 1.6× longer (within the pattern's range: no clipping).
        let bright = CoarseImage {
            pixels: dim
                .pixels
                .iter()
                .map(|&p| (f32::from(p) * 1.6).round().min(255.0) as u8)
                .collect(),
            ..dim.clone()
        };
        let run = |gain: f32| {
            let refs = [Reference {
                image: &dim,
                r_ref_cur: Rotation3::identity(),
                gain,
            }];
            let mut mask = Vec::new();
            change_mask(
                &grid,
                &cam,
                &bright,
                &r,
                &refs,
                &ChangeConfig::default(),
                &mut mask,
            )
        };
        let told = run(exposure_gain(0.008, 0.005));
        assert_eq!(told.changed, 0, "{told:?}");
        let untold = run(exposure_gain(0.0, 0.005));
        assert!(untold.changed * 2 > untold.compared, "{untold:?}");
        assert_eq!(exposure_gain(f32::NAN, 1.0), 1.0);
        assert_eq!(exposure_gain(100.0, 1.0), 4.0);
    }

    #[test]
    fn turning_the_head_over_a_still_world_changes_nothing() {
        let (mask, counts) = mask_of([-12.0, -6.0, 0.0], [None; 3]);
        assert!(counts.compared > 500, "{counts:?}");
        assert_eq!(counts.changed, 0, "{counts:?}");
        assert!(mask.iter().all(|m| !m));
    }

    #[test]
    fn a_moving_thing_shows_where_it_is_now_not_where_it_was() {
        // The head turns right while a disc moves left across the view: 10°, 0°, −10° of
        // azimuth in the world at the three times.
        let (mask, counts) = mask_of([8.0, 4.0, 0.0], [Some(-10.0), Some(0.0), Some(10.0)]);
        assert!(counts.changed > 10, "{counts:?}");
        let cam = camera();
        let grid = RayGrid::new(&cam, 2).unwrap();
        let cur = pose(0.0);
        let (mut now, mut elsewhere) = (0, 0);
        for (i, m) in mask.iter().enumerate() {
            if !m {
                continue;
            }
            let d = cur * grid.ray(i % grid.width, i / grid.width).unwrap();
            let az = d.y.atan2(d.x).to_degrees();
            if (az - 10.0).abs() <= 7.5 {
                now += 1;
            } else {
                elsewhere += 1;
            }
        }
        assert!(now > 10, "{now} {elsewhere}");
        assert_eq!(elsewhere, 0, "{now} {elsewhere}");
    }
}
