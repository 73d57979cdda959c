//! Visual odometry on the SLAM cameras (`perception::odometry`, through the derived pose of
//! `perception::inertial_source`) against a synthetic session's true path: what live input
//! has (no MPS streams), the walker of `find_exit` (its own stride, cadence and head
//! motion). The derived positions follow the walk: the path's end lies within a share of
//! the distance walked of the true end, and the distance itself is right — far better
//! than counting steps, which cannot know this walker's stride.

use std::path::Path;

use nalgebra::Isometry3;
use vista::perception::inertial_pose::VISUAL_QUALITY;
use vista::perception::inertial_source::InertialPoseSource;
use vista::perception::odometry::{OdometryConfig, StereoOdometry};
use vista::perception::stereo::Rectification;
use vista::perception::PerceptionInputs;
use vista::sample::{Payload, StreamId};
use vista::source::calibration::load_calibration;
use vista::source::replay::{ReplayOptions, ReplaySource};
use vista::source::Source;
use vista::synth::{find_scenario, write_session, SynthOptions, WearerPath};

/// A synthesised walk (no RGB): its session folder and the wearer's true path.
struct Walk {
    _dir: tempfile::TempDir,
    session: std::path::PathBuf,
    path: WearerPath,
}

impl Walk {
    /// The first `seconds` of scenario `name` with `seed`.
    fn new(name: &str, seed: u64, seconds: f64) -> Self {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let dir = tempfile::tempdir().unwrap();
        let session = dir.path().join("s");
        let sc = find_scenario(&root.join("scenarios"), name).unwrap();
        let opts = SynthOptions {
            seed,
            duration_s: Some(seconds),
            rgb_fps: Some(0.0),
            ..SynthOptions::default()
        };
        write_session(&sc, &session, &opts).unwrap();
        let t_device_cpf = PerceptionInputs::from_session(&session)
            .unwrap()
            .models
            .t_device_cpf;
        let path = vista::synth::session_path(&sc, &opts, t_device_cpf);
        Self {
            _dir: dir,
            session,
            path,
        }
    }

    /// The true device pose at device time `t_ns`.
    fn truth(&self, t_ns: i64) -> Isometry3<f64> {
        self.path
            .t_world_device((t_ns - vista::synth::session_writer::T0_NS) as f64 * 1e-9)
    }
}

/// The session's streams as recorded (no MPS).
fn recorded(session: &Path) -> ReplaySource {
    ReplaySource::open(
        session,
        ReplayOptions {
            recorded_only: true,
            ..ReplayOptions::default()
        },
    )
    .unwrap()
}

/// Visual odometry on the session's SLAM pair, default settings.
fn odometry(session: &Path) -> StereoOdometry {
    let calib = load_calibration(session).unwrap().device;
    let rect = Rectification::slam_pair(&calib, &Default::default()).unwrap();
    StereoOdometry::new(rect, OdometryConfig::default())
}

struct Run {
    poses: Vec<(i64, Isometry3<f64>)>,
    /// Each pose's quality.
    qualities: Vec<f32>,
    visual: u64,
}

fn derive(session: &Path, with_odometry: bool) -> Run {
    let inputs = PerceptionInputs::from_session(session).unwrap();
    let mut src = InertialPoseSource::new(Box::new(recorded(session)), inputs.models.clone());
    if with_odometry {
        src = src.with_odometry(odometry(session));
    }
    let started = std::time::Instant::now();
    let mut poses = Vec::new();
    let mut qualities = Vec::new();
    let mut last = i64::MIN;
    while let Some(s) = src.next_sample() {
        let s = s.unwrap();
        assert!(s.capture.ns() >= last, "capture order");
        last = s.capture.ns();
        if let (StreamId::DevicePose, Payload::Pose(p)) = (s.stream, &s.payload) {
            poses.push((s.capture.ns(), p.t_world_device));
            qualities.push(p.quality);
        }
    }
    let st = src.stats();
    eprintln!("{st:?} in {:.2} s", started.elapsed().as_secs_f64());
    Run {
        poses,
        qualities,
        visual: st.visual_poses,
    }
}

