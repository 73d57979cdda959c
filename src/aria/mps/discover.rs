//! Finding the MPS outputs of a recording on disk.
//!
//! [`MpsFiles::discover`] accepts an `mps_<name>_vrs/` folder, a session's `mps/` folder, a
//! folder *containing* `mps/`, or one service folder itself. It looks in the folder and in
//! `slam/` (current) and `trajectory/` (deprecated alias), `eye_gaze/`,
//! `eye_gaze_vergence/` and `hand_tracking/` (file names from projectaria_tools
//! `MpsFileNames.h`, plus the names of the bundled sample). Missing files are `None`;
//! discovery never fails.
//!
//! Eye-gaze choice ([`MpsFiles::eye_gaze`]): personalized (`personalized_eye_gaze.csv`, old
//! name `calibrated_eye_gaze.csv`) over general (`general_eye_gaze.csv`,
//! `generalized_eye_gaze.csv`, `generalized_gaze.csv`, oldest `eyegaze.csv`), because a
//! personalized model is fitted to the wearer. Within each, files in `eye_gaze_vergence/`
//! (the newer vergence model, which also gives depth) come before `eye_gaze/`. All candidates
//! are listed in [`MpsFiles::eye_gaze_all`] in that order.
//!
//! Hands: `wrist_and_palm_poses.csv` and `hand_tracking_results.csv`, falling back to the
//! versioned names of the sample (`*_v2.csv` before `*_v1.csv`/unversioned), preferring
//! files with normals.

use std::path::{Path, PathBuf};

/// The MPS files found for one recording.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct MpsFiles {
    /// The folder that was searched.
    pub root: PathBuf,
    /// `closed_loop_trajectory.csv`.
    pub closed_loop: Option<PathBuf>,
    /// `open_loop_trajectory.csv`.
    pub open_loop: Option<PathBuf>,
    /// `online_calibration.jsonl`.
    pub online_calibration: Option<PathBuf>,
    /// `semidense_points.csv.gz` (or the older `global_points.csv.gz`).
    pub semidense_points: Option<PathBuf>,
    /// `semidense_observations.csv.gz`.
    pub semidense_observations: Option<PathBuf>,
    /// The preferred eye-gaze file (see the module doc for the order).
    pub eye_gaze: Option<PathBuf>,
    /// Every eye-gaze file found, most preferred first.
    pub eye_gaze_all: Vec<PathBuf>,
    /// `wrist_and_palm_poses.csv` (or a versioned sample name).
    pub wrist_and_palm: Option<PathBuf>,
    /// `hand_tracking_results.csv` (or a versioned sample name).
    pub hand_tracking_results: Option<PathBuf>,
    /// SLAM `summary.json`.
    pub slam_summary: Option<PathBuf>,
    /// Eye-gaze `summary.json`.
    pub eye_gaze_summary: Option<PathBuf>,
    /// Hand-tracking `summary.json`.
    pub hand_tracking_summary: Option<PathBuf>,
}

const SLAM_DIRS: [&str; 3] = ["slam", "trajectory", ""];
const GAZE_DIRS: [&str; 3] = ["eye_gaze_vergence", "eye_gaze", ""];
const HAND_DIRS: [&str; 2] = ["hand_tracking", ""];
const SERVICE_DIRS: [&str; 5] = [
    "slam",
    "trajectory",
    "eye_gaze",
    "eye_gaze_vergence",
    "hand_tracking",
];

fn first(root: &Path, dirs: &[&str], names: &[&str]) -> Option<PathBuf> {
    all(root, dirs, names).into_iter().next()
}

/// Every existing `root/dir/name`, names in the outer loop (name order is the preference).
fn all(root: &Path, dirs: &[&str], names: &[&str]) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for name in names {
        for dir in dirs {
            let p = if dir.is_empty() {
                root.join(name)
            } else {
                root.join(dir).join(name)
            };
            if p.is_file() {
                found.push(p);
            }
        }
    }
    found
}

