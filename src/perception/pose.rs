//! The wearer's pose (pure): the latest `device-pose` sample (MPS trajectory, or the
//! glasses' own VIO), the head (CPF) position and yaw in the world, and the horizontal
//! velocity over the last second from a bounded 20 Hz history (the trajectory comes at up to
//! 1 kHz). A pose that moves the head faster than a head moves ([`MAX_HEAD_SPEED_MPS`],
//! [`MAX_HEAD_TURN_RADPS`]) is a tracker that jumped (a reset or relocalisation of an
//! odometry frame): it is taken as the new truth, the history starts again and the jump is
//! reported once ([`PoseTracker::take_jump`]).

use std::collections::VecDeque;

use nalgebra::{Isometry3, Point3, Vector3};

use super::geom::yaw_of;
use crate::sample::PoseSample;

const KEEP_EVERY_NS: i64 = 50_000_000;
const HISTORY_NS: i64 = 2_000_000_000;
/// Velocity is measured over this span, ns.
pub const VELOCITY_SPAN_NS: i64 = 1_000_000_000;
/// A pose older than this is stale (no pose), ns.
pub const POSE_STALE_NS: i64 = 1_000_000_000;
/// Fastest a wearer's head moves, m/s (a run is ~3 m/s), beyond which a step between two
/// poses is a jump.
pub const MAX_HEAD_SPEED_MPS: f64 = 5.0;
/// Fastest a head turns, rad/s (a quick head shake peaks near 10 rad/s).
pub const MAX_HEAD_TURN_RADPS: f64 = 15.0;
/// What a step may exceed those by (jitter, rounding), m and rad.
pub const JUMP_SLACK: (f64, f64) = (0.2, 0.3);
/// Poses further apart than this are not compared (a gap, not a jump), ns.
const JUMP_WINDOW_NS: i64 = 500_000_000;

/// The head in the world at one time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HeadPose {
    /// Device time, ns.
    pub t_ns: i64,
    /// `T_world_cpf`.
    pub t_world_cpf: Isometry3<f64>,
    /// Head (CPF origin) position, m.
    pub position_m: Vector3<f64>,
    /// Yaw of the head's forward direction, radians counter-clockwise from world +x.
    pub yaw_rad: f64,
}

/// Tracks the latest pose and a short history.
#[derive(Clone, Debug)]
pub struct PoseTracker {
    t_device_cpf: Isometry3<f64>,
    latest: Option<HeadPose>,
    history: VecDeque<(i64, Vector3<f64>)>,
    /// When the last jump not yet taken happened.
    jump: Option<i64>,
}

impl PoseTracker {
    /// With the head frame `t_device_cpf`.
    pub fn new(t_device_cpf: Isometry3<f64>) -> Self {
        Self {
            t_device_cpf,
            latest: None,
            history: VecDeque::with_capacity(64),
            jump: None,
        }
    }

    /// Folds in a pose captured at `t_ns`; false when skipped (non-finite or older than
    /// the latest).
    pub fn push(&mut self, t_ns: i64, pose: &PoseSample) -> bool {
        if self.latest.is_some_and(|l| t_ns < l.t_ns) {
            return false;
        }
        let t_world_cpf = pose.t_world_device * self.t_device_cpf;
        let p = t_world_cpf.translation.vector;
        let fwd = t_world_cpf.rotation * Vector3::z();
        let (Some(yaw), true) = (yaw_of(&fwd), p.iter().all(|v| v.is_finite())) else {
            return false;
        };
        if let Some(l) = self.latest {
            let dt_ns = t_ns - l.t_ns;
            if dt_ns <= JUMP_WINDOW_NS {
                let dt = dt_ns as f64 * 1e-9;
                let moved = (p - l.position_m).norm();
                let turned = t_world_cpf.rotation.angle_to(&l.t_world_cpf.rotation);
                if moved > MAX_HEAD_SPEED_MPS * dt + JUMP_SLACK.0
                    || turned > MAX_HEAD_TURN_RADPS * dt + JUMP_SLACK.1
                {
                    self.jump = Some(t_ns);
                    self.history.clear();
                }
            }
        }
        self.latest = Some(HeadPose {
            t_ns,
            t_world_cpf,
            position_m: p,
            yaw_rad: yaw,
        });
        let due = self
            .history
            .back()
            .is_none_or(|&(t, _)| t_ns.saturating_sub(t) >= KEEP_EVERY_NS);
        if due {
            self.history.push_back((t_ns, p));
            while self
                .history
                .front()
                .is_some_and(|&(t, _)| t_ns.saturating_sub(t) > HISTORY_NS)
            {
                self.history.pop_front();
            }
        }
        true
    }

    /// When the tracker last jumped, once (`None` until the next jump).
    pub fn take_jump(&mut self) -> Option<i64> {
        self.jump.take()
    }

