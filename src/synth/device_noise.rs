//! Error models of what Aria Gen2 glasses compute themselves (pure compute): the on-device
//! visual-inertial odometry, eye gaze and hand tracking of a synthetic Gen2 session, so that
//! live use is measured on estimates, never on the simulator's truth. Magnitudes and the
//! sources they rest on are in `docs/synthetic.md`; every draw comes from a named
//! [`SplitMix64`] sub-stream of the session seed.
//!
//! - VIO is open loop: it starts its own gravity-aligned odometry frame where tracking
//!   starts, with a heading of its own (drawn per session), and drifts: a per-session scale
//!   error on the distance walked, a yaw random walk, and white jitter on position and
//!   attitude. For its first [`DeviceErrorSpec::vio_init_s`] it reports that it is still
//!   initialising (quality 0), as a real tracker does ([`VioTrack`]).
//! - Eye gaze and hands have the form of the MPS models ([`super::mps_noise::GazeError`],
//!   [`super::mps_noise::HandError`]) with the on-device magnitudes.

use nalgebra::{Isometry3, Translation3, UnitQuaternion, Vector3};

use super::mps_noise::MpsErrorSpec;
use super::rng::SplitMix64;
use super::sensors::sample_times;
use super::trajectory::WearerPath;

/// Magnitudes of the on-device estimators' errors.
#[derive(Debug, Clone, PartialEq)]
pub struct DeviceErrorSpec {
    /// Per-session scale error of the distance walked, standard deviation (fraction).
    pub vio_scale_sigma: f64,
    /// Yaw random walk, rad/√s.
    pub vio_yaw_walk_rad_per_sqrt_s: f64,
    /// White position jitter per sample and axis, m.
    pub vio_white_m: f64,
    /// White attitude jitter per sample and axis, rad.
    pub vio_white_rad: f64,
    /// Time from the start during which the tracker reports it is initialising, s.
    pub vio_init_s: f64,
    /// Eye gaze and hands: the MPS models' form with these magnitudes (only the `gaze_*`,
    /// `ipd_m` and `hand_*` fields are read).
    pub perception: MpsErrorSpec,
}

impl DeviceErrorSpec {
    /// The magnitudes assumed for Aria Gen2's on-device estimators (`docs/synthetic.md`).
    pub const TYPICAL: DeviceErrorSpec = DeviceErrorSpec {
        vio_scale_sigma: 0.01,
        // 0.5° after one minute (1σ).
        vio_yaw_walk_rad_per_sqrt_s: 0.001_127,
        vio_white_m: 0.002,
        vio_white_rad: 0.0017,
        vio_init_s: 0.5,
        perception: MpsErrorSpec {
            gaze_bias_rad: 0.035,
            gaze_noise_rad: 0.026,
            gaze_vergence_rad: 0.013,
            hand_bias_m: 0.015,
            hand_noise_m: 0.01,
            ..MpsErrorSpec::TYPICAL
        },
    };
}

/// One sample of the on-device VIO.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VioSample {
    /// Capture time, device ns.
    pub t_ns: i64,
    /// Estimated `T_Odometry_Device`.
    pub t_odometry_device: Isometry3<f64>,
    /// Estimated linear velocity, odometry frame, m/s.
    pub linear_velocity_odometry_mps: Vector3<f64>,
    /// Angular velocity, device frame, rad/s.
    pub angular_velocity_device_radps: Vector3<f64>,
    /// Whether the tracker is past its initialisation (quality 1, status valid).
    pub tracking: bool,
}

/// The on-device VIO's estimate at a fixed rate over a whole session.
#[derive(Debug, Clone)]
pub struct VioTrack {
    rate_hz: f64,
    samples: Vec<VioSample>,
}

