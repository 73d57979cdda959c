//! One ONNX model of the pipeline behind `ort`: loaded once with a fixed thread count, its
//! input and output checked, and a plain `f32` NCHW run.
//!
//! Sessions are built on the process's one ONNX Runtime environment
//! ([`crate::infer::ort_environment`]).

use std::path::{Path, PathBuf};

use ort::environment::Environment;
use ort::session::builder::GraphOptimizationLevel;
use ort::session::Session;
use ort::value::TensorRef;

use super::error::OcrError;

/// The process's ONNX Runtime environment (shared with every other `ort` user).
pub fn ort_environment() -> Result<&'static Environment, OcrError> {
    Ok(crate::infer::ort_environment()?)
}

/// A loaded model with one float input and (at least) one float output.
pub struct Model {
    session: Session,
    path: PathBuf,
    input: String,
    stage: &'static str,
}

impl std::fmt::Debug for Model {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Model")
            .field("path", &self.path)
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
        let env = ort_environment()?;
        let fail = |e: ort::Error| OcrError::Session {
            path: path.to_path_buf(),
            reason: e.to_string(),
        };
        let session = Session::builder(env)
            .map_err(fail)?
            .with_optimization_level(GraphOptimizationLevel::Level3)
            .map_err(|e| fail(e.into()))?
            .with_intra_threads(threads.max(1))
            .map_err(|e| fail(e.into()))?
            .with_inter_threads(1)
            .map_err(|e| fail(e.into()))?
            .commit_from_file(path)
            .map_err(fail)?;
        let shape_err = |what: String| OcrError::Shape {
            path: path.to_path_buf(),
            what,
        };
        let [input] = session.inputs() else {
            return Err(shape_err(format!(
                "expected one input, found {}",
                session.inputs().len()
            )));
        };
        let in_rank = input.dtype().tensor_shape().map(|s| s.len());
        if in_rank != Some(4) {
            return Err(shape_err(format!(
                "input {} has rank {in_rank:?}, expected 4 (NCHW)",
                input.name()
            )));
        }
        let Some(output) = session.outputs().first() else {
            return Err(shape_err("no outputs".into()));
        };
        let out_rank = output.dtype().tensor_shape().map(|s| s.len());
        if out_rank != Some(output_rank) {
            return Err(shape_err(format!(
                "output {} has rank {out_rank:?}, expected {output_rank}",
                output.name()
            )));
        }
        let input = input.name().to_string();
        Ok(Self {
            session,
            path: path.to_path_buf(),
            input,
            stage,
        })
    }

    /// The model file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A custom metadata entry of the model.
    pub fn metadata(&self, key: &str) -> Option<String> {
        self.session.metadata().ok()?.custom(key)
    }

    /// The fixed size of output dimension `dim`, when the model declares one.
    pub fn output_dim(&self, dim: usize) -> Option<i64> {
        let d = *self
            .session
            .outputs()
            .first()?
            .dtype()
            .tensor_shape()?
            .get(dim)?;
        (d > 0).then_some(d)
    }

    /// Runs the model on an NCHW tensor; returns the first output's shape and values.
    pub fn run(
        &mut self,
        shape: [usize; 4],
        data: &[f32],
    ) -> Result<(Vec<i64>, Vec<f32>), OcrError> {
        let stage = self.stage;
        let fail = |e: ort::Error| OcrError::Inference {
            stage,
            reason: e.to_string(),
        };
        if shape.iter().product::<usize>() != data.len() {
            return Err(OcrError::Inference {
                stage,
                reason: format!("tensor {shape:?} does not hold {} values", data.len()),
            });
        }
        let tensor = TensorRef::from_array_view((shape, data)).map_err(fail)?;
        let outputs = self
            .session
            .run(ort::inputs![self.input.as_str() => tensor])
            .map_err(fail)?;
        let (out_shape, values) = outputs[0].try_extract_tensor::<f32>().map_err(fail)?;
        Ok((out_shape.to_vec(), values.to_vec()))
    }
}
