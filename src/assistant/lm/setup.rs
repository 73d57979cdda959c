//! Choosing the assistant's language model for a run: SmolLM2 from the model cache by
//! default (when vista is built with the cargo feature `llm` and the file is there), a GGUF
//! named on the command line, a model bundle (`--bundle DIR`: its GGUF and, when it has
//! them, its sensor-fusion network and vision projector, see [`super::bundle`] and
//! [`super::vision`]), or none (`--no-lm`). A default
//! model that is missing or corrupt leaves the run on the grounded templates with one clear
//! warning; a model or bundle the user named explicitly that fails to load is an error.
//! llama.cpp's thread count follows [`ThreadPolicy`] (from the load by default).

use std::path::PathBuf;

use super::threads::ThreadPolicy;
use crate::state::{Generator, PerceptionSink};

/// Which language model answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LmChoice {
    /// None: templates only.
    Off,
    /// SmolLM2 from the model cache, when present.
    Default,
    /// This GGUF file.
    Path(PathBuf),
    /// This model bundle (folder with `bundle.toml`, or the manifest).
    Bundle(PathBuf),
}

impl LmChoice {
    /// From the command line: `--lm GGUF|default` and `--no-lm` (which wins).
    pub fn from_args(lm: Option<&str>, no_lm: bool) -> Self {
        match (no_lm, lm) {
            (true, _) => LmChoice::Off,
            (false, None) | (false, Some("default")) => LmChoice::Default,
            (false, Some(p)) => LmChoice::Path(PathBuf::from(p)),
        }
    }

    /// [`Self::from_args`] with `--bundle DIR`, which replaces `--lm` (`--no-lm` still
    /// wins).
    pub fn from_args_with_bundle(lm: Option<&str>, no_lm: bool, bundle: Option<&str>) -> Self {
        match (no_lm, bundle) {
            (false, Some(b)) => LmChoice::Bundle(PathBuf::from(b)),
            _ => Self::from_args(lm, no_lm),
        }
    }
}

/// A named model could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LmSetupError {
    /// Loading failed.
    #[error("language model {path}: {message}")]
    Load {
        /// The file.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// This vista has no language model.
    #[error("--lm {path}: this vista was built without the language model (cargo feature `llm`)")]
    NotBuilt {
        /// The file asked for.
        path: PathBuf,
    },
    /// A bundle could not be used.
    #[cfg(feature = "llm")]
    #[error(transparent)]
    Bundle(#[from] super::bundle::BundleLmError),
}

/// The language model of a run.
pub struct LmSetup {
    /// The assistant's generator (`None`: templates).
    pub generator: Option<Box<dyn Generator>>,
    /// The prefill ahead of requests (real time only; `None` in lock-step replay).
    #[cfg(feature = "llm")]
    pub prefill: Option<super::prefill::LmPrefill>,
    /// With a bundle's fusion network: the window that runs it (make it a consumer of the
    /// run with [`super::bundle::FusionWindow::into_consumer`]).
    #[cfg(feature = "llm")]
    pub window: Option<super::bundle::FusionWindow>,
    /// With a bundle's vision projector: the camera side (its consumer, taken by the run
    /// with [`super::vision::VisionParts::take_consumer`], and its counters).
    #[cfg(feature = "llm")]
    pub vision: Option<super::vision::VisionParts>,
    /// Why the run has no model although one was wanted (warned once), if so.
    pub note: Option<String>,
    /// What the run's notes should say about the model (threads, bundle).
    pub notes: Vec<String>,
}

impl std::fmt::Debug for LmSetup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LmSetup")
            .field(
                "generator",
                &self.generator.as_ref().map(|g| g.name().to_string()),
            )
            .field("note", &self.note)
            .finish()
    }
}

impl LmSetup {
    fn none(note: Option<String>) -> Self {
        Self {
            generator: None,
            #[cfg(feature = "llm")]
            prefill: None,
            #[cfg(feature = "llm")]
            window: None,
            #[cfg(feature = "llm")]
            vision: None,
            note,
            notes: Vec::new(),
        }
    }

    /// Wraps the assistant's perception sink so states reach the prefill (unchanged when
    /// there is none).
    pub fn wrap_sink<S: PerceptionSink + 'static>(&self, inner: S) -> Box<dyn PerceptionSink> {
        #[cfg(feature = "llm")]
        if let Some(v) = &self.vision {
            return match &self.prefill {
                Some(p) => Box::new(v.sink(p.sink(inner))),
                None => Box::new(v.sink(inner)),
            };
        }
        #[cfg(feature = "llm")]
        if let Some(p) = &self.prefill {
            return Box::new(p.sink(inner));
        }
        Box::new(inner)
    }

    /// Spaces or pauses the prefill ahead of requests by `dial` (the CPU budget's).
    pub fn follow_budget(&self, dial: &crate::budget::RateDial) {
        #[cfg(feature = "llm")]
        if let Some(p) = &self.prefill {
            p.follow(dial.clone());
        }
        #[cfg(not(feature = "llm"))]
        let _ = dial;
    }

    /// The images' counters and encode times (`None` without a vision projector).
    #[cfg(feature = "llm")]
    pub fn vision_report(&self) -> Option<super::vision::VisionReport> {
        self.vision.as_ref().map(|v| v.report())
    }
}

