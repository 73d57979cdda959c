//! The language model through llama.cpp, on the real SmolLM2 GGUF from the model cache:
//! typed errors for missing, corrupt and wrong-architecture files (the process survives),
//! streaming greedy generation, system-prompt reuse in the KV cache checked against a fresh
//! full prefill, stopping (end, max tokens, cancel, caller), long sessions in a small
//! window, the `Generator` port, embedding rows as input (checked against the model's own
//! token embeddings, dequantised here from the file) and Q4_0 re-quantisation.
//!
//! Without the model: fails under `CI=true` (run `models/fetch`), else skips loudly.

#![cfg(feature = "llm")]

use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use vista::infer::llm::{
    check_gguf, quantize, ContextConfig, GenOptions, LmEngine, LmError, LmModel, Piece, QuantType,
    Segment, StopReason, DEFAULT_SYSTEM_PROMPT,
};
use vista::state::{Continue, GenerationPrompt, Generator};

#[path = "common/lm.rs"]
mod lm;
use lm::{lock, model_path};

fn cfg(n_ctx: u32) -> ContextConfig {
    ContextConfig {
        n_ctx,
        n_batch: 512,
        threads: 2,
        ..ContextConfig::default()
    }
}

fn collect(engine: &mut LmEngine, system: &str, user: &str, max: u32) -> (String, StopReason) {
    let never = AtomicBool::new(false);
    let mut text = String::new();
    let st = engine
        .chat(
            system,
            user,
            GenOptions::new(max),
            &mut |s| {
                text.push_str(s);
                true
            },
            &never,
        )
        .unwrap();
    (text, st.stop)
}

// ---------------------------------------------------------------- bad input

#[test]
fn missing_file_is_not_found() {
    let e = LmEngine::load(Path::new("/nonexistent/model.gguf"), &cfg(256)).unwrap_err();
    assert!(matches!(e, LmError::NotFound { .. }), "{e}");
    assert!(e.to_string().contains("models/fetch"));
}

#[test]
fn corrupt_files_are_typed_errors() {
    let dir = tempfile::tempdir().unwrap();
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("empty.gguf", vec![]),
        ("text.gguf", b"this is not a model at all".to_vec()),
        ("magic_only.gguf", b"GGUF".to_vec()),
        (
            "bad_version.gguf",
            b"GGUF\x63\0\0\0\x01\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0".to_vec(),
        ),
    ];
    for (name, bytes) in cases {
        let p = dir.path().join(name);
        std::fs::write(&p, &bytes).unwrap();
        let e = LmEngine::load(&p, &cfg(256)).unwrap_err();
        assert!(matches!(e, LmError::BadGguf { .. }), "{name}: {e}");
        assert!(e.to_string().contains(name), "{name}: {e}");
    }
}

#[test]
fn truncated_real_model_is_refused_before_llama_cpp() {
    let Some(src) = model_path() else { return };
    let _g = lock();
    let bytes = std::fs::read(&src).unwrap();
    let dir = tempfile::tempdir().unwrap();
    // Inside the header (the tokenizer arrays), and inside the tensor data.
    for cut in [100_000usize, bytes.len() / 2, bytes.len() - 1] {
        let p = dir.path().join(format!("cut_{cut}.gguf"));
        std::fs::write(&p, &bytes[..cut]).unwrap();
        let e = LmEngine::load(&p, &cfg(256)).unwrap_err();
        match e {
            LmError::BadGguf { offset, .. } => assert!(offset <= cut as u64, "{cut}: {offset}"),
            other => panic!("cut at {cut}: {other}"),
        }
    }
}

#[test]
fn unsupported_architecture_is_refused() {
    let Some(src) = model_path() else { return };
    let _g = lock();
    let bytes = std::fs::read(&src).unwrap();
    let key = b"general.architecture";
    let at = bytes.windows(key.len()).position(|w| w == key).unwrap();
    // key, then u32 type (8 = string), u64 length 5, then "llama".
    let value = at + key.len() + 4 + 8;
    assert_eq!(&bytes[value..value + 5], b"llama");
    let mut patched = bytes.clone();
    patched[value..value + 5].copy_from_slice(b"mamba");
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("mamba.gguf");
    std::fs::write(&p, &patched).unwrap();
    let e = LmEngine::load(&p, &cfg(256)).unwrap_err();
    match e {
        LmError::UnsupportedArchitecture { architecture, .. } => assert_eq!(architecture, "mamba"),
        other => panic!("{other}"),
    }
}

