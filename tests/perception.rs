//! Perception end to end: synthetic sessions (`vista synth`) replayed through the runtime
//! with the `PerceptionConsumer`, compared with the session's ground truth and with the
//! synthetic wearer's own kinematics (an independent source: the scenario's script, not
//! perception's estimates); and the real Aria sample and MPS sample (runs, no panic,
//! sensible motion against the trajectory file itself).
//!
//! Until `vista synth` writes semi-dense points, the point clouds are sampled here from the
//! scenario's geometry (floor, boxes, walls), independently of perception's code.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use nalgebra::{Point3, Vector3};
use vista::aria::calib::DeviceCalibration;
use vista::aria::recording::AriaRecording;
use vista::perception::points::MapPoint;
use vista::perception::{
    Perception, PerceptionConfig, PerceptionConsumer, PerceptionInputs, PointMap, SensorModels,
};
use vista::runtime::{run, ClockMode, Consumer, RuntimeConfig};
use vista::sample::{Payload, Sample, StreamId};
use vista::source::replay::{ReplayOptions, ReplaySource};
use vista::source::Source;
use vista::state::{
    EnvironmentState, HazardEvent, HeightBand, MotionState, PerceptionSink, ThingKind,
};
use vista::synth::render::Scene;
use vista::synth::scenario::Scenario;
use vista::synth::truth::clock_and_distance;
use vista::synth::{find_scenario, session_path, write_session, SynthOptions, WearerPath};
use vista::time::{DeviceTime, HostTime};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

#[derive(Default)]
struct Collected {
    states: Vec<Arc<EnvironmentState>>,
    events: Vec<HazardEvent>,
    finished: bool,
}

struct Collect(Arc<Mutex<Collected>>);

impl PerceptionSink for Collect {
    fn on_hazard(&mut self, event: &HazardEvent) {
        self.0.lock().unwrap().events.push(event.clone());
    }
    fn on_state(&mut self, state: &Arc<EnvironmentState>, _now: HostTime) {
        self.0.lock().unwrap().states.push(Arc::clone(state));
    }
    fn finish(&mut self) {
        self.0.lock().unwrap().finished = true;
    }
}

/// A synthetic session of `name`, `duration_s` long, in a temporary folder.
struct Synth {
    _dir: tempfile::TempDir,
    root: PathBuf,
    sc: Scenario,
    path: WearerPath,
    truth: serde_json::Value,
    t0_ns: i64,
    cal: DeviceCalibration,
}

fn synth(name: &str, duration_s: f64) -> Synth {
    synth_with(name, duration_s, true)
}

/// `mps_like`: MPS files with their error models (the default); otherwise exact
/// (`--mps-exact`), for checks of geometry against the scripted truth.
fn synth_with(name: &str, duration_s: f64, mps_like: bool) -> Synth {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join(name);
    let sc = find_scenario(&Path::new(ROOT).join("scenarios"), name).unwrap();
    let mut opts = SynthOptions {
        seed: 7,
        duration_s: Some(duration_s),
        slam_fps: None,
        ..SynthOptions::default()
    };
    if !mps_like {
        opts.mps_error = None;
    }
    write_session(&sc, &root, &opts).unwrap();
    let rec = AriaRecording::open(root.join("recording.vrs")).unwrap();
    // Cameras calibrated for the resolution each stream records (RGB 2880² → 1408²), as
    // perception uses them.
    let cal = vista::aria::recorded_calib::recording_calibration(&rec)
        .unwrap()
        .unwrap_or_else(|| DeviceCalibration::from_json_str(rec.calib_json().unwrap()).unwrap());
    // The session's walker (its gait is drawn for the seed).
    let path = session_path(&sc, &opts, cal.t_device_cpf());
    let truth: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("ground_truth.json")).unwrap())
            .unwrap();
    let t0_ns = truth["t0_ns"].as_i64().unwrap();
    Synth {
        _dir: dir,
        root,
        sc,
        path,
        truth,
        t0_ns,
        cal,
    }
}

/// Samples a rectangle `origin + a·u + b·v` every `step_m`.
fn sample_quad(out: &mut Vec<MapPoint>, o: [f64; 3], u: [f64; 3], v: [f64; 3], step_m: f64) {
    let lu = (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]).sqrt();
    let lv = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    let (nu, nv) = (
        (lu / step_m).ceil().max(1.0) as usize,
        (lv / step_m).ceil().max(1.0) as usize,
    );
    for i in 0..=nu {
        for j in 0..=nv {
            let (a, b) = (i as f64 / nu as f64, j as f64 / nv as f64);
            out.push(MapPoint {
                p: [
                    (o[0] + a * u[0] + b * v[0]) as f32,
                    (o[1] + a * u[1] + b * v[1]) as f32,
                    (o[2] + a * u[2] + b * v[2]) as f32,
                ],
                first_seen_ns: i64::MIN,
            });
        }
    }
}

