//! `vista ask [--model GGUF | --bundle B] [--image FILE.jpg]… [--session S --at SECONDS]
//! [--threads N] [--max-tokens N] "question"`: streams the language model's answer to
//! standard output; time to first token and speed go to standard error. With `--image` or
//! `--session`/`--at` (the RGB frame at that many seconds after the recording's first, a
//! bundle with a vision projector), each image goes in at the bundle's image placeholder:
//! where the question has placeholders, there; else all images before the question.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use anyhow::{bail, Context};

use vista::aria::recording::decode_image;
use vista::aria::recording::AriaRecording;
use vista::infer::bundle::Bundle;
use vista::infer::llm::{
    default_model_path, vision::to_rgb, ContextConfig, GenOptions, ImageEmbedding, LmEngine,
    LmStats, RgbImage, VisionEncoder, DEFAULT_SYSTEM_PROMPT,
};
use vista::sample::{ImageEncoding, ImageFrame, Payload, StreamId};

/// Arguments of `vista ask`.
#[derive(Debug, clap::Args)]
pub struct AskArgs {
    /// The question.
    pub question: String,
    /// GGUF model file (default: the fetched SmolLM2, re-quantised to Q4_0 in the model
    /// cache on first use).
    #[arg(long, conflicts_with = "bundle")]
    pub model: Option<PathBuf>,
    /// A model bundle (`models/<name>` or its `bundle.toml`): its language model, and its
    /// vision projector for `--image`.
    #[arg(long)]
    pub bundle: Option<PathBuf>,
    /// A JPEG image to ask about (repeatable; needs a bundle with `lm.mmproj`).
    #[arg(long, requires = "bundle")]
    pub image: Vec<PathBuf>,
    /// A session folder (`recording.vrs`) or `.vrs` file to take an RGB frame from.
    #[arg(long, requires_all = ["bundle", "at"])]
    pub session: Option<PathBuf>,
    /// Seconds after the recording's first RGB frame (with `--session`).
    #[arg(long, requires = "session")]
    pub at: Option<f64>,
    /// Threads (no more than free cores: OpenMP waits actively).
    #[arg(long, default_value_t = 2)]
    pub threads: u32,
    /// Most tokens to generate (default: 128, or the bundle's `generation.max_tokens` when
    /// smaller).
    #[arg(long)]
    pub max_tokens: Option<u32>,
    /// System prompt (default: the wearable assistant's).
    #[arg(long)]
    pub system: Option<String>,
}

/// A JPEG file as RGB pixels: `(width, height, pixels)`.
pub fn read_jpeg_rgb(path: &Path) -> anyhow::Result<(u32, u32, Vec<u8>)> {
    let data = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let frame = ImageFrame {
        width: 0,
        height: 0,
        encoding: ImageEncoding::sniff(&data),
        data: data.into(),
        frame_number: 0,
        exposure_s: 0.0,
        gain: 0.0,
    };
    let img = decode_image(&frame).with_context(|| format!("decoding {}", path.display()))?;
    let rgb = to_rgb(img.channels, &img.pixels)?;
    Ok((img.width, img.height, rgb))
}

/// The RGB frame at `at_s` seconds after the first one in `session` (the first frame
/// captured at or after that time, else the last): `(capture_ns, width, height, pixels)`.
pub fn session_frame_rgb(session: &Path, at_s: f64) -> anyhow::Result<(i64, u32, u32, Vec<u8>)> {
    if !at_s.is_finite() || at_s < 0.0 {
        bail!("--at {at_s}: expected seconds >= 0");
    }
    let vrs = if session.is_dir() {
        session.join("recording.vrs")
    } else {
        session.to_path_buf()
    };
    let rec = AriaRecording::open(&vrs).with_context(|| format!("opening {}", vrs.display()))?;
    let mut first = None;
    let mut chosen: Option<(i64, ImageFrame)> = None;
    for item in rec.stream_samples(StreamId::CameraRgb) {
        let Ok((_, t, Payload::Image(frame))) = item else {
            continue;
        };
        let t0 = *first.get_or_insert(t.ns());
        let past = (t.ns() - t0) as f64 / 1e9 >= at_s;
        chosen = Some((t.ns(), frame));
        if past {
            break;
        }
    }
    let Some((capture, frame)) = chosen else {
        bail!("{}: no RGB camera frame", vrs.display());
    };
    let img = decode_image(&frame).context("decoding the RGB frame")?;
    let rgb = to_rgb(img.channels, &img.pixels)?;
    Ok((capture, img.width, img.height, rgb))
}

