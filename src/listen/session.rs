//! ONNX Runtime sessions for the listening models, which take more than `f32` tensors (ids,
//! flags, a recurrent state) and so are run through `ort` directly rather than the crate's
//! `f32` [`crate::infer::OnnxEngine`]. Built on the process's one environment.

use std::path::Path;

use ort::session::{builder::GraphOptimizationLevel, Session};

use super::error::ListenError;
use crate::infer::engine::{require_file, EngineError};

/// Opens `path` (ONNX, or ORT format by its `.ort` name) with `threads` intra-op threads.
pub fn open(path: &Path, threads: usize) -> Result<Session, ListenError> {
    require_file(path)?;
    let load_err = |reason: String| {
        ListenError::Engine(EngineError::Load {
            path: path.to_path_buf(),
            engine: "ort",
            reason,
        })
    };
    let env = crate::infer::ort_environment().map_err(|e| load_err(e.to_string()))?;
    Session::builder(env)
        .map_err(|e| load_err(e.to_string()))?
        .with_optimization_level(GraphOptimizationLevel::Level3)
        .map_err(|e| load_err(e.to_string()))?
        .with_intra_threads(threads.max(1))
        .map_err(|e| load_err(e.to_string()))?
        .commit_from_file(path)
        .map_err(|e| load_err(e.to_string()))
}

/// Checks that `session` declares every input of `names`; an error naming the file and the
/// first one missing.
pub fn require_inputs(path: &Path, session: &Session, names: &[&str]) -> Result<(), ListenError> {
    for n in names {
        if !session.inputs().iter().any(|i| i.name() == *n) {
            return Err(ListenError::Model {
                path: path.to_path_buf(),
                what: format!("no input `{n}`: not the expected model"),
            });
        }
    }
    Ok(())
}
