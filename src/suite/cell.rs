//! One cell's result (`cells/CELL.json`): what the scorer said of the run, what the run
//! cost, or why the cell failed. Pure: made from a [`ScoredRun`] and the run's
//! `profile.json`, read back when a suite resumes or shards are merged.

use serde::{Deserialize, Serialize};

use super::plan::Cell;
use crate::eval::score_run::ScoredRun;
use crate::profile::cpu::CpuReport;
use crate::profile::Percentiles;

/// The step of a cell that failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// `vista synth` (writing the session).
    Synth,
    /// `vista replay` (the assistant on it).
    Replay,
    /// The scorer.
    Score,
}

/// One request of a scored run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RequestScore {
    /// Its response form (`scene`, `question`, `goal`).
    pub form: String,
    /// An answer was heard.
    pub answered: bool,
    /// Answered, every fact present, nothing unsafe.
    pub pass: bool,
    /// Facts the answer had to hold.
    pub facts_required: usize,
    /// Of them, present.
    pub facts_present: usize,
    /// Request → first audio of its answer, ms.
    pub response_ms: Option<f64>,
}

/// What the scorer and the profile said of one run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CellScore {
    /// Session length, s.
    pub duration_s: f64,
    /// Hazards that became relevant.
    pub hazards_relevant: usize,
    /// Of them, caught.
    pub hazards_caught: usize,
    /// Spoken alerts matching no hazard.
    pub false_alerts: usize,
    /// Spoken alerts about a real hazard that named the wrong kind.
    pub wrong_kind_alerts: usize,
    /// Lead time of each caught hazard, ms.
    pub lead_times_ms: Vec<f64>,
    /// Sentences heard that contradict a hazard in its window.
    pub unsafe_utterances: usize,
    /// Unsafe instructions of the ground truth spoken.
    pub unsafe_spoken: usize,
    /// Per request.
    pub requests: Vec<RequestScore>,
    /// Speech duty cycle while walking.
    pub duty_cycle_walking: Option<f64>,
    /// Clauses cut off before their end.
    pub clauses_cut: usize,
    /// Hazard evidence → alert audio, ms (the profile's percentiles).
    pub alert_from_evidence_ms: Option<[f64; 2]>,
    /// The replay process's CPU (user + system), s.
    pub cpu_s: Option<f64>,
    /// Its peak resident set, MiB.
    pub peak_rss_mib: Option<f64>,
    /// Every target of the scorer met.
    pub pass: bool,
    /// The targets missed, in the scorer's words.
    pub failures: Vec<String>,
}

/// A scored cell, or why it has no score.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Outcome {
    /// The run was scored.
    Scored(CellScore),
    /// A step failed.
    Failed {
        /// Which.
        stage: Stage,
        /// Its error (the last lines of its log).
        error: String,
    },
}

/// `cells/CELL.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CellResult {
    /// The cell.
    pub cell: Cell,
    /// Its outcome.
    pub outcome: Outcome,
    /// Wall time writing the session, s (`None`: written before, or recorded).
    pub synth_wall_s: Option<f64>,
    /// Wall time of the replay, s.
    pub replay_wall_s: Option<f64>,
}

impl CellResult {
    /// The score, when scored.
    pub fn score(&self) -> Option<&CellScore> {
        match &self.outcome {
            Outcome::Scored(s) => Some(s),
            Outcome::Failed { .. } => None,
        }
    }
}

/// The parts of a run's `profile.json` a cell keeps.
#[derive(Clone, Debug, Default, Deserialize)]
pub struct ProfileView {
    /// CPU of the run.
    #[serde(default)]
    pub cpu: Option<CpuReport>,
    /// Utterance latency.
    #[serde(default)]
    pub utterances: Option<UtteranceView>,
}

/// `profile.json`'s `utterances`.
#[derive(Clone, Debug, Default, Deserialize)]
pub struct UtteranceView {
    /// Hazard evidence capture → first audio, µs.
    #[serde(default)]
    pub hazard_alert_from_evidence_us: Option<Percentiles>,
}

/// A cell's score from the scorer's run and the run's profile.
pub fn cell_score(scored: &ScoredRun, profile: &ProfileView) -> CellScore {
    let card = &scored.card;
    let sum = &card.summary;
    let requests = card
        .requests
        .iter()
        .map(|r| RequestScore {
            form: scored
                .inputs
                .requests
                .get(r.index)
                .map(|l| l.form.clone())
                .filter(|f| !f.is_empty())
                .unwrap_or_else(|| "unknown".into()),
            answered: r.answered,
            pass: r.pass,
            facts_required: r.facts.len(),
            facts_present: r.facts.iter().filter(|f| f.present).count(),
            response_ms: r.response_ms,
        })
        .collect();
    CellScore {
        duration_s: card.duration_s,
        hazards_relevant: sum.hazards_relevant,
        hazards_caught: sum.hazards_caught,
        false_alerts: sum.false_alerts,
        wrong_kind_alerts: sum.wrong_kind_alerts,
        lead_times_ms: card
            .hazards
            .iter()
            .filter(|h| h.outcome == crate::eval::HazardOutcome::Caught)
            .filter_map(|h| h.lead_time_ms)
            .collect(),
        unsafe_utterances: sum.unsafe_utterances,
        unsafe_spoken: sum.unsafe_spoken,
        requests,
        duty_cycle_walking: card.listening.duty_cycle_walking,
        clauses_cut: card.listening.clauses_cut,
        alert_from_evidence_ms: profile
            .utterances
            .as_ref()
            .and_then(|u| u.hazard_alert_from_evidence_us)
            .filter(|p| p.count > 0)
            .map(|p| [p.p50 / 1e3, p.p99 / 1e3]),
        cpu_s: profile.cpu.as_ref().map(|c| c.process_cpu_s),
        peak_rss_mib: profile.cpu.as_ref().map(|c| c.peak_rss_mib),
        pass: card.pass,
        failures: card.failures.clone(),
    }
}