/// A well-formed GGUF that claims `llama` but lacks its hyper-parameters and tensors: our
/// check passes it, llama.cpp refuses it, and that is an error, not a crash.
#[test]
fn llama_cpp_refusal_is_an_error() {
    let _g = lock();
    let mut v = Vec::new();
    v.extend_from_slice(b"GGUF");
    v.extend_from_slice(&3u32.to_le_bytes());
    v.extend_from_slice(&1u64.to_le_bytes());
    v.extend_from_slice(&1u64.to_le_bytes());
    let (k, val) = ("general.architecture", "llama");
    v.extend_from_slice(&(k.len() as u64).to_le_bytes());
    v.extend_from_slice(k.as_bytes());
    v.extend_from_slice(&8u32.to_le_bytes());
    v.extend_from_slice(&(val.len() as u64).to_le_bytes());
    v.extend_from_slice(val.as_bytes());
    v.extend_from_slice(&1u64.to_le_bytes());
    v.push(b'w');
    v.extend_from_slice(&1u32.to_le_bytes());
    v.extend_from_slice(&32u64.to_le_bytes());
    v.extend_from_slice(&0u32.to_le_bytes());
    v.extend_from_slice(&0u64.to_le_bytes());
    while v.len() % 32 != 0 {
        v.push(0);
    }
    v.extend_from_slice(&[0u8; 128]);
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("hollow.gguf");
    std::fs::File::create(&p).unwrap().write_all(&v).unwrap();
    check_gguf(&p).unwrap();
    let e = LmEngine::load(&p, &cfg(256)).unwrap_err();
    assert!(matches!(e, LmError::Llama { .. }), "{e}");
}

// ---------------------------------------------------------------- generation

#[test]
fn header_matches_an_independent_reader() {
    let Some(src) = model_path() else { return };
    // Values read with a separate Python GGUF reader (struct.unpack over the same file).
    let s = check_gguf(&src).unwrap();
    assert_eq!(s.version, 3);
    assert_eq!(s.architecture, "llama");
    assert_eq!(s.basename.as_deref(), Some("smollm2"));
    assert_eq!(s.n_kv, 33);
    assert_eq!(s.tensors.len(), 272);
    assert_eq!(s.data_offset, 1_785_664);
    let emb = s
        .tensors
        .iter()
        .find(|t| t.name == "token_embd.weight")
        .unwrap();
    assert_eq!(
        (emb.dims.clone(), emb.ggml_type, emb.offset),
        (vec![576, 49152], 8, 0)
    );
}

#[test]
fn streams_an_answer_and_names_itself() {
    let Some(p) = model_path() else { return };
    let _g = lock();
    let mut e = LmEngine::load(&p, &cfg(1024)).unwrap();
    assert_eq!(e.name(), "smollm2");
    let never = AtomicBool::new(false);
    let mut pieces = Vec::new();
    let st = e
        .chat(
            DEFAULT_SYSTEM_PROMPT,
            "What colour is a clear daytime sky?",
            GenOptions::new(24),
            &mut |s| {
                pieces.push(s.to_string());
                true
            },
            &never,
        )
        .unwrap();
    let text: String = pieces.concat();
    assert!(st.generated_tokens >= 1 && st.generated_tokens <= 24);
    assert!(pieces.len() >= 2, "streamed in pieces: {pieces:?}");
    assert!(!text.trim().is_empty(), "{text:?}");
    assert!(st.first_token_ns > 0 && st.first_token_ns <= st.total_ns);
    assert!(matches!(
        st.stop,
        StopReason::EndOfGeneration | StopReason::MaxTokens
    ));
}

