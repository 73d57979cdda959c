//! Placing a moving region on the ground (pure): a thing that moves on the ground touches
//! it at the region's lowest point (in the world, not the image: the head rolls and the
//! SLAM cameras are turned), so the ray through that pixel, met with the floor plane, says
//! where it is; its top and its extent across the view, at that distance, say how tall and
//! wide it is. At 20 m the floor is 4.6° below the eyes and one coarse pixel (~1°) is
//! ~4 m of range; at 10 m, ~1 m.

use nalgebra::{Isometry3, Point3, Vector3};

use super::blobs::Blob;
use super::coarse::RayGrid;

/// Placement limits.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlaceConfig {
    /// The lowest ray must point at least this far below the horizon, degrees (nearer the
    /// horizon the range is too uncertain).
    pub min_depression_deg: f64,
    /// Nearer than this is left to stereo depth (and is where the wearer's hands are), m.
    pub min_range_m: f64,
    /// Farther than this is not placed, m.
    pub max_range_m: f64,
}

impl Default for PlaceConfig {
    fn default() -> Self {
        Self {
            min_depression_deg: 1.0,
            min_range_m: 2.0,
            max_range_m: 40.0,
        }
    }
}

/// One moving region placed on the ground, seen by one camera at one time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sighting {
    /// Capture time of the frame, device ns.
    pub capture_ns: i64,
    /// Which camera (0 left, 1 right).
    pub camera: u8,
    /// Where its lowest point meets the floor (world, m).
    pub ground_m: [f64; 2],
    /// Horizontal distance from the camera, m.
    pub range_m: f64,
    /// Its top above the floor at that distance, m.
    pub height_m: f64,
    /// Its extent across the view at that distance, m.
    pub width_m: f64,
    /// Coarse pixels.
    pub pixels: usize,
    /// Where the camera was (world, m).
    pub origin_m: [f64; 2],
    /// The region's extent in azimuth (world, radians counter-clockwise from +x),
    /// `[first, last]` going counter-clockwise (`last` may exceed π).
    pub azimuth_rad: [f64; 2],
}

