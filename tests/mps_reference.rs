//! The MPS readers against Meta's projectaria_tools on the real Gen1 sample
//! (`tests/data/gen1/mps_sample`). Expected values were produced by `scripts/ref_mps.py`
//! with projectaria_tools and committed in `tests/data/reference/mps_sample.json`.
//!
//! Tolerances: projectaria_tools stores trajectory, hand and point positions as f64
//! (compared to 1e-12), but eye-gaze angles as f32 parsed by its own CSV parser, which can be
//! one f32 ulp off; those are compared to 1e-6 (a few f32 ulps at these magnitudes).

use std::path::{Path, PathBuf};

use nalgebra::Vector3;
use serde_json::Value;
use vista::aria::mps::*;

const F64_TOL: f64 = 1e-12;
const F32_TOL: f64 = 1e-6;

fn sample(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/gen1/mps_sample")
        .join(rel)
}

fn reference() -> Value {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/reference/mps_sample.json");
    serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap()
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap()
}

fn v3(v: &Value) -> Vector3<f64> {
    let a = v.as_array().unwrap();
    assert_eq!(a.len(), 3);
    Vector3::new(f(&a[0]), f(&a[1]), f(&a[2]))
}

fn close(what: &str, got: f64, want: f64, tol: f64) {
    assert!(
        (got - want).abs() <= tol,
        "{what}: got {got}, projectaria_tools {want} (tol {tol})"
    );
}

fn close3(what: &str, got: &Vector3<f64>, want: &Vector3<f64>, tol: f64) {
    for i in 0..3 {
        close(&format!("{what}[{i}]"), got[i], want[i], tol);
    }
}

fn index(row: &Value) -> usize {
    row["index"].as_u64().unwrap() as usize
}

fn us(row: &Value, key: &str) -> i64 {
    row[key].as_i64().unwrap()
}

fn check_trajectory(file: &str, key: &str, kind: TrajectoryKind) {
    let r = reference();
    let want = &r[key];
    let poses = read_trajectory(sample(file)).unwrap();
    assert_eq!(poses.len() as u64, want["count"].as_u64().unwrap());
    for row in want["rows"].as_array().unwrap() {
        let p = &poses[index(row)];
        let i = index(row);
        assert_eq!(p.kind, kind);
        assert_eq!(
            p.tracking_time.ns(),
            us(row, "tracking_us") * 1000,
            "row {i}"
        );
        assert_eq!(
            p.utc_ns.unwrap().div_euclid(1000),
            us(row, "utc_us"),
            "row {i}"
        );
        assert_eq!(p.graph_uid.as_deref(), row["graph_uid"].as_str());
        close3(
            "t",
            &p.t_world_device.translation.vector,
            &v3(&row["t"]),
            F64_TOL,
        );
        let q = p.t_world_device.rotation.quaternion();
        let qw = row["q_wxyz"].as_array().unwrap();
        for (got, want) in [q.w, q.i, q.j, q.k].iter().zip(qw) {
            close("q", *got, f(want), F64_TOL);
        }
        close3(
            "v",
            &p.linear_velocity_mps,
            &v3(&row["linear_velocity"]),
            F64_TOL,
        );
        close3(
            "w",
            &p.angular_velocity_device_radps,
            &v3(&row["angular_velocity_device"]),
            F64_TOL,
        );
        close3("g", &p.gravity_world_mps2, &v3(&row["gravity"]), F64_TOL);
        close(
            "quality",
            p.quality_score as f64,
            f(&row["quality_score"]),
            F64_TOL,
        );
    }
    // Physical sanity over every row: unit quaternions, gravity ≈ 9.81, time order.
    for p in &poses {
        assert!((p.t_world_device.rotation.quaternion().norm() - 1.0).abs() < 1e-12);
        assert!((p.gravity_world_mps2.norm() - 9.81).abs() < 1e-3);
    }
    assert!(check_monotonic(poses.iter().map(|p| p.tracking_time)).is_non_decreasing());
}