#[test]
fn prefix_reuse_matches_a_fresh_full_prefill() {
    let Some(p) = model_path() else { return };
    let _g = lock();
    let q1 = "Is the door open?";
    let q2 = "How far is the pole ahead of me?";
    let mut warm = LmEngine::load(&p, &cfg(1024)).unwrap();
    let (sys_len, total2) = warm.prompt_lengths(DEFAULT_SYSTEM_PROMPT, q2).unwrap();
    assert!(sys_len > 40, "system prefix {sys_len} tokens");
    let _ = collect(&mut warm, DEFAULT_SYSTEM_PROMPT, q1, 8);
    assert_eq!(
        warm.cached_tokens(),
        sys_len,
        "trimmed back to the system prefix"
    );

    let never = AtomicBool::new(false);
    let mut warm_text = String::new();
    let st = warm
        .chat(
            DEFAULT_SYSTEM_PROMPT,
            q2,
            GenOptions::new(16),
            &mut |s| {
                warm_text.push_str(s);
                true
            },
            &never,
        )
        .unwrap();
    assert_eq!(st.reused_tokens as usize, sys_len);
    assert_eq!(st.prefill_tokens as usize, total2 - sys_len);

    let mut fresh = LmEngine::load(&p, &cfg(1024)).unwrap();
    let (fresh_text, _) = collect(&mut fresh, DEFAULT_SYSTEM_PROMPT, q2, 16);
    assert!(!fresh_text.is_empty());
    assert_eq!(warm_text, fresh_text);

    // A changed system prompt is re-prefilled from the first differing token.
    let other = "You are a terse assistant. Reply in five words or fewer.";
    let (o_len, _) = warm.prompt_lengths(other, q2).unwrap();
    let mut changed = String::new();
    let st = warm
        .chat(
            other,
            q2,
            GenOptions::new(16),
            &mut |s| {
                changed.push_str(s);
                true
            },
            &never,
        )
        .unwrap();
    assert!((st.reused_tokens as usize) < o_len);
    assert_eq!(warm.cached_tokens(), o_len);
    let mut fresh = LmEngine::load(&p, &cfg(1024)).unwrap();
    assert_eq!(collect(&mut fresh, other, q2, 16).0, changed);
}

#[test]
fn stops_on_max_tokens_cancel_and_caller() {
    let Some(p) = model_path() else { return };
    let _g = lock();
    let mut e = LmEngine::load(&p, &cfg(512)).unwrap();
    let never = AtomicBool::new(false);
    let q = "Describe a busy street corner in detail.";
    let st = e
        .chat(
            DEFAULT_SYSTEM_PROMPT,
            q,
            GenOptions {
                max_tokens: 5,
                stop_at_eog: false,
            },
            &mut |_| true,
            &never,
        )
        .unwrap();
    assert_eq!((st.generated_tokens, st.stop), (5, StopReason::MaxTokens));

    // Cancel set by the callback (as another thread would): checked before the next token.
    let cancel = AtomicBool::new(false);
    let st = e
        .chat(
            DEFAULT_SYSTEM_PROMPT,
            q,
            GenOptions::new(64),
            &mut |_| {
                cancel.store(true, Ordering::Relaxed);
                true
            },
            &cancel,
        )
        .unwrap();
    assert_eq!(st.stop, StopReason::Cancelled);
    assert!(st.generated_tokens <= 2, "{}", st.generated_tokens);

    // Already cancelled: nothing is done.
    let st = e
        .chat(
            DEFAULT_SYSTEM_PROMPT,
            q,
            GenOptions::new(64),
            &mut |_| true,
            &cancel,
        )
        .unwrap();
    assert_eq!((st.generated_tokens, st.prefill_tokens), (0, 0));
    assert_eq!(st.stop, StopReason::Cancelled);

    let mut n = 0;
    let st = e
        .chat(
            DEFAULT_SYSTEM_PROMPT,
            q,
            GenOptions::new(64),
            &mut |_| {
                n += 1;
                n < 3
            },
            &never,
        )
        .unwrap();
    assert_eq!(st.stop, StopReason::CallerStopped);
    assert_eq!(n, 3);
}

#[test]
fn long_session_in_a_small_window_never_overflows() {
    let Some(p) = model_path() else { return };
    let _g = lock();
    let mut e = LmEngine::load(&p, &cfg(256)).unwrap();
    let (sys_len, _) = e.prompt_lengths(DEFAULT_SYSTEM_PROMPT, "x").unwrap();
    // 40 requests of ~20 prompt + 12 generated tokens each: far more than 256 in total.
    for i in 0..40 {
        let q = format!("Request number {i}: what is {i} plus {i}?");
        let never = AtomicBool::new(false);
        let st = e
            .chat(
                DEFAULT_SYSTEM_PROMPT,
                &q,
                GenOptions {
                    max_tokens: 12,
                    stop_at_eog: false,
                },
                &mut |_| true,
                &never,
            )
            .unwrap();
        assert_eq!(st.generated_tokens, 12);
        assert_eq!(e.cached_tokens(), sys_len);
    }
}

