//! Sensor tokens in the assistant's prompts end to end: a synthetic session's window goes
//! through the window sink into the fusion network (the test bundle in
//! `tests/data/sensor-bundle`: the tiny random-weight network, 28 tokens of 576 = SmolLM2's
//! embedding width), and a request decodes exactly those rows at the sensor placeholder,
//! checked against a second, independent run of the network on the same window. A second
//! request over the same state reuses the text before the placeholder from the KV cache.
//! Through the binary, `replay --speak --bundle DIR` puts the fusion network on the
//! window updates and every model answer records its 28 sensor tokens; a bundle whose
//! fusion width is not the model's embedding width fails at load naming both widths.
//! Needs SmolLM2 in the model cache (`models/fetch`); skips with a message otherwise.

#![cfg(feature = "llm")]

use std::path::Path;
use std::sync::atomic::AtomicBool;

use vista::assistant::lm::sensor::{window_sink, SensorFusion, SensorGenerator};
use vista::assistant::Form;
use vista::infer::bundle::Bundle;
use vista::infer::fusion::FusionModel;
use vista::infer::llm::{ContextConfig, LmEngine};
use vista::infer::ort_engine::OrtOptions;
use vista::infer::ModelFile;
use vista::state::{Continue, GenerationPrompt, GenerationStats, Generator};
use vista::synth::{find_scenario, write_session, SynthOptions};
use vista::window::replay_windows::window_at_moment;
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

fn vista() -> std::process::Command {
    std::process::Command::new(env!("CARGO_BIN_EXE_vista"))
}

/// A 6 s synthetic walk (no RGB: no text reading needed) and two requests the model
/// answers, a scene description and an open question.
fn walk_with_model_requests(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let session = dir.join("walk");
    // What `vista synth mixed_walk --duration 6 --rgb-fps 0 --plain-surfaces --out DIR/walk`
    // writes. This test is about the model's inputs, not perception: on textured images
    // (docs/synthetic.md, "Camera images") the session's alerts change and the open question
    // is answered twice (decided at 3.6 s and 5.1 s), so the answers no longer pair with the
    // requests one to one.
    let opts = vista::synth::SynthOptions {
        duration_s: Some(6.0),
        rgb_fps: Some(0.0),
        plain_surfaces: true,
        ..vista::synth::SynthOptions::default()
    };
    let scenarios = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    vista::synth::named::synthesize_named(&scenarios, "mixed_walk", &session, &opts).unwrap();
    let requests = dir.join("requests.jsonl");
    std::fs::write(
        &requests,
        "{\"t_ns\": 3000000000, \"form\": \"scene\", \"text\": \"What is around me?\"}\n\
         {\"t_ns\": 4500000000, \"form\": \"question\", \"text\": \"Why is it so quiet here?\"}\n",
    )
    .unwrap();
    (session, requests)
}

#[test]
fn a_bundle_brings_sensor_tokens_into_a_replay_through_the_binary() {
    if !ModelFile::SmolLm2.path().is_file() {
        eprintln!("\n*** SKIPPED: SmolLM2 missing (run models/fetch) ***\n");
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tmp = tempfile::tempdir().unwrap();
    let (session, requests) = walk_with_model_requests(tmp.path());
    let out = tmp.path().join("run");
    let run = vista()
        .arg("replay")
        .arg(&session)
        .args(["--asap", "-q", "--no-ocr", "--speak"])
        .arg(&out)
        .arg("--requests")
        .arg(&requests)
        .arg("--bundle")
        .arg(root.join("tests/data/sensor-bundle"))
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let decisions =
        vista::assistant::decisions::read_decisions(&out.join("decisions.jsonl")).unwrap();
    let answers: Vec<_> = decisions
        .iter()
        .filter(|d| d.request_index.is_some())
        .collect();
    assert_eq!(answers.len(), 2, "{answers:#?}");
    for d in answers {
        let lm =
            d.lm.as_ref()
                .unwrap_or_else(|| panic!("no model timing: {d:?}"));
        assert_eq!(lm.sensor_tokens, 28, "{d:?}");
        // The model was asked with the sensor rows (what it said may still have been
        // blocked by the guard and answered by the templates: random-weight tokens).
        assert!(lm.failure.is_none() && lm.threads >= 1, "{d:?}");
        assert!(lm.generated_tokens >= 1, "{d:?}");
    }
    let profile: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("profile.json")).unwrap()).unwrap();
    let notes = profile["assistant"]["notes"].to_string();
    assert!(
        notes.contains("sensor-test") && notes.contains("28 sensor tokens"),
        "{notes}"
    );
    assert_eq!(
        profile["lm_answers"]["with_sensor_tokens"], 2,
        "{}",
        profile["lm_answers"]
    );
}

