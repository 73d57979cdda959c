//! Reading a session and a run's output folder for scoring (I/O only): the ground truth,
//! requests, the wearer's trajectory and calibration, decisions, the transcript and the
//! session clock. Every error names the file and line.

use std::path::{Path, PathBuf};

use nalgebra::Isometry3;
use serde::de::DeserializeOwned;

use super::clock::SessionClock;
use super::error::EvalError;
use super::mode::RunInputs;
use super::pose::HeadTrack;
use super::truth::{DecisionRecord, GroundTruthFile, RequestLine};
use crate::aria::calib::{t_device_cpf, CadVariant, CalibSource, DeviceCalibration};
use crate::aria::mps::TrajectoryReader;
use crate::aria::vrs::reader::VrsReader;
use crate::jsonl::{self, Limits};
use crate::speech::transcript::TranscriptEntry;
use crate::state::Decision;

/// The optional file in the output folder that states the run's session clock
/// ([`SessionClock`] as JSON). Without it, the run is taken to be an `--asap` replay
/// (virtual clock starting at the ground truth's `t0_ns`).
pub const SESSION_CLOCK_FILE: &str = "session_clock.json";

/// The wearer's true path in a session folder (closed-loop trajectory columns), written by
/// `vista synth` beside its MPS-like estimate. The scorer measures against it; without it
/// (a recorded session) the MPS trajectory stands in, and the scorecard says so.
pub const TRUTH_TRAJECTORY_FILE: &str = "ground_truth_trajectory.csv";

/// Everything scoring reads.
#[derive(Clone, Debug)]
pub struct EvalInputs {
    /// The session folder.
    pub session: PathBuf,
    /// The run's output folder.
    pub out: PathBuf,
    /// `SESSION/ground_truth.json`.
    pub truth: GroundTruthFile,
    /// `SESSION/requests.jsonl`.
    pub requests: Vec<RequestLine>,
    /// The wearer's head from `SESSION/mps/slam/closed_loop_trajectory.csv` (empty when
    /// the session has none).
    pub head: HeadTrack,
    /// `OUT/decisions.jsonl`.
    pub decisions: Vec<DecisionRecord>,
    /// `OUT/transcript.jsonl`.
    pub transcript: Vec<TranscriptEntry>,
    /// How host times map to device time.
    pub clock: SessionClock,
    /// Where `clock` came from (`OUT/session_clock.json` or the `--asap` assumption).
    pub clock_source: String,
    /// What was missing and how the scoring copes, one line each.
    pub notes: Vec<String>,
    /// Lines of the run's output that could not be read (`FILE:LINE: why`), left out of the
    /// scoring and counted.
    pub damaged_lines: Vec<String>,
    /// The run's inputs (`OUT/run.json`), when it wrote them.
    pub run: Option<RunInputs>,
}

fn read_text(path: &Path) -> Result<String, EvalError> {
    std::fs::read_to_string(path).map_err(EvalError::io(path))
}

/// Reads a JSON document.
pub fn read_json<T: DeserializeOwned>(path: &Path) -> Result<T, EvalError> {
    let text = read_text(path)?;
    serde_json::from_str(&text).map_err(|source| EvalError::Json {
        path: path.to_path_buf(),
        line: source.line().max(1),
        source,
    })
}

/// Reads JSON lines (blank lines skipped, through [`crate::jsonl`]), each with its 1-based
/// line number; the first bad line is the error.
pub fn read_jsonl<T: DeserializeOwned>(path: &Path) -> Result<Vec<(usize, T)>, EvalError> {
    let mut bad = Vec::new();
    let out = read_lines(path, &mut bad)?;
    match bad.into_iter().next() {
        Some((line, reason)) => Err(EvalError::Line {
            path: path.to_path_buf(),
            line,
            reason,
        }),
        None => Ok(out),
    }
}

/// Reads JSON lines of a run's output, which a crash or a full disk may have damaged: a
/// line that does not parse is not fatal, and not silently skipped either — it is returned
/// as one line of `damaged` (`FILE:LINE: why`), so the scorecard names and counts it.
pub fn read_jsonl_damaged<T: DeserializeOwned>(
    path: &Path,
    damaged: &mut Vec<String>,
) -> Result<Vec<(usize, T)>, EvalError> {
    let mut bad = Vec::new();
    let out = read_lines(path, &mut bad)?;
    damaged.extend(
        bad.into_iter()
            .map(|(line, why)| format!("{}:{line}: {why}", path.display())),
    );
    Ok(out)
}

/// Every line of `path` that parses, with its line number; the others (line, why) in `bad`.
fn read_lines<T: DeserializeOwned>(
    path: &Path,
    bad: &mut Vec<(usize, String)>,
) -> Result<Vec<(usize, T)>, EvalError> {
    let text = read_text(path)?;
    let mut out = Vec::new();
    jsonl::parse_each(path, &text, Limits::default(), |line, r| {
        let line = usize::try_from(line).unwrap_or(usize::MAX);
        match r {
            Ok(v) => out.push((line, v)),
            Err(e) => bad.push((line, e.reason())),
        }
    });
    Ok(out)
}

/// Reads `decisions.jsonl`, keeping an optional `first_token_ns` field of each line; lines
/// that are not decisions go to `damaged` ([`read_jsonl_damaged`]).
pub fn read_decisions(
    path: &Path,
    damaged: &mut Vec<String>,
) -> Result<Vec<DecisionRecord>, EvalError> {
    let lines: Vec<(usize, serde_json::Value)> = read_jsonl_damaged(path, damaged)?;
    let mut out = Vec::with_capacity(lines.len());
    for (line, v) in lines {
        let first_token_ns = v.get("first_token_ns").and_then(serde_json::Value::as_i64);
        match <Decision as serde::Deserialize>::deserialize(&v) {
            Ok(decision) => out.push(DecisionRecord {
                decision,
                first_token_ns,
                line,
            }),
            Err(e) => damaged.push(format!("{}:{line}: {e}", path.display())),
        }
    }
    Ok(out)
}

