//! The 64-bin grid on synthetic streams with known answers: per-bin means computed here
//! independently, masks for empty bins, NaN skipped, relative trajectory, gaze, hands,
//! heading and pressure change.

use std::f64::consts::FRAC_PI_2;

use nalgebra::{Isometry3, Translation3, UnitQuaternion, Vector3};
use vista::sample::{
    BaroSample, EyeGazeSample, HandSample, ImuSample, MagSample, Payload, PoseSample, Sample,
    StreamId, WristPalm,
};
use vista::time::{DeviceTime, HostTime};
use vista::window::{window_at, GridStream, WindowBuilder, WindowConfig, BINS};

const BIN: i64 = 100_000_000;

fn sample(stream: StreamId, t_ns: i64, payload: Payload) -> Sample {
    Sample {
        stream,
        capture: DeviceTime(t_ns),
        arrival: HostTime(0),
        seq: 0,
        payload,
    }
}

fn imu(stream: StreamId, t_ns: i64, a: [f32; 3], g: [f32; 3]) -> Sample {
    sample(
        stream,
        t_ns,
        Payload::Imu(ImuSample {
            accel_mps2: a,
            gyro_radps: g,
            accel_valid: true,
            gyro_valid: true,
            temperature_c: f32::NAN,
        }),
    )
}

fn pose(t_ns: i64, pos: [f64; 3], yaw_rad: f64) -> Sample {
    sample(
        StreamId::DevicePose,
        t_ns,
        Payload::Pose(PoseSample {
            t_world_device: Isometry3::from_parts(
                Translation3::new(pos[0], pos[1], pos[2]),
                UnitQuaternion::from_axis_angle(&Vector3::z_axis(), yaw_rad),
            ),
            linear_velocity_mps: [1.0, 2.0, 3.0],
            angular_velocity_radps: [0.1, 0.2, 0.3],
            quality: 0.9,
        }),
    )
}

fn cfg() -> WindowConfig {
    WindowConfig { bin_ns: BIN }
}

fn approx(a: f32, b: f64, tol: f64) {
    assert!(
        (f64::from(a) - b).abs() <= tol,
        "{a} vs {b} (tolerance {tol})"
    );
}

#[test]
fn imu_bins_are_means_of_their_samples_and_gaps_are_masked() {
    // Window ending at 10 s: bins [3.6 s, 3.7 s) … [9.9 s, 10.0 s].
    let t_end = 10 * 1_000_000_000 - 1;
    let start = t_end / BIN * BIN - (BINS as i64 - 1) * BIN;
    let mut samples = Vec::new();
    // 1 kHz right IMU and 800 Hz left IMU with a value that varies inside each bin, except
    // for a gap over bins 10..13 (right) — those bins must be masked.
    let mut t = start - 50 * 1_000_000;
    while t <= t_end {
        let x = (t as f64 * 1e-9).sin() as f32;
        let bin = (t - start).div_euclid(BIN);
        if !(10..13).contains(&bin) {
            samples.push(imu(
                StreamId::ImuRight,
                t,
                [x, 2.0 * x, 9.81],
                [0.1, -x, 0.0],
            ));
        }
        if t % 1_250_000 == 0 {
            samples.push(imu(StreamId::ImuLeft, t, [-x, 0.5, 9.0], [x, x, x]));
        }
        t += 1_000_000;
    }
    samples.sort_by_key(|s| s.capture);
    let w = window_at(&samples, DeviceTime(t_end), cfg(), None).unwrap();
    let imu_t = w.stream(GridStream::Imu);
    assert_eq!(imu_t.shape(), [64, 12]);
    assert_eq!(w.first_bin_start_ns, start);
    for bin in 0..BINS {
        let lo = start + bin as i64 * BIN;
        let hi = lo + BIN;
        let in_bin = |s: StreamId| {
            samples
                .iter()
                .filter(move |x| x.stream == s && x.capture.ns() >= lo && x.capture.ns() < hi)
        };
        if (10..13).contains(&bin) {
            assert!(!imu_t.mask[bin], "bin {bin} has no right-IMU sample");
            assert!((0..12).all(|c| imu_t.get(bin, c) == Some(0.0)));
            continue;
        }
        assert!(imu_t.mask[bin], "bin {bin}");
        for (stream, first) in [(StreamId::ImuRight, 0), (StreamId::ImuLeft, 6)] {
            let vals: Vec<[f64; 6]> = in_bin(stream)
                .map(|s| match &s.payload {
                    Payload::Imu(i) => {
                        let a = i.accel_mps2.map(f64::from);
                        let g = i.gyro_radps.map(f64::from);
                        [a[0], a[1], a[2], g[0], g[1], g[2]]
                    }
                    _ => unreachable!(),
                })
                .collect();
            assert!(!vals.is_empty());
            for c in 0..6 {
                let mean = vals.iter().map(|v| v[c]).sum::<f64>() / vals.len() as f64;
                approx(imu_t.get(bin, first + c).unwrap(), mean, 1e-6);
            }
        }
    }
}

