//! Tests of the wire protocol: round trips (property-based) and hostile frames.

use super::*;
use proptest::prelude::*;
use std::sync::Arc;

fn body_of(frame: &Frame) -> Bytes {
    let mut out = Vec::new();
    encode_frame(frame, &mut out).unwrap();
    let len = u32::from_le_bytes(out[..4].try_into().unwrap()) as usize;
    assert_eq!(
        len,
        out.len() - 4,
        "length prefix must equal the body length"
    );
    Bytes::from(out).slice(4..)
}

fn round_trip(frame: &Frame) -> Frame {
    decode_frame(&body_of(frame), &Limits::default()).unwrap()
}

fn hello() -> Frame {
    Frame::Hello(Hello::new(
        "1WM09380041283",
        "profile18",
        "{\"Serial\":\"x\"}",
    ))
}

fn jpeg_sample() -> Frame {
    Frame::Sample {
        stream: StreamId::CameraRgb,
        capture: DeviceTime(123_456_789),
        payload: Payload::Image(ImageFrame {
            width: 1408,
            height: 1408,
            encoding: ImageEncoding::Jpeg,
            data: Bytes::from_static(&[0xff, 0xd8, 1, 2, 3, 0xff, 0xd9]),
            frame_number: 42,
            exposure_s: 0.004,
            gain: 2.5,
        }),
    }
}

fn audio_sample(frames: usize, channels: u8) -> Frame {
    let ts: Vec<i64> = (0..frames as i64).map(|i| 1_000 + i * 20_833).collect();
    let pcm: Vec<u8> = (0..frames * channels as usize * 4)
        .map(|i| i as u8)
        .collect();
    Frame::Sample {
        stream: StreamId::Audio,
        capture: DeviceTime(1_000),
        payload: Payload::Audio(AudioBlock {
            channels,
            sample_rate_hz: 48_000,
            timestamps_ns: Arc::from(ts),
            coding: AudioCoding::PcmI32Le,
            data: Bytes::from(pcm),
        }),
    }
}

#[test]
fn fixed_frames_round_trip() {
    for f in [
        hello(),
        jpeg_sample(),
        audio_sample(3, 7),
        Frame::Heartbeat {
            device_now: DeviceTime(-5),
        },
        Frame::Goodbye {
            reason: "user stopped".into(),
        },
        Frame::Sample {
            stream: StreamId::Barometer,
            capture: DeviceTime(9),
            payload: Payload::Barometer(BaroSample {
                pressure_pa: 101_325.5,
                temperature_c: 21.25,
            }),
        },
        Frame::Sample {
            stream: StreamId::Magnetometer,
            capture: DeviceTime(10),
            payload: Payload::Magnetometer(MagSample {
                field_t: [1e-5, -2e-5, 3e-5],
            }),
        },
        Frame::Sample {
            stream: StreamId::CameraSlamLeft,
            capture: DeviceTime(11),
            payload: Payload::Image(ImageFrame {
                width: 4,
                height: 2,
                encoding: ImageEncoding::Raw {
                    pixel_format: 1,
                    stride: 4,
                },
                data: Bytes::from_static(&[0, 1, 2, 3, 4, 5, 6, 7]),
                frame_number: 1,
                exposure_s: 0.001,
                gain: 1.0,
            }),
        },
        Frame::Sample {
            stream: StreamId::CameraSlamRight,
            capture: DeviceTime(12),
            payload: Payload::Image(ImageFrame {
                width: 512,
                height: 512,
                encoding: ImageEncoding::Hevc { key_frame_index: 7 },
                data: Bytes::from_static(&[0, 0, 0, 1, 0x02, 0x01, 0xd0]),
                frame_number: 2,
                exposure_s: 0.002,
                gain: 2.0,
            }),
        },
    ] {
        assert_eq!(round_trip(&f), f);
    }
}