/// Points on the scene's boxes (all faces) and rectangles (walls, signs).
fn scene_points(scene: &Scene) -> Vec<MapPoint> {
    let mut out = Vec::new();
    for b in &scene.boxes {
        let [x0, y0, z0] = b.min_m;
        let [x1, y1, z1] = b.max_m;
        let (dx, dy, dz) = (x1 - x0, y1 - y0, z1 - z0);
        let s = 0.05;
        sample_quad(&mut out, [x0, y0, z0], [dx, 0.0, 0.0], [0.0, 0.0, dz], s);
        sample_quad(&mut out, [x0, y1, z0], [dx, 0.0, 0.0], [0.0, 0.0, dz], s);
        sample_quad(&mut out, [x0, y0, z0], [0.0, dy, 0.0], [0.0, 0.0, dz], s);
        sample_quad(&mut out, [x1, y0, z0], [0.0, dy, 0.0], [0.0, 0.0, dz], s);
        sample_quad(&mut out, [x0, y0, z1], [dx, 0.0, 0.0], [0.0, dy, 0.0], s);
    }
    for q in &scene.quads {
        sample_quad(&mut out, q.origin_m, q.u_m, q.v_m, 0.1);
    }
    out
}

/// A floor patch at height `z`.
fn floor(out: &mut Vec<MapPoint>, x: (f64, f64), y: (f64, f64), z: f64) {
    sample_quad(
        out,
        [x.0, y.0, z],
        [x.1 - x.0, 0.0, 0.0],
        [0.0, y.1 - y.0, 0.0],
        0.1,
    );
}

/// Replays `root` through a `PerceptionConsumer` in virtual time.
fn replay(root: &Path, points: Option<Vec<MapPoint>>, recorded_only: bool) -> Collected {
    let inputs = PerceptionInputs::from_session(root).unwrap();
    let src = ReplaySource::open(
        root,
        ReplayOptions {
            recorded_only,
            ..ReplayOptions::default()
        },
    )
    .unwrap();
    let mut inputs = inputs;
    if let Some(p) = points {
        inputs.points = Some(Arc::new(PointMap::new(p, false)));
    }
    let engine = inputs.engine(PerceptionConfig::default(), &src.streams());
    let got = Arc::new(Mutex::new(Collected::default()));
    let consumer = PerceptionConsumer::new(engine, Box::new(Collect(Arc::clone(&got))));
    let consumers: Vec<Box<dyn Consumer>> = vec![Box::new(consumer)];
    let mut config = RuntimeConfig::new(ClockMode::Virtual);
    config.lockstep_tick_ns = 10_000_000;
    run(Box::new(src), config, consumers).unwrap();
    let mut g = got.lock().unwrap();
    std::mem::take(&mut *g)
}

fn t_s(s: &Synth, ns: i64) -> f64 {
    (ns - s.t0_ns) as f64 * 1e-9
}

/// The motion state the wearer's scripted kinematics imply at `t`, from the synthetic path
/// (horizontal and vertical speed over 1 s, yaw rate over 0.2 s).
fn truth_motion(path: &WearerPath, t: f64) -> MotionState {
    let (a, b) = (path.head(t - 0.5), path.head(t + 0.5));
    let d = b.position_m - a.position_m;
    let speed = d.x.hypot(d.y);
    let vz = d.z;
    let (y0, y1) = (path.head(t - 0.1).yaw_rad, path.head(t + 0.1).yaw_rad);
    let yaw_rate = ((y1 - y0) / 0.2).to_degrees();
    let moving = speed > 0.3;
    if moving && vz > 0.1 {
        MotionState::StairsUp
    } else if moving && vz < -0.1 {
        MotionState::StairsDown
    } else if yaw_rate.abs() > 30.0 {
        MotionState::Turning
    } else if moving {
        MotionState::Walking
    } else {
        MotionState::Standing
    }
}

/// Hazards of the ground truth: `(kind, [x, y], relevant_from_ns, latest_alert_ns)`.
fn truth_hazards(s: &Synth) -> Vec<(String, [f64; 2], i64, Option<i64>)> {
    s.truth["hazards"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|h| {
            let p = h["position_m"].as_array().unwrap();
            Some((
                h["kind"].as_str().unwrap().to_string(),
                [p[0].as_f64().unwrap(), p[1].as_f64().unwrap()],
                h["relevant_from_ns"].as_i64()?,
                h["latest_alert_ns"].as_i64(),
            ))
        })
        .collect()
}

/// One line per event, for failure messages.
fn brief(events: &[HazardEvent]) -> String {
    events
        .iter()
        .map(|e| {
            format!(
                "{:?} id {} at {:?} d {:.2} t {:.2}\n",
                e.thing.kind,
                e.thing.id,
                e.thing.world_m,
                e.thing.distance_m,
                (e.evidence.ns() - 1_000_000_000) as f64 * 1e-9
            )
        })
        .collect()
}

fn horizontal(a: [f32; 3], b: [f64; 2]) -> f64 {
    (f64::from(a[0]) - b[0]).hypot(f64::from(a[1]) - b[1])
}

