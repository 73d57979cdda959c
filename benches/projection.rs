//! Projection throughput of the Aria camera models (target: Fisheye624 ≥ 20 M points/s on
//! one core). Run: `cargo bench --bench projection`.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use nalgebra::{Point2, Vector3};
use vista::aria::calib::DeviceCalibration;

const N: usize = 4096;

/// Deterministic points spread over the RGB camera's field of view (θ up to ~1.1 rad, so a
/// share of them is outside the valid region, as in real use).
fn points() -> Vec<Vector3<f64>> {
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    (0..N)
        .map(|_| {
            let theta = next() * 1.1;
            let phi = next() * std::f64::consts::TAU;
            let depth = 0.3 + next() * 5.0;
            Vector3::new(
                theta.sin() * phi.cos(),
                theta.sin() * phi.sin(),
                theta.cos(),
            ) * depth
        })
        .collect()
}

fn bench_projection(c: &mut Criterion) {
    let dev = DeviceCalibration::from_json_file(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/calibration/aria_gen1_1WM09380041283_factory.json"
    ))
    .expect("sample calibration");
    let rgb = dev.camera("camera-rgb").expect("rgb").clone();
    let et = dev.camera("camera-et-left").expect("et").clone();
    let pts = points();
    let mut out: Vec<Option<Point2<f64>>> = vec![None; N];

    let mut g = c.benchmark_group("project");
    g.throughput(Throughput::Elements(N as u64));
    g.bench_function("fisheye624_model_loop", |b| {
        b.iter(|| {
            for (o, p) in out.iter_mut().zip(black_box(&pts)) {
                *o = rgb.model.project(p);
            }
            black_box(&out);
        })
    });
    g.bench_function("fisheye624_model_batch", |b| {
        b.iter(|| {
            rgb.model.project_batch(black_box(&pts), &mut out);
            black_box(&out);
        })
    });
    g.bench_function("fisheye624_calibration_batch", |b| {
        b.iter(|| {
            rgb.project_batch(black_box(&pts), &mut out);
            black_box(&out);
        })
    });
    g.bench_function("kannala_brandt_k3_calibration_batch", |b| {
        b.iter(|| {
            et.project_batch(black_box(&pts), &mut out);
            black_box(&out);
        })
    });
    g.finish();

    let pixels: Vec<Point2<f64>> = pts.iter().filter_map(|p| rgb.project(p)).collect();
    let mut g = c.benchmark_group("unproject");
    g.throughput(Throughput::Elements(pixels.len() as u64));
    g.bench_function("fisheye624_calibration", |b| {
        b.iter(|| {
            let mut n = 0usize;
            for uv in black_box(&pixels) {
                n += usize::from(rgb.unproject(uv).is_some());
            }
            black_box(n)
        })
    });
    g.finish();
}

criterion_group!(benches, bench_projection);
criterion_main!(benches);
