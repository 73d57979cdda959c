//! Summaries: a one-line account of every MPS file found ([`MpsFiles::summaries`], streamed
//! so memory stays bounded: kind,
//! rows, first/last tracking time, backward time steps, error) and the services' own
//! `summary.json` files ([`read_service_summary`]).

use std::path::{Path, PathBuf};

use super::discover::MpsFiles;
use super::error::MpsError;
use super::monotonic::MonotonicCheck;
use super::{eye_gaze, hand_results, online_calib, semidense, trajectory, wrist_palm};
use crate::time::DeviceTime;

/// What kind of MPS file a summary describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum MpsFileKind {
    /// `closed_loop_trajectory.csv`.
    ClosedLoopTrajectory,
    /// `open_loop_trajectory.csv`.
    OpenLoopTrajectory,
    /// `online_calibration.jsonl`.
    OnlineCalibration,
    /// Semi-dense points (unfiltered row count).
    SemidensePoints,
    /// Semi-dense observations.
    SemidenseObservations,
    /// An eye-gaze CSV.
    EyeGaze,
    /// `wrist_and_palm_poses.csv`.
    WristAndPalm,
    /// `hand_tracking_results.csv`.
    HandTrackingResults,
}

/// A summary of one MPS file.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct MpsFileSummary {
    /// The kind of file.
    pub kind: MpsFileKind,
    /// The file.
    pub path: PathBuf,
    /// Rows (records) read successfully.
    pub rows: u64,
    /// First tracking time in ns (file order), for timed files with rows.
    pub first_tracking_ns: Option<i64>,
    /// Last tracking time in ns (file order).
    pub last_tracking_ns: Option<i64>,
    /// Steps where the tracking time went backwards (rows are never reordered).
    pub backward_steps: u64,
    /// The error that stopped reading, if any (rows before it are counted).
    pub error: Option<String>,
}

/// Streams `opened` once, keeping only counts and first/last times (memory stays bounded
/// however long the recording).
fn timed<T, I: Iterator<Item = Result<T, MpsError>>>(
    kind: MpsFileKind,
    path: &Path,
    opened: Result<I, MpsError>,
    time: impl Fn(&T) -> DeviceTime,
) -> MpsFileSummary {
    let mut check = MonotonicCheck::default();
    let (mut first, mut last, mut error) = (None, None, None);
    match opened {
        Err(e) => error = Some(e),
        Ok(iter) => {
            for r in iter {
                match r {
                    Ok(item) => {
                        let t = time(&item);
                        first.get_or_insert(t.ns());
                        last = Some(t.ns());
                        check.push(t);
                    }
                    Err(e) => {
                        error = Some(e);
                        break;
                    }
                }
            }
        }
    }
    let report = check.report();
    MpsFileSummary {
        kind,
        path: path.to_path_buf(),
        rows: report.count,
        first_tracking_ns: first,
        last_tracking_ns: last,
        backward_steps: report.backward_steps,
        error: error.map(|e| e.to_string()),
    }
}

fn counted(kind: MpsFileKind, path: &Path, rows: u64, error: Option<MpsError>) -> MpsFileSummary {
    MpsFileSummary {
        kind,
        path: path.to_path_buf(),
        rows,
        first_tracking_ns: None,
        last_tracking_ns: None,
        backward_steps: 0,
        error: error.map(|e| e.to_string()),
    }
}

/// Counts the rows of a streaming reader without keeping them.
fn count_rows<T, I: Iterator<Item = Result<T, MpsError>>>(
    opened: Result<I, MpsError>,
) -> (u64, Option<MpsError>) {
    match opened {
        Err(e) => (0, Some(e)),
        Ok(iter) => {
            let mut n = 0;
            for r in iter {
                match r {
                    Ok(_) => n += 1,
                    Err(e) => return (n, Some(e)),
                }
            }
            (n, None)
        }
    }
}