#[test]
fn pole_to_door_alerts_once_tracks_motion_heading_and_gaze() {
    // Exact MPS files: the gaze checks below compare the gaze's clock, pitch and RGB pixel
    // with the scripted target to 1° and 3 px, finer than the MPS-like gaze error (bias
    // ≈ 1.5°, noise ≈ 1°).
    let s = synth_with("pole_to_door", 24.0, false);
    let scene = Scene::from_world(&s.sc.world);
    let mut pts = scene_points(&scene);
    floor(&mut pts, (-1.0, 12.0), (-1.5, 1.5), 0.0);
    let got = replay(&s.root, Some(pts), false);
    assert!(got.finished);
    // 24 s at 20 Hz.
    assert!(got.states.len() >= 470, "{} states", got.states.len());

    // Hazards: the pole, once, inside its useful window, at the right place and clock.
    let hazards = truth_hazards(&s);
    let (_, pole, from, latest) = hazards.iter().find(|h| h.0 == "pole").unwrap().clone();
    let pole_events: Vec<&HazardEvent> = got
        .events
        .iter()
        .filter(|e| horizontal(e.thing.world_m.unwrap(), pole) < 0.3)
        .collect();
    assert_eq!(pole_events.len(), 1, "{}", brief(&got.events));
    let e = pole_events[0];
    assert!(
        e.evidence.ns() >= from,
        "alert before the pole was relevant"
    );
    if let Some(l) = latest {
        assert!(e.evidence.ns() <= l, "alert too late");
    }
    assert_eq!(e.thing.kind, ThingKind::Obstacle);
    assert_eq!(e.thing.height, Some(HeightBand::Body));
    assert!(e.thing.in_path);
    let (clock, dist) =
        clock_and_distance(&s.path, t_s(&s, e.evidence.ns()), [pole[0], pole[1], 0.0]);
    assert_eq!(e.thing.clock.get(), clock);
    // Nearest face vs centre of a 8 cm pole, and half a tick of walking.
    assert!(
        (f64::from(e.thing.distance_m) - dist).abs() < 0.1,
        "{} vs {dist}",
        e.thing.distance_m
    );
    // Any other alert is about a wall (|y| = 1.5 or x = 12), which is a real obstacle.
    for o in got
        .events
        .iter()
        .filter(|o| horizontal(o.thing.world_m.unwrap(), pole) >= 0.3)
    {
        let w = o.thing.world_m.unwrap();
        assert!(
            w[1].abs() > 1.2 || w[0] > 11.5,
            "unexpected alert {}",
            brief(&got.events)
        );
    }

    // Short walks (2–4 m): few ticks at a steady speed for the whole cadence window.
    check_motion(&s, &got.states, 5);
    check_heading(&s, &got.states);

    // Gaze: 0–6 s on the pole at (6.0, 0.1, 1.5): the clock of that point, and the pole's
    // thing id whenever the pole is tracked.
    let target = [6.0, 0.1, 1.5];
    let mut on_pole = 0;
    let mut checked = 0;
    for st in &got.states {
        let t = t_s(&s, st.at.ns());
        if !(0.5..5.5).contains(&t) {
            continue;
        }
        let g = st.gaze.as_ref().unwrap();
        let h = s.path.head(t_s(&s, g.at.ns()));
        let bearing = ((target[1] - h.position_m.y).atan2(target[0] - h.position_m.x) - h.yaw_rad)
            .to_degrees();
        let (clock, _) = clock_and_distance(&s.path, t_s(&s, g.at.ns()), target);
        // Exact unless the bearing is within 2° of an hour boundary.
        if ((bearing / 30.0).fract().abs() - 0.5).abs() > 2.0 / 30.0 {
            assert_eq!(g.clock.get(), clock, "t {t}: bearing {bearing}");
        }
        let pitch = (target[2] - h.position_m.z)
            .atan2((target[0] - h.position_m.x).hypot(target[1] - h.position_m.y))
            .to_degrees();
        assert!(
            (f64::from(g.pitch_deg) - pitch).abs() < 1.0,
            "{} vs {pitch}",
            g.pitch_deg
        );
        // The RGB pixel: the target through the scripted device pose and the RGB camera.
        let rgb = s.cal.camera("camera-rgb").unwrap();
        let p_dev = s.path.t_world_device(t_s(&s, g.at.ns())).inverse()
            * Point3::new(target[0], target[1], target[2]);
        let want = rgb.project_device(&p_dev).unwrap();
        let [u, v] = g.rgb_pixel.unwrap();
        assert!(
            (f64::from(u) - want.x).hypot(f64::from(v) - want.y) < 3.0,
            "t {t}: pixel {u},{v} vs {want:?}"
        );
        if let Some(pole_thing) = st
            .things
            .iter()
            .find(|th| horizontal(th.world_m.unwrap(), pole) < 0.3)
        {
            checked += 1;
            if g.target == Some(pole_thing.id) {
                on_pole += 1;
            }
        }
    }
    assert!(checked > 50, "{checked}");
    assert!(on_pole * 10 >= checked * 9, "{on_pole} of {checked}");

    // Stable ids: the pole keeps one id while tracked.
    let mut ids: Vec<u32> = got
        .states
        .iter()
        .flat_map(|st| st.things.iter())
        .filter(|th| horizontal(th.world_m.unwrap(), pole) < 0.3)
        .map(|th| th.id)
        .collect();
    ids.dedup();
    assert_eq!(ids.len(), 1, "{ids:?}");
    // Synthetic sessions record the RGB camera: no "cannot read text" limitation.
    let last = got.states.last().unwrap();
    assert!(!last
        .limitations
        .iter()
        .any(|l| l.contains("cannot read text")));
    assert!(!last.limitations.iter().any(|l| l.contains("eye gaze")));
}

