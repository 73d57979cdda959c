//! Camera frames in the assistant's answers (`replay --speak --bundle models/vlm-tiny`): the
//! committed tiny random projector over SmolLM2 from the model cache. What is checked:
//! a frame reaches the answer (two pictures under the same text give different greedy
//! answers; a frame older than the bound, or none, leaves the text-only answer), only the
//! forms that should see get one, each decision records the frame's capture time and age,
//! lock-step replays repeat exactly, a session without RGB runs with a note, and a projector
//! that does not fit the model (or is corrupt) is a clear error at load, not a panic.
//!
//! Without the language model these skip loudly (fail under `CI=true`).

#![cfg(feature = "llm")]

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use vista::assistant::forms::Form;
use vista::assistant::lm::vision::{VisionGenerator, VisionParts, IMAGE_MAX_AGE_NS};
use vista::infer::llm::{ContextConfig, LmEngine, VisionEncoder};
use vista::sample::{ImageEncoding, ImageFrame};
use vista::state::{Continue, GenerationPrompt, GenerationStats, Generator};

#[path = "common/lm.rs"]
mod lm;
use lm::{lock, model_path};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A 48 x 40 JPEG frame: `kind` 0 = horizontal gradient, 1 = checkerboard, 2 = white.
fn frame(kind: u8) -> ImageFrame {
    let (w, h) = (48usize, 40usize);
    let mut px = Vec::with_capacity(w * h * 3);
    for y in 0..h {
        for x in 0..w {
            let rgb = match kind {
                0 => [(x * 255 / w) as u8, 40, 255 - (x * 255 / w) as u8],
                2 => [255, 255, 255],
                _ if (x / 8 + y / 8) % 2 == 0 => [250, 250, 250],
                _ => [5, 5, 5],
            };
            px.extend_from_slice(&rgb);
        }
    }
    let jpeg = vista::synth::jpeg::encode_rgb(&px, w, h, 90).unwrap();
    ImageFrame {
        width: w as u32,
        height: h as u32,
        encoding: ImageEncoding::Jpeg,
        data: jpeg.into(),
        frame_number: 0,
        exposure_s: 0.0,
        gain: 0.0,
    }
}

fn prompt(form: Form) -> GenerationPrompt {
    let spec = form.spec();
    GenerationPrompt {
        system: spec.system.to_string(),
        context: "You are walking slowly.\nA door is at 12 o'clock, about 4 m away.".into(),
        request: "What is around me?".into(),
        form: form.name().to_string(),
        max_tokens: 24,
    }
}

