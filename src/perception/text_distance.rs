//! How far away a read text is (pure): the ray through the centre of its box, cast from the
//! RGB camera into the world, meets the first surface of the point map behind it (the sign,
//! or the wall it hangs on). Text reads have no depth of their own; this gives each one a
//! world position, from which perception places it in the user's frame (clock direction and
//! metres) at every tick.
//!
//! The surface is the nearest depth along the ray at which at least
//! [`RayHitConfig::min_support`] points lie within [`RayHitConfig::depth_band_m`] of each
//! other inside a narrow cone around the ray (a lone point in front of the sign does not
//! stop the ray); the hit is the median depth of those points.

use nalgebra::{Isometry3, Point2, Point3, Vector3};

use crate::aria::calib::CameraCalibration;
use crate::perception::PointMap;
use crate::time::DeviceTime;

/// How the ray meets the points.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayHitConfig {
    /// Points closer to the camera than this are ignored, m.
    pub min_range_m: f64,
    /// Points further along the ray than this are ignored, m.
    pub max_range_m: f64,
    /// Half-angle of the cone around the ray, degrees (a sign's box is a few degrees wide).
    pub cone_half_angle_deg: f64,
    /// The cone is never narrower than this radius, m (points near the camera).
    pub min_radius_m: f64,
    /// Points within this depth of each other form one surface, m.
    pub depth_band_m: f64,
    /// Points a surface needs.
    pub min_support: usize,
}

impl Default for RayHitConfig {
    fn default() -> Self {
        Self {
            min_range_m: 0.3,
            max_range_m: 25.0,
            cone_half_angle_deg: 1.5,
            min_radius_m: 0.1,
            depth_band_m: 0.4,
            min_support: 3,
        }
    }
}

/// Where a ray meets the points.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayHit {
    /// Depth along the ray, m.
    pub range_m: f64,
    /// The hit point, world frame, m.
    pub point: Point3<f64>,
    /// Points of the surface.
    pub support: usize,
}

/// The first surface that the ray from `origin` along `dir` (any length) meets among
/// `points`, or `None` when no surface has enough support within range.
pub fn ray_hit(
    origin: &Point3<f64>,
    dir: &Vector3<f64>,
    points: impl IntoIterator<Item = [f32; 3]>,
    cfg: &RayHitConfig,
) -> Option<RayHit> {
    let d = dir.try_normalize(1e-12)?;
    let tan = cfg.cone_half_angle_deg.to_radians().tan();
    let mut depths: Vec<f64> = points
        .into_iter()
        .filter_map(|p| {
            let v = Vector3::new(f64::from(p[0]), f64::from(p[1]), f64::from(p[2])) - origin.coords;
            let t = v.dot(&d);
            if !t.is_finite() || t < cfg.min_range_m || t > cfg.max_range_m {
                return None;
            }
            let off = (v - d * t).norm();
            (off <= (t * tan).max(cfg.min_radius_m)).then_some(t)
        })
        .collect();
    depths.sort_by(f64::total_cmp);
    let need = cfg.min_support.max(1);
    for i in 0..depths.len() {
        let first = depths[i];
        let end = depths[i..].partition_point(|&t| t <= first + cfg.depth_band_m);
        if end >= need {
            let surface = &depths[i..i + end];
            let range_m = surface[surface.len() / 2];
            return Some(RayHit {
                range_m,
                point: origin + d * range_m,
                support: surface.len(),
            });
        }
    }
    None
}

/// The world ray through pixel `px` of `camera` (recorded resolution) when the device is
/// at `t_world_device`: origin (the camera centre) and unit direction; `None` outside the
/// camera's valid image region.
pub fn pixel_ray_world(
    camera: &CameraCalibration,
    t_world_device: &Isometry3<f64>,
    px: [f32; 2],
) -> Option<(Point3<f64>, Vector3<f64>)> {
    let ray = camera.unproject(&Point2::new(f64::from(px[0]), f64::from(px[1])))?;
    let t_world_camera = t_world_device * camera.t_device_camera;
    let origin = t_world_camera * Point3::origin();
    let dir = (t_world_camera.rotation * ray).try_normalize(1e-12)?;
    Some((origin, dir))
}

