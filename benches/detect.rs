//! The object detector's cost, one intra-op thread: `cargo bench --bench detect`.
//!
//! * `input_1408`: the model's 300² input from a decoded 1408² Aria RGB frame (area
//!   averaging) alone;
//! * `frame_1408`: input and model on that frame (what the pipeline pays per frame, after
//!   decoding);
//! * `photo_768`: input and model on a 768 × 576 photo.
//!
//! Needs the model from `models/fetch`.

use std::path::Path;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use vista::detect::resize::square_rgb;
use vista::detect::still::read_image;
use vista::detect::{Detector, DetectorConfig};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data");

fn bench(c: &mut Criterion) {
    let frame = read_image(&Path::new(DATA).join("ocr/frame_1408.jpg")).expect("frame");
    let photo = read_image(&Path::new(DATA).join("photos/dog.jpg")).expect("photo");
    let mut d = Detector::load(&DetectorConfig::default()).expect("detector (run models/fetch)");
    let mut g = c.benchmark_group("detect");
    g.sample_size(20)
        .warm_up_time(Duration::from_secs(2))
        .measurement_time(Duration::from_secs(6));
    g.bench_function("input_1408", |b| {
        b.iter(|| square_rgb(&frame, 300).expect("input"))
    });
    g.bench_function("frame_1408", |b| b.iter(|| d.detect(&frame).expect("run")));
    g.bench_function("photo_768", |b| b.iter(|| d.detect(&photo).expect("run")));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