#[test]
fn closed_loop_trajectory_matches_projectaria_tools() {
    check_trajectory(
        "trajectory/closed_loop_trajectory.csv",
        "closed_loop",
        TrajectoryKind::ClosedLoop,
    );
}

#[test]
fn open_loop_trajectory_matches_projectaria_tools() {
    check_trajectory(
        "trajectory/open_loop_trajectory.csv",
        "open_loop",
        TrajectoryKind::OpenLoop,
    );
}

#[test]
fn streaming_trajectory_reader_equals_bulk_read() {
    let path = sample("trajectory/open_loop_trajectory.csv");
    let reader = TrajectoryReader::open(&path).unwrap();
    assert_eq!(reader.kind(), TrajectoryKind::OpenLoop);
    let streamed: Vec<_> = reader.map(Result::unwrap).collect();
    assert_eq!(streamed, read_trajectory(&path).unwrap());
}

#[test]
fn eye_gaze_every_schema_matches_projectaria_tools() {
    let r = reference();
    let files = r["eye_gaze"].as_object().unwrap();
    assert_eq!(files.len(), 3);
    for (file, want) in files {
        let gazes = read_eye_gaze(sample(file)).unwrap();
        assert_eq!(
            gazes.len() as u64,
            want["count"].as_u64().unwrap(),
            "{file}"
        );
        let vergence_file = file.contains("vergence");
        for row in want["rows"].as_array().unwrap() {
            let g = &gazes[index(row)];
            let ctx = format!("{file} row {}", index(row));
            assert_eq!(g.tracking_time.ns(), us(row, "tracking_us") * 1000, "{ctx}");
            close(&format!("{ctx} yaw"), g.yaw_rad, f(&row["yaw"]), F32_TOL);
            close(
                &format!("{ctx} pitch"),
                g.pitch_rad,
                f(&row["pitch"]),
                F32_TOL,
            );
            // projectaria_tools writes 0 for "no depth" and for absent bounds.
            close(
                &format!("{ctx} depth"),
                g.depth_m.unwrap_or(0.0),
                f(&row["depth"]),
                F32_TOL,
            );
            close(
                &format!("{ctx} pitch_low"),
                g.pitch_low_rad.unwrap(),
                f(&row["pitch_low"]),
                F32_TOL,
            );
            close(
                &format!("{ctx} pitch_high"),
                g.pitch_high_rad.unwrap(),
                f(&row["pitch_high"]),
                F32_TOL,
            );
            close(
                &format!("{ctx} yaw_low"),
                g.yaw_low_rad.unwrap_or(0.0),
                f(&row["yaw_low"]),
                F32_TOL,
            );
            close(
                &format!("{ctx} yaw_high"),
                g.yaw_high_rad.unwrap_or(0.0),
                f(&row["yaw_high"]),
                F32_TOL,
            );
            assert_eq!(
                g.session_uid.as_deref().unwrap_or(""),
                row["session_uid"].as_str().unwrap(),
                "{ctx}"
            );
            close3(
                &format!("{ctx} unit vector"),
                &g.unit_vector_cpf(),
                &v3(&row["unit_vector_cpf"]),
                F32_TOL,
            );
            assert!((g.unit_vector_cpf().norm() - 1.0).abs() < 1e-12);
            close3(
                &format!("{ctx} point at 1.5 m"),
                &g.point_at_depth_cpf(1.5),
                &v3(&row["point_at_1_5m_cpf"]),
                2.0 * F32_TOL,
            );
            match &g.vergence {
                Some(v) => {
                    assert!(vergence_file, "{ctx}");
                    close("left yaw", v.left_yaw_rad, f(&row["left_yaw"]), F32_TOL);
                    close("right yaw", v.right_yaw_rad, f(&row["right_yaw"]), F32_TOL);
                    close3(
                        "left eye",
                        &v.left_eye_cpf_m,
                        &v3(&row["left_eye"]),
                        F32_TOL,
                    );
                    close3(
                        "right eye",
                        &v.right_eye_cpf_m,
                        &v3(&row["right_eye"]),
                        F32_TOL,
                    );
                }
                None => assert!(!vergence_file, "{ctx}"),
            }
        }
    }
}

