//! Stereo depth per SLAM pair, one core: `cargo bench --bench stereo`.
//!
//! The real Aria Gen1 sample's first SLAM pair (640×480 JPEG each), rectified to the
//! default 320×256 pinhole pair, 64 disparities:
//!
//! * `pair_decode_rectify_match_triangulate`: the whole stage from encoded frames
//!   (`StereoDepth::process_frames`). Target: well under 50 ms (10 fps budget: 100 ms).
//! * `pair_rectify_match_triangulate`: the same from decoded pixels (`process`).
//! * `setup_remap_tables`: building the stage (once per session).

use criterion::{criterion_group, criterion_main, Criterion};
use vista::aria::recorded_calib::recording_calibration;
use vista::aria::recording::{decode_image, AriaRecording};
use vista::perception::stereo::{GreyView, StereoConfig, StereoDepth, StereoPairer};
use vista::sample::{ImageFrame, Sample};
use vista::time::HostTime;

const SAMPLE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/gen1/aria_unit_test_timecode_sequence_calib.vrs"
);

fn bench(c: &mut Criterion) {
    let rec = AriaRecording::open(SAMPLE).expect("sample recording");
    let cal = recording_calibration(&rec)
        .expect("calibration")
        .expect("sample has a calibration");
    let mut pairer: StereoPairer<ImageFrame> = StereoPairer::default();
    let pair = rec
        .samples()
        .filter_map(Result::ok)
        .enumerate()
        .find_map(|(seq, (stream, capture, payload))| {
            pairer.push_sample(&Sample {
                stream,
                capture,
                arrival: HostTime(0),
                seq: seq as u64,
                payload,
            })
        })
        .expect("a SLAM pair");
    let mut st = StereoDepth::new(&cal, StereoConfig::default()).expect("stage");
    let frame = st
        .process_frames(pair.capture_ns, &pair.left, &pair.right)
        .expect("depth");
    eprintln!(
        "real Gen1 pair: {} points; {:?}",
        frame.points_device.len(),
        frame.stats
    );
    c.bench_function("pair_decode_rectify_match_triangulate", |b| {
        b.iter(|| {
            st.process_frames(pair.capture_ns, &pair.left, &pair.right)
                .expect("depth")
        })
    });
    let l = decode_image(&pair.left).expect("left");
    let r = decode_image(&pair.right).expect("right");
    c.bench_function("pair_rectify_match_triangulate", |b| {
        b.iter(|| {
            st.process(pair.capture_ns, GreyView::of(&l).0, GreyView::of(&r).0)
                .expect("depth")
        })
    });
    c.bench_function("setup_remap_tables", |b| {
        b.iter(|| StereoDepth::new(&cal, StereoConfig::default()).expect("stage"))
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = bench
}
criterion_main!(benches);
