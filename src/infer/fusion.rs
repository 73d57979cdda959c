//! The sensor-fusion network (VISTA paper §4): from one sensor window, a pooled question
//! embedding and an optional frozen-IMU-encoder embedding to `[n_tokens, width]` sensor tokens
//! for the language model. I/O contract: `models/contract.md` (*Fusion network*).
//!
//! [`FusionInputs`] (pure: the window's tensors → the model's 13 `f32` inputs, buffers
//! allocated once) is separate from [`FusionModel`] (an [`OnnxEngine`] running them).

use std::path::{Path, PathBuf};

use crate::infer::engine::{
    check_contract, Dim, EngineError, ModelContract, OnnxEngine, TensorSpec, TensorView,
};
use crate::infer::ort_engine::{OrtEngine, OrtOptions};
use crate::window::spec::{GridStream, BINS};
use crate::window::tensor::SensorWindow;

/// Sensor streams the network takes (the window's grid streams).
pub const STREAMS: usize = 5;

/// Input names, in the model's order: each grid stream and its mask, then the IMU encoder's
/// embedding and its validity, then the question.
pub const INPUT_NAMES: [&str; 13] = [
    "imu",
    "imu_mask",
    "mag_baro",
    "mag_baro_mask",
    "eye_gaze",
    "eye_gaze_mask",
    "hands",
    "hands_mask",
    "trajectory",
    "trajectory_mask",
    "imu_embedding",
    "imu_embedding_valid",
    "question_embedding",
];

/// The tokens output (`[batch, n_tokens, width]`).
pub const OUTPUT_TOKENS: &str = "sensor_tokens";
/// The effective per-stream gates output (`[batch, 5]`; 0 for an absent stream).
pub const OUTPUT_GATES: &str = "gates";

/// Sizes that fix a fusion network's I/O contract.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FusionShape {
    /// Sensor tokens out: 8 (stage 1) or 28 (stage 2: 8 shared + 4 per stream).
    pub n_tokens: usize,
    /// Output token width: the language model's embedding width (576 for SmolLM2-135M).
    pub width: usize,
    /// Width of the pooled question embedding (the LM's embedding width).
    pub question_dim: usize,
    /// Width of the frozen IMU encoder's embedding (PRIMUS: 512).
    pub imu_embed_dim: usize,
}

impl FusionShape {
    /// Stage-2 tokens (the paper's 28) at SmolLM2-135M's width — also the tiny test model's.
    pub const SMOLLM2_STAGE2: FusionShape = FusionShape {
        n_tokens: 28,
        width: 576,
        question_dim: 576,
        imu_embed_dim: 512,
    };

    /// The contract an ONNX model of this shape must meet (dynamic batch allowed).
    pub fn contract(&self) -> ModelContract {
        use Dim::{Dynamic, Fixed};
        let mut inputs = Vec::with_capacity(INPUT_NAMES.len());
        for s in GridStream::ALL {
            inputs.push(TensorSpec::f32(
                s.name(),
                &[Dynamic, Fixed(BINS), Fixed(s.channel_count())],
            ));
            inputs.push(TensorSpec::f32(
                &format!("{}_mask", s.name()),
                &[Dynamic, Fixed(BINS)],
            ));
        }
        inputs.push(TensorSpec::f32(
            "imu_embedding",
            &[Dynamic, Fixed(self.imu_embed_dim)],
        ));
        inputs.push(TensorSpec::f32("imu_embedding_valid", &[Dynamic]));
        inputs.push(TensorSpec::f32(
            "question_embedding",
            &[Dynamic, Fixed(self.question_dim)],
        ));
        ModelContract {
            inputs,
            outputs: vec![
                TensorSpec::f32(
                    OUTPUT_TOKENS,
                    &[Dynamic, Fixed(self.n_tokens), Fixed(self.width)],
                ),
                TensorSpec::f32(OUTPUT_GATES, &[Dynamic, Fixed(STREAMS)]),
            ],
        }
    }
}

/// Why a fusion step failed.
#[derive(Debug, thiserror::Error)]
pub enum FusionError {
    /// The engine failed (load, contract, run).
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// An input vector has the wrong length.
    #[error("fusion model {path}: {what} has {got} values, the model takes {expected}")]
    Width {
        /// The model file.
        path: PathBuf,
        /// `question embedding` or `IMU embedding`.
        what: &'static str,
        /// Expected length.
        expected: usize,
        /// Given length.
        got: usize,
    },
    /// The window was not normalised with the bundle's statistics.
    #[error("fusion model {path}: the sensor window is not normalised (load the bundle's norm_stats.json into the window builder)")]
    NotNormalised {
        /// The model file.
        path: PathBuf,
    },
    /// The model produced an output of an unexpected size.
    #[error("fusion model {path}: output `{name}` has shape {got:?}, expected {expected:?}")]
    Output {
        /// The model file.
        path: PathBuf,
        /// Output name.
        name: String,
        /// Expected shape.
        expected: Vec<usize>,
        /// Produced shape.
        got: Vec<usize>,
    },
}

