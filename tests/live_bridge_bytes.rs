//! The Python bridge's frames (built from projectaria_tools' own data types by
//! `device/aria-bridge/scripts/gen_frames_fixture.py`) decode in Rust to the bridge's inputs,
//! and the Rust encoder reproduces them byte for byte.

use vista::sample::{ImageEncoding, Payload, StreamId};
use vista::source::live::framed::FrameReader;
use vista::source::live::protocol::{encode_frame, Frame, Limits};

const BIN: &str = "device/aria-bridge/tests/fixtures/bridge_frames.bin";
const JSON: &str = "device/aria-bridge/tests/fixtures/bridge_frames.json";

fn f32s(v: &serde_json::Value) -> Vec<f32> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap() as f32)
        .collect()
}

#[test]
fn python_bridge_frames_decode_in_rust_byte_for_byte() {
    let bytes = std::fs::read(BIN).unwrap();
    let exp: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(JSON).unwrap()).unwrap();
    let mut r = FrameReader::new(&bytes[..], BIN, Limits::default());
    let mut frames = Vec::new();
    while (r.offset() as usize) < bytes.len() {
        frames.push(r.read_frame().unwrap());
    }
    assert_eq!(frames.len() as u64, exp["frames"].as_u64().unwrap());

    // Byte for byte: the Rust encoder writes exactly what the Python encoder wrote.
    let mut again = Vec::new();
    for f in &frames {
        encode_frame(f, &mut again).unwrap();
    }
    assert_eq!(again, bytes);

    let Frame::Hello(h) = &frames[0] else {
        panic!("{:?}", frames[0])
    };
    assert_eq!(h.device_serial, exp["hello"]["serial"].as_str().unwrap());
    assert_eq!(
        h.streaming_profile,
        exp["hello"]["profile"].as_str().unwrap()
    );
    assert_eq!(h.calib_json, exp["hello"]["calib_json"].as_str().unwrap());

    let Frame::Sample {
        stream,
        capture,
        payload: Payload::Image(im),
    } = &frames[1]
    else {
        panic!("{:?}", frames[1])
    };
    let e = &exp["image"];
    assert_eq!(*stream, StreamId::CameraRgb);
    assert_eq!(capture.ns(), e["capture_ns"].as_i64().unwrap());
    assert_eq!(im.frame_number, e["frame_number"].as_u64().unwrap());
    assert_eq!((im.width, im.height), (3, 4));
    assert_eq!(
        im.encoding,
        ImageEncoding::Raw {
            pixel_format: e["pixel_format"].as_u64().unwrap() as u32,
            stride: e["stride"].as_u64().unwrap() as u32
        }
    );
    let pixels: Vec<u8> = e["pixels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap() as u8)
        .collect();
    assert_eq!(&im.data[..], &pixels[..]);

    let Frame::ImuBatch { stream, samples } = &frames[2] else {
        panic!("{:?}", frames[2])
    };
    assert_eq!(*stream, StreamId::ImuLeft);
    let e = exp["imu_left"].as_array().unwrap();
    assert_eq!(samples.len(), e.len());
    for (s, e) in samples.iter().zip(e) {
        assert_eq!(s.capture.ns(), e["capture_ns"].as_i64().unwrap());
        assert_eq!(s.imu.accel_mps2.to_vec(), f32s(&e["accel"]));
        assert_eq!(s.imu.gyro_radps.to_vec(), f32s(&e["gyro"]));
        assert_eq!(
            s.imu.temperature_c,
            e["temperature_c"].as_f64().unwrap() as f32
        );
        assert!(s.imu.accel_valid && s.imu.gyro_valid);
    }

    let Frame::Sample {
        stream,
        capture,
        payload: Payload::Magnetometer(m),
    } = &frames[3]
    else {
        panic!("{:?}", frames[3])
    };
    assert_eq!(*stream, StreamId::Magnetometer);
    assert_eq!(
        capture.ns(),
        exp["magnetometer"]["capture_ns"].as_i64().unwrap()
    );
    assert_eq!(m.field_t.to_vec(), f32s(&exp["magnetometer"]["field_t"]));

    let Frame::Sample {
        capture,
        payload: Payload::Barometer(b),
        ..
    } = &frames[4]
    else {
        panic!("{:?}", frames[4])
    };
    assert_eq!(
        capture.ns(),
        exp["barometer"]["capture_ns"].as_i64().unwrap()
    );
    assert_eq!(
        b.pressure_pa,
        exp["barometer"]["pressure_pa"].as_f64().unwrap()
    );
    assert_eq!(
        b.temperature_c,
        exp["barometer"]["temperature_c"].as_f64().unwrap() as f32
    );

    let Frame::Sample {
        payload: Payload::Audio(a),
        ..
    } = &frames[5]
    else {
        panic!("{:?}", frames[5])
    };
    let ts: Vec<i64> = exp["audio"]["timestamps_ns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_i64().unwrap())
        .collect();
    assert_eq!(&a.timestamps_ns[..], &ts[..]);
    assert_eq!(
        u64::from(a.channels),
        exp["audio"]["channels"].as_u64().unwrap()
    );
    let pcm: Vec<i32> = a
        .data
        .chunks_exact(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let e_pcm: Vec<i32> = exp["audio"]["pcm"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_i64().unwrap() as i32)
        .collect();
    assert_eq!(pcm, e_pcm);

    assert_eq!(
        frames[6],
        Frame::Heartbeat {
            device_now: vista::time::DeviceTime(exp["heartbeat_ns"].as_i64().unwrap())
        }
    );
    assert_eq!(
        frames[7],
        Frame::Goodbye {
            reason: exp["goodbye"].as_str().unwrap().into()
        }
    );
}

const GEN2_BIN: &str = "device/aria-bridge/tests/fixtures/bridge_gen2_frames.bin";
const GEN2_JSON: &str = "device/aria-bridge/tests/fixtures/bridge_gen2_frames.json";

fn f64s(v: &serde_json::Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

/// The Gen2 bridge's frames, made from projectaria_tools' own VIO, eye gaze and hand types:
/// the hello announces Gen2's streams, and the glasses' perception decodes to its inputs.
#[test]
fn python_gen2_bridge_frames_decode_in_rust_byte_for_byte() {
    let bytes = std::fs::read(GEN2_BIN).unwrap();
    let exp: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(GEN2_JSON).unwrap()).unwrap();
    let mut r = FrameReader::new(&bytes[..], GEN2_BIN, Limits::default());
    let mut frames = Vec::new();
    while (r.offset() as usize) < bytes.len() {
        frames.push(r.read_frame().unwrap());
    }
    assert_eq!(frames.len() as u64, exp["frames"].as_u64().unwrap());
    let mut again = Vec::new();
    for f in &frames {
        encode_frame(f, &mut again).unwrap();
    }
    assert_eq!(again, bytes);

    let Frame::Hello(h) = &frames[0] else {
        panic!("{:?}", frames[0])
    };
    let announced: Vec<(i64, i64, String)> = h
        .streams
        .iter()
        .map(|w| (i64::from(w.type_id), i64::from(w.instance), w.label.clone()))
        .collect();
    let want: Vec<(i64, i64, String)> = exp["streams"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e[0].as_i64().unwrap(),
                e[1].as_i64().unwrap(),
                e[2].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(announced, want);
    assert_eq!(h.unknown_streams().count(), 0, "every Gen2 stream is known");
    assert_eq!(h.known_streams().len(), 16);

    let mut seen = 0;
    for f in &frames[1..] {
        let Frame::Sample {
            stream,
            capture,
            payload,
        } = f
        else {
            panic!("{f:?}")
        };
        match payload {
            Payload::Pose(p) => {
                let e = &exp["pose"];
                assert_eq!(*stream, StreamId::DevicePose);
                assert_eq!(capture.ns(), e["capture_ns"].as_i64().unwrap());
                let t = p.t_world_device.translation.vector;
                assert_eq!(vec![t.x, t.y, t.z], f64s(&e["translation_m"]));
                let q = p.t_world_device.rotation.quaternion();
                assert_eq!(vec![q.w, q.i, q.j, q.k], f64s(&e["quaternion_wxyz"]));
                assert_eq!(
                    p.linear_velocity_mps.to_vec(),
                    f32s(&e["linear_velocity_mps"])
                );
                assert_eq!(
                    p.angular_velocity_radps.to_vec(),
                    f32s(&e["angular_velocity_radps"])
                );
                assert_eq!(f64::from(p.quality), e["quality"].as_f64().unwrap());
                // A quarter turn about z: the device's x axis is the odometry frame's y.
                let x = p.t_world_device.rotation * nalgebra::Vector3::x();
                assert!((x - nalgebra::Vector3::y()).norm() < 1e-12, "{x}");
            }
            Payload::EyeGaze(g) => {
                let e = &exp["gaze"];
                assert_eq!(*stream, StreamId::EyeGaze);
                assert_eq!(capture.ns(), e["capture_ns"].as_i64().unwrap());
                assert_eq!(f64::from(g.yaw_rad), e["yaw_rad"].as_f64().unwrap());
                assert_eq!(f64::from(g.pitch_rad), e["pitch_rad"].as_f64().unwrap());
                assert_eq!(g.depth_m.map(f64::from), e["depth_m"].as_f64());
            }
            Payload::Hands(hs) => {
                let e = &exp["right_hand"];
                assert_eq!(*stream, StreamId::HandTracking);
                assert_eq!(capture.ns(), e["capture_ns"].as_i64().unwrap());
                assert!(hs.left.is_none());
                let r = hs.right.unwrap();
                assert_eq!(f64::from(r.confidence), e["confidence"].as_f64().unwrap());
                assert_eq!(r.wrist_m.to_vec(), f32s(&e["wrist_m"]));
                assert_eq!(r.palm_m.to_vec(), f32s(&e["palm_m"]));
            }
            other => panic!("{other:?}"),
        }
        seen += 1;
    }
    assert_eq!(seen, 3);
}