/// `T_Device_CPF` from the recording's calibration, or the Gen1 CAD value (DVT-S, device
/// frame at `camera-slam-left`) when there is no readable recording or calibration.
pub fn device_from_cpf(recording: &Path) -> Isometry3<f64> {
    let cad = || {
        t_device_cpf(CadVariant::DvtSmall, "camera-slam-left").unwrap_or_else(Isometry3::identity)
    };
    let Ok(vrs) = VrsReader::open(recording) else {
        log::warn!(
            "{}: unreadable; using the Gen1 CAD central pupil frame",
            recording.display()
        );
        return cad();
    };
    let Some(json) = vrs.file_tags().get("calib_json") else {
        return cad();
    };
    let source = CalibSource::Named(format!("{}: calib_json tag", recording.display()));
    match DeviceCalibration::from_json_str_with_source(json, source) {
        Ok(c) => c.t_device_cpf(),
        Err(e) => {
            log::warn!("{e}; using the Gen1 CAD central pupil frame");
            cad()
        }
    }
}

/// Reads the head track from a trajectory CSV (streamed, thinned to 100 Hz).
pub fn read_head_track(
    trajectory: &Path,
    t_device_cpf: &Isometry3<f64>,
) -> Result<HeadTrack, EvalError> {
    let mut track = HeadTrack::new();
    for pose in TrajectoryReader::open(trajectory)? {
        let pose = pose?;
        track.push(pose.tracking_time.ns(), &pose.t_world_device, t_device_cpf);
    }
    if track.is_empty() {
        return Err(EvalError::NoPoses {
            path: trajectory.to_path_buf(),
        });
    }
    Ok(track)
}

/// Reads everything scoring needs from `session` and `out`, and checks that
/// `requests.jsonl` and the ground truth list the same requests.
pub fn load(session: &Path, out: &Path) -> Result<EvalInputs, EvalError> {
    let truth_path = session.join("ground_truth.json");
    let truth: GroundTruthFile = read_json(&truth_path)?;
    truth.validate().map_err(|f| EvalError::InvalidTruth {
        path: truth_path.clone(),
        field: f.field,
        reason: f.reason,
    })?;
    let req_path = session.join("requests.jsonl");
    let requests: Vec<(usize, RequestLine)> = if req_path.exists() {
        read_jsonl(&req_path)?
    } else {
        Vec::new()
    };
    if requests.len() != truth.requests.len() {
        return Err(EvalError::Mismatch {
            path: req_path,
            line: requests.len() + 1,
            reason: format!(
                "{} requests, but ground_truth.json lists {}",
                requests.len(),
                truth.requests.len()
            ),
        });
    }
    for ((line, r), t) in requests.iter().zip(&truth.requests) {
        if r.t_ns != t.t_ns || r.text != t.text {
            return Err(EvalError::Mismatch {
                path: req_path.clone(),
                line: *line,
                reason: format!(
                    "request {:?} at {} ns differs from ground truth {:?} at {} ns",
                    r.text, r.t_ns, t.text, t.t_ns
                ),
            });
        }
    }
    let cpf = device_from_cpf(&session.join("recording.vrs"));
    let truth_path = session.join(TRUTH_TRAJECTORY_FILE);
    let trajectory = session.join("mps/slam/closed_loop_trajectory.csv");
    let mut notes = Vec::new();
    // A session without its trajectory (MPS removed) is still scored: alerts then match
    // hazards by world position only, and the scorecard says so.
    let head = if truth_path.exists() {
        read_head_track(&truth_path, &cpf)?
    } else if trajectory.exists() {
        notes.push(format!(
            "{}: missing: the wearer's track is MPS's estimate, not the truth",
            truth_path.display()
        ));
        read_head_track(&trajectory, &cpf)?
    } else {
        notes.push(format!(
            "{}: missing: no wearer track, alerts match hazards by world position only",
            trajectory.display()
        ));
        HeadTrack::new()
    };
    let mut damaged_lines = Vec::new();
    let decisions = read_decisions(&out.join("decisions.jsonl"), &mut damaged_lines)?;
    let transcript =
        read_jsonl_damaged::<TranscriptEntry>(&out.join("transcript.jsonl"), &mut damaged_lines)?
            .into_iter()
            .map(|(_, e)| e)
            .collect();
    let run = RunInputs::read(out)?;
    if run.is_none() {
        notes.push(format!(
            "{}: missing: the run's mode (live or offline) is unknown",
            out.join(super::mode::RUN_FILE).display()
        ));
    }
    let clock_path = out.join(SESSION_CLOCK_FILE);
    let (clock, clock_source) = if clock_path.exists() {
        (read_json(&clock_path)?, clock_path.display().to_string())
    } else {
        (
            SessionClock::virtual_from(truth.t0_ns),
            "assumed --asap replay (virtual clock from t0_ns)".to_string(),
        )
    };
    Ok(EvalInputs {
        session: session.to_path_buf(),
        out: out.to_path_buf(),
        truth,
        requests: requests.into_iter().map(|(_, r)| r).collect(),
        head,
        decisions,
        transcript,
        clock,
        clock_source,
        notes,
        damaged_lines,
        run,
    })
}
