//! The native reader on the real Aria Gen2 sample, compared with values produced by Meta's
//! own readers (pyvrs, projectaria_tools 2.3.0) in `tests/data/reference/gen2_sample.json`
//! (regenerate with `scripts/ref_gen2.py`): stream typing, counts and timestamps, the
//! device's own VIO poses, eye gaze and hand tracking, the motion sensors, the calibration
//! and the H.265 camera frames.

use std::collections::BTreeMap;

use nalgebra::{Isometry3, Quaternion, Translation3, UnitQuaternion, Vector3};
use serde_json::Value;
use vista::aria::calib::DeviceCalibration;
use vista::aria::generation::Generation;
use vista::aria::recorded_calib::recording_calibration;
use vista::aria::recording::opus::OpusPcm;
use vista::aria::recording::{decode_image, AriaRecording};
use vista::aria::vrs::VrsStreamId;
use vista::sample::{AudioCoding, Payload, StreamId};

const SAMPLE: &str = "tests/data/gen2/aria_gen2_unit_test_sequence_with_bluetooth.vrs";

fn reference() -> Value {
    let text = std::fs::read_to_string("tests/data/reference/gen2_sample.json").unwrap();
    serde_json::from_str(&text).unwrap()
}

fn f64s(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

fn pose(v: &Value) -> Isometry3<f64> {
    let q = f64s(&v["quaternion_wxyz"]);
    let t = f64s(&v["translation_m"]);
    Isometry3::from_parts(
        Translation3::new(t[0], t[1], t[2]),
        UnitQuaternion::from_quaternion(Quaternion::new(q[0], q[1], q[2], q[3])),
    )
}

fn assert_pose(got: &Isometry3<f64>, want: &Isometry3<f64>, tol: f64, what: &str) {
    let dt = (got.translation.vector - want.translation.vector).norm();
    let dr = got.rotation.angle_to(&want.rotation);
    assert!(dt < tol && dr < tol, "{what}: Δt {dt:e} m, Δr {dr:e} rad");
}

/// Every decoded sample of one stream, in file order.
fn samples(rec: &AriaRecording, s: StreamId) -> Vec<(i64, Payload)> {
    rec.stream_samples(s)
        .map(|r| {
            let (_, t, p) = r.unwrap();
            (t.ns(), p)
        })
        .collect()
}

#[test]
fn every_stream_is_typed_counted_and_timed_as_projectaria_tools_reads_it() {
    let rec = AriaRecording::open(SAMPLE).unwrap();
    let want = reference();
    let aria = &want["aria"];
    assert_eq!(aria["device_version"], "Gen2");
    assert_eq!(rec.generation(), Generation::Gen2);

    // Labels: each camera and IMU stream is the sensor projectaria_tools says it is.
    let labels = aria["labels"].as_object().unwrap();
    let mut typed = 0;
    for (sid, label) in labels {
        let id: VrsStreamId = sid.parse().unwrap();
        let Some(stream) = rec.stream_of(id) else {
            continue;
        };
        typed += 1;
        if let Some(ours) = rec.sensor_label(stream) {
            if stream.is_camera() || matches!(stream, StreamId::ImuLeft | StreamId::ImuRight) {
                assert_eq!(ours, label.as_str().unwrap(), "{sid}");
            }
        }
    }
    assert!(typed >= 15, "{typed} streams typed");
    for (sid, want_stream) in [
        ("371-1", StreamId::HandTracking),
        ("371-2", StreamId::DeviceVio),
        ("371-3", StreamId::DevicePose),
        ("373-1", StreamId::EyeGaze),
        ("1201-3", StreamId::CameraSlamSideLeft),
        ("211-2", StreamId::CameraEtRight),
        ("1202-1", StreamId::ImuLeft),
    ] {
        assert_eq!(
            rec.stream_of(sid.parse().unwrap()),
            Some(want_stream),
            "{sid}"
        );
    }

    // Counts and capture times: exact in ns; the device's perception streams in µs, which is
    // all projectaria_tools keeps of them. An audio block is stamped with its first frame's
    // time (projectaria_tools stamps its last; the record's own time is the first).
    let counts = aria["num_data"].as_object().unwrap();
    let mut times = aria["capture_timestamps_ns"].as_object().unwrap().clone();
    times.insert(
        "231-1".into(),
        aria["record_timestamps_ns_where_different"]["231-1"].clone(),
    );
    for stream in rec.known_streams() {
        let id = rec.vrs_stream(stream).unwrap().to_string();
        let got: Vec<i64> = samples(&rec, stream).iter().map(|(t, _)| *t).collect();
        assert_eq!(
            got.len() as u64,
            counts[&id].as_u64().unwrap(),
            "{id} count"
        );
        let want_times: Vec<i64> = times[&id]
            .as_array()
            .unwrap_or_else(|| panic!("{id}: no reference times"))
            .iter()
            .map(|v| v.as_i64().unwrap())
            .collect();
        let device_computed = matches!(
            stream,
            StreamId::DevicePose | StreamId::EyeGaze | StreamId::HandTracking
        );
        let got: Vec<i64> = if device_computed {
            got.iter().map(|t| t / 1000 * 1000).collect()
        } else {
            got
        };
        assert_eq!(got, want_times, "{id} ({stream}) capture times");
    }

    // What vista lists but does not decode keeps projectaria_tools' names.
    let names: BTreeMap<String, String> = rec
        .summaries()
        .into_iter()
        .map(|s| (s.vrs_id, s.name))
        .collect();
    for (sid, label) in [
        ("248-1", "ppg"),
        ("246-1", "temperature"),
        ("283-1", "bluetooth"),
    ] {
        assert_eq!(names[sid], label);
    }
    assert_eq!(names["371-3"], "device-pose");
}

#[test]
fn the_devices_own_poses_match_projectaria_tools_to_a_micrometre() {
    let rec = AriaRecording::open(SAMPLE).unwrap();
    let want = reference();
    let hf = &want["aria"]["vio_high_frequency_371-3"];
    let got = samples(&rec, StreamId::DevicePose);
    assert_eq!(got.len() as u64, hf["count"].as_u64().unwrap());
    for (i, (_, p)) in got.iter().enumerate() {
        let Payload::Pose(p) = p else {
            panic!("not a pose")
        };
        let q = f64s(&hf["T_Odometry_Device_quaternion_wxyz"][i]);
        let t = f64s(&hf["T_Odometry_Device_translation_m"][i]);
        let want_pose = Isometry3::from_parts(
            Translation3::new(t[0], t[1], t[2]),
            UnitQuaternion::from_quaternion(Quaternion::new(q[0], q[1], q[2], q[3])),
        );
        assert_pose(&p.t_world_device, &want_pose, 1e-6, &format!("371-3 #{i}"));
        let v = f64s(&hf["device_linear_velocity_odometry"][i]);
        let w = f64s(&hf["angular_velocity_device"][i]);
        for k in 0..3 {
            assert!((f64::from(p.linear_velocity_mps[k]) - v[k]).abs() < 1e-6);
            assert!((f64::from(p.angular_velocity_radps[k]) - w[k]).abs() < 1e-6);
        }
        assert_eq!(
            f64::from(p.quality),
            hf["quality_score_all_records"].as_f64().unwrap()
        );
    }

    // The 10 Hz VIO: T_Odometry_Device = T_Odometry_BodyImu · T_BodyImu_Device.
    let vio = want["aria"]["vio_371-2"].as_array().unwrap();
    let got = samples(&rec, StreamId::DeviceVio);
    assert_eq!(got.len(), vio.len());
    for ((t, p), w) in got.iter().zip(vio) {
        let Payload::Pose(p) = p else {
            panic!("not a pose")
        };
        assert_eq!(*t, w["capture_timestamp_ns"].as_i64().unwrap());
        let t_odo_dev = pose(&w["T_Odometry_BodyImu"]) * pose(&w["T_BodyImu_Device"]);
        assert_pose(&p.t_world_device, &t_odo_dev, 1e-6, "371-2");
        let omega_imu = Vector3::from_vec(f64s(&w["angular_velocity_in_bodyimu"]));
        let omega_dev = pose(&w["T_BodyImu_Device"]).rotation.inverse() * omega_imu;
        let got_omega = Vector3::from(p.angular_velocity_radps.map(f64::from));
        assert!((got_omega - omega_dev).norm() < 1e-5);
        assert_eq!(p.quality, 1.0, "a healthy tracker");
    }
}

#[test]
fn eye_gaze_and_hands_match_projectaria_tools() {
    let rec = AriaRecording::open(SAMPLE).unwrap();
    let want = reference();
    let gaze = want["aria"]["eye_gaze_373-1"].as_array().unwrap();
    let got = samples(&rec, StreamId::EyeGaze);
    assert_eq!(got.len(), gaze.len());
    for ((t, g), w) in got.iter().zip(gaze) {
        let Payload::EyeGaze(g) = g else {
            panic!("not gaze")
        };
        assert_eq!(t / 1000, w["tracking_timestamp_us"].as_i64().unwrap());
        assert!(w["combined_gaze_valid"].as_bool().unwrap());
        let (yaw, pitch) = (w["yaw"].as_f64().unwrap(), w["pitch"].as_f64().unwrap());
        assert!(
            (f64::from(g.yaw_rad) - yaw).abs() < 1e-6,
            "yaw {} {yaw}",
            g.yaw_rad
        );
        assert!((f64::from(g.pitch_rad) - pitch).abs() < 1e-6);
        let depth = w["depth"].as_f64().unwrap();
        assert!((f64::from(g.depth_m.unwrap()) - depth).abs() < 1e-6);
    }

    let hands = want["aria"]["hand_tracking_371-1"].as_array().unwrap();
    let got = samples(&rec, StreamId::HandTracking);
    assert_eq!(got.len(), hands.len());
    for ((_, h), w) in got.iter().zip(hands) {
        let Payload::Hands(h) = h else {
            panic!("not hands")
        };
        for (ours, theirs) in [(&h.left, &w["left"]), (&h.right, &w["right"])] {
            match ours {
                None => assert!(theirs.is_null() || theirs["confidence"].as_f64() < Some(0.0)),
                Some(hand) => {
                    assert_eq!(
                        f64::from(hand.confidence),
                        theirs["confidence"].as_f64().unwrap()
                    );
                    let lm = theirs["landmark_positions_device"].as_array().unwrap();
                    let wrist = f64s(&lm[5]);
                    let palm = f64s(&lm[20]);
                    for k in 0..3 {
                        assert_eq!(f64::from(hand.wrist_m[k]), wrist[k]);
                        assert_eq!(f64::from(hand.palm_m[k]), palm[k]);
                    }
                }
            }
        }
    }
}

#[test]
fn motion_sensors_match_projectaria_tools() {
    let rec = AriaRecording::open(SAMPLE).unwrap();
    let want = reference();
    let sensors = &want["aria"]["sensors"];
    for (key, stream) in [
        ("imu_1202-1", StreamId::ImuLeft),
        ("imu_1202-2", StreamId::ImuRight),
    ] {
        let got = samples(&rec, stream);
        for (which, (t, p)) in [("first", &got[0]), ("last", got.last().unwrap())] {
            let w = &sensors[key][which];
            assert_eq!(*t, w["capture_timestamp_ns"].as_i64().unwrap());
            let Payload::Imu(imu) = p else { panic!() };
            assert_eq!(
                imu.accel_mps2.map(f64::from).to_vec(),
                f64s(&w["accel_msec2"])
            );
            assert_eq!(
                imu.gyro_radps.map(f64::from).to_vec(),
                f64s(&w["gyro_radsec"])
            );
        }
    }
    let got = samples(&rec, StreamId::Magnetometer);
    let w = &sensors["magnetometer_1203-1"]["first"];
    let Payload::Magnetometer(m) = &got[0].1 else {
        panic!()
    };
    for (g, t) in m.field_t.iter().zip(f64s(&w["mag_tesla"])) {
        assert!((f64::from(*g) - t).abs() < 1e-12, "{g} {t}");
    }
    let got = samples(&rec, StreamId::Barometer);
    let w = &sensors["barometer_247-1"]["last"];
    let Payload::Barometer(b) = &got.last().unwrap().1 else {
        panic!()
    };
    assert_eq!(b.pressure_pa, w["pressure_pa"].as_f64().unwrap());
}

#[test]
fn the_gen2_calibration_matches_projectaria_tools() {
    let rec = AriaRecording::open(SAMPLE).unwrap();
    let want = reference();
    let cal = &want["aria"]["calibration"];
    let ours = recording_calibration(&rec).unwrap().unwrap();
    assert_eq!(ours.generation, Generation::Gen2);
    assert_eq!(ours.origin_label, cal["origin_label"].as_str().unwrap());
    assert_pose(
        &ours.t_device_cpf(),
        &pose(&cal["T_Device_CPF"]["Default"]),
        1e-9,
        "T_Device_CPF",
    );
    let cams = cal["cameras"].as_object().unwrap();
    assert_eq!(ours.cameras.len(), cams.len());
    for (label, w) in cams {
        let c = ours.camera(label).unwrap();
        let size = f64s(&w["image_size_wh"]);
        assert_eq!(
            (f64::from(c.image_width), f64::from(c.image_height)),
            (size[0], size[1]),
            "{label}"
        );
        assert_eq!(c.valid_radius_px, w["valid_radius_px"].as_f64(), "{label}");
        assert_pose(
            &c.t_device_camera,
            &pose(&w["T_Device_Camera"]),
            1e-12,
            label,
        );
        for pr in w["projections"].as_array().unwrap() {
            let ray = f64s(&pr["ray_unit"]);
            let Some(uv) = pr["uv_no_checks_px"].as_array() else {
                continue;
            };
            let (u, v) = (uv[0].as_f64().unwrap(), uv[1].as_f64().unwrap());
            let got = c
                .model
                .project(&Vector3::new(ray[0], ray[1], ray[2]))
                .unwrap_or_else(|| panic!("{label} {ray:?} does not project"));
            assert!(
                (got.x - u).abs() < 1e-6 && (got.y - v).abs() < 1e-6,
                "{label} {ray:?}: {got} vs ({u}, {v})"
            );
        }
    }
    // The magnetometer: Gen2's JSON is in tesla (its bias in gauss), not Gen1's µT.
    for (label, w) in cal["magnetometers"].as_object().unwrap() {
        let m = ours.magnetometer(label).unwrap();
        let got = m.rectify(&Vector3::new(2.0e-5, -3.0e-5, 4.5e-5));
        let want = f64s(&w["raw_to_rectified_(2e-5,-3e-5,4.5e-5)"]);
        for k in 0..3 {
            assert!(
                (got[k] - want[k]).abs() < 1e-12,
                "{label}: {got} vs {want:?}"
            );
        }
    }
    // Factory JSON alone (no recording) keeps the full sensor sizes.
    let factory = DeviceCalibration::from_json_str(rec.calib_json().unwrap()).unwrap();
    let rgb = factory.camera("camera-rgb").unwrap();
    assert_eq!((rgb.image_width, rgb.image_height), (4032, 3024));
}

#[test]
fn every_h265_camera_frame_decodes_to_projectaria_tools_pixels() {
    let rec = AriaRecording::open(SAMPLE).unwrap();
    let want = reference();
    let images = want["aria"]["images"].as_object().unwrap();
    for (sid, w) in images {
        let stream = rec.stream_of(sid.parse().unwrap()).unwrap();
        let got = samples(&rec, stream);
        let frames = w["frames"].as_array().unwrap();
        assert_eq!(got.len(), frames.len(), "{sid}");
        for (i, ((t, p), wf)) in got.iter().zip(frames).enumerate() {
            let Payload::Image(frame) = p else { panic!() };
            assert_eq!(*t, wf["capture_timestamp_ns"].as_i64().unwrap());
            assert_eq!(
                frame.frame_number,
                wf["frame_number"].as_u64().unwrap(),
                "{sid}"
            );
            let img = decode_image(frame).unwrap_or_else(|e| panic!("{sid} #{i}: {e}"));
            let shape: Vec<u64> = wf["shape"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_u64().unwrap())
                .collect();
            assert_eq!(u64::from(img.height), shape[0], "{sid}");
            assert_eq!(u64::from(img.width), shape[1], "{sid}");
            let channels = shape.get(2).copied().unwrap_or(1);
            assert_eq!(u64::from(img.channels), channels, "{sid}");
            let mean =
                img.pixels.iter().map(|&v| f64::from(v)).sum::<f64>() / img.pixels.len() as f64;
            let want_mean = wf["mean"].as_f64().unwrap();
            if channels == 1 {
                // Grey frames are the decoder's own output: exact.
                assert!(
                    (mean - want_mean).abs() < 1e-9,
                    "{sid} #{i}: mean {mean} vs {want_mean}"
                );
            } else {
                // RGB goes through a YUV conversion whose rounding differs by a level or so.
                assert!(
                    (mean - want_mean).abs() < 1.0,
                    "{sid} #{i}: mean {mean} vs {want_mean}"
                );
            }
        }
        // The 8×8 blocks of the first frame.
        let Payload::Image(frame) = &got[0].1 else {
            panic!()
        };
        let img = decode_image(frame).unwrap();
        let first = &w["first"];
        let rc = first["center_block_origin_rc"].as_array().unwrap();
        let (r0, c0) = (
            rc[0].as_u64().unwrap() as usize,
            rc[1].as_u64().unwrap() as usize,
        );
        let ch = img.channels as usize;
        let width = img.width as usize;
        let block = first["center_block_8x8"].as_array().unwrap();
        let mut worst = 0i64;
        for (r, row) in block.iter().enumerate() {
            for (c, px) in row.as_array().unwrap().iter().enumerate() {
                let at = ((r0 + r) * width + c0 + c) * ch;
                let theirs: Vec<i64> = match px.as_array() {
                    Some(v) => v.iter().map(|x| x.as_i64().unwrap()).collect(),
                    None => vec![px.as_i64().unwrap()],
                };
                for (k, t) in theirs.iter().enumerate() {
                    worst = worst.max((i64::from(img.pixels[at + k]) - t).abs());
                }
            }
        }
        let allowed = if ch == 1 { 0 } else { 2 };
        assert!(worst <= allowed, "{sid}: a centre pixel differs by {worst}");
    }
}

#[test]
fn the_stereo_pair_is_chosen_from_the_calibration() {
    // Gen2: of four SLAM cameras, the two looking ahead share the most of the view ahead.
    let rec = AriaRecording::open(SAMPLE).unwrap();
    let cal = recording_calibration(&rec).unwrap().unwrap();
    let pair = cal.stereo_pair().unwrap();
    assert_eq!(
        (pair.left.as_str(), pair.right.as_str()),
        ("slam-front-left", "slam-front-right")
    );
    assert!(pair.overlap > 0.5 && pair.baseline_m > 0.1, "{pair:?}");
    // ... and they are the streams depth reads; the side cameras keep their own streams.
    assert_eq!(
        rec.sensor_label(StreamId::CameraSlamLeft),
        Some("slam-front-left")
    );
    assert_eq!(
        rec.sensor_label(StreamId::CameraSlamRight),
        Some("slam-front-right")
    );
    assert_eq!(
        rec.sensor_label(StreamId::CameraSlamSideLeft),
        Some("slam-side-left")
    );
    // Without the front cameras, a side camera and a front one that overlap more than the
    // two side cameras make the pair, the one on the wearer's left first.
    let mut no_front_right = cal.clone();
    no_front_right
        .cameras
        .retain(|c| c.label != "slam-front-right");
    let p = no_front_right.stereo_pair().unwrap();
    assert!(
        p.left == "slam-front-left" || p.left == "slam-side-left",
        "{p:?}"
    );
    assert_ne!(p.left, p.right);
    // Gen1: its two SLAM cameras, left on the left.
    let gen1 =
        AriaRecording::open("tests/data/gen1/aria_unit_test_timecode_sequence_calib.vrs").unwrap();
    assert_eq!(gen1.generation(), Generation::Gen1);
    let cal1 = recording_calibration(&gen1).unwrap().unwrap();
    let p1 = cal1.stereo_pair().unwrap();
    assert_eq!(
        (p1.left.as_str(), p1.right.as_str()),
        ("camera-slam-left", "camera-slam-right")
    );
    // One camera makes no pair.
    let mut one = cal1.clone();
    one.cameras.retain(|c| c.label != "camera-slam-right");
    assert_eq!(one.stereo_pair(), None);
}

#[test]
fn bad_h265_frames_are_clear_errors() {
    use vista::sample::{ImageEncoding, ImageFrame};
    let frame = |data: Vec<u8>, size: u32, key_frame_index: u32| ImageFrame {
        width: size,
        height: size,
        encoding: ImageEncoding::Hevc { key_frame_index },
        data: data.into(),
        frame_number: 0,
        exposure_s: 0.0,
        gain: 1.0,
    };
    // A parameter set claiming 16384² is refused before the decoder sees it.
    let bomb = std::fs::read("fuzz/seeds/image/hevc_claims_16384_square").unwrap();
    let e = decode_image(&frame(bomb.clone(), 512, 0)).unwrap_err();
    assert!(
        e.to_string()
            .contains("16384×16384 where the stream says 512×512"),
        "{e}"
    );
    let e = decode_image(&frame(bomb, 0, 0)).unwrap_err();
    assert!(e.to_string().contains("more than"), "{e}");
    // A frame after its key frame cannot be decoded alone, and says why.
    let key = std::fs::read("fuzz/seeds/image/hevc_gen2_slam_key_frame").unwrap();
    let e = decode_image(&frame(key.clone(), 512, 3)).unwrap_err();
    assert!(e.to_string().contains("after its key frame"), "{e}");
    // A key frame of the wrong size for its stream.
    let e = decode_image(&frame(key.clone(), 640, 0)).unwrap_err();
    assert!(
        e.to_string()
            .contains("512×512 where the stream says 640×640"),
        "{e}"
    );
    // Garbage and a frame cut short: an error or a picture, never a panic.
    assert!(decode_image(&frame(vec![0, 0, 1, 0x40, 0x01, 0xff], 512, 0)).is_err());
    let _ = decode_image(&frame(key[..key.len() / 2].to_vec(), 512, 0));
}

#[test]
fn the_opus_microphones_decode_to_projectaria_tools_samples() {
    let rec = AriaRecording::open(SAMPLE).unwrap();
    let want = reference();
    let audio = &want["aria"]["sensors"]["audio_231-1"];
    assert_eq!(
        rec.stream_of("231-1".parse().unwrap()),
        Some(StreamId::Audio)
    );
    let got = samples(&rec, StreamId::Audio);
    let blocks = audio["blocks"].as_array().unwrap();
    assert_eq!(got.len(), blocks.len());
    // 16-bit samples, left coded by the reader and decoded in order (each packet depends on
    // the ones before).
    let mut opus = OpusPcm::default();
    let mut as_i16 = |p: &Payload| -> (u8, Vec<i16>, Vec<i64>) {
        let Payload::Audio(a) = p else {
            panic!("not audio")
        };
        assert_eq!(a.sample_rate_hz, 16_000);
        assert_eq!(a.coding, AudioCoding::Opus);
        let mut pcm = Vec::new();
        opus.pcm(a, &mut pcm).unwrap();
        let s = pcm
            .chunks_exact(4)
            .map(|b| {
                let v = i32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                assert_eq!(v & 0xffff, 0, "a 16-bit sample in the high half");
                (v >> 16) as i16
            })
            .collect();
        (a.channels, s, a.timestamps_ns.to_vec())
    };
    let decoded: Vec<(u8, Vec<i16>, Vec<i64>)> = got.iter().map(|(_, p)| as_i16(p)).collect();
    for (((t, _), (channels, s, ts)), w) in got.iter().zip(&decoded).zip(blocks) {
        let channels = *channels;
        assert_eq!(channels, 8);
        assert_eq!(*t, w["first_sample_timestamp_ns"].as_i64().unwrap());
        assert_eq!(
            *ts.last().unwrap(),
            w["last_sample_timestamp_ns"].as_i64().unwrap()
        );
        assert_eq!(s.len() / 8, w["num_samples"].as_u64().unwrap() as usize);
        let ch0: i64 = s.iter().step_by(8).map(|&v| i64::from(v)).sum();
        let abs: i64 = s.iter().map(|&v| i64::from(v).abs()).sum();
        // libopus's float decoder rounds the odd sample differently from one build to the
        // next (Debian's 1.3.1 against the one in projectaria-tools' wheel): a few samples
        // of a block differ by one step.
        let d_ch0 = (ch0 - w["sum_ch0"].as_i64().unwrap()).abs();
        let d_abs = (abs - w["sum_abs_all"].as_i64().unwrap()).abs();
        assert!(
            d_ch0 <= 2 && d_abs <= 4,
            "block at {t}: Δ sum {d_ch0}, Δ |sum| {d_abs}"
        );
    }
    for (which, (_, s, _)) in [
        ("first_block", &decoded[0]),
        ("last_block", decoded.last().unwrap()),
    ] {
        let w = &audio[which];
        for (ch, key) in [(0, "ch0_first16"), (7, "ch7_first16")] {
            let first: Vec<i64> = s
                .iter()
                .skip(ch)
                .step_by(8)
                .take(16)
                .map(|&v| i64::from(v))
                .collect();
            let theirs: Vec<i64> = w[key]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_i64().unwrap())
                .collect();
            assert_eq!(first, theirs, "{which} {key}");
        }
    }
}