/// Places `blob` of a frame from the camera at `t_world_camera`, with the floor at
/// `floor_z_m` (world); `None` when its lowest ray does not meet the floor within the
/// limits.
pub fn place(
    blob: &Blob,
    grid: &RayGrid,
    t_world_camera: &Isometry3<f64>,
    floor_z_m: f64,
    capture_ns: i64,
    camera: u8,
    cfg: &PlaceConfig,
) -> Option<Sighting> {
    let o = t_world_camera * Point3::origin();
    let rays: Vec<Vector3<f64>> = blob
        .members
        .iter()
        .filter_map(|&i| {
            let (x, y) = (i % grid.width, i / grid.width);
            grid.ray(x, y).map(|r| t_world_camera.rotation * r)
        })
        .collect();
    let elevation = |d: &Vector3<f64>| d.z.atan2(d.x.hypot(d.y));
    let low = rays
        .iter()
        .min_by(|a, b| elevation(a).total_cmp(&elevation(b)))?;
    let depression = -elevation(low);
    if !depression.is_finite() || depression < cfg.min_depression_deg.to_radians() {
        return None;
    }
    let drop = o.z - floor_z_m;
    if !(drop.is_finite() && drop > 0.0) {
        return None;
    }
    let range = drop / depression.tan();
    if !(range >= cfg.min_range_m && range <= cfg.max_range_m) {
        return None;
    }
    let horiz = low.x.hypot(low.y);
    let ground = [o.x + low.x / horiz * range, o.y + low.y / horiz * range];
    let top = rays.iter().map(elevation).fold(f64::NEG_INFINITY, f64::max);
    let height = drop + range * top.tan();
    let az = |d: &Vector3<f64>| d.y.atan2(d.x);
    let centre = az(low);
    let (mut lo, mut hi) = (0.0f64, 0.0f64);
    for d in &rays {
        let a = (az(d) - centre + std::f64::consts::PI).rem_euclid(std::f64::consts::TAU)
            - std::f64::consts::PI;
        lo = lo.min(a);
        hi = hi.max(a);
    }
    Some(Sighting {
        capture_ns,
        camera,
        ground_m: ground,
        range_m: range,
        height_m: height,
        width_m: (hi - lo) * range,
        pixels: blob.members.len(),
        origin_m: [o.x, o.y],
        azimuth_rad: [centre + lo, centre + hi],
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{Translation3, UnitQuaternion};

    /// A 3 × 3 grid of rays of a camera looking along world +x (camera z forward, x right
    /// = world −y, y down = world −z), 1° apart, centred 5° below the horizon.
    fn grid_and_pose() -> (RayGrid, Isometry3<f64>) {
        let mut rays = Vec::new();
        for y in 0..3 {
            for x in 0..3 {
                let el = (-5.0 - (f64::from(y) - 1.0)).to_radians();
                let az = ((f64::from(x) - 1.0) * 1.0f64).to_radians();
                // Camera frame: z forward, x right, y down.
                let d = Vector3::new(az.sin() * el.cos(), -el.sin(), az.cos() * el.cos());
                rays.push(Some(d.normalize()));
            }
        }
        let grid = RayGrid {
            width: 3,
            height: 3,
            k: 1,
            rays,
        };
        // Camera → world: z → +x, x → −y, y → −z; 1.6 m above the floor at (10, 0).
        let r = nalgebra::Rotation3::from_matrix_unchecked(nalgebra::Matrix3::new(
            0.0, 0.0, 1.0, //
            -1.0, 0.0, 0.0, //
            0.0, -1.0, 0.0,
        ));
        let pose = Isometry3::from_parts(
            Translation3::new(10.0, 0.0, 1.6),
            UnitQuaternion::from_rotation_matrix(&r),
        );
        (grid, pose)
    }

    #[test]
    fn the_lowest_ray_meets_the_floor_and_sizes_follow() {
        let (grid, pose) = grid_and_pose();
        let blob = Blob {
            pixels: 9,
            x0: 0,
            x1: 2,
            y0: 0,
            y1: 2,
            members: (0..9).collect(),
        };
        let s = place(&blob, &grid, &pose, 0.0, 7, 0, &PlaceConfig::default()).unwrap();
        // Lowest ray: 6° down (bottom row, middle or side: the sides are a hair higher).
        let want = 1.6 / 6f64.to_radians().tan();
        assert!((s.range_m - want).abs() < 0.05 * want, "{s:?}");
        assert!((s.ground_m[0] - (10.0 + s.range_m)).abs() < 0.2, "{s:?}");
        assert!(s.ground_m[1].abs() < 0.3, "{s:?}");
        // Top: 4° down at that range.
        let top = 1.6 - want * 4f64.to_radians().tan();
        assert!((s.height_m - top).abs() < 0.05, "{s:?} {top}");
        // 2° across.
        assert!((s.width_m - want * 2f64.to_radians()).abs() < 0.05, "{s:?}");
        assert_eq!((s.capture_ns, s.pixels), (7, 9));
        assert_eq!(s.origin_m, [10.0, 0.0]);
        let [a0, a1] = s.azimuth_rad;
        assert!(
            (a0 + 1f64.to_radians()).abs() < 1e-3 && (a1 - 1f64.to_radians()).abs() < 1e-3,
            "{a0} {a1}"
        );
    }

    #[test]
    fn above_the_horizon_or_out_of_range_is_not_placed() {
        let (grid, pose) = grid_and_pose();
        let blob = Blob {
            pixels: 1,
            x0: 1,
            x1: 1,
            y0: 0,
            y1: 0,
            members: vec![1],
        };
        // 4° down from 1.6 m: 22.9 m; beyond a 20 m limit.
        let cfg = PlaceConfig {
            max_range_m: 20.0,
            ..PlaceConfig::default()
        };
        assert!(place(&blob, &grid, &pose, 0.0, 0, 0, &cfg).is_none());
        // The floor above the camera: nothing.
        assert!(place(&blob, &grid, &pose, 2.0, 0, 0, &PlaceConfig::default()).is_none());
        // Looking up: the pose pitched 10° up puts every ray above the horizon.
        let up = Isometry3::from_parts(
            pose.translation,
            UnitQuaternion::from_axis_angle(&Vector3::y_axis(), (-10f64).to_radians())
                * pose.rotation,
        );
        assert!(place(&blob, &grid, &up, 0.0, 0, 0, &PlaceConfig::default()).is_none());
    }
}
