//! Hazard alerts against the walking-corridor ground truth, without the runtime: the
//! scripted wearer's poses (`WearerPath`, the synthesiser's kinematics) are fed to
//! [`Perception`] at 100 Hz with a static point map sampled from the scenario's geometry
//! and, every 100 ms, depth points on the visible side of each person's body (as the
//! stereo stage will give), and the alerts are compared with `synth::truth` hazards: each
//! relevant hazard needs an alert inside its window at its place (within 1 m of a static
//! hazard's position, or of where the person is at the alert), and every other alert is a
//! false one.

mod hazards_common;

use std::sync::Arc;

use hazards_common::{about, score, static_map, Run, T0};

use vista::perception::{Perception, PerceptionConfig, SensorModels};
use vista::sample::{Payload, PoseSample, Sample, StreamId};
use vista::state::{HazardEvent, ThingKind};
use vista::synth::scenario::Scenario;
use vista::synth::truth::ground_truth;
use vista::synth::{find_scenario, WearerPath};
use vista::time::{DeviceTime, HostTime};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

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

/// Perception over `name`'s first `duration_s` seconds; `depth`: feed people's depth points.
fn run(name: &str, duration_s: f64, hall: ((f64, f64), (f64, f64)), depth: bool) -> Run {
    run_edited(name, duration_s, hall, depth, |_| {})
}

/// As [`run`], the scenario changed by `edit` first.
fn run_edited(
    name: &str,
    duration_s: f64,
    hall: ((f64, f64), (f64, f64)),
    depth: bool,
    edit: impl FnOnce(&mut Scenario),
) -> Run {
    let mut sc = find_scenario(&std::path::Path::new(ROOT).join("scenarios"), name).unwrap();
    edit(&mut sc);
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
fn a_low_thing_moving_across_is_no_person() {
    // The crossing "person" made 0.6 m tall (a rolling case, or the treads of a kerb whose
    // depth points slide as the wearer walks): it moves, but nothing calls it a person.
    let r = run_edited("find_exit", 34.0, ((-1.0, 16.0), (-2.0, 2.0)), true, |sc| {
        for p in &mut sc.world.people {
            p.height_m = 0.6;
        }
    });
    let (_, _, _, log) = score(&r);
    assert!(
        r.events.iter().all(|e| e.thing.kind != ThingKind::Person),
        "{log}"
    );
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
