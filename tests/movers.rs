//! Vehicles from the SLAM cameras' motion, end to end without the runtime: the
//! `street_crossing` scenario's SLAM frames rendered as `vista synth` renders them (ray
//! cast through the real Gen1 calibration, JPEG-encoded) with the scripted wearer's true
//! poses, fed to [`MoverInput`] and [`Perception`] (no point map, no stereo depth: what
//! the car gives is motion alone). The car coming from the left while the wearer stands
//! at the kerb looking around must become a vehicle "coming from the left" and raise an
//! alert inside its ground-truth window, where the car is; the same street without the
//! car must show no vehicle at all, although the head turns ±60° and a person stands by.

mod hazards_common;
mod stereo_common;

use hazards_common::T0;
use stereo_common::{calib, slam_frame_cameras};
use vista::perception::movers::{MoverConfig, MoverInput};
use vista::perception::{Perception, PerceptionConfig, SensorModels};
use vista::sample::{Payload, PoseSample, Sample, StreamId};
use vista::state::{HazardEvent, Thing, ThingKind};
use vista::synth::frames::FrameWorld;
use vista::synth::render::Scene;
use vista::synth::surface_texture::SurfaceTexture;
use vista::synth::truth::{ground_truth, Hazard};
use vista::synth::{find_scenario, hands, NoiseSpec, WearerPath};
use vista::time::{DeviceTime, HostTime};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

struct Outcome {
    events: Vec<HazardEvent>,
    vehicles: Vec<(i64, Thing)>,
    car: Option<Hazard>,
    sc: vista::synth::scenario::Scenario,
}

/// Perception with motion detection over `street_crossing` from `from_s` to `to_s`.
fn run(with_car: bool, from_s: f64, to_s: f64) -> Outcome {
    let cal = calib();
    let mut sc = find_scenario(
        &std::path::Path::new(ROOT).join("scenarios"),
        "street_crossing",
    )
    .unwrap();
    if !with_car {
        sc.world.vehicles.clear();
    }
    let models = SensorModels::from_calibration(&cal);
    let path = WearerPath::new(&sc.wearer, sc.world.floor_z_m, models.t_device_cpf);
    let car = ground_truth(&sc, &path, 0, T0, to_s)
        .hazards
        .into_iter()
        .find(|h| h.kind == "vehicle");
    let mut p = Perception::new(PerceptionConfig::default(), models, None);
    let mut movers = MoverInput::new(&cal, MoverConfig::default()).unwrap();
    let reaches = hands::reaches(&path);
    let mut scene = Scene::from_world(&sc.world);
    // As a written session of seed 0 renders it.
    scene.surface_texture = Some(SurfaceTexture::new(0));
    let static_boxes = scene.boxes.len();
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
    let mut px = Vec::new();
    let (mut events, mut vehicles) = (Vec::new(), Vec::new());
    let step_ns = 10_000_000i64;
    let (first, last) = (
        (from_s * 1e9) as i64 / step_ns,
        (to_s * 1e9) as i64 / step_ns,
    );
    let mut seq = 0u64;
    for i in first..=last {
        let t_ns = i * step_ns;
        let t_s = t_ns as f64 * 1e-9;
        let [_, v, _] = path.point_kinematics(t_s, &nalgebra::Vector3::zeros());
        let w = path.angular_velocity_device(t_s);
        seq += 1;
        let pose = Sample {
            stream: StreamId::DevicePose,
            capture: DeviceTime(T0 + t_ns),
            arrival: HostTime(t_ns),
            seq,
            payload: Payload::Pose(PoseSample {
                t_world_device: path.t_world_device(t_s),
                linear_velocity_mps: [v.x as f32, v.y as f32, v.z as f32],
                angular_velocity_radps: [w.x as f32, w.y as f32, w.z as f32],
                quality: 1.0,
            }),
        };
        p.on_sample(&pose);
        movers.on_sample(&pose);
        if i % 10 == 0 {
            for (stream, c) in [
                (StreamId::CameraSlamLeft, &cam_l),
                (StreamId::CameraSlamRight, &cam_r),
            ] {
                seq += 1;
                movers.on_sample(&Sample {
                    stream,
                    capture: DeviceTime(T0 + t_ns),
                    arrival: HostTime(t_ns),
                    seq,
                    payload: Payload::Image(
                        fw.frame(c, T0 + t_ns, &mut scene, &mut px, 1)
                            .unwrap()
                            .image_frame(640, 480, i as u64),
                    ),
                });
            }
        }
        if i % 5 == 0 {
            if let Some(floor) = p.floor_z_m(T0 + t_ns) {
                for (t, s) in movers.poll(floor) {
                    p.on_mover_sightings(t, &s);
                }
            }
            let (state, ev) = p.tick(DeviceTime(T0 + t_ns), HostTime(t_ns));
            vehicles.extend(
                state
                    .things
                    .iter()
                    .filter(|th| th.kind == ThingKind::Vehicle)
                    .map(|th| (T0 + t_ns, th.clone())),
            );
            events.extend(ev);
        }
    }
    let stats = movers.stats();
    assert!(stats.compared > 10 && stats.failed == 0, "{stats:?}");
    Outcome {
        events,
        vehicles,
        car,
        sc,
    }
}

