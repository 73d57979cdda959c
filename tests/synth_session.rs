//! Synthetic sessions: deterministic for a seed, every file reads back through the crate's
//! readers and agrees with the others (IMU gravity in the trajectory's frame, eye gaze
//! toward the scripted target, barometer altitude), and the CLI lists, writes, inspects and
//! replays them.

use std::path::Path;
use std::process::Command;

use nalgebra::{Point3, Vector3};
use vista::aria::calib::DeviceCalibration;
use vista::aria::mps::{read_eye_gaze, read_trajectory};
use vista::aria::recording::{decode_image, AriaRecording};
use vista::sample::{Payload, StreamId};
use vista::source::session_files::SessionFiles;
use vista::synth::exposure::{BASE_EXPOSURE_S, FACTOR_RANGE, TARGET_MEAN_DN};
use vista::synth::sensors::standard_altitude_m;
use vista::synth::{find_scenario, write_session, SynthOptions};

const CALIB: &str = "calibration/aria_gen1_1WM09380041283_factory.json";

fn synth(name: &str, seed: u64, secs: f64, dir: &Path) {
    let sc = find_scenario(Path::new("scenarios"), name).unwrap();
    // RGB at 1 fps keeps debug-build tests short (1408² frames); synth_rgb.rs covers it.
    // Exact MPS files: the checks compare the gaze file with the scripted targets to 1e-4
    // rad (the MPS-like files' determinism is checked in tests/synth_semidense.rs).
    let opts = SynthOptions {
        seed,
        duration_s: Some(secs),
        rgb_fps: Some(1.0),
        mps_error: None,
        ..SynthOptions::default()
    };
    write_session(&sc, dir, &opts).unwrap();
}

fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for rel in [
        "recording.vrs",
        "mps/slam/closed_loop_trajectory.csv",
        "mps/eye_gaze/general_eye_gaze.csv",
        "mps/slam/semidense_points.csv.gz",
        "mps/slam/semidense_observations.csv.gz",
        "requests.jsonl",
        "ground_truth.json",
    ] {
        out.push((rel.to_string(), std::fs::read(dir.join(rel)).unwrap()));
    }
    out
}

#[test]
fn same_seed_gives_byte_identical_sessions() {
    let t = tempfile::tempdir().unwrap();
    let (a, b, c) = (t.path().join("a"), t.path().join("b"), t.path().join("c"));
    synth("pole_to_door", 7, 6.0, &a);
    synth("pole_to_door", 7, 6.0, &b);
    synth("pole_to_door", 8, 6.0, &c);
    for ((name, x), (_, y)) in files(&a).iter().zip(files(&b).iter()) {
        assert!(x == y, "{name} differs between two runs with the same seed");
    }
    let (fa, fc) = (files(&a), files(&c));
    assert_ne!(
        fa[0].1, fc[0].1,
        "another seed must change the sensor noise"
    );
}

