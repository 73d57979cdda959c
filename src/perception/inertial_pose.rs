//! A device pose from the IMU (pure), for input without a trajectory (live glasses stream
//! no MPS): attitude from the gyro, held to gravity by the accelerometer (a Mahony
//! complementary filter). The position comes from visual odometry's fixes when they are
//! given ([`InertialPose::visual_fix`], from [`super::odometry`]): between two fixes it
//! moves on with the velocity the last fixes measured. Without a recent fix (no SLAM
//! cameras, or the track lost) it falls back to pedestrian dead reckoning: steps from
//! [`StepDetector`] times a step length estimated from their cadence
//! ([`super::step_length`]) along the head's horizontal forward direction, height not
//! tracked. The world frame is gravity-aligned (z up) with +x the head's forward direction
//! when the estimate started, and the start at the origin; yaw drifts with the gyro's bias,
//! so this pose serves what needs a minute of consistency — placing stereo depth around
//! the wearer, the walking corridor, the movers — not a map of a building.

use nalgebra::{Isometry3, Translation3, UnitQuaternion, Vector3};

use super::motion::StepDetector;
use super::step_length;
use crate::sample::PoseSample;

/// Standard gravity, m/s².
const G: f64 = 9.80665;
/// How strongly the accelerometer holds the attitude to gravity.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AttitudeGains {
    /// The attitude is corrected toward the measured up with this gain, rad/s per unit of
    /// error.
    pub attitude: f64,
    /// The gyro's bias (its tilt part: the accelerometer cannot see yaw's) is learnt from
    /// the error that persists with this gain, rad/s² per unit of error (0: not learnt).
    pub bias: f64,
}

impl AttitudeGains {
    /// A time constant of ~3 s (the gyro carries the attitude through each step's
    /// accelerations), no bias learnt: a steady error of the gyro's bias over the gain
    /// (0.2° for 1 mrad/s), and the walk's accelerations tilt it by ~0.7° (p50 on a
    /// synthetic walk). The counted-steps pose's live figures (docs/accuracy.md) were
    /// measured with these.
    pub const DEAD_RECKONING: Self = Self {
        attitude: 0.3,
        bias: 0.0,
    };
    /// With visual odometry, whose depth points the tilt places: a time constant of
    /// ~10 s and the bias learnt (the filter's integral term): tilt error p50 0.26°, p95
    /// 0.62° on the same walk (0.66° / 1.34° with [`Self::DEAD_RECKONING`]).
    pub const VISUAL: Self = Self {
        attitude: 0.1,
        bias: 0.01,
    };
}

/// The accelerometer is trusted only while its magnitude is within this of gravity, m/s².
pub const ACCEL_TRUST_MPS2: f64 = 2.5;
/// Samples averaged for the first attitude (the first 0.1 s at 1 kHz).
pub const INIT_SAMPLES: u32 = 100;
/// A pose is given at most this often, ns (100 Hz).
pub const EMIT_EVERY_NS: i64 = 10_000_000;
/// Quality given to inertial poses (below a tracked trajectory's 1.0).
pub const INERTIAL_QUALITY: f32 = 0.5;
/// Quality given to poses whose position follows visual fixes (between the inertial
/// estimate's and a tracked trajectory's).
pub const VISUAL_QUALITY: f32 = 0.8;
/// A visual fix sets the position's velocity for this long; then dead reckoning resumes,
/// ns (three SLAM frames at 10 Hz).
pub const VISUAL_HOLD_NS: i64 = 350_000_000;
/// A fix moves the position this share of the way to it (a low-pass of the fixes' noise).
const VISUAL_POSITION_GAIN: f64 = 0.4;
/// The velocity between fixes is smoothed with this weight of the newest (an exponential
/// mean over about two frames: the head's bob and the fixes' noise average out).
const VISUAL_VELOCITY_GAIN: f64 = 0.5;

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
    /// The gyro's bias as learnt so far, rad/s, device frame.
    gyro_bias: Vector3<f64>,
    gains: AttitudeGains,
    /// The last visual fix: its time, position and the velocity measured by the fixes.
    fix: Option<VisualFix>,
}

