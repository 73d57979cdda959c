//! The vision-language path through llama.cpp's mtmd, with the committed tiny random
//! projector (`models/vlm-tiny/mmproj-tiny.gguf`, LLaVA-style, 16 image tokens of width
//! 576) over SmolLM2-135M from the model cache: the projector checks (header, width against
//! the language model, corrupt and missing files as typed errors before any C call), the
//! per-frame embedding cache (hits, misses, evictions, other pixels under one capture time),
//! and that an image really reaches the model (greedy answers repeat for one image and
//! differ between two). JPEG frames go through the recording's decoder.
//!
//! Without the language model: the file checks still run; the rest fails under `CI=true`
//! (run `models/fetch`), else skips loudly.

#![cfg(feature = "llm")]

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use vista::aria::recording::decode_image;
use vista::infer::bundle::Bundle;
use vista::infer::llm::vision::to_rgb;
use vista::infer::llm::{
    check_mmproj, ContextConfig, GenOptions, LmEngine, LmError, LmModel, RgbImage, StopReason,
    VisionEncoder,
};
use vista::sample::{ImageEncoding, ImageFrame};

#[path = "common/lm.rs"]
mod lm;
use lm::{lock, model_path};

fn tiny(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("models/vlm-tiny")
        .join(name)
}

fn cfg() -> ContextConfig {
    ContextConfig {
        n_ctx: 512,
        n_batch: 512,
        threads: 2,
        ..ContextConfig::default()
    }
}

/// A 48 x 40 test picture: `kind` 0 = horizontal gradient, 1 = checkerboard, 2 = flat.
fn picture(kind: u8) -> Vec<u8> {
    let (w, h) = (48usize, 40usize);
    let mut px = Vec::with_capacity(w * h * 3);
    for y in 0..h {
        for x in 0..w {
            let rgb = match kind {
                0 => [(x * 255 / w) as u8, 40, 255 - (x * 255 / w) as u8],
                1 => {
                    if (x / 8 + y / 8) % 2 == 0 {
                        [250, 250, 250]
                    } else {
                        [5, 5, 5]
                    }
                }
                _ => [128, 128, 128],
            };
            px.extend_from_slice(&rgb);
        }
    }
    px
}

fn rgb(px: &[u8]) -> RgbImage<'_> {
    RgbImage {
        width: 48,
        height: 40,
        pixels: px,
    }
}

// ---------------------------------------------------------------- the files, no model needed

#[test]
fn tiny_projectors_check_and_state_their_widths() {
    let s = check_mmproj(&tiny("mmproj-tiny.gguf")).unwrap();
    assert_eq!(s.projector, "mlp");
    assert_eq!((s.image_size, s.patch_size), (32, 8));
    assert_eq!(s.output_width, Some(576));
    let s = check_mmproj(&tiny("mmproj-tiny-w512.gguf")).unwrap();
    assert_eq!(s.output_width, Some(512));
    assert!(std::fs::metadata(tiny("mmproj-tiny.gguf")).unwrap().len() < 1 << 20);
}

#[test]
fn missing_and_corrupt_projectors_are_typed_errors() {
    let e = check_mmproj(Path::new("/nonexistent/mmproj.gguf")).unwrap_err();
    assert!(matches!(e, LmError::MmprojNotFound { .. }), "{e}");
    let dir = tempfile::tempdir().unwrap();
    let junk = dir.path().join("junk.gguf");
    std::fs::write(&junk, b"this is not a gguf file at all").unwrap();
    let e = check_mmproj(&junk).unwrap_err();
    assert!(matches!(e, LmError::Mmproj { .. }), "{e}");
    assert!(e.to_string().contains("magic"), "{e}");
    // Truncated: the header is whole, the tensor data is not.
    let full = std::fs::read(tiny("mmproj-tiny.gguf")).unwrap();
    let cut = dir.path().join("cut.gguf");
    for len in [10usize, 600, full.len() / 2, full.len() - 1] {
        std::fs::write(&cut, &full[..len]).unwrap();
        let e = check_mmproj(&cut).unwrap_err();
        assert!(matches!(e, LmError::Mmproj { .. }), "{len}: {e}");
    }
    // A directory.
    let e = check_mmproj(dir.path()).unwrap_err();
    assert!(matches!(e, LmError::Mmproj { .. }), "{e}");
}