fn ask(g: &mut VisionGenerator, form: Form) -> (String, GenerationStats) {
    let never = AtomicBool::new(false);
    let mut text = String::new();
    let st = g
        .generate(
            &prompt(form),
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
fn a_frame_reaches_the_answer_and_a_stale_one_does_not() {
    let Some(path) = model_path() else { return };
    let _g = lock();
    let engine = LmEngine::load(&path, &ContextConfig::default()).unwrap();
    let enc = VisionEncoder::load(
        &root().join("models/vlm-tiny/mmproj-tiny.gguf"),
        engine.model(),
        1,
        4,
    )
    .unwrap();
    let mut parts = VisionParts::new(enc);
    let mut camera = parts.take_consumer().unwrap();
    let shared = parts.shared();
    let mut g = VisionGenerator::new(engine, parts.shared(), "<image>", None, false);

    // No frame yet: the text alone.
    shared.set_state(500_000_000, 0);
    let (text_only, st) = ask(&mut g, Form::Scene);
    assert!(!st.image_used && st.image_capture_ns.is_none(), "{st:?}");

    // A frame 0.2 s before the state: in the prompt, its capture time recorded.
    camera.on_frame(1_000_000_000, &frame(0));
    shared.set_state(1_200_000_000, 0);
    let (a, st) = ask(&mut g, Form::Scene);
    assert!(st.image_used, "{st:?}");
    assert_eq!(st.image_capture_ns, Some(1_000_000_000));
    assert_eq!(st.image_age_ns, Some(200_000_000));
    // The frame's rows were prefilled after the system turn kept from the last answer.
    assert!(st.prefill_tokens >= 16, "{st:?}");

    // Another picture under the same text: another greedy answer; asked again: the same.
    // (Behind the long system turn the random projector's 16 rows move the greedy answer
    // only for some pictures: gradient, checkerboard and black gave one answer here, white
    // and red another. What matters is that the rows, not the text, decide it.)
    camera.on_frame(2_000_000_000, &frame(2));
    shared.set_state(2_100_000_000, 0);
    let (b, st) = ask(&mut g, Form::Scene);
    let (b2, _) = ask(&mut g, Form::Scene);
    eprintln!("text only: {text_only:?}\nimage A: {a:?}\nimage B: {b:?}");
    assert!(
        st.image_used && st.image_capture_ns == Some(2_000_000_000),
        "{st:?}"
    );
    assert_eq!(b, b2, "greedy answers over one frame repeat");
    assert_ne!(a, b, "another frame changes the answer");
    assert_ne!(a, text_only, "the frame changes the answer");

    // Open questions see the frame too (the first picture again, a new capture).
    camera.on_frame(2_600_000_000, &frame(0));
    shared.set_state(2_600_000_000, 0);
    let (_, st) = ask(&mut g, Form::Question);
    assert!(
        st.image_used && st.image_capture_ns == Some(2_600_000_000),
        "{st:?}"
    );
    assert_eq!(st.image_age_ns, Some(0));

    // The newest frame older than the bound: the text alone again, the frame noted.
    let late = 2_600_000_000 + IMAGE_MAX_AGE_NS + 1;
    shared.set_state(late, 0);
    let (stale, st) = ask(&mut g, Form::Scene);
    assert!(!st.image_used, "{st:?}");
    assert_eq!(st.image_capture_ns, Some(2_600_000_000));
    assert_eq!(st.image_age_ns, Some(IMAGE_MAX_AGE_NS + 1));
    assert_eq!(
        stale, text_only,
        "a stale frame is not shown: the text-only answer"
    );

    // Guidance never looks at frames.
    shared.set_state(2_700_000_000, 0);
    let (_, st) = ask(&mut g, Form::Goal);
    assert!(!st.image_used && st.image_capture_ns.is_none(), "{st:?}");

    // A corrupt frame: counted; the previous embedding stays.
    let mut bad = frame(0);
    bad.data = vec![1u8, 2, 3].into();
    camera.on_frame(9_000_000_000, &bad);
    shared.set_state(3_000_000_000, 0);
    let (_, st) = ask(&mut g, Form::Scene);
    assert_eq!(st.image_capture_ns, Some(2_600_000_000));
    let r = parts.report();
    assert_eq!(
        (
            r.frames_encoded,
            r.encode_failures,
            r.frames_interval_skipped
        ),
        (3, 1, 0),
        "{r:?}"
    );
    assert_eq!(
        (
            r.answers_with_image,
            r.answers_stale_image,
            r.answers_no_image
        ),
        (5, 1, 1),
        "{r:?}"
    );
    assert_eq!(r.encode_us.map(|p| p.count), Some(3));
}

// ------------------------------------------------------------------ through the binary

fn vista() -> std::process::Command {
    std::process::Command::new(env!("CARGO_BIN_EXE_vista"))
}

/// A 6 s synthetic walk (`rgb`: with its RGB camera) and three requests: a scene
/// description and an open question (the model, with frames) and guidance (templates).
fn walk(dir: &Path, rgb: bool) -> (PathBuf, PathBuf) {
    let session = dir.join("walk");
    // What `vista synth mixed_walk --duration 6 [--rgb-fps 0] --out DIR/walk` writes.
    let opts = vista::synth::SynthOptions {
        duration_s: Some(6.0),
        rgb_fps: (!rgb).then_some(0.0),
        ..vista::synth::SynthOptions::default()
    };
    vista::synth::named::synthesize_named(&root().join("scenarios"), "mixed_walk", &session, &opts)
        .unwrap();
    let requests = dir.join("requests.jsonl");
    std::fs::write(
        &requests,
        "{\"t_ns\": 3000000000, \"form\": \"scene\", \"text\": \"What is around me?\"}\n\
         {\"t_ns\": 4500000000, \"form\": \"question\", \"text\": \"Why is it so quiet here?\"}\n\
         {\"t_ns\": 5000000000, \"form\": \"goal\", \"text\": \"Take me to the door\"}\n",
    )
    .unwrap();
    (session, requests)
}

fn replay(session: &Path, requests: &Path, out: &Path, bundle: &Path) -> std::process::Output {
    vista()
        .arg("replay")
        .arg(session)
        .args(["--asap", "-q", "--no-ocr", "--speak"])
        .arg(out)
        .arg("--requests")
        .arg(requests)
        .arg("--bundle")
        .arg(bundle)
        .output()
        .unwrap()
}

fn answers(out: &Path) -> Vec<vista::state::Decision> {
    vista::assistant::decisions::read_decisions(&out.join("decisions.jsonl"))
        .unwrap()
        .into_iter()
        .filter(|d| d.request_index.is_some())
        .collect()
}

fn profile(out: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(out.join("profile.json")).unwrap()).unwrap()
}

#[test]
fn a_replay_shows_the_newest_frame_records_it_and_repeats() {
    if model_path().is_none() {
        return;
    }
    let _g = lock();
    let tmp = tempfile::tempdir().unwrap();
    let (session, requests) = walk(tmp.path(), true);
    let bundle = root().join("models/vlm-tiny");
    let (o1, o2) = (tmp.path().join("run1"), tmp.path().join("run2"));
    for o in [&o1, &o2] {
        let run = replay(&session, &requests, o, &bundle);
        assert!(
            run.status.success(),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
    }
    let t1 = std::fs::read_to_string(o1.join("transcript.jsonl")).unwrap();
    let t2 = std::fs::read_to_string(o2.join("transcript.jsonl")).unwrap();
    assert_eq!(t1, t2, "lock-step replays with frames repeat exactly");
    let (a1, a2) = (answers(&o1), answers(&o2));
    // Three requests, each answered (again, after an alert that cut it), alike in both runs.
    let asked: std::collections::BTreeSet<_> = a1.iter().map(|d| d.request_index).collect();
    assert_eq!(asked.len(), 3, "{a1:#?}");
    assert_eq!(a1.len(), a2.len());
    for (d, d2) in a1.iter().zip(&a2) {
        let form = d.request.as_ref().map(|r| r.0.as_str());
        let lm = d.lm.as_ref();
        match form {
            Some("scene") | Some("question") => {
                let lm = lm.unwrap_or_else(|| panic!("no model timing: {d:?}"));
                assert!(lm.image_used && lm.failure.is_none(), "{d:?}");
                let capture = lm.image_capture_ns.unwrap();
                let age = lm.image_age_ns.unwrap();
                // The newest frame sampled before the answered state, within the bound.
                assert_eq!(age, d.state_at_ns - capture, "{d:?}");
                assert!((0..=IMAGE_MAX_AGE_NS).contains(&age), "{d:?}");
                assert_eq!(d2.lm.as_ref().unwrap().image_capture_ns, Some(capture));
            }
            _ => assert!(
                lm.is_none_or(|t| !t.image_used && t.image_capture_ns.is_none()),
                "{d:?}"
            ),
        }
    }
    let p = profile(&o1);
    let img = &p["assistant"]["images"];
    assert_eq!(img["answers_with_image"], 2, "{img}");
    assert_eq!(img["round_wait_timeouts"], 0, "{img}");
    assert_eq!(img["encode_failures"], 0, "{img}");
    let encoded = img["frames_encoded"].as_u64().unwrap();
    let seen = img["frames_seen"].as_u64().unwrap();
    assert!(encoded >= 6 && encoded < seen, "{img}");
    assert_eq!(img["encode_us"]["count"].as_u64(), Some(encoded), "{img}");
    assert_eq!(
        p2(&o2)["assistant"]["images"],
        p2(&o1)["assistant"]["images"],
        "counters repeat too"
    );
    assert_eq!(p["lm_answers"]["with_image"], 2, "{}", p["lm_answers"]);
    let notes = p["assistant"]["notes"].to_string();
    assert!(notes.contains("vision projector"), "{notes}");
}

fn p2(out: &Path) -> serde_json::Value {
    let mut p = profile(out);
    // Encode times are measured, not replayed.
    p["assistant"]["images"]["encode_us"] = serde_json::Value::Null;
    p
}

#[test]
fn without_rgb_the_run_answers_from_text_with_a_note() {
    if model_path().is_none() {
        return;
    }
    let _g = lock();
    let tmp = tempfile::tempdir().unwrap();
    let (session, requests) = walk(tmp.path(), false);
    let out = tmp.path().join("run");
    let run = replay(&session, &requests, &out, &root().join("models/vlm-tiny"));
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    for d in answers(&out) {
        if let Some(lm) = &d.lm {
            assert!(!lm.image_used && lm.image_capture_ns.is_none(), "{d:?}");
            assert!(lm.failure.is_none(), "{d:?}");
        }
    }
    let p = profile(&out);
    let notes = p["assistant"]["notes"].to_string();
    assert!(
        notes.contains("no RGB camera: the bundle's vision projector sees nothing"),
        "{notes}"
    );
    assert_eq!(p["assistant"]["images"]["answers_no_image"], 2);
    assert_eq!(p["assistant"]["images"]["frames_seen"], 0);
    // No camera consumer: lock-step answers did not wait for one.
    assert_eq!(p["assistant"]["images"]["round_wait_timeouts"], 0);
}

/// The test bundle with its projector replaced by `mmproj` (copied in).
fn bundle_with(dir: &Path, mmproj: &Path) -> PathBuf {
    let b = dir.join("bundle");
    std::fs::create_dir_all(&b).unwrap();
    std::fs::copy(mmproj, b.join("projector.gguf")).unwrap();
    let text = std::fs::read_to_string(root().join("models/vlm-tiny/bundle.toml"))
        .unwrap()
        .replace(
            "mmproj = \"mmproj-tiny.gguf\"",
            "mmproj = \"projector.gguf\"",
        );
    assert!(text.contains("projector.gguf"));
    std::fs::write(b.join("bundle.toml"), text).unwrap();
    b
}

#[test]
fn a_projector_that_does_not_fit_or_is_corrupt_fails_at_load() {
    if model_path().is_none() {
        return;
    }
    let _g = lock();
    let tmp = tempfile::tempdir().unwrap();
    let (session, requests) = walk(tmp.path(), true);
    // Output width 512 for a 576-wide model.
    let narrow = bundle_with(
        &tmp.path().join("narrow"),
        &root().join("models/vlm-tiny/mmproj-tiny-w512.gguf"),
    );
    let out = tmp.path().join("run-narrow");
    let run = replay(&session, &requests, &out, &narrow);
    let err = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{err}");
    assert!(
        err.contains("vision projector") && err.contains("512") && err.contains("576"),
        "{err}"
    );
    assert!(!out.join("decisions.jsonl").exists());
    // A truncated projector.
    let whole = std::fs::read(root().join("models/vlm-tiny/mmproj-tiny.gguf")).unwrap();
    let cut = tmp.path().join("cut.gguf");
    std::fs::write(&cut, &whole[..whole.len() / 3]).unwrap();
    let corrupt = bundle_with(&tmp.path().join("corrupt"), &cut);
    let out = tmp.path().join("run-corrupt");
    let run = replay(&session, &requests, &out, &corrupt);
    let err = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{err}");
    assert!(
        err.contains("vision projector") && err.contains("projector.gguf"),
        "{err}"
    );
    assert!(!out.join("decisions.jsonl").exists());
}

// ------------------------------------------------------------------ prefilled frames

/// In real time the frame is prefilled with the state ahead of requests: a scene request
/// over the prefilled state decodes only its own tokens (no rows), answers exactly as the
/// same layout without a prefill does, and a new frame with unchanged text makes the next
/// prefill due (the frame is part of what is prefilled).
#[test]
fn a_prefilled_frame_leaves_only_the_request_and_answers_as_without_prefill() {
    use vista::assistant::lm::context::model_context;
    use vista::assistant::lm::prefill::{LmPrefill, PrefillConfig};
    use vista::assistant::lm::threads::ThreadPolicy;
    use vista::state::{ClockHour, EnvironmentState, Evidence, Thing, ThingKind};
    use vista::time::DeviceTime;

    let Some(path) = model_path() else { return };
    let _g = lock();
    let load = || {
        let engine = LmEngine::load(&path, &ContextConfig::default()).unwrap();
        let enc = VisionEncoder::load(
            &root().join("models/vlm-tiny/mmproj-tiny.gguf"),
            engine.model(),
            1,
            4,
        )
        .unwrap();
        (engine, VisionParts::new(enc))
    };
    let state = |at_ns: i64| {
        let mut s = EnvironmentState::empty(DeviceTime(at_ns));
        s.things.push(Thing {
            id: 4,
            kind: ThingKind::Door,
            label: "glass door".into(),
            detail: Default::default(),
            class: None,
            clock: ClockHour::new(2),
            bearing_left_deg: None,
            distance_m: 4.0,
            height: None,
            world_m: None,
            in_path: false,
            first_seen: DeviceTime(0),
            last_seen: DeviceTime(0),
            confidence: 0.9,
            evidence: Evidence::Points,
        });
        s
    };
    let scene = |context: &str| GenerationPrompt {
        context: context.to_string(),
        ..prompt(Form::Scene)
    };
    let answer = |g: &mut dyn Generator, p: &GenerationPrompt| {
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
    };

    // With the prefill thread.
    let (engine, mut parts) = load();
    let mut camera = parts.take_consumer().unwrap();
    let shared = parts.shared();
    let (engine, layout) =
        VisionGenerator::new(engine, parts.shared(), "<image>", None, false).into_parts();
    let cfg = PrefillConfig {
        every_ns: 0,
        max_stale_ns: 1_000_000_000,
        backoff: 0,
    };
    let pre = LmPrefill::start_with_layout(engine, layout, cfg, ThreadPolicy::Fixed(2)).unwrap();
    // Without: the same layout answering over its own engine.
    let (engine2, mut parts2) = load();
    let mut camera2 = parts2.take_consumer().unwrap();
    let shared2 = parts2.shared();
    let mut plain = VisionGenerator::new(engine2, parts2.shared(), "<image>", None, false);

    camera.on_frame(1_000_000_000, &frame(0));
    camera2.on_frame(1_000_000_000, &frame(0));
    let st = state(1_100_000_000);
    shared.set_state(1_100_000_000, 0);
    shared2.set_state(1_100_000_000, 0);
    pre.offer(&st);
    pre.settle();
    let c = pre.counters();
    assert_eq!((c.prefills, c.failures), (1, 0), "{c:?}");

    let p = scene(&model_context(&st));
    let mut g = pre.generator();
    let (text, stats) = answer(g.as_mut(), &p);
    let (plain_text, plain_stats) = answer(&mut plain, &p);
    assert_eq!(text, plain_text);
    assert!(stats.image_used && plain_stats.image_used, "{stats:?}");
    assert!(stats.on_prefilled, "{stats:?}");
    assert_eq!(stats.image_capture_ns, Some(1_000_000_000));
    // The request's own tokens only: the 16 image rows and the system turn were prefilled.
    assert!(
        stats.prefill_tokens + 16 + 100 <= plain_stats.prefill_tokens,
        "prefilled {} vs {}",
        stats.prefill_tokens,
        plain_stats.prefill_tokens
    );
    assert!(stats.prefill_tokens < 48, "{stats:?}");

    // A new frame, the same state text 0.6 s later: the frame makes a prefill due, and the
    // next request again decodes only its own tokens, over the new frame.
    camera.on_frame(1_600_000_000, &frame(2));
    camera2.on_frame(1_600_000_000, &frame(2));
    let st2 = state(1_700_000_000);
    assert_eq!(model_context(&st2), model_context(&st));
    shared.set_state(1_700_000_000, 0);
    shared2.set_state(1_700_000_000, 0);
    pre.offer(&st2);
    pre.settle();
    assert_eq!(pre.counters().prefills, 2, "{:?}", pre.counters());
    let (text, stats) = answer(g.as_mut(), &p);
    let (plain_text, _) = answer(&mut plain, &p);
    assert_eq!(text, plain_text);
    assert_eq!(stats.image_capture_ns, Some(1_600_000_000));
    assert!(stats.on_prefilled && stats.prefill_tokens < 48, "{stats:?}");
}
