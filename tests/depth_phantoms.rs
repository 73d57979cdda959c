//! Stereo depth through perception, end to end without the runtime: SLAM pairs of a
//! scenario rendered exactly as `vista synth` renders them (ray cast through the Gen1
//! calibration with people and the wearer's hands, JPEG-encoded), stereo depth, placed
//! with the true device pose, filtered and fed to [`Perception`] beside a static map of
//! the scene's geometry; alerts scored against the ground truth as in `tests/hazards.rs`.
//!
//! Every depth point is also classified against the rendered geometry — outside the band
//! (near: hands/body; floor; ceiling), on a person, on a hand, on a static surface, at a
//! depth edge (the matching window straddles two surfaces) or a mismatch (no surface near
//! its depth) — so that each false alert can be traced to the points around it:
//! `cargo test --test depth_phantoms -- --ignored --nocapture` prints the diagnosis,
//! unfiltered and filtered.

mod hazards_common;
mod stereo_common;

use std::collections::VecDeque;
use std::sync::Arc;

use hazards_common::{about, score, static_map, Run, T0};
use nalgebra::{Isometry3, Point3};
use stereo_common::{
    calib, depth_tolerance_m, slam, slam_frame_cameras, support_depth_range, true_depth,
};
use vista::perception::live_map::LiveMapConfig;
use vista::perception::stereo::filter::{band_verdict, BandConfig, BandVerdict};
use vista::perception::stereo::{
    DepthFilterConfig, Side, StereoConfig, StereoDepth, StereoGeometry,
};
use vista::perception::{Perception, PerceptionConfig, SensorModels};
use vista::sample::{Payload, PoseSample, Sample, StreamId};
use vista::state::ThingKind;
use vista::synth::frames::{FrameCamera, FrameWorld};
use vista::synth::render::{Scene, Surface};
use vista::synth::surface_texture::SurfaceTexture;
use vista::synth::truth::ground_truth;
use vista::synth::{find_scenario, hands, NoiseSpec, WearerPath};
use vista::time::{DeviceTime, HostTime};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const CATS: [&str; 8] = [
    "near", "floor", "ceiling", "hand", "person", "static", "edge", "mismatch",
];

/// The category (index into [`CATS`]) of a device-frame point.
#[allow(clippy::too_many_arguments)]
fn classify(
    p_dev: &[f32; 3],
    p_world: &[f32; 3],
    origin: &[f32; 3],
    floor_z: f32,
    scene: &Scene,
    people: usize,
    g: &StereoGeometry,
    pose: &Isometry3<f64>,
) -> usize {
    match band_verdict(p_world, origin, floor_z, &BandConfig::default()) {
        BandVerdict::Near => return 0,
        BandVerdict::Floor => return 1,
        BandVerdict::Ceiling => return 2,
        _ => {}
    }
    let pd = Point3::new(
        f64::from(p_dev[0]),
        f64::from(p_dev[1]),
        f64::from(p_dev[2]),
    );
    let Some([u, v, z]) = g.project(Side::Left, &pd) else {
        return 7;
    };
    let tol = depth_tolerance_m(g, z, 1.0).max(0.05);
    if let Some((zt, surface)) = true_depth(scene, g, pose, u, v) {
        if (zt - z).abs() <= tol {
            return match surface {
                Surface::Cylinder(i) if i < people => 4,
                Surface::Cylinder(_) => 3,
                Surface::Floor => 1,
                _ => 5,
            };
        }
    }
    match support_depth_range(scene, g, pose, u, v, 5) {
        Some((lo, hi)) if z >= lo - tol && z <= hi + tol => 6,
        _ => 7,
    }
}

struct StereoRun {
    run: Run,
    /// Per category: points over the run.
    totals: [usize; 8],
    /// One line per false alert: the categories of the depth points around it.
    false_alerts: Vec<String>,
    filter: String,
}

/// Perception over `name`'s first `duration_s` with rendered stereo depth every 200 ms.
fn stereo_run(
    name: &str,
    duration_s: f64,
    hall: ((f64, f64), (f64, f64)),
    filter: DepthFilterConfig,
) -> StereoRun {
    stereo_run_mapped(name, duration_s, hall, filter, false)
}

