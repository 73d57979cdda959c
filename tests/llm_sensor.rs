//! Sensor tokens in the assistant's prompts end to end: a synthetic session's window goes
//! through the window sink into the fusion network (the test bundle in
//! `tests/data/sensor-bundle`: the tiny random-weight network, 28 tokens of 576 = SmolLM2's
//! embedding width), and a request decodes exactly those rows at the sensor placeholder,
//! checked against a second, independent run of the network on the same window. A second
//! request over the same state reuses the text before the placeholder from the KV cache.
//! Needs SmolLM2 in the model cache (`models/fetch`); skips with a message otherwise.

#![cfg(feature = "llm")]

use std::path::Path;
use std::sync::atomic::AtomicBool;

use vista::assistant::lm_sensor::{window_sink, SensorFusion, SensorGenerator};
use vista::assistant::Form;
use vista::infer::bundle::Bundle;
use vista::infer::fusion::FusionModel;
use vista::infer::llm::{ContextConfig, LmEngine};
use vista::infer::ort_engine::OrtOptions;
use vista::infer::ModelFile;
use vista::state::{Continue, GenerationPrompt, GenerationStats, Generator};
use vista::synth::{find_scenario, write_session, SynthOptions};
use vista::window::session::window_at_moment;
use vista::window::{NormStats, WindowBuilder, WindowConfig, WindowUpdate};

fn ask(g: &mut dyn Generator, p: &GenerationPrompt) -> (String, GenerationStats) {
    let never = AtomicBool::new(false);
    let mut text = String::new();
    let st = g
        .generate(
            p,
            &mut |s| {
                text.push_str(s);
                Continue::Yes
            },
            &never,
        )
        .unwrap();
    (text, st)
}

#[test]
fn a_request_decodes_the_fusion_output_of_the_newest_window() {
    if !ModelFile::SmolLm2.path().is_file() {
        assert!(
            std::env::var("CI").map_or(true, |v| v != "true"),
            "SmolLM2 missing"
        );
        eprintln!("\n*** SKIPPED: SmolLM2 missing (run models/fetch) ***\n");
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bundle = Bundle::load(&root.join("tests/data/sensor-bundle")).unwrap();
    let fusion = bundle.fusion.clone().unwrap();
    let engine = LmEngine::load(
        &bundle.lm.gguf,
        &ContextConfig {
            n_ctx: 1024,
            n_batch: 512,
            threads: 2,
            ..ContextConfig::default()
        },
    )
    .unwrap();
    bundle.check_fusion_width(engine.model().n_embd()).unwrap();
    assert_eq!(bundle.prompt.sensor_tokens, fusion.n_tokens);

    // A short synthetic walk and its normalised window at 5 s.
    let dir = tempfile::tempdir().unwrap();
    let session = dir.path().join("s");
    let sc = find_scenario(&root.join("scenarios"), "mixed_walk").unwrap();
    let opts = SynthOptions {
        seed: 3,
        duration_s: Some(6.0),
        ..SynthOptions::default()
    };
    write_session(&sc, &session, &opts).unwrap();
    let stats = NormStats::load(&fusion.norm_stats).unwrap();
    let builder = WindowBuilder::new(WindowConfig::default())
        .unwrap()
        .with_norm(&stats)
        .unwrap();
    let w = window_at_moment(&session, 5.0, builder, 5, true)
        .unwrap()
        .window;
    assert!(w.normalised);

    // The fusion runs on the window update, ahead of any request.
    vista::infer::init_ort().unwrap();
    let question = vec![0.01f32; fusion.width];
    let load = || FusionModel::load_ort(&fusion.onnx, fusion.shape(), OrtOptions::default());
    let sf = SensorFusion::new(load().unwrap(), question.clone());
    let cache = sf.cache();
    let mut sink = window_sink(sf);
    sink(WindowUpdate {
        window: &w,
        frames: &[],
        imu: None,
    });
    assert_eq!(cache.updates(), 1);
    // The same window through an independent instance of the network.
    let reference = load().unwrap().infer(&w, &question, None).unwrap();
    assert_eq!(reference.data.len(), 28 * 576);

    let mut g = SensorGenerator::new(engine, cache, &bundle.prompt.sensor_placeholder);
    let spec = Form::Scene.spec();
    let prompt = GenerationPrompt {
        system: spec.system.to_string(),
        context: "Wearer: walking for 4.0 s.\nThings: none seen.\nText: none read.\n".into(),
        request: "What is around me?".into(),
        form: "scene".into(),
        max_tokens: 16,
    };
    let (text, first) = ask(&mut g, &prompt);
    assert!(
        first.generated_tokens >= 1 && !text.trim().is_empty(),
        "{text:?}"
    );
    let fed = g.last_fed().unwrap();
    assert_eq!(fed.at_ns, w.t_end.ns());
    assert_eq!(fed.rows, reference.data);

    // Same state again: the text before the placeholder is reused; the 28 rows and the
    // request's own tokens are decoded.
    let (_, second) = ask(&mut g, &prompt);
    assert!(second.prefill_tokens >= 28, "{second:?}");
    assert!(
        second.prefill_tokens < first.prefill_tokens,
        "{first:?} {second:?}"
    );
    assert!(second.prefill_tokens < 28 + 80, "{second:?}");
}
