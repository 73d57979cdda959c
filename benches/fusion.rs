//! Per-update latency of the sensor-fusion network (target ≤ 5 ms): `FusionModel::infer`
//! (window → inputs → engine → tokens), fp32 against int8, on ONNX Runtime (and tract with
//! `--features tract`), one intra-op thread.
//!
//! ```sh
//! cargo bench --bench fusion                                   # the tiny committed model
//! VISTA_FUSION_BENCH_DIR=DIR cargo bench --bench fusion        # also DIR/fusion{,.int8}.onnx,
//! # e.g. the paper-size network: python models/export/export.py --preset paper --out DIR
//! ```

use std::path::{Path, PathBuf};

use criterion::{criterion_group, criterion_main, Criterion};
use vista::infer::engine::Tensor;
use vista::infer::fusion::{FusionModel, FusionShape};
use vista::infer::ort_engine::OrtOptions;
use vista::infer::tensor_file::read_tensors;
use vista::window::{GridStream, SensorWindow};

fn get<'a>(ts: &'a [Tensor], name: &str) -> &'a Tensor {
    ts.iter().find(|t| t.name == name).expect("input present")
}

/// The exporter's fixed input (`input.vten`) as a window, question and IMU embedding.
fn input(dir: &Path) -> (SensorWindow, Vec<f32>, Vec<f32>) {
    let ins = read_tensors(&dir.join("input.vten")).expect("input.vten");
    let mut w = SensorWindow::new();
    w.normalised = true;
    for s in GridStream::ALL {
        let t = &mut w.streams[s.index()];
        t.values = get(&ins, s.name()).data.clone();
        let mask = &get(&ins, &format!("{}_mask", s.name())).data;
        for (m, &v) in t.mask.iter_mut().zip(mask) {
            *m = v == 1.0;
        }
    }
    (
        w,
        get(&ins, "question_embedding").data.clone(),
        get(&ins, "imu_embedding").data.clone(),
    )
}

fn bench_dir(c: &mut Criterion, label: &str, dir: &Path) {
    let (w, q, e) = input(dir);
    for file in ["fusion.onnx", "fusion.int8.onnx"] {
        let path = dir.join(file);
        let precision = if file.contains("int8") {
            "int8"
        } else {
            "fp32"
        };
        let mut m =
            FusionModel::load_ort(&path, FusionShape::SMOLLM2_STAGE2, OrtOptions::default())
                .expect("model loads");
        c.bench_function(&format!("fusion_{label}_ort_{precision}"), |b| {
            b.iter(|| m.infer(&w, &q, Some(&e)).expect("runs"))
        });
        #[cfg(feature = "tract")]
        {
            use vista::infer::tract_engine::TractEngine;
            let shape = FusionShape::SMOLLM2_STAGE2;
            let engine = TractEngine::load(&path, &shape.contract(), 1).expect("tract loads");
            let mut m = FusionModel::new(Box::new(engine), shape).expect("contract");
            c.bench_function(&format!("fusion_{label}_tract_{precision}"), |b| {
                b.iter(|| m.infer(&w, &q, Some(&e)).expect("runs"))
            });
        }
    }
}

fn fusion(c: &mut Criterion) {
    let tiny = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/fusion-tiny");
    bench_dir(c, "tiny", &tiny);
    if let Some(dir) = std::env::var_os("VISTA_FUSION_BENCH_DIR") {
        bench_dir(c, "dir", &PathBuf::from(dir));
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).measurement_time(std::time::Duration::from_secs(4));
    targets = fusion
}
criterion_main!(benches);
