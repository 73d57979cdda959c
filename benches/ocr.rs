//! The OCR pipeline's cost, one intra-op thread per model: `cargo bench --bench ocr`.
//!
//! * `det_640`: detection alone (preprocess, model, DB post-processing) on a 640² crop of a
//!   1408² frame, at its own size (`DetLimit::Max(960)`); `det_640_as_736`: the same crop
//!   with RapidOCR's default rule (shorter side ≥ 736, so it runs at 736²).
//! * `rec_one_line`: recognition of one line crop ("Gate 12", 48 × 320 input).
//! * `frame_1408_roi`: the whole pipeline on a 640² square around the gaze point of a
//!   1408² frame (RapidOCR defaults); `frame_1408_whole`: the whole frame (1408² detection);
//!   `frame_1408_whole_max960`: the whole frame detected at 960².
//!
//! Needs the models from `models/fetch`.

use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use vista::ocr::{read_region, BgrImage, DetLimit, OcrConfig, OcrEngine, Region};

const FRAME: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/ocr/frame_1408.jpg");

fn engine(det_limit: DetLimit) -> OcrEngine {
    let cfg = OcrConfig {
        det_limit,
        ..OcrConfig::default()
    };
    OcrEngine::new(cfg).expect("OCR models (run models/fetch)")
}

fn bench(c: &mut Criterion) {
    let frame = BgrImage::from_jpeg(&std::fs::read(FRAME).expect("frame")).expect("decode");
    let crop = frame.crop(655, 160, 640, 640).expect("crop");
    let mut g = c.benchmark_group("ocr");
    g.sample_size(10).warm_up_time(Duration::from_secs(2));

    let mut e960 = engine(DetLimit::Max(960));
    let mut e736 = engine(DetLimit::default());
    g.measurement_time(Duration::from_secs(8));
    g.bench_function("det_640", |b| b.iter(|| e960.detect(&crop).expect("det")));
    g.bench_function("det_640_as_736", |b| {
        b.iter(|| e736.detect(&crop).expect("det"))
    });

    let line = frame.crop(850, 462, 246, 52).expect("line");
    g.bench_function("rec_one_line", |b| {
        b.iter(|| e736.recognise(std::slice::from_ref(&line)).expect("rec"))
    });

    let roi = Region::Around {
        center_px: [975.0, 480.0],
        size_px: 640,
    };
    g.bench_function("frame_1408_roi", |b| {
        b.iter(|| read_region(&mut e736, &frame, roi).expect("read"))
    });
    g.measurement_time(Duration::from_secs(15));
    g.bench_function("frame_1408_whole", |b| {
        b.iter(|| read_region(&mut e736, &frame, Region::Whole).expect("read"))
    });
    g.bench_function("frame_1408_whole_max960", |b| {
        b.iter(|| read_region(&mut e960, &frame, Region::Whole).expect("read"))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
