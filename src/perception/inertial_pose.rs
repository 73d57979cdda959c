//! A device pose from the IMU alone (pure), for input without a trajectory (live glasses
//! stream no MPS): attitude from the gyro, held to gravity by the accelerometer (a Mahony
//! complementary filter), and the horizontal position by pedestrian dead reckoning (steps
//! from [`StepDetector`] times a step length estimated from their cadence
//! ([`super::step_length`]) along the head's horizontal forward direction). The world frame is gravity-aligned (z up) with +x the head's forward
//! direction when the estimate started; height is not tracked (z stays 0), and yaw and
//! position drift with time (gyro bias, step length), so this pose serves what needs a
//! few seconds of consistency — placing stereo depth around the wearer, the walking
//! corridor — not a map.

use nalgebra::{Isometry3, Translation3, UnitQuaternion, Vector3};

use super::motion::StepDetector;
use super::step_length;
use crate::sample::PoseSample;

/// Standard gravity, m/s².
const G: f64 = 9.80665;
/// The accelerometer corrects the attitude with this gain, rad/s per unit of error (a time
/// constant of ~3 s: the gyro carries the attitude through each step's accelerations).
pub const ATTITUDE_GAIN: f64 = 0.3;
/// The accelerometer is trusted only while its magnitude is within this of gravity, m/s².
pub const ACCEL_TRUST_MPS2: f64 = 2.5;
/// Samples averaged for the first attitude (the first 0.1 s at 1 kHz).
pub const INIT_SAMPLES: u32 = 100;
/// A pose is given at most this often, ns (100 Hz).
pub const EMIT_EVERY_NS: i64 = 10_000_000;
/// Quality given to inertial poses (below a tracked trajectory's 1.0).
pub const INERTIAL_QUALITY: f32 = 0.5;

/// The estimator.
#[derive(Clone, Debug)]
pub struct InertialPose {
    forward_device: Vector3<f64>,
    r_world_device: Option<UnitQuaternion<f64>>,
    init_sum: Vector3<f64>,
    init_n: u32,
    last_ns: Option<i64>,
    last_emit_ns: Option<i64>,
    position: Vector3<f64>,
    velocity: Vector3<f64>,
    steps: StepDetector,
}

impl InertialPose {
    /// With the head's forward direction in the device frame
    /// ([`super::SensorModels::forward_device`]).
    pub fn new(forward_device: Vector3<f64>) -> Self {
        Self {
            forward_device: forward_device
                .try_normalize(1e-9)
                .unwrap_or_else(Vector3::z),
            r_world_device: None,
            init_sum: Vector3::zeros(),
            init_n: 0,
            last_ns: None,
            last_emit_ns: None,
            position: Vector3::zeros(),
            velocity: Vector3::zeros(),
            steps: StepDetector::new(),
        }
    }

    /// The attitude so far (`R_world_device`), once started.
    pub fn attitude(&self) -> Option<UnitQuaternion<f64>> {
        self.r_world_device
    }

    /// The first attitude: the measured up as world +z, the head's forward direction
    /// (projected on the horizontal) as world +x.
    fn start(&mut self) {
        let Some(up) = self.init_sum.try_normalize(1e-9) else {
            return;
        };
        let fwd = self.forward_device - up * self.forward_device.dot(&up);
        let Some(fwd) = fwd.try_normalize(1e-6) else {
            return;
        };
        let left = up.cross(&fwd);
        // Rows: the world axes in device coordinates.
        let m = nalgebra::Matrix3::from_rows(&[fwd.transpose(), left.transpose(), up.transpose()]);
        self.r_world_device = Some(UnitQuaternion::from_matrix(&m));
    }

