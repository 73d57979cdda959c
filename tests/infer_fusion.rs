//! `FusionModel`: from the window's tensors to sensor tokens, on the tiny model — against the
//! exporter's PyTorch reference, the network's mask and absent-stream semantics, typed errors,
//! and a synthetic session end to end.

use std::path::{Path, PathBuf};

use vista::infer::engine::{EngineError, Tensor};
use vista::infer::fusion::{FusionError, FusionModel, FusionShape, SensorTokens};
use vista::infer::ort_engine::OrtOptions;
use vista::infer::tensor_file::read_tensors;
use vista::synth::{find_scenario, write_session, SynthOptions};
use vista::window::replay_windows::{for_each_window, window_at_moment};
use vista::window::{
    GridStream, SensorWindow, StatsAccumulator, WindowBuilder, WindowConfig, BINS,
};

const WIDTH: usize = 576;
const TOKENS: usize = 28;

fn tiny(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("models/fusion-tiny")
        .join(file)
}

fn model(file: &str) -> FusionModel {
    FusionModel::load_ort(
        &tiny(file),
        FusionShape::SMOLLM2_STAGE2,
        OrtOptions::default(),
    )
    .unwrap()
}

fn get<'a>(ts: &'a [Tensor], name: &str) -> &'a Tensor {
    ts.iter().find(|t| t.name == name).unwrap()
}

/// The exporter's fixed input as a window, question and IMU embedding.
fn reference_input() -> (SensorWindow, Vec<f32>, Vec<f32>) {
    let ins = read_tensors(&tiny("input.vten")).unwrap();
    let mut w = SensorWindow::new();
    w.normalised = true;
    for s in GridStream::ALL {
        let t = &mut w.streams[s.index()];
        t.values = get(&ins, s.name()).data.clone();
        let mask = &get(&ins, &format!("{}_mask", s.name())).data;
        assert_eq!(mask.len(), BINS);
        for (m, &v) in t.mask.iter_mut().zip(mask) {
            *m = v == 1.0;
        }
    }
    assert_eq!(get(&ins, "imu_embedding_valid").data, vec![1.0]);
    (
        w,
        get(&ins, "question_embedding").data.clone(),
        get(&ins, "imu_embedding").data.clone(),
    )
}

fn max_diff(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .fold(0.0f32, |m, (x, y)| m.max((x - y).abs()))
}

fn readout(t: &SensorTokens, s: GridStream) -> &[f32] {
    let start = (8 + 4 * s.index()) * t.width;
    &t.data[start..start + 4 * t.width]
}

#[test]
fn the_window_path_reproduces_the_pytorch_reference() {
    let (w, q, e) = reference_input();
    let want = read_tensors(&tiny("reference_fp32.vten")).unwrap();
    let mut m = model("fusion.onnx");
    let got = m.infer(&w, &q, Some(&e)).unwrap();
    assert_eq!((got.n_tokens, got.width), (TOKENS, WIDTH));
    let d = max_diff(&got.data, &get(&want, "sensor_tokens").data);
    assert!(d <= 1e-4, "tokens differ from PyTorch by {d}");
    let dg = max_diff(&got.gates, &get(&want, "gates").data);
    assert!(dg <= 1e-4, "gates differ by {dg}");
    assert_eq!(got.token(27).unwrap().len(), WIDTH);
    assert!(got.token(28).is_none());

    let want8 = read_tensors(&tiny("reference_int8.vten")).unwrap();
    let got8 = model("fusion.int8.onnx").infer(&w, &q, Some(&e)).unwrap();
    let d8 = max_diff(&got8.data, &get(&want8, "sensor_tokens").data);
    assert!(
        d8 <= 1e-4,
        "int8 tokens differ from onnxruntime-python by {d8}"
    );
}

#[test]
fn an_absent_stream_is_gated_off_and_its_readout_is_zero() {
    let (w, q, e) = reference_input();
    assert_eq!(w.stream(GridStream::Hands).valid_bins(), 0);
    let t = model("fusion.onnx").infer(&w, &q, Some(&e)).unwrap();
    assert_eq!(t.gates[GridStream::Hands.index()], 0.0);
    assert!(readout(&t, GridStream::Hands).iter().all(|&v| v == 0.0));
    for s in [
        GridStream::Imu,
        GridStream::MagBaro,
        GridStream::EyeGaze,
        GridStream::Trajectory,
    ] {
        let g = t.gates[s.index()];
        assert!(g > 0.0 && g < 1.0, "{s}: gate {g}");
        assert!(readout(&t, s).iter().any(|&v| v != 0.0), "{s}");
    }
}

