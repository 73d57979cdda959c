//! Small angle and frame helpers shared by the perception modules (pure).

use nalgebra::{UnitQuaternion, Vector3};

/// `deg` wrapped to `(-180, 180]`.
pub fn wrap_deg(deg: f32) -> f32 {
    let w = (deg + 180.0).rem_euclid(360.0) - 180.0;
    if w <= -180.0 {
        w + 360.0
    } else {
        w
    }
}

/// `deg` wrapped to `[0, 360)`.
pub fn wrap_360(deg: f32) -> f32 {
    let w = deg.rem_euclid(360.0);
    if w >= 360.0 {
        0.0
    } else {
        w
    }
}

/// Yaw of a world direction (x, y horizontal, z up), radians counter-clockwise from +x;
/// `None` when it is (nearly) vertical or not finite.
pub fn yaw_of(v: &Vector3<f64>) -> Option<f64> {
    let h = v.x.hypot(v.y);
    (h.is_finite() && h > 1e-6).then(|| v.y.atan2(v.x))
}

/// The bearing of world point `(x, y)` seen from `(hx, hy)` with the head pointing at
/// `yaw_rad`, degrees, positive to the left; and the horizontal distance, m.
pub fn bearing_and_distance(hx: f64, hy: f64, yaw_rad: f64, x: f64, y: f64) -> (f32, f32) {
    let (dx, dy) = (x - hx, y - hy);
    let b = (dy.atan2(dx) - yaw_rad).to_degrees() as f32;
    (wrap_deg(b), dx.hypot(dy) as f32)
}

/// `v` when every component is finite.
pub fn finite(v: Vector3<f64>) -> Option<Vector3<f64>> {
    (v.x.is_finite() && v.y.is_finite() && v.z.is_finite()).then_some(v)
}

/// `q · v`, for f32 sensor triples.
pub fn rotate(q: &UnitQuaternion<f64>, v: [f32; 3]) -> Vector3<f64> {
    q * Vector3::new(f64::from(v[0]), f64::from(v[1]), f64::from(v[2]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wraps() {
        assert_eq!(wrap_deg(190.0), -170.0);
        assert_eq!(wrap_deg(-190.0), 170.0);
        assert_eq!(wrap_deg(180.0), 180.0);
        assert_eq!(wrap_deg(-180.0), 180.0);
        assert_eq!(wrap_360(-10.0), 350.0);
        assert_eq!(wrap_360(720.0), 0.0);
    }

    #[test]
    fn bearing_is_positive_to_the_left() {
        // Facing +x, a point at +y is 90° to the left.
        let (b, d) = bearing_and_distance(0.0, 0.0, 0.0, 0.0, 2.0);
        assert!((b - 90.0).abs() < 1e-4 && (d - 2.0).abs() < 1e-6);
        // Facing +y, a point at +x is 90° to the right.
        let (b, _) = bearing_and_distance(1.0, 1.0, std::f64::consts::FRAC_PI_2, 2.0, 1.0);
        assert!((b + 90.0).abs() < 1e-4);
        assert_eq!(yaw_of(&Vector3::z()), None);
    }
}
