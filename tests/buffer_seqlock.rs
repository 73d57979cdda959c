//! The stream ring (`StreamBuffer`): every payload kind comes back bit for bit, readers
//! racing a producer that laps them never see a torn sample, and random interleavings of
//! pushes and reads by several readers match a naive reference model, with
//! `produced == delivered + dropped + pending` for every reader at every step.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use bytes::Bytes;
use nalgebra::{Isometry3, Translation3, UnitQuaternion};
use proptest::prelude::*;
use vista::buffer::{BufferConfig, BufferSet, BufferStats, StreamBuffer};
use vista::sample::{
    AudioBlock, AudioCoding, BaroSample, EyeGazeSample, HandSample, ImageEncoding, ImageFrame,
    ImuSample, MagSample, Payload, PoseSample, Sample, StreamId, WristPalm,
};
use vista::time::{DeviceTime, HostTime};

/// A sample of `stream` whose every field is a function of `k`, so a reader can tell a
/// torn copy (fields from two different samples) from a whole one.
fn sample_of(stream: StreamId, k: u64) -> Sample {
    let x = k as f32;
    let payload = match stream {
        StreamId::ImuRight | StreamId::ImuLeft => Payload::Imu(ImuSample {
            accel_mps2: [x, x + 1.0, x + 2.0],
            gyro_radps: [x + 3.0, x + 4.0, x + 5.0],
            accel_valid: k % 2 == 0,
            gyro_valid: k % 3 == 0,
            temperature_c: x + 6.0,
        }),
        StreamId::Magnetometer => Payload::Magnetometer(MagSample {
            field_t: [x, -x, 2.0 * x],
        }),
        StreamId::Barometer => Payload::Barometer(BaroSample {
            pressure_pa: k as f64 * 1.5,
            temperature_c: x,
        }),
        StreamId::EyeGaze => Payload::EyeGaze(EyeGazeSample {
            yaw_rad: x,
            pitch_rad: -x,
            depth_m: (k % 2 == 0).then_some(x + 0.5),
        }),
        StreamId::HandTracking => Payload::Hands(HandSample {
            left: (k % 2 == 0).then_some(WristPalm {
                confidence: x,
                wrist_m: [x, x + 1.0, x + 2.0],
                palm_m: [x + 3.0, x + 4.0, x + 5.0],
            }),
            right: (k % 3 != 0).then_some(WristPalm {
                confidence: -x,
                wrist_m: [-x, 1.0, 2.0],
                palm_m: [3.0, 4.0, -x],
            }),
        }),
        StreamId::DevicePose => Payload::Pose(PoseSample {
            t_world_device: Isometry3::from_parts(
                Translation3::new(k as f64, 2.0 * k as f64, -(k as f64)),
                UnitQuaternion::from_euler_angles(0.001 * x as f64, 0.2, -0.3),
            ),
            linear_velocity_mps: [x, 1.0, 2.0],
            angular_velocity_radps: [3.0, x, 5.0],
            quality: x,
        }),
        StreamId::Audio => Payload::Audio(AudioBlock {
            channels: 7,
            sample_rate_hz: 48_000,
            timestamps_ns: vec![k as i64; 3].into(),
            coding: AudioCoding::PcmI32Le,
            data: Bytes::from(k.to_le_bytes().repeat(4)),
        }),
        _ => Payload::Image(ImageFrame {
            width: 640,
            height: 480,
            encoding: ImageEncoding::Jpeg,
            data: Bytes::from(k.to_le_bytes().repeat(8)),
            frame_number: k,
            exposure_s: x,
            gain: 1.0,
        }),
    };
    Sample {
        stream,
        capture: DeviceTime(k as i64 * 1_000),
        arrival: HostTime(k as i64 * 7),
        seq: k,
        payload,
    }
}

const KINDS: [StreamId; 9] = [
    StreamId::ImuRight,
    StreamId::Magnetometer,
    StreamId::Barometer,
    StreamId::EyeGaze,
    StreamId::HandTracking,
    StreamId::DevicePose,
    StreamId::Audio,
    StreamId::CameraRgb,
    StreamId::CameraSlamLeft,
];

