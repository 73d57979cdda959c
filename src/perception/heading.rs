//! Compass heading (pure): the calibrated magnetic field, tilt-compensated with gravity,
//! gives the head's heading in degrees clockwise from magnetic north; a complementary
//! filter integrates the gyro's yaw rate between magnetometer samples and pulls toward the
//! magnetometer with time constant [`MAG_TAU_S`]. NaN and missing samples are skipped.

use nalgebra::Vector3;

use super::geom::{wrap_360, wrap_deg};

/// Time constant of the pull toward the magnetometer, s.
pub const MAG_TAU_S: f64 = 2.0;
/// The heading is withdrawn when no usable magnetometer sample came for this long, ns.
pub const MAG_STALE_NS: i64 = 5_000_000_000;
/// Horizontal field below this (tesla) is unusable (near the magnetic poles or saturated).
pub const MIN_HORIZONTAL_T: f64 = 2e-6;

/// Heading of `forward` (device frame) from the field `mag` and `up` (device frame),
/// degrees clockwise from magnetic north in `[0, 360)`, or `None` when the field's or
/// forward's horizontal part vanishes or anything is not finite.
pub fn tilt_compensated_heading_deg(
    mag: &Vector3<f64>,
    up: &Vector3<f64>,
    forward: &Vector3<f64>,
) -> Option<f32> {
    let up = up.try_normalize(1e-9)?;
    let north = mag - up * mag.dot(&up);
    let hn = north.norm();
    if hn.is_nan() || hn < MIN_HORIZONTAL_T {
        return None;
    }
    let north = north.normalize();
    let east = north.cross(&up);
    let f = forward - up * forward.dot(&up);
    let (n, e) = (f.dot(&north), f.dot(&east));
    let fh = n.hypot(e);
    if fh.is_nan() || fh <= 1e-6 {
        return None;
    }
    Some(wrap_360(e.atan2(n).to_degrees() as f32))
}

/// Complementary heading filter.
#[derive(Clone, Debug, Default)]
pub struct HeadingFilter {
    heading_deg: Option<f64>,
    last_gyro_ns: Option<i64>,
    last_mag_ns: Option<i64>,
}

impl HeadingFilter {
    /// Nothing seen yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Integrates the yaw rate about `up` from `gyro` (rad/s, device frame) at `t_ns`.
    pub fn on_gyro(&mut self, t_ns: i64, gyro: &Vector3<f64>, up: &Vector3<f64>) {
        let prev = self.last_gyro_ns.replace(t_ns);
        let (Some(h), Some(p)) = (self.heading_deg.as_mut(), prev) else {
            return;
        };
        let dt = (t_ns - p) as f64 * 1e-9;
        if !(0.0..=0.1).contains(&dt) {
            return;
        }
        let Some(up) = up.try_normalize(1e-9) else {
            return;
        };
        let rate = gyro.dot(&up);
        if rate.is_finite() {
            // Counter-clockwise about up turns the head toward the west: heading decreases.
            *h = f64::from(wrap_360((*h - rate.to_degrees() * dt) as f32));
        }
    }

    /// Pulls toward the magnetometer's heading at `t_ns`.
    pub fn on_mag(&mut self, t_ns: i64, mag: &Vector3<f64>, up: &Vector3<f64>, fwd: &Vector3<f64>) {
        let Some(m) = tilt_compensated_heading_deg(mag, up, fwd) else {
            return;
        };
        let prev = self.last_mag_ns.replace(t_ns);
        let m = f64::from(m);
        self.heading_deg = Some(match (self.heading_deg, prev) {
            (Some(h), Some(p)) if t_ns.saturating_sub(p) < MAG_STALE_NS => {
                let dt = ((t_ns - p) as f64 * 1e-9).max(0.0);
                let k = 1.0 - (-dt / MAG_TAU_S).exp();
                let err = f64::from(wrap_deg((m - h) as f32));
                f64::from(wrap_360((h + k * err) as f32))
            }
            _ => m,
        });
    }

    /// The heading at `now_ns`, degrees clockwise from magnetic north, when the
    /// magnetometer was usable within [`MAG_STALE_NS`].
    pub fn heading_deg(&self, now_ns: i64) -> Option<f32> {
        let last = self.last_mag_ns?;
        (now_ns.saturating_sub(last) < MAG_STALE_NS)
            .then_some(self.heading_deg)
            .flatten()
            .map(|h| h as f32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{Rotation3, Vector3};

    /// Earth's field (x east, y north, z up), 20 µT north, 44 µT down.
    fn field_world() -> Vector3<f64> {
        Vector3::new(0.0, 20e-6, -44e-6)
    }

    #[test]
    fn heading_of_a_tilted_head_matches_the_compass() {
        // A device whose forward is +x of its own frame; rotate it in the world by yaw
        // (counter-clockwise from east), then pitch and roll, and compare with the heading
        // computed by hand: east is 90°, north 0°, clockwise.
        for yaw_deg in [0.0f64, 30.0, 90.0, 160.0, -120.0] {
            for (pitch, roll) in [(0.0f64, 0.0f64), (25.0, 0.0), (-15.0, 20.0)] {
                let r_world_dev = Rotation3::from_euler_angles(
                    roll.to_radians(),
                    pitch.to_radians(),
                    yaw_deg.to_radians(),
                );
                let to_dev = r_world_dev.inverse();
                let mag = to_dev * field_world();
                let up = to_dev * Vector3::z();
                let h = tilt_compensated_heading_deg(&mag, &up, &Vector3::x()).unwrap();
                let expected = wrap_360((90.0 - yaw_deg) as f32);
                assert!(
                    wrap_deg(h - expected).abs() < 0.01,
                    "yaw {yaw_deg} pitch {pitch} roll {roll}: {h} vs {expected}"
                );
            }
        }
        assert_eq!(
            tilt_compensated_heading_deg(&Vector3::z(), &Vector3::z(), &Vector3::x()),
            None
        );
        assert_eq!(
            tilt_compensated_heading_deg(
                &Vector3::new(f64::NAN, 0.0, 0.0),
                &Vector3::z(),
                &Vector3::x()
            ),
            None
        );
    }

    #[test]
    fn gyro_carries_the_heading_between_mag_samples() {
        let mut f = HeadingFilter::new();
        let up = Vector3::z();
        // Facing east (forward +x in a world-aligned device).
        f.on_mag(0, &field_world(), &up, &Vector3::x());
        assert!((f.heading_deg(0).unwrap() - 90.0).abs() < 0.01);
        // Turn left (counter-clockwise) at 90°/s for 1 s with no magnetometer: north.
        for i in 0..=1000 {
            f.on_gyro(
                i * 1_000_000,
                &Vector3::new(0.0, 0.0, 90f64.to_radians()),
                &up,
            );
        }
        assert!(wrap_deg(f.heading_deg(1_000_000_000).unwrap()).abs() < 0.5);
        // Stale magnetometer: no heading.
        assert_eq!(f.heading_deg(6_000_000_000), None);
    }
}
