//! Typed errors of the calibration module: every error names the source (file path, or
//! `<string>` when parsed from memory) and, for a bad field, its JSON path
//! (e.g. `CameraCalibrations[2].Projection.Params`).

use std::fmt;
use std::path::PathBuf;

use crate::aria::generation::Generation;

/// What is wrong with one JSON field.
#[derive(Debug, Clone, PartialEq)]
pub enum FieldProblem {
    /// The field is absent.
    Missing,
    /// The field has the wrong JSON type (`expected` names the wanted type).
    WrongType {
        /// The JSON type that was expected (e.g. "number").
        expected: &'static str,
    },
    /// An array has the wrong number of elements.
    WrongLength {
        /// Accepted lengths, in words (e.g. "15 or 16").
        expected: String,
        /// The actual length.
        actual: usize,
    },
    /// A number is not finite, or out of its valid range.
    OutOfRange {
        /// Why the value is refused.
        reason: String,
    },
    /// A projection model name that vista does not know.
    UnknownModel(String),
    /// A camera label without `ConfigData` whose image size vista cannot infer.
    UnknownCameraLabel {
        /// The label.
        label: String,
        /// The device generation the calibration names.
        generation: Generation,
    },
    /// A rectification matrix that cannot be inverted.
    SingularMatrix,
}

impl fmt::Display for FieldProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FieldProblem::Missing => write!(f, "missing field"),
            FieldProblem::WrongType { expected } => write!(f, "expected {expected}"),
            FieldProblem::WrongLength { expected, actual } => {
                write!(f, "expected {expected} elements, found {actual}")
            }
            FieldProblem::OutOfRange { reason } => write!(f, "invalid value: {reason}"),
            FieldProblem::UnknownModel(name) => write!(f, "unknown projection model {name:?}"),
            FieldProblem::UnknownCameraLabel { label, generation } => write!(
                f,
                "camera {label:?} has no ConfigData and is not a known {generation} camera"
            ),
            FieldProblem::SingularMatrix => write!(f, "matrix is not invertible"),
        }
    }
}

/// Where a calibration came from, for error messages.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum CalibSource {
    /// Parsed from an in-memory string.
    #[default]
    Memory,
    /// Read from this file.
    File(PathBuf),
    /// Another named origin (e.g. "recording.vrs: calib_json tag").
    Named(String),
}

impl fmt::Display for CalibSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CalibSource::Memory => write!(f, "<string>"),
            CalibSource::File(p) => write!(f, "{}", p.display()),
            CalibSource::Named(s) => write!(f, "{s}"),
        }
    }
}

/// Errors of calibration parsing and manipulation.
#[derive(Debug, thiserror::Error)]
pub enum CalibError {
    /// The calibration file could not be read.
    #[error("{}: cannot read calibration file: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The text is not valid JSON.
    #[error("{source_name}: invalid JSON at line {line}, column {column}: {message}")]
    Syntax {
        /// Where the text came from.
        source_name: CalibSource,
        /// 1-based line of the error.
        line: usize,
        /// 1-based column of the error.
        column: usize,
        /// The parser's message.
        message: String,
    },
    /// A field is missing or malformed.
    #[error("{source_name}: {json_path}: {problem}")]
    Field {
        /// Where the text came from.
        source_name: CalibSource,
        /// JSON path of the bad field, e.g. `CameraCalibrations[1].Projection.Params`.
        json_path: String,
        /// What is wrong.
        problem: FieldProblem,
    },
    /// A camera calibration cannot be rescaled to the requested image size.
    #[error(
        "{label}: cannot rescale calibration from {from_width}x{from_height} to {to_width}x{to_height}: {reason}"
    )]
    Rescale {
        /// Camera label.
        label: String,
        /// Calibrated image width.
        from_width: u32,
        /// Calibrated image height.
        from_height: u32,
        /// Requested width.
        to_width: u32,
        /// Requested height.
        to_height: u32,
        /// Why it is refused.
        reason: String,
    },
    /// A camera label that the calibration does not contain.
    #[error("no camera {label:?} in the calibration (cameras: {available})")]
    NoSuchCamera {
        /// The requested label.
        label: String,
        /// Labels that exist, comma separated.
        available: String,
    },
}

impl CalibError {
    /// Replaces the source name of a parse error (used by file and VRS loaders).
    pub fn with_source(self, source: CalibSource) -> Self {
        match self {
            CalibError::Syntax {
                line,
                column,
                message,
                ..
            } => CalibError::Syntax {
                source_name: source,
                line,
                column,
                message,
            },
            CalibError::Field {
                json_path, problem, ..
            } => CalibError::Field {
                source_name: source,
                json_path,
                problem,
            },
            other => other,
        }
    }

    /// The JSON path of the bad field, when the error is about one.
    pub fn json_path(&self) -> Option<&str> {
        match self {
            CalibError::Field { json_path, .. } => Some(json_path),
            _ => None,
        }
    }
}
