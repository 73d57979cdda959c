//! Semi-dense points of a synthetic session, read back with the crate's MPS readers: every
//! observation is at a SLAM frame time, from a SLAM camera (by serial), and reprojects —
//! through the trajectory file and the calibration, independently of the generator — to
//! its stored pixel within what the point's own `dist_std` allows; the metal pole and the
//! walls get points, first seen before the alert deadline in the ground truth; the walls'
//! points scatter off the wall plane by no more than their stated uncertainty; a drop-off
//! gets points on the lower level beyond its edge. Those checks are of the generator's
//! geometry and use the exact MPS files (`mps_error: None`, `vista synth --mps-exact`); with
//! the default error model the map's uncertainties follow a real MPS map's, the points move
//! with the trajectory's slow error, and a seed gives the same files.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use nalgebra::{Point3, Vector3};
use vista::aria::calib::DeviceCalibration;
use vista::aria::mps::{
    read_point_observations, read_semidense_points, read_trajectory, PointFilter,
};
use vista::aria::recording::AriaRecording;
use vista::sample::StreamId;
use vista::synth::{find_scenario, write_session, SynthOptions};

const CALIB: &str = "calibration/aria_gen1_1WM09380041283_factory.json";

fn synth_with(name: &str, secs: f64, dir: &Path, seed: u64, exact: bool) {
    let sc = find_scenario(Path::new("scenarios"), name).unwrap();
    let mut opts = SynthOptions {
        seed,
        duration_s: Some(secs),
        rgb_fps: Some(0.0),
        ..SynthOptions::default()
    };
    if exact {
        opts.mps_error = None;
    }
    write_session(&sc, dir, &opts).unwrap();
}

/// Exact MPS files: the tests of the generator's geometry.
fn synth(name: &str, secs: f64, dir: &Path) {
    synth_with(name, secs, dir, 4, true);
}