fn pose(q: [f64; 4], quality: f32) -> PoseSample {
    PoseSample {
        t_world_device: nalgebra::Isometry3::from_parts(
            nalgebra::Translation3::new(1.5, -0.25, 0.125),
            nalgebra::UnitQuaternion::from_quaternion(nalgebra::Quaternion::new(
                q[0], q[1], q[2], q[3],
            )),
        ),
        linear_velocity_mps: [0.5, 0.0, -0.25],
        angular_velocity_radps: [0.0, 0.125, 0.0],
        quality,
    }
}

fn gen2_frames() -> Vec<Frame> {
    let streams = [
        (StreamId::CameraSlamLeft, "slam-front-left"),
        (StreamId::CameraSlamSideLeft, "slam-side-left"),
        (StreamId::CameraEtRight, "camera-et-right"),
        (StreamId::DevicePose, "device-pose"),
        (StreamId::EyeGaze, "eye-gaze"),
    ]
    .into_iter()
    .filter_map(|(s, l)| WireStream::new(s, l))
    .chain([WireStream {
        type_id: 248,
        instance: 1,
        label: "ppg".into(),
    }])
    .collect();
    let hand = |x: f32| WristPalm {
        confidence: 0.75,
        wrist_m: [x, -0.25, 0.25],
        palm_m: [x, -0.2, 0.3],
    };
    vec![
        Frame::Hello(Hello::new("1M0YCN3G8V0062", "profile9", "{}").with_streams(streams)),
        Frame::Sample {
            stream: StreamId::DevicePose,
            capture: DeviceTime(7_385_790_342_000),
            payload: Payload::Pose(pose([0.5, 0.5, -0.5, 0.5], 1.0)),
        },
        Frame::Sample {
            stream: StreamId::DeviceVio,
            capture: DeviceTime(7_385_858_266_261),
            payload: Payload::Pose(pose([1.0, 0.0, 0.0, 0.0], 0.0)),
        },
        Frame::Sample {
            stream: StreamId::EyeGaze,
            capture: DeviceTime(1),
            payload: Payload::EyeGaze(EyeGazeSample {
                yaw_rad: -0.125,
                pitch_rad: 0.0625,
                depth_m: Some(1.25),
            }),
        },
        Frame::Sample {
            stream: StreamId::EyeGaze,
            capture: DeviceTime(2),
            payload: Payload::EyeGaze(EyeGazeSample {
                yaw_rad: 0.0,
                pitch_rad: 0.0,
                depth_m: None,
            }),
        },
        Frame::Sample {
            stream: StreamId::HandTracking,
            capture: DeviceTime(3),
            payload: Payload::Hands(HandSample {
                left: None,
                right: Some(hand(-0.125)),
            }),
        },
        Frame::Sample {
            stream: StreamId::HandTracking,
            capture: DeviceTime(4),
            payload: Payload::Hands(HandSample {
                left: Some(hand(0.125)),
                right: Some(hand(-0.125)),
            }),
        },
    ]
}

#[test]
fn gen2_streams_and_the_devices_perception_round_trip() {
    for f in gen2_frames() {
        assert_eq!(round_trip(&f), f);
    }
    // Gen2's microphones travel as recorded: one Opus packet, its frames' times.
    let opus = Frame::Sample {
        stream: StreamId::Audio,
        capture: DeviceTime(5),
        payload: Payload::Audio(AudioBlock {
            channels: 8,
            sample_rate_hz: 16_000,
            timestamps_ns: Arc::from(vec![5i64, 62_505, 125_005]),
            coding: AudioCoding::Opus,
            data: Bytes::from_static(&[0xfc, 0xff, 0xfe, 1, 2, 3]),
        }),
    };
    assert_eq!(round_trip(&opus), opus);
    assert_eq!(body_of(&opus)[15], PAYLOAD_AUDIO_OPUS);
    let Frame::Hello(h) = &gen2_frames()[0] else {
        panic!()
    };
    assert_eq!(
        h.known_streams(),
        vec![
            StreamId::CameraSlamLeft,
            StreamId::CameraSlamSideLeft,
            StreamId::CameraEtRight,
            StreamId::DevicePose,
            StreamId::EyeGaze
        ]
    );
    assert_eq!(h.unknown_streams().count(), 1);
    assert_eq!(
        h.label_of(StreamId::CameraSlamSideLeft),
        Some("slam-side-left")
    );
    // The wire ids PROTOCOL.md lists.
    let b = body_of(&gen2_frames()[1]);
    assert_eq!(i32::from_le_bytes(b[1..5].try_into().unwrap()), 371);
    assert_eq!(u16::from_le_bytes(b[5..7].try_into().unwrap()), 3);
    assert_eq!(b[15], 6, "pose payload kind");
    // Translation, quaternion (w first), six velocities, quality.
    assert_eq!(b.len(), 16 + 3 * 8 + 4 * 8 + 6 * 4 + 4);
}