    /// The latest head pose, unless older than [`POSE_STALE_NS`] at `now_ns`.
    pub fn head(&self, now_ns: i64) -> Option<HeadPose> {
        self.latest
            .filter(|l| now_ns.saturating_sub(l.t_ns) <= POSE_STALE_NS)
    }

    /// World velocity of the head over the last second, m/s.
    pub fn velocity_mps(&self, now_ns: i64) -> Option<Vector3<f64>> {
        let head = self.head(now_ns)?;
        let from = head.t_ns.saturating_sub(VELOCITY_SPAN_NS);
        let i = self.history.partition_point(|&(t, _)| t < from);
        let &(t0, p0) = self.history.get(i)?;
        let dt = (head.t_ns - t0) as f64 * 1e-9;
        (dt >= 0.3).then(|| (head.position_m - p0) / dt)
    }

    /// A world point in the head frame (CPF), when a pose is current.
    pub fn to_cpf(&self, now_ns: i64, p_world: &Point3<f64>) -> Option<Point3<f64>> {
        self.head(now_ns)
            .map(|h| h.t_world_cpf.inverse_transform_point(p_world))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{Translation3, UnitQuaternion};

    fn pose(x: f64, y: f64, yaw: f64) -> PoseSample {
        // A device frame whose z is forward and y up: rotate CPF-like axes so z points at
        // world yaw `yaw` (x left, y up, z forward).
        let r_world_cpf = UnitQuaternion::from_axis_angle(&Vector3::z_axis(), yaw)
            * UnitQuaternion::from_axis_angle(&Vector3::x_axis(), std::f64::consts::FRAC_PI_2)
            * UnitQuaternion::from_axis_angle(&Vector3::y_axis(), std::f64::consts::FRAC_PI_2);
        PoseSample {
            t_world_device: Isometry3::from_parts(Translation3::new(x, y, 1.6), r_world_cpf),
            linear_velocity_mps: [0.0; 3],
            angular_velocity_radps: [0.0; 3],
            quality: 1.0,
        }
    }

    #[test]
    fn yaw_speed_and_staleness() {
        let mut t = PoseTracker::new(Isometry3::identity());
        // Walk along +y at 1.2 m/s facing +y, 1 kHz for 2 s.
        for i in 0..2000 {
            let s = i as f64 * 1e-3;
            t.push(
                i * 1_000_000,
                &pose(1.0, 1.2 * s, std::f64::consts::FRAC_PI_2),
            );
        }
        let now = 1_999_000_000;
        let h = t.head(now).unwrap();
        assert!(
            (h.yaw_rad - std::f64::consts::FRAC_PI_2).abs() < 1e-9,
            "{}",
            h.yaw_rad
        );
        let v = t.velocity_mps(now).unwrap();
        assert!((v.y - 1.2).abs() < 1e-6 && v.x.abs() < 1e-9, "{v:?}");
        assert!(t.head(now + 2_000_000_000).is_none());
        // The head sees a point 2 m ahead on its +z axis.
        let p = t
            .to_cpf(now, &Point3::new(1.0, h.position_m.y + 2.0, 1.6))
            .unwrap();
        assert!((p.z - 2.0).abs() < 1e-9 && p.x.abs() < 1e-9);
    }

    #[test]
    fn a_pose_that_jumps_further_than_a_head_moves_is_reported_once() {
        let mut t = PoseTracker::new(Isometry3::identity());
        // Brisk walking with a quick head shake (8 rad/s) at 100 Hz: never a jump.
        for i in 0..200 {
            let s = i as f64 * 0.01;
            let yaw = 0.3 * (8.0 / 0.3 * s).sin();
            assert!(t.push(i * 10_000_000, &pose(1.8 * s, 0.0, yaw)));
            assert_eq!(t.take_jump(), None, "at {s} s");
        }
        // The tracker relocalises: 2 m sideways in 10 ms. Taken, reported once.
        assert!(t.push(2_000_000_000, &pose(3.6, 2.0, 0.0)));
        assert_eq!(t.take_jump(), Some(2_000_000_000));
        assert_eq!(t.take_jump(), None);
        assert!((t.head(2_000_000_000).unwrap().position_m.y - 2.0).abs() < 1e-9);
        // The history starts again: no velocity across the jump.
        assert!(t.velocity_mps(2_000_000_000).is_none());
        // A heading flip (a reset of the odometry's yaw) is a jump too.
        assert!(t.push(2_010_000_000, &pose(3.6, 2.0, 1.5)));
        assert_eq!(t.take_jump(), Some(2_010_000_000));
        // After a gap, a far pose is not called a jump (the wearer may have walked).
        assert!(t.push(3_010_000_000, &pose(6.0, 2.0, 1.5)));
        assert_eq!(t.take_jump(), None);
    }
}
