//! One question to the language model (`vista ask`): a GGUF file or a bundle's model, and,
//! with a bundle that has a vision projector, images (JPEG files, or a session's RGB frame
//! at a moment) put in at the bundle's image placeholder: where the question has
//! placeholders, there; else all images before the question. The answer streams to a writer
//! as it is generated.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use crate::aria::recording::{decode_image, AriaRecording, RecordingError};
use crate::infer::bundle::{Bundle, BundleError};
use crate::infer::llm::{
    default_model_path, vision::to_rgb, ContextConfig, GenOptions, ImageEmbedding, LmEngine,
    LmError, LmStats, RgbImage, VisionEncoder, DEFAULT_SYSTEM_PROMPT,
};
use crate::sample::{ImageFrame, Payload, StreamId};

/// The question, the model, and the images.
#[derive(Clone, Debug, PartialEq)]
pub struct AskOptions {
    /// The question.
    pub question: String,
    /// GGUF model file (default: the bundle's, else the fetched SmolLM2, re-quantised to
    /// Q4_0 in the model cache on first use).
    pub model: Option<PathBuf>,
    /// A model bundle (`models/<name>` or its `bundle.toml`).
    pub bundle: Option<PathBuf>,
    /// JPEG images to ask about (need a bundle with a vision projector).
    pub images: Vec<PathBuf>,
    /// A session folder or `.vrs` file and the seconds after its first RGB frame to take a
    /// frame from.
    pub session_frame: Option<(PathBuf, f64)>,
    /// Threads.
    pub threads: u32,
    /// Most tokens to generate (default: 128, or the bundle's `generation.max_tokens` when
    /// smaller).
    pub max_tokens: Option<u32>,
    /// System prompt (default: the wearable assistant's).
    pub system: Option<String>,
}