/// Loads the model `choice` names with automatic threads; `real_time` turns on the prefill
/// ahead of requests (in lock-step replay the engine answers directly, deterministically).
pub fn load_lm(choice: &LmChoice, real_time: bool) -> Result<LmSetup, LmSetupError> {
    load_lm_with(choice, real_time, ThreadPolicy::Auto)
}

/// [`load_lm`] with llama.cpp threads chosen by `threads`.
pub fn load_lm_with(
    choice: &LmChoice,
    real_time: bool,
    threads: ThreadPolicy,
) -> Result<LmSetup, LmSetupError> {
    let mut setup = match choice {
        LmChoice::Off => return Ok(LmSetup::none(None)),
        LmChoice::Default => load_default(real_time, threads),
        LmChoice::Path(p) => load_path(p, real_time, threads)?,
        LmChoice::Bundle(b) => load_bundle_choice(b, real_time, threads)?,
    };
    if setup.generator.is_some() {
        setup.notes.push(format!(
            "language model threads: {} (each decision records its count)",
            threads.describe()
        ));
    }
    Ok(setup)
}

#[cfg(feature = "llm")]
fn with_engine(
    engine: crate::infer::llm::LmEngine,
    real_time: bool,
    threads: ThreadPolicy,
) -> Result<LmSetup, String> {
    if real_time {
        let p = super::prefill::LmPrefill::start_with(engine, Default::default(), threads)
            .map_err(|e| format!("starting the prefill thread: {e}"))?;
        Ok(LmSetup {
            generator: Some(p.generator()),
            prefill: Some(p),
            ..LmSetup::none(None)
        })
    } else {
        let mut engine = engine;
        engine.set_threads(threads.threads());
        Ok(LmSetup {
            generator: Some(Box::new(engine)),
            ..LmSetup::none(None)
        })
    }
}

#[cfg(feature = "llm")]
fn start(
    path: &std::path::Path,
    real_time: bool,
    threads: ThreadPolicy,
) -> Result<LmSetup, String> {
    use crate::infer::llm::{ContextConfig, LmEngine};
    let engine = LmEngine::load(path, &ContextConfig::default()).map_err(|e| e.to_string())?;
    log::info!("language model: {}", path.display());
    with_engine(engine, real_time, threads)
}

/// The prefill thread for a bundle's prompt layout (`gguf`: named in the error).
#[cfg(feature = "llm")]
fn start_layout_prefill(
    engine: crate::infer::llm::LmEngine,
    layout: std::sync::Arc<dyn super::prefill::PromptLayout>,
    threads: ThreadPolicy,
    gguf: &std::path::Path,
) -> Result<super::prefill::LmPrefill, LmSetupError> {
    super::prefill::LmPrefill::start_with_layout(engine, layout, Default::default(), threads)
        .map_err(|e| LmSetupError::Load {
            path: gguf.to_path_buf(),
            message: format!("starting the prefill thread: {e}"),
        })
}

#[cfg(feature = "llm")]
fn load_bundle_choice(
    dir: &std::path::Path,
    real_time: bool,
    threads: ThreadPolicy,
) -> Result<LmSetup, LmSetupError> {
    let b = super::bundle::load_bundle(dir, threads)?;
    let gguf = b.bundle.lm.gguf.clone();
    let image_placeholder = b.bundle.prompt.image_placeholder.clone();
    let mut setup = match (b.engine, b.sensor, b.vision) {
        (engine, sensor, Some(encoder)) => {
            let (engine, sensor, window) = match (engine, sensor) {
                (_, Some(s)) => {
                    let (engine, cache, placeholder) = s.generator.into_parts();
                    (engine, Some((cache, placeholder)), Some(s.window))
                }
                (Some(engine), None) => (engine, None, None),
                (None, None) => {
                    return Err(LmSetupError::Load {
                        path: gguf,
                        message: "the bundle loaded no language model".into(),
                    })
                }
            };
            let parts = super::vision::VisionParts::new(encoder);
            let generator = super::vision::VisionGenerator::new(
                engine,
                parts.shared(),
                &image_placeholder,
                sensor,
                !real_time,
            )
            .with_threads(threads);
            if real_time {
                // The frame, the sensor tokens and the state prefilled ahead of requests.
                let (engine, layout) = generator.into_parts();
                let p = start_layout_prefill(engine, layout, threads, &gguf)?;
                LmSetup {
                    generator: Some(p.generator()),
                    prefill: Some(p),
                    window,
                    vision: Some(parts),
                    ..LmSetup::none(None)
                }
            } else {
                LmSetup {
                    generator: Some(Box::new(generator)),
                    window,
                    vision: Some(parts),
                    ..LmSetup::none(None)
                }
            }
        }
        (_, Some(sensor), None) if real_time => {
            // The sensor tokens and the state prefilled ahead of requests.
            let (engine, cache, placeholder) = sensor.generator.into_parts();
            let layout = std::sync::Arc::new(super::layout::BundleLayout::sensor_only((
                cache,
                placeholder,
            )));
            let p = start_layout_prefill(engine, layout, threads, &gguf)?;
            LmSetup {
                generator: Some(p.generator()),
                prefill: Some(p),
                window: Some(sensor.window),
                ..LmSetup::none(None)
            }
        }
        (_, Some(sensor), None) => LmSetup {
            generator: Some(Box::new(sensor.generator)),
            window: Some(sensor.window),
            ..LmSetup::none(None)
        },
        (Some(engine), None, None) => {
            with_engine(engine, real_time, threads).map_err(|message| LmSetupError::Load {
                path: gguf,
                message,
            })?
        }
        (None, None, None) => LmSetup::none(None),
    };
    setup.notes.extend(b.notes);
    Ok(setup)
}

