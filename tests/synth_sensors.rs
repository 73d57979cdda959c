//! Synthetic motion sensors invert to the scripted truth: the IMU (rectified through the
//! real calibration) integrated along the trajectory reproduces the pose; the
//! tilt-compensated magnetometer gives the heading; the barometer gives the altitude.

use std::path::Path;

use nalgebra::{Isometry3, Point3, UnitQuaternion, Vector3};
use vista::aria::calib::DeviceCalibration;
use vista::synth::scenario::Scenario;
use vista::synth::sensors::{
    baro_readings, imu_readings, mag_readings, standard_altitude_m, GRAVITY_WORLD_MPS2,
};
use vista::synth::{NoiseSpec, SplitMix64, WearerPath};

const CALIB: &str = "calibration/aria_gen1_1WM09380041283_factory.json";

fn setup() -> (DeviceCalibration, Scenario, WearerPath) {
    let cal = DeviceCalibration::from_json_file(CALIB).unwrap();
    let sc = Scenario::load(Path::new("scenarios/pole_to_door.json")).unwrap();
    let path = WearerPath::new(&sc.wearer, sc.world.floor_z_m, cal.t_device_cpf());
    (cal, sc, path)
}

fn v(a: [f32; 3]) -> Vector3<f64> {
    Vector3::new(a[0] as f64, a[1] as f64, a[2] as f64)
}

/// Strapdown integration of one IMU from the true initial state; returns the worst
/// position (m) and rotation (rad) errors against the truth.
fn integrate(imu_label: &str, rate_hz: f64, from_s: f64, secs: f64) -> (f64, f64) {
    let (cal, _, path) = setup();
    let imu = cal.imu(imu_label).unwrap();
    let t0_ns = 1_000_000_000;
    let all = imu_readings(
        &path,
        imu,
        t0_ns,
        rate_hz,
        from_s + secs,
        &NoiseSpec::NONE,
        &mut SplitMix64::new(1),
    );
    let first = (from_s * rate_hz).round() as usize;
    let r = &all[first..];
    let t_of = |t_ns: i64| (t_ns - t0_ns) as f64 * 1e-9;
    let p_di = imu.t_device_imu.translation.vector;
    let truth_imu = |t: f64| -> Isometry3<f64> { path.t_world_device(t) * imu.t_device_imu };
    let g = Vector3::from(GRAVITY_WORLD_MPS2);
    let rect = |k: usize| {
        (
            imu.rectify_accel(&v(r[k].accel_mps2)),
            imu.rectify_gyro(&v(r[k].gyro_radps)),
        )
    };
    let t_start = t_of(r[0].t_ns);
    let mut rot = truth_imu(t_start).rotation;
    let mut pos = truth_imu(t_start).translation.vector;
    let mut vel = path.point_kinematics(t_start, &p_di)[1];
    let (mut worst_p, mut worst_r) = (0.0f64, 0.0f64);
    for k in 0..r.len() - 1 {
        let dt = t_of(r[k + 1].t_ns) - t_of(r[k].t_ns);
        let (f0, w0) = rect(k);
        let (f1, w1) = rect(k + 1);
        let a0 = rot * f0 + g;
        let rot1 = rot * UnitQuaternion::from_scaled_axis((w0 + w1) * 0.5 * dt);
        let a1 = rot1 * f1 + g;
        let vel1 = vel + (a0 + a1) * 0.5 * dt;
        pos += (vel + vel1) * 0.5 * dt;
        vel = vel1;
        rot = rot1;
        let truth = truth_imu(t_of(r[k + 1].t_ns));
        worst_p = worst_p.max((truth.translation.vector - pos).norm());
        worst_r = worst_r.max(truth.rotation.angle_to(&rot));
    }
    (worst_p, worst_r)
}

#[test]
fn integrated_imu_right_reproduces_the_pose_over_five_seconds_of_walking() {
    // 0.5 s → 5.5 s covers the start, the walk with head bob and the stop.
    let (dp, dr) = integrate("imu-right", 1000.0, 0.5, 5.0);
    eprintln!("worst error: {dp:.2e} m, {dr:.2e} rad");
    assert!(dp < 1e-3, "position error {dp} m");
    assert!(dr < 1e-4, "rotation error {dr} rad");
}

