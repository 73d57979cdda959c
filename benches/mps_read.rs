//! Read throughput of the MPS readers on the bundled Gen1 sample:
//! `cargo bench --bench mps_read`.

use std::path::{Path, PathBuf};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use vista::aria::mps::{
    read_eye_gaze, read_online_calibrations, read_semidense_points, read_trajectory, PointFilter,
    TrajectoryReader,
};

fn sample(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/gen1/mps_sample")
        .join(rel)
}

fn bench(c: &mut Criterion) {
    let closed = sample("trajectory/closed_loop_trajectory.csv");
    let rows = read_trajectory(&closed).map(|v| v.len()).unwrap_or(0) as u64;
    let mut g = c.benchmark_group("mps_read");
    g.sample_size(20);
    g.throughput(Throughput::Elements(rows));
    g.bench_function("closed_loop_trajectory_collect", |b| {
        b.iter(|| read_trajectory(&closed).map(|v| v.len()))
    });
    g.bench_function("closed_loop_trajectory_stream", |b| {
        b.iter(|| TrajectoryReader::open(&closed).map(|r| r.filter(|x| x.is_ok()).count()))
    });
    let points = sample("trajectory/global_points.csv.gz");
    let n = read_semidense_points(&points, PointFilter::none())
        .map(|v| v.len())
        .unwrap_or(0) as u64;
    g.throughput(Throughput::Elements(n));
    g.bench_function("semidense_points_gz_nominal_filter", |b| {
        b.iter(|| read_semidense_points(&points, PointFilter::default()).map(|v| v.len()))
    });
    g.throughput(Throughput::Elements(123));
    let gaze = sample("eye_gaze_vergence/generalized_gaze.csv");
    g.bench_function("eye_gaze_vergence", |b| {
        b.iter(|| read_eye_gaze(&gaze).map(|v| v.len()))
    });
    let calib = sample("trajectory/online_calibration.jsonl");
    g.throughput(Throughput::Elements(122));
    g.bench_function("online_calibration_jsonl", |b| {
        b.iter(|| read_online_calibrations(&calib).map(|v| v.len()))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
