//! Which inputs a run had (`OUT/run.json`): *live* — what the glasses stream, no MPS — or
//! *offline* — with MPS's trajectory, semi-dense points, eye gaze or hands. The scorer
//! reports it first, so a figure is never read as live when MPS made it.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::error::EvalError;
use super::load::read_json;

/// The file in a run's output folder.
pub const RUN_FILE: &str = "run.json";

/// What a run's perception rested on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunMode {
    /// Only what the glasses stream (cameras, IMUs, magnetometer, barometer, audio).
    Live,
    /// The glasses' streams and MPS outputs.
    Offline,
}

/// `OUT/run.json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunInputs {
    /// Live or offline.
    pub mode: RunMode,
    /// The MPS inputs the run used (`device-pose`, `semidense-points`, `eye-gaze`,
    /// `hand-tracking`); empty in live mode.
    pub mps: Vec<String>,
    /// Whether the device pose was derived from the IMU (no pose in the input).
    pub pose_from_imu: bool,
}

impl RunInputs {
    /// From the MPS inputs a run used.
    pub fn new(mps: Vec<String>, pose_from_imu: bool) -> Self {
        Self {
            mode: if mps.is_empty() {
                RunMode::Live
            } else {
                RunMode::Offline
            },
            mps,
            pose_from_imu,
        }
    }

    /// Reads `out/run.json`; `None` when the run did not write one (older runs).
    pub fn read(out: &Path) -> Result<Option<Self>, EvalError> {
        let p = out.join(RUN_FILE);
        if !p.exists() {
            return Ok(None);
        }
        read_json(&p).map(Some)
    }
}

impl std::fmt::Display for RunMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            RunMode::Live => "live (no MPS)",
            RunMode::Offline => "offline (with MPS)",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_with_any_mps_input_is_offline() {
        assert_eq!(RunInputs::new(Vec::new(), true).mode, RunMode::Live);
        assert_eq!(
            RunInputs::new(vec!["eye-gaze".into()], true).mode,
            RunMode::Offline
        );
    }

    #[test]
    fn run_json_is_read_back_and_a_damaged_one_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(RunInputs::read(dir.path()).unwrap(), None);
        let r = RunInputs::new(vec!["device-pose".into()], false);
        std::fs::write(
            dir.path().join(RUN_FILE),
            serde_json::to_string(&r).unwrap(),
        )
        .unwrap();
        assert_eq!(RunInputs::read(dir.path()).unwrap(), Some(r));
        std::fs::write(dir.path().join(RUN_FILE), "{\"mode\": \"sideways\"}").unwrap();
        assert!(RunInputs::read(dir.path()).is_err());
    }
}
