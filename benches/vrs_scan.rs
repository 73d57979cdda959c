//! VRS reading speed on the real Aria sample: opening, a sequential scan of every record
//! (header + payload, decompressed, into one reused buffer), typed decoding of every sample,
//! and decoding one 1408×1408 RGB JPEG.
//!
//! Run: `cargo bench --bench vrs_scan`. Target: scan ≥ 1 GB/s of file bytes.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use vista::aria::recording::{decode_image, AriaRecording};
use vista::aria::vrs::VrsReader;
use vista::sample::{Payload, StreamId};

const SAMPLE: &str = "tests/data/gen1/aria_unit_test_timecode_sequence_calib.vrs";

fn scan(c: &mut Criterion) {
    let r = VrsReader::open(SAMPLE).unwrap();
    let mut g = c.benchmark_group("vrs");
    g.throughput(Throughput::Bytes(r.file_len()));
    g.bench_function("open", |b| {
        b.iter(|| black_box(VrsReader::open(SAMPLE).unwrap()))
    });
    let mut buf = Vec::with_capacity(1 << 20);
    g.bench_function("scan_all_records", |b| {
        b.iter(|| {
            let mut n = 0usize;
            for e in r.index() {
                let h = r.read_record_into(e, &mut buf).unwrap();
                n += buf.len() + h.record_size as usize;
            }
            black_box(n)
        })
    });
    let rec = AriaRecording::open(SAMPLE).unwrap();
    g.bench_function("decode_all_samples", |b| {
        b.iter(|| black_box(rec.samples().filter(Result::is_ok).count()))
    });
    g.finish();
}

fn jpeg(c: &mut Criterion) {
    let rec = AriaRecording::open(SAMPLE).unwrap();
    let Some(Ok((_, _, Payload::Image(frame)))) = rec.stream_samples(StreamId::CameraRgb).next()
    else {
        panic!("no RGB frame in the sample");
    };
    let mut g = c.benchmark_group("jpeg");
    g.throughput(Throughput::Elements(1));
    g.bench_function("zune_jpeg_rgb_1408x1408", |b| {
        b.iter(|| black_box(decode_image(&frame).unwrap()))
    });
    g.finish();
}

criterion_group!(benches, scan, jpeg);
criterion_main!(benches);