/// Motion states agree with the script's kinematics wherever those are steady for ±0.5 s;
/// cadence matches the scripted speed (one step per 0.7 m).
fn check_motion(s: &Synth, states: &[Arc<EnvironmentState>], min_cadence_checks: usize) {
    let (mut agree, mut total) = (0, 0);
    let mut cadence_checked = 0;
    for st in states {
        let t = t_s(s, st.at.ns());
        if t < 1.0 {
            continue;
        }
        let want = truth_motion(&s.path, t);
        let steady = [-0.5, -0.25, 0.25, 0.5]
            .iter()
            .all(|d| truth_motion(&s.path, t + d) == want);
        if !steady {
            continue;
        }
        total += 1;
        if st.motion.state == want {
            agree += 1;
        }
        if want == MotionState::Walking {
            let (a, b) = (s.path.head(t - 1.0), s.path.head(t));
            let d = b.position_m - a.position_m;
            let v = d.x.hypot(d.y);
            let spm = v / 0.7 * 60.0;
            // Steady speed over the whole cadence window (six half-second spans).
            let span_speed = |t0: f64| {
                let d = s.path.head(t0 + 0.5).position_m - s.path.head(t0).position_m;
                d.x.hypot(d.y) / 0.5
            };
            let steady_speed =
                (0..6).all(|k| (span_speed(t - 3.0 + 0.5 * k as f64) - v).abs() < 0.03);
            if steady_speed {
                if let Some(c) = st.motion.cadence_spm {
                    cadence_checked += 1;
                    assert!(
                        (f64::from(c) - spm).abs() < spm * 0.1,
                        "t {t}: cadence {c} vs {spm}"
                    );
                }
            }
            let sp = st.motion.speed_mps.unwrap();
            assert!((f64::from(sp) - v).abs() < 0.1, "t {t}: speed {sp} vs {v}");
        }
    }
    assert!(total > 100, "{total}");
    assert!(
        agree * 100 >= total * 90,
        "motion agrees {agree} of {total}"
    );
    assert!(cadence_checked >= min_cadence_checks, "{cadence_checked}");
}

/// Heading: the head's yaw from the script, as a compass heading (the synthetic field
/// points to +y, north; east is +x).
fn check_heading(s: &Synth, states: &[Arc<EnvironmentState>]) {
    let mut n = 0;
    for st in states {
        let t = t_s(s, st.at.ns());
        if t < 2.0 {
            continue;
        }
        let h = st.motion.heading_deg.unwrap();
        let want = (90.0 - s.path.head(t).yaw_rad.to_degrees()).rem_euclid(360.0);
        let diff = ((f64::from(h) - want + 540.0).rem_euclid(360.0) - 180.0).abs();
        assert!(diff < 5.0, "t {t}: heading {h} vs {want}");
        n += 1;
    }
    assert!(n > 300);
}

#[test]
fn mixed_walk_box_curb_branch_and_stairs() {
    let s = synth("mixed_walk", 31.0);
    let scene = Scene::from_world(&s.sc.world);
    let mut pts = scene_points(&scene);
    // The first leg: floor at 0 up to the curb at x = 12, 15 cm lower after it.
    floor(&mut pts, (-2.0, 12.0), (-2.0, 0.6), 0.0);
    floor(&mut pts, (12.0, 26.0), (-2.0, 0.6), -0.15);
    let got = replay(&s.root, Some(pts), false);

    let hazards = truth_hazards(&s);
    // The low branch is alerted about 4.5 m before its near end: inside the ground truth's
    // window since that is measured to the branch's nearest part, not its centre.
    let cases = vec![
        ("box", ThingKind::Obstacle, Some(HeightBand::Ground)),
        ("drop_off", ThingKind::DropOff, Some(HeightBand::Ground)),
        ("low_branch", ThingKind::Overhead, Some(HeightBand::Head)),
    ];
    for (kind, want_kind, band) in cases {
        let (_, pos, from, latest) = hazards
            .iter()
            .find(|h| h.0 == kind)
            .unwrap_or_else(|| panic!("no {kind} in {:?}", hazards))
            .clone();
        // Drop-off edges are placed on the corridor line at 25 cm resolution. An in-path
        // thing is placed where the corridor meets it, anywhere on its footprint: allow
        // half its longest horizontal side beyond the centre the truth gives.
        let half_extent =
            s.sc.world
                .obstacles
                .iter()
                .filter(|o| (o.center_m[0] - pos[0]).hypot(o.center_m[1] - pos[1]) < 0.05)
                .map(|o| 0.5 * o.size_m[0].max(o.size_m[1]))
                .fold(0.0, f64::max);
        let tol = if want_kind == ThingKind::DropOff {
            0.45
        } else {
            0.5 + half_extent
        };
        let ev: Vec<&HazardEvent> = got
            .events
            .iter()
            .filter(|e| {
                e.thing.kind == want_kind && horizontal(e.thing.world_m.unwrap(), pos) < tol
            })
            .collect();
        assert_eq!(ev.len(), 1, "{kind}: {}", brief(&got.events));
        let e = ev[0];
        assert!(e.evidence.ns() >= from, "{kind}: too early");
        if let Some(l) = latest {
            assert!(e.evidence.ns() <= l, "{kind}: too late");
        }
        assert_eq!(e.thing.height, band, "{kind}");
    }
    check_motion(&s, &got.states, 20);

    // Stairs up (t ≈ 26.5–29.5 s): reported, and the 10 s height change after them matches
    // the script's.
    let climbing = got
        .states
        .iter()
        .filter(|st| st.motion.state == MotionState::StairsUp)
        .count();
    assert!(climbing >= 20, "{climbing} ticks on stairs up");
    let last = got.states.last().unwrap();
    let t = t_s(&s, last.at.ns());
    let want = s.path.head(t).position_m.z - s.path.head(t - 10.0).position_m.z;
    let dz = f64::from(last.motion.elevation_change_m.unwrap());
    assert!((dz - want).abs() < 0.1, "{dz} vs {want}");
    // Walkable: walking toward the box, the clear distance ahead never exceeds the box's
    // distance along the way (a 0.8 m corridor), and reaches well beyond it after the curb.
    for st in &got.states {
        let t = t_s(&s, st.at.ns());
        let h = s.path.head(t);
        if (3.0..6.0).contains(&t) {
            let w = st.walkable.as_ref().unwrap();
            let to_box = 7.75 - h.position_m.x;
            if to_box < 5.0 {
                assert!(
                    f64::from(w.clear_ahead_m) <= to_box + 0.1,
                    "t {t}: {w:?} vs {to_box}"
                );
            }
        }
    }
}