#[test]
fn the_car_from_the_left_is_alerted_in_its_window_where_it_is() {
    let o = run(true, 4.0, 8.0);
    let car = o.car.as_ref().expect("the car is a hazard");
    let (from, latest) = (car.relevant_from_ns.unwrap(), car.latest_alert_ns.unwrap());
    let alerts: Vec<&HazardEvent> = o
        .events
        .iter()
        .filter(|e| e.thing.kind == ThingKind::Vehicle)
        .collect();
    assert_eq!(alerts.len(), 1, "one alert for one car: {alerts:?}");
    let e = alerts[0];
    let at = e.evidence.ns();
    assert!(
        at >= from && at <= latest,
        "alert at {at}, window {from}..{latest}"
    );
    assert_eq!(e.thing.label, "vehicle coming from the left");
    assert_eq!(e.thing.approaching_from(), Some(vista::state::Side::Left));
    // Where the car's near end is then (the scenario's car drives along x = 5 toward −y,
    // 4.2 m long): within 1 m across its way and 25 % of the distance along it.
    let v = &o.sc.world.vehicles[0];
    let [cx, cy] = v.position_at((at - T0) as f64 * 1e-9);
    let near_y = cy - v.size_m[0] / 2.0;
    let w = e.thing.world_m.unwrap();
    assert!(
        (f64::from(w[0]) - cx).abs() <= 1.0,
        "{w:?} vs car at ({cx}, {cy})"
    );
    assert!(
        (f64::from(w[1]) - near_y).abs() <= 0.25 * near_y.abs().max(4.0),
        "{w:?} vs car's near end at y {near_y}"
    );
    // Its velocity: the car's 8 m/s toward −y, seen through its positions over time.
    let track: Vec<&(i64, Thing)> = o
        .vehicles
        .iter()
        .filter(|(_, th)| th.id == e.thing.id)
        .collect();
    let (t0, a) = track
        .first()
        .map(|(t, th)| (*t, th.world_m.unwrap()))
        .unwrap();
    let (t1, b) = track
        .last()
        .map(|(t, th)| (*t, th.world_m.unwrap()))
        .unwrap();
    let vy = f64::from(b[1] - a[1]) / ((t1 - t0) as f64 * 1e-9);
    assert!((vy + 8.0).abs() <= 2.0, "vy {vy}");
}

#[test]
fn the_same_street_without_the_car_shows_no_vehicle() {
    let o = run(false, 4.0, 8.0);
    assert!(o.car.is_none());
    assert!(o.vehicles.is_empty(), "{:?}", o.vehicles.first());
    assert!(o.events.iter().all(|e| e.thing.kind != ThingKind::Vehicle));
}
