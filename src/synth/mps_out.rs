//! MPS-format text outputs of a synthetic session (formatting only; the caller writes the
//! bytes): `closed_loop_trajectory.csv` and `general_eye_gaze.csv`, columns as MPS writes
//! them (reference §4.2, §4.5). With an error model ([`super::mps_noise`]) they are what
//! MPS would estimate (slow drift and jitter, gaze bias and noise); without one
//! (`vista synth --mps-exact`) they are the simulator's exact truth, which no real MPS
//! output is.

use std::fmt::Write as _;

use nalgebra::Point3;

use super::gaze::gaze_at;
use super::mps_noise::{GazeError, MpsErrorSpec, TrajectoryError};
use super::rng::SplitMix64;
use super::scenario::GazeTarget;
use super::sensors::{sample_times, GRAVITY_WORLD_MPS2};
use super::trajectory::WearerPath;

/// Header of `closed_loop_trajectory.csv`.
pub const CLOSED_LOOP_HEADER: &str = "graph_uid,tracking_timestamp_us,utc_timestamp_ns,tx_world_device,ty_world_device,tz_world_device,qx_world_device,qy_world_device,qz_world_device,qw_world_device,device_linear_velocity_x_device,device_linear_velocity_y_device,device_linear_velocity_z_device,angular_velocity_x_device,angular_velocity_y_device,angular_velocity_z_device,gravity_x_world,gravity_y_world,gravity_z_world,quality_score";

/// Header of `general_eye_gaze.csv` (the legacy general model).
pub const EYE_GAZE_HEADER: &str = "tracking_timestamp_us,yaw_rads_cpf,pitch_rads_cpf,yaw_low_rads_cpf,pitch_low_rads_cpf,yaw_high_rads_cpf,pitch_high_rads_cpf,depth_m,session_uid";

/// The closed-loop trajectory at `rate_hz` (MPS: 1 kHz). With `error` (the magnitudes and
/// the session's drawn error track), each row is the truth composed with the track's slow
/// position and yaw error and white jitter, its velocity columns carry the rate of that
/// error, and the rows of the first [`MpsErrorSpec::traj_init_s`] have the lower
/// initialising quality; without, the truth itself at quality 1.
pub fn closed_loop_csv(
    path: &WearerPath,
    graph_uid: &str,
    t0_ns: i64,
    rate_hz: f64,
    duration_s: f64,
    error: Option<(&MpsErrorSpec, &TrajectoryError)>,
) -> String {
    let mut out = String::with_capacity((duration_s * rate_hz) as usize * 260 + 400);
    out.push_str(CLOSED_LOOP_HEADER);
    out.push('\n');
    let g = GRAVITY_WORLD_MPS2;
    for (t_ns, t_s) in sample_times(t0_ns, rate_hz, duration_s) {
        let mut t = path.t_world_device(t_s);
        let [_, mut v_world, _] = path.point_kinematics(t_s, &nalgebra::Vector3::zeros());
        let mut w = path.angular_velocity_device(t_s);
        let mut quality = 1.0f32;
        if let Some((spec, e)) = error.and_then(|(s, track)| track.at(t_s).map(|e| (s, e))) {
            t = e.apply(&t);
            v_world = e.rotation() * v_world + e.velocity_mps;
            w += t.rotation.inverse() * nalgebra::Vector3::z() * e.yaw_rate_radps;
            if t_s < spec.traj_init_s {
                quality = spec.traj_init_quality;
            }
        }
        let v = t.rotation.inverse() * v_world;
        let p = t * Point3::origin();
        let q = t.rotation.coords; // x, y, z, w
        let _ = writeln!(
            out,
            "{graph_uid},{},-1,{:.9},{:.9},{:.9},{:.9},{:.9},{:.9},{:.9},{:.6},{:.6},{:.6},{:.6},{:.6},{:.6},{},{},{},{quality:.1}",
            t_ns / 1000, p.x, p.y, p.z, q.x, q.y, q.z, q.w, v.x, v.y, v.z, w.x, w.y, w.z, g[0], g[1], g[2]
        );
    }
    out
}

/// Eye gaze at `rate_hz` toward the scripted targets. With `error`, each sample carries the
/// session's bias and its own noise (and a vergence depth disturbed accordingly), with the
/// model's confidence band around the estimate; without, the exact direction with a
/// ±0.05 rad band.
pub fn eye_gaze_csv(
    path: &WearerPath,
    targets: &[GazeTarget],
    session_uid: &str,
    t0_ns: i64,
    rate_hz: f64,
    duration_s: f64,
    mut error: Option<(&MpsErrorSpec, &mut SplitMix64)>,
) -> String {
    let mut out = String::with_capacity((duration_s * rate_hz) as usize * 120 + 200);
    out.push_str(EYE_GAZE_HEADER);
    out.push('\n');
    let model = error
        .as_mut()
        .map(|(spec, rng)| (GazeError::new(spec, rng), spec.gaze_band_rad));
    for (t_ns, t_s) in sample_times(t0_ns, rate_hz, duration_s) {
        let g = gaze_at(path, targets, t_s);
        let (yaw, pitch, depth_m, band) = match (&model, error.as_mut()) {
            (Some((m, band)), Some((_, rng))) => {
                let (y, p, d) = m.disturb(g.yaw_rad, g.pitch_rad, g.depth_m, rng);
                (y, p, d, *band)
            }
            _ => (g.yaw_rad, g.pitch_rad, g.depth_m, [0.05, 0.05]),
        };
        let depth = depth_m.map(|d| format!("{d:.4}")).unwrap_or_default();
        let _ = writeln!(
            out,
            "{},{:.6},{:.6},{:.6},{:.6},{:.6},{:.6},{depth},{session_uid}",
            t_ns / 1000,
            yaw,
            pitch,
            yaw - band[0],
            pitch - band[1],
            yaw + band[0],
            pitch + band[1],
        );
    }
    out
}
