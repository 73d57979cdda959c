//! `vista synth --device gen2`: a Gen2-shaped recording (its streams, layouts and
//! calibration) that vista reads as Gen2, with the glasses' own VIO, eye gaze and hands as
//! estimates in an odometry frame of their own, never the simulator's world frame.

use std::path::Path;

use vista::aria::generation::Generation;
use vista::aria::recording::{decode_image, AriaRecording};
use vista::sample::{Payload, PoseSample, StreamId};
use vista::synth::device::SynthDevice;
use vista::synth::device_noise::DeviceErrorSpec;
use vista::synth::gaze::gaze_at;
use vista::synth::{find_scenario, session_path, write_session, SynthOptions};

fn synth(dir: &Path, exact: bool) -> SynthOptions {
    let sc = find_scenario(Path::new("scenarios"), "find_exit").unwrap();
    // Few, small frames keep the debug-build test short: the SLAM cameras at 2 Hz, no RGB.
    let opts = SynthOptions {
        seed: 3,
        duration_s: Some(2.5),
        slam_fps: Some(2.0),
        rgb_fps: Some(0.0),
        device_error: (!exact).then_some(DeviceErrorSpec::TYPICAL),
        mps_error: None,
        semidense: None,
        ..SynthOptions::for_device(SynthDevice::Gen2)
    };
    write_session(&sc, dir, &opts).unwrap();
    opts
}

/// `(capture ns, payload)` of every sample of `stream`.
fn samples(rec: &AriaRecording, stream: StreamId) -> Vec<(i64, Payload)> {
    rec.samples()
        .filter_map(Result::ok)
        .filter(|(s, ..)| *s == stream)
        .map(|(_, t, p)| (t.ns(), p))
        .collect()
}

fn poses(rec: &AriaRecording, stream: StreamId) -> Vec<(i64, PoseSample)> {
    samples(rec, stream)
        .into_iter()
        .filter_map(|(t, p)| match p {
            Payload::Pose(p) => Some((t, p)),
            _ => None,
        })
        .collect()
}

#[test]
fn a_gen2_session_reads_as_gen2_with_the_glasses_own_perception() {
    let t = tempfile::tempdir().unwrap();
    synth(t.path(), false);
    let rec = AriaRecording::open(t.path().join("recording.vrs")).unwrap();
    assert_eq!(rec.generation(), Generation::Gen2);
    let streams = rec.known_streams();
    for s in [
        StreamId::CameraSlamLeft,
        StreamId::CameraSlamRight,
        StreamId::CameraSlamSideLeft,
        StreamId::CameraSlamSideRight,
        StreamId::ImuLeft,
        StreamId::ImuRight,
        StreamId::Magnetometer,
        StreamId::Barometer,
        StreamId::DevicePose,
        StreamId::DeviceVio,
        StreamId::EyeGaze,
        StreamId::HandTracking,
    ] {
        assert!(streams.contains(&s), "{s} missing from {streams:?}");
    }
    assert_eq!(
        rec.sensor_label(StreamId::CameraSlamLeft),
        Some("slam-front-left")
    );
    // Both IMUs at 800 Hz; the magnetometer in tesla (Earth's field is ~48 µT).
    assert_eq!(samples(&rec, StreamId::ImuLeft).len(), 2000);
    assert_eq!(samples(&rec, StreamId::ImuRight).len(), 2000);
    let Payload::Magnetometer(m) = samples(&rec, StreamId::Magnetometer)[0].1 else {
        panic!()
    };
    let field_ut = m.field_t.iter().map(|v| v * v).sum::<f32>().sqrt() * 1e6;
    assert!((30.0..70.0).contains(&field_ut), "{field_ut} µT");
    // The cameras decode (JPEG) at Gen2's size.
    let frame = &samples(&rec, StreamId::CameraSlamSideRight)[0];
    let Payload::Image(im) = &frame.1 else {
        panic!()
    };
    let img = decode_image(im).unwrap();
    assert_eq!((img.width, img.height), (512, 512));

    // The VIO: 800 Hz, initialising for its first half second, in its own frame.
    let hf = poses(&rec, StreamId::DevicePose);
    assert_eq!(hf.len(), 2000);
    let t0 = hf[0].0;
    let quality_at = |dt: f64| {
        hf.iter()
            .find(|(t, _)| (t - t0) as f64 * 1e-9 >= dt)
            .map(|(_, p)| p.quality)
            .unwrap()
    };
    assert_eq!(quality_at(0.1), 0.0);
    assert_eq!(quality_at(1.0), 1.0);
    assert!(hf[0].1.t_world_device.translation.vector.norm() < 0.05);
    assert_eq!(poses(&rec, StreamId::DeviceVio).len(), 25);
    assert_eq!(samples(&rec, StreamId::EyeGaze).len(), 75);
    assert_eq!(samples(&rec, StreamId::HandTracking).len(), 75);
}

