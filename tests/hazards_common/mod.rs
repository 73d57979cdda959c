//! Shared by the hazard tests: the static point map of a scenario's geometry.

#![allow(dead_code)]

use vista::perception::points::MapPoint;
use vista::perception::PointMap;
use vista::state::HazardEvent;
use vista::synth::render::Scene;
use vista::synth::scenario::{Scenario, World};
use vista::synth::truth::Hazard;

/// Device time of the scenario's start, ns.
pub const T0: i64 = 1_000_000_000;

/// Samples a rectangle `origin + a·u + b·v` every `step_m`.
pub fn quad(out: &mut Vec<MapPoint>, o: [f64; 3], u: [f64; 3], v: [f64; 3], step_m: f64) {
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
pub fn static_map(sc: &Scenario, x: (f64, f64), y: (f64, f64)) -> PointMap {
    static_map_of_world(&sc.world, x, y)
}

/// [`static_map`] of a world.
pub fn static_map_of_world(world: &World, x: (f64, f64), y: (f64, f64)) -> PointMap {
    let scene = Scene::from_world(world);
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
    let z = world.floor_z_m;
    quad(
        &mut out,
        [x.0, y.0, z],
        [x.1 - x.0, 0.0, 0.0],
        [0.0, y.1 - y.0, 0.0],
        0.1,
    );
    PointMap::new(out, false)
}

/// One perception run over a scenario.
pub struct Run {
    pub sc: Scenario,
    pub hazards: Vec<Hazard>,
    pub events: Vec<HazardEvent>,
    pub duration_s: f64,
}

/// Whether `e` is about `h` (within 1 m of its position; a person: of where it is then).
pub fn about(run: &Run, e: &HazardEvent, h: &Hazard) -> bool {
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
pub fn score(run: &Run) -> (usize, usize, usize, String) {
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