#[test]
fn a_projector_without_its_position_table_is_refused() {
    // Rename `v.position_embd.weight` (same length): clip.cpp would dereference a null
    // tensor; the check refuses the file first.
    let mut bytes = std::fs::read(tiny("mmproj-tiny.gguf")).unwrap();
    let name = b"v.position_embd.weight";
    let at = bytes
        .windows(name.len())
        .position(|w| w == name)
        .expect("tensor name in the file");
    bytes[at..at + name.len()].copy_from_slice(b"v.position_embd.wEIGHT");
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("nopos.gguf");
    std::fs::write(&p, &bytes).unwrap();
    let e = check_mmproj(&p).unwrap_err();
    assert!(e.to_string().contains("v.position_embd.weight"), "{e}");
}

#[test]
fn the_test_bundle_names_the_projector() {
    let Some(_) = model_path() else { return };
    let b = Bundle::load(&tiny("bundle.toml")).unwrap();
    assert_eq!(
        b.lm.mmproj.as_deref(),
        Some(tiny("mmproj-tiny.gguf").as_path())
    );
    assert_eq!(b.prompt.image_placeholder, "<image>");
}

// ---------------------------------------------------------------- with the language model

#[test]
fn widths_are_checked_at_load() {
    let Some(path) = model_path() else { return };
    let _g = lock();
    let model = LmModel::load(&path).unwrap();
    let enc = VisionEncoder::load(&tiny("mmproj-tiny.gguf"), &model, 2, 4).unwrap();
    assert_eq!(enc.n_embd(), 576);
    let e = VisionEncoder::load(&tiny("mmproj-tiny-w512.gguf"), &model, 2, 4).unwrap_err();
    match &e {
        LmError::ProjectorWidth { projector, lm, .. } => assert_eq!((*projector, *lm), (512, 576)),
        other => panic!("expected a width error, got {other}"),
    }
    let msg = e.to_string();
    assert!(msg.contains("512") && msg.contains("576"), "{msg}");
    // The language model handed over as a projector.
    let e = VisionEncoder::load(&path, &model, 2, 4).unwrap_err();
    assert!(matches!(e, LmError::Mmproj { .. }), "{e}");
    assert!(e.to_string().contains("clip"), "{e}");
    let e = VisionEncoder::load(Path::new("/nonexistent/m.gguf"), &model, 2, 4).unwrap_err();
    assert!(matches!(e, LmError::MmprojNotFound { .. }), "{e}");
}

#[test]
fn frames_are_encoded_once_and_the_cache_stays_bounded() {
    let Some(path) = model_path() else { return };
    let _g = lock();
    let model = LmModel::load(&path).unwrap();
    let mut enc = VisionEncoder::load(&tiny("mmproj-tiny.gguf"), &model, 2, 2).unwrap();
    let (a, b, c) = (picture(0), picture(1), picture(2));
    let e1 = enc.embed_frame(1_000, &rgb(&a)).unwrap();
    assert_eq!(e1.n_rows(), 16);
    assert_eq!(e1.width, 576);
    assert_eq!(e1.n_positions, 16);
    let e2 = enc.embed_frame(1_000, &rgb(&a)).unwrap();
    assert!(
        std::sync::Arc::ptr_eq(&e1, &e2),
        "the second request reuses the first"
    );
    let s = enc.cache_stats();
    assert_eq!((s.hits, s.misses), (1, 1));
    // Encoding is deterministic: an uncached encode gives the same rows.
    let again = enc.encode(&rgb(&a)).unwrap();
    assert_eq!(again.pieces, e1.pieces);
    // Other pixels: other embeddings.
    let eb = enc.embed_frame(2_000, &rgb(&b)).unwrap();
    assert_ne!(eb.pieces, e1.pieces);
    // A third frame evicts the oldest.
    enc.embed_frame(3_000, &rgb(&c)).unwrap();
    assert_eq!(enc.cached_frames(), 2);
    let s = enc.cache_stats();
    assert_eq!((s.hits, s.misses, s.evictions), (1, 3, 1));
    enc.embed_frame(1_000, &rgb(&a)).unwrap();
    assert_eq!(
        enc.cache_stats().misses,
        4,
        "the evicted frame is encoded again"
    );
    // Same capture time, other pixels: re-encoded, not confused.
    let ec = enc.embed_frame(3_000, &rgb(&a)).unwrap();
    assert_eq!(ec.pieces, e1.pieces);
    assert_eq!(enc.cache_stats().replaced, 1);
}