#[test]
fn version_1_peers_are_still_understood() {
    // A version-1 hello: no stream list; Gen1's nine are implied, and it re-encodes as sent.
    let mut v1 = vec![KIND_HELLO];
    v1.extend_from_slice(b"VSTA");
    v1.extend_from_slice(&1u16.to_le_bytes());
    v1.extend_from_slice(&2u16.to_le_bytes());
    v1.extend_from_slice(b"S1");
    v1.extend_from_slice(&0u16.to_le_bytes());
    v1.extend_from_slice(&0u32.to_le_bytes());
    let f = decode_frame(&Bytes::from(v1.clone()), &Limits::default()).unwrap();
    let Frame::Hello(h) = &f else { panic!("{f:?}") };
    assert_eq!(h.version, 1);
    assert_eq!(h.known_streams().len(), 9);
    assert_eq!(&body_of(&f)[..], &v1[..]);
    // A version-1 hello cannot claim Gen2's streams.
    let mut h = h.clone();
    h.streams
        .extend(WireStream::new(StreamId::DevicePose, "device-pose"));
    assert!(matches!(
        encode_frame(&Frame::Hello(h), &mut Vec::new()),
        Err(ProtocolError::Unencodable(_))
    ));
}

#[test]
fn hostile_device_perception_is_refused() {
    let limits = Limits::default();
    let frames = gen2_frames();
    // A pose whose quaternion is zero, or not finite.
    for q in [[0.0; 4], [f64::NAN, 0.0, 0.0, 0.0]] {
        let mut v = body_of(&frames[1]).to_vec();
        for (k, x) in q.iter().enumerate() {
            let at = 16 + 24 + 8 * k;
            v[at..at + 8].copy_from_slice(&x.to_le_bytes());
        }
        assert!(
            matches!(
                decode_frame(&Bytes::from(v), &limits),
                Err(ProtocolError::Inconsistent { offset: 16, .. })
            ),
            "{q:?}"
        );
    }
    // A pose on the IMU's stream.
    let mut v = body_of(&frames[1]).to_vec();
    v[1..5].copy_from_slice(&1202i32.to_le_bytes());
    v[5..7].copy_from_slice(&1u16.to_le_bytes());
    assert!(matches!(
        decode_frame(&Bytes::from(v), &limits),
        Err(ProtocolError::BadStream { type_id: 1202, .. })
    ));
    // Hands present mask with unknown bits; a gaze depth flag of 2; an infinite gaze.
    let mut v = body_of(&frames[5]).to_vec();
    v[16] = 4;
    assert!(matches!(
        decode_frame(&Bytes::from(v), &limits),
        Err(ProtocolError::UnknownTag { offset: 16, .. })
    ));
    let mut v = body_of(&frames[3]).to_vec();
    v[24] = 2;
    assert!(matches!(
        decode_frame(&Bytes::from(v), &limits),
        Err(ProtocolError::UnknownTag { offset: 24, .. })
    ));
    let mut v = body_of(&frames[3]).to_vec();
    v[16..20].copy_from_slice(&f32::INFINITY.to_le_bytes());
    assert!(matches!(
        decode_frame(&Bytes::from(v), &limits),
        Err(ProtocolError::Inconsistent { .. })
    ));
    // A hello announcing more streams than allowed, checked before allocating.
    let few = Limits {
        max_streams: 2,
        ..limits
    };
    assert!(matches!(
        decode_frame(&body_of(&frames[0]), &few),
        Err(ProtocolError::TooLarge {
            what: "stream count",
            ..
        })
    ));
}

