//! Model bundles: `models/<name>/bundle.toml` names what one assistant model needs — the
//! language model (GGUF, optional vision projector), the optional sensor-fusion network
//! (ONNX, its precision, token count and width), the normalisation statistics, the chat
//! template override, the prompt's placeholder strings and the generation settings.
//!
//! A path is relative to the bundle folder, or to the model cache ([`models_dir`]) when it
//! starts with `cache:` (`cache:smollm2/SmolLM2-135M-Instruct.Q4_1.gguf`); absolute paths
//! are taken as they are. [`Bundle::load`] checks every field and that every named file
//! exists; each error names the manifest and the field. Format: `models/default/README.md`.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::infer::fusion::FusionShape;
use crate::infer::model_paths::models_dir;
use crate::window::config::WindowConfig;
use crate::window::norm::NormStats;
use crate::window::spec::BINS;

/// The `format` this build reads.
pub const BUNDLE_FORMAT: &str = "vista-bundle/1";

/// The prefix of a path inside the model cache.
pub const CACHE_PREFIX: &str = "cache:";

/// Default maximum answer length (the paper's evaluation setting).
pub const DEFAULT_MAX_TOKENS: u32 = 4096;

/// Stage-1 sensor token count (the 8 shared bottleneck tokens).
pub const STAGE1_TOKENS: usize = 8;
/// Stage-2 sensor token count (8 shared + 4 readout tokens for each of 5 streams).
pub const STAGE2_TOKENS: usize = 28;

/// A bundle could not be used.
#[derive(Debug, thiserror::Error)]
pub enum BundleError {
    /// The manifest could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The manifest.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The manifest is not valid TOML or has unknown or mistyped fields.
    #[error("{path}:{line}:{column}: {message}")]
    Parse {
        /// The manifest.
        path: PathBuf,
        /// 1-based line (0 when unknown).
        line: usize,
        /// 1-based column (0 when unknown).
        column: usize,
        /// What the parser said.
        message: String,
    },
    /// A field has a value this build does not accept.
    #[error("{path}: `{field}`: {reason}")]
    Invalid {
        /// The manifest.
        path: PathBuf,
        /// Dotted field name (`fusion.precision`).
        field: &'static str,
        /// What is wrong.
        reason: String,
    },
    /// A file the manifest names is not there.
    #[error("{path}: `{field}` names {file}, which does not exist")]
    MissingFile {
        /// The manifest.
        path: PathBuf,
        /// Dotted field name.
        field: &'static str,
        /// The resolved file.
        file: PathBuf,
    },
    /// The normalisation statistics file is unusable.
    #[error("{path}: `fusion.norm_stats`: {message}")]
    NormStats {
        /// The manifest.
        path: PathBuf,
        /// What is wrong (names the statistics file).
        message: String,
    },
    /// The fusion network's output width is not the language model's embedding width.
    #[error("{path}: the fusion network emits {fusion_width}-wide tokens but the language model's embedding width is {lm_width}")]
    FusionWidth {
        /// The manifest.
        path: PathBuf,
        /// `fusion.width`.
        fusion_width: usize,
        /// The language model's embedding width.
        lm_width: usize,
    },
    /// The fusion network expects windows of another shape than the runtime builds.
    #[error(
        "{path}: the fusion network expects {what} {bundle}, the runtime's window has {runtime}"
    )]
    WindowShape {
        /// The manifest.
        path: PathBuf,
        /// `bins` or `bin width (ns)`.
        what: &'static str,
        /// The bundle's value.
        bundle: i64,
        /// The runtime's value.
        runtime: i64,
    },
}

/// Weight precision of the fusion network file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Precision {
    /// 32-bit float weights.
    Fp32,
    /// int8 weights (dynamic quantisation: activations quantised at run time).
    Int8,
}

