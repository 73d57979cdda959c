//! The wearer's head over time (pure compute): the central pupil frame (CPF) from the MPS
//! device trajectory and `T_Device_CPF`, reduced to what the user frame needs (horizontal
//! position and yaw), and the clock hour and distance of a world point as the wearer would
//! hear them (the same convention as `crate::state::clock` and the synthetic ground truth).

use nalgebra::{Isometry3, Vector3};

use crate::state::{bearing_to_clock, ClockHour};

/// The head at one instant.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HeadPose {
    /// Device time, ns.
    pub t_ns: i64,
    /// CPF origin in the world, metres.
    pub position_m: [f64; 3],
    /// Yaw of the CPF's forward (+z) axis projected on the floor, radians counter-clockwise
    /// from world +x.
    pub yaw_rad: f64,
}

/// Head poses in time order, at most one per [`HeadTrack::MIN_STEP_NS`] (a 1 kHz MPS
/// trajectory is thinned to 100 Hz), so memory stays bounded at ~32 bytes per 10 ms.
#[derive(Clone, Debug, Default)]
pub struct HeadTrack {
    poses: Vec<HeadPose>,
    skipped: u64,
}

impl HeadTrack {
    /// The smallest time step kept, ns.
    pub const MIN_STEP_NS: i64 = 10_000_000;
    /// How far outside the track's time range a query is still answered (by the nearest
    /// end pose), ns.
    pub const EDGE_TOLERANCE_NS: i64 = 500_000_000;

    /// An empty track.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds the device pose `t_world_device` at `t_ns`, turned into the head pose with
    /// `t_device_cpf`. Poses closer than [`Self::MIN_STEP_NS`] after the last kept one are
    /// thinned; poses that go back in time or are not finite are skipped and counted.
    pub fn push(
        &mut self,
        t_ns: i64,
        t_world_device: &Isometry3<f64>,
        t_device_cpf: &Isometry3<f64>,
    ) {
        if let Some(last) = self.poses.last() {
            if t_ns < last.t_ns {
                self.skipped += 1;
                return;
            }
            if t_ns.saturating_sub(last.t_ns) < Self::MIN_STEP_NS {
                return;
            }
        }
        let cpf = t_world_device * t_device_cpf;
        let p = cpf.translation.vector;
        let f = cpf.rotation * Vector3::z();
        let yaw = f.y.atan2(f.x);
        let finite = p.iter().all(|v| v.is_finite()) && yaw.is_finite() && f.xy().norm() > 1e-6;
        if !finite {
            self.skipped += 1;
            return;
        }
        self.poses.push(HeadPose {
            t_ns,
            position_m: [p.x, p.y, p.z],
            yaw_rad: yaw,
        });
    }

    /// Poses kept.
    pub fn len(&self) -> usize {
        self.poses.len()
    }

    /// True when no pose was kept.
    pub fn is_empty(&self) -> bool {
        self.poses.is_empty()
    }

    /// Poses skipped (backwards in time or not finite).
    pub fn skipped(&self) -> u64 {
        self.skipped
    }

    /// The head at `t_ns`, linearly interpolated (yaw along the shorter arc); `None` when
    /// the track is empty or `t_ns` is more than [`Self::EDGE_TOLERANCE_NS`] outside it.
    pub fn at(&self, t_ns: i64) -> Option<HeadPose> {
        let first = self.poses.first()?;
        let last = self.poses.last()?;
        if t_ns < first.t_ns.saturating_sub(Self::EDGE_TOLERANCE_NS)
            || t_ns > last.t_ns.saturating_add(Self::EDGE_TOLERANCE_NS)
        {
            return None;
        }
        let i = self.poses.partition_point(|p| p.t_ns <= t_ns);
        let (a, b) = match (
            i.checked_sub(1).and_then(|j| self.poses.get(j)),
            self.poses.get(i),
        ) {
            (Some(a), Some(b)) => (a, b),
            (Some(a), None) => return Some(HeadPose { t_ns, ..*a }),
            (None, Some(b)) => return Some(HeadPose { t_ns, ..*b }),
            (None, None) => return None,
        };
        let span = b.t_ns.saturating_sub(a.t_ns) as f64;
        let w = if span > 0.0 {
            t_ns.saturating_sub(a.t_ns) as f64 / span
        } else {
            0.0
        };
        let lerp = |x: f64, y: f64| x + (y - x) * w;
        let mut dyaw = b.yaw_rad - a.yaw_rad;
        dyaw =
            (dyaw + std::f64::consts::PI).rem_euclid(std::f64::consts::TAU) - std::f64::consts::PI;
        Some(HeadPose {
            t_ns,
            position_m: [
                lerp(a.position_m[0], b.position_m[0]),
                lerp(a.position_m[1], b.position_m[1]),
                lerp(a.position_m[2], b.position_m[2]),
            ],
            yaw_rad: a.yaw_rad + dyaw * w,
        })
    }