#[test]
fn hello_layout_is_as_documented() {
    // Kind, magic, version, then u16-prefixed serial: the first bytes PROTOCOL.md documents.
    let b = body_of(&hello());
    assert_eq!(b[0], KIND_HELLO);
    assert_eq!(&b[1..5], b"VSTA");
    assert_eq!(u16::from_le_bytes([b[5], b[6]]), PROTOCOL_VERSION);
    assert_eq!(u16::from_le_bytes([b[7], b[8]]), 14);
    assert_eq!(&b[9..23], b"1WM09380041283");
}

#[test]
fn stream_id_is_the_vrs_id_on_the_wire() {
    let b = body_of(&jpeg_sample());
    assert_eq!(i32::from_le_bytes(b[1..5].try_into().unwrap()), 214);
    assert_eq!(u16::from_le_bytes(b[5..7].try_into().unwrap()), 1);
    assert_eq!(
        i64::from_le_bytes(b[7..15].try_into().unwrap()),
        123_456_789
    );
}

#[test]
fn host_computed_streams_are_not_encodable_and_append_nothing() {
    // MPS's points are computed offline on a host: no device streams them.
    let f = Frame::Sample {
        stream: StreamId::SemidensePoints,
        capture: DeviceTime(0),
        payload: Payload::EyeGaze(Default::default()),
    };
    let mut out = vec![7u8];
    assert!(matches!(
        encode_frame(&f, &mut out),
        Err(ProtocolError::Unencodable(_))
    ));
    assert_eq!(out, vec![7u8]);
}

#[test]
fn every_truncation_is_a_typed_error() {
    for f in [hello(), jpeg_sample(), audio_sample(4, 2)] {
        let b = body_of(&f);
        for cut in 0..b.len() {
            let err = decode_frame(&b.slice(..cut), &Limits::default()).unwrap_err();
            assert!(
                matches!(err, ProtocolError::Truncated { .. }),
                "cut {cut}: {err}"
            );
        }
    }
}

#[test]
fn trailing_bytes_are_rejected() {
    let mut v = body_of(&hello()).to_vec();
    v.push(0);
    let err = decode_frame(&Bytes::from(v.clone()), &Limits::default()).unwrap_err();
    assert_eq!(
        err,
        ProtocolError::Trailing {
            offset: v.len() - 1,
            extra: 1
        }
    );
}