/// Runs `vista ask`.
pub fn run(args: AskArgs) -> anyhow::Result<()> {
    let bundle = match &args.bundle {
        Some(b) => Some(Bundle::load(b).with_context(|| format!("bundle {}", b.display()))?),
        None => None,
    };
    let path = match (&args.model, &bundle) {
        (Some(p), _) => p.clone(),
        (None, Some(b)) => b.lm.gguf.clone(),
        (None, None) => default_model_path(args.threads).context("default language model")?,
    };
    let max_tokens = args.max_tokens.unwrap_or_else(|| {
        bundle
            .as_ref()
            .map_or(128, |b| b.generation.max_tokens.min(128))
    });
    let mut engine = LmEngine::load(
        &path,
        &ContextConfig {
            threads: args.threads,
            ..ContextConfig::default()
        },
    )?;
    let mut images: Vec<Arc<ImageEmbedding>> = Vec::new();
    let mut question = args.question.clone();
    let mut placeholder = String::new();
    if !args.image.is_empty() || args.session.is_some() {
        let Some(b) = &bundle else {
            bail!("--image needs --bundle");
        };
        let Some(mmproj) = &b.lm.mmproj else {
            bail!(
                "bundle {} has no vision projector (lm.mmproj)",
                b.manifest.display()
            );
        };
        let mut enc = VisionEncoder::load(mmproj, engine.model(), args.threads, 8)?;
        let mut frames = Vec::new();
        for (i, file) in args.image.iter().enumerate() {
            let (w, h, rgb) = read_jpeg_rgb(file)?;
            frames.push((i as i64, file.display().to_string(), w, h, rgb));
        }
        if let (Some(s), Some(at)) = (&args.session, args.at) {
            let (t, w, h, rgb) = session_frame_rgb(s, at)?;
            frames.push((t, format!("{} RGB frame at {t} ns", s.display()), w, h, rgb));
        }
        for (capture, what, w, h, rgb) in &frames {
            let (w, h) = (*w, *h);
            let e = enc.embed_frame(
                *capture,
                &RgbImage {
                    width: w,
                    height: h,
                    pixels: rgb,
                },
            )?;
            eprintln!(
                "{what}: {w} x {h} px -> {} embeddings in {:.1} ms",
                e.n_rows(),
                e.encode_ns as f64 / 1e6
            );
            images.push(e);
        }
        placeholder = b.prompt.image_placeholder.clone();
        if !question.contains(&placeholder) {
            question = format!("{}\n{question}", placeholder.repeat(images.len()));
        }
    }
    let cancel = Arc::new(AtomicBool::new(false));
    {
        let c = Arc::clone(&cancel);
        // Ctrl-C stops generation between tokens; a second handler install failing is fine.
        let _ = ctrlc::set_handler(move || c.store(true, std::sync::atomic::Ordering::Relaxed));
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut write_ok = true;
    let mut on_text = |s: &str| {
        write_ok = out.write_all(s.as_bytes()).is_ok() && out.flush().is_ok();
        write_ok
    };
    let system = args.system.as_deref().unwrap_or(DEFAULT_SYSTEM_PROMPT);
    let st = if images.is_empty() {
        engine.chat(
            system,
            &question,
            GenOptions::new(max_tokens),
            &mut on_text,
            &cancel,
        )?
    } else {
        let refs: Vec<&ImageEmbedding> = images.iter().map(|e| e.as_ref()).collect();
        engine.chat_with_images(
            system,
            &question,
            &placeholder,
            &refs,
            GenOptions::new(max_tokens),
            &mut on_text,
            &cancel,
        )?
    };
    let _ = writeln!(std::io::stdout());
    report(engine.name(), &st);
    Ok(())
}

fn report(name: &str, st: &LmStats) {
    let gen_s = (st.total_ns - st.first_token_ns) as f64 / 1e9;
    let decodes = st.generated_tokens.saturating_sub(1);
    eprintln!(
        "{}: {} prompt tokens, first token {:.0} ms, {} tokens, {:.1} tok/s, stop: {:?}",
        name,
        st.prefill_tokens,
        st.first_token_ns as f64 / 1e6,
        st.generated_tokens,
        if gen_s > 0.0 {
            f64::from(decodes) / gen_s
        } else {
            0.0
        },
        st.stop
    );
}
