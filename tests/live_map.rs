//! The live map (`perception::live_map` through `Perception::with_live_map`): without a
//! semi-dense map, stereo depth frames build one. A box seen in a few depth frames while
//! the wearer stands is still there, in the state, after the depth frames stop (the head
//! turned away, the cameras covered); without the live map it is gone once the recent
//! points expire. And points seen in one frame only (a mismatch) never become a thing.

use vista::perception::live_map::LiveMapConfig;
use vista::perception::{Perception, PerceptionConfig, SensorModels};
use vista::sample::{Payload, PoseSample, Sample, StreamId};
use vista::synth::{find_scenario, WearerPath};
use vista::time::{DeviceTime, HostTime};

const T0: i64 = 1_000_000_000;

/// Points on the front and top of a box 0.6 m wide, 0.8 m tall, 2.5 m ahead.
fn box_points() -> Vec<[f32; 3]> {
    let mut out = Vec::new();
    for i in 0..12 {
        for k in 0..16 {
            out.push([2.5, -0.3 + 0.05 * i as f32, 0.05 * k as f32]);
        }
        for j in 0..6 {
            out.push([2.5 + 0.06 * j as f32, -0.3 + 0.05 * i as f32, 0.8]);
        }
    }
    // The floor around it.
    for i in 0..30 {
        for j in 0..20 {
            let (x, y) = (0.8 + 0.1 * i as f32, -1.0 + 0.1 * j as f32);
            if !(2.45..=2.9).contains(&x) || !(-0.35..=0.35).contains(&y) {
                out.push([x, y, 0.0]);
            }
        }
    }
    out
}

/// Runs a standing wearer (the first 2 s of `distance_estimation`: at the origin, facing
/// +x) with depth frames of `frame_points` at 5 Hz for `depth_s`, and returns the
/// distances of the things in the state at 1.9 s.
fn things_at_end(
    live: bool,
    depth_s: f64,
    frame_points: impl Fn(usize) -> Vec<[f32; 3]>,
) -> Vec<f32> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let sc = find_scenario(&root.join("scenarios"), "distance_estimation").unwrap();
    let models = SensorModels::default();
    let path = WearerPath::new(&sc.wearer, sc.world.floor_z_m, models.t_device_cpf);
    let mut p = Perception::new(PerceptionConfig::default(), models, None);
    if live {
        p = p.with_live_map(LiveMapConfig::default());
        assert!(p.has_live_map());
    }
    let step_ns = 10_000_000i64;
    let mut frame = 0;
    let mut last = Vec::new();
    for i in 0..=190i64 {
        let t_ns = i * step_ns;
        let t_s = t_ns as f64 * 1e-9;
        p.on_sample(&Sample {
            stream: StreamId::DevicePose,
            capture: DeviceTime(T0 + t_ns),
            arrival: HostTime(t_ns),
            seq: i as u64,
            payload: Payload::Pose(PoseSample {
                t_world_device: path.t_world_device(t_s),
                linear_velocity_mps: [0.0; 3],
                angular_velocity_radps: [0.0; 3],
                quality: 1.0,
            }),
        });
        if i % 20 == 0 && t_s < depth_s {
            let h = path.head(t_s).position_m;
            let origin = [h.x as f32, h.y as f32, h.z as f32];
            p.on_depth_frame(T0 + t_ns, origin, &frame_points(frame));
            frame += 1;
        }
        if i % 5 == 0 {
            let (state, _) = p.tick(DeviceTime(T0 + t_ns), HostTime(t_ns));
            last = state
                .things
                .iter()
                .filter(|t| t.world_m.is_some())
                .map(|t| t.distance_m)
                .collect();
        }
    }
    let stats = p.stats().live_map;
    if live {
        assert!(stats.frames > 0 && stats.voxels > 0, "{stats:?}");
    } else {
        assert_eq!(stats.frames, 0);
    }
    last
}

#[test]
fn what_was_seen_stays_in_the_live_map_and_a_glimpse_does_not() {
    // Depth for the first 0.9 s (5 frames), then none.
    let kept = things_at_end(true, 0.9, |_| box_points());
    assert!(
        kept.iter().any(|d| (1.8..=3.0).contains(d)),
        "with the live map: {kept:?}"
    );
    let gone = things_at_end(false, 0.9, |_| box_points());
    assert!(
        !gone.iter().any(|d| (1.8..=3.0).contains(d)),
        "without it: {gone:?}"
    );
    // The box in one frame only, the floor in all: never a thing.
    let floor_only: Vec<[f32; 3]> = box_points().into_iter().filter(|p| p[2] == 0.0).collect();
    let glimpse = things_at_end(true, 0.9, |f| {
        if f == 2 {
            box_points()
        } else {
            floor_only.clone()
        }
    });
    assert!(
        !glimpse.iter().any(|d| (1.8..=3.0).contains(d)),
        "a glimpse: {glimpse:?}"
    );
}