/// The network's output for one window.
#[derive(Clone, Debug, PartialEq)]
pub struct SensorTokens {
    /// Tokens.
    pub n_tokens: usize,
    /// Width of each token (the LM's embedding width).
    pub width: usize,
    /// Row-major `[n_tokens, width]`: they replace the prompt's sensor placeholder tokens, in
    /// order (8 shared tokens, then 4 readout tokens per stream in `GridStream::ALL` order).
    pub data: Vec<f32>,
    /// Effective per-stream reliability gate (0 for an absent stream), `GridStream::ALL` order.
    pub gates: [f32; STREAMS],
}

impl SensorTokens {
    /// Token `i`, if any.
    pub fn token(&self, i: usize) -> Option<&[f32]> {
        self.data
            .get(i.checked_mul(self.width)?..(i.checked_add(1)?).checked_mul(self.width)?)
    }
}

/// The model's 13 inputs for batch 1, filled from a window (buffers allocated once).
#[derive(Clone, Debug)]
pub struct FusionInputs {
    shape: FusionShape,
    /// Per stream: values `[1, 64, C]`, then mask `[1, 64]` as 0.0/1.0.
    grids: [(Vec<f32>, Vec<f32>); STREAMS],
    imu_embedding: Vec<f32>,
    imu_embedding_valid: [f32; 1],
    question: Vec<f32>,
    dims: InputDims,
}

#[derive(Clone, Debug)]
struct InputDims {
    grids: [[usize; 3]; STREAMS],
    mask: [usize; 2],
    imu_embedding: [usize; 2],
    valid: [usize; 1],
    question: [usize; 2],
}

impl FusionInputs {
    /// Zeroed inputs (every stream masked, no embedding) for a model of `shape`.
    pub fn new(shape: FusionShape) -> Self {
        Self {
            shape,
            grids: GridStream::ALL.map(|s| (vec![0.0; BINS * s.channel_count()], vec![0.0; BINS])),
            imu_embedding: vec![0.0; shape.imu_embed_dim],
            imu_embedding_valid: [0.0],
            question: vec![0.0; shape.question_dim],
            dims: InputDims {
                grids: GridStream::ALL.map(|s| [1, BINS, s.channel_count()]),
                mask: [1, BINS],
                imu_embedding: [1, shape.imu_embed_dim],
                valid: [1],
                question: [1, shape.question_dim],
            },
        }
    }

    /// Copies the window's grids and masks, the question embedding and the IMU encoder's
    /// embedding (`None`: no encoder output — that token is masked). A wrong length is an
    /// error naming both numbers (`Err((what, expected, got))`); nothing is half-written.
    pub fn fill(
        &mut self,
        window: &SensorWindow,
        question: &[f32],
        imu_embedding: Option<&[f32]>,
    ) -> Result<(), (&'static str, usize, usize)> {
        if question.len() != self.shape.question_dim {
            return Err((
                "question embedding",
                self.shape.question_dim,
                question.len(),
            ));
        }
        if let Some(e) = imu_embedding {
            if e.len() != self.shape.imu_embed_dim {
                return Err(("IMU embedding", self.shape.imu_embed_dim, e.len()));
            }
        }
        for (t, (values, mask)) in window.streams.iter().zip(self.grids.iter_mut()) {
            // Same lengths by construction (both sized from the stream's channel count);
            // copy what overlaps, never panic.
            let n = values.len().min(t.values.len());
            values[..n].copy_from_slice(&t.values[..n]);
            for (m, &valid) in mask.iter_mut().zip(t.mask.iter()) {
                *m = if valid { 1.0 } else { 0.0 };
            }
        }
        self.question.copy_from_slice(question);
        match imu_embedding {
            Some(e) => {
                self.imu_embedding.copy_from_slice(e);
                self.imu_embedding_valid = [1.0];
            }
            None => {
                self.imu_embedding.fill(0.0);
                self.imu_embedding_valid = [0.0];
            }
        }
        Ok(())
    }