#[cfg(not(feature = "llm"))]
fn load_bundle_choice(
    dir: &std::path::Path,
    _real_time: bool,
    _threads: ThreadPolicy,
) -> Result<LmSetup, LmSetupError> {
    Err(LmSetupError::NotBuilt {
        path: dir.to_path_buf(),
    })
}

#[cfg(feature = "llm")]
fn load_default(real_time: bool, threads: ThreadPolicy) -> LmSetup {
    let path = crate::infer::llm::fetched_model_path();
    if !path.is_file() {
        let note = format!(
            "language model {} not found (run models/fetch); answering with templates",
            path.display()
        );
        log::warn!("{note}");
        return LmSetup::none(Some(note));
    }
    match start(&path, real_time, threads) {
        Ok(s) => s,
        Err(e) => {
            let note = format!("language model unusable ({e}); answering with templates");
            log::warn!("{note}");
            LmSetup::none(Some(note))
        }
    }
}

#[cfg(feature = "llm")]
fn load_path(
    path: &std::path::Path,
    real_time: bool,
    threads: ThreadPolicy,
) -> Result<LmSetup, LmSetupError> {
    start(path, real_time, threads).map_err(|message| LmSetupError::Load {
        path: path.to_path_buf(),
        message,
    })
}

#[cfg(not(feature = "llm"))]
fn load_default(_real_time: bool, _threads: ThreadPolicy) -> LmSetup {
    log::info!("built without the language model (cargo feature `llm`): templates answer");
    LmSetup::none(None)
}

#[cfg(not(feature = "llm"))]
fn load_path(
    path: &std::path::Path,
    _real_time: bool,
    _threads: ThreadPolicy,
) -> Result<LmSetup, LmSetupError> {
    Err(LmSetupError::NotBuilt {
        path: path.to_path_buf(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn choice_from_arguments() {
        assert_eq!(LmChoice::from_args(None, false), LmChoice::Default);
        assert_eq!(
            LmChoice::from_args(Some("default"), false),
            LmChoice::Default
        );
        assert_eq!(
            LmChoice::from_args(Some("/m/x.gguf"), false),
            LmChoice::Path(PathBuf::from("/m/x.gguf"))
        );
        assert_eq!(LmChoice::from_args(Some("/m/x.gguf"), true), LmChoice::Off);
        assert_eq!(LmChoice::from_args(None, true), LmChoice::Off);
        assert_eq!(
            LmChoice::from_args_with_bundle(None, false, Some("models/x")),
            LmChoice::Bundle(PathBuf::from("models/x"))
        );
        assert_eq!(
            LmChoice::from_args_with_bundle(None, true, Some("models/x")),
            LmChoice::Off
        );
        assert_eq!(
            LmChoice::from_args_with_bundle(Some("a.gguf"), false, None),
            LmChoice::Path(PathBuf::from("a.gguf"))
        );
    }

    #[test]
    fn a_missing_bundle_is_an_error_naming_it() {
        let r = load_lm(
            &LmChoice::Bundle(PathBuf::from("/nonexistent/bundle")),
            false,
        );
        let e = r.expect_err("no bundle there").to_string();
        assert!(e.contains("/nonexistent/bundle"), "{e}");
    }

    #[test]
    fn off_loads_nothing() {
        let s = load_lm(&LmChoice::Off, true).unwrap();
        assert!(s.generator.is_none() && s.note.is_none());
    }

    #[test]
    fn a_named_missing_file_is_an_error() {
        let r = load_lm(&LmChoice::Path(PathBuf::from("/nonexistent/x.gguf")), false);
        assert!(r.is_err());
    }
}