#[test]
fn generator_port_cuts_an_oversized_context() {
    let Some(p) = model_path() else { return };
    let _g = lock();
    let mut e = LmEngine::load(&p, &cfg(384)).unwrap();
    assert_eq!(Generator::name(&e), "smollm2");
    let context = "A bench stands two metres to the left. ".repeat(200);
    let prompt = GenerationPrompt {
        system: DEFAULT_SYSTEM_PROMPT.to_string(),
        context,
        request: "Where can I sit down?".to_string(),
        form: "question".to_string(),
        max_tokens: 48,
    };
    let never = AtomicBool::new(false);
    let mut text = String::new();
    let st = e
        .generate(
            &prompt,
            &mut |s| {
                text.push_str(s);
                Continue::Yes
            },
            &never,
        )
        .unwrap();
    assert!(st.generated_tokens >= 1, "{text:?}");
    assert!(!st.cancelled);
    // The context was cut, and the window (llama.cpp rounds it up) held prompt and answer.
    let (_, uncut) = e
        .prompt_lengths(DEFAULT_SYSTEM_PROMPT, &prompt.context)
        .unwrap();
    assert!((st.prefill_tokens as usize) < uncut);
    assert!(st.prefill_tokens as usize + st.generated_tokens as usize <= e.n_ctx() as usize);
}

// ---------------------------------------------------------------- embeddings

fn f16_to_f32(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0f32 } else { 1.0 };
    let exp = i32::from((h >> 10) & 0x1f);
    let frac = f32::from(h & 0x3ff);
    match exp {
        0 => sign * frac * 2f32.powi(-24),
        31 => sign * f32::INFINITY,
        _ => sign * (1.0 + frac / 1024.0) * 2f32.powi(exp - 15),
    }
}

/// Row `token` of `token_embd.weight` (Q8_0: per 32 values an f16 scale and 32 i8),
/// dequantised from the file bytes.
fn token_embedding(file: &[u8], data_offset: usize, width: usize, token: i32) -> Vec<f32> {
    let row_bytes = width / 32 * 34;
    let start = data_offset + token as usize * row_bytes;
    let row = &file[start..start + row_bytes];
    let mut out = Vec::with_capacity(width);
    for block in row.chunks(34) {
        let d = f16_to_f32(u16::from_le_bytes([block[0], block[1]]));
        out.extend(block[2..].iter().map(|&q| d * f32::from(q as i8)));
    }
    out
}

#[test]
fn embedding_rows_equal_to_token_embeddings_give_the_token_logits() {
    let Some(p) = model_path() else { return };
    let _g = lock();
    let file = std::fs::read(&p).unwrap();
    let summary = check_gguf(&p).unwrap();
    let emb = summary
        .tensors
        .iter()
        .find(|t| t.name == "token_embd.weight")
        .unwrap();
    assert_eq!(
        emb.ggml_type, 8,
        "the reference dequantiser handles Q8_0 only"
    );
    let model = LmModel::load(&p).unwrap();
    let width = model.n_embd();
    assert_eq!(width, 576);
    let head = model
        .tokenize("<|im_start|>user\nThe sign ahead reads")
        .unwrap();
    let middle = model.tokenize(" EXIT to the left").unwrap();
    let tail = model.tokenize(" and the door is").unwrap();
    let rows: Vec<f32> = middle
        .iter()
        .flat_map(|&t| {
            token_embedding(&file, (summary.data_offset + emb.offset) as usize, width, t)
        })
        .collect();

    let mut e = LmEngine::with_model(model.clone(), &cfg(256)).unwrap();
    let ctx = e.context_mut();
    ctx.decode_tokens(&head, 0, false).unwrap();
    ctx.decode_tokens(&middle, head.len() as u32, false)
        .unwrap();
    ctx.decode_tokens(&tail, (head.len() + middle.len()) as u32, true)
        .unwrap();
    let reference = ctx.last_logits().unwrap().to_vec();

    let ctx = e.context_mut();
    ctx.decode_tokens(&head, 0, false).unwrap();
    let n = vista::infer::llm::embd_batch::decode_embeddings(
        ctx,
        &rows,
        width,
        head.len() as u32,
        false,
    )
    .unwrap();
    assert_eq!(n, middle.len());
    ctx.decode_tokens(&tail, (head.len() + middle.len()) as u32, true)
        .unwrap();
    let got = ctx.last_logits().unwrap().to_vec();

    assert_eq!(got.len(), reference.len());
    let max_diff = got
        .iter()
        .zip(&reference)
        .map(|(a, b)| (a - b).abs())
        .fold(0f32, f32::max);
    assert!(max_diff <= 1e-3, "max logit difference {max_diff}");
    let argmax = |v: &[f32]| {
        v.iter()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(b.1))
            .unwrap()
            .0
    };
    assert_eq!(argmax(&got), argmax(&reference));
}