#[test]
fn eye_gaze_schemas_are_detected_and_sampled_to_runtime() {
    let oldest = EyeGazeReader::open(sample("eye_gaze/eyegaze.csv")).unwrap();
    assert_eq!(oldest.decoder().schema(), GazeSchema::Legacy);
    let vergence = EyeGazeReader::open(sample("eye_gaze_vergence/generalized_gaze.csv")).unwrap();
    assert_eq!(vergence.decoder().schema(), GazeSchema::Gen1Vergence);
    let g = read_eye_gaze(sample("eye_gaze/eyegaze.csv")).unwrap();
    // The oldest file has empty depth cells and no session uid.
    assert!(g
        .iter()
        .all(|x| x.depth_m.is_none() && x.session_uid.is_none()));
    assert_eq!(g[0].to_sample().depth_m, None);
    let v = read_eye_gaze(sample("eye_gaze_vergence/generalized_gaze.csv")).unwrap();
    let s = v[0].to_sample();
    assert_eq!(s.yaw_rad, v[0].yaw_rad as f32);
    assert_eq!(s.depth_m, v[0].depth_m.map(|d| d as f32));
    assert!(s.depth_m.is_some());
}

fn check_wrist(file: &str, want: &Value, with_normals: bool) {
    let rows = read_wrist_and_palm(sample(file)).unwrap();
    assert_eq!(rows.len() as u64, want["count"].as_u64().unwrap(), "{file}");
    let mut tracked = 0;
    for row in want["rows"].as_array().unwrap() {
        let w = &rows[index(row)];
        assert_eq!(w.tracking_time.ns(), us(row, "tracking_us") * 1000);
        for (side, got) in [("left", &w.left), ("right", &w.right)] {
            let exp = &row[side];
            match got {
                None => assert!(exp.is_null(), "{file} row {} {side}", index(row)),
                Some(h) => {
                    tracked += 1;
                    close(
                        "confidence",
                        h.confidence as f64,
                        f(&exp["confidence"]),
                        1e-7,
                    );
                    close3("wrist", &h.wrist_device_m, &v3(&exp["wrist"]), F64_TOL);
                    close3("palm", &h.palm_device_m, &v3(&exp["palm"]), F64_TOL);
                    assert_eq!(h.wrist_normal.is_some(), with_normals);
                    if let (Some(n), false) = (h.wrist_normal, exp["wrist_normal"].is_null()) {
                        close3("wrist normal", &n, &v3(&exp["wrist_normal"]), F64_TOL);
                        let p = h.palm_normal.unwrap();
                        close3("palm normal", &p, &v3(&exp["palm_normal"]), F64_TOL);
                    }
                }
            }
        }
        let s = w.to_sample();
        assert_eq!(s.left.is_some(), w.left.is_some());
        assert_eq!(s.right.is_some(), w.right.is_some());
    }
    assert!(tracked > 0, "{file}: the sample has tracked hands");
}

#[test]
fn wrist_and_palm_v1_and_v2_match_projectaria_tools() {
    let r = reference();
    let files = &r["wrist_and_palm"];
    check_wrist(
        "hand_tracking/wrist_and_palm_poses.csv",
        &files["hand_tracking/wrist_and_palm_poses.csv"],
        false,
    );
    check_wrist(
        "hand_tracking/wrist_and_palm_poses_v2.csv",
        &files["hand_tracking/wrist_and_palm_poses_v2.csv"],
        true,
    );
}

