//! A model bundle (`--bundle DIR`, [`crate::infer::bundle`]) as the assistant's language
//! model: the bundle's GGUF and, when it has one, its sensor-fusion network, so that sensor
//! tokens reach the prompts end to end. The fusion network runs on every window update
//! (a window consumer of its own, 10 Hz, normalised with the bundle's statistics) and the
//! [`SensorGenerator`] decodes its newest output at the prompt's sensor placeholder.
//!
//! With a vision projector (`lm.mmproj`) the camera's frames reach the answers too
//! ([`super::vision`]).
//!
//! Everything a bundle promises is checked when it is loaded, before the run starts: the
//! manifest ([`Bundle::load`]), the projector (its file, and its output width against the
//! language model's), the fusion network's token width against the language
//! model's embedding width read from the GGUF (an error naming both numbers), the window
//! shape the network was trained on, and the network's input/output contract.
//!
//! The network's question input is the pooled embedding of the request in the VISTA
//! paper; requests are not known when the window updates, so a standing question is used,
//! and — until a trained network and its standing question ship in a bundle — that
//! embedding is zeros (documented in the run's notes).

use std::path::{Path, PathBuf};

use super::sensor::{window_sink, SensorFusion, SensorGenerator, SensorTokenCache};
use super::threads::ThreadPolicy;
use super::vision::{ENCODER_CACHE_FRAMES, ENCODER_THREADS, IMAGE_EVERY_NS, IMAGE_MAX_AGE_NS};
use crate::aria::calib::DeviceCalibration;
use crate::infer::bundle::{Bundle, BundleError};
use crate::infer::fusion::FusionModel;
use crate::infer::llm::{ContextConfig, LmEngine, VisionEncoder};
use crate::infer::ort_engine::OrtOptions;
use crate::window::spec::BINS;
use crate::window::{
    NormStats, Rectifiers, WindowBuilder, WindowConfig, WindowConsumer, WindowSink,
};

/// Window updates (and fusion runs) every this many device ns.
pub const FUSION_UPDATE_NS: i64 = 100_000_000;

/// A bundle could not be used.
#[derive(Debug, thiserror::Error)]
pub enum BundleLmError {
    /// The manifest, a file it names, or a width or shape check failed.
    #[error("--bundle: {0}")]
    Bundle(#[from] BundleError),
    /// The language model would not load.
    #[error("--bundle {manifest}: language model {gguf}: {message}")]
    Lm {
        /// The manifest.
        manifest: PathBuf,
        /// The GGUF.
        gguf: PathBuf,
        /// Why.
        message: String,
    },
    /// The vision projector would not load or does not fit the language model.
    #[error("--bundle {manifest}: vision projector {mmproj}: {message}")]
    Vision {
        /// The manifest.
        manifest: PathBuf,
        /// The projector.
        mmproj: PathBuf,
        /// Why.
        message: String,
    },
    /// The fusion network (or ONNX Runtime, or the window it reads) would not load.
    #[error("--bundle {manifest}: fusion network {onnx}: {message}")]
    Fusion {
        /// The manifest.
        manifest: PathBuf,
        /// The ONNX file.
        onnx: PathBuf,
        /// Why.
        message: String,
    },
}

/// A loaded bundle, ready for a run.
pub struct BundleLm {
    /// The bundle.
    pub bundle: Bundle,
    /// The language model alone (no fusion network): the caller adds the prefill.
    pub engine: Option<LmEngine>,
    /// With a fusion network: the generator that decodes sensor tokens.
    pub sensor: Option<SensorParts>,
    /// With a vision projector: its encoder, loaded over the language model and checked.
    pub vision: Option<VisionEncoder>,
    /// What the run's notes should say about the bundle.
    pub notes: Vec<String>,
}

/// The sensor-token side of a bundle with a fusion network.
pub struct SensorParts {
    /// The assistant's generator.
    pub generator: SensorGenerator,
    /// The window that feeds the fusion network (made into a consumer once the run's
    /// calibration is known).
    pub window: FusionWindow,
    /// The fusion outputs (newest), shared with the generator.
    pub cache: SensorTokenCache,
}

/// The sensor window running the fusion network on every update, before the run's
/// calibration is known.
pub struct FusionWindow {
    builder: WindowBuilder,
    sink: WindowSink,
    /// Whether the network's statistics were computed on rectified samples.
    rectified: bool,
}

impl FusionWindow {
    /// The window consumer for a run: samples rectified with `calibration` when the
    /// network's statistics were computed on rectified samples (a note says so when there
    /// is no calibration to do it with).
    pub fn into_consumer(
        self,
        calibration: Option<&DeviceCalibration>,
    ) -> (WindowConsumer, Option<String>) {
        let mut note = None;
        let builder = match (self.rectified, calibration) {
            (true, Some(c)) => self
                .builder
                .with_rectifiers(Rectifiers::from_calibration(c)),
            (true, None) => {
                note = Some(
                    "fusion network: its statistics are of rectified samples but the run has \
                     no calibration: sensor samples stay raw"
                        .to_string(),
                );
                self.builder
            }
            (false, _) => self.builder,
        };
        (
            WindowConsumer::new(builder, FUSION_UPDATE_NS, self.sink),
            note,
        )
    }
}

impl std::fmt::Debug for BundleLm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BundleLm")
            .field("bundle", &self.bundle.name)
            .field("sensor", &self.sensor.is_some())
            .field("vision", &self.vision.is_some())
            .field("notes", &self.notes)
            .finish()
    }
}