#[test]
fn exact_estimates_are_the_truth_in_the_odometry_frame_and_estimates_are_not() {
    let t = tempfile::tempdir().unwrap();
    let (exact, noisy) = (t.path().join("exact"), t.path().join("noisy"));
    let opts = synth(&exact, true);
    synth(&noisy, false);
    let sc = find_scenario(Path::new("scenarios"), "find_exit").unwrap();
    let rec = AriaRecording::open(exact.join("recording.vrs")).unwrap();
    let cal = vista::aria::recorded_calib::recording_calibration(&rec)
        .unwrap()
        .unwrap();
    let path = session_path(&sc, &opts, cal.t_device_cpf());
    // Relative motion is the truth's: every pose relative to the first, against the truth.
    let truth = |t_ns: i64| path.t_world_device((t_ns - 1_000_000_000) as f64 * 1e-9);
    let hf = poses(&rec, StreamId::DevicePose);
    let (ta, a) = hf[0];
    for &(tb, b) in hf.iter().step_by(97) {
        let est = a.t_world_device.inverse() * b.t_world_device;
        let real = truth(ta).inverse() * truth(tb);
        assert!(
            (est.translation.vector - real.translation.vector).norm() < 1e-6,
            "{est} vs {real}"
        );
        assert!(est.rotation.angle_to(&real.rotation) < 1e-6);
    }
    // The odometry frame is not the world frame: its heading is the tracker's own.
    let world_yaw = truth(ta).rotation.euler_angles().2;
    let odo_yaw = a.t_world_device.rotation.euler_angles().2;
    assert!((world_yaw - odo_yaw).abs() > 1e-3);
    // The eye gaze is the scripted gaze (to f32 precision).
    for (t, p) in samples(&rec, StreamId::EyeGaze).iter().step_by(11) {
        let Payload::EyeGaze(g) = p else { panic!() };
        let want = gaze_at(&path, &sc.gaze, (t - 1_000_000_000) as f64 * 1e-9);
        assert!(
            (f64::from(g.yaw_rad) - want.yaw_rad).abs() < 1e-4,
            "{g:?} {want:?}"
        );
        assert!((f64::from(g.pitch_rad) - want.pitch_rad).abs() < 1e-4);
    }

    // With the error model the poses are estimates: not the truth, but close to it.
    let rec = AriaRecording::open(noisy.join("recording.vrs")).unwrap();
    let hf = poses(&rec, StreamId::DevicePose);
    let (ta, a) = hf[0];
    let (tb, b) = *hf.last().unwrap();
    let est = a.t_world_device.inverse() * b.t_world_device;
    let real = truth(ta).inverse() * truth(tb);
    let err = (est.translation.vector - real.translation.vector).norm();
    assert!(err > 1e-4 && err < 0.1, "{err} m");
}

#[test]
fn what_gen2_sessions_cannot_hold_is_refused_up_front() {
    let t = tempfile::tempdir().unwrap();
    let sc = find_scenario(Path::new("scenarios"), "read_sign").unwrap();
    // Spoken requests: Gen2 records Opus, which the writer does not encode.
    let opts = SynthOptions {
        duration_s: Some(1.0),
        spoken_requests: true,
        ..SynthOptions::for_device(SynthDevice::Gen2)
    };
    let e = write_session(&sc, t.path(), &opts).unwrap_err().to_string();
    assert!(e.contains("Gen1"), "{e}");
    // A Gen1 template for a Gen2 session.
    let opts = SynthOptions {
        duration_s: Some(1.0),
        device: SynthDevice::Gen2,
        ..SynthOptions::default()
    };
    let e = write_session(&sc, t.path(), &opts).unwrap_err().to_string();
    assert!(e.contains("Gen2") || e.contains("371"), "{e}");
}