#[test]
fn sensor_rows_at_a_placeholder_decode_and_generate() {
    let Some(p) = model_path() else { return };
    let _g = lock();
    let mut e = LmEngine::load(&p, &cfg(512)).unwrap();
    let width = e.model().n_embd();
    // 16 deterministic rows with the spread of real token embeddings (|x| ~ 0.05).
    let rows: Vec<f32> = (0..16 * width)
        .map(|i| ((i as f32 * 0.618_034).fract() - 0.5) * 0.1)
        .collect();
    let head = format!(
        "<|im_start|>system\n{DEFAULT_SYSTEM_PROMPT}<|im_end|>\n<|im_start|>user\nSensor summary: "
    );
    let tail = "\nRequest: what is in front of me?<|im_end|>\n<|im_start|>assistant\n";
    let never = AtomicBool::new(false);
    let mut text = String::new();
    let st = e
        .generate_segments(
            &[
                Segment::Text(&head),
                Segment::Embeddings { rows: &rows, width },
                Segment::Text(tail),
            ],
            GenOptions::new(16),
            &mut |s| {
                text.push_str(s);
                true
            },
            &never,
        )
        .unwrap();
    assert!(st.generated_tokens >= 1);
    assert!(!text.trim().is_empty(), "{text:?}");
    assert_eq!(e.cached_tokens(), 0);

    // Logits after the rows are finite.
    let ctx = e.context_mut();
    vista::infer::llm::embd_batch::decode_embeddings(ctx, &rows, width, 0, true).unwrap();
    assert!(ctx.last_logits().unwrap().iter().all(|l| l.is_finite()));

    // Wrong width: an error naming both numbers, and the engine still works.
    let bad = vec![0.0f32; 575 * 2];
    let err = e
        .generate_segments(
            &[
                Segment::Text(&head),
                Segment::Embeddings {
                    rows: &bad,
                    width: 575,
                },
            ],
            GenOptions::new(4),
            &mut |_| true,
            &never,
        )
        .unwrap_err();
    match &err {
        LmError::EmbeddingWidth { given, expected } => assert_eq!((*given, *expected), (575, 576)),
        other => panic!("{other}"),
    }
    assert!(err.to_string().contains("575") && err.to_string().contains("576"));
    let (t, _) = collect(&mut e, DEFAULT_SYSTEM_PROMPT, "Hello?", 4);
    assert!(!t.is_empty());
}

// ---------------------------------------------------------------- quantisation

#[test]
fn q4_0_requantisation_makes_a_working_model() {
    let Some(p) = model_path() else { return };
    let _g = lock();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("smollm2.Q4_0.gguf");
    quantize(&p, &out, QuantType::Q4_0, 2).unwrap();
    let s = check_gguf(&out).unwrap();
    let q = s
        .tensors
        .iter()
        .find(|t| t.name == "blk.0.ffn_up.weight")
        .unwrap();
    assert_eq!(q.ggml_type, 2, "Q4_0");
    let mut a = LmEngine::load(&p, &cfg(512)).unwrap();
    let mut b = LmEngine::load(&out, &cfg(512)).unwrap();
    let q = "What colour is a clear daytime sky?";
    let (ta, _) = collect(&mut a, DEFAULT_SYSTEM_PROMPT, q, 16);
    let (tb, _) = collect(&mut b, DEFAULT_SYSTEM_PROMPT, q, 16);
    // Both answer; whether they agree token for token is reported, not asserted (they did
    // not on this prompt: see `vista bench lm --compare`).
    eprintln!("Q4_1: {ta:?}\nQ4_0: {tb:?}");
    assert!(!ta.trim().is_empty() && !tb.trim().is_empty());
}