#[test]
fn every_payload_kind_comes_back_equal() {
    for stream in KINDS {
        let b = StreamBuffer::new(stream, 3);
        let pushed: Vec<Sample> = (0..7).map(|k| sample_of(stream, k)).collect();
        for s in &pushed {
            b.push(s.clone());
        }
        let mut out = Vec::new();
        let r = b.read_since(0, &mut out);
        assert_eq!((r.missed, r.copied, r.next), (4, 3, 7), "{stream}");
        assert_eq!(out, pushed[4..], "{stream}");
    }
}

#[test]
fn evicted_images_are_released() {
    let b = StreamBuffer::new(StreamId::CameraRgb, 2);
    let first = sample_of(StreamId::CameraRgb, 0);
    let Payload::Image(frame) = &first.payload else {
        unreachable!()
    };
    let data = frame.data.clone();
    b.push(first);
    assert!(!data.is_unique());
    b.push(sample_of(StreamId::CameraRgb, 1));
    b.push(sample_of(StreamId::CameraRgb, 2));
    // The buffer no longer holds the first frame, so no copy of its bytes is left there.
    assert!(data.is_unique());
}

/// Readers racing a producer that overwrites a 4-slot ring thousands of times: every
/// sample they get must equal `sample_of(stream, seq)` (a torn read would mix fields of
/// two samples), sequence numbers only increase, and delivered + dropped == produced.
fn race(stream: StreamId, n: u64, readers: usize) {
    race_in_batches(stream, n, readers, 1);
}

/// [`race`] with the producer pushing `batch` samples per `push_batch` (1: `push`).
fn race_in_batches(stream: StreamId, n: u64, readers: usize, batch: u64) {
    let set = Arc::new(BufferSet::new(
        BufferConfig::default().with_capacity(stream, 4),
    ));
    let done = Arc::new(AtomicBool::new(false));
    let handles: Vec<_> = (0..readers)
        .map(|j| {
            let mut r = set.reader(format!("r{j}"));
            let done = done.clone();
            std::thread::spawn(move || {
                let (mut bad, mut last, mut got) = (0u64, None::<u64>, 0u64);
                let mut window = Vec::new();
                loop {
                    let finished = done.load(Ordering::Acquire);
                    r.drain_new(stream, |s| {
                        got += 1;
                        bad += u64::from(*s != sample_of(stream, s.seq));
                        bad += u64::from(last.is_some_and(|l| s.seq <= l));
                        last = Some(s.seq);
                    });
                    if let Some(t) = r.newest_capture() {
                        r.read_window_into(stream, t.add_ns(-3_000), t, &mut window);
                        for s in &window {
                            bad += u64::from(*s != sample_of(stream, s.seq));
                        }
                    }
                    if finished {
                        break;
                    }
                }
                (r, bad, got)
            })
        })
        .collect();
    if batch <= 1 {
        for k in 0..n {
            set.push(sample_of(stream, k));
        }
    } else {
        let mut v = Vec::with_capacity(batch as usize);
        for start in (0..n).step_by(batch as usize) {
            v.extend((start..(start + batch).min(n)).map(|k| sample_of(stream, k)));
            set.push_batch(stream, &mut v);
        }
    }
    done.store(true, Ordering::Release);
    let mut outs = Vec::new();
    for h in handles {
        let (r, bad, got) = h.join().unwrap();
        assert_eq!(bad, 0, "{stream}: torn or out-of-order samples");
        assert!(got > 0);
        outs.push(r);
    }
    let stats = BufferStats::collect(&set, outs.iter());
    stats.check().unwrap();
    for c in stats.consumers.values() {
        let s = c[stream.name()];
        assert_eq!((s.delivered + s.dropped, s.pending), (n, 0));
    }
}