impl MpsFiles {
    /// Looks for MPS outputs under `dir` (see the module doc). Never fails.
    pub fn discover(dir: &Path) -> MpsFiles {
        let has_services = |d: &Path| SERVICE_DIRS.iter().any(|s| d.join(s).is_dir());
        let root = if !has_services(dir) && dir.join("mps").is_dir() {
            dir.join("mps")
        } else {
            dir.to_path_buf()
        };
        let r = root.as_path();
        let personalized = all(
            r,
            &GAZE_DIRS,
            &["personalized_eye_gaze.csv", "calibrated_eye_gaze.csv"],
        );
        let general = all(
            r,
            &GAZE_DIRS,
            &[
                "general_eye_gaze.csv",
                "generalized_eye_gaze.csv",
                "generalized_gaze.csv",
                "eyegaze.csv",
            ],
        );
        // Within each group, prefer the vergence folder: re-sort stably by folder rank.
        let folder_rank = |p: &PathBuf| {
            let parent = p
                .parent()
                .and_then(|d| d.file_name())
                .and_then(|n| n.to_str());
            match parent {
                Some("eye_gaze_vergence") => 0,
                Some("eye_gaze") => 1,
                _ => 2,
            }
        };
        let mut personalized = personalized;
        personalized.sort_by_key(folder_rank);
        let mut general = general;
        general.sort_by_key(folder_rank);
        let eye_gaze_all: Vec<PathBuf> = personalized.into_iter().chain(general).collect();
        MpsFiles {
            closed_loop: first(r, &SLAM_DIRS, &["closed_loop_trajectory.csv"]),
            open_loop: first(r, &SLAM_DIRS, &["open_loop_trajectory.csv"]),
            online_calibration: first(r, &SLAM_DIRS, &["online_calibration.jsonl"]),
            semidense_points: first(
                r,
                &SLAM_DIRS,
                &[
                    "semidense_points.csv.gz",
                    "global_points.csv.gz",
                    "semidense_points.csv",
                    "global_points.csv",
                ],
            ),
            semidense_observations: first(
                r,
                &SLAM_DIRS,
                &[
                    "semidense_observations.csv.gz",
                    "semidense_observations.csv",
                ],
            ),
            eye_gaze: eye_gaze_all.first().cloned(),
            eye_gaze_all,
            wrist_and_palm: first(
                r,
                &HAND_DIRS,
                &[
                    "wrist_and_palm_poses.csv",
                    "wrist_and_palm_poses_v2.csv",
                    "wrist_and_palm_poses_v1.csv",
                ],
            )
            .map(|p| prefer_v2(p, "wrist_and_palm_poses")),
            hand_tracking_results: first(
                r,
                &HAND_DIRS,
                &[
                    "hand_tracking_results.csv",
                    "hand_tracking_results_v2.csv",
                    "hand_tracking_results_v1.csv",
                ],
            )
            .map(|p| prefer_v2(p, "hand_tracking_results")),
            slam_summary: first(r, &SLAM_DIRS[..2], &["summary.json"]),
            eye_gaze_summary: first(r, &GAZE_DIRS[..2], &["summary.json"]),
            hand_tracking_summary: first(r, &HAND_DIRS[..1], &["summary.json"]),
            root,
        }
    }

    /// True when nothing was found.
    pub fn is_empty(&self) -> bool {
        self.closed_loop.is_none()
            && self.open_loop.is_none()
            && self.online_calibration.is_none()
            && self.semidense_points.is_none()
            && self.semidense_observations.is_none()
            && self.eye_gaze_all.is_empty()
            && self.wrist_and_palm.is_none()
            && self.hand_tracking_results.is_none()
    }
}

/// When the unversioned file exists next to a `_v2` sibling (the sample ships both, the
/// unversioned one being v1), take the `_v2` one: it carries the normals.
fn prefer_v2(found: PathBuf, stem: &str) -> PathBuf {
    let is_plain = found
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n == format!("{stem}.csv"));
    if is_plain {
        let v2 = found.with_file_name(format!("{stem}_v2.csv"));
        if v2.is_file() {
            return v2;
        }
    }
    found
}
