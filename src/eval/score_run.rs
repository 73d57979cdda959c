//! One scored run (`vista score SESSION OUT`): the run's outputs loaded and scored against
//! the session's ground truth, with, on request, the per-utterance latency, the latency
//! picture (SVG) and a Chrome/Perfetto trace of the utterances.

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::eval::error::EvalError;
use crate::eval::hazards::HazardTolerances;
use crate::eval::latency::{picture, run_latency, write_trace, RunLatency};
use crate::eval::load::{load, EvalInputs};
use crate::eval::scorecard::{score, Scorecard, Targets};
use crate::profile::trace::TraceWriter;
use crate::report::plot::render_svg;
use crate::report::utterance::UtteranceReport;

/// What to score and what to measure beside the scorecard.
#[derive(Clone, Debug, PartialEq)]
pub struct ScoreOptions {
    /// Session folder (`ground_truth.json`, `requests.jsonl`, `mps/`, `recording.vrs`).
    pub session: PathBuf,
    /// The run's output folder (`decisions.jsonl`, `transcript.jsonl`).
    pub out: PathBuf,
    /// World-position tolerance for matching an alert to a hazard, m.
    pub world_tolerance_m: f64,
    /// Report the per-utterance latency.
    pub latency: bool,
    /// Measure the latency for a picture or a trace (implied by `latency`).
    pub latency_run: bool,
}

/// What can go wrong scoring a run.
#[derive(Debug, thiserror::Error)]
pub enum ScoreRunError {
    /// The tolerance is not a non-negative number.
    #[error("--world-tolerance-m must be a non-negative number of metres")]
    Tolerance,
    /// The run or the session could not be read.
    #[error("scoring {out} against {session}", out = out.display(), session = session.display())]
    Load {
        /// The run's output folder.
        out: PathBuf,
        /// The session folder.
        session: PathBuf,
        /// What went wrong.
        #[source]
        source: Box<EvalError>,
    },
    /// The scorecard could not be serialised.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// An output file could not be created.
    #[error("creating {path}", path = path.display())]
    Create {
        /// The file.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// An output file could not be written.
    #[error("writing {path}", path = path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
}

/// A scored run.
#[derive(Debug)]
pub struct ScoredRun {
    /// What was read.
    pub inputs: EvalInputs,
    /// The scorecard.
    pub card: Scorecard,
    /// The latency measurement, when asked for.
    pub run: Option<RunLatency>,
    /// The per-utterance latency, when asked for.
    pub latency: Option<UtteranceReport>,
}

#[derive(Serialize)]
struct Output<'a> {
    score: &'a Scorecard,
    #[serde(skip_serializing_if = "Option::is_none")]
    latency: Option<&'a UtteranceReport>,
}

/// Loads and scores the run `options.out` of session `options.session`.
pub fn score_run(options: &ScoreOptions) -> Result<ScoredRun, ScoreRunError> {
    if !(options.world_tolerance_m.is_finite() && options.world_tolerance_m >= 0.0) {
        return Err(ScoreRunError::Tolerance);
    }
    let inputs = load(&options.session, &options.out).map_err(|e| ScoreRunError::Load {
        out: options.out.clone(),
        session: options.session.clone(),
        source: Box::new(e),
    })?;
    let tol = HazardTolerances {
        world_m: options.world_tolerance_m,
        ..HazardTolerances::default()
    };
    let card = score(&inputs, &tol, &Targets::default());
    let need_latency = options.latency || options.latency_run;
    let run = need_latency.then(|| run_latency(&inputs, &card));
    let latency = run
        .as_ref()
        .filter(|_| options.latency)
        .map(|r| r.latency.report());
    Ok(ScoredRun {
        inputs,
        card,
        run,
        latency,
    })
}

impl ScoredRun {
    /// The scorecard (and the per-utterance latency, when measured) as pretty JSON.
    pub fn to_json(&self) -> Result<String, ScoreRunError> {
        let out = Output {
            score: &self.card,
            latency: self.latency.as_ref(),
        };
        Ok(serde_json::to_string_pretty(&out)?)
    }

    /// Writes the latency picture to `path` as SVG (nothing when the latency was not
    /// measured).
    pub fn write_svg(&self, path: &Path) -> Result<(), ScoreRunError> {
        let Some(run) = &self.run else {
            return Ok(());
        };
        let svg =
            self.card
                .listening
                .with_panel(&render_svg(&picture(&self.inputs, &self.card, run)));
        std::fs::write(path, svg).map_err(|source| ScoreRunError::Write {
            path: path.to_path_buf(),
            source,
        })?;
        log::info!("picture written to {}", path.display());
        Ok(())
    }

    /// Writes a Chrome/Perfetto trace of the utterances to `path` (nothing when the latency
    /// was not measured).
    pub fn write_trace(&self, path: &Path) -> Result<(), ScoreRunError> {
        let Some(run) = &self.run else {
            return Ok(());
        };
        let write_err = |source| ScoreRunError::Write {
            path: path.to_path_buf(),
            source,
        };
        let file = File::create(path).map_err(|source| ScoreRunError::Create {
            path: path.to_path_buf(),
            source,
        })?;
        let mut w = TraceWriter::new(BufWriter::new(file)).map_err(write_err)?;
        write_trace(&mut w, &self.inputs, &self.card, run);
        w.finish().map_err(write_err)?;
        log::info!("trace written to {}", path.display());
        Ok(())
    }
}
