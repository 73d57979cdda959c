//! The `find_exit` scenario end to end: a person crossing the hall is drawn in the RGB
//! frames where the calibration projects them, gets semi-dense points while crossing, and
//! is a moving hazard in the ground truth whose alert deadline matches the distance
//! computed here from the trajectory file and the person's path (worked out by hand from
//! the scenario: from (8.5, 2) toward (8.5, −2) at 1 m/s from 12.5 s). The reach for the
//! door frame appears in `wrist_and_palm_poses.csv`: right hand only, at SLAM frame times,
//! moving smoothly, near the target while holding and seen by the RGB camera.

use std::path::Path;

use nalgebra::{Point3, Vector3};
use vista::aria::calib::DeviceCalibration;
use vista::aria::mps::{
    read_point_observations, read_semidense_points, read_trajectory, read_wrist_and_palm,
    PointFilter, TrajectoryPose,
};
use vista::aria::recorded_calib::recording_calibration;
use vista::aria::recording::{decode_image, AriaRecording};
use vista::sample::{Payload, StreamId};
use vista::synth::{find_scenario, write_session, SynthOptions};

const CALIB: &str = "calibration/aria_gen1_1WM09380041283_factory.json";
const T0_NS: i64 = 1_000_000_000;

/// The crossing person's floor position at `t_s` (first leg of the path only).
fn person(t_s: f64) -> [f64; 2] {
    let walked = (t_s - 12.5).clamp(0.0, 4.0);
    [8.5, 2.0 - walked]
}

fn pose_at(traj: &[TrajectoryPose], ns: i64) -> &TrajectoryPose {
    let i = traj.partition_point(|p| p.tracking_time.ns() < ns);
    assert_eq!(traj[i].tracking_time.ns(), ns);
    &traj[i]
}

#[test]
fn the_crossing_person_is_rendered_mapped_and_a_hazard() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path();
    let sc = find_scenario(Path::new("scenarios"), "find_exit").unwrap();
    // The generator's geometry (truth, frames, points) checked through the trajectory
    // file: exact MPS files (`--mps-exact`), not the MPS-like estimates.
    let opts = SynthOptions {
        seed: 5,
        duration_s: Some(17.0),
        rgb_fps: Some(2.0),
        mps_error: None,
        ..SynthOptions::default()
    };
    write_session(&sc, dir, &opts).unwrap();
    let traj = read_trajectory(dir.join("mps/slam/closed_loop_trajectory.csv")).unwrap();

    // Ground truth: the person is a moving hazard; at its alert deadline the wearer's
    // head is within 1.5 m (+ one 10 ms scan step at walking speed) of the person.
    let gt: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("ground_truth.json")).unwrap())
            .unwrap();
    let hz = gt["hazards"].as_array().unwrap();
    let trolley = hz.iter().find(|h| h["label"] == "luggage trolley").unwrap();
    assert_eq!(trolley["moving"], false);
    let p = hz.iter().find(|h| h["label"] == "person crossing").unwrap();
    assert_eq!(p["kind"], "person");
    assert_eq!(p["moving"], true);
    let from = p["relevant_from_ns"].as_i64().unwrap();
    let latest = p["latest_alert_ns"].as_i64().unwrap();
    assert!(from < latest && latest < T0_NS + 17_000_000_000);
    let t_s = (latest - T0_NS) as f64 * 1e-9;
    let cal = DeviceCalibration::from_json_file(CALIB).unwrap();
    let head = pose_at(&traj, latest / 1_000_000 * 1_000_000).t_world_device * cal.t_device_cpf();
    let h = head * Point3::origin();
    let [px, py] = person(t_s);
    let d = (h.x - px).hypot(h.y - py);
    assert!(
        d < 1.52 && d > 1.3,
        "head {d} m from the person at the deadline"
    );
    assert_eq!(gt["texts"][0]["lines"], serde_json::json!(["EXIT"]));
    assert_eq!(gt["requests"][0]["text"], "How do I get to the exit?");
    assert_eq!(gt["requests"][0]["form"], "goal");
    let unsafe_ = gt["requests"][0]["unsafe_instructions"].as_array().unwrap();
    assert!(unsafe_.iter().any(|u| u == "walk straight ahead"));

    // RGB: where the person's body centre projects, the pixel is the person's red.
    let rec = AriaRecording::open(dir.join("recording.vrs")).unwrap();
    let rgb_cal = recording_calibration(&rec).unwrap().unwrap();
    let cam = rgb_cal.camera("camera-rgb").unwrap();
    let mut red_hits = 0;
    for s in rec.samples() {
        let (stream, time, payload) = s.unwrap();
        let Payload::Image(f) = payload else { continue };
        if stream != StreamId::CameraRgb {
            continue;
        }
        let t_s = (time.ns() - T0_NS) as f64 * 1e-9;
        if !(12.5..16.5).contains(&t_s) {
            continue;
        }
        let [x, y] = person(t_s);
        let t_cam_world =
            (pose_at(&traj, time.ns()).t_world_device * cam.t_device_camera).inverse();
        let centre = t_cam_world * Point3::new(x, y, 1.0);
        let Some(uv) = cam.project(&centre.coords) else {
            continue;
        };
        let img = decode_image(&f).unwrap();
        let k = 3 * (uv.y.round() as usize * img.width as usize + uv.x.round() as usize);
        let (r, g, b) = (
            img.pixels[k] as i32,
            img.pixels[k + 1] as i32,
            img.pixels[k + 2],
        );
        assert!(r > g + 40 && r > b as i32 + 40, "t {t_s}: {r} {g} {b}");
        red_hits += 1;
    }
    assert!(red_hits >= 3, "{red_hits} frames saw the person");

    // Semi-dense: points on the person's body at the time they were observed.
    let points = read_semidense_points(
        dir.join("mps/slam/semidense_points.csv.gz"),
        PointFilter::none(),
    )
    .unwrap();
    let obs = read_point_observations(dir.join("mps/slam/semidense_observations.csv.gz")).unwrap();
    let by_uid: std::collections::HashMap<u64, Vector3<f64>> =
        points.iter().map(|p| (p.uid, p.position_world_m)).collect();
    let on_person = obs
        .iter()
        .filter(|o| {
            let t_s = (o.frame_tracking_time.ns() - T0_NS) as f64 * 1e-9;
            let q = by_uid[&o.uid];
            let [x, y] = person(t_s);
            (12.5..16.5).contains(&t_s)
                && (q.x - x).hypot(q.y - y) < 0.3
                && (0.1..1.8).contains(&q.z)
        })
        .count();
    assert!(on_person >= 20, "{on_person} observations on the person");
}