/// Loads and checks the bundle at `dir` (a folder with `bundle.toml`, or the manifest).
pub fn load_bundle(dir: &Path, threads: ThreadPolicy) -> Result<BundleLm, BundleLmError> {
    let bundle = Bundle::load(dir)?;
    let manifest = bundle.manifest.clone();
    let mut notes = Vec::new();
    if bundle.lm.chat_template.is_some() {
        notes.push(format!(
            "bundle {}: its chat template override is not used (the GGUF's own template is)",
            bundle.name
        ));
    }
    let engine = LmEngine::load(&bundle.lm.gguf, &ContextConfig::default()).map_err(|e| {
        BundleLmError::Lm {
            manifest: manifest.clone(),
            gguf: bundle.lm.gguf.clone(),
            message: e.to_string(),
        }
    })?;
    bundle.check_fusion_width(engine.model().n_embd())?;
    let vision = match &bundle.lm.mmproj {
        Some(mmproj) => {
            let enc = VisionEncoder::load(
                mmproj,
                engine.model(),
                ENCODER_THREADS,
                ENCODER_CACHE_FRAMES,
            )
            .map_err(|e| BundleLmError::Vision {
                manifest: manifest.clone(),
                mmproj: mmproj.clone(),
                message: e.to_string(),
            })?;
            notes.push(format!(
                "bundle {}: vision projector {} ({} px images): scene and question answers see \
                 the newest RGB frame when it is at most {} ms older than the state (else the \
                 text alone); frames encoded at most every {} ms, newest first; no prefill \
                 thread ahead of requests with a projector yet",
                bundle.name,
                mmproj.display(),
                enc.summary().image_size,
                IMAGE_MAX_AGE_NS / 1_000_000,
                IMAGE_EVERY_NS / 1_000_000,
            ));
            Some(enc)
        }
        None => None,
    };
    let Some(spec) = bundle.fusion.clone() else {
        log::info!(
            "bundle {}: language model {}, no fusion network",
            bundle.name,
            bundle.lm.gguf.display()
        );
        return Ok(BundleLm {
            bundle,
            engine: Some(engine),
            sensor: None,
            vision,
            notes,
        });
    };
    let fusion_err = |message: String| BundleLmError::Fusion {
        manifest: manifest.clone(),
        onnx: spec.onnx.clone(),
        message,
    };
    let config = WindowConfig::default();
    bundle.check_window(BINS, &config)?;
    let stats = NormStats::load(&spec.norm_stats).map_err(|e| fusion_err(e.to_string()))?;
    let builder = WindowBuilder::new(config)
        .and_then(|b| b.with_norm(&stats))
        .map_err(|e| fusion_err(format!("the sensor window: {e}")))?;
    crate::infer::init_ort().map_err(|e| fusion_err(format!("ONNX Runtime: {e}")))?;
    let model = FusionModel::load_ort(&spec.onnx, spec.shape(), OrtOptions::default())
        .map_err(|e| fusion_err(e.to_string()))?;
    let fusion = SensorFusion::new(model, vec![0.0; spec.width]);
    let cache = fusion.cache();
    let window = FusionWindow {
        builder,
        sink: window_sink(fusion),
        rectified: stats.rectified.unwrap_or(false),
    };
    let generator = SensorGenerator::new(engine, cache.clone(), &bundle.prompt.sensor_placeholder)
        .with_threads(threads);
    notes.push(format!(
        "bundle {}: {} sensor tokens of {} from {} on every window update (question input: \
         zeros, no trained standing question yet)",
        bundle.name,
        spec.n_tokens,
        spec.width,
        spec.onnx.display()
    ));
    log::info!(
        "bundle {}: language model {}, fusion network {} ({} × {})",
        bundle.name,
        bundle.lm.gguf.display(),
        spec.onnx.display(),
        spec.n_tokens,
        spec.width
    );
    Ok(BundleLm {
        bundle,
        engine: None,
        sensor: Some(SensorParts {
            generator,
            window,
            cache,
        }),
        vision,
        notes,
    })
}