#[test]
fn hand_tracking_results_v1_and_v2_match_projectaria_tools() {
    let r = reference();
    for (file, normals) in [
        ("hand_tracking/hand_tracking_results_v1.csv", false),
        ("hand_tracking/hand_tracking_results_v2.csv", true),
    ] {
        let want = &r["hand_tracking_results"][file];
        let rows = read_hand_tracking_results(sample(file)).unwrap();
        assert_eq!(rows.len() as u64, want["count"].as_u64().unwrap(), "{file}");
        for row in want["rows"].as_array().unwrap() {
            let h = &rows[index(row)];
            assert_eq!(h.tracking_time.ns(), us(row, "tracking_us") * 1000);
            for (side, got) in [("left", &h.left), ("right", &h.right)] {
                let exp = &row[side];
                let Some(hand) = got else {
                    assert!(exp.is_null(), "{file} row {} {side}", index(row));
                    continue;
                };
                close(
                    "confidence",
                    hand.confidence as f64,
                    f(&exp["confidence"]),
                    1e-7,
                );
                let lms = exp["landmarks"].as_array().unwrap();
                assert_eq!(lms.len(), 21);
                for (i, lm) in lms.iter().enumerate() {
                    close3(
                        &format!("landmark {i}"),
                        &hand.landmarks_device_m[i],
                        &v3(lm),
                        F64_TOL,
                    );
                }
                let pose = &exp["t_device_wrist"];
                close3(
                    "t_device_wrist",
                    &hand.t_device_wrist.translation.vector,
                    &v3(&pose["t"]),
                    F64_TOL,
                );
                let q = hand.t_device_wrist.rotation.quaternion();
                for (got, want) in [q.w, q.i, q.j, q.k]
                    .iter()
                    .zip(pose["q_wxyz"].as_array().unwrap())
                {
                    close("q_device_wrist", *got, f(want), F64_TOL);
                }
                assert_eq!(hand.normals.is_some(), normals, "{file}");
                if let Some(n) = &hand.normals {
                    close3(
                        "wrist normal",
                        &n.wrist_normal_device,
                        &v3(&exp["wrist_normal"]),
                        F64_TOL,
                    );
                    close3(
                        "palm normal",
                        &n.palm_normal_device,
                        &v3(&exp["palm_normal"]),
                        F64_TOL,
                    );
                }
                assert_eq!(hand.wrist_device_m(), hand.landmarks_device_m[5]);
            }
        }
    }
}

#[test]
fn semidense_points_and_quality_filter_match_projectaria_tools() {
    let r = reference();
    let want = &r["semidense_points"];
    let path = sample("trajectory/global_points.csv.gz");
    let all = read_semidense_points(&path, PointFilter::none()).unwrap();
    assert_eq!(all.len() as u64, want["count"].as_u64().unwrap());
    for row in want["rows"].as_array().unwrap() {
        let p = &all[index(row)];
        assert_eq!(p.uid, row["uid"].as_u64().unwrap());
        assert_eq!(p.graph_uid, row["graph_uid"].as_str().unwrap());
        close3(
            "position",
            &p.position_world_m,
            &v3(&row["position_world"]),
            F64_TOL,
        );
        // f32 in both readers; projectaria_tools' CSV parser may be an ulp off.
        let ulps = |x: f64| 4.0 * f32::EPSILON as f64 * x.abs();
        let (inv, dist) = (f(&row["inv_dist_std"]), f(&row["dist_std"]));
        close("inv_dist_std", p.inv_dist_std as f64, inv, ulps(inv));
        close("dist_std", p.dist_std as f64, dist, ulps(dist));
    }
    for case in want["filtered"].as_array().unwrap() {
        let filter = PointFilter {
            max_inv_dist_std: f(&case["max_inv_dist_std"]),
            max_dist_std: f(&case["max_dist_std"]),
        };
        let kept = read_semidense_points(&path, filter).unwrap();
        assert_eq!(
            kept.len() as u64,
            case["count"].as_u64().unwrap(),
            "{filter:?}"
        );
        assert_eq!(kept.first().map(|p| p.uid), case["first_uid"].as_u64());
        assert_eq!(kept.last().map(|p| p.uid), case["last_uid"].as_u64());
    }
    assert_eq!(PointFilter::default(), PointFilter::NOMINAL);
    assert_eq!(
        read_semidense_points(&path, PointFilter::default())
            .unwrap()
            .len() as u64,
        want["filtered"][0]["count"].as_u64().unwrap()
    );
}