#[test]
fn the_slam_cameras_track_the_walk() {
    let walk = Walk::new("find_exit", 5, 25.0);
    let truth = |t: i64| walk.truth(t);

    let mut end_errors = Vec::new();
    for odometry in [false, true] {
        let run = derive(&walk.session, odometry);
        let poses = &run.poses;
        assert!(poses.len() > 2000);
        // The derived world's frame against the true one, from the first pose (the derived
        // world starts at the origin facing the head's forward direction).
        let (ta, a) = poses[0];
        let align = truth(ta) * a.inverse();
        // Both paths in 0.5 s pieces.
        let pieces: Vec<&(i64, Isometry3<f64>)> = poses.iter().step_by(50).collect();
        let walked: f64 = pieces
            .windows(2)
            .map(|w| (truth(w[1].0).translation.vector - truth(w[0].0).translation.vector).norm())
            .sum();
        let est_walked: f64 = pieces
            .windows(2)
            .map(|w| (w[1].1.translation.vector - w[0].1.translation.vector).norm())
            .sum();
        let (tz, z) = poses[poses.len() - 1];
        let end_err = ((align * z).translation.vector - truth(tz).translation.vector).norm();
        eprintln!(
            "odometry {odometry}: walked {walked:.1} m (estimated {est_walked:.1} m), end error \
             {end_err:.2} m ({:.1} % of the walk), visual poses {} of {}",
            100.0 * end_err / walked,
            run.visual,
            poses.len()
        );
        assert!(walked > 10.0, "{walked}");
        if odometry {
            // Most poses follow the cameras; the distance (measured: 12.6 m of 12.6 m) and
            // the end (3.5 % of the walk; yaw drifts with the gyro's bias) are right within a
            // few per cent of the walk.
            assert!(run.visual * 10 > poses.len() as u64 * 8, "{}", run.visual);
            assert!(
                (est_walked - walked).abs() < 0.12 * walked,
                "{est_walked} vs {walked}"
            );
            assert!(end_err < 0.08 * walked, "{end_err}");
        } else {
            assert_eq!(run.visual, 0);
        }
        end_errors.push(end_err);
    }
    // The cameras beat counted steps (this walker's stride is not the population's).
    assert!(end_errors[1] * 2.0 < end_errors[0], "{end_errors:?}");
}