#[test]
fn every_file_reads_back_and_agrees_with_the_others() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path();
    let secs = 24.0;
    synth("pole_to_door", 1, secs, dir);
    let cal = DeviceCalibration::from_json_file(CALIB).unwrap();

    let session = SessionFiles::locate(dir).unwrap();
    assert!(session.requests.is_some() && session.ground_truth.is_some());
    assert!(session.mps.closed_loop.is_some() && session.mps.eye_gaze.is_some());

    // Trajectory: 1 kHz, device time µs.
    let traj = read_trajectory(session.mps.closed_loop.as_ref().unwrap()).unwrap();
    assert_eq!(traj.len(), (secs * 1000.0) as usize);
    let pose_at = |ns: i64| {
        let i = traj.partition_point(|p| p.tracking_time.ns() < ns);
        assert_eq!(traj[i].tracking_time.ns(), ns);
        &traj[i]
    };

    // Recording: counts, rates, and physics against the trajectory file.
    let rec = AriaRecording::open(&session.recording).unwrap();
    let mut counts = std::collections::BTreeMap::new();
    let imu = cal.imu("imu-right").unwrap();
    let baro = cal.barometer("baro0").unwrap();
    let (mut checked_gravity, mut checked_baro, mut checked_frames) = (0, 0, 0);
    for s in rec.samples() {
        let (stream, t, payload) = s.unwrap();
        *counts.entry(stream).or_insert(0usize) += 1;
        // Standing still from 6.0 s to 6.7 s after the start: the IMU feels only gravity.
        let rel_s = (t.ns() - 1_000_000_000) as f64 * 1e-9;
        match payload {
            Payload::Imu(m) if stream == StreamId::ImuRight && (6.0..6.7).contains(&rel_s) => {
                let raw =
                    Vector3::new(m.accel_mps2[0], m.accel_mps2[1], m.accel_mps2[2]).cast::<f64>();
                let f_world = pose_at(t.ns()).t_world_device.rotation
                    * imu.t_device_imu.rotation
                    * imu.rectify_accel(&raw);
                // Noise 0.02 and bias 0.03 m/s² (1σ) per axis.
                assert!(
                    (f_world - Vector3::new(0.0, 0.0, 9.81)).norm() < 0.25,
                    "{f_world}"
                );
                checked_gravity += 1;
            }
            Payload::Image(f)
                if f.frame_number == 30
                    && matches!(stream, StreamId::CameraSlamLeft | StreamId::CameraSlamRight) =>
            {
                let img = decode_image(&f).unwrap();
                assert_eq!((img.width, img.height, img.channels), (640, 480, 1));
                let lit = img.pixels.iter().filter(|&&p| p > 60).count();
                let dark = img.pixels.iter().filter(|&&p| p < 10).count();
                // The corridor fills the fisheye circle; the corners outside it are black.
                assert!(lit > 20_000 && dark > 10_000, "{lit} lit, {dark} dark");
                // Auto-exposed: the fisheye circle averages the target level (JPEG, noise
                // and the circle's dark rim aside), and the frame records how much its
                // exposure brightened the render.
                let circle: Vec<f64> = img
                    .pixels
                    .iter()
                    .filter(|&&p| p >= 10)
                    .map(|&p| f64::from(p))
                    .collect();
                let mean = circle.iter().sum::<f64>() / circle.len() as f64;
                assert!((mean - f64::from(TARGET_MEAN_DN)).abs() < 12.0, "{mean}");
                let factor = f.exposure_s * f.gain / BASE_EXPOSURE_S;
                assert!(
                    factor > 1.05 && factor <= FACTOR_RANGE.1,
                    "{} s × {}",
                    f.exposure_s,
                    f.gain
                );
                checked_frames += 1;
            }
            Payload::Barometer(b) => {
                let z = pose_at(t.ns()).t_world_device.translation.vector.z;
                let alt = standard_altitude_m(baro.rectify(b.pressure_pa));
                // Scenario altitude 35 m; 1 Pa noise ≈ 0.085 m.
                assert!((alt - (z + 35.0)).abs() < 0.6, "{alt} vs {z}");
                checked_baro += 1;
            }
            _ => {}
        }
    }
    assert_eq!(checked_gravity, 700);
    assert_eq!(checked_baro, 1200);
    assert_eq!(checked_frames, 2);
    assert_eq!(counts[&StreamId::ImuRight], 24_000);
    assert_eq!(counts[&StreamId::ImuLeft], 19_200);
    assert_eq!(counts[&StreamId::Magnetometer], 240);
    assert_eq!(counts[&StreamId::Barometer], 1200);
    // SLAM cameras at 10 fps: 640×480 greyscale JPEG frames that decode and show a scene.
    assert_eq!(counts[&StreamId::CameraSlamLeft], 240);
    assert_eq!(counts[&StreamId::CameraSlamRight], 240);
    assert_eq!(counts[&StreamId::CameraRgb], 24);
    // The eye-tracking camera at its default 10 fps.
    assert_eq!(counts[&StreamId::CameraEt], 240);
    let sums = rec.summaries();
    let rate = |id: &str| {
        sums.iter()
            .find(|s| s.vrs_id == id)
            .unwrap()
            .measured_rate_hz
            .unwrap()
    };
    assert!((rate("1202-1") - 1000.0).abs() < 1e-6 && (rate("1202-2") - 800.0).abs() < 1e-6);

    // Eye gaze: the reader's gaze ray, put in the world through the trajectory file and the
    // calibration's CPF, hits the scripted target (pole until 6 s, then the door).
    let gaze = read_eye_gaze(session.mps.eye_gaze.as_ref().unwrap()).unwrap();
    assert_eq!(gaze.len(), 240);
    let t_device_cpf = cal.t_device_cpf();
    let mut hits = 0;
    for g in &gaze {
        let rel_s = (g.tracking_time.ns() - 1_000_000_000) as f64 * 1e-9;
        let target = if rel_s < 6.0 {
            [6.0, 0.1, 1.5]
        } else {
            [9.0, 1.5, 1.5]
        };
        let t_world_cpf = pose_at(g.tracking_time.ns()).t_world_device * t_device_cpf;
        let to_target = (t_world_cpf.inverse() * Point3::from(target)).coords;
        let clamped = g.yaw_rad.abs() >= 0.785 || g.pitch_rad.abs() >= 0.785;
        if clamped {
            continue;
        }
        let err = g.unit_vector_cpf().angle(&to_target);
        assert!(err < 1e-4, "t={rel_s}: gaze off target by {err} rad");
        let depth = g.depth_m.unwrap();
        assert!((depth - to_target.norm()).abs() < 1e-3);
        hits += 1;
    }
    assert!(hits > 150, "{hits}");

    // Requests and ground truth.
    let reqs = std::fs::read_to_string(session.requests.unwrap()).unwrap();
    let lines: Vec<serde_json::Value> = reqs
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["t_ns"], 3_000_000_000i64);
    assert_eq!(lines[0]["form"], "goal");
    let gt: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(session.ground_truth.unwrap()).unwrap())
            .unwrap();
    let pole = &gt["hazards"][0];
    assert_eq!(pole["label"], "metal pole");
    let (from, latest) = (
        pole["relevant_from_ns"].as_i64().unwrap(),
        pole["latest_alert_ns"].as_i64().unwrap(),
    );
    assert!(from < latest);
    // When the alert stops being useful the wearer (per the trajectory file) is within 1.5 m.
    let p = pose_at(latest / 1_000_000 * 1_000_000).t_world_device * Point3::origin();
    assert!(((p.x - 6.0).powi(2) + (p.y - 0.1).powi(2)).sqrt() < 1.6);
    assert_eq!(gt["texts"][0]["text"], "EXIT");
}