#[test]
fn bad_images_are_typed_errors() {
    let Some(path) = model_path() else { return };
    let _g = lock();
    let model = LmModel::load(&path).unwrap();
    let mut enc = VisionEncoder::load(&tiny("mmproj-tiny.gguf"), &model, 2, 2).unwrap();
    let px = picture(0);
    for img in [
        RgbImage {
            width: 0,
            height: 40,
            pixels: &[],
        },
        RgbImage {
            width: 48,
            height: 40,
            pixels: &px[..px.len() - 1],
        },
        RgbImage {
            width: 100_000,
            height: 1,
            pixels: &[],
        },
    ] {
        let e = enc.embed_frame(1, &img).unwrap_err();
        assert!(matches!(e, LmError::Image(_)), "{e}");
    }
    assert!(to_rgb(2, &[1, 2]).is_err());
    assert_eq!(
        enc.cache_stats().misses,
        0,
        "rejected before the cache and C"
    );
}

fn answer(
    engine: &mut LmEngine,
    enc: &mut VisionEncoder,
    capture: i64,
    px: &[u8],
    question: &str,
) -> (String, StopReason) {
    let e = enc.embed_frame(capture, &rgb(px)).unwrap();
    let never = AtomicBool::new(false);
    let mut text = String::new();
    let st = engine
        .chat_with_images(
            "You describe pictures.",
            question,
            "<image>",
            &[&e],
            GenOptions::new(16),
            &mut |s| {
                text.push_str(s);
                true
            },
            &never,
        )
        .unwrap();
    // The prompt's tokens plus the image's 16 rows.
    let (_, text_tokens) = engine
        .prompt_lengths("You describe pictures.", question)
        .unwrap();
    let positions = (st.prefill_tokens + st.reused_tokens) as usize;
    assert!(positions >= text_tokens + 16 - 4, "{st:?}");
    (text, st.stop)
}

#[test]
fn an_image_reaches_the_model_and_answers_are_deterministic() {
    let Some(path) = model_path() else { return };
    let _g = lock();
    let model = LmModel::load(&path).unwrap();
    let mut enc = VisionEncoder::load(&tiny("mmproj-tiny.gguf"), &model, 2, 4).unwrap();
    let mut engine = LmEngine::with_model(model, &cfg()).unwrap();
    let q = "<image>\nWhat is in this picture?";
    let (a, b) = (picture(0), picture(1));
    let (t1, _) = answer(&mut engine, &mut enc, 1, &a, q);
    let (t2, _) = answer(&mut engine, &mut enc, 1, &a, q);
    let (t3, _) = answer(&mut engine, &mut enc, 2, &b, q);
    eprintln!("image A: {t1:?}\nimage B: {t3:?}");
    assert!(!t1.trim().is_empty());
    assert_eq!(t1, t2, "greedy answers over one image repeat");
    assert_ne!(t1, t3, "another image changes the answer");
    assert_eq!(enc.cache_stats().hits, 1);
    // The system turn stays in the KV cache: a repeat prefills only the image and question.
    let e = enc.embed_frame(1, &rgb(&a)).unwrap();
    let never = AtomicBool::new(false);
    let mut t4 = String::new();
    let st = engine
        .chat_with_images(
            "You describe pictures.",
            q,
            "<image>",
            &[&e],
            GenOptions::new(16),
            &mut |s| {
                t4.push_str(s);
                true
            },
            &never,
        )
        .unwrap();
    assert!(st.reused_tokens > 5, "{st:?}");
    assert_eq!(t4, t1, "reusing the system turn does not change the answer");
    // The same text without the image also answers differently (the rows are not ignored).
    let never = AtomicBool::new(false);
    let mut plain = String::new();
    engine
        .chat(
            "You describe pictures.",
            "\nWhat is in this picture?",
            GenOptions::new(16),
            &mut |s| {
                plain.push_str(s);
                true
            },
            &never,
        )
        .unwrap();
    assert_ne!(plain, t1);
}