#[test]
fn racing_readers_never_see_a_torn_imu_sample() {
    for _ in 0..20 {
        race(StreamId::ImuRight, 20_000, 3);
    }
}

#[test]
fn racing_readers_of_batch_pushes_never_see_a_torn_sample() {
    for _ in 0..10 {
        race_in_batches(StreamId::ImuRight, 20_000, 3, 7);
        race_in_batches(StreamId::CameraSlamRight, 5_000, 2, 3);
    }
}

#[test]
fn racing_readers_never_see_a_torn_pose_or_image() {
    for _ in 0..10 {
        race(StreamId::DevicePose, 10_000, 2);
        race(StreamId::CameraSlamRight, 5_000, 2);
    }
}

/// One step of a random interleaving.
#[derive(Clone, Debug)]
enum Op {
    Push(u8),
    /// Pushes that many samples with one `push_batch`.
    PushBatch(u8),
    Drain(usize),
    Window(usize, i64, i64),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (1u8..6).prop_map(Op::Push),
        (1u8..16).prop_map(Op::PushBatch),
        (0usize..3).prop_map(Op::Drain),
        (0usize..3, 0i64..60, 0i64..20).prop_map(|(r, a, w)| Op::Window(r, a, a + w)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, rng_seed: proptest::test_runner::RngSeed::Fixed(7), ..ProptestConfig::default() })]

    /// Random pushes, drains and windows by three readers against a model: a `VecDeque`
    /// holding the last `cap` samples and a cursor per reader.
    #[test]
    fn interleavings_match_a_model(cap in 1usize..12, ops in proptest::collection::vec(op(), 0..80)) {
        let stream = StreamId::ImuLeft;
        let set = Arc::new(BufferSet::new(BufferConfig::default().with_capacity(stream, cap)));
        let mut readers: Vec<_> = (0..3).map(|j| set.reader(format!("r{j}"))).collect();
        let mut held: VecDeque<u64> = VecDeque::new();
        let mut produced = 0u64;
        let mut cursor = [0u64; 3];
        let mut delivered = [0u64; 3];
        for op in ops {
            match op {
                Op::Push(n) => for _ in 0..n {
                    set.push(sample_of(stream, produced));
                    held.push_back(produced);
                    if held.len() > cap { held.pop_front(); }
                    produced += 1;
                },
                Op::PushBatch(n) => {
                    let mut batch: Vec<Sample> =
                        (produced..produced + u64::from(n)).map(|k| sample_of(stream, k)).collect();
                    let o = set.push_batch(stream, &mut batch);
                    prop_assert!(batch.is_empty());
                    prop_assert_eq!((o.pushed, o.rejected), (u64::from(n), 0));
                    for _ in 0..n {
                        held.push_back(produced);
                        if held.len() > cap { held.pop_front(); }
                        produced += 1;
                    }
                }
                Op::Drain(j) => {
                    let mut got = Vec::new();
                    readers[j].drain_new(stream, |s| got.push(s.seq));
                    let want: Vec<u64> = held.iter().copied().filter(|&k| k >= cursor[j]).collect();
                    prop_assert_eq!(&got, &want);
                    delivered[j] += got.len() as u64;
                    cursor[j] = produced;
                }
                Op::Window(j, a, b) => {
                    let mut got = Vec::new();
                    readers[j].read_window(stream, DeviceTime(a * 1_000), DeviceTime(b * 1_000), |s| got.push(s.seq));
                    let want: Vec<u64> = held.iter().copied()
                        .filter(|&k| (a as u64..=b as u64).contains(&k)).collect();
                    prop_assert_eq!(got, want);
                }
            }
            let stats = BufferStats::collect(&set, readers.iter());
            prop_assert!(stats.check().is_ok());
            for (j, r) in readers.iter().enumerate() {
                let s = r.stream_stats(stream);
                prop_assert_eq!(s.delivered, delivered[j]);
                let oldest = produced - held.len() as u64;
                prop_assert_eq!(s.pending, produced - cursor[j].max(oldest));
            }
        }
    }
}