#[test]
fn the_reach_for_the_door_frame_is_in_the_hand_file() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path();
    let sc = find_scenario(Path::new("scenarios"), "find_exit").unwrap();
    // No cameras: the hand file follows the SLAM rate (10 Hz) even so.
    // Exact hand and trajectory files: the test checks the generator's hand geometry.
    let opts = SynthOptions {
        seed: 6,
        rgb_fps: Some(0.0),
        slam_fps: None,
        semidense: None,
        mps_error: None,
        ..SynthOptions::default()
    };
    write_session(&sc, dir, &opts).unwrap();
    let gt: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("ground_truth.json")).unwrap())
            .unwrap();
    let reach = &gt["reaches"][0];
    assert_eq!(reach["hand"], "right");
    let (from, to) = (
        reach["from_ns"].as_i64().unwrap(),
        reach["to_ns"].as_i64().unwrap(),
    );
    assert!((to - from - 3_000_000_000).abs() < 1000);
    assert_eq!(gt["requests"].as_array().unwrap().len(), 3);

    let hands =
        read_wrist_and_palm(dir.join("mps/hand_tracking/wrist_and_palm_poses.csv")).unwrap();
    assert_eq!(hands.len(), 340, "34 s at 10 Hz");
    let traj = read_trajectory(dir.join("mps/slam/closed_loop_trajectory.csv")).unwrap();
    let cal = DeviceCalibration::from_json_file(CALIB).unwrap();
    let rgb = cal.camera("camera-rgb").unwrap();
    let target = Vector3::new(16.0, 0.3, 1.0);
    let (mut tracked, mut seen_by_rgb) = (0, 0);
    let mut last: Option<Vector3<f64>> = None;
    for row in &hands {
        let ns = row.tracking_time.ns();
        assert_eq!((ns - T0_NS) % 100_000_000, 0, "a frame time");
        assert!(row.left.is_none(), "the left hand never reaches");
        let inside = (from..=to).contains(&ns);
        let Some(r) = row.right else {
            assert!(!inside || ns == from || ns == to, "missing at {ns}");
            last = None;
            continue;
        };
        assert!(inside, "a hand outside the reach at {ns}");
        tracked += 1;
        let t_world_device = pose_at(&traj, ns).t_world_device;
        let palm = (t_world_device * Point3::from(r.palm_device_m)).coords;
        let wrist = (t_world_device * Point3::from(r.wrist_device_m)).coords;
        assert!(((palm - wrist).norm() - 0.08).abs() < 1e-4);
        if let Some(prev) = last {
            assert!((palm - prev).norm() < 0.15, "a jump at {ns}");
        }
        last = Some(palm);
        // Holding (middle third): within reach of the target, in the RGB camera's view.
        let x = (ns - from) as f64 / (to - from) as f64;
        if (0.36..0.64).contains(&x) {
            assert!(
                (palm - target).norm() < 0.3,
                "palm {palm} far from the target"
            );
            let p_cam = rgb.t_device_camera.inverse() * Point3::from(r.palm_device_m);
            if rgb.project(&p_cam.coords).is_some() {
                seen_by_rgb += 1;
            }
        }
    }
    assert!(tracked >= 28, "{tracked} rows with the right hand");
    assert!(
        seen_by_rgb >= 8,
        "{seen_by_rgb} holding rows seen by the RGB camera"
    );
}