#[test]
fn nan_values_are_skipped_and_counted_not_averaged() {
    let mut b = WindowBuilder::new(cfg()).unwrap();
    for (i, x) in [1.0f32, f32::NAN, 3.0, f32::INFINITY]
        .into_iter()
        .enumerate()
    {
        b.push(&imu(
            StreamId::ImuRight,
            i as i64 * 1_000_000,
            [x, 1.0, 1.0],
            [0.0; 3],
        ));
        b.push(&imu(
            StreamId::ImuLeft,
            i as i64 * 1_000_000,
            [1.0; 3],
            [0.0; 3],
        ));
    }
    let mut w = vista::window::SensorWindow::new();
    b.snapshot(DeviceTime(50_000_000), &mut w).unwrap();
    let t = w.stream(GridStream::Imu);
    assert!(t.mask[BINS - 1]);
    approx(t.get(BINS - 1, 0).unwrap(), 2.0, 0.0);
    approx(t.get(BINS - 1, 1).unwrap(), 1.0, 0.0);
    assert_eq!(b.counters().nan_values, 2);
    assert!(!t.mask[BINS - 2]);
}

#[test]
fn all_nan_bin_is_masked() {
    let mut b = WindowBuilder::new(cfg()).unwrap();
    b.push(&imu(StreamId::ImuRight, 0, [f32::NAN; 3], [0.0; 3]));
    b.push(&imu(StreamId::ImuLeft, 0, [1.0; 3], [0.0; 3]));
    let mut w = vista::window::SensorWindow::new();
    b.snapshot(DeviceTime(1), &mut w).unwrap();
    assert!(!w.stream(GridStream::Imu).mask[BINS - 1]);
    assert_eq!(w.stream(GridStream::Imu).valid_bins(), 0);
}

#[test]
fn trajectory_is_relative_to_the_newest_pose() {
    // Walk along world +x at 1 m/s with no rotation, then turn 90° left in the last bin.
    let t_end = 6_399_999_999;
    let mut samples = Vec::new();
    for ms in (0..6_400).step_by(10) {
        let t = ms as i64 * 1_000_000;
        let x = ms as f64 * 1e-3;
        let yaw = if ms >= 6_300 { FRAC_PI_2 } else { 0.0 };
        samples.push(pose(t, [x, 5.0, 1.6], yaw));
    }
    let w = window_at(&samples, DeviceTime(t_end), cfg(), None).unwrap();
    let tr = w.stream(GridStream::Trajectory);
    assert_eq!(tr.valid_bins(), 64);
    // Newest bin: identity.
    for c in 0..6 {
        approx(tr.get(63, c).unwrap(), 0.0, 1e-9);
    }
    // Bin 0's last pose: x = 0.09 m, yaw 0; end pose x = 6.39 m, yaw 90°.
    // In the end frame (x forward = world +y, y = world −x): Δworld = (−6.3, 0, 0) → (0, 6.3, 0).
    approx(tr.get(0, 0).unwrap(), 0.0, 1e-6);
    approx(tr.get(0, 1).unwrap(), 6.3, 1e-6);
    approx(tr.get(0, 2).unwrap(), 0.0, 1e-6);
    approx(tr.get(0, 5).unwrap(), -FRAC_PI_2, 1e-6);
    // Velocities and quality pass through.
    approx(tr.get(0, 6).unwrap(), 1.0, 0.0);
    approx(tr.get(0, 11).unwrap(), 0.3, 1e-7);
    approx(tr.get(0, 12).unwrap(), 0.9, 1e-7);
}

#[test]
fn gaze_is_a_unit_vector_with_depth_and_its_validity() {
    let mut samples = Vec::new();
    for i in 0..10 {
        let depth = if i % 2 == 0 { Some(2.0) } else { None };
        samples.push(sample(
            StreamId::EyeGaze,
            i * 10_000_000,
            Payload::EyeGaze(EyeGazeSample {
                yaw_rad: 0.3,
                pitch_rad: -0.2,
                depth_m: depth,
            }),
        ));
    }
    let w = window_at(&samples, DeviceTime(99_999_999), cfg(), None).unwrap();
    let g = w.stream(GridStream::EyeGaze);
    assert_eq!(g.valid_bins(), 1);
    // [tan yaw, tan pitch, 1] normalised.
    let v = [0.3f64.tan(), (-0.2f64).tan(), 1.0];
    let n = (v[0] * v[0] + v[1] * v[1] + 1.0).sqrt();
    for (c, x) in v.iter().enumerate() {
        approx(g.get(63, c).unwrap(), x / n, 1e-6);
    }
    approx(g.get(63, 3).unwrap(), 2.0, 0.0);
    approx(g.get(63, 4).unwrap(), 0.5, 0.0);
}