#[derive(Clone, Copy, Debug)]
struct VisualFix {
    t_ns: i64,
    position: Vector3<f64>,
    velocity: Vector3<f64>,
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
            gyro_bias: Vector3::zeros(),
            gains: AttitudeGains::DEAD_RECKONING,
            fix: None,
        }
    }

    /// With other attitude gains.
    pub fn with_gains(mut self, gains: AttitudeGains) -> Self {
        self.gains = gains;
        self
    }

    /// The position the estimate gives for device time `t_ns` (at or shortly before the
    /// latest IMU sample): the current one moved back along the current velocity.
    pub fn position_at(&self, t_ns: i64) -> Vector3<f64> {
        self.position - self.velocity * self.behind_latest_s(t_ns)
    }

    /// How far `t_ns` lies before the latest IMU sample, s (0 after it, at most 0.1 s).
    fn behind_latest_s(&self, t_ns: i64) -> f64 {
        self.last_ns.map_or(0.0, |l| {
            l.saturating_sub(t_ns).clamp(0, 100_000_000) as f64 * 1e-9
        })
    }

    /// Whether the position follows visual fixes at `t_ns`.
    pub fn visual_at(&self, t_ns: i64) -> bool {
        self.fix
            .is_some_and(|f| t_ns.saturating_sub(f.t_ns) <= VISUAL_HOLD_NS)
    }

    /// A position measured by visual odometry for device time `t_ns`: the estimate's
    /// position becomes it (carried on to the latest IMU sample), and the velocity
    /// between fixes is measured from it.
    pub fn visual_fix(&mut self, t_ns: i64, position: Vector3<f64>) {
        if !position.iter().all(|v| v.is_finite()) {
            return;
        }
        let velocity = match self.fix {
            Some(f) if t_ns > f.t_ns && t_ns - f.t_ns <= VISUAL_HOLD_NS => {
                let v = (position - f.position) / ((t_ns - f.t_ns) as f64 * 1e-9);
                f.velocity + (v - f.velocity) * VISUAL_VELOCITY_GAIN
            }
            Some(f) if t_ns <= f.t_ns => return,
            _ => self.velocity,
        };
        self.fix = Some(VisualFix {
            t_ns,
            position,
            velocity,
        });
        let ahead_s = self.behind_latest_s(t_ns);
        self.velocity = velocity;
        // Toward the fix, not onto it: each fix carries a few centimetres of noise, and a
        // pose jumping by them makes still things seem to move.
        let target = position + velocity * ahead_s;
        self.position += (target - self.position) * VISUAL_POSITION_GAIN;
    }

    /// Visual odometry lost its track: dead reckoning takes over from here.
    pub fn visual_lost(&mut self) {
        self.fix = None;
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
        let error = if (n - G).abs() < ACCEL_TRUST_MPS2 {
            (accel / n).cross(&up_est)
        } else {
            Vector3::zeros()
        };
        // The gyro's bias (the tilt part of it: the accelerometer cannot see yaw's) is
        // learnt from the error that persists (the filter's integral term).
        self.gyro_bias -= error * self.gains.bias * dt;
        let correction = error * self.gains.attitude;
        let r = r * UnitQuaternion::from_scaled_axis((gyro - self.gyro_bias + correction) * dt);
        self.r_world_device = Some(r);
        // Position: on with the velocity visual fixes measured while they come; else steps
        // along the head's horizontal forward direction, each as long as the walk ratio
        // makes it at this cadence.
        let visual = self.visual_at(t_ns);
        if let (Some(f), true) = (self.fix, visual) {
            self.velocity = f.velocity;
        } else {
            let speed = self
                .steps
                .cadence_spm(t_ns)
                .map_or(0.0, |c| step_length::speed_mps(f64::from(c)));
            let mut fwd = r * self.forward_device;
            fwd.z = 0.0;
            self.velocity = fwd
                .try_normalize(1e-6)
                .map_or(Vector3::zeros(), |d| d * speed);
        }
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
            quality: if visual {
                VISUAL_QUALITY
            } else {
                INERTIAL_QUALITY
            },
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

    /// Visual fixes move the position (and set its velocity between them, with the pose's
    /// quality raised); when they stop, counted steps (none here: standing) take over.
    #[test]
    fn visual_fixes_carry_the_position_and_dead_reckoning_resumes_after_them() {
        let f = Vector3::new(0.0, 0.0, G);
        let mut p = InertialPose::new(Vector3::x());
        let mut t = 0;
        let mut last = None;
        for i in 0..1500 {
            // Fixes at 10 Hz from 0.2 s to 1.0 s: walking 1 m/s along +y, 5 cm up.
            if (200..=1000).contains(&i) && i % 100 == 0 {
                let s = f64::from(i - 200) * 1e-3;
                p.visual_fix(t, Vector3::new(0.0, s, 0.05));
            }
            if let Some(pose) = p.push(t, &f, &Vector3::zeros()) {
                last = Some((t, pose));
            }
            if i == 1050 {
                let (_, pose) = last.unwrap();
                // 1.05 s: 50 ms after the last fix (0.8 m), carried on at ~1 m/s.
                let y = pose.t_world_device.translation.vector.y;
                assert!((y - 0.85).abs() < 0.03, "{y}");
                assert_eq!(pose.quality, VISUAL_QUALITY);
                assert!((pose.linear_velocity_mps[1] - 1.0).abs() < 0.05);
            }
            t += 1_000_000;
        }
        // 0.5 s after the last fix: standing (no steps), the position stays put.
        let (_, pose) = last.unwrap();
        assert_eq!(pose.quality, INERTIAL_QUALITY);
        assert_eq!(pose.linear_velocity_mps, [0.0; 3]);
        let y = pose.t_world_device.translation.vector.y;
        assert!((0.8..1.2).contains(&y), "{y}");
        // The fixes' height, reached through the low-pass (0.6⁹ of it left).
        let z = pose.t_world_device.translation.vector.z;
        assert!((z - 0.05).abs() < 0.002, "{z}");
        // A fix older than the last one is ignored; a non-finite one too.
        let before = p.position_at(t);
        p.visual_fix(500_000_000, Vector3::new(9.0, 9.0, 9.0));
        p.visual_fix(t, Vector3::new(f64::NAN, 0.0, 0.0));
        assert_eq!(p.position_at(t), before);
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
