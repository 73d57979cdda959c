//! Time to generate a synthetic session (target: a 60 s session in under 60 s on a 2-core
//! machine): a 10 s `pole_to_door` session and its parts (kinematics, IMU synthesis).

use std::path::Path;

use criterion::{criterion_group, criterion_main, Criterion};
use vista::aria::calib::DeviceCalibration;
use vista::synth::sensors::imu_readings;
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