#[test]
fn points_and_observations_agree_with_frames_trajectory_and_world() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path();
    synth("pole_to_door", 12.0, dir);
    let slam = dir.join("mps/slam");
    let points =
        read_semidense_points(slam.join("semidense_points.csv.gz"), PointFilter::none()).unwrap();
    let obs = read_point_observations(slam.join("semidense_observations.csv.gz")).unwrap();
    assert!(points.len() > 1000, "{} points", points.len());
    assert!(obs.len() >= points.len(), "every point is observed");
    let traj = read_trajectory(slam.join("closed_loop_trajectory.csv")).unwrap();
    let cal = DeviceCalibration::from_json_file(CALIB).unwrap();
    let cams: Vec<_> = ["camera-slam-left", "camera-slam-right"]
        .iter()
        .map(|l| cal.camera(l).unwrap())
        .collect();

    // Frame times of the SLAM streams in the recording.
    let rec = AriaRecording::open(dir.join("recording.vrs")).unwrap();
    let mut frame_us = BTreeSet::new();
    for s in rec.samples() {
        let (stream, time, _) = s.unwrap();
        if matches!(stream, StreamId::CameraSlamLeft | StreamId::CameraSlamRight) {
            frame_us.insert(time.ns() / 1000);
        }
    }

    let by_uid: HashMap<u64, usize> = points.iter().enumerate().map(|(i, p)| (p.uid, i)).collect();
    let mut first_seen_us: HashMap<u64, i64> = HashMap::new();
    let mut worst_ratio: f64 = 0.0;
    for o in &obs {
        let t_us = o.frame_tracking_time.ns() / 1000;
        assert!(
            frame_us.contains(&t_us),
            "observation at {t_us} µs is no frame time"
        );
        let cam = cams
            .iter()
            .find(|c| c.serial_number == o.camera_serial)
            .unwrap_or_else(|| panic!("unknown camera serial {}", o.camera_serial));
        let p = &points[by_uid[&o.uid]];
        first_seen_us.entry(o.uid).or_insert(t_us);
        // Trajectory poses are at 1 kHz on whole ms; frames are at 100 ms multiples.
        let i = traj.partition_point(|q| q.tracking_time.ns() < t_us * 1000);
        assert_eq!(traj[i].tracking_time.ns(), t_us * 1000);
        let t_cam_world = (traj[i].t_world_device * cam.t_device_camera).inverse();
        let p_cam = t_cam_world * Point3::from(p.position_world_m);
        let Some(uv) = cam.project(&p_cam.coords) else {
            continue;
        };
        let err_px = (uv.x - o.uv_px[0] as f64).hypot(uv.y - o.uv_px[1] as f64);
        // A displacement of 5 σ across the line of sight moves the pixel by at most
        // f · 5σ / distance (f ≈ 241 px/rad at the centre, up to ~1.5× that at the rim).
        let allowed = 1.5 * 241.0 * 5.0 * p.dist_std as f64 / p_cam.coords.norm() + 0.01;
        worst_ratio = worst_ratio.max(err_px / allowed);
        assert!(
            err_px <= allowed,
            "uid {} at {t_us}: {err_px} px off, {allowed} allowed",
            o.uid
        );
    }
    assert!(worst_ratio > 0.0, "positions carry noise");

    // Observations are in time order (a causal consumer reads them as they come).
    assert!(obs
        .windows(2)
        .all(|w| w[0].frame_tracking_time <= w[1].frame_tracking_time));

    // The pole (x 5.96..6.04, y 0.06..0.14, z 0..2.2) has points over its height, first
    // seen before the alert deadline of the ground truth.
    let gt: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("ground_truth.json")).unwrap())
            .unwrap();
    let deadline_us = gt["hazards"][0]["latest_alert_ns"].as_i64().unwrap() / 1000;
    let on_pole: Vec<_> = points
        .iter()
        .filter(|p| {
            let q = p.position_world_m;
            (5.93..6.07).contains(&q.x) && (0.03..0.17).contains(&q.y) && (0.0..2.25).contains(&q.z)
        })
        .collect();
    let early: Vec<_> = on_pole
        .iter()
        .filter(|p| first_seen_us[&p.uid] < deadline_us)
        .collect();
    assert!(
        early.len() >= 20,
        "{} pole points before the deadline",
        early.len()
    );
    let zs: Vec<f64> = early.iter().map(|p| p.position_world_m.z).collect();
    let (lo, hi) = zs.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |a, &z| {
        (a.0.min(z), a.1.max(z))
    });
    assert!(lo < 0.6 && hi > 1.6, "pole points span z {lo}..{hi}");

    // Wall points (y = ±1.5) scatter off the plane within their uncertainty.
    let mut wall = 0;
    let mut max_sigmas: f64 = 0.0;
    for p in &points {
        let q = p.position_world_m;
        if !(0.5..11.5).contains(&q.x) || !(0.3..2.5).contains(&q.z) {
            continue;
        }
        for y in [-1.5, 1.5] {
            let off = (q.y - y).abs();
            // Away from the EXIT sign (x 8.7..9.3) and the bin by the wall (x 2.8..3.2).
            if off < 0.2 && (q.x - 9.0).abs() > 0.6 && (q.x - 3.0).abs() > 0.5 {
                wall += 1;
                max_sigmas = max_sigmas.max(off / p.dist_std as f64);
            }
        }
    }
    assert!(wall > 500, "{wall} wall points");
    // Normal draws along the viewing ray: beyond 6 σ is a one-in-10⁹ event.
    assert!(max_sigmas < 6.0, "a wall point {max_sigmas} σ off the wall");

    // MPS's nominal filter keeps the points seen from close by, not the far ones.
    let kept = points
        .iter()
        .filter(|p| PointFilter::NOMINAL.keeps(p))
        .count();
    assert!(
        kept > points.len() / 10 && kept < points.len(),
        "{kept} of {}",
        points.len()
    );
}

