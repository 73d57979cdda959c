//! `decisions.jsonl`: one [`Decision`] per line, flushed per line, so a run that stops early
//! still leaves every decision it made. Written and read through [`crate::jsonl`].

use std::path::Path;

use crate::jsonl::{self, JsonlError, JsonlWriter, Limits, LineTap};
use crate::state::Decision;

/// A decision could not be written or read (the file and line are named).
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct DecisionError(#[from] JsonlError);

/// Writes `decisions.jsonl`.
#[derive(Debug)]
pub struct DecisionWriter {
    out: JsonlWriter,
    tap: Option<LineTap<Decision>>,
}

impl DecisionWriter {
    /// Creates (truncates) `path`.
    pub fn create(path: &Path) -> Result<Self, DecisionError> {
        Ok(Self {
            out: JsonlWriter::create(path)?,
            tap: None,
        })
    }

    /// Shows every decision to `tap` too, once written.
    pub fn with_tap(mut self, tap: Option<LineTap<Decision>>) -> Self {
        self.tap = tap;
        self
    }

    /// The file.
    pub fn path(&self) -> &Path {
        self.out.path()
    }

    /// Appends one decision.
    pub fn write(&mut self, d: &Decision) -> Result<(), DecisionError> {
        let written = self.out.write(d);
        if let Some(tap) = &self.tap {
            tap.show(d);
        }
        Ok(written?)
    }
}

/// Reads a `decisions.jsonl` (for tests and scoring); a bad line is an error naming it.
pub fn read_decisions(path: &Path) -> Result<Vec<Decision>, DecisionError> {
    Ok(jsonl::read(path, Limits::default())?)
}