#[test]
fn recorded_streams_only_still_give_motion_and_say_what_is_missing() {
    let s = synth("pole_to_door", 8.0);
    let got = replay(&s.root, None, true);
    // One state every 50 ms of device time over 8 s.
    assert!(
        (155..=161).contains(&got.states.len()),
        "{}",
        got.states.len()
    );
    let last = got.states.last().unwrap();
    for phrase in ["eye gaze", "device pose", "semi-dense points"] {
        assert!(
            last.limitations.iter().any(|l| l.contains(phrase)),
            "{phrase}: {:?}",
            last.limitations
        );
    }
    assert!(last.gaze.is_none() && last.things.is_empty() && last.walkable.is_none());
    assert!(got.events.is_empty());
    // Walking 1–5 s at 1.1 m/s: the IMU alone tells walking, with the step model's speed.
    let walking = got
        .states
        .iter()
        .filter(|st| (2.5..4.5).contains(&t_s(&s, st.at.ns())))
        .filter(|st| st.motion.state == MotionState::Walking)
        .count();
    assert!(walking >= 36, "{walking} of 40");
    // Standing after (the walk ends at ≈ 5.2 s, the stop lasts until ≈ 6.7 s).
    let standing = got
        .states
        .iter()
        .filter(|st| (6.2..6.6).contains(&t_s(&s, st.at.ns())))
        .all(|st| st.motion.state == MotionState::Standing);
    assert!(standing);
    // Elevation from the barometer: flat corridor.
    let dz = last.motion.elevation_change_m.unwrap();
    assert!(dz.abs() < 0.3, "{dz}");
}

#[test]
fn real_aria_recording_runs_without_panic() {
    let vrs = Path::new(ROOT).join("tests/data/gen1/aria_unit_test_timecode_sequence_calib.vrs");
    let got = replay(&vrs, None, false);
    assert!(got.finished);
    // 0.15 s of data: a couple of ticks at most; no world, so no things and no hazards.
    assert!(got.events.is_empty());
    if let Some(last) = got.states.last() {
        assert!(last.things.is_empty());
        assert!(last.limitations.iter().any(|l| l.contains("device pose")));
    }
}

/// The MPS sample (a real 12 s recording's trajectory, eye gaze and points) fed straight
/// into the engine: motion agrees with the trajectory file's own speed, gaze pixels fall in
/// the RGB image, and nothing panics on real point clouds.
#[test]
fn real_mps_sample_gives_sensible_motion_and_gaze() {
    use vista::aria::mps::{read_eye_gaze, read_trajectory};
    let mps = Path::new(ROOT).join("tests/data/gen1/mps_sample");
    let text = std::fs::read_to_string(mps.join("trajectory/online_calibration.jsonl")).unwrap();
    let calib = DeviceCalibration::from_json_str(text.lines().next().unwrap()).unwrap();
    let mut models = SensorModels::from_calibration(&calib);
    if let Some(rgb) = models.rgb.as_mut() {
        if rgb.image_width == 2880 {
            *rgb = rgb.rescaled(1408, 1408).unwrap();
        }
    }
    let traj = read_trajectory(mps.join("trajectory/closed_loop_trajectory.csv")).unwrap();
    let gaze = read_eye_gaze(mps.join("eye_gaze/generalized_eye_gaze.csv")).unwrap();
    let mut notes = Vec::new();
    let files = vista::aria::mps::MpsFiles::discover(&mps.join("trajectory"));
    let points = vista::perception::load::load_points(&files, &mut notes)
        .unwrap()
        .map(Arc::new);
    assert!(points.as_ref().is_some_and(|p| !p.is_empty()));
    let mut engine = Perception::new(PerceptionConfig::default(), models, points);
    let mut samples: Vec<Sample> = traj
        .iter()
        .map(|p| Sample {
            stream: StreamId::DevicePose,
            capture: p.tracking_time,
            arrival: HostTime::default(),
            seq: 0,
            payload: Payload::Pose(p.to_sample()),
        })
        .chain(gaze.iter().map(|g| Sample {
            stream: StreamId::EyeGaze,
            capture: g.tracking_time,
            arrival: HostTime::default(),
            seq: 0,
            payload: Payload::EyeGaze(g.to_sample()),
        }))
        .collect();
    samples.sort_by_key(|s| s.capture);
    let first = samples.first().unwrap().capture.ns();
    let mut next = first + 50_000_000;
    let mut states = Vec::new();
    for s in &samples {
        while s.capture.ns() >= next {
            let (st, _) = engine.tick(DeviceTime(next), HostTime::default());
            states.push(st);
            next += 50_000_000;
        }
        engine.on_sample(s);
    }
    assert!(states.len() > 100);
    // Speed against the trajectory itself: head displacement over the last second.
    let t_device_cpf = calib.t_device_cpf();
    let head = |ns: i64| -> Option<Vector3<f64>> {
        let i = traj.partition_point(|p| p.tracking_time.ns() <= ns);
        let p = traj.get(i.checked_sub(1)?)?;
        Some((p.t_world_device * t_device_cpf * Point3::origin()).coords)
    };
    let mut compared = 0;
    let mut gaze_inside = 0;
    let mut gaze_seen = 0;
    for st in &states {
        let t = st.at.ns();
        if t < first + 1_500_000_000 {
            continue;
        }
        if let (Some(a), Some(b), Some(v)) = (head(t - 1_000_000_000), head(t), st.motion.speed_mps)
        {
            let d = b - a;
            let want = d.x.hypot(d.y);
            assert!((f64::from(v) - want).abs() < 0.05, "{v} vs {want}");
            compared += 1;
            if want > 0.5 {
                assert_ne!(st.motion.state, MotionState::Standing);
            }
            if want < 0.1 {
                assert!(matches!(
                    st.motion.state,
                    MotionState::Standing | MotionState::Turning
                ));
            }
        }
        if let Some(g) = &st.gaze {
            gaze_seen += 1;
            if let Some([u, v]) = g.rgb_pixel {
                assert!((0.0..1408.0).contains(&u) && (0.0..1408.0).contains(&v));
                gaze_inside += 1;
            }
        }
    }
    assert!(compared > 100, "{compared}");
    assert!(
        gaze_seen > 50 && gaze_inside * 10 >= gaze_seen * 9,
        "{gaze_inside}/{gaze_seen}"
    );
    // The map is used without observation times: said so.
    let last = states.last().unwrap();
    assert!(last
        .limitations
        .iter()
        .any(|l| l.contains("observation times")));
    assert!(last.walkable.is_some());
}