#[test]
fn a_bundle_whose_fusion_width_is_not_the_models_fails_at_load_naming_both() {
    if !ModelFile::SmolLm2.path().is_file() {
        eprintln!("\n*** SKIPPED: SmolLM2 missing (run models/fetch) ***\n");
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tmp = tempfile::tempdir().unwrap();
    let (session, requests) = walk_with_model_requests(tmp.path());
    // The test bundle, declaring 512-wide tokens and leaving the model's width unstated:
    // the mismatch is found against the GGUF when the bundle loads.
    let bundle = tmp.path().join("bad-bundle");
    std::fs::create_dir_all(&bundle).unwrap();
    let text = std::fs::read_to_string(root.join("tests/data/sensor-bundle/bundle.toml"))
        .unwrap()
        .replace("embedding_width = 576\n", "")
        .replace("width = 576", "width = 512")
        .replace(
            "../../../models/fusion-tiny/fusion.onnx",
            &root
                .join("models/fusion-tiny/fusion.onnx")
                .display()
                .to_string(),
        )
        .replace(
            "\"norm_stats.json\"",
            &format!(
                "{:?}",
                root.join("tests/data/sensor-bundle/norm_stats.json")
                    .display()
                    .to_string()
            ),
        );
    assert!(text.contains("width = 512") && !text.contains("embedding_width"));
    std::fs::write(bundle.join("bundle.toml"), text).unwrap();
    let out = tmp.path().join("run");
    let run = vista()
        .arg("replay")
        .arg(&session)
        .args(["--asap", "-q", "--no-ocr", "--speak"])
        .arg(&out)
        .arg("--requests")
        .arg(&requests)
        .arg("--bundle")
        .arg(&bundle)
        .output()
        .unwrap();
    assert!(!run.status.success());
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(
        err.contains("512") && err.contains("576") && err.contains("bundle.toml"),
        "{err}"
    );
    // Nothing ran: no decisions were written.
    assert!(!out.join("decisions.jsonl").exists());
}

/// In real time a sensor-only bundle prefills its sensor tokens with the state ahead of
/// requests: a request over the prefilled state decodes only its own tokens (not the 28
/// rows), answers exactly as the generator without a prefill does, and newer sensor tokens
/// with unchanged text make the next prefill due.
#[test]
fn prefilled_sensor_tokens_leave_only_the_request() {
    use vista::assistant::lm::context::model_context;
    use vista::assistant::lm::layout::BundleLayout;
    use vista::assistant::lm::prefill::{LmPrefill, PrefillConfig};
    use vista::assistant::lm::sensor::{SensorFrame, SensorTokenCache};
    use vista::assistant::lm::threads::ThreadPolicy;
    use vista::infer::fusion::SensorTokens;
    use vista::state::EnvironmentState;
    use vista::time::DeviceTime;

    if !ModelFile::SmolLm2.path().is_file() {
        assert!(
            std::env::var("CI").map_or(true, |v| v != "true"),
            "SmolLM2 missing"
        );
        eprintln!("\n*** SKIPPED: SmolLM2 missing (run models/fetch) ***\n");
        return;
    }
    let load = || {
        LmEngine::load(
            &ModelFile::SmolLm2.path(),
            &ContextConfig {
                n_ctx: 1024,
                n_batch: 512,
                threads: 2,
                ..ContextConfig::default()
            },
        )
        .unwrap()
    };
    let frame = |at_ns: i64, phase: f32| SensorFrame {
        at_ns,
        tokens: SensorTokens {
            n_tokens: 28,
            width: 576,
            data: (0..28 * 576)
                .map(|i| ((i as f32 * phase).fract() - 0.5) * 0.1)
                .collect(),
            gates: Default::default(),
        },
    };
    let cache = SensorTokenCache::default();
    let mut plain = SensorGenerator::new(load(), cache.clone(), "<sensor>");
    let cfg = PrefillConfig {
        every_ns: 0,
        max_stale_ns: 1_000_000_000,
        backoff: 0,
    };
    let layout = std::sync::Arc::new(BundleLayout::sensor_only((
        cache.clone(),
        "<sensor>".to_string(),
    )));
    let pre = LmPrefill::start_with_layout(load(), layout, cfg, ThreadPolicy::Fixed(2)).unwrap();
    let mut g = pre.generator();
    let state = |at_ns| EnvironmentState::empty(DeviceTime(at_ns));
    let spec = Form::Scene.spec();
    let prompt = GenerationPrompt {
        system: spec.system.to_string(),
        context: model_context(&state(1_000_000_000)),
        request: "What is around me?".into(),
        form: "scene".into(),
        max_tokens: 16,
    };

    cache.put(frame(900_000_000, 0.618_034));
    pre.offer(&state(1_000_000_000));
    pre.settle();
    assert_eq!(pre.counters().prefills, 1, "{:?}", pre.counters());
    let (text, st) = ask(g.as_mut(), &prompt);
    let (plain_text, plain_st) = ask(&mut plain, &prompt);
    assert_eq!(text, plain_text);
    assert!(st.on_prefilled && st.sensor_tokens == 28, "{st:?}");
    assert!(st.prefill_tokens < 40, "{st:?}");
    assert!(
        st.prefill_tokens + 28 + 100 <= plain_st.prefill_tokens,
        "{st:?} {plain_st:?}"
    );

    // Newer sensor tokens (more than the 1 s a request may reuse older ones), the same
    // text: a prefill is due, and the request again pays only for itself, over the new rows.
    cache.put(frame(2_100_000_000, 0.414_213));
    pre.offer(&state(2_200_000_000));
    pre.settle();
    assert_eq!(pre.counters().prefills, 2, "{:?}", pre.counters());
    let (text, st) = ask(g.as_mut(), &prompt);
    let (plain_text, _) = ask(&mut plain, &prompt);
    assert_eq!(text, plain_text);
    assert!(st.prefill_tokens < 40, "{st:?}");
}
