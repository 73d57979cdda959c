//! Why a run could not be set up, run or written: each error names what it was doing and
//! the file or address involved, and keeps its cause as the source.

use std::path::PathBuf;

use crate::assistant::decisions::DecisionError;
use crate::assistant::lm::setup::LmSetupError;
use crate::assistant::requests::RequestError;
use crate::assistant::AssistantError;
use crate::eval::EvalError;
use crate::perception::PerceptionError;
use crate::runtime::RuntimeError;
use crate::source::replay::ReplayError;
use crate::source::session_files::SessionError;
use crate::source::SourceError;
use crate::speech::transcript::TranscriptError;
use crate::worker::WorkerError;

/// A run's failure.
#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    /// An option that cannot be used (named as on the command line).
    #[error("{0}")]
    Options(String),
    /// The session could not be opened.
    #[error("opening session {}", path.display())]
    OpenSession {
        /// The session.
        path: PathBuf,
        /// Why.
        #[source]
        source: Box<ReplayError>,
    },
    /// Perception's inputs (sensor models, point map) could not be read.
    #[error("loading perception inputs of {}", path.display())]
    PerceptionInputs {
        /// The session.
        path: PathBuf,
        /// Why.
        #[source]
        source: Box<PerceptionError>,
    },
    /// A session named by an option (`--map`, `--truth`) could not be used.
    #[error("{option} {}", path.display())]
    NamedSession {
        /// The option.
        option: &'static str,
        /// The session.
        path: PathBuf,
        /// Why.
        #[source]
        source: Box<SessionError>,
    },
    /// The `--map` session's MPS streams or points could not be read.
    #[error("--map {}: {what}", path.display())]
    Map {
        /// The session.
        path: PathBuf,
        /// What was being read.
        what: &'static str,
        /// Why.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The language model named could not be loaded.
    #[error(transparent)]
    Lm(#[from] Box<LmSetupError>),
    /// The assistant could not start.
    #[error("starting the assistant")]
    Assistant(#[source] Box<AssistantError>),
    /// Requests could not be taken from where they were asked for.
    #[error("{what}")]
    Requests {
        /// Where from.
        what: String,
        /// Why.
        #[source]
        source: Box<RequestError>,
    },
    /// A thread of the run could not be started.
    #[error("starting {what}")]
    Thread {
        /// Which.
        what: &'static str,
        /// Why.
        #[source]
        source: WorkerError,
    },
    /// The device could not be reached.
    #[error("connecting to {address}")]
    Connect {
        /// The device's address.
        address: String,
        /// Why.
        #[source]
        source: Box<SourceError>,
    },
    /// The device sent nothing before the link ended.
    #[error("{address}: the device sent no sample")]
    NoSample {
        /// The device's address.
        address: String,
    },
    /// The runtime failed.
    #[error("{what} failed")]
    Runtime {
        /// `replay` or `live run`.
        what: &'static str,
        /// Why.
        #[source]
        source: Box<RuntimeError>,
    },
    /// An output could not be written.
    #[error("writing {}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// An output could not be serialised.
    #[error("serialising {what}")]
    Json {
        /// Which output.
        what: &'static str,
        /// Why.
        #[source]
        source: serde_json::Error,
    },
    /// The run's outputs could not be read back for the score.
    #[error("reading the run back from {}", path.display())]
    ReadBack {
        /// The output folder.
        path: PathBuf,
        /// Why.
        #[source]
        source: Box<EvalError>,
    },
    /// The run's decisions could not be read back.
    #[error(transparent)]
    Decisions(#[from] Box<DecisionError>),
    /// The run's transcript could not be read back.
    #[error(transparent)]
    Transcript(#[from] Box<TranscriptError>),
}

impl From<LmSetupError> for PipelineError {
    fn from(e: LmSetupError) -> Self {
        PipelineError::Lm(Box::new(e))
    }
}

impl From<DecisionError> for PipelineError {
    fn from(e: DecisionError) -> Self {
        PipelineError::Decisions(Box::new(e))
    }
}

impl From<TranscriptError> for PipelineError {
    fn from(e: TranscriptError) -> Self {
        PipelineError::Transcript(Box::new(e))
    }
}

impl PipelineError {
    /// A write error for `path`.
    pub(crate) fn write(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Self {
        let path = path.into();
        move |source| PipelineError::Write { path, source }
    }

    /// A serialisation error of `what`.
    pub(crate) fn json(what: &'static str) -> impl FnOnce(serde_json::Error) -> Self {
        move |source| PipelineError::Json { what, source }
    }

    /// A thread start error.
    pub(crate) fn thread(what: &'static str) -> impl FnOnce(WorkerError) -> Self {
        move |source| PipelineError::Thread { what, source }
    }
}