    /// Takes one IMU sample in the device frame (specific force, m/s²; angular velocity,
    /// rad/s) at device time `t_ns`; returns a pose when one is due. Out-of-order samples
    /// are ignored.
    pub fn push(
        &mut self,
        t_ns: i64,
        accel: &Vector3<f64>,
        gyro: &Vector3<f64>,
    ) -> Option<PoseSample> {
        if self.last_ns.is_some_and(|l| t_ns <= l) {
            return None;
        }
        let dt = self
            .last_ns
            .map_or(0.0, |l| ((t_ns - l) as f64 * 1e-9).min(0.05));
        self.last_ns = Some(t_ns);
        self.steps.push(t_ns, accel, gyro);
        let Some(r) = self.r_world_device else {
            self.init_sum += accel;
            self.init_n += 1;
            if self.init_n >= INIT_SAMPLES {
                self.start();
            }
            return None;
        };
        // Attitude: the gyro, corrected toward the measured up while the accelerometer
        // reads about 1 g.
        let up_est = r.inverse() * Vector3::z();
        let n = accel.norm();
        let correction = if (n - G).abs() < ACCEL_TRUST_MPS2 {
            (accel / n).cross(&up_est) * ATTITUDE_GAIN
        } else {
            Vector3::zeros()
        };
        let r = r * UnitQuaternion::from_scaled_axis((gyro + correction) * dt);
        self.r_world_device = Some(r);
        // Position: steps along the head's horizontal forward direction, each as long as
        // the walk ratio makes it at this cadence.
        let speed = self
            .steps
            .cadence_spm(t_ns)
            .map_or(0.0, |c| step_length::speed_mps(f64::from(c)));
        let mut fwd = r * self.forward_device;
        fwd.z = 0.0;
        self.velocity = fwd
            .try_normalize(1e-6)
            .map_or(Vector3::zeros(), |d| d * speed);
        self.position += self.velocity * dt;
        let due = self
            .last_emit_ns
            .is_none_or(|e| t_ns.saturating_sub(e) >= EMIT_EVERY_NS);
        if !due {
            return None;
        }
        self.last_emit_ns = Some(t_ns);
        let v = self.velocity;
        Some(PoseSample {
            t_world_device: Isometry3::from_parts(Translation3::from(self.position), r),
            linear_velocity_mps: [v.x as f32, v.y as f32, v.z as f32],
            angular_velocity_radps: [gyro.x as f32, gyro.y as f32, gyro.z as f32],
            quality: INERTIAL_QUALITY,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A device standing still, tilted 20° about x: the attitude's up matches gravity's, the
    /// position stays, a pose every 10 ms.
    #[test]
    fn a_still_tilted_device_finds_gravity_and_stays() {
        let tilt = UnitQuaternion::from_axis_angle(&Vector3::x_axis(), 20f64.to_radians());
        // Specific force reads +g along the world's up, in device coordinates.
        let f = tilt.inverse() * Vector3::new(0.0, 0.0, G);
        let mut p = InertialPose::new(Vector3::z());
        let mut poses = 0;
        for i in 0..2000 {
            if p.push(i * 1_000_000, &f, &Vector3::zeros()).is_some() {
                poses += 1;
            }
        }
        let r = p.attitude().unwrap();
        let up_dev = r.inverse() * Vector3::z();
        assert!((up_dev - f / G).norm() < 1e-3, "{up_dev:?}");
        assert!((190..=191).contains(&poses), "{poses}");
        let last = p.push(2_000_000_000, &f, &Vector3::zeros()).unwrap();
        assert!(last.t_world_device.translation.vector.norm() < 1e-9);
        assert_eq!(last.quality, INERTIAL_QUALITY);
    }

    /// A wrong first attitude (started while tilted, then levelled) is pulled to gravity by
    /// the accelerometer within a few time constants.
    #[test]
    fn the_accelerometer_pulls_a_wrong_attitude_to_gravity() {
        let tilt = UnitQuaternion::from_axis_angle(&Vector3::y_axis(), 15f64.to_radians());
        let tilted = tilt.inverse() * Vector3::new(0.0, 0.0, G);
        let level = Vector3::new(0.0, 0.0, G);
        let mut p = InertialPose::new(Vector3::x());
        let mut t = 0;
        for _ in 0..200 {
            p.push(t, &tilted, &Vector3::zeros());
            t += 1_000_000;
        }
        for _ in 0..15_000 {
            p.push(t, &level, &Vector3::zeros());
            t += 1_000_000;
        }
        let up_dev = p.attitude().unwrap().inverse() * Vector3::z();
        let err = up_dev.angle(&Vector3::z()).to_degrees();
        assert!(err < 0.5, "{err}°");
    }

    /// A steady turn about the vertical: the yaw follows the gyro.
    #[test]
    fn a_turn_about_up_follows_the_gyro() {
        let f = Vector3::new(0.0, 0.0, G);
        let mut p = InertialPose::new(Vector3::x());
        let mut t = 0;
        for _ in 0..100 {
            p.push(t, &f, &Vector3::zeros());
            t += 1_000_000;
        }
        // 90° in 2 s.
        let w = Vector3::new(0.0, 0.0, std::f64::consts::FRAC_PI_4);
        for _ in 0..2000 {
            p.push(t, &f, &w);
            t += 1_000_000;
        }
        let fwd = p.attitude().unwrap() * Vector3::x();
        let yaw = fwd.y.atan2(fwd.x).to_degrees();
        assert!((yaw - 90.0).abs() < 1.0, "{yaw}");
    }
}