#[test]
fn bad_samples_never_crash() {
    let mut engine = Perception::new(PerceptionConfig::default(), SensorModels::default(), None);
    let nan = f32::NAN;
    let bad = [
        Payload::Imu(vista::sample::ImuSample {
            accel_mps2: [nan; 3],
            gyro_radps: [nan; 3],
            accel_valid: true,
            gyro_valid: true,
            temperature_c: nan,
        }),
        Payload::Magnetometer(vista::sample::MagSample { field_t: [nan; 3] }),
        Payload::Barometer(vista::sample::BaroSample {
            pressure_pa: f64::NAN,
            temperature_c: nan,
        }),
        Payload::EyeGaze(vista::sample::EyeGazeSample {
            yaw_rad: nan,
            pitch_rad: f32::INFINITY,
            depth_m: Some(-1.0),
        }),
        Payload::Pose(vista::sample::PoseSample {
            t_world_device: nalgebra::Isometry3::translation(f64::NAN, 0.0, 0.0),
            linear_velocity_mps: [nan; 3],
            angular_velocity_radps: [nan; 3],
            quality: nan,
        }),
    ];
    for (i, p) in bad.iter().enumerate() {
        let stream = match p {
            Payload::Imu(_) => StreamId::ImuRight,
            Payload::Magnetometer(_) => StreamId::Magnetometer,
            Payload::Barometer(_) => StreamId::Barometer,
            Payload::EyeGaze(_) => StreamId::EyeGaze,
            _ => StreamId::DevicePose,
        };
        engine.on_sample(&Sample {
            stream,
            capture: DeviceTime(i as i64 * 1_000_000),
            arrival: HostTime::default(),
            seq: 0,
            payload: p.clone(),
        });
    }
    let (st, ev) = engine.tick(DeviceTime(50_000_000), HostTime::default());
    assert!(ev.is_empty());
    assert_eq!(st.motion.state, MotionState::Unknown);
    assert!(st.gaze.is_none() && st.motion.heading_deg.is_none());
    assert_eq!(engine.stats().unusable, 5);
}

/// Returns, for every submitted frame, two texts: one around `box_at` (where a gaze
/// straight ahead at 2 m falls in the RGB image, computed by the test from the
/// calibration), one in the image's corner.
struct FakeReader {
    submitted: Arc<Mutex<Vec<Option<[f32; 2]>>>>,
    box_at: [f32; 2],
    pending: Vec<vista::state::TextFact>,
    whole: u64,
}

impl vista::state::TextReader for FakeReader {
    fn submit(&mut self, frame: &Sample, gaze_px: Option<[f32; 2]>) {
        self.submitted.lock().unwrap().push(gaze_px);
        let [u, v] = self.box_at;
        for (text, rgb_box) in [
            ("EXIT", [u - 40.0, v - 20.0, u + 40.0, v + 20.0]),
            ("corner", [0.0, 0.0, 60.0, 30.0]),
        ] {
            self.pending.push(vista::state::TextFact {
                text: text.to_string(),
                confidence: 0.9,
                clock: vista::state::ClockHour::new(12),
                distance_m: None,
                rgb_box,
                gazed: false,
                at: frame.capture,
            });
        }
    }
    fn read_whole(&mut self, frame: &Sample, gaze_px: Option<[f32; 2]>) {
        self.submit(frame, gaze_px);
        self.whole += 1;
    }
    fn whole_reads_finished(&self) -> u64 {
        self.whole
    }
    fn poll(&mut self) -> Vec<vista::state::TextFact> {
        std::mem::take(&mut self.pending)
    }
}