#[test]
fn a_drop_off_gets_points_below_its_edge() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path();
    // read_sign: the platform edge runs along y = −3 (x −2..6); the track bed is 1.1 m
    // lower, south of it. The wearer stands near (1.5, 0) looking around.
    synth("read_sign", 6.0, dir);
    let points = read_semidense_points(
        dir.join("mps/slam/semidense_points.csv.gz"),
        PointFilter::none(),
    )
    .unwrap();
    let below = points
        .iter()
        .filter(|p| {
            let q: Vector3<f64> = p.position_world_m;
            q.y < -3.05 && q.z < -0.9 && q.z > -1.3
        })
        .count();
    let floor = points
        .iter()
        .filter(|p| p.position_world_m.z.abs() < 0.1 && p.position_world_m.y > -2.95)
        .count();
    assert!(floor > 100, "{floor} platform points");
    assert!(below > 20, "{below} points on the track bed");
    // Nothing on the (missing) platform floor beyond the edge (the bed is 3 m wide).
    let ghost = points
        .iter()
        .filter(|p| {
            let q = p.position_world_m;
            (-5.8..-3.2).contains(&q.y) && (-1.8..5.8).contains(&q.x) && q.z.abs() < 0.03
        })
        .count();
    assert_eq!(ghost, 0);
}

/// With the error model: the share of points MPS's nominal filter keeps is that of a real
/// map (27 % of the points of the real sample `tests/data/gen1/mps_sample`), the stated
/// uncertainties spread over decades as real ones do, points lie off the walls by amounts
/// that grow with their stated `dist_std`, and the same seed writes the same files while
/// another seed does not.
#[test]
fn mps_like_points_have_real_uncertainties_and_are_deterministic() {
    let t = tempfile::tempdir().unwrap();
    let (a, b, c) = (t.path().join("a"), t.path().join("b"), t.path().join("c"));
    synth_with("pole_to_door", 8.0, &a, 9, false);
    synth_with("pole_to_door", 8.0, &b, 9, false);
    synth_with("pole_to_door", 8.0, &c, 10, false);
    let read = |d: &Path, f: &str| std::fs::read(d.join("mps").join(f)).unwrap();
    for f in [
        "slam/semidense_points.csv.gz",
        "slam/closed_loop_trajectory.csv",
        "eye_gaze/general_eye_gaze.csv",
    ] {
        assert_eq!(read(&a, f), read(&b, f), "{f}: same seed, same bytes");
        assert_ne!(read(&a, f), read(&c, f), "{f}: another seed, other errors");
    }
    let points = read_semidense_points(
        a.join("mps/slam/semidense_points.csv.gz"),
        PointFilter::none(),
    )
    .unwrap();
    assert!(points.len() > 1000);
    let kept = points
        .iter()
        .filter(|p| PointFilter::NOMINAL.keeps(p))
        .count() as f64
        / points.len() as f64;
    // The exact files keep most points; a real map about a quarter.
    assert!((0.1..0.6).contains(&kept), "{kept}");
    let mut inv: Vec<f32> = points.iter().map(|p| p.inv_dist_std).collect();
    inv.sort_by(f32::total_cmp);
    let q = |f: f64| inv[(f * inv.len() as f64) as usize];
    // Real sample: 10 % 0.0004, median ≈ 0.0026, 90 % ≈ 0.012 (1/m).
    assert!((0.0002..0.0008).contains(&q(0.1)), "{}", q(0.1));
    assert!((0.0018..0.0036).contains(&q(0.5)), "{}", q(0.5));
    assert!((0.007..0.02).contains(&q(0.9)), "{}", q(0.9));
    // Wall points (y = ±1.5, away from the sign and the bin): the uncertain ones lie
    // farther off the wall than the certain ones.
    let off = |lo: f32, hi: f32| {
        let mut v: Vec<f64> = points
            .iter()
            .filter(|p| (lo..hi).contains(&p.dist_std))
            .filter_map(|p| {
                let q = p.position_world_m;
                let ok = (0.5..11.5).contains(&q.x)
                    && (0.3..2.5).contains(&q.z)
                    && (q.x - 9.0).abs() > 0.6
                    && (q.x - 3.0).abs() > 0.5;
                let d = (q.y.abs() - 1.5).abs();
                (ok && d < 1.0).then_some(d)
            })
            .collect();
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
    };
    let (certain, uncertain) = (off(0.0, 0.01), off(0.1, 1.0));
    assert!(uncertain > 2.0 * certain, "{certain} vs {uncertain}");
}
