//! The rays of a camera (pure compute): the unit ray of every pixel, unprojected once from
//! the calibration (it does not change during a session; frames only rotate them), and per
//! [`TILE_PX`]-square tile of pixels the cone that holds every ray of the tile, so that a
//! renderer can leave out of a tile whatever lies outside its cone.

use nalgebra::{Point2, Vector3};

use crate::aria::calib::CameraCalibration;

/// Side of a tile, pixels.
pub const TILE_PX: u32 = 16;

/// A cone of rays from the camera centre (camera frame).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cone {
    /// Unit axis.
    pub axis: Vector3<f64>,
    /// Largest angle of a ray of the cone from the axis, rad.
    pub half_angle_rad: f64,
}

/// Unit rays (camera frame) of every pixel, row-major; invalid pixels (outside the
/// calibrated region) are marked with NaN.
#[derive(Debug, Clone)]
pub struct RayTable {
    /// Width, pixels.
    pub width: u32,
    /// Height, pixels.
    pub height: u32,
    rays: Vec<[f32; 3]>,
    /// Largest angle of a valid ray from the optical axis (+z), rad.
    pub max_angle_rad: f64,
    /// Angle between the rays of two neighbouring pixels at the image centre, rad (a
    /// pixel's width as an angle; 0 when the centre is not calibrated).
    pub px_angle_rad: f64,
    /// Per tile (row-major, `tiles_x` per row): the cone of its valid rays, `None` when it
    /// has none.
    tiles: Vec<Option<Cone>>,
    tiles_x: u32,
}

/// A ray of the table in `f64` (the exact value the renderer uses).
fn widen(r: &[f32; 3]) -> Vector3<f64> {
    Vector3::new(f64::from(r[0]), f64::from(r[1]), f64::from(r[2]))
}

impl RayTable {
    /// Unprojects the centre of every pixel of `cam`.
    pub fn new(cam: &CameraCalibration) -> Self {
        let (w, h) = (cam.image_width, cam.image_height);
        let rays = (0..h)
            .flat_map(|y| (0..w).map(move |x| Point2::new(x as f64, y as f64)))
            .map(|uv| {
                if !cam.is_visible(&uv) {
                    return [f32::NAN; 3];
                }
                match cam.unproject(&uv).map(|r| r.normalize()) {
                    Some(r) => [r.x as f32, r.y as f32, r.z as f32],
                    None => [f32::NAN; 3],
                }
            })
            .collect::<Vec<_>>();
        let max_angle_rad = rays
            .iter()
            .filter(|r| !r[0].is_nan())
            .map(|r| f64::from(r[2]).clamp(-1.0, 1.0).acos())
            .fold(0.0, f64::max);
        let (tiles_x, tiles_y) = (w.div_ceil(TILE_PX), h.div_ceil(TILE_PX));
        let tile_rays = |tx: u32, ty: u32| {
            let (x0, y0) = (tx * TILE_PX, ty * TILE_PX);
            let (x1, y1) = ((x0 + TILE_PX).min(w), (y0 + TILE_PX).min(h));
            let rays = &rays;
            (y0..y1)
                .flat_map(move |y| (x0..x1).map(move |x| (y * w + x) as usize))
                .filter_map(move |i| rays.get(i).filter(|r| !r[0].is_nan()).map(widen))
        };
        let tiles = (0..tiles_y)
            .flat_map(|ty| (0..tiles_x).map(move |tx| (tx, ty)))
            .map(|(tx, ty)| {
                let sum: Vector3<f64> = tile_rays(tx, ty).sum();
                let axis = sum.try_normalize(1e-9)?;
                let half_angle_rad = tile_rays(tx, ty)
                    .map(|r| axis.dot(&r).clamp(-1.0, 1.0).acos())
                    .fold(0.0, f64::max);
                Some(Cone {
                    axis,
                    half_angle_rad,
                })
            })
            .collect();
        let centre = |dx: u32| {
            let i = (h / 2) as usize * w as usize + (w / 2 + dx) as usize;
            rays.get(i).filter(|r| !r[0].is_nan()).map(widen)
        };
        let px_angle_rad = match (centre(0), centre(1)) {
            (Some(a), Some(b)) => a.dot(&b).clamp(-1.0, 1.0).acos(),
            _ => 0.0,
        };
        Self {
            width: w,
            height: h,
            rays,
            max_angle_rad,
            px_angle_rad,
            tiles,
            tiles_x,
        }
    }

    /// The unit ray of pixel `(x, y)` (camera frame), `None` outside the image or the
    /// calibrated region.
    pub fn ray(&self, x: u32, y: u32) -> Option<Vector3<f64>> {
        if x >= self.width || y >= self.height {
            return None;
        }
        let r = self
            .rays
            .get(y as usize * self.width as usize + x as usize)?;
        if r[0].is_nan() {
            return None;
        }
        Some(widen(r))
    }

    /// Every pixel's ray, row-major (NaN outside the calibrated region).
    pub fn rays(&self) -> &[[f32; 3]] {
        &self.rays
    }

    /// Tiles per row.
    pub fn tiles_x(&self) -> u32 {
        self.tiles_x
    }

    /// The cone of tile `(tx, ty)` (pixels `16·tx .. 16·tx + 16` by `16·ty ..`), `None`
    /// outside the image or when no pixel of the tile is valid.
    pub fn tile(&self, tx: u32, ty: u32) -> Option<Cone> {
        if tx >= self.tiles_x {
            return None;
        }
        *self
            .tiles
            .get(ty as usize * self.tiles_x as usize + tx as usize)?
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aria::calib::DeviceCalibration;

    #[test]
    fn every_valid_ray_lies_in_its_tile_cone() {
        let cal = DeviceCalibration::from_json_file(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/calibration/aria_gen1_1WM09380041283_factory.json"
        ))
        .unwrap();
        let cam = cal.camera("camera-slam-left").unwrap();
        let t = RayTable::new(cam);
        let (mut valid, mut empty) = (0, 0);
        for y in 0..t.height {
            for x in 0..t.width {
                let cone = t.tile(x / TILE_PX, y / TILE_PX);
                match (t.ray(x, y), cone) {
                    (Some(r), Some(c)) => {
                        let a = c.axis.dot(&r).clamp(-1.0, 1.0).acos();
                        assert!(a <= c.half_angle_rad + 1e-12, "({x}, {y}): {a} > {c:?}");
                        // A 16-pixel tile of a 640-pixel fisheye spans a few degrees.
                        assert!(c.half_angle_rad < 0.1, "({x}, {y}): {c:?}");
                        valid += 1;
                    }
                    (Some(_), None) => panic!("({x}, {y}) is valid but its tile has no cone"),
                    (None, _) => empty += 1,
                }
            }
        }
        assert!(
            valid > 200_000 && empty > 0,
            "{valid} valid, {empty} invalid"
        );
        assert_eq!(t.tile(t.tiles_x(), 0), None);
    }
}