/// As [`stereo_run`]; with `live`, no static map: the live map built from the stereo depth
/// stands in for it (live mode).
fn stereo_run_mapped(
    name: &str,
    duration_s: f64,
    hall: ((f64, f64), (f64, f64)),
    filter: DepthFilterConfig,
    live: bool,
) -> StereoRun {
    let cal = calib();
    let (l, r) = slam(&cal);
    let sc = find_scenario(&std::path::Path::new(ROOT).join("scenarios"), name).unwrap();
    // The recording calibration's T_device_CPF, as `vista synth` places the device (the
    // nominal default one turns the SLAM pair 90° about the optical axis: the right camera
    // would look at the sky).
    let models = SensorModels::from_calibration(&cal);
    let path = WearerPath::new(&sc.wearer, sc.world.floor_z_m, models.t_device_cpf);
    let hazards = ground_truth(&sc, &path, 0, T0, duration_s).hazards;
    let map = (!live).then(|| Arc::new(static_map(&sc, hall.0, hall.1)));
    let mut p = Perception::new(PerceptionConfig::default(), models, map).with_depth_filter(filter);
    if live {
        p = p.with_live_map(LiveMapConfig::default());
    }
    let reaches = hands::reaches(&path);
    let mut scene = Scene::from_world(&sc.world);
    // As a written session of seed 0 renders it.
    scene.surface_texture = Some(SurfaceTexture::new(0));
    let static_boxes = scene.boxes.len();
    let people = sc.world.people.len();
    let fw = FrameWorld {
        scenario: &sc,
        path: &path,
        reaches: &reaches,
        static_boxes,
        t0_ns: T0,
        quality: 90,
        seed: 0,
        noise: NoiseSpec::TYPICAL,
        auto_exposure: true,
    };
    let (cam_l, cam_r) = slam_frame_cameras(&cal);
    let mut st = StereoDepth::from_cameras(&l, &r, StereoConfig::default()).unwrap();
    let g = st.rectification().geometry;
    let mut px = Vec::new();
    let mut recent: VecDeque<(i64, [f32; 3], usize)> = VecDeque::new();
    let mut totals = [0usize; 8];
    let mut events = Vec::new();
    let mut around = Vec::new();
    let step_ns = 10_000_000i64;
    let n = (duration_s * 1e9) as i64 / step_ns;
    for i in 0..=n {
        let t_ns = i * step_ns;
        let t_s = t_ns as f64 * 1e-9;
        let [_, v, _] = path.point_kinematics(t_s, &nalgebra::Vector3::zeros());
        let w = path.angular_velocity_device(t_s);
        let t_world_device = path.t_world_device(t_s);
        p.on_sample(&Sample {
            stream: StreamId::DevicePose,
            capture: DeviceTime(T0 + t_ns),
            arrival: HostTime(t_ns),
            seq: i as u64,
            payload: Payload::Pose(PoseSample {
                t_world_device,
                linear_velocity_mps: [v.x as f32, v.y as f32, v.z as f32],
                angular_velocity_radps: [w.x as f32, w.y as f32, w.z as f32],
                quality: 1.0,
            }),
        });
        if i % 20 == 0 {
            let frame = |c: &FrameCamera, scene: &mut Scene, px: &mut Vec<u8>| {
                fw.frame(c, T0 + t_ns, scene, px, 1)
                    .unwrap()
                    .image_frame(640, 480, i as u64)
            };
            let lf = frame(&cam_l, &mut scene, &mut px);
            let rf = frame(&cam_r, &mut scene, &mut px);
            let f = st.process_frames(T0 + t_ns, &lf, &rf).unwrap();
            let world = f.to_world(&t_world_device);
            let o = t_world_device.translation.vector;
            let origin = [o.x as f32, o.y as f32, o.z as f32];
            let floor = sc.world.floor_z_m as f32;
            for (pd, pw) in f.points_device.iter().zip(&world) {
                let c = classify(pd, pw, &origin, floor, &scene, people, &g, &t_world_device);
                totals[c] += 1;
                recent.push_back((T0 + t_ns, *pw, c));
            }
            while recent
                .front()
                .is_some_and(|r| r.0 < T0 + t_ns - 600_000_000)
            {
                recent.pop_front();
            }
            p.on_depth_frame(T0 + t_ns, origin, &world);
        }
        if i % 5 == 0 {
            let (_, ev) = p.tick(DeviceTime(T0 + t_ns), HostTime(t_ns));
            for e in ev {
                let mut hist = [0usize; 8];
                if let Some(wm) = e.thing.world_m {
                    for (_, q, c) in &recent {
                        if (q[0] - wm[0]).hypot(q[1] - wm[1]) <= 0.5 {
                            hist[*c] += 1;
                        }
                    }
                }
                around.push(hist);
                events.push(e);
            }
        }
    }
    let run = Run {
        sc,
        hazards,
        events,
        duration_s,
    };
    let mut false_alerts = Vec::new();
    for (e, hist) in run.events.iter().zip(&around) {
        if run.hazards.iter().any(|h| about(&run, e, h)) {
            continue;
        }
        let cats: Vec<String> = CATS
            .iter()
            .zip(hist)
            .filter(|(_, n)| **n > 0)
            .map(|(c, n)| format!("{c} {n}"))
            .collect();
        false_alerts.push(format!(
            "{:?} '{}' at {:?} t {:.2} s, {:.1} m: depth points within 0.5 m (last 0.6 s): {}",
            e.thing.kind,
            e.thing.label,
            e.thing.world_m,
            (e.evidence.ns() - T0) as f64 * 1e-9,
            e.thing.distance_m,
            cats.join(", ")
        ));
    }
    let filter = format!("{:?}", p.depth_filter_stats());
    StereoRun {
        run,
        totals,
        false_alerts,
        filter,
    }
}