/// The language model.
#[derive(Clone, Debug, PartialEq)]
pub struct LmSpec {
    /// The GGUF file.
    pub gguf: PathBuf,
    /// The vision projector (llama.cpp `mmproj` GGUF), if any.
    pub mmproj: Option<PathBuf>,
    /// The embedding width, when the manifest states it (checked against the fusion width).
    pub embedding_width: Option<usize>,
    /// A chat template (Jinja) replacing the GGUF's own, if any.
    pub chat_template: Option<PathBuf>,
}

/// The sensor-fusion network.
#[derive(Clone, Debug, PartialEq)]
pub struct FusionSpec {
    /// The ONNX file.
    pub onnx: PathBuf,
    /// Its weight precision.
    pub precision: Precision,
    /// Tokens it emits: 8 (stage 1) or 28 (stage 2).
    pub n_tokens: usize,
    /// Width of each token (must equal the language model's embedding width).
    pub width: usize,
    /// Width of the frozen IMU encoder's embedding input.
    pub imu_embed_dim: usize,
    /// The normalisation statistics the network was trained with.
    pub norm_stats: PathBuf,
    /// Bins per window (64).
    pub bins: usize,
    /// Bin width, ns (from the statistics file, which records it).
    pub bin_ns: i64,
}

impl FusionSpec {
    /// The I/O contract sizes of this network (the question embedding is the language
    /// model's pooled input embedding, so its width is the token width).
    pub fn shape(&self) -> FusionShape {
        FusionShape {
            n_tokens: self.n_tokens,
            width: self.width,
            question_dim: self.width,
            imu_embed_dim: self.imu_embed_dim,
        }
    }
}

/// Placeholder strings in the prompt and how many tokens each stands for.
#[derive(Clone, Debug, PartialEq)]
pub struct PromptSpec {
    /// Replaced by the image embeddings.
    pub image_placeholder: String,
    /// Replaced by the sensor tokens, `sensor_tokens` times.
    pub sensor_placeholder: String,
    /// Sensor tokens in the prompt (the fusion network's `n_tokens`; 0 without one).
    pub sensor_tokens: usize,
}

/// How answers are generated.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GenerationSpec {
    /// Greedy decoding (the paper's setting).
    pub greedy: bool,
    /// Most tokens in one answer.
    pub max_tokens: u32,
}