/// What can go wrong asking.
#[derive(Debug, thiserror::Error)]
pub enum AskError {
    /// The bundle could not be loaded.
    #[error("bundle {path}", path = path.display())]
    Bundle {
        /// The bundle.
        path: PathBuf,
        /// What went wrong.
        #[source]
        source: BundleError,
    },
    /// The default model is not available.
    #[error("default language model")]
    DefaultModel(#[source] LmError),
    /// Images without a bundle.
    #[error("--image needs --bundle")]
    NeedsBundle,
    /// Images with a bundle that has no vision projector.
    #[error("bundle {manifest} has no vision projector (lm.mmproj)", manifest = manifest.display())]
    NoProjector {
        /// The bundle's manifest.
        manifest: PathBuf,
    },
    /// An image file could not be read.
    #[error("reading {path}", path = path.display())]
    ReadImage {
        /// The file.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// An image file could not be decoded.
    #[error("decoding {path}", path = path.display())]
    DecodeImage {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        #[source]
        source: Box<RecordingError>,
    },
    /// The moment is not a number of seconds.
    #[error("--at {0}: expected seconds >= 0")]
    At(f64),
    /// The recording could not be opened.
    #[error("opening {path}", path = path.display())]
    OpenRecording {
        /// The recording.
        path: PathBuf,
        /// What went wrong.
        #[source]
        source: Box<RecordingError>,
    },
    /// The recording has no RGB frame.
    #[error("{path}: no RGB camera frame", path = path.display())]
    NoRgbFrame {
        /// The recording.
        path: PathBuf,
    },
    /// The RGB frame could not be decoded.
    #[error("decoding the RGB frame")]
    DecodeFrame(#[source] RecordingError),
    /// The language model or the vision encoder failed.
    #[error(transparent)]
    Lm(#[from] LmError),
}

/// An image embedded for the question.
#[derive(Clone, Debug, PartialEq)]
pub struct EmbeddedImage {
    /// What it is (the file, or the session's frame).
    pub what: String,
    /// Width, px.
    pub width: u32,
    /// Height, px.
    pub height: u32,
    /// Embedding rows.
    pub rows: usize,
    /// Encode time, ms.
    pub encode_ms: f64,
}

/// What answering took.
#[derive(Clone, Debug)]
pub struct AskOutcome {
    /// The model's name.
    pub model: String,
    /// Its statistics.
    pub stats: LmStats,
}

/// A JPEG file as RGB pixels: `(width, height, pixels)`.
pub fn read_jpeg_rgb(path: &Path) -> Result<(u32, u32, Vec<u8>), AskError> {
    let data = std::fs::read(path).map_err(|source| AskError::ReadImage {
        path: path.to_path_buf(),
        source,
    })?;
    let frame = ImageFrame::still(data);
    let img = decode_image(&frame).map_err(|e| AskError::DecodeImage {
        path: path.to_path_buf(),
        source: Box::new(e),
    })?;
    let rgb = to_rgb(img.channels, &img.pixels)?;
    Ok((img.width, img.height, rgb))
}

/// The RGB frame at `at_s` seconds after the first one in `session` (the first frame
/// captured at or after that time, else the last): `(capture_ns, width, height, pixels)`.
pub fn session_frame_rgb(session: &Path, at_s: f64) -> Result<(i64, u32, u32, Vec<u8>), AskError> {
    if !at_s.is_finite() || at_s < 0.0 {
        return Err(AskError::At(at_s));
    }
    let vrs = if session.is_dir() {
        session.join("recording.vrs")
    } else {
        session.to_path_buf()
    };
    let rec = AriaRecording::open(&vrs).map_err(|e| AskError::OpenRecording {
        path: vrs.clone(),
        source: Box::new(e),
    })?;
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
        return Err(AskError::NoRgbFrame { path: vrs });
    };
    let img = decode_image(&frame).map_err(AskError::DecodeFrame)?;
    let rgb = to_rgb(img.channels, &img.pixels)?;
    Ok((capture, img.width, img.height, rgb))
}

/// A question ready to answer: the model loaded, the images embedded.
pub struct PreparedQuestion {
    engine: LmEngine,
    images: Vec<Arc<ImageEmbedding>>,
    question: String,
    placeholder: String,
    max_tokens: u32,
    system: String,
}

impl std::fmt::Debug for PreparedQuestion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PreparedQuestion")
            .field("model", &self.engine.name())
            .field("images", &self.images.len())
            .field("question", &self.question)
            .field("max_tokens", &self.max_tokens)
            .finish()
    }
}

/// Loads the model for `options` and embeds its images; `on_image` hears of each image
/// once it is embedded.
pub fn prepare(
    options: &AskOptions,
    on_image: &mut dyn FnMut(&EmbeddedImage),
) -> Result<PreparedQuestion, AskError> {
    let bundle = match &options.bundle {
        Some(b) => Some(Bundle::load(b).map_err(|source| AskError::Bundle {
            path: b.clone(),
            source,
        })?),
        None => None,
    };
    let path = match (&options.model, &bundle) {
        (Some(p), _) => p.clone(),
        (None, Some(b)) => b.lm.gguf.clone(),
        (None, None) => default_model_path(options.threads).map_err(AskError::DefaultModel)?,
    };
    let max_tokens = options.max_tokens.unwrap_or_else(|| {
        bundle
            .as_ref()
            .map_or(128, |b| b.generation.max_tokens.min(128))
    });
    let engine = LmEngine::load(
        &path,
        &ContextConfig {
            threads: options.threads,
            ..ContextConfig::default()
        },
    )?;
    let mut images: Vec<Arc<ImageEmbedding>> = Vec::new();
    let mut question = options.question.clone();
    let mut placeholder = String::new();
    if !options.images.is_empty() || options.session_frame.is_some() {
        let Some(b) = &bundle else {
            return Err(AskError::NeedsBundle);
        };
        let Some(mmproj) = &b.lm.mmproj else {
            return Err(AskError::NoProjector {
                manifest: b.manifest.clone(),
            });
        };
        let mut enc = VisionEncoder::load(mmproj, engine.model(), options.threads, 8)?;
        let mut frames = Vec::new();
        for (i, file) in options.images.iter().enumerate() {
            let (w, h, rgb) = read_jpeg_rgb(file)?;
            frames.push((i as i64, file.display().to_string(), w, h, rgb));
        }
        if let Some((s, at)) = &options.session_frame {
            let (t, w, h, rgb) = session_frame_rgb(s, *at)?;
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
            on_image(&EmbeddedImage {
                what: what.clone(),
                width: w,
                height: h,
                rows: e.n_rows(),
                encode_ms: e.encode_ns as f64 / 1e6,
            });
            images.push(e);
        }
        placeholder = b.prompt.image_placeholder.clone();
        if !question.contains(&placeholder) {
            question = format!("{}\n{question}", placeholder.repeat(images.len()));
        }
    }
    Ok(PreparedQuestion {
        engine,
        images,
        question,
        placeholder,
        max_tokens,
        system: options
            .system
            .clone()
            .unwrap_or_else(|| DEFAULT_SYSTEM_PROMPT.to_string()),
    })
}

impl PreparedQuestion {
    /// Answers, writing the answer to `out` as it is generated (and flushing it); `cancel`
    /// stops generation between tokens, and so does an `out` that cannot be written.
    pub fn answer(
        mut self,
        out: &mut dyn Write,
        cancel: &AtomicBool,
    ) -> Result<AskOutcome, AskError> {
        let mut on_text = |s: &str| out.write_all(s.as_bytes()).is_ok() && out.flush().is_ok();
        let opts = GenOptions::new(self.max_tokens);
        let stats = if self.images.is_empty() {
            self.engine
                .chat(&self.system, &self.question, opts, &mut on_text, cancel)?
        } else {
            let refs: Vec<&ImageEmbedding> = self.images.iter().map(|e| e.as_ref()).collect();
            self.engine.chat_with_images(
                &self.system,
                &self.question,
                &self.placeholder,
                &refs,
                opts,
                &mut on_text,
                cancel,
            )?
        };
        Ok(AskOutcome {
            model: self.engine.name().to_string(),
            stats,
        })
    }
}