#[test]
fn oversized_lengths_are_rejected_before_allocation() {
    let limits = Limits::default();
    assert!(matches!(
        check_frame_len(u32::MAX, &limits),
        Err(ProtocolError::TooLarge { .. })
    ));
    assert!(check_frame_len(0, &limits).is_err());
    // A sample frame claiming a 4 GiB image in a 40-byte body.
    let mut v = body_of(&jpeg_sample()).to_vec();
    let data_len_at = v.len() - 7 - 4;
    v[data_len_at..data_len_at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
    let err = decode_frame(&Bytes::from(v), &limits).unwrap_err();
    assert!(
        matches!(err, ProtocolError::TooLarge { offset, what: "image data", .. } if offset == data_len_at),
        "{err}"
    );
    // An IMU batch claiming a billion entries.
    let mut v = vec![KIND_IMU_BATCH];
    v.extend_from_slice(&1202i32.to_le_bytes());
    v.extend_from_slice(&1u16.to_le_bytes());
    v.extend_from_slice(&1_000_000_000u32.to_le_bytes());
    let err = decode_frame(&Bytes::from(v), &limits).unwrap_err();
    assert!(
        matches!(err, ProtocolError::TooLarge { offset: 7, .. }),
        "{err}"
    );
    // Within the count limit but not backed by bytes: truncated, not allocated.
    let mut v = vec![KIND_IMU_BATCH];
    v.extend_from_slice(&1202i32.to_le_bytes());
    v.extend_from_slice(&1u16.to_le_bytes());
    v.extend_from_slice(&4000u32.to_le_bytes());
    let err = decode_frame(&Bytes::from(v), &limits).unwrap_err();
    assert!(
        matches!(err, ProtocolError::Truncated { offset: 11, .. }),
        "{err}"
    );
}

#[test]
fn hostile_tags_streams_and_versions_are_typed_errors() {
    let limits = Limits::default();
    let err = decode_frame(&Bytes::from_static(&[99]), &limits).unwrap_err();
    assert!(matches!(
        err,
        ProtocolError::UnknownTag {
            offset: 0,
            value: 99,
            ..
        }
    ));
    // Wrong magic and wrong version.
    let mut v = body_of(&hello()).to_vec();
    v[1] = b'X';
    assert!(matches!(
        decode_frame(&Bytes::from(v), &limits),
        Err(ProtocolError::BadHello { offset: 1, .. })
    ));
    let mut v = body_of(&hello()).to_vec();
    v[5] = 99;
    assert!(matches!(
        decode_frame(&Bytes::from(v), &limits),
        Err(ProtocolError::BadHello { offset: 5, .. })
    ));
    // A sample on unknown stream 285-1 (a newer device's) is skipped, whatever follows.
    let mut v = body_of(&jpeg_sample()).to_vec();
    v[1..5].copy_from_slice(&285i32.to_le_bytes());
    v.truncate(20);
    assert_eq!(
        decode_frame(&Bytes::from(v), &limits),
        Ok(Frame::UnknownStream {
            type_id: 285,
            instance: 1
        })
    );
    // ... but an IMU batch must name an IMU.
    let mut v = body_of(&Frame::ImuBatch {
        stream: StreamId::ImuLeft,
        samples: Vec::new(),
    })
    .to_vec();
    v[1..5].copy_from_slice(&285i32.to_le_bytes());
    assert!(matches!(
        decode_frame(&Bytes::from(v), &limits),
        Err(ProtocolError::BadStream {
            offset: 1,
            type_id: 285,
            ..
        })
    ));
    // An image on the barometer stream.
    let mut v = body_of(&jpeg_sample()).to_vec();
    v[1..5].copy_from_slice(&247i32.to_le_bytes());
    assert!(matches!(
        decode_frame(&Bytes::from(v), &limits),
        Err(ProtocolError::BadStream { type_id: 247, .. })
    ));
    // Audio PCM length disagreeing with frames × channels.
    let mut v = body_of(&audio_sample(2, 2)).to_vec();
    let pcm_len_at = v.len() - 16 - 4;
    v[pcm_len_at..pcm_len_at + 4].copy_from_slice(&8u32.to_le_bytes());
    v.truncate(pcm_len_at + 4 + 8);
    assert!(matches!(
        decode_frame(&Bytes::from(v), &limits),
        Err(ProtocolError::Inconsistent { .. })
    ));
    // Serial that is not UTF-8.
    let mut v = body_of(&hello()).to_vec();
    v[9] = 0xff;
    assert!(matches!(
        decode_frame(&Bytes::from(v), &limits),
        Err(ProtocolError::BadUtf8 { offset: 9, .. })
    ));
}

fn arb_imu() -> impl Strategy<Value = TimedImu> {
    (
        any::<i64>(),
        prop::array::uniform3(-100f32..100.0),
        prop::array::uniform3(-10f32..10.0),
        any::<bool>(),
        any::<bool>(),
        -40f32..90.0,
    )
        .prop_map(|(t, a, g, av, gv, temp)| TimedImu {
            capture: DeviceTime(t),
            imu: ImuSample {
                accel_mps2: a,
                gyro_radps: g,
                accel_valid: av,
                gyro_valid: gv,
                temperature_c: temp,
            },
        })
}

fn arb_frame() -> impl Strategy<Value = Frame> {
    prop_oneof![
        ("[ -~]{0,40}", "[a-z0-9]{0,20}", "\\PC{0,200}")
            .prop_map(|(s, p, c)| Frame::Hello(Hello::new(s, p, c))),
        (
            prop::sample::select(vec![
                StreamId::CameraRgb,
                StreamId::CameraSlamLeft,
                StreamId::CameraSlamRight,
                StreamId::CameraEt
            ]),
            any::<i64>(),
            any::<u32>(),
            any::<u32>(),
            any::<u64>(),
            prop::collection::vec(any::<u8>(), 0..300)
        )
            .prop_map(|(stream, t, w, h, n, data)| Frame::Sample {
                stream,
                capture: DeviceTime(t),
                payload: Payload::Image(ImageFrame {
                    width: w,
                    height: h,
                    encoding: ImageEncoding::Jpeg,
                    data: Bytes::from(data),
                    frame_number: n,
                    exposure_s: 0.01,
                    gain: 1.5,
                }),
            }),
        (
            prop::sample::select(vec![StreamId::ImuLeft, StreamId::ImuRight]),
            prop::collection::vec(arb_imu(), 0..40)
        )
            .prop_map(|(stream, samples)| Frame::ImuBatch { stream, samples }),
        (1usize..50, 1u8..8).prop_map(|(n, c)| audio_sample(n, c)),
        any::<i64>().prop_map(|t| Frame::Heartbeat {
            device_now: DeviceTime(t)
        }),
        "\\PC{0,60}".prop_map(|reason| Frame::Goodbye { reason }),
        "[ -~]{0,60}".prop_map(|token| Frame::Auth { token }),
        (
            prop::sample::select(vec![StreamId::DevicePose, StreamId::DeviceVio]),
            any::<i64>(),
            prop::array::uniform4(-1f64..1.0),
            0f32..=1.0,
        )
            .prop_filter("a rotation", |(_, _, q, _)| {
                (0.5..=2.0).contains(&q.iter().map(|x| x * x).sum::<f64>().sqrt())
            })
            .prop_map(|(stream, t, q, quality)| Frame::Sample {
                stream,
                capture: DeviceTime(t),
                payload: Payload::Pose(pose(q, quality)),
            }),
        (
            any::<i64>(),
            -1.5f32..1.5,
            -1.5f32..1.5,
            prop::option::of(0.1f32..20.0)
        )
            .prop_map(|(t, yaw_rad, pitch_rad, depth_m)| Frame::Sample {
                stream: StreamId::EyeGaze,
                capture: DeviceTime(t),
                payload: Payload::EyeGaze(EyeGazeSample {
                    yaw_rad,
                    pitch_rad,
                    depth_m,
                }),
            }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn encode_decode_round_trips(f in arb_frame()) {
        prop_assert_eq!(round_trip(&f), f);
    }

    /// The decoder never panics on arbitrary bytes, and never on a valid frame with bytes
    /// flipped (a cheap fuzz of the frame decoder).
    #[test]
    fn decoder_never_panics(
        junk in prop::collection::vec(any::<u8>(), 0..200),
        f in arb_frame(),
        flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
    ) {
        let _ = decode_frame(&Bytes::from(junk), &Limits::default());
        let mut v = body_of(&f).to_vec();
        for (i, b) in flips {
            let k = i.index(v.len());
            v[k] = b;
        }
        let _ = decode_frame(&Bytes::from(v), &Limits::default());
    }
}