/// A loaded, checked bundle; every path is resolved and exists.
#[derive(Clone, Debug, PartialEq)]
pub struct Bundle {
    /// The manifest file.
    pub manifest: PathBuf,
    /// The bundle's name.
    pub name: String,
    /// The language model.
    pub lm: LmSpec,
    /// The fusion network, if the bundle has one.
    pub fusion: Option<FusionSpec>,
    /// Prompt placeholders.
    pub prompt: PromptSpec,
    /// Generation settings.
    pub generation: GenerationSpec,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBundle {
    format: String,
    name: String,
    lm: RawLm,
    fusion: Option<RawFusion>,
    prompt: Option<RawPrompt>,
    generation: Option<RawGeneration>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLm {
    gguf: String,
    mmproj: Option<String>,
    embedding_width: Option<usize>,
    chat_template: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFusion {
    onnx: String,
    precision: Precision,
    n_tokens: usize,
    width: usize,
    imu_embed_dim: Option<usize>,
    norm_stats: String,
    bins: Option<usize>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPrompt {
    image_placeholder: Option<String>,
    sensor_placeholder: Option<String>,
    sensor_tokens: Option<usize>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawGeneration {
    greedy: Option<bool>,
    max_tokens: Option<u32>,
}

/// Default image placeholder.
pub const DEFAULT_IMAGE_PLACEHOLDER: &str = "<image>";
/// Default sensor placeholder.
pub const DEFAULT_SENSOR_PLACEHOLDER: &str = "<sensor>";

/// Resolves a manifest path: `cache:` → `cache_dir`, absolute as is, else `bundle_dir`.
pub fn resolve_path(bundle_dir: &Path, cache_dir: &Path, value: &str) -> PathBuf {
    match value.strip_prefix(CACHE_PREFIX) {
        Some(rest) => cache_dir.join(rest),
        None => bundle_dir.join(value),
    }
}

/// Line and column (from 1) of byte `offset` in `text`, for errors that name a place in a
/// TOML file (the bundle manifest, the wearer's settings).
pub(crate) fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset.min(text.len())).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

impl Bundle {
    /// Reads and checks `path` (a `bundle.toml`, or a folder holding one), resolving
    /// `cache:` paths in [`models_dir`].
    pub fn load(path: &Path) -> Result<Self, BundleError> {
        Self::load_with_cache(path, &models_dir())
    }

    /// [`Bundle::load`] with an explicit model cache folder.
    pub fn load_with_cache(path: &Path, cache_dir: &Path) -> Result<Self, BundleError> {
        let manifest = if path.is_dir() {
            path.join("bundle.toml")
        } else {
            path.to_path_buf()
        };
        let text = std::fs::read_to_string(&manifest).map_err(|source| BundleError::Io {
            path: manifest.clone(),
            source,
        })?;
        Self::parse(&text, &manifest, cache_dir)
    }

    /// Checks manifest `text` as if read from `manifest`.
    pub fn parse(text: &str, manifest: &Path, cache_dir: &Path) -> Result<Self, BundleError> {
        let raw: RawBundle = toml::from_str(text).map_err(|e| {
            let (line, column) = e.span().map_or((0, 0), |s| line_col(text, s.start));
            BundleError::Parse {
                path: manifest.to_path_buf(),
                line,
                column,
                message: e.message().to_string(),
            }
        })?;
        let dir = manifest.parent().unwrap_or(Path::new("."));
        let invalid = |field: &'static str, reason: String| BundleError::Invalid {
            path: manifest.to_path_buf(),
            field,
            reason,
        };
        let file = |field: &'static str, value: &str| -> Result<PathBuf, BundleError> {
            if value.trim().is_empty() {
                return Err(invalid(field, "empty path".into()));
            }
            let p = resolve_path(dir, cache_dir, value);
            if p.is_file() {
                Ok(p)
            } else {
                Err(BundleError::MissingFile {
                    path: manifest.to_path_buf(),
                    field,
                    file: p,
                })
            }
        };

        if raw.format != BUNDLE_FORMAT {
            return Err(invalid(
                "format",
                format!("{:?}, this build reads {BUNDLE_FORMAT:?}", raw.format),
            ));
        }
        if raw.name.trim().is_empty() {
            return Err(invalid("name", "empty".into()));
        }

        let lm = LmSpec {
            gguf: file("lm.gguf", &raw.lm.gguf)?,
            mmproj: raw
                .lm
                .mmproj
                .as_deref()
                .map(|m| file("lm.mmproj", m))
                .transpose()?,
            embedding_width: raw.lm.embedding_width,
            chat_template: raw
                .lm
                .chat_template
                .as_deref()
                .map(|t| file("lm.chat_template", t))
                .transpose()?,
        };
        if lm.embedding_width == Some(0) {
            return Err(invalid("lm.embedding_width", "0".into()));
        }

        let fusion = match raw.fusion {
            None => None,
            Some(f) => {
                if f.n_tokens != STAGE1_TOKENS && f.n_tokens != STAGE2_TOKENS {
                    return Err(invalid(
                        "fusion.n_tokens",
                        format!(
                            "{}, expected {STAGE1_TOKENS} (stage 1) or {STAGE2_TOKENS} (stage 2)",
                            f.n_tokens
                        ),
                    ));
                }
                if f.width == 0 {
                    return Err(invalid("fusion.width", "0".into()));
                }
                let bins = f.bins.unwrap_or(BINS);
                if bins != BINS {
                    return Err(invalid(
                        "fusion.bins",
                        format!("{bins}, this build's window has {BINS} bins"),
                    ));
                }
                let onnx = file("fusion.onnx", &f.onnx)?;
                let norm_stats = file("fusion.norm_stats", &f.norm_stats)?;
                let stats = NormStats::load(&norm_stats).map_err(|e| BundleError::NormStats {
                    path: manifest.to_path_buf(),
                    message: e.to_string(),
                })?;
                Some(FusionSpec {
                    onnx,
                    precision: f.precision,
                    n_tokens: f.n_tokens,
                    width: f.width,
                    imu_embed_dim: f.imu_embed_dim.unwrap_or(512),
                    norm_stats,
                    bins,
                    bin_ns: stats.bin_ns,
                })
            }
        };

        let p = raw.prompt.unwrap_or(RawPrompt {
            image_placeholder: None,
            sensor_placeholder: None,
            sensor_tokens: None,
        });
        let fusion_tokens = fusion.as_ref().map_or(0, |f| f.n_tokens);
        let prompt = PromptSpec {
            image_placeholder: p
                .image_placeholder
                .unwrap_or_else(|| DEFAULT_IMAGE_PLACEHOLDER.into()),
            sensor_placeholder: p
                .sensor_placeholder
                .unwrap_or_else(|| DEFAULT_SENSOR_PLACEHOLDER.into()),
            sensor_tokens: p.sensor_tokens.unwrap_or(fusion_tokens),
        };
        if prompt.image_placeholder.is_empty() {
            return Err(invalid("prompt.image_placeholder", "empty".into()));
        }
        if prompt.sensor_placeholder.is_empty() {
            return Err(invalid("prompt.sensor_placeholder", "empty".into()));
        }
        if prompt.image_placeholder == prompt.sensor_placeholder {
            return Err(invalid(
                "prompt.sensor_placeholder",
                format!(
                    "{:?} is also the image placeholder",
                    prompt.sensor_placeholder
                ),
            ));
        }
        if prompt.sensor_tokens != fusion_tokens {
            return Err(invalid(
                "prompt.sensor_tokens",
                format!(
                    "{} sensor tokens in the prompt, but the fusion network emits {fusion_tokens}",
                    prompt.sensor_tokens
                ),
            ));
        }

        let g = raw.generation.unwrap_or(RawGeneration {
            greedy: None,
            max_tokens: None,
        });
        let generation = GenerationSpec {
            greedy: g.greedy.unwrap_or(true),
            max_tokens: g.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS),
        };
        if generation.max_tokens == 0 {
            return Err(invalid("generation.max_tokens", "0".into()));
        }
        if !generation.greedy {
            return Err(invalid(
                "generation.greedy",
                "false: only greedy decoding is supported (the paper's setting)".into(),
            ));
        }

        let bundle = Bundle {
            manifest: manifest.to_path_buf(),
            name: raw.name,
            lm,
            fusion,
            prompt,
            generation,
        };
        if let Some(w) = bundle.lm.embedding_width {
            bundle.check_fusion_width(w)?;
        }
        Ok(bundle)
    }

    /// Checks the fusion network's token width against the language model's embedding width
    /// (read from the GGUF by the caller). Always true without a fusion network.
    pub fn check_fusion_width(&self, lm_embedding_width: usize) -> Result<(), BundleError> {
        match &self.fusion {
            Some(f) if f.width != lm_embedding_width => Err(BundleError::FusionWidth {
                path: self.manifest.clone(),
                fusion_width: f.width,
                lm_width: lm_embedding_width,
            }),
            _ => Ok(()),
        }
    }

    /// Checks that the runtime's window (`bins` per window, `config.bin_ns`) is the one the
    /// fusion network was trained on. Always true without a fusion network.
    pub fn check_window(&self, bins: usize, config: &WindowConfig) -> Result<(), BundleError> {
        let Some(f) = &self.fusion else {
            return Ok(());
        };
        if bins != f.bins {
            return Err(BundleError::WindowShape {
                path: self.manifest.clone(),
                what: "bins",
                bundle: i64::try_from(f.bins).unwrap_or(i64::MAX),
                runtime: i64::try_from(bins).unwrap_or(i64::MAX),
            });
        }
        if config.bin_ns != f.bin_ns {
            return Err(BundleError::WindowShape {
                path: self.manifest.clone(),
                what: "bin width (ns)",
                bundle: f.bin_ns,
                runtime: config.bin_ns,
            });
        }
        Ok(())
    }
}