/// A prefix prefill cut short (a request wants the model) leaves a valid, shorter cache:
/// stopped before it began, it keeps only what the old and new system turns share; stopped
/// part-way (by another thread, wherever that lands), it keeps what it decoded; either way
/// the next answer equals a fresh engine's.
#[test]
fn an_interrupted_prefix_prefill_leaves_a_valid_cache() {
    let Some(p) = model_path() else { return };
    let _g = lock();
    let a = format!("{DEFAULT_SYSTEM_PROMPT}\n\nSurroundings:\nA metal pole at 12 o'clock, 2.0 m.");
    let b = format!(
        "{DEFAULT_SYSTEM_PROMPT}\n\nSurroundings:\nA door at 2 o'clock, 6.0 m; a bin at 10 \
         o'clock, 1.5 m; a bench at 3 o'clock, 4.0 m; the text \"EXIT\" above the door."
    );
    let q = "What is around me?";
    let mut fresh = LmEngine::load(&p, &cfg(1024)).unwrap();
    let (want, _) = collect(&mut fresh, &b, q, 12);
    assert!(!want.is_empty());

    let mut warm = LmEngine::load(&p, &cfg(1024)).unwrap();
    assert!(warm.prepare_prefix(&a).unwrap() > 0);
    let (a_len, _) = warm.prompt_lengths(&a, q).unwrap();
    let (b_len, _) = warm.prompt_lengths(&b, q).unwrap();
    // Stopped before the first chunk: nothing decoded, the shared part kept.
    let stop = AtomicBool::new(true);
    let (n, complete) = warm.prepare_prefix_until(&b, &stop).unwrap();
    assert_eq!((n, complete), (0, false));
    assert!(warm.cached_tokens() < a_len.min(b_len));
    let (got, _) = collect(&mut warm, &b, q, 12);
    assert_eq!(got, want);

    // Stopped by another thread part-way (or not at all, on a fast machine).
    let mut warm = LmEngine::load(&p, &cfg(1024)).unwrap();
    warm.prepare_prefix(&a).unwrap();
    let stop = AtomicBool::new(false);
    let (n, complete) = std::thread::scope(|s| {
        s.spawn(|| {
            std::thread::sleep(std::time::Duration::from_millis(30));
            stop.store(true, Ordering::Release);
        });
        warm.prepare_prefix_until(&b, &stop).unwrap()
    });
    if complete {
        assert_eq!(warm.cached_tokens(), b_len, "{n} tokens");
    } else {
        assert!(warm.cached_tokens() < b_len, "{n} tokens");
    }
    let (got, _) = collect(&mut warm, &b, q, 12);
    assert_eq!(got, want);
}

