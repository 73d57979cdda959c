//! The device pose derived from the IMU (`perception::inertial_source`, for input without a
//! trajectory: live glasses, `--recorded-only`) against a synthetic session's true trajectory: a 25 s
//! walk with turns (`find_exit`). The derived stream keeps capture order and runs at
//! 100 Hz; its attitude holds gravity (tilt error), its yaw follows the head's turns over
//! a few seconds, and its dead-reckoned path covers the walked distance — with the step
//! length estimated from the cadence by the population's walk ratio, while the session's
//! walker takes steps of its own drawn length (not the 0.7 m of the nominal walker): within
//! 15 % once the walker's own walk ratio (unknowable to perception) is factored out, and
//! within 15 % plus that factor's deviation as measured.

use std::path::Path;

use nalgebra::{Isometry3, Vector3};
use vista::assistant::lm::setup::LmChoice;
use vista::eval::score_run::{score_run, ScoreOptions};
use vista::perception::inertial_source::InertialPoseSource;
use vista::perception::PerceptionInputs;
use vista::pipeline::{AssistantOptions, Input, LmOptions, Pace, Pipeline, ReplayInput};
use vista::sample::{Payload, StreamId};
use vista::source::replay::{ReplayOptions, ReplaySource};
use vista::source::Source;
use vista::synth::{find_scenario, write_session, SynthOptions};

fn yaw_of(r: &nalgebra::UnitQuaternion<f64>, fwd_device: &Vector3<f64>) -> f64 {
    let f = r * fwd_device;
    f.y.atan2(f.x)
}

fn wrap(a: f64) -> f64 {
    (a + std::f64::consts::PI).rem_euclid(2.0 * std::f64::consts::PI) - std::f64::consts::PI
}

#[test]
fn the_imu_pose_holds_gravity_follows_turns_and_covers_the_walk() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let session = dir.path().join("s");
    let sc = find_scenario(&root.join("scenarios"), "find_exit").unwrap();
    let opts = SynthOptions {
        seed: 5,
        duration_s: Some(25.0),
        rgb_fps: Some(0.0),
        ..SynthOptions::default()
    };
    write_session(&sc, &session, &opts).unwrap();
    let gait = vista::synth::session_writer::session_gait(&sc, &opts);
    let step_m = gait.step_length_m(1.0);
    assert!((step_m - 0.7).abs() > 0.04, "the walker's step {step_m} m");
    let models = PerceptionInputs::from_session(&session).unwrap().models;
    let fwd = models.forward_device();
    let t_device_cpf = models.t_device_cpf;

    // The true trajectory (MPS) from the full replay.
    let mut truth: Vec<(i64, Isometry3<f64>)> = Vec::new();
    let mut full = ReplaySource::open(&session, ReplayOptions::default()).unwrap();
    while let Some(s) = full.next_sample() {
        let s = s.unwrap();
        if let (StreamId::DevicePose, Payload::Pose(p)) = (s.stream, &s.payload) {
            truth.push((s.capture.ns(), p.t_world_device));
        }
    }
    assert!(truth.len() > 1000);
    let true_at = |t: i64| {
        let i = truth
            .partition_point(|(tt, _)| *tt < t)
            .min(truth.len() - 1);
        truth[i].1
    };

    // What live input sees (no MPS streams), with the derived pose.
    let recorded = ReplaySource::open(
        &session,
        ReplayOptions {
            recorded_only: true,
            ..ReplayOptions::default()
        },
    )
    .unwrap();
    assert!(InertialPoseSource::needed(&recorded.streams()));
    let mut src = InertialPoseSource::new(Box::new(recorded), models);
    assert!(src.streams().contains(&StreamId::DevicePose));
    let mut derived: Vec<(i64, Isometry3<f64>)> = Vec::new();
    let mut last_capture = i64::MIN;
    while let Some(s) = src.next_sample() {
        let s = s.unwrap();
        assert!(s.capture.ns() >= last_capture, "capture order");
        last_capture = s.capture.ns();
        if let (StreamId::DevicePose, Payload::Pose(p)) = (s.stream, &s.payload) {
            derived.push((s.capture.ns(), p.t_world_device));
        }
    }
    let st = src.stats();
    assert_eq!(st.poses as usize, derived.len());
    // 100 Hz over ~25 s (after the first 0.1 s).
    assert!((2400..=2500).contains(&derived.len()), "{}", derived.len());

    // Tilt: the device's up, estimated vs true, in device coordinates.
    let mut tilt_err: Vec<f64> = derived
        .iter()
        .map(|(t, p)| {
            let est = p.rotation.inverse() * Vector3::z();
            let tru = true_at(*t).rotation.inverse() * Vector3::z();
            est.angle(&tru).to_degrees()
        })
        .collect();
    tilt_err.sort_by(f64::total_cmp);
    let p95 = tilt_err[tilt_err.len() * 95 / 100];
    assert!(p95 < 3.0, "tilt error p95 {p95:.2}°");

    // Yaw change over every 3 s: estimated vs true (the world's yaw origin differs).
    let mut worst: f64 = 0.0;
    for w in derived.windows(300).step_by(50) {
        let (t0, a) = w[0];
        let (t1, b) = w[w.len() - 1];
        let est = wrap(yaw_of(&b.rotation, &fwd) - yaw_of(&a.rotation, &fwd));
        let tru = wrap(yaw_of(&true_at(t1).rotation, &fwd) - yaw_of(&true_at(t0).rotation, &fwd));
        worst = worst.max(wrap(est - tru).abs().to_degrees());
    }
    assert!(worst < 8.0, "yaw change error over 3 s: {worst:.1}°");

    // Path length on the ground: within 15 % of the walked one.
    let horiz = |v: &[(i64, Isometry3<f64>)]| {
        v.windows(2)
            .map(|w| {
                let d = w[1].1.translation.vector - w[0].1.translation.vector;
                (d.x * d.x + d.y * d.y).sqrt()
            })
            .sum::<f64>()
    };
    let t_first = derived[0].0;
    let t_last = derived[derived.len() - 1].0;
    // The walked path from the generator's own path (the MPS file is an estimate: its
    // millimetre jitter summed over 10 ms pieces would add metres).
    let path = vista::synth::session_path(&sc, &opts, t_device_cpf);
    let t0 = truth[0].0;
    let true_in: Vec<(i64, Isometry3<f64>)> = (t_first..=t_last)
        .step_by(10_000_000)
        .map(|t| (t, path.t_world_device((t - t0) as f64 * 1e-9)))
        .collect();
    let (est_len, true_len) = (horiz(&derived), horiz(&true_in));
    eprintln!(
        "tilt p95 {p95:.2}°, yaw change over 3 s worst {worst:.1}°, walked {est_len:.1} m vs {true_len:.1} m (steps {step_m:.2} m)"
    );
    assert!(true_len > 10.0, "{true_len}");
    // Dead reckoning takes the population's walk ratio; this walker has its own, which
    // perception cannot know: that factor is the person-to-person part of the error (±12 %
    // at most for the drawn walkers). Without it, the step detection's part is within 15 %.
    let vista::synth::trajectory::StepRule::WalkRatio(walker_ratio) = gait.step else {
        panic!("{gait:?}");
    };
    let person = vista::perception::step_length::WALK_RATIO_M_PER_SPM / walker_ratio;
    assert!(
        (est_len / person - true_len).abs() < 0.15 * true_len,
        "walked {est_len:.1} m vs {true_len:.1} m (walk ratio factor {person:.2})"
    );
    assert!(
        (est_len - true_len).abs() < (0.15 + (1.0 - person).abs()) * true_len,
        "walked {est_len:.1} m vs {true_len:.1} m (walk ratio factor {person:.2})"
    );
}

