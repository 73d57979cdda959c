//! [`OcrError`]: everything that can go wrong while reading text, naming the file or the
//! position it happened at.

use std::path::PathBuf;

/// Reading text failed.
#[derive(Debug, thiserror::Error)]
pub enum OcrError {
    /// A model file is not where it should be.
    #[error("OCR model {path} not found (run models/fetch)")]
    ModelMissing {
        /// Where it was looked for.
        path: PathBuf,
    },
    /// ONNX Runtime could not be loaded.
    #[error(transparent)]
    Runtime(#[from] crate::infer::OrtEnvError),
    /// ONNX Runtime refused to load a model or create a session.
    #[error("OCR model {path}: {reason}")]
    Session {
        /// The model file.
        path: PathBuf,
        /// What ONNX Runtime said.
        reason: String,
    },
    /// A model's inputs or outputs are not what this pipeline expects.
    #[error("OCR model {path}: {what}")]
    Shape {
        /// The model file.
        path: PathBuf,
        /// What did not match.
        what: String,
    },
    /// Running a model failed.
    #[error("OCR {stage} inference: {reason}")]
    Inference {
        /// `detection`, `direction` or `recognition`.
        stage: &'static str,
        /// What ONNX Runtime said.
        reason: String,
    },
    /// The image cannot be read (bad encoding, wrong size, unsupported format).
    #[error("bad image: {reason}")]
    BadImage {
        /// What is wrong with it.
        reason: String,
    },
    /// The background reader thread is gone.
    #[error("OCR reader thread stopped")]
    ReaderStopped,
}

impl OcrError {
    /// A [`OcrError::BadImage`] from anything printable.
    pub fn bad_image(reason: impl Into<String>) -> Self {
        OcrError::BadImage {
            reason: reason.into(),
        }
    }
}
