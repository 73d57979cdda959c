//! Time to generate a synthetic session (target: a 60 s session in under 60 s on a 2-core
//! machine) and its parts: kinematics and IMU synthesis, one RGB frame (1408² ray cast
//! through the real calibration, and its 4:2:0 JPEG encoding), one SLAM frame, one
//! semi-dense keyframe, and a 10 s `pole_to_door` session with every stream.

use std::path::Path;

use criterion::{criterion_group, criterion_main, Criterion};
use vista::aria::calib::DeviceCalibration;
use vista::synth::jpeg::encode_rgb;
use vista::synth::render::{render_grey_into, render_rgb_into, RayTable, Scene};
use vista::synth::semidense::{SemidenseMap, SemidenseSpec};
use vista::synth::sensors::imu_readings;
use vista::synth::text::{sign_texture, SignFont};
use vista::synth::{find_scenario, write_session, NoiseSpec, SplitMix64, SynthOptions, WearerPath};

fn bench(c: &mut Criterion) {
    let sc = find_scenario(Path::new("scenarios"), "pole_to_door").expect("scenario");
    let cal =
        DeviceCalibration::from_json_file("calibration/aria_gen1_1WM09380041283_factory.json")
            .expect("calibration");
    let path = WearerPath::new(&sc.wearer, 0.0, cal.t_device_cpf());
    let imu = cal.imu("imu-right").expect("imu-right");
    let mut g = c.benchmark_group("synth");
    g.sample_size(10);
    g.bench_function("imu_right_10s_1khz", |b| {
        b.iter(|| {
            imu_readings(
                &path,
                imu,
                0,
                1000.0,
                10.0,
                &NoiseSpec::TYPICAL,
                &mut SplitMix64::new(1),
            )
        })
    });

    let mut scene = Scene::from_world(&sc.world);
    let font = SignFont::load_default().expect("font");
    let textures = sc
        .world
        .signs
        .iter()
        .map(|s| sign_texture(&font, &s.text, s.size_m))
        .collect();
    scene.set_textures(&sc.world, textures);
    let rgb = cal
        .camera("camera-rgb")
        .expect("rgb")
        .rescaled(1408, 1408)
        .expect("rescale");
    let slam = cal.camera("camera-slam-left").expect("slam");
    let rgb_rays = RayTable::new(&rgb);
    let slam_rays = RayTable::new(slam);
    // 3 s in: walking down the corridor toward the pole, the EXIT sign ahead.
    let device = path.t_world_device(3.0);
    let mut px = Vec::new();
    g.bench_function("rgb_render_1408", |b| {
        b.iter(|| render_rgb_into(&scene, &rgb_rays, &(device * rgb.t_device_camera), &mut px))
    });
    render_rgb_into(&scene, &rgb_rays, &(device * rgb.t_device_camera), &mut px);
    g.bench_function("rgb_jpeg_1408_q90", |b| {
        b.iter(|| encode_rgb(&px, 1408, 1408, 90).expect("jpeg"))
    });
    let mut grey = Vec::new();
    g.bench_function("slam_render_640x480", |b| {
        b.iter(|| {
            render_grey_into(
                &scene,
                &slam_rays,
                &(device * slam.t_device_camera),
                &mut grey,
            )
        })
    });
    g.bench_function("semidense_keyframe", |b| {
        b.iter(|| {
            let mut m = SemidenseMap::new(SemidenseSpec::default());
            m.observe(
                &scene,
                slam,
                &slam_rays,
                &(device * slam.t_device_camera),
                0,
            );
            m.len()
        })
    });

    let dir = tempfile::tempdir().expect("tempdir");
    let opts = SynthOptions {
        seed: 1,
        duration_s: Some(10.0),
        ..SynthOptions::default()
    };
    g.bench_function("session_10s", |b| {
        b.iter(|| write_session(&sc, dir.path(), &opts).expect("session"))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
