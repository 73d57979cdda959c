//! MPS-format text outputs of a synthetic session (formatting only; the caller writes the
//! bytes): `closed_loop_trajectory.csv` and `general_eye_gaze.csv`, columns as MPS writes
//! them (reference §4.2, §4.5).

use std::fmt::Write as _;

use nalgebra::Point3;

use super::gaze::gaze_at;
use super::scenario::GazeTarget;
use super::sensors::{sample_times, GRAVITY_WORLD_MPS2};
use super::trajectory::WearerPath;

/// Header of `closed_loop_trajectory.csv`.
pub const CLOSED_LOOP_HEADER: &str = "graph_uid,tracking_timestamp_us,utc_timestamp_ns,tx_world_device,ty_world_device,tz_world_device,qx_world_device,qy_world_device,qz_world_device,qw_world_device,device_linear_velocity_x_device,device_linear_velocity_y_device,device_linear_velocity_z_device,angular_velocity_x_device,angular_velocity_y_device,angular_velocity_z_device,gravity_x_world,gravity_y_world,gravity_z_world,quality_score";

/// Header of `general_eye_gaze.csv` (the legacy general model).
pub const EYE_GAZE_HEADER: &str = "tracking_timestamp_us,yaw_rads_cpf,pitch_rads_cpf,yaw_low_rads_cpf,pitch_low_rads_cpf,yaw_high_rads_cpf,pitch_high_rads_cpf,depth_m,session_uid";

/// The closed-loop trajectory at `rate_hz` (MPS: 1 kHz), truth without noise.
pub fn closed_loop_csv(
    path: &WearerPath,
    graph_uid: &str,
    t0_ns: i64,
    rate_hz: f64,
    duration_s: f64,
) -> String {
    let mut out = String::with_capacity((duration_s * rate_hz) as usize * 260 + 400);
    out.push_str(CLOSED_LOOP_HEADER);
    out.push('\n');
    let g = GRAVITY_WORLD_MPS2;
    for (t_ns, t_s) in sample_times(t0_ns, rate_hz, duration_s) {
        let t = path.t_world_device(t_s);
        let [_, v_world, _] = path.point_kinematics(t_s, &nalgebra::Vector3::zeros());
        let v = t.rotation.inverse() * v_world;
        let w = path.angular_velocity_device(t_s);
        let p = t * Point3::origin();
        let q = t.rotation.coords; // x, y, z, w
        let _ = writeln!(
            out,
            "{graph_uid},{},-1,{:.9},{:.9},{:.9},{:.9},{:.9},{:.9},{:.9},{:.6},{:.6},{:.6},{:.6},{:.6},{:.6},{},{},{},1.0",
            t_ns / 1000, p.x, p.y, p.z, q.x, q.y, q.z, q.w, v.x, v.y, v.z, w.x, w.y, w.z, g[0], g[1], g[2]
        );
    }
    out
}

/// Eye gaze at `rate_hz` toward the scripted targets, with a ±`spread_rad` confidence band.
pub fn eye_gaze_csv(
    path: &WearerPath,
    targets: &[GazeTarget],
    session_uid: &str,
    t0_ns: i64,
    rate_hz: f64,
    duration_s: f64,
) -> String {
    let spread_rad = 0.05;
    let mut out = String::with_capacity((duration_s * rate_hz) as usize * 120 + 200);
    out.push_str(EYE_GAZE_HEADER);
    out.push('\n');
    for (t_ns, t_s) in sample_times(t0_ns, rate_hz, duration_s) {
        let g = gaze_at(path, targets, t_s);
        let depth = g.depth_m.map(|d| format!("{d:.4}")).unwrap_or_default();
        let _ = writeln!(
            out,
            "{},{:.6},{:.6},{:.6},{:.6},{:.6},{:.6},{depth},{session_uid}",
            t_ns / 1000,
            g.yaw_rad,
            g.pitch_rad,
            g.yaw_rad - spread_rad,
            g.pitch_rad - spread_rad,
            g.yaw_rad + spread_rad,
            g.pitch_rad + spread_rad,
        );
    }
    out
}
