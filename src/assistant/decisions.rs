//! `decisions.jsonl`: one [`Decision`] per line, flushed per line, so a run that stops early
//! still leaves every decision it made.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::state::Decision;

/// A decision could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum DecisionError {
    /// An I/O error on the file, at a 1-based line (0: opening).
    #[error("{path}: line {line}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The line.
        line: u64,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// A line is not a decision.
    #[error("{path}: line {line}: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// The line.
        line: u64,
        /// What is wrong.
        message: String,
    },
}

/// Writes `decisions.jsonl`.
#[derive(Debug)]
pub struct DecisionWriter {
    path: PathBuf,
    out: BufWriter<File>,
    lines: u64,
}

impl DecisionWriter {
    /// Creates (truncates) `path`.
    pub fn create(path: &Path) -> Result<Self, DecisionError> {
        let out = File::create(path).map_err(|source| DecisionError::Io {
            path: path.to_path_buf(),
            line: 0,
            source,
        })?;
        Ok(Self {
            path: path.to_path_buf(),
            out: BufWriter::new(out),
            lines: 0,
        })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one decision.
    pub fn write(&mut self, d: &Decision) -> Result<(), DecisionError> {
        self.lines += 1;
        let line = self.lines;
        let err = |source| DecisionError::Io {
            path: self.path.clone(),
            line,
            source,
        };
        serde_json::to_writer(&mut self.out, d).map_err(|e| err(e.into()))?;
        self.out.write_all(b"\n").map_err(err)?;
        self.out.flush().map_err(err)
    }
}

/// Reads a `decisions.jsonl` (for tests and scoring); a bad line is an error naming it.
pub fn read_decisions(path: &Path) -> Result<Vec<Decision>, DecisionError> {
    let text = std::fs::read_to_string(path).map_err(|source| DecisionError::Io {
        path: path.to_path_buf(),
        line: 0,
        source,
    })?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l).map_err(|e| DecisionError::Parse {
                path: path.to_path_buf(),
                line: i as u64 + 1,
                message: e.to_string(),
            })
        })
        .collect()
}