    /// The 13 inputs as engine views, in [`INPUT_NAMES`] order.
    pub fn views(&self) -> Vec<TensorView<'_>> {
        let mut v = Vec::with_capacity(INPUT_NAMES.len());
        let mut names = INPUT_NAMES.iter();
        for ((values, mask), dims) in self.grids.iter().zip(self.dims.grids.iter()) {
            v.push(TensorView {
                name: names.next().copied().unwrap_or_default(),
                shape: dims,
                data: values,
            });
            v.push(TensorView {
                name: names.next().copied().unwrap_or_default(),
                shape: &self.dims.mask,
                data: mask,
            });
        }
        v.push(TensorView {
            name: "imu_embedding",
            shape: &self.dims.imu_embedding,
            data: &self.imu_embedding,
        });
        v.push(TensorView {
            name: "imu_embedding_valid",
            shape: &self.dims.valid,
            data: &self.imu_embedding_valid,
        });
        v.push(TensorView {
            name: "question_embedding",
            shape: &self.dims.question,
            data: &self.question,
        });
        v
    }
}

/// A fusion network on an ONNX engine.
pub struct FusionModel {
    engine: Box<dyn OnnxEngine>,
    shape: FusionShape,
    inputs: FusionInputs,
    require_normalised: bool,
}

impl FusionModel {
    /// Wraps a loaded engine after checking its inputs and outputs against `shape`'s
    /// contract.
    pub fn new(engine: Box<dyn OnnxEngine>, shape: FusionShape) -> Result<Self, FusionError> {
        check_contract(&shape.contract(), engine.inputs(), engine.outputs()).map_err(
            |mismatch| EngineError::Contract {
                path: engine.path().to_path_buf(),
                mismatch,
            },
        )?;
        Ok(Self {
            engine,
            shape,
            inputs: FusionInputs::new(shape),
            require_normalised: true,
        })
    }

    /// Loads `path` in ONNX Runtime.
    pub fn load_ort(
        path: &Path,
        shape: FusionShape,
        options: OrtOptions,
    ) -> Result<Self, FusionError> {
        let engine = OrtEngine::load(path, &shape.contract(), options)?;
        Self::new(Box::new(engine), shape)
    }

    /// Whether windows must be normalised (default true; false for tests on raw windows).
    pub fn set_require_normalised(&mut self, on: bool) {
        self.require_normalised = on;
    }

    /// The contract sizes.
    pub fn shape(&self) -> FusionShape {
        self.shape
    }

    /// The engine (`ort` or `tract`).
    pub fn engine_name(&self) -> &'static str {
        self.engine.engine_name()
    }

    /// Sensor tokens for `window`, the pooled `question` embedding and the frozen IMU
    /// encoder's embedding of the same moment, if there is one.
    pub fn infer(
        &mut self,
        window: &SensorWindow,
        question: &[f32],
        imu_embedding: Option<&[f32]>,
    ) -> Result<SensorTokens, FusionError> {
        let path = || self.engine.path().to_path_buf();
        if self.require_normalised && !window.normalised {
            return Err(FusionError::NotNormalised { path: path() });
        }
        self.inputs
            .fill(window, question, imu_embedding)
            .map_err(|(what, expected, got)| FusionError::Width {
                path: path(),
                what,
                expected,
                got,
            })?;
        let outs = self.engine.run(&self.inputs.views())?;
        let mut tokens = None;
        let mut gates = None;
        for t in outs {
            if t.name == OUTPUT_TOKENS {
                tokens = Some(t);
            } else if t.name == OUTPUT_GATES {
                gates = Some(t);
            }
        }
        let want_tokens = vec![1, self.shape.n_tokens, self.shape.width];
        let tokens = match tokens {
            Some(t)
                if t.shape == want_tokens
                    && t.data.len() == want_tokens.iter().product::<usize>() =>
            {
                t
            }
            other => {
                return Err(FusionError::Output {
                    path: self.engine.path().to_path_buf(),
                    name: OUTPUT_TOKENS.into(),
                    expected: want_tokens,
                    got: other.map(|t| t.shape).unwrap_or_default(),
                })
            }
        };
        let gates = match gates
            .as_ref()
            .and_then(|g| <[f32; STREAMS]>::try_from(g.data.as_slice()).ok())
        {
            Some(g) => g,
            None => {
                return Err(FusionError::Output {
                    path: self.engine.path().to_path_buf(),
                    name: OUTPUT_GATES.into(),
                    expected: vec![1, STREAMS],
                    got: gates.map(|t| t.shape).unwrap_or_default(),
                })
            }
        };
        Ok(SensorTokens {
            n_tokens: self.shape.n_tokens,
            width: self.shape.width,
            data: tokens.data,
            gates,
        })
    }
}