    /// Clock hour and horizontal distance (m) of world point `p` from the head at `t_ns`.
    pub fn relative(&self, t_ns: i64, p: [f64; 3]) -> Option<(ClockHour, f64)> {
        self.at(t_ns).map(|h| relative_to(&h, p))
    }
}

/// Clock hour and horizontal distance (m) of world point `p` from head pose `h`.
pub fn relative_to(h: &HeadPose, p: [f64; 3]) -> (ClockHour, f64) {
    let (dx, dy) = (p[0] - h.position_m[0], p[1] - h.position_m[1]);
    let bearing_deg = (dy.atan2(dx) - h.yaw_rad).to_degrees();
    let bearing_deg = (bearing_deg + 180.0).rem_euclid(360.0) - 180.0;
    (bearing_to_clock(bearing_deg as f32), dx.hypot(dy))
}

/// A head standing at the world origin facing +x (the CPF looks along its +z, turned so
/// +z is world +x), sampled every 0.1 s for `seconds`: the fixture of the scorer's tests.
#[cfg(test)]
pub fn standing_head(seconds: i64) -> HeadTrack {
    use nalgebra::{Translation3, UnitQuaternion};
    let cpf = Isometry3::from_parts(
        Translation3::identity(),
        UnitQuaternion::from_euler_angles(0.0, std::f64::consts::FRAC_PI_2, 0.0),
    );
    let mut h = HeadTrack::new();
    for i in 0..=seconds * 10 {
        h.push(i * 100_000_000, &Isometry3::identity(), &cpf);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{Matrix3, Rotation3, Translation3, UnitQuaternion};

    /// A CPF looking along world `yaw` (x left, y up, z forward), built independently of
    /// `push`'s yaw extraction.
    fn cpf_at(x: f64, y: f64, yaw: f64) -> Isometry3<f64> {
        let r0 = Matrix3::new(0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0);
        let r = Rotation3::from_axis_angle(&Vector3::z_axis(), yaw)
            * Rotation3::from_matrix_unchecked(r0);
        Isometry3::from_parts(
            Translation3::new(x, y, 1.6),
            UnitQuaternion::from_rotation_matrix(&r),
        )
    }

    #[test]
    fn clock_and_distance_follow_the_dial() {
        let mut t = HeadTrack::new();
        let id = Isometry3::identity();
        t.push(0, &cpf_at(0.0, 0.0, 0.0), &id);
        t.push(
            1_000_000_000,
            &cpf_at(0.0, 0.0, std::f64::consts::FRAC_PI_2),
            &id,
        );
        let (c, d) = t.relative(0, [4.0, 0.0, 0.0]).unwrap();
        assert_eq!((c.get(), d), (12, 4.0));
        assert_eq!(t.relative(0, [0.0, 2.0, 0.0]).unwrap().0.get(), 9);
        assert_eq!(t.relative(0, [0.0, -2.0, 0.0]).unwrap().0.get(), 3);
        assert_eq!(t.relative(0, [-3.0, 0.0, 0.0]).unwrap().0.get(), 6);
        // Halfway through a 90° left turn the head looks 45° left.
        let h = t.at(500_000_000).unwrap();
        assert!((h.yaw_rad - std::f64::consts::FRAC_PI_4).abs() < 1e-9);
        // After the turn, world +x is to the right: 3 o'clock.
        assert_eq!(
            t.relative(1_000_000_000, [4.0, 0.0, 0.0]).unwrap().0.get(),
            3
        );
    }

    #[test]
    fn thins_skips_and_bounds() {
        let mut t = HeadTrack::new();
        let id = Isometry3::identity();
        for i in 0..1000 {
            t.push(i * 1_000_000, &cpf_at(0.0, 0.0, 0.0), &id);
        }
        assert_eq!(t.len(), 100);
        t.push(5, &cpf_at(0.0, 0.0, 0.0), &id);
        let nan = Isometry3::from_parts(
            Translation3::new(f64::NAN, 0.0, 0.0),
            UnitQuaternion::identity(),
        );
        t.push(2_000_000_000, &nan, &id);
        assert_eq!(t.skipped(), 2);
        assert!(t.at(-600_000_000).is_none());
        assert!(t.at(-400_000_000).is_some());
        assert!(t.at(1_500_000_000).is_none());
        assert!(HeadTrack::new().at(0).is_none());
    }

    #[test]
    fn yaw_interpolates_across_the_seam() {
        let mut t = HeadTrack::new();
        let id = Isometry3::identity();
        t.push(0, &cpf_at(0.0, 0.0, 3.0), &id);
        t.push(10_000_000, &cpf_at(0.0, 0.0, -3.0), &id);
        let mid = t.at(5_000_000).unwrap().yaw_rad;
        // The shorter arc passes through ±π, not through 0.
        assert!((mid.cos() + 1.0).abs() < 1e-3, "{mid}");
    }
}