/// The cache's backup: a complete prefix kept while another prefill changes the cache and
/// is cut short, then brought back, answers exactly as a fresh engine over that prefix
/// does, paying only for the question (the prefix is not prefilled again).
#[test]
fn a_backed_up_prefix_survives_an_interrupted_prefill_and_is_restored() {
    let Some(p) = model_path() else { return };
    let _g = lock();
    let a = format!("{DEFAULT_SYSTEM_PROMPT}\n\nSurroundings:\nA metal pole at 12 o'clock, 2.0 m.");
    let b = format!(
        "{DEFAULT_SYSTEM_PROMPT}\n\nSurroundings:\nA door at 2 o'clock, 6.0 m; a bin at 10 \
         o'clock, 1.5 m; a bench at 3 o'clock, 4.0 m; the text \"EXIT\" above the door."
    );
    let q = "What is around me?";
    let mut fresh = LmEngine::load(&p, &cfg(1024)).unwrap();
    let (want, _) = collect(&mut fresh, &a, q, 12);
    assert!(!want.is_empty());

    let mut warm = LmEngine::load(&p, &cfg(1024)).unwrap();
    warm.prepare_prefix(&a).unwrap();
    let (a_len, a_total) = warm.prompt_lengths(&a, q).unwrap();
    assert_eq!(warm.cached_tokens(), a_len);
    warm.backup_cache();
    assert!(warm.has_cache_backup());
    // B's prefill changes the working cache: cut short before its first chunk (the cache
    // is trimmed to what A and B share) and, after that, run to the end.
    let (_, complete) = warm
        .prepare_prefix_until(&b, &AtomicBool::new(true))
        .unwrap();
    assert!(!complete && warm.cached_tokens() < a_len);
    let (_, complete) = warm
        .prepare_prefix_until(&b, &AtomicBool::new(false))
        .unwrap();
    assert!(complete && warm.cached_tokens() > a_len);
    assert!(warm.has_cache_backup(), "prefills keep the backup");
    assert!(warm.restore_cache(), "the backup was kept");
    assert!(!warm.has_cache_backup());
    assert_eq!(
        warm.cached_tokens(),
        a_len,
        "the working cache is A's again"
    );
    let never = AtomicBool::new(false);
    let mut got = String::new();
    let st = warm
        .chat(
            &a,
            q,
            GenOptions::new(12),
            &mut |s| {
                got.push_str(s);
                true
            },
            &never,
        )
        .unwrap();
    assert_eq!(
        st.reused_tokens as usize, a_len,
        "A was not prefilled again"
    );
    assert_eq!(st.prefill_tokens as usize, a_total - a_len);
    assert_eq!(got, want);
    // Without a backup there is nothing to restore and the cache is left alone.
    assert!(!warm.restore_cache());
    assert_eq!(warm.cached_tokens(), a_len);
}

// ---------------------------------------------------------------- keyed prefixes

