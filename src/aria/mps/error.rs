//! Errors of the MPS readers: every variant names the file, and where the problem is known,
//! the 1-based line (and the column) so a user can open the file at the right place.

use std::path::{Path, PathBuf};

/// Why an MPS file could not be read (or could only be read up to a point).
#[derive(Debug, thiserror::Error)]
pub enum MpsError {
    /// The file could not be opened.
    #[error("{}: cannot open: {source}", path.display())]
    Open {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// Reading failed part-way (I/O error or corrupt compressed data) at or after `line`.
    #[error("{}:{line}: read error: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The 1-based line being read when it failed.
        line: u64,
        /// The I/O error (gzip corruption is reported as `InvalidInput`/`InvalidData`).
        #[source]
        source: std::io::Error,
    },
    /// The file has no header line at all.
    #[error("{}: empty file (no header line)", path.display())]
    Empty {
        /// The file.
        path: PathBuf,
    },
    /// A required column is absent from the header (line 1).
    #[error("{}:1: missing required column `{column}` ({schema})", path.display())]
    MissingColumn {
        /// The file.
        path: PathBuf,
        /// The column that is required.
        column: String,
        /// The schema that was being read (e.g. "closed-loop trajectory").
        schema: &'static str,
    },
    /// The header matches none of the known schemas of this kind of file.
    #[error("{}:1: unrecognised {what} header: {detail}", path.display())]
    UnknownSchema {
        /// The file.
        path: PathBuf,
        /// What kind of file was expected.
        what: &'static str,
        /// What is missing.
        detail: String,
    },
    /// A row has a different number of fields than the header (e.g. a truncated last line).
    #[error("{}:{line}: expected {expected} fields as in the header, found {found}", path.display())]
    FieldCount {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: u64,
        /// Fields in the header.
        expected: usize,
        /// Fields in this row.
        found: usize,
    },
    /// A cell could not be parsed.
    #[error("{}:{line}: column `{column}`: cannot parse {value:?} as {expected}", path.display())]
    BadValue {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: u64,
        /// Column name.
        column: String,
        /// The cell text (truncated to 64 bytes).
        value: String,
        /// What was expected ("number", "integer", …).
        expected: &'static str,
    },
    /// The CSV itself is malformed (e.g. bad quoting, invalid UTF-8 in a text cell).
    #[error("{}:{line}: malformed CSV: {message}", path.display())]
    Csv {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: u64,
        /// What the CSV parser reported.
        message: String,
    },
    /// A JSON line (or a JSON file) is not valid JSON or lacks a required key.
    #[error("{}:{line}: {message}", path.display())]
    Json {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: u64,
        /// What is wrong.
        message: String,
    },
}

impl MpsError {
    /// The file the error is about.
    pub fn path(&self) -> &Path {
        match self {
            MpsError::Open { path, .. }
            | MpsError::Read { path, .. }
            | MpsError::Empty { path }
            | MpsError::MissingColumn { path, .. }
            | MpsError::UnknownSchema { path, .. }
            | MpsError::FieldCount { path, .. }
            | MpsError::BadValue { path, .. }
            | MpsError::Csv { path, .. }
            | MpsError::Json { path, .. } => path,
        }
    }

    /// The 1-based line of the problem, when known (header problems are line 1).
    pub fn line(&self) -> Option<u64> {
        match self {
            MpsError::Open { .. } | MpsError::Empty { .. } => None,
            MpsError::MissingColumn { .. } | MpsError::UnknownSchema { .. } => Some(1),
            MpsError::Read { line, .. }
            | MpsError::FieldCount { line, .. }
            | MpsError::BadValue { line, .. }
            | MpsError::Csv { line, .. }
            | MpsError::Json { line, .. } => Some(*line),
        }
    }

    /// The column involved, when the error is about one column.
    pub fn column(&self) -> Option<&str> {
        match self {
            MpsError::MissingColumn { column, .. } | MpsError::BadValue { column, .. } => {
                Some(column)
            }
            _ => None,
        }
    }
}