#[test]
fn a_replay_without_mps_streams_leaves_the_point_map_of_another_frame_out() {
    // read_sign replayed as live input sees it (`--recorded-only`: no trajectory, so the
    // pose is derived from the IMU, at the origin facing +x at height 0). The session's
    // semi-dense map is in the MPS trajectory's frame: used beside the derived pose, the
    // floor stood at eye height around the head, "Head height obstacle, 11 o'clock, 0.5
    // metres" walked along with the wearer (a false alert) and the wall ahead was never
    // alerted. Without the map, depth alone shows the wall, as an obstacle.
    //
    // Run on the default, textured images: on flat-coloured ones stereo matches nothing on
    // the wall but its edge, beside the path, and that edge's points, seeming to move as
    // the IMU pose lagged the walk, were once taken for a person coming (the only alert
    // there was). Known failure (docs/synthetic.md, "Camera images"): the textured wall's
    // foot is also read as a step up, a second alert of the wrong kind; not what this test
    // is about.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let session = dir.path().join("s");
    let out = dir.path().join("o");
    let sc = find_scenario(&root.join("scenarios"), "read_sign").unwrap();
    let opts = SynthOptions {
        rgb_fps: Some(0.0),
        ..SynthOptions::default()
    };
    write_session(&sc, &session, &opts).unwrap();
    // What `vista replay SESSION --asap --no-ocr --no-lm --recorded-only --speak OUT` runs.
    let mut assistant = AssistantOptions::new(&out);
    assistant.sight.read_text = false;
    assistant.lm = LmOptions {
        choice: LmChoice::Off,
        ..LmOptions::default()
    };
    let input = ReplayInput {
        pace: Pace::LockStep,
        recorded_only: true,
        ..ReplayInput::new(&session)
    };
    let run = Pipeline::new(Input::Replay(input))
        .with_assistant(assistant)
        .run()
        .unwrap();
    assert!(!run.stop_reason.is_error(), "{run:?}");
    // What `vista score SESSION OUT --json` prints.
    let scored = score_run(&ScoreOptions {
        session: session.clone(),
        out: out.clone(),
        world_tolerance_m: 1.0,
        latency: false,
        latency_run: false,
    })
    .unwrap();
    let v: serde_json::Value = serde_json::from_str(&scored.to_json().unwrap()).unwrap();
    let m = &v["score"]["summary"];
    let alerts: Vec<&str> = v["score"]["alerts"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|a| a["text"].as_str())
        .collect();
    assert_eq!(m["false_alerts"], 0, "{alerts:?}");
    assert_eq!(m["hazards_relevant"], 1, "{m}");
    // The wall is alerted where it is, in its window, as an obstacle.
    assert_eq!(m["hazards_caught"], 1, "{alerts:?}");
    assert!(
        !alerts.iter().any(|a| a.contains("erson")),
        "a still wall taken for a person: {alerts:?}"
    );
}
