//! Motion detection on the SLAM cameras (vehicles), one core: `cargo bench --bench movers`.
//!
//! The real Aria Gen1 sample's SLAM frames (640×480 JPEG), fed to
//! [`MoverInput`] as a head standing still would give them, 10 frames a second per
//! camera:
//!
//! * `frame_pair_decode_compare`: one left and one right frame, each decoded, averaged
//!   to 320×240 and compared with its two references (0.2 s and 0.4 s back) — the work of
//!   100 ms of a session. Target: well under 10 ms (10 % of a core).

use criterion::{criterion_group, criterion_main, Criterion};
use nalgebra::Isometry3;
use vista::aria::recorded_calib::recording_calibration;
use vista::aria::recording::AriaRecording;
use vista::perception::movers::{MoverConfig, MoverInput};
use vista::sample::{Payload, PoseSample, Sample, StreamId};
use vista::time::{DeviceTime, HostTime};

const SAMPLE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/gen1/aria_unit_test_timecode_sequence_calib.vrs"
);

fn bench(c: &mut Criterion) {
    let rec = AriaRecording::open(SAMPLE).expect("sample recording");
    let cal = recording_calibration(&rec)
        .expect("calibration")
        .expect("sample has a calibration");
    let frames: Vec<(StreamId, Payload)> = rec
        .samples()
        .filter_map(Result::ok)
        .filter(|(s, _, _)| matches!(s, StreamId::CameraSlamLeft | StreamId::CameraSlamRight))
        .map(|(s, _, p)| (s, p))
        .take(8)
        .collect();
    assert!(frames.len() >= 4, "SLAM frames in the sample");
    let mut input = MoverInput::new(&cal, MoverConfig::default()).expect("movers");
    let mut t: i64 = 0;
    let mut seq = 0u64;
    let mut i = 0usize;
    let mut push = |input: &mut MoverInput, stream: StreamId, payload: Payload, at: i64| {
        seq += 1;
        input.on_sample(&Sample {
            stream,
            capture: DeviceTime(at),
            arrival: HostTime(0),
            seq,
            payload,
        });
    };
    let pose = |_: i64| {
        Payload::Pose(PoseSample {
            t_world_device: Isometry3::translation(0.0, 0.0, 1.6),
            linear_velocity_mps: [0.0; 3],
            angular_velocity_radps: [0.0; 3],
            quality: 1.0,
        })
    };
    let mut step = |input: &mut MoverInput| {
        t += 100_000_000;
        for k in 0..2 {
            let (s, p) = frames[(i + k) % frames.len()].clone();
            push(input, s, p, t);
        }
        i = (i + 2) % frames.len();
        // The pose after the frames places them.
        push(input, StreamId::DevicePose, pose(t), t + 1_000_000);
    };
    // Fill the references.
    for _ in 0..6 {
        step(&mut input);
    }
    c.bench_function("frame_pair_decode_compare", |b| b.iter(|| step(&mut input)));
    eprintln!("{:?}", input.stats());
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30);
    targets = bench
}
criterion_main!(benches);