#[test]
fn values_in_masked_bins_do_not_matter() {
    let (mut w, q, e) = reference_input();
    let mut m = model("fusion.onnx");
    let before = m.infer(&w, &q, Some(&e)).unwrap();
    // Garbage in every masked bin of every stream.
    for t in &mut w.streams {
        let c = t.stream.channel_count();
        for bin in 0..BINS {
            if !t.mask[bin] {
                for v in &mut t.values[bin * c..(bin + 1) * c] {
                    *v = 1e3;
                }
            }
        }
    }
    let after = m.infer(&w, &q, Some(&e)).unwrap();
    assert_eq!(before, after);
    // While a valid bin does.
    w.streams[GridStream::EyeGaze.index()].values[40 * 5] += 1.0;
    let changed = m.infer(&w, &q, Some(&e)).unwrap();
    assert!(max_diff(&before.data, &changed.data) > 0.0);
}

#[test]
fn the_question_and_the_imu_embedding_both_reach_the_tokens() {
    let (w, q, e) = reference_input();
    let mut m = model("fusion.onnx");
    let base = m.infer(&w, &q, Some(&e)).unwrap();
    let q2: Vec<f32> = q.iter().map(|v| -v).collect();
    let other_q = m.infer(&w, &q2, Some(&e)).unwrap();
    assert!(max_diff(&base.data, &other_q.data) > 1e-4);
    assert!(
        max_diff(&base.gates, &other_q.gates) > 0.0,
        "gates ignore the question"
    );
    let no_emb = m.infer(&w, &q, None).unwrap();
    assert!(max_diff(&base.data, &no_emb.data) > 1e-4);
    // Without the embedding the IMU stream still has its grid.
    assert!(no_emb.gates[GridStream::Imu.index()] > 0.0);
}

#[test]
fn wrong_inputs_are_typed_errors() {
    let (w, q, e) = reference_input();
    let mut m = model("fusion.onnx");
    let err = m.infer(&w, &q[..575], Some(&e)).unwrap_err();
    assert!(
        matches!(
            err,
            FusionError::Width {
                expected: 576,
                got: 575,
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("question embedding"), "{err}");
    let err = m.infer(&w, &q, Some(&e[..100])).unwrap_err();
    assert!(
        matches!(
            err,
            FusionError::Width {
                expected: 512,
                got: 100,
                ..
            }
        ),
        "{err}"
    );
    let mut raw = w.clone();
    raw.normalised = false;
    let err = m.infer(&raw, &q, Some(&e)).unwrap_err();
    assert!(matches!(err, FusionError::NotNormalised { .. }), "{err}");
    m.set_require_normalised(false);
    assert!(m.infer(&raw, &q, Some(&e)).is_ok());

    let wide = FusionShape {
        width: 960,
        question_dim: 960,
        ..FusionShape::SMOLLM2_STAGE2
    };
    let err = FusionModel::load_ort(&tiny("fusion.onnx"), wide, OrtOptions::default())
        .err()
        .unwrap();
    assert!(
        matches!(err, FusionError::Engine(EngineError::Contract { .. })),
        "{err}"
    );
    assert!(
        err.to_string().contains("576") && err.to_string().contains("960"),
        "{err}"
    );
}

#[test]
fn a_synthetic_session_goes_through_end_to_end() {
    let dir = tempfile::tempdir().unwrap();
    let session = dir.path().join("s");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let sc = find_scenario(&root.join("scenarios"), "mixed_walk").unwrap();
    let opts = SynthOptions {
        seed: 3,
        duration_s: Some(8.0),
        ..SynthOptions::default()
    };
    write_session(&sc, &session, &opts).unwrap();

    let config = WindowConfig::default();
    let mut acc = StatsAccumulator::new(config.bin_ns);
    for_each_window(&session, config, true, |w| acc.add_window(w)).unwrap();
    let stats = acc.finish();
    let builder = WindowBuilder::new(config)
        .unwrap()
        .with_norm(&stats)
        .unwrap();
    let moment = window_at_moment(&session, 7.0, builder, 5, true).unwrap();
    let w = &moment.window;
    assert!(w.normalised);

    let mut m = model("fusion.int8.onnx");
    let q = vec![0.01f32; WIDTH];
    let t = m.infer(w, &q, None).unwrap();
    assert_eq!(t.data.len(), TOKENS * WIDTH);
    assert!(t.data.iter().all(|v| v.is_finite()));
    for s in GridStream::ALL {
        let present = w.stream(s).valid_bins() > 0;
        let g = t.gates[s.index()];
        assert_eq!(
            g > 0.0,
            present,
            "{s}: gate {g}, {} valid bins",
            w.stream(s).valid_bins()
        );
        assert_eq!(readout(&t, s).iter().any(|&v| v != 0.0), present, "{s}");
    }
    assert!(w.stream(GridStream::Imu).valid_bins() > 0);
}