/// The derived pose against the truth over a walk, printed (not asserted: a measurement).
/// `VISTA_ODOMETRY_SCENARIO` (default `mixed_walk`) and `VISTA_ODOMETRY_SECONDS` (default 60)
/// choose the walk, seed 0. Prints, once a second, the distance walked, the height and
/// horizontal errors, the attitude's tilt error and whether the position followed visual
/// fixes; then the tilt error's p50 and p95 and the largest height error. With
/// `VISTA_ODOMETRY_TRUE_ATTITUDE=1` the odometry is run on its own with the true attitude
/// (what its position is worth when the attitude is right).
///
/// `VISTA_ODOMETRY_SCENARIO=mixed_walk cargo test --release --test odometry -- --ignored --nocapture`
#[test]
#[ignore = "a measurement: run it by name"]
fn pose_error_over_a_walk() {
    use nalgebra::Vector3;
    use vista::aria::recording::image::decode_image;
    use vista::perception::odometry::Outcome;
    use vista::perception::stereo::StereoPairer;

    let name = std::env::var("VISTA_ODOMETRY_SCENARIO").unwrap_or_else(|_| "mixed_walk".into());
    let seconds: f64 = std::env::var("VISTA_ODOMETRY_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60.0);
    let true_attitude = std::env::var("VISTA_ODOMETRY_TRUE_ATTITUDE").is_ok_and(|v| v == "1");
    let walk = Walk::new(&name, 0, seconds);
    let truth = |t: i64| walk.truth(t);
    let t0 = vista::synth::session_writer::T0_NS;

    // (time, position in the true world, attitude error's tilt in degrees, visual).
    let mut rows: Vec<(i64, Vector3<f64>, Option<f64>, bool)> = Vec::new();
    if true_attitude {
        // The odometry alone, in the true world, each pair given the true attitude and a
        // position predicted from its last two fixes.
        let mut src = recorded(&walk.session);
        let mut vo = odometry(&walk.session);
        let mut pairer = StereoPairer::default();
        let mut fixes: Vec<(i64, Vector3<f64>)> = Vec::new();
        while let Some(s) = src.next_sample() {
            let Some(pair) = pairer.push_sample(&s.unwrap()) else {
                continue;
            };
            let (l, r) = (
                decode_image(&pair.left).unwrap(),
                decode_image(&pair.right).unwrap(),
            );
            let tr = truth(pair.capture_ns);
            let predicted = match fixes.as_slice() {
                [.., (ta, a), (tb, b)] => {
                    b + (b - a) * ((pair.capture_ns - tb) as f64 / (tb - ta) as f64)
                }
                [(_, b)] => *b,
                [] => tr.translation.vector,
            };
            match vo.track(&l.pixels, &r.pixels, &tr.rotation, &predicted) {
                Outcome::Fixed { t_world, .. } => {
                    fixes.push((pair.capture_ns, t_world));
                    rows.push((pair.capture_ns, t_world, None, true));
                }
                // Lost: started again from the true position (the measurement is of the
                // tracked stretches).
                Outcome::Lost { .. } | Outcome::Started { .. } => {
                    fixes.clear();
                    rows.push((pair.capture_ns, tr.translation.vector, None, false));
                }
            }
        }
        eprintln!("{:?}", vo.stats());
    } else {
        let run = derive(&walk.session, true);
        let (ta, a) = run.poses[0];
        let align = truth(ta) * a.inverse();
        for (k, (t, p)) in run.poses.iter().enumerate() {
            let tr = truth(*t);
            let tilt = (p.rotation.inverse() * Vector3::z())
                .angle(&(tr.rotation.inverse() * Vector3::z()))
                .to_degrees();
            let visual = run.qualities.get(k).is_some_and(|q| *q >= VISUAL_QUALITY);
            rows.push((*t, (align * p).translation.vector, Some(tilt), visual));
        }
    }
    let mut walked = 0.0;
    let mut last: Option<Vector3<f64>> = None;
    let mut next_s = 0.0;
    let mut tilts = Vec::new();
    let mut worst_dz: f64 = 0.0;
    for (t, p, tilt, visual) in &rows {
        let tr = truth(*t).translation.vector;
        walked += last.map_or(0.0, |l| (tr - l).norm());
        last = Some(tr);
        let d = p - tr;
        worst_dz = worst_dz.max(d.z.abs());
        tilts.extend(*tilt);
        let s = (*t - t0) as f64 * 1e-9;
        if s >= next_s {
            next_s += 1.0;
            let tilt = tilt.map_or("–".into(), |v| format!("{v:.2}°"));
            println!(
                "{s:6.1} s  walked {walked:6.2} m  height error {:+.3} m  horizontal {:.3} m  \
                 tilt {tilt}  visual {visual}",
                d.z,
                d.xy().norm()
            );
        }
    }
    tilts.sort_by(f64::total_cmp);
    let q = |f: f64| {
        tilts
            .get((tilts.len() as f64 * f) as usize)
            .map_or("–".to_string(), |v| format!("{v:.2}°"))
    };
    println!(
        "{name}: walked {walked:.1} m, largest height error {worst_dz:.3} m, tilt error p50 {} \
         p95 {}",
        q(0.5),
        q(0.95)
    );
}