#[test]
fn integrated_imu_left_reproduces_the_pose_through_look_around_and_turn() {
    // 800 Hz; 6 s → 11 s: looking around, turning, starting to walk.
    let (dp, dr) = integrate("imu-left", 800.0, 6.0, 5.0);
    eprintln!("worst error: {dp:.2e} m, {dr:.2e} rad");
    assert!(dp < 1e-3, "position error {dp} m");
    assert!(dr < 1e-4, "rotation error {dr} rad");
}

fn heading_from_sensors(noise: &NoiseSpec, t_s: f64) -> (f64, f64) {
    let (cal, _, path) = setup();
    let imu = cal.imu("imu-right").unwrap();
    let mag_cal = cal.magnetometer("mag0");
    let t_device_mag = cal
        .cad_t_device_sensor("mag0")
        .unwrap_or_else(Isometry3::identity);
    let t0_ns = 0;
    let dur = t_s + 0.2;
    let mut rng = SplitMix64::new(9);
    let acc = imu_readings(&path, imu, t0_ns, 1000.0, dur, noise, &mut rng);
    let mag = mag_readings(
        &path,
        mag_cal,
        &t_device_mag,
        t0_ns,
        10.0,
        dur,
        noise,
        &mut rng,
    );
    let k_acc = (t_s * 1000.0).round() as usize;
    let k_mag = (t_s * 10.0).round() as usize;
    // Up in the device frame from the (static) accelerometer, field from the magnetometer.
    let up = (imu.t_device_imu.rotation * imu.rectify_accel(&v(acc[k_acc].accel_mps2))).normalize();
    let m_raw = v(mag[k_mag].1) * 1e-6;
    let m_sensor = mag_cal.map_or(m_raw, |c| c.model.rectify(&m_raw));
    let m = t_device_mag.rotation * m_sensor;
    let east = m.cross(&up).normalize();
    let north = up.cross(&east);
    let fwd = path.t_device_cpf().rotation * Vector3::z();
    let est = fwd.dot(&north).atan2(fwd.dot(&east));
    let truth = path.head(t_s).yaw_rad;
    (est, truth)
}

fn angle_diff(a: f64, b: f64) -> f64 {
    let d = (a - b).rem_euclid(std::f64::consts::TAU);
    d.min(std::f64::consts::TAU - d)
}

#[test]
fn tilt_compensated_magnetometer_gives_the_true_heading() {
    // Standing at 0.5 s and 6.5 s (heading 0°), and after the last turn (90°).
    for t in [0.5, 6.5, 22.0] {
        let (est, truth) = heading_from_sensors(&NoiseSpec::NONE, t);
        assert!(angle_diff(est, truth) < 1e-4, "t={t}: {est} vs {truth}");
        let (est, truth) = heading_from_sensors(&NoiseSpec::TYPICAL, t);
        // 0.3 µT on a 20 µT horizontal field ≈ 0.9° per axis; 3° is > 3σ.
        assert!(
            angle_diff(est, truth) < 3f64.to_radians(),
            "t={t}: {est} vs {truth}"
        );
    }
    // The script turns 30°, −30°, then 90°: the last heading really is 90° (the check is not vacuous).
    let last = heading_from_sensors(&NoiseSpec::NONE, 22.0).1;
    assert!(angle_diff(last, 90f64.to_radians()) < 1e-9, "{last}");
}

#[test]
fn barometer_inverts_to_the_altitude() {
    let (cal, sc, path) = setup();
    let baro = cal.barometer("baro0");
    for (noise, tol_m) in [(NoiseSpec::NONE, 1e-6), (NoiseSpec::TYPICAL, 0.6)] {
        let r = baro_readings(
            &path,
            baro,
            sc.world.altitude_m,
            0,
            50.0,
            10.0,
            &noise,
            &mut SplitMix64::new(3),
        );
        assert_eq!(r.len(), 500);
        for (t_ns, raw) in r {
            let p = baro.map_or(raw, |b| b.rectify(raw));
            let z = (path.t_world_device(t_ns as f64 * 1e-9) * Point3::origin()).z;
            let err = standard_altitude_m(p) - (z + sc.world.altitude_m);
            // TYPICAL: 1 Pa ≈ 0.085 m at sea level; 0.6 m is 7σ.
            assert!(err.abs() < tol_m, "t={t_ns}: {err}");
        }
    }
}