#[test]
fn texts_from_the_reader_are_marked_gazed_where_the_gaze_falls() {
    use vista::aria::recorded_calib::recording_calibration;
    let vrs = Path::new(ROOT).join("tests/data/gen1/aria_unit_test_timecode_sequence_calib.vrs");
    let rec = AriaRecording::open(&vrs).unwrap();
    let calib = recording_calibration(&rec).unwrap().unwrap();
    let rgb = calib.camera("camera-rgb").unwrap().clone();
    assert_eq!(rgb.image_width, 1408);
    // Straight ahead at 2 m, through the CAD CPF and the RGB camera.
    let p_dev = calib.t_device_cpf() * Point3::new(0.0, 0.0, 2.0);
    let uv = rgb.project_device(&p_dev).unwrap();
    let models = SensorModels::from_calibration(&calib);
    let mut samples = Vec::new();
    for i in 0..15i64 {
        let t = 1_000_000_000 + i * 100_000_000;
        samples.push(Sample {
            stream: StreamId::EyeGaze,
            capture: DeviceTime(t),
            arrival: HostTime::default(),
            seq: i as u64,
            payload: Payload::EyeGaze(vista::sample::EyeGazeSample {
                yaw_rad: 0.0,
                pitch_rad: 0.0,
                depth_m: Some(2.0),
            }),
        });
        samples.push(Sample {
            stream: StreamId::CameraRgb,
            capture: DeviceTime(t + 10_000_000),
            arrival: HostTime::default(),
            seq: i as u64,
            payload: Payload::Image(vista::sample::ImageFrame {
                width: 1408,
                height: 1408,
                encoding: vista::sample::ImageEncoding::Jpeg,
                data: bytes::Bytes::new(),
                frame_number: i as u64,
                exposure_s: 0.01,
                gain: 1.0,
            }),
        });
    }
    let submitted = Arc::new(Mutex::new(Vec::new()));
    let reader = FakeReader {
        submitted: Arc::clone(&submitted),
        box_at: [uv.x as f32, uv.y as f32],
        pending: Vec::new(),
        whole: 0,
    };
    let got = Arc::new(Mutex::new(Collected::default()));
    let engine = Perception::new(PerceptionConfig::default(), models, None);
    let consumer = PerceptionConsumer::new(engine, Box::new(Collect(Arc::clone(&got))))
        .with_text_reader(Box::new(reader));
    let consumers: Vec<Box<dyn Consumer>> = vec![Box::new(consumer)];
    let mut config = RuntimeConfig::new(ClockMode::Virtual);
    config.lockstep_tick_ns = 10_000_000;
    run(
        Box::new(vista::source::VecSource::new(samples)),
        config,
        consumers,
    )
    .unwrap();
    let submitted = submitted.lock().unwrap();
    assert_eq!(submitted.len(), 15);
    // Every frame after the first gaze sample carries the gaze pixel, where the test put it.
    for px in submitted.iter() {
        let [u, v] = px.unwrap();
        assert!((f64::from(u) - uv.x).hypot(f64::from(v) - uv.y) < 0.5);
    }
    let got = got.lock().unwrap();
    let last = got.states.last().unwrap();
    let exit = last
        .texts
        .iter()
        .filter(|t| t.text == "EXIT")
        .collect::<Vec<_>>();
    assert!(!exit.is_empty() && exit.iter().all(|t| t.gazed));
    assert!(last
        .texts
        .iter()
        .filter(|t| t.text == "corner")
        .all(|t| !t.gazed));
    // Bounded: at most the configured number of texts.
    assert!(last.texts.len() <= PerceptionConfig::default().max_texts);
    let g = last.gaze.as_ref().unwrap();
    assert_eq!(g.clock.get(), 12);
    assert!(!last.limitations.iter().any(|l| l.contains("calibration")));
}

#[test]
fn points_appear_only_once_observed_and_old_texts_expire() {
    // A pole 2 m ahead first observed at 2 s; the floor known from the start.
    let mut pts = Vec::new();
    floor(&mut pts, (-2.0, 6.0), (-1.0, 1.0), 0.0);
    let mut pole = Vec::new();
    sample_quad(
        &mut pole,
        [2.0, -0.05, 0.0],
        [0.0, 0.1, 0.0],
        [0.0, 0.0, 2.0],
        0.05,
    );
    sample_quad(
        &mut pole,
        [2.1, -0.05, 0.0],
        [0.0, 0.1, 0.0],
        [0.0, 0.0, 2.0],
        0.05,
    );
    for p in pole.iter_mut() {
        p.first_seen_ns = 2_000_000_000;
    }
    for p in pts.iter_mut() {
        p.first_seen_ns = 0;
    }
    pts.extend(pole);
    let map = Arc::new(PointMap::new(pts, true));
    let models = SensorModels {
        // The CPF as the device frame: z forward, y up, x left.
        t_device_cpf: nalgebra::Isometry3::identity(),
        ..SensorModels::default()
    };
    let mut engine = Perception::new(PerceptionConfig::default(), models, Some(map));
    // Standing at the origin, eyes at 1.6 m, facing +x (CPF z → world x, y → world z).
    let r =
        nalgebra::UnitQuaternion::from_axis_angle(&Vector3::x_axis(), std::f64::consts::FRAC_PI_2)
            * nalgebra::UnitQuaternion::from_axis_angle(
                &Vector3::y_axis(),
                std::f64::consts::FRAC_PI_2,
            );
    let pose = vista::sample::PoseSample {
        t_world_device: nalgebra::Isometry3::from_parts(
            nalgebra::Translation3::new(0.0, 0.0, 1.6),
            r,
        ),
        linear_velocity_mps: [0.0; 3],
        angular_velocity_radps: [0.0; 3],
        quality: 1.0,
    };
    engine.add_texts([vista::state::TextFact {
        text: "old".into(),
        confidence: 1.0,
        clock: vista::state::ClockHour::new(12),
        distance_m: None,
        rgb_box: [0.0; 4],
        gazed: false,
        at: DeviceTime(0),
    }]);
    let mut seen_at = None;
    for i in 0..60i64 {
        let t = i * 50_000_000;
        engine.on_sample(&Sample {
            stream: StreamId::DevicePose,
            capture: DeviceTime(t),
            arrival: HostTime::default(),
            seq: i as u64,
            payload: Payload::Pose(pose),
        });
        let (st, ev) = engine.tick(DeviceTime(t), HostTime(t));
        if st.things.is_empty() {
            assert!(seen_at.is_none());
        } else if seen_at.is_none() {
            seen_at = Some(t);
            assert_eq!(st.things.len(), 1, "{:?}", st.things);
            let th = &st.things[0];
            assert_eq!(th.clock.get(), 12);
            assert!((th.distance_m - 2.0).abs() < 0.01);
            // Standing still 2 m from it: within the alert distance, but not approaching
            // (the alert comes when the wearer sets off; see perception::hazards).
            assert!(ev.is_empty(), "{ev:?}");
            assert!(!st
                .limitations
                .iter()
                .any(|l| l.contains("observation times")));
        }
        assert!(st.walkable.is_some());
    }
    assert_eq!(seen_at, Some(2_000_000_000));
    let (st, _) = engine.tick(DeviceTime(9_000_000_000), HostTime(0));
    assert_eq!(st.texts.len(), 1);
    let (st, _) = engine.tick(DeviceTime(11_000_000_000), HostTime(0));
    assert!(st.texts.is_empty());
}