impl MpsFiles {
    /// Reads every file found and summarises it. Unreadable files are summarised with their
    /// error; this never fails. Eye gaze: every candidate in [`MpsFiles::eye_gaze_all`].
    pub fn summaries(&self) -> Vec<MpsFileSummary> {
        use MpsFileKind as K;
        let mut out = Vec::new();
        for (kind, path) in [
            (K::ClosedLoopTrajectory, &self.closed_loop),
            (K::OpenLoopTrajectory, &self.open_loop),
        ] {
            if let Some(p) = path {
                out.push(timed(kind, p, trajectory::TrajectoryReader::open(p), |x| {
                    x.tracking_time
                }));
            }
        }
        if let Some(p) = &self.online_calibration {
            out.push(timed(
                K::OnlineCalibration,
                p,
                online_calib::OnlineCalibrationReader::open(p),
                |x| x.tracking_time,
            ));
        }
        if let Some(p) = &self.semidense_points {
            let (n, e) = count_rows(semidense::SemidenseReader::open(p));
            out.push(counted(K::SemidensePoints, p, n, e));
        }
        if let Some(p) = &self.semidense_observations {
            let (n, e) = count_rows(semidense::ObservationReader::open(p));
            out.push(counted(K::SemidenseObservations, p, n, e));
        }
        for p in &self.eye_gaze_all {
            out.push(timed(
                K::EyeGaze,
                p,
                eye_gaze::EyeGazeReader::open(p),
                |x| x.tracking_time,
            ));
        }
        if let Some(p) = &self.wrist_and_palm {
            out.push(timed(
                K::WristAndPalm,
                p,
                wrist_palm::WristAndPalmReader::open(p),
                |x| x.tracking_time,
            ));
        }
        if let Some(p) = &self.hand_tracking_results {
            out.push(timed(
                K::HandTrackingResults,
                p,
                hand_results::HandTrackingReader::open(p),
                |x| x.tracking_time,
            ));
        }
        out
    }
}

/// A service's `summary.json` (SLAM, eye gaze or hand tracking).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ServiceSummary {
    /// The file.
    pub path: PathBuf,
    /// `version`, when present.
    pub version: Option<String>,
    /// `(operator, status)` for every top-level object with a `status` string (SLAM:
    /// "SLAM", "Aligner", …; eye gaze: "GazeInference"), in file order.
    pub statuses: Vec<(String, String)>,
    /// The whole document (hand tracking puts `mean_confidence`, `total_frames`,
    /// `valid_frame_fraction` at the top level).
    pub raw: serde_json::Value,
}

impl ServiceSummary {
    /// True when every reported status is `SUCCESS` (and at least one is reported).
    pub fn all_succeeded(&self) -> bool {
        !self.statuses.is_empty() && self.statuses.iter().all(|(_, s)| s == "SUCCESS")
    }
}

/// Reads a service `summary.json`.
pub fn read_service_summary(path: impl AsRef<Path>) -> Result<ServiceSummary, MpsError> {
    let path = path.as_ref();
    let bytes = std::fs::read(path).map_err(|source| MpsError::Open {
        path: path.to_path_buf(),
        source,
    })?;
    if bytes.iter().all(|b| b.is_ascii_whitespace()) {
        return Err(MpsError::Empty {
            path: path.to_path_buf(),
        });
    }
    let raw: serde_json::Value = serde_json::from_slice(&bytes).map_err(|e| MpsError::Json {
        path: path.to_path_buf(),
        line: e.line() as u64,
        message: format!("invalid JSON: {e}"),
    })?;
    let obj = raw.as_object().ok_or_else(|| MpsError::Json {
        path: path.to_path_buf(),
        line: 1,
        message: "expected a JSON object".into(),
    })?;
    let version = obj
        .get("version")
        .and_then(|v| v.as_str())
        .map(str::to_string);
    let statuses = obj
        .iter()
        .filter_map(|(k, v)| {
            let s = v.get("status")?.as_str()?;
            Some((k.clone(), s.to_string()))
        })
        .collect();
    Ok(ServiceSummary {
        path: path.to_path_buf(),
        version,
        statuses,
        raw,
    })
}
