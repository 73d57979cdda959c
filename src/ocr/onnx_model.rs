//! One ONNX model of the text-reading pipeline: loaded once through the crate's ONNX Runtime
//! engine ([`crate::infer::OrtEngine`], on the process's one environment) with a fixed thread
//! count, its input and output ranks checked (the PP-OCR exports name their tensors
//! differently from one version to the next, so ranks, not names, are the contract), and a
//! plain `f32` NCHW run.

use std::path::Path;

use super::error::OcrError;
use crate::infer::engine::{EngineError, OnnxEngine, TensorView};
use crate::infer::ort_engine::{OrtEngine, OrtOptions};

/// A loaded model with one float input and (at least) one float output.
pub struct Model {
    engine: OrtEngine,
    input: String,
    stage: &'static str,
}

impl std::fmt::Debug for Model {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Model")
            .field("path", &self.engine.path())
            .field("stage", &self.stage)
            .finish()
    }
}

impl Model {
    /// Loads `path` with `threads` intra-op threads; checks that it takes one rank-4 input
    /// and gives an output of rank `output_rank`.
    pub fn load(
        path: &Path,
        threads: usize,
        stage: &'static str,
        output_rank: usize,
    ) -> Result<Self, OcrError> {
        if !path.is_file() {
            return Err(OcrError::ModelMissing {
                path: path.to_path_buf(),
            });
        }
        let options = OrtOptions {
            intra_threads: threads.max(1),
        };
        let engine = OrtEngine::open(path, options).map_err(|e| OcrError::Session {
            path: path.to_path_buf(),
            reason: engine_reason(e),
        })?;
        let shape_err = |what: String| OcrError::Shape {
            path: path.to_path_buf(),
            what,
        };
        let [input] = engine.inputs() else {
            return Err(shape_err(format!(
                "expected one input, found {}",
                engine.inputs().len()
            )));
        };
        let in_rank = input.shape.0.len();
        if in_rank != 4 {
            return Err(shape_err(format!(
                "input {} has rank {in_rank}, expected 4 (NCHW)",
                input.name
            )));
        }
        let Some(output) = engine.outputs().first() else {
            return Err(shape_err("no outputs".into()));
        };
        let out_rank = output.shape.0.len();
        if out_rank != output_rank {
            return Err(shape_err(format!(
                "output {} has rank {out_rank}, expected {output_rank}",
                output.name
            )));
        }
        let input = input.name.clone();
        Ok(Self {
            engine,
            input,
            stage,
        })
    }

    /// The model file.
    pub fn path(&self) -> &Path {
        self.engine.path()
    }

    /// A custom metadata entry of the model.
    pub fn metadata(&self, key: &str) -> Option<String> {
        self.engine.metadata(key)
    }

    /// The fixed size of output dimension `dim`, when the model declares one.
    pub fn output_dim(&self, dim: usize) -> Option<i64> {
        match self.engine.outputs().first()?.shape.0.get(dim)? {
            crate::infer::engine::Dim::Fixed(d) => i64::try_from(*d).ok().filter(|d| *d > 0),
            crate::infer::engine::Dim::Dynamic => None,
        }
    }

    /// Runs the model on an NCHW tensor; returns the first output's shape and values.
    pub fn run(
        &mut self,
        shape: [usize; 4],
        data: &[f32],
    ) -> Result<(Vec<i64>, Vec<f32>), OcrError> {
        let stage = self.stage;
        if shape.iter().product::<usize>() != data.len() {
            return Err(OcrError::Inference {
                stage,
                reason: format!("tensor {shape:?} does not hold {} values", data.len()),
            });
        }
        let view = TensorView {
            name: &self.input,
            shape: &shape,
            data,
        };
        let mut outputs = self.engine.run(&[view]).map_err(|e| OcrError::Inference {
            stage,
            reason: engine_reason(e),
        })?;
        if outputs.is_empty() {
            return Err(OcrError::Inference {
                stage,
                reason: "the model gave no output".into(),
            });
        }
        let first = outputs.swap_remove(0);
        let out_shape = first
            .shape
            .iter()
            .map(|&d| i64::try_from(d).unwrap_or(i64::MAX))
            .collect();
        Ok((out_shape, first.data))
    }
}

/// The engine's reason, without the path the OCR error names itself.
fn engine_reason(e: EngineError) -> String {
    match e {
        EngineError::Load { reason, .. } | EngineError::Run { reason, .. } => reason,
        other => other.to_string(),
    }
}