/// Aria Gen2's own VIO drives perception like MPS's trajectory (the wearer's speed from it);
/// when its tracker reports itself lost (quality 0), those poses are not used: the head stays
/// where the last good pose put it, and the state says tracking is lost until it recovers.
#[test]
fn gen2_device_pose_is_used_and_a_lost_tracker_is_honoured() {
    use vista::aria::recorded_calib::recording_calibration;
    use vista::perception::engine::TRACKING_LOST;
    let rec = AriaRecording::open(
        Path::new(ROOT).join("tests/data/gen2/aria_gen2_unit_test_sequence_with_bluetooth.vrs"),
    )
    .unwrap();
    let calib = recording_calibration(&rec).unwrap().unwrap();
    let models = SensorModels::from_calibration(&calib);
    let poses: Vec<Sample> = rec
        .stream_samples(StreamId::DevicePose)
        .map(|r| {
            let (stream, capture, payload) = r.unwrap();
            Sample {
                stream,
                capture,
                arrival: HostTime::default(),
                seq: 0,
                payload,
            }
        })
        .collect();
    let run = |lost_from: Option<usize>| {
        let mut engine = Perception::new(PerceptionConfig::default(), models.clone(), None);
        let mut last = None;
        for (i, s) in poses.iter().enumerate() {
            let mut s = s.clone();
            if lost_from.is_some_and(|k| i >= k) {
                if let Payload::Pose(p) = &mut s.payload {
                    p.quality = 0.0;
                    // A lost tracker's estimate runs away.
                    p.t_world_device.translation.vector.z += 5.0;
                }
            }
            engine.on_sample(&s);
            last = Some(s.capture);
        }
        let t = last.unwrap();
        let (st, _) = engine.tick(t, HostTime::default());
        (st, engine.stats().poses_lost, engine.floor_z_m(t.ns()))
    };
    let (good, lost_none, floor_good) = run(None);
    assert_eq!(lost_none, 0);
    // A tracker that keeps reporting good quality but jumps its frame (a relocalisation:
    // 3 m at once): taken as the new truth, counted, and the state says so.
    let mut engine = Perception::new(PerceptionConfig::default(), models.clone(), None);
    let mut last = None;
    for (i, s) in poses.iter().enumerate() {
        let mut s = s.clone();
        if i >= poses.len() / 2 {
            if let Payload::Pose(p) = &mut s.payload {
                p.t_world_device.translation.vector.x += 3.0;
            }
        }
        engine.on_sample(&s);
        last = Some(s.capture);
    }
    let (jumped, _) = engine.tick(last.unwrap(), HostTime::default());
    assert_eq!(engine.stats().pose_jumps, 1);
    assert_eq!(engine.stats().poses_lost, 0);
    assert!(jumped.limitations.iter().any(|l| l == TRACKING_LOST));
    assert!(!good.limitations.iter().any(|l| l == TRACKING_LOST));
    assert!(
        !good
            .limitations
            .iter()
            .any(|l| l.contains("no device pose")),
        "{:?}",
        good.limitations
    );
    // The floor under the wearer comes from the device's pose (the head's height less the
    // eye height: no depth here).
    let floor_good = floor_good.unwrap();
    let (lost, n_lost, floor_lost) = run(Some(poses.len() / 2));
    assert_eq!(n_lost as usize, poses.len() - poses.len() / 2);
    assert!(lost.limitations.iter().any(|l| l == TRACKING_LOST));
    // The runaway positions were never used: the floor stays where the last good pose put
    // it (the head moved a few centimetres in the 0.15 s between).
    let floor_lost = floor_lost.unwrap();
    assert!(
        (floor_lost - floor_good).abs() < 0.1,
        "{floor_lost} vs {floor_good}"
    );
}