/// A prefix of text, embedding rows and text (`pieces`): prefilled ahead in chunks, the
/// request decodes only its own tokens and answers exactly as a whole prompt decoded at
/// once; rows under a new key are decoded again (same values or not), rows under the same
/// key are reused, and the cache keeps the prefix after each answer.
#[test]
fn a_keyed_prefix_with_rows_is_reused_exactly_and_only_while_its_key_holds() {
    let Some(p) = model_path() else { return };
    let _g = lock();
    let mut e = LmEngine::load(&p, &cfg(1024)).unwrap();
    let width = e.model().n_embd();
    let rows_a: Vec<f32> = (0..16 * width)
        .map(|i| ((i as f32 * 0.618_034).fract() - 0.5) * 0.1)
        .collect();
    let rows_b: Vec<f32> = (0..16 * width)
        .map(|i| ((i as f32 * 0.414_213).fract() - 0.5) * 0.1)
        .collect();
    let head = format!(
        "<|im_start|>system\n{DEFAULT_SYSTEM_PROMPT}<|im_end|>\n<|im_start|>user\nCamera view: "
    );
    let tail = "\nRequest: what is in front of me?<|im_end|>\n<|im_start|>assistant\n";
    let never = AtomicBool::new(false);
    let run = |e: &mut LmEngine, rows: &[f32], key: u64| {
        let mut text = String::new();
        let st = e
            .generate_after_pieces(
                &[Piece::Text(&head), Piece::Rows { key, rows, width }],
                tail,
                GenOptions::new(16),
                &mut |s| {
                    text.push_str(s);
                    true
                },
                &never,
            )
            .unwrap();
        (text, st)
    };
    // The reference: the same prompt decoded at once from an empty cache.
    let whole = |e: &mut LmEngine, rows: &[f32]| {
        let mut text = String::new();
        e.generate_segments(
            &[
                Segment::Text(&head),
                Segment::Embeddings { rows, width },
                Segment::Text(tail),
            ],
            GenOptions::new(16),
            &mut |s| {
                text.push_str(s);
                true
            },
            &never,
        )
        .unwrap();
        text
    };
    let ref_a = whole(&mut e, &rows_a);
    let ref_b = whole(&mut e, &rows_b);
    assert_ne!(ref_a, ref_b, "the rows decide the answer");
    let n_tail = e.model().tokenize(tail).unwrap().len();
    let n_head = e.model().tokenize(&head).unwrap().len();

    // Prefilled ahead (in chunks, with a stop flag that is never set).
    let (n, complete) = e
        .prefill_pieces_until(
            &[
                Piece::Text(&head),
                Piece::Rows {
                    key: 1,
                    rows: &rows_a,
                    width,
                },
            ],
            &never,
        )
        .unwrap();
    assert!(complete);
    assert_eq!(n as usize, n_head + 16);
    assert_eq!((e.cached_tokens(), e.cached_rows()), (n_head + 16, 16));
    let (text, st) = run(&mut e, &rows_a, 1);
    assert_eq!(text, ref_a);
    assert_eq!(st.prefill_tokens as usize, n_tail, "{st:?}");
    assert_eq!(st.reused_tokens as usize, n_head + 16);
    // The prefix stays cached for the next request.
    assert_eq!(e.cached_tokens(), n_head + 16);

    // New rows under a new key: the head is reused, the rows decoded again.
    let (text, st) = run(&mut e, &rows_b, 2);
    assert_eq!(text, ref_b);
    assert_eq!(st.reused_tokens as usize, n_head);
    assert_eq!(st.prefill_tokens as usize, 16 + n_tail);
    // The same key again: nothing but the request.
    let (text, st) = run(&mut e, &rows_b, 2);
    assert_eq!(text, ref_b);
    assert_eq!(st.prefill_tokens as usize, n_tail);

    // A stop flag already set: nothing decoded, a valid (shorter) cache, still usable.
    let stop = AtomicBool::new(true);
    let (n, complete) = e
        .prefill_pieces_until(
            &[
                Piece::Text(&head),
                Piece::Rows {
                    key: 3,
                    rows: &rows_a,
                    width,
                },
            ],
            &stop,
        )
        .unwrap();
    assert_eq!((n, complete), (0, false));
    assert_eq!(e.cached_tokens(), n_head);
    let (text, _) = run(&mut e, &rows_a, 3);
    assert_eq!(text, ref_a);

    // Rows of the wrong width: a typed error naming both numbers, before any decoding.
    let bad = vec![0.0f32; 575 * 2];
    let err = e
        .prefill_pieces_until(
            &[
                Piece::Text(&head),
                Piece::Rows {
                    key: 4,
                    rows: &bad,
                    width: 575,
                },
            ],
            &never,
        )
        .unwrap_err();
    assert!(
        matches!(
            err,
            LmError::EmbeddingWidth {
                given: 575,
                expected: 576
            }
        ),
        "{err}"
    );
    let (text, _) = run(&mut e, &rows_a, 3);
    assert_eq!(text, ref_a);
}

/// `vista bench lm --ctx N`: the prompt and generation figures come from a context of the
/// window asked for (llama.cpp's own rounding to 256 reported), the first-token figures from
/// the assistant's window; a window too small for the measurement is a typed error before
/// anything is decoded.
#[test]
fn bench_measures_in_the_window_asked_for() {
    use vista::infer::llm::bench::{run_bench, LmBenchConfig};
    let Some(path) = model_path() else { return };
    let _g = lock();
    let small = LmBenchConfig {
        repeats: 1,
        gen_tokens: 8,
        n_ctx: 400,
        ..LmBenchConfig::default()
    };
    let r = run_bench(&path, &small).unwrap();
    assert_eq!(r.n_ctx, 512, "400 rounded up by llama.cpp");
    assert!(r.prompt_tokens >= 325, "{}", r.prompt_tokens);
    assert!(r.prompt_tok_per_s > 0.0 && r.gen_tok_per_s > 0.0, "{r:?}");
    // The system turn alone is longer than this window: it was measured in the assistant's.
    assert!(r.system_tokens + r.question_tokens > 512, "{r:?}");
    assert!(r.ttft_cold_ms > 0.0 && r.ttft_prefix_ms > 0.0, "{r:?}");

    let too_small = LmBenchConfig {
        n_ctx: 256,
        ..small
    };
    match run_bench(&path, &too_small) {
        Err(LmError::ContextFull { needed, n_ctx, .. }) => {
            assert_eq!((needed, n_ctx), (325 + 8, 256));
        }
        other => panic!("expected ContextFull, got {other:?}"),
    }
}
