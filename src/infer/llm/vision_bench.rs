//! The numbers behind `vista bench lm --bundle B` for a bundle with a vision projector:
//! image encode time (a new frame each repeat, so every one is a cache miss), a cache hit,
//! and time to first token for a question over one already encoded frame.

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use serde::Serialize;

use super::bench::median;
use super::engine::{GenOptions, LmEngine};
use super::error::LmError;
use super::raw_ctx::ContextConfig;
use super::vision::{RgbImage, VisionEncoder};
use super::DEFAULT_SYSTEM_PROMPT;

/// What was measured.
#[derive(Clone, Debug, Serialize)]
pub struct ImageBenchReport {
    /// The projector file.
    pub mmproj: String,
    /// Its projector type.
    pub projector: String,
    /// Frame size encoded, pixels.
    pub frame: (u32, u32),
    /// Embedding rows per frame.
    pub rows: usize,
    /// Encode time per new frame (mtmd preprocessing + encoder + projector), median ms.
    pub encode_ms: f64,
    /// Fastest encode, ms.
    pub encode_min_ms: f64,
    /// A cache hit (fingerprint + lookup), median µs.
    pub cached_us: f64,
    /// Time to first token for a short question over one encoded frame, the first request
    /// (system turn, image rows and question prefilled from an empty cache), ms.
    pub ttft_cold_ms: f64,
    /// The same for later requests over other frames (system turn reused from the KV
    /// cache: only the image rows and the question prefilled), median ms.
    pub ttft_ms: f64,
    /// Prompt positions prefilled by a later request (image rows + question tokens).
    pub prompt_positions: u32,
    /// Repeats.
    pub repeats: usize,
}

/// A synthetic frame, different for each `seed`.
fn frame(w: u32, h: u32, seed: u32) -> Vec<u8> {
    let mut px = Vec::with_capacity(w as usize * h as usize * 3);
    for y in 0..h {
        for x in 0..w {
            let v = x
                .wrapping_mul(7)
                .wrapping_add(y.wrapping_mul(13))
                .wrapping_add(seed * 31);
            px.extend_from_slice(&[(v & 0xff) as u8, ((v >> 3) & 0xff) as u8, (seed * 17) as u8]);
        }
    }
    px
}

/// Measures `mmproj` over the language model `gguf`.
pub fn run_image_bench(
    gguf: &Path,
    mmproj: &Path,
    threads: u32,
    repeats: usize,
    (w, h): (u32, u32),
) -> Result<ImageBenchReport, LmError> {
    let repeats = repeats.max(1);
    let mut engine = LmEngine::load(
        gguf,
        &ContextConfig {
            threads,
            ..ContextConfig::default()
        },
    )?;
    let mut enc = VisionEncoder::load(mmproj, engine.model(), threads, repeats + 1)?;
    let frames: Vec<Vec<u8>> = (0..=repeats as u32).map(|i| frame(w, h, i)).collect();
    fn img_of(w: u32, h: u32, px: &[u8]) -> RgbImage<'_> {
        RgbImage {
            width: w,
            height: h,
            pixels: px,
        }
    }
    let img = |px| img_of(w, h, px);
    // A first encode (allocations, first graph) not counted.
    enc.embed_frame(-1, &img(&frames[repeats]))?;
    let mut encode = Vec::new();
    let mut rows = 0;
    for (i, px) in frames.iter().take(repeats).enumerate() {
        let t0 = Instant::now();
        let e = enc.embed_frame(i as i64, &img(px))?;
        encode.push(t0.elapsed().as_secs_f64() * 1e3);
        rows = e.n_rows();
    }
    let mut cached = Vec::new();
    for (i, px) in frames.iter().take(repeats).enumerate() {
        let t0 = Instant::now();
        enc.embed_frame(i as i64, &img(px))?;
        cached.push(t0.elapsed().as_secs_f64() * 1e6);
    }
    let never = AtomicBool::new(false);
    let mut ttft = Vec::new();
    let mut positions = 0;
    let mut cold = f64::NAN;
    // The first request finds an empty KV cache; the later ones reuse the system turn.
    for k in std::iter::once(repeats).chain(0..repeats) {
        let i = if k == repeats { -1 } else { k as i64 };
        let e = enc.embed_frame(i, &img(&frames[k]))?;
        let st = engine.chat_with_images(
            DEFAULT_SYSTEM_PROMPT,
            "<image>\nWhat is in front of me?",
            "<image>",
            &[&e],
            GenOptions::new(1),
            &mut |_| true,
            &never,
        )?;
        if i == -1 {
            cold = st.first_token_ns as f64 / 1e6;
        } else {
            ttft.push(st.first_token_ns as f64 / 1e6);
            positions = st.prefill_tokens;
        }
    }
    let min = encode.iter().copied().fold(f64::INFINITY, f64::min);
    Ok(ImageBenchReport {
        mmproj: mmproj.display().to_string(),
        projector: enc.summary().projector.clone(),
        frame: (w, h),
        rows,
        encode_ms: median(&encode),
        encode_min_ms: min,
        cached_us: median(&cached),
        ttft_cold_ms: cold,
        ttft_ms: median(&ttft),
        prompt_positions: positions,
        repeats,
    })
}
