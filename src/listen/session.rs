//! ONNX Runtime sessions for the listening models, which take more than `f32` tensors (ids,
//! flags, a recurrent state) and so are run through `ort` directly rather than the crate's
//! `f32` [`crate::infer::OnnxEngine`]. Built on the process's one environment.

use std::path::Path;

use ort::session::Session;

use super::error::ListenError;
use crate::infer::ort_engine::{build_session, OrtOptions};

/// Opens `path` (ONNX, or ORT format by its `.ort` name) with `threads` intra-op threads.
pub fn open(path: &Path, threads: usize) -> Result<Session, ListenError> {
    Ok(build_session(
        path,
        OrtOptions {
            intra_threads: threads.max(1),
        },
    )?)
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
