//! Ray-cast rendering of a scenario's world through a real camera calibration (pure
//! compute): one ray per pixel from the camera model's `unproject` (precomputed once per
//! camera in a [`RayTable`]), nearest hit among the floor, walls, obstacles and signs, flat
//! Lambert shading, a checkerboard floor for texture. Greyscale, 8 bit.
//!
//! Sign text is not drawn yet (signs are plain light panels).

use nalgebra::{Isometry3, Point2, Point3, Vector3};

use super::scenario::World;
use crate::aria::calib::CameraCalibration;

/// Direction toward the light (world, z up), not normalised.
const LIGHT_DIR: [f64; 3] = [0.3, 0.5, 1.0];
/// Farthest distance rendered, m.
const FAR_M: f64 = 100.0;

/// An axis-aligned box with a grey level.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Aabb {
    /// Minimum corner, m.
    pub min_m: [f64; 3],
    /// Maximum corner, m.
    pub max_m: [f64; 3],
    /// Albedo, 0..=1.
    pub albedo: f64,
}

/// A planar rectangle `origin + a·u + b·v`, `a, b ∈ [0, 1]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Quad {
    /// Corner, m.
    pub origin_m: [f64; 3],
    /// First edge, m.
    pub u_m: [f64; 3],
    /// Second edge, m.
    pub v_m: [f64; 3],
    /// Albedo, 0..=1.
    pub albedo: f64,
}

/// Render geometry of a world.
#[derive(Debug, Clone, PartialEq)]
pub struct Scene {
    /// Floor height, m (an infinite checkerboard plane).
    pub floor_z_m: f64,
    /// Boxes.
    pub boxes: Vec<Aabb>,
    /// Rectangles (walls, signs).
    pub quads: Vec<Quad>,
}

fn v3(a: [f64; 3]) -> Vector3<f64> {
    Vector3::new(a[0], a[1], a[2])
}

impl Scene {
    /// The render geometry of `world`.
    pub fn from_world(world: &World) -> Self {
        let mut boxes = Vec::new();
        let mut quads = Vec::new();
        for o in &world.obstacles {
            let [cx, cy, z] = o.center_m;
            let [sx, sy, sz] = o.size_m;
            boxes.push(Aabb {
                min_m: [cx - sx / 2.0, cy - sy / 2.0, z],
                max_m: [cx + sx / 2.0, cy + sy / 2.0, z + sz],
                albedo: 0.45,
            });
        }
        for w in &world.walls {
            quads.push(Quad {
                origin_m: [w.from_m[0], w.from_m[1], world.floor_z_m],
                u_m: [w.to_m[0] - w.from_m[0], w.to_m[1] - w.from_m[1], 0.0],
                v_m: [0.0, 0.0, w.height_m],
                albedo: 0.7,
            });
        }
        for s in &world.signs {
            let f = s.facing_deg.to_radians();
            // Along the sign, horizontally: perpendicular to the facing direction.
            let along = [-f.sin() * s.size_m[0], f.cos() * s.size_m[0], 0.0];
            // Slightly in front of whatever it hangs on.
            let c = [
                s.center_m[0] + 0.01 * f.cos(),
                s.center_m[1] + 0.01 * f.sin(),
                s.center_m[2],
            ];
            quads.push(Quad {
                origin_m: [
                    c[0] - along[0] / 2.0,
                    c[1] - along[1] / 2.0,
                    c[2] - s.size_m[1] / 2.0,
                ],
                u_m: along,
                v_m: [0.0, 0.0, s.size_m[1]],
                albedo: 0.95,
            });
        }
        Self {
            floor_z_m: world.floor_z_m,
            boxes,
            quads,
        }
    }