#[test]
fn placeholder_count_mismatch_and_cancel() {
    let Some(path) = model_path() else { return };
    let _g = lock();
    let model = LmModel::load(&path).unwrap();
    let mut enc = VisionEncoder::load(&tiny("mmproj-tiny.gguf"), &model, 2, 4).unwrap();
    let mut engine = LmEngine::with_model(model, &cfg()).unwrap();
    let px = picture(0);
    let e = enc.embed_frame(1, &rgb(&px)).unwrap();
    let never = AtomicBool::new(false);
    let err = engine
        .chat_with_images(
            "s",
            "no placeholder here",
            "<image>",
            &[&e],
            GenOptions::new(4),
            &mut |_| true,
            &never,
        )
        .unwrap_err();
    assert!(matches!(err, LmError::Prompt(_)), "{err}");
    // Cancelled after the first streamed piece.
    let cancel = AtomicBool::new(false);
    let mut pieces = 0;
    let st = engine
        .chat_with_images(
            "s",
            "<image> describe",
            "<image>",
            &[&e],
            GenOptions::new(32),
            &mut |_| {
                pieces += 1;
                cancel.store(true, std::sync::atomic::Ordering::Relaxed);
                true
            },
            &cancel,
        )
        .unwrap();
    assert_eq!(st.stop, StopReason::Cancelled);
    assert_eq!(pieces, 1);
}

#[test]
fn a_jpeg_frame_decodes_and_encodes() {
    let Some(path) = model_path() else { return };
    let _g = lock();
    let model = LmModel::load(&path).unwrap();
    let mut enc = VisionEncoder::load(&tiny("mmproj-tiny.gguf"), &model, 2, 4).unwrap();
    let jpeg = vista::synth::jpeg::encode_rgb(&picture(0), 48, 40, 90).unwrap();
    let frame = ImageFrame {
        width: 48,
        height: 40,
        encoding: ImageEncoding::Jpeg,
        data: jpeg.into(),
        frame_number: 0,
        exposure_s: 0.0,
        gain: 0.0,
    };
    let img = decode_image(&frame).unwrap();
    let px = to_rgb(img.channels, &img.pixels).unwrap();
    let e = enc
        .embed_frame(
            7,
            &RgbImage {
                width: img.width,
                height: img.height,
                pixels: &px,
            },
        )
        .unwrap();
    assert_eq!(e.n_rows(), 16);
}