#[test]
fn online_calibration_matches_projectaria_tools() {
    let r = reference();
    let want = &r["online_calibration"];
    let calibs = read_online_calibrations(sample("trajectory/online_calibration.jsonl")).unwrap();
    assert_eq!(calibs.len() as u64, want["count"].as_u64().unwrap());
    for row in want["rows"].as_array().unwrap() {
        let c = &calibs[index(row)];
        assert_eq!(c.tracking_time.ns(), us(row, "tracking_us") * 1000);
        assert_eq!(c.utc_ns.unwrap().div_euclid(1000), us(row, "utc_us"));
        let labels = |v: &[Value]| -> Vec<String> {
            v.iter()
                .map(|x| x["Label"].as_str().unwrap().to_string())
                .collect()
        };
        let want_labels = |k: &str| -> Vec<String> {
            row[k]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_str().unwrap().to_string())
                .collect()
        };
        assert_eq!(labels(&c.camera_calibrations), want_labels("camera_labels"));
        assert_eq!(labels(&c.imu_calibrations), want_labels("imu_labels"));
        let params = c.camera_calibrations[0]["Projection"]["Params"]
            .as_array()
            .unwrap();
        let want_params = row["camera0_projection_params"].as_array().unwrap();
        assert_eq!(params.len(), want_params.len());
        for (got, exp) in params.iter().zip(want_params) {
            close("projection param", f(got), f(exp), F64_TOL);
        }
        // This sample predates MPS 1.1: no image sizes or readout times.
        assert!(c.image_sizes.is_none() && c.readout_times_s.is_none());
    }
}

#[test]
fn gen2_eye_gaze_matches_projectaria_tools_on_synthetic_file() {
    let r = reference();
    let want = &r["eye_gaze_gen2_synthetic"];
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/mps_synthetic/gen2_eye_gaze.csv");
    let reader = EyeGazeReader::open(&path).unwrap();
    assert_eq!(reader.decoder().schema(), GazeSchema::Gen2);
    let gazes = read_eye_gaze(&path).unwrap();
    assert_eq!(gazes.len() as u64, want["count"].as_u64().unwrap());
    for row in want["rows"].as_array().unwrap() {
        let g = &gazes[index(row)];
        assert_eq!(g.tracking_time.ns(), us(row, "tracking_us") * 1000);
        close("yaw", g.yaw_rad, f(&row["yaw"]), F32_TOL);
        close("pitch", g.pitch_rad, f(&row["pitch"]), F32_TOL);
        let valid = row["spatial_gaze_point_valid"].as_bool().unwrap();
        assert_eq!(g.depth_m.is_some(), valid, "row {}", index(row));
        // projectaria_tools reports 0 when the rays do not converge reliably.
        close("depth", g.depth_m.unwrap_or(0.0), f(&row["depth"]), F32_TOL);
        let v = g.vergence.unwrap();
        assert!(v.left_pitch_rad.is_some() && v.right_pitch_rad.is_some());
    }
}

#[test]
fn point_observations_match_projectaria_tools_on_synthetic_file() {
    let r = reference();
    let want = &r["semidense_observations_synthetic"];
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/mps_synthetic/semidense_observations.csv.gz");
    let obs = read_point_observations(&path).unwrap();
    assert_eq!(obs.len() as u64, want["count"].as_u64().unwrap());
    for row in want["rows"].as_array().unwrap() {
        let o = &obs[index(row)];
        assert_eq!(o.uid, row["uid"].as_u64().unwrap());
        assert_eq!(o.frame_tracking_time.ns(), us(row, "tracking_us") * 1000);
        assert_eq!(o.camera_serial, row["camera_serial"].as_str().unwrap());
        let uv = row["uv"].as_array().unwrap();
        for (got, exp) in o.uv_px.iter().zip(uv) {
            // f32 in both; projectaria_tools' CSV parser may be an ulp off.
            let exp = f(exp);
            close(
                "uv",
                *got as f64,
                exp,
                4.0 * f32::EPSILON as f64 * exp.abs(),
            );
        }
    }
}
