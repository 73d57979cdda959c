//! What can go wrong running or merging a suite: every error names the file or cell.

use std::path::PathBuf;

/// A suite's error.
#[derive(Debug, thiserror::Error)]
pub enum SuiteError {
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A suite list line is not understood.
    #[error("{path}:{line}: {why}")]
    SuiteLine {
        /// The list.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// What is wrong.
        why: String,
    },
    /// A scenario named by the suite could not be found or read.
    #[error("{path}: {why}")]
    Scenario {
        /// The scenario file (or the name looked up).
        path: PathBuf,
        /// What is wrong.
        why: String,
    },
    /// The suite is empty, or two entries share one name.
    #[error("{0}")]
    Suite(String),
    /// `--shard I/N` is not well formed.
    #[error("--shard wants I/N with 1 <= I <= N, got {0:?}")]
    Shard(String),
    /// A JSON file of the suite is damaged.
    #[error("{path}: {why}")]
    Json {
        /// The file.
        path: PathBuf,
        /// The parser's message (with line and column).
        why: String,
    },
    /// The output folder already holds another plan's cells.
    #[error(
        "{path} was written for another plan ({why}); use a new --out folder, or the same suite, seeds, modes and replay options"
    )]
    PlanDiffers {
        /// The existing `plan.json`.
        path: PathBuf,
        /// The first difference.
        why: String,
    },
    /// The shards merged do not cover the suite.
    #[error("the shards do not cover the suite: {missing} cell(s) missing, e.g. {examples}")]
    NotCovered {
        /// How many cells no shard finished.
        missing: usize,
        /// A few of their names.
        examples: String,
    },
    /// A baseline report was made with another plan.
    #[error("baseline {path}: {why}")]
    Baseline {
        /// The baseline file.
        path: PathBuf,
        /// What does not match.
        why: String,
    },
    /// The `vista` binary to run the cells could not be started.
    #[error("could not start {path}: {source}")]
    Spawn {
        /// The binary.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

impl SuiteError {
    /// An I/O error on `path`.
    pub fn io(path: &std::path::Path, source: std::io::Error) -> Self {
        Self::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}
