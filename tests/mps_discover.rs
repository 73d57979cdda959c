//! Folder discovery and summaries on the bundled sample layout and on the current MPS
//! layout (`mps/slam`, `eye_gaze`, `hand_tracking`), built in a temporary folder.

use std::path::{Path, PathBuf};

use vista::aria::mps::*;

fn sample_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/gen1/mps_sample")
}

fn reference() -> serde_json::Value {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/reference/mps_sample.json");
    serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap()
}

fn name(p: &Option<PathBuf>) -> String {
    let p = p.as_ref().expect("file should be found");
    let parent = p.parent().unwrap().file_name().unwrap().to_string_lossy();
    format!("{parent}/{}", p.file_name().unwrap().to_string_lossy())
}

#[test]
fn discovers_the_sample_layout() {
    let f = MpsFiles::discover(&sample_dir());
    assert_eq!(
        name(&f.closed_loop),
        "trajectory/closed_loop_trajectory.csv"
    );
    assert_eq!(name(&f.open_loop), "trajectory/open_loop_trajectory.csv");
    assert_eq!(
        name(&f.online_calibration),
        "trajectory/online_calibration.jsonl"
    );
    assert_eq!(name(&f.semidense_points), "trajectory/global_points.csv.gz");
    assert!(f.semidense_observations.is_none());
    // The vergence model is preferred over the old model (no personalized file here).
    assert_eq!(name(&f.eye_gaze), "eye_gaze_vergence/generalized_gaze.csv");
    assert_eq!(f.eye_gaze_all.len(), 3);
    assert_eq!(
        name(&f.wrist_and_palm),
        "hand_tracking/wrist_and_palm_poses_v2.csv"
    );
    assert_eq!(
        name(&f.hand_tracking_results),
        "hand_tracking/hand_tracking_results_v2.csv"
    );
    assert_eq!(name(&f.slam_summary), "trajectory/summary.json");
    assert_eq!(name(&f.eye_gaze_summary), "eye_gaze/summary.json");
    assert_eq!(name(&f.hand_tracking_summary), "hand_tracking/summary.json");
    assert!(!f.is_empty());
}

#[test]
fn summaries_of_the_sample_agree_with_projectaria_tools_counts() {
    let r = reference();
    let f = MpsFiles::discover(&sample_dir());
    let s = f.summaries();
    let get = |kind: MpsFileKind| s.iter().find(|x| x.kind == kind).unwrap();
    for x in &s {
        assert!(x.error.is_none(), "{x:?}");
        assert_eq!(x.backward_steps, 0, "{x:?}");
    }
    let closed = get(MpsFileKind::ClosedLoopTrajectory);
    assert_eq!(closed.rows, r["closed_loop"]["count"].as_u64().unwrap());
    let rows = r["closed_loop"]["rows"].as_array().unwrap();
    assert_eq!(
        closed.first_tracking_ns,
        Some(rows[0]["tracking_us"].as_i64().unwrap() * 1000)
    );
    assert_eq!(
        closed.last_tracking_ns,
        Some(rows[rows.len() - 1]["tracking_us"].as_i64().unwrap() * 1000)
    );
    assert_eq!(
        get(MpsFileKind::OpenLoopTrajectory).rows,
        r["open_loop"]["count"].as_u64().unwrap()
    );
    assert_eq!(
        get(MpsFileKind::OnlineCalibration).rows,
        r["online_calibration"]["count"].as_u64().unwrap()
    );
    assert_eq!(
        get(MpsFileKind::SemidensePoints).rows,
        r["semidense_points"]["count"].as_u64().unwrap()
    );
    assert_eq!(
        s.iter().filter(|x| x.kind == MpsFileKind::EyeGaze).count(),
        3
    );
    assert_eq!(
        get(MpsFileKind::WristAndPalm).rows,
        r["wrist_and_palm"]["hand_tracking/wrist_and_palm_poses_v2.csv"]["count"]
            .as_u64()
            .unwrap()
    );
    assert_eq!(
        get(MpsFileKind::HandTrackingResults).rows,
        r["hand_tracking_results"]["hand_tracking/hand_tracking_results_v2.csv"]["count"]
            .as_u64()
            .unwrap()
    );
    // Summaries serialise (for `vista` reports).
    let json = serde_json::to_string(&s).unwrap();
    assert!(
        json.contains("\"kind\":\"closed-loop-trajectory\""),
        "{json}"
    );
}

#[test]
fn reads_service_summaries() {
    let f = MpsFiles::discover(&sample_dir());
    let slam = read_service_summary(f.slam_summary.unwrap()).unwrap();
    assert_eq!(slam.version.as_deref(), Some("1.2.3"));
    assert!(slam
        .statuses
        .iter()
        .any(|(k, s)| k == "SLAM" && s == "SUCCESS"));
    assert_eq!(slam.statuses.len(), 7);
    assert!(slam.all_succeeded());
    let gaze = read_service_summary(f.eye_gaze_summary.unwrap()).unwrap();
    assert_eq!(
        gaze.statuses,
        vec![("GazeInference".to_string(), "SUCCESS".to_string())]
    );
    let hands = read_service_summary(f.hand_tracking_summary.unwrap()).unwrap();
    assert_eq!(hands.raw["total_frames"], 311);
    assert!(!hands.all_succeeded(), "no status reported");
}

#[test]
fn discovers_current_layout_from_session_folder() {
    let dir = tempfile::tempdir().unwrap();
    let mps = dir.path().join("mps");
    for d in ["slam", "eye_gaze", "hand_tracking"] {
        std::fs::create_dir_all(mps.join(d)).unwrap();
    }
    let touch = |rel: &str| std::fs::write(mps.join(rel), "x\n").unwrap();
    touch("slam/closed_loop_trajectory.csv");
    touch("slam/semidense_points.csv.gz");
    touch("slam/semidense_observations.csv.gz");
    touch("eye_gaze/general_eye_gaze.csv");
    touch("eye_gaze/personalized_eye_gaze.csv");
    touch("hand_tracking/wrist_and_palm_poses.csv");
    touch("hand_tracking/hand_tracking_results.csv");
    // From the session folder (containing mps/) and from mps/ itself: the same files.
    let a = MpsFiles::discover(dir.path());
    let b = MpsFiles::discover(&mps);
    assert_eq!(a, b);
    assert_eq!(name(&a.closed_loop), "slam/closed_loop_trajectory.csv");
    assert_eq!(name(&a.semidense_points), "slam/semidense_points.csv.gz");
    assert_eq!(
        name(&a.semidense_observations),
        "slam/semidense_observations.csv.gz"
    );
    assert_eq!(name(&a.eye_gaze), "eye_gaze/personalized_eye_gaze.csv");
    assert_eq!(
        name(&a.wrist_and_palm),
        "hand_tracking/wrist_and_palm_poses.csv"
    );
    assert!(a.open_loop.is_none() && a.online_calibration.is_none());
    // The junk files are summarised with their errors, never a panic.
    let s = a.summaries();
    assert!(s.iter().all(|x| x.error.is_some()), "{s:?}");
    assert!(MpsFiles::discover(&dir.path().join("nothing")).is_empty());
}