    /// Nearest hit of the ray `o + t·d` (t > 0): `(t, unit normal, albedo)`.
    pub fn hit(&self, o: &Vector3<f64>, d: &Vector3<f64>) -> Option<(f64, Vector3<f64>, f64)> {
        let mut best: Option<(f64, Vector3<f64>, f64)> = None;
        let mut take = |t: f64, n: Vector3<f64>, a: f64| {
            if t > 1e-6 && t < FAR_M && best.is_none_or(|b| t < b.0) {
                best = Some((t, n, a));
            }
        };
        if d.z.abs() > 1e-12 {
            let t = (self.floor_z_m - o.z) / d.z;
            let p = o + d * t;
            let checker = ((p.x.floor() + p.y.floor()) as i64).rem_euclid(2) == 0;
            take(t, Vector3::z(), if checker { 0.55 } else { 0.35 });
        }
        for q in &self.quads {
            let (u, v) = (v3(q.u_m), v3(q.v_m));
            let n = u.cross(&v);
            let den = d.dot(&n);
            if den.abs() < 1e-12 {
                continue;
            }
            let w = v3(q.origin_m) - o;
            let t = w.dot(&n) / den;
            let rel = o + d * t - v3(q.origin_m);
            let (a, b) = (
                rel.dot(&u) / u.norm_squared(),
                rel.dot(&v) / v.norm_squared(),
            );
            if (0.0..=1.0).contains(&a) && (0.0..=1.0).contains(&b) {
                let n = n.normalize();
                take(t, if den > 0.0 { -n } else { n }, q.albedo);
            }
        }
        for bx in &self.boxes {
            let (mut t0, mut t1, mut axis) = (f64::NEG_INFINITY, f64::INFINITY, 0usize);
            let mut inside = true;
            for k in 0..3 {
                if d[k].abs() < 1e-15 {
                    if o[k] < bx.min_m[k] || o[k] > bx.max_m[k] {
                        inside = false;
                    }
                    continue;
                }
                let (a, b) = ((bx.min_m[k] - o[k]) / d[k], (bx.max_m[k] - o[k]) / d[k]);
                let (near, far) = if a < b { (a, b) } else { (b, a) };
                if near > t0 {
                    t0 = near;
                    axis = k;
                }
                t1 = t1.min(far);
            }
            if inside && t0 <= t1 && t0 > 0.0 {
                let mut n = Vector3::zeros();
                n[axis] = -d[axis].signum();
                take(t0, n, bx.albedo);
            }
        }
        best
    }
}

/// Unit rays (camera frame) of every pixel, row-major; `None` outside the valid region.
#[derive(Debug, Clone)]
pub struct RayTable {
    /// Width, pixels.
    pub width: u32,
    /// Height, pixels.
    pub height: u32,
    rays: Vec<Option<Vector3<f64>>>,
}

impl RayTable {
    /// Unprojects the centre of every pixel of `cam`.
    pub fn new(cam: &CameraCalibration) -> Self {
        let (w, h) = (cam.image_width, cam.image_height);
        let rays = (0..h)
            .flat_map(|y| (0..w).map(move |x| Point2::new(x as f64, y as f64)))
            .map(|uv| {
                if !cam.is_visible(&uv) {
                    return None;
                }
                cam.unproject(&uv).map(|r| r.normalize())
            })
            .collect();
        Self {
            width: w,
            height: h,
            rays,
        }
    }
}

/// Renders `scene` seen by a camera at `t_world_camera` into a greyscale image
/// (`width × height`, row-major); pixels outside the valid region are 0.
pub fn render_grey(scene: &Scene, rays: &RayTable, t_world_camera: &Isometry3<f64>) -> Vec<u8> {
    let light = v3(LIGHT_DIR).normalize();
    let o = (t_world_camera * Point3::origin()).coords;
    let r = t_world_camera.rotation;
    rays.rays
        .iter()
        .map(|ray| {
            let Some(ray) = ray else { return 0 };
            let d = r * ray;
            match scene.hit(&o, &d) {
                Some((_, n, albedo)) => {
                    let shade = albedo * (0.35 + 0.65 * n.dot(&light).max(0.0));
                    (shade * 255.0).round().clamp(1.0, 255.0) as u8
                }
                None => 20,
            }
        })
        .collect()
}