fn report(name: &str, r: &StereoRun) -> (usize, usize, usize) {
    let (caught, relevant, false_n, log) = score(&r.run);
    let totals: Vec<String> = CATS
        .iter()
        .zip(r.totals)
        .map(|(c, n)| format!("{c} {n}"))
        .collect();
    eprintln!(
        "== {name}: caught {caught}/{relevant}, {false_n} false\npoints: {}\nfilter: {}\n{log}{}",
        totals.join(", "),
        r.filter,
        r.false_alerts.join("\n")
    );
    (caught, relevant, false_n)
}

/// A scenario, the seconds run and the static map's extent (x and y ranges, m).
type Case = (&'static str, f64, ((f64, f64), (f64, f64)));

const POLE: Case = ("pole_to_door", 24.0, ((-1.0, 12.0), (-1.5, 1.5)));
const EXIT: Case = ("find_exit", 34.0, ((-1.0, 16.0), (-2.0, 2.0)));

#[test]
#[ignore = "diagnostic: prints where the points behind each false alert come from"]
fn diagnose_unfiltered_and_filtered() {
    // DEPTH_DIAG=find_exit (or pole_to_door) runs one scenario only.
    let only = std::env::var("DEPTH_DIAG").ok();
    let none = DepthFilterConfig {
        band: BandConfig {
            min_range_m: f32::INFINITY,
            ..BandConfig::default()
        },
        ..DepthFilterConfig::default()
    };
    for (name, d, hall) in [POLE, EXIT] {
        if only.as_deref().is_some_and(|o| o != name) {
            continue;
        }
        for (tag, cfg) in [
            ("no depth points", none),
            ("unfiltered", DepthFilterConfig::passthrough()),
            ("filtered", DepthFilterConfig::default()),
        ] {
            let r = stereo_run(name, d, hall, cfg);
            report(&format!("{name} {tag}"), &r);
        }
    }
}

#[test]
fn rendered_stereo_pole_to_door_raises_no_false_alert() {
    let (name, d, hall) = POLE;
    let r = stereo_run(name, d, hall, DepthFilterConfig::default());
    let (_, relevant, false_n) = report(name, &r);
    assert!(relevant >= 1);
    assert_eq!(false_n, 0, "{:?}", r.false_alerts);
}

#[test]
fn rendered_stereo_find_exit_catches_the_crossing_person() {
    let (name, d, hall) = EXIT;
    let r = stereo_run(name, d, hall, DepthFilterConfig::default());
    let (_, _, false_n) = report(name, &r);
    let person = r.run.hazards.iter().find(|h| h.kind == "person").unwrap();
    let (from, to) = (
        person.relevant_from_ns.unwrap(),
        person.latest_alert_ns.unwrap(),
    );
    assert!(
        r.run
            .events
            .iter()
            .any(|e| e.thing.kind == ThingKind::Person
                && about(&r.run, e, person)
                && (from..=to).contains(&e.evidence.ns())),
        "the crossing person is not alerted in time"
    );
    assert_eq!(false_n, 0, "{:?}", r.false_alerts);
}

/// Live mode: the live map built from the same stereo depth instead of the scene's map.
/// Standing at the start of find_exit, the luggage trolley 4.5 m ahead is mapped part by
/// part (its top first: only what stands clear of the floor by twice stereo depth's error
/// enters the map at that range); the depth points not yet mapped are never taken for a
/// person walking (their centroid slides as the rest is mapped), and the cameras' repeated
/// mismatches in open air are never obstacles.
#[test]
fn live_map_find_exit_start_has_no_phantom_and_no_person() {
    let (name, _, hall) = EXIT;
    let r = stereo_run_mapped(name, 3.2, hall, DepthFilterConfig::default(), true);
    let (_, _, false_n) = report(&format!("{name} live map"), &r);
    let people: Vec<String> = r
        .run
        .events
        .iter()
        .filter(|e| e.thing.kind == ThingKind::Person)
        .map(|e| {
            format!(
                "{} at {:.2} s",
                e.thing.label,
                (e.evidence.ns() - T0) as f64 * 1e-9
            )
        })
        .collect();
    assert!(people.is_empty(), "{people:?}");
    assert_eq!(false_n, 0, "{:?}", r.false_alerts);
}