#[test]
fn absent_hand_has_zero_confidence_and_unobserved_positions() {
    let wp = WristPalm {
        confidence: 0.8,
        wrist_m: [0.1, 0.2, 0.3],
        palm_m: [0.2, 0.3, 0.4],
    };
    let samples = vec![
        sample(
            StreamId::HandTracking,
            0,
            Payload::Hands(HandSample {
                left: Some(wp),
                right: None,
            }),
        ),
        sample(
            StreamId::HandTracking,
            50_000_000,
            Payload::Hands(HandSample {
                left: None,
                right: None,
            }),
        ),
    ];
    let w = window_at(&samples, DeviceTime(99_999_999), cfg(), None).unwrap();
    let h = w.stream(GridStream::Hands);
    assert!(h.mask[63]);
    approx(h.get(63, 0).unwrap(), 0.4, 1e-7); // mean of 0.8 and absent (0)
    approx(h.get(63, 1).unwrap(), 0.1, 1e-7);
    approx(h.get(63, 7).unwrap(), 0.0, 0.0);
    assert!(h.observed(63, 7));
    assert!(!h.observed(63, 8));
    assert_eq!(h.get(63, 8), Some(0.0));
}

#[test]
fn heading_and_pressure_change_are_relative_to_the_window_end() {
    let mut samples = Vec::new();
    for i in 0..64i64 {
        let t = i * BIN + 10_000_000;
        // Field turning 1° per bin in the sensor x–y plane; pressure falling 1.2 Pa per bin
        // (climbing ~10 cm per bin).
        let a = (i as f64).to_radians();
        samples.push(sample(
            StreamId::Magnetometer,
            t,
            Payload::Magnetometer(MagSample {
                field_t: [(30e-6 * a.cos()) as f32, (30e-6 * a.sin()) as f32, -20e-6],
            }),
        ));
        for k in 0..5 {
            samples.push(sample(
                StreamId::Barometer,
                t + k * 20_000_000,
                Payload::Barometer(BaroSample {
                    pressure_pa: 101_325.0 - 1.2 * i as f64 - 0.1 * k as f64,
                    temperature_c: 20.0,
                }),
            ));
        }
    }
    samples.sort_by_key(|s| s.capture);
    let w = window_at(&samples, DeviceTime(64 * BIN - 1), cfg(), None).unwrap();
    let m = w.stream(GridStream::MagBaro);
    assert_eq!(m.valid_bins(), 64);
    approx(m.get(0, 3).unwrap(), -(63f64).to_radians(), 1e-5);
    approx(m.get(63, 3).unwrap(), 0.0, 0.0);
    // Bin means of pressure: 101325 − 1.2 i − 0.2; change against bin 63.
    approx(m.get(0, 4).unwrap(), 1.2 * 63.0, 1e-3);
    let f = [
        30e-6 * (10f64).to_radians().cos(),
        30e-6 * (10f64).to_radians().sin(),
        -20e-6,
    ];
    let n = (f[0] * f[0] + f[1] * f[1] + f[2] * f[2]).sqrt();
    approx(m.get(10, 0).unwrap(), f[0] / n, 1e-5);
    approx(m.get(10, 2).unwrap(), f[2] / n, 1e-5);
}

#[test]
fn snapshot_before_newest_sample_is_an_error() {
    let mut b = WindowBuilder::new(cfg()).unwrap();
    b.push(&imu(StreamId::ImuRight, 1_000, [0.0; 3], [0.0; 3]));
    let mut w = vista::window::SensorWindow::new();
    assert!(b.snapshot(DeviceTime(999), &mut w).is_err());
    assert!(WindowBuilder::new(WindowConfig { bin_ns: 0 }).is_err());
}

#[test]
fn late_samples_are_counted_and_negative_times_bin_correctly() {
    let mut b = WindowBuilder::new(cfg()).unwrap();
    // Negative device times: bin −1 holds [−100 ms, 0).
    b.push(&imu(StreamId::ImuRight, -1, [1.0; 3], [0.0; 3]));
    b.push(&imu(StreamId::ImuLeft, -50_000_000, [1.0; 3], [0.0; 3]));
    let mut w = vista::window::SensorWindow::new();
    b.snapshot(DeviceTime(-1), &mut w).unwrap();
    assert_eq!(w.first_bin_start_ns, -64 * BIN);
    assert!(w.stream(GridStream::Imu).mask[63]);
    // Move 10 s on; a sample from the first bin is now older than the ring: dropped, counted.
    b.push(&imu(StreamId::ImuRight, 10_000_000_000, [2.0; 3], [0.0; 3]));
    b.push(&imu(StreamId::ImuRight, -2, [9.0; 3], [0.0; 3]));
    assert_eq!(b.counters().too_late, 1);
    b.snapshot(DeviceTime(10_000_000_000), &mut w).unwrap();
    assert_eq!(w.stream(GridStream::Imu).valid_bins(), 0);
    // Length configuration.
    assert_eq!(
        WindowConfig::with_length_ns(6_400_000_000).unwrap().bin_ns,
        100_000_000
    );
    assert!(WindowConfig::with_length_ns(63).is_err());
}