impl VioTrack {
    /// The estimate of `path` at `rate_hz` from `t0_ns` over `duration_s`: exact truth with
    /// `spec` `None` (in the session's own odometry frame all the same).
    pub fn new(
        path: &WearerPath,
        t0_ns: i64,
        rate_hz: f64,
        duration_s: f64,
        spec: Option<&DeviceErrorSpec>,
        rng: &mut SplitMix64,
    ) -> Self {
        // The odometry frame: gravity-aligned, at the first true position, with a heading of
        // the tracker's own.
        let start = path.t_world_device(0.0);
        let heading = rng.uniform() * std::f64::consts::TAU;
        let t_odometry_world = Isometry3::from_parts(
            Translation3::identity(),
            UnitQuaternion::from_axis_angle(&Vector3::z_axis(), heading),
        ) * Isometry3::translation(
            -start.translation.x,
            -start.translation.y,
            -start.translation.z,
        );
        let scale = 1.0 + spec.map_or(0.0, |s| rng.normal() * s.vio_scale_sigma);
        let dt = 1.0 / rate_hz.max(1e-3);
        let mut yaw = 0.0f64;
        let mut p_est = start.translation.vector;
        let mut p_prev = start.translation.vector;
        let mut samples = Vec::new();
        for (t_ns, t_s) in sample_times(t0_ns, rate_hz, duration_s) {
            let truth = path.t_world_device(t_s);
            let p = truth.translation.vector;
            let mut drift = UnitQuaternion::identity();
            let mut jitter_p = Vector3::zeros();
            let mut jitter_r = UnitQuaternion::identity();
            if let Some(s) = spec {
                yaw += rng.normal() * s.vio_yaw_walk_rad_per_sqrt_s * dt.sqrt();
                drift = UnitQuaternion::from_axis_angle(&Vector3::z_axis(), yaw);
                jitter_p = Vector3::new(rng.normal(), rng.normal(), rng.normal()) * s.vio_white_m;
                jitter_r = UnitQuaternion::from_scaled_axis(
                    Vector3::new(rng.normal(), rng.normal(), rng.normal()) * s.vio_white_rad,
                );
            }
            // The walked step, turned by the heading drift and scaled.
            p_est += drift * ((p - p_prev) * scale);
            p_prev = p;
            let est_world = Isometry3::from_parts(
                Translation3::from(p_est + jitter_p),
                jitter_r * drift * truth.rotation,
            );
            let [_, v_world, _] = path.point_kinematics(t_s, &Vector3::zeros());
            samples.push(VioSample {
                t_ns,
                t_odometry_device: t_odometry_world * est_world,
                linear_velocity_odometry_mps: t_odometry_world.rotation * (drift * v_world * scale),
                angular_velocity_device_radps: path.angular_velocity_device(t_s),
                tracking: spec.is_none_or(|s| t_s >= s.vio_init_s),
            });
        }
        Self { rate_hz, samples }
    }

    /// Every sample, in time order.
    pub fn samples(&self) -> &[VioSample] {
        &self.samples
    }

    /// The sample nearest `t_s` from the start (the last beyond the end).
    pub fn at(&self, t_s: f64) -> Option<&VioSample> {
        let i = (t_s.max(0.0) * self.rate_hz).round() as usize;
        self.samples
            .get(i.min(self.samples.len().saturating_sub(1)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synth::scenario::Wearer;

    fn walker() -> WearerPath {
        let wearer: Wearer = serde_json::from_value(serde_json::json!({
            "start_m": [0.0, 0.0],
            "heading_deg": 90.0,
            "script": [{"do": "walk", "distance_m": 30.0, "speed_mps": 1.2}]
        }))
        .unwrap();
        WearerPath::new(&wearer, 0.0, Isometry3::identity())
    }

    #[test]
    fn the_exact_track_is_the_truth_in_its_own_frame() {
        let path = walker();
        let track = VioTrack::new(&path, 0, 100.0, 20.0, None, &mut SplitMix64::new(1));
        let first = track.samples()[0];
        assert!(first.t_odometry_device.translation.vector.norm() < 1e-9);
        // Distances walked are kept exactly, whatever the frame.
        let last = track.samples().last().unwrap();
        let walked = (path
            .t_world_device(last.t_ns as f64 * 1e-9)
            .translation
            .vector
            - path.t_world_device(0.0).translation.vector)
            .norm();
        let est = last.t_odometry_device.translation.vector.norm();
        assert!((est - walked).abs() < 1e-6, "{est} vs {walked}");
        assert!(track.samples().iter().all(|s| s.tracking));
    }

    #[test]
    fn the_typical_track_drifts_slowly_and_initialises_first() {
        let path = walker();
        let spec = DeviceErrorSpec::TYPICAL;
        let mut worst = 0.0f64;
        for seed in 0..8 {
            let track = VioTrack::new(
                &path,
                0,
                200.0,
                24.0,
                Some(&spec),
                &mut SplitMix64::new(seed),
            );
            assert!(!track.at(0.2).unwrap().tracking);
            assert!(track.at(1.0).unwrap().tracking);
            let last = track.samples().last().unwrap();
            let truth = (path
                .t_world_device(last.t_ns as f64 * 1e-9)
                .translation
                .vector
                - path.t_world_device(0.0).translation.vector)
                .norm();
            let est = last.t_odometry_device.translation.vector.norm();
            worst = worst.max((est - truth).abs() / truth);
        }
        // The distance error stays within a few scale sigmas, and is not zero.
        assert!(worst > 1e-4 && worst < 0.05, "{worst}");
    }
}