fn vista(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_vista"))
        .args(args)
        .env("RUST_LOG", "warn")
        .output()
        .unwrap()
}

#[test]
fn cli_lists_writes_inspects_and_replays() {
    let out = vista(&["synth", "--list"]);
    assert!(out.status.success());
    let list = String::from_utf8(out.stdout).unwrap();
    assert!(list.lines().count() >= 3, "{list}");
    for name in ["pole_to_door", "read_sign", "mixed_walk"] {
        assert!(list.lines().any(|l| l.starts_with(name)), "{list}");
    }

    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("s");
    let d = dir.to_str().unwrap();
    let out = vista(&[
        "synth",
        "read_sign",
        "--seed",
        "3",
        "--duration",
        "5",
        "--rgb-fps",
        "2",
        "--out",
        d,
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let out = vista(&["inspect", d, "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["streams"]["1202-1"]["name"], "imu-right");
    assert_eq!(v["streams"]["1202-1"]["data_records"], 5000);
    assert_eq!(v["streams"]["1202-2"]["data_records"], 4000);
    assert_eq!(v["streams"]["1203-1"]["data_records"], 50);
    assert_eq!(v["streams"]["247-1"]["data_records"], 250);
    assert_eq!(v["streams"]["1201-1"]["data_records"], 50);
    assert_eq!(v["streams"]["1201-2"]["name"], "camera-slam-right");
    assert_eq!(v["streams"]["1201-1"]["nominal_rate_hz"], 10.0);
    assert_eq!(v["streams"]["214-1"]["data_records"], 10);
    assert_eq!(v["streams"]["214-1"]["nominal_rate_hz"], 2.0);
    assert_eq!(v["tags"]["device_serial"], "1WM09380041283");

    let out = vista(&["replay", d, "--asap"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let out = vista(&["synth", "no_such_scenario", "--out", d]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("pole_to_door"));
}
