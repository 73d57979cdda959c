//! Hazard alerts against the walking-corridor ground truth, without the runtime: the
//! scripted wearer's poses (`WearerPath`, the synthesiser's kinematics) are fed to
//! [`Perception`] at 100 Hz with a static point map sampled from the scenario's geometry
//! and, every 100 ms, depth points on the visible side of each person's body (as the
//! stereo stage will give), and the alerts are compared with `synth::truth` hazards: each
//! relevant hazard needs an alert inside its window at its place (within 1 m of a static
//! hazard's position, or of where the person is at the alert), and every other alert is a
//! false one.

use std::sync::Arc;

use vista::perception::points::MapPoint;
use vista::perception::{Perception, PerceptionConfig, PointMap, SensorModels};
use vista::sample::{Payload, PoseSample, Sample, StreamId};
use vista::state::{HazardEvent, ThingKind};
use vista::synth::render::Scene;
use vista::synth::scenario::Scenario;
use vista::synth::truth::{ground_truth, Hazard};
use vista::synth::{find_scenario, WearerPath};
use vista::time::{DeviceTime, HostTime};

const T0: i64 = 1_000_000_000;
const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Samples a rectangle `origin + a·u + b·v` every `step_m`.
fn quad(out: &mut Vec<MapPoint>, o: [f64; 3], u: [f64; 3], v: [f64; 3], step_m: f64) {
    let len = |w: [f64; 3]| (w[0] * w[0] + w[1] * w[1] + w[2] * w[2]).sqrt();
    let (nu, nv) = (
        (len(u) / step_m).ceil().max(1.0) as usize,
        (len(v) / step_m).ceil().max(1.0) as usize,
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

/// The static map: the scene's boxes and rectangles, and the floor over `x`, `y`.
fn static_map(sc: &Scenario, x: (f64, f64), y: (f64, f64)) -> PointMap {
    let scene = Scene::from_world(&sc.world);
    let mut out = Vec::new();
    for b in &scene.boxes {
        let [x0, y0, z0] = b.min_m;
        let [x1, y1, z1] = b.max_m;
        let (dx, dy, dz) = (x1 - x0, y1 - y0, z1 - z0);
        quad(&mut out, [x0, y0, z0], [dx, 0.0, 0.0], [0.0, 0.0, dz], 0.05);
        quad(&mut out, [x0, y1, z0], [dx, 0.0, 0.0], [0.0, 0.0, dz], 0.05);
        quad(&mut out, [x0, y0, z0], [0.0, dy, 0.0], [0.0, 0.0, dz], 0.05);
        quad(&mut out, [x1, y0, z0], [0.0, dy, 0.0], [0.0, 0.0, dz], 0.05);
        quad(&mut out, [x0, y0, z1], [dx, 0.0, 0.0], [0.0, dy, 0.0], 0.05);
    }
    for q in &scene.quads {
        quad(&mut out, q.origin_m, q.u_m, q.v_m, 0.1);
    }
    let z = sc.world.floor_z_m;
    quad(
        &mut out,
        [x.0, y.0, z],
        [x.1 - x.0, 0.0, 0.0],
        [0.0, y.1 - y.0, 0.0],
        0.1,
    );
    PointMap::new(out, false)
}

/// Points on the side of each person's body that faces `eye` (every 15°, every 10 cm up),
/// within 8 m.
fn person_points(sc: &Scenario, t_s: f64, eye: [f64; 3]) -> Vec<[f32; 3]> {
    let mut out = Vec::new();
    for p in &sc.world.people {
        let [cx, cy] = p.position_at(t_s);
        let (ex, ey) = (eye[0] - cx, eye[1] - cy);
        if ex.hypot(ey) > 8.0 {
            continue;
        }
        for k in 0..24 {
            let a = f64::from(k) * 15f64.to_radians();
            let (nx, ny) = (a.cos(), a.sin());
            if nx * ex + ny * ey <= 0.0 {
                continue;
            }
            let mut z = 0.1;
            while z <= p.height_m {
                out.push([
                    (cx + p.radius_m * nx) as f32,
                    (cy + p.radius_m * ny) as f32,
                    (sc.world.floor_z_m + z) as f32,
                ]);
                z += 0.1;
            }
        }
    }
    out
}

struct Run {
    sc: Scenario,
    hazards: Vec<Hazard>,
    events: Vec<HazardEvent>,
    duration_s: f64,
}

/// Perception over `name`'s first `duration_s` seconds; `depth`: feed people's depth points.
fn run(name: &str, duration_s: f64, hall: ((f64, f64), (f64, f64)), depth: bool) -> Run {
    let sc = find_scenario(&std::path::Path::new(ROOT).join("scenarios"), name).unwrap();
    let models = SensorModels::default();
    let path = WearerPath::new(&sc.wearer, sc.world.floor_z_m, models.t_device_cpf);
    let hazards = ground_truth(&sc, &path, 0, T0, duration_s).hazards;
    let map = static_map(&sc, hall.0, hall.1);
    let mut p = Perception::new(PerceptionConfig::default(), models, Some(Arc::new(map)));
    let mut events = Vec::new();
    let step_ns = 10_000_000i64;
    let n = (duration_s * 1e9) as i64 / step_ns;
    for i in 0..=n {
        let t_ns = i * step_ns;
        let t_s = t_ns as f64 * 1e-9;
        let [_, v, _] = path.point_kinematics(t_s, &nalgebra::Vector3::zeros());
        let w = path.angular_velocity_device(t_s);
        let pose = PoseSample {
            t_world_device: path.t_world_device(t_s),
            linear_velocity_mps: [v.x as f32, v.y as f32, v.z as f32],
            angular_velocity_radps: [w.x as f32, w.y as f32, w.z as f32],
            quality: 1.0,
        };
        p.on_sample(&Sample {
            stream: StreamId::DevicePose,
            capture: DeviceTime(T0 + t_ns),
            arrival: HostTime(t_ns),
            seq: i as u64,
            payload: Payload::Pose(pose),
        });
        if depth && i % 10 == 0 {
            let h = path.head(t_s).position_m;
            p.on_depth_points(T0 + t_ns, &person_points(&sc, t_s, [h.x, h.y, h.z]));
        }
        if i % 5 == 0 {
            let (_, ev) = p.tick(DeviceTime(T0 + t_ns), HostTime(t_ns));
            events.extend(ev);
        }
    }
    Run {
        sc,
        hazards,
        events,
        duration_s,
    }
}

/// Whether `e` is about `h` (within 1 m of its position; a person: of where it is then).
fn about(run: &Run, e: &HazardEvent, h: &Hazard) -> bool {
    let Some(w) = e.thing.world_m else {
        return false;
    };
    let at = if h.moving {
        let t_s = (e.evidence.ns() - T0) as f64 * 1e-9;
        match run.sc.world.people.iter().find(|p| p.label == h.label) {
            Some(p) => p.position_at(t_s),
            None => return false,
        }
    } else {
        [h.position_m[0], h.position_m[1]]
    };
    (f64::from(w[0]) - at[0]).hypot(f64::from(w[1]) - at[1]) <= 1.0
}

/// `(caught, relevant, false alerts)`, with a line per hazard and per false alert.
fn score(run: &Run) -> (usize, usize, usize, String) {
    let mut log = String::new();
    let end = T0 + (run.duration_s * 1e9) as i64;
    let (mut caught, mut relevant) = (0, 0);
    for h in &run.hazards {
        let Some(from) = h.relevant_from_ns else {
            continue;
        };
        relevant += 1;
        let to = h.latest_alert_ns.unwrap_or(end);
        let hit = run
            .events
            .iter()
            .find(|e| about(run, e, h) && (from..=to).contains(&e.evidence.ns()));
        caught += usize::from(hit.is_some());
        log += &format!(
            "{} {:?} [{:.2}, {:.2}] {}\n",
            h.label,
            h.position_m,
            (from - T0) as f64 * 1e-9,
            (to - T0) as f64 * 1e-9,
            hit.map_or("MISSED".to_string(), |e| format!(
                "caught at {:.2}",
                (e.evidence.ns() - T0) as f64 * 1e-9
            ))
        );
    }
    let mut false_alerts = 0;
    for e in &run.events {
        if !run.hazards.iter().any(|h| about(run, e, h)) {
            false_alerts += 1;
            log += &format!(
                "false: {:?} {} at {:?} t {:.2}\n",
                e.thing.kind,
                e.thing.label,
                e.thing.world_m,
                (e.evidence.ns() - T0) as f64 * 1e-9
            );
        }
    }
    (caught, relevant, false_alerts, log)
}

#[test]
fn find_exit_with_depth_points_catches_every_hazard_and_the_crossing_person() {
    let r = run("find_exit", 34.0, ((-1.0, 16.0), (-2.0, 2.0)), true);
    let (caught, relevant, false_alerts, log) = score(&r);
    // The truth has the trolley, the person and the walls the wearer walks toward.
    assert!(relevant >= 3, "{log}");
    assert!(r.hazards.iter().any(|h| h.kind == "person"), "{log}");
    assert_eq!(caught, relevant, "{log}");
    // ≤ 1 per minute over 34 s.
    assert_eq!(false_alerts, 0, "{log}");
    // The person alert is a moving person, alerted once per approach.
    let person = r.hazards.iter().find(|h| h.kind == "person").unwrap();
    let n = r
        .events
        .iter()
        .filter(|e| about(&r, e, person) && e.thing.kind == ThingKind::Person)
        .count();
    assert_eq!(n, 1, "{log}");
}

#[test]
fn without_depth_points_the_person_is_not_seen() {
    // The static map holds no people: without depth points the crossing person is missed
    // (and nothing else changes).
    let r = run("find_exit", 34.0, ((-1.0, 16.0), (-2.0, 2.0)), false);
    let (caught, relevant, false_alerts, log) = score(&r);
    assert_eq!(caught + 1, relevant, "{log}");
    assert_eq!(false_alerts, 0, "{log}");
    assert!(r.events.iter().all(|e| e.thing.kind != ThingKind::Person));
}

#[test]
fn pole_to_door_one_alert_for_the_pole_and_no_false_ones() {
    let r = run("pole_to_door", 24.0, ((-1.0, 12.0), (-1.5, 1.5)), true);
    let (_, relevant, false_alerts, log) = score(&r);
    assert!(relevant >= 1, "{log}");
    assert_eq!(false_alerts, 0, "{log}");
    // The pole and the first (diagonal) approach of the side wall are caught. Known gaps,
    // not asserted: the last 0.4 m walk into the side wall (a 0.6 s window) and the end
    // wall the wearer stops 3.3 m short of at 0.9 m/s (the time to contact stays above
    // the alert time).
    for (kind, x) in [("pole", 6.0), ("wall", 6.598)] {
        let h = r
            .hazards
            .iter()
            .find(|h| h.kind == kind && (h.position_m[0] - x).abs() < 0.01)
            .unwrap();
        let (from, to) = (h.relevant_from_ns.unwrap(), h.latest_alert_ns.unwrap());
        let hits: Vec<&HazardEvent> = r.events.iter().filter(|e| about(&r, e, h)).collect();
        assert!(
            hits.iter().any(|e| (from..=to).contains(&e.evidence.ns())),
            "{kind}: {log}"
        );
        if kind == "pole" {
            // Hysteresis: one alert per approach.
            assert_eq!(hits.len(), 1, "{log}");
        }
    }
}