#[test]
fn vista_ask_answers_over_a_jpeg_and_a_session_frame() {
    let Some(_) = model_path() else { return };
    let _g = lock();
    let exe = env!("CARGO_BIN_EXE_vista");
    let dir = tempfile::tempdir().unwrap();
    let jpg = dir.path().join("frame.jpg");
    std::fs::write(
        &jpg,
        vista::synth::jpeg::encode_rgb(&picture(1), 48, 40, 90).unwrap(),
    )
    .unwrap();
    let bundle = tiny("bundle.toml");
    let run = |args: &[&str]| {
        let out = std::process::Command::new(exe)
            .args(args)
            .output()
            .expect("run vista");
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).to_string(),
            err,
        )
    };
    let b = bundle.to_str().unwrap();
    let j = jpg.to_str().unwrap();
    let (ok, out, err) = run(&[
        "ask",
        "--bundle",
        b,
        "--image",
        j,
        "--max-tokens",
        "8",
        "--threads",
        "1",
        "What is this?",
    ]);
    assert!(ok, "{err}");
    assert!(!out.trim().is_empty(), "{err}");
    assert!(err.contains("48 x 40 px -> 16 embeddings"), "{err}");
    // A session's RGB frame.
    let sess = dir.path().join("sess");
    let scenario = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/read_sign.json");
    let (ok, _, err) = run(&[
        "synth",
        scenario.to_str().unwrap(),
        "--duration",
        "2",
        "--out",
        sess.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    let (ok, out, err) = run(&[
        "ask",
        "--bundle",
        b,
        "--session",
        sess.to_str().unwrap(),
        "--at",
        "1",
        "--max-tokens",
        "8",
        "--threads",
        "1",
        "What is ahead?",
    ]);
    assert!(ok, "{err}");
    assert!(!out.trim().is_empty(), "{err}");
    assert!(err.contains("RGB frame at"), "{err}");
    // Bad input: a bundle without a projector, a missing image: errors, no crash.
    let default = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/default");
    let (ok, _, err) = run(&[
        "ask",
        "--bundle",
        default.to_str().unwrap(),
        "--image",
        j,
        "x",
    ]);
    assert!(!ok && err.contains("no vision projector"), "{err}");
    let (ok, _, err) = run(&["ask", "--bundle", b, "--image", "/nonexistent.jpg", "x"]);
    assert!(!ok && err.contains("nonexistent.jpg"), "{err}");
    std::fs::write(&jpg, b"not a jpeg").unwrap();
    let (ok, _, err) = run(&["ask", "--bundle", b, "--image", j, "x"]);
    assert!(!ok && err.contains("decoding"), "{err}");
}

#[test]
fn a_projector_missing_an_attention_weight_is_refused() {
    let mut bytes = std::fs::read(tiny("mmproj-tiny.gguf")).unwrap();
    let name = b"v.blk.0.attn_k.weight";
    let at = bytes
        .windows(name.len())
        .position(|w| w == name)
        .expect("tensor name in the file");
    bytes[at..at + name.len()].copy_from_slice(b"v.blk.0.attn_K.weight");
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("nok.gguf");
    std::fs::write(&p, &bytes).unwrap();
    let e = check_mmproj(&p).unwrap_err();
    assert!(
        matches!(e, LmError::Mmproj { .. }) && e.to_string().contains("v.blk.0.attn_k.weight"),
        "{e}"
    );
}

#[test]
fn camera_frames_are_sampled_and_embedded_as_they_arrive() {
    use vista::aria::recording::AriaRecording;
    use vista::infer::llm::frame_embedder::FrameEmbedder;
    use vista::sample::{Payload, StreamId};
    let Some(path) = model_path() else { return };
    let _g = lock();
    let dir = tempfile::tempdir().unwrap();
    let sess = dir.path().join("sess");
    let scenario = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/read_sign.json");
    let ok = std::process::Command::new(env!("CARGO_BIN_EXE_vista"))
        .args([
            "synth",
            scenario.to_str().unwrap(),
            "--duration",
            "2",
            "--out",
        ])
        .arg(&sess)
        .status()
        .unwrap()
        .success();
    assert!(ok);
    let model = LmModel::load(&path).unwrap();
    let enc = VisionEncoder::load(&tiny("mmproj-tiny.gguf"), &model, 1, 4).unwrap();
    let mut emb = FrameEmbedder::new(enc, 500_000_000);
    let latest = emb.latest();
    let rec = AriaRecording::open(sess.join("recording.vrs")).unwrap();
    let mut frames = 0u64;
    let mut sampled_at = Vec::new();
    for item in rec.stream_samples(StreamId::CameraRgb) {
        let (_, t, payload) = item.unwrap();
        let Payload::Image(frame) = payload else {
            continue;
        };
        frames += 1;
        if emb.on_frame(t.ns(), &frame).unwrap() {
            sampled_at.push(t.ns());
            assert_eq!(
                latest.get().unwrap().0,
                t.ns(),
                "the newest is shared at once"
            );
        }
    }
    let s = emb.stats();
    assert!(frames >= 10, "{frames} RGB frames");
    assert_eq!(s.sampled + s.skipped, frames);
    assert!(sampled_at.windows(2).all(|w| w[1] - w[0] >= 500_000_000));
    assert!((3..=5).contains(&s.sampled), "{s:?}");
    assert_eq!(emb.encoder().cache_stats().misses, s.sampled);
    assert_eq!(latest.updates(), s.sampled);
    assert_eq!(latest.get().unwrap().1.n_rows(), 16);
    // A corrupt frame: counted, typed, the previous embedding stays.
    let bad = ImageFrame {
        width: 8,
        height: 8,
        encoding: ImageEncoding::Jpeg,
        data: vec![1u8, 2, 3].into(),
        frame_number: 0,
        exposure_s: 0.0,
        gain: 0.0,
    };
    let e = emb.on_frame(i64::MAX / 2, &bad).unwrap_err();
    assert!(matches!(e, LmError::Image(_)), "{e}");
    assert_eq!(emb.stats().failures, 1);
    assert_eq!(latest.get().unwrap().0, *sampled_at.last().unwrap());
}