/// Where the text in `rgb_box` (recorded RGB frame, `[x0, y0, x1, y1]`) is in the world:
/// the ray through the box's centre from `camera` at `t_world_device` meets the points of
/// `map` known at `at`. Only points within reach of the ray are visited.
pub fn text_hit(
    camera: &CameraCalibration,
    t_world_device: &Isometry3<f64>,
    rgb_box: [f32; 4],
    map: &PointMap,
    at: DeviceTime,
    cfg: &RayHitConfig,
) -> Option<RayHit> {
    let centre = [
        (rgb_box[0] + rgb_box[2]) * 0.5,
        (rgb_box[1] + rgb_box[3]) * 0.5,
    ];
    let (origin, dir) = pixel_ray_world(camera, t_world_device, centre)?;
    // The horizontal disc around the ray's middle that holds its whole reach.
    let far = origin + dir * cfg.max_range_m;
    let (cx, cy) = ((origin.x + far.x) * 0.5, (origin.y + far.y) * 0.5);
    let radius = (far.x - origin.x).hypot(far.y - origin.y) * 0.5 + 1.0;
    let mut points = Vec::new();
    map.for_each_near(cx as f32, cy as f32, radius as f32, at, |p| {
        points.push(p.p)
    });
    ray_hit(&origin, &dir, points, cfg)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A wall at x = `x` (the plane facing the camera at the origin looking along +x),
    /// points on a 0.1 m grid over y, z in [-1, 1].
    fn wall(x: f32) -> Vec<[f32; 3]> {
        let mut v = Vec::new();
        for i in -10..=10 {
            for j in -10..=10 {
                v.push([x, i as f32 * 0.1, j as f32 * 0.1]);
            }
        }
        v
    }

    #[test]
    fn the_ray_stops_at_the_wall_behind_the_text() {
        let o = Point3::origin();
        let hit = ray_hit(&o, &Vector3::x(), wall(6.0), &RayHitConfig::default()).unwrap();
        assert!((hit.range_m - 6.0).abs() < 1e-6, "{hit:?}");
        assert!((hit.point - Point3::new(6.0, 0.0, 0.0)).norm() < 1e-6);
        assert!(hit.support >= 1);
        // A ray 30° off the wall's normal meets it at 6 / cos 30° (the grid point nearest
        // the ray is within the cone's radius, so the depth is within a grid step).
        let d = Vector3::new(30f64.to_radians().cos(), 30f64.to_radians().sin(), 0.0);
        let mut pts = wall(6.0);
        // Densify the wall where that ray meets it (y ≈ 3.46).
        for i in 0..=40 {
            for j in -5..=5 {
                pts.push([6.0, 3.0 + i as f32 * 0.025, j as f32 * 0.025]);
            }
        }
        let hit = ray_hit(&o, &d, pts, &RayHitConfig::default()).unwrap();
        let expect = 6.0 / 30f64.to_radians().cos();
        assert!((hit.range_m - expect).abs() < 0.05, "{hit:?} vs {expect}");
    }

    #[test]
    fn the_nearest_supported_surface_wins_and_strays_do_not_stop_the_ray() {
        let o = Point3::origin();
        let mut pts = wall(9.0);
        // A single stray point at 2 m on the ray: not a surface.
        pts.push([2.0, 0.0, 0.0]);
        let hit = ray_hit(&o, &Vector3::x(), pts.clone(), &RayHitConfig::default()).unwrap();
        assert!((hit.range_m - 9.0).abs() < 1e-6, "{hit:?}");
        // A pillar of points at 4 m in front of the wall: it is what the ray meets.
        for k in 0..5 {
            pts.push([4.0 + k as f32 * 0.05, 0.02, 0.0]);
        }
        let hit = ray_hit(&o, &Vector3::x(), pts, &RayHitConfig::default()).unwrap();
        assert!((hit.range_m - 4.1).abs() < 0.06, "{hit:?}");
    }

    #[test]
    fn the_pixel_ray_passes_through_the_point_that_projects_to_it() {
        use crate::aria::calib::DeviceCalibration;
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/calibration/aria_gen1_1WM09380041283_factory.json"
        );
        let calib = DeviceCalibration::from_json_file(path).unwrap();
        let cam = calib.camera("camera-rgb").unwrap();
        // A device pose in the world: turned 40° about z, 1.6 m up, moved along x.
        let pose = Isometry3::new(
            Vector3::new(3.0, -1.0, 1.6),
            Vector3::z() * 40f64.to_radians(),
        );
        // A point 5 m in front of the camera, a little off its axis.
        let p_cam = Point3::new(0.4, -0.3, 5.0);
        let p_device = cam.t_device_camera * p_cam;
        let uv = cam.project_device(&p_device).unwrap();
        let (o, d) = pixel_ray_world(cam, &pose, [uv.x as f32, uv.y as f32]).unwrap();
        let p_world = pose * p_device;
        let v = p_world - o;
        // On the ray (to the pixel's f32 rounding), in front of the camera, at its range.
        assert!((v - d * v.dot(&d)).norm() < 2e-3, "{:?}", v - d * v.dot(&d));
        assert!((v.dot(&d) - p_cam.coords.norm()).abs() < 1e-3);
        assert!((d.norm() - 1.0).abs() < 1e-12);
        // Far outside the image: no ray.
        assert!(pixel_ray_world(cam, &pose, [-5000.0, -5000.0]).is_none());
    }

    #[test]
    fn no_surface_means_no_distance() {
        let o = Point3::origin();
        let cfg = RayHitConfig::default();
        // Nothing on the ray (the wall is behind the camera).
        assert!(ray_hit(&o, &Vector3::x(), wall(-5.0), &cfg).is_none());
        // Beyond the range.
        assert!(ray_hit(&o, &Vector3::x(), wall(40.0), &cfg).is_none());
        // Beside the ray (the wall's grid lies 2 m off it).
        let off: Vec<[f32; 3]> = wall(6.0)
            .into_iter()
            .map(|p| [p[0], p[1] + 3.5, p[2]])
            .collect();
        assert!(ray_hit(&o, &Vector3::x(), off, &cfg).is_none());
        // A zero direction.
        assert!(ray_hit(&o, &Vector3::zeros(), wall(6.0), &cfg).is_none());
        // No points.
        assert!(ray_hit(&o, &Vector3::x(), Vec::new(), &cfg).is_none());
    }
}
