//! Physically derived motion sensors (pure compute): IMU specific force and angular velocity
//! in each IMU's frame through the calibration's `T_Device_Imu`, then through the sensor's
//! own affine model to a raw reading, with a constant bias and white noise from a seeded
//! [`SplitMix64`]; magnetometer from Earth's field (µT, as Gen1 records it); barometer from
//! the standard atmosphere.

use nalgebra::{Isometry3, Point3, Vector3};

use super::rng::SplitMix64;
use super::trajectory::WearerPath;
use crate::aria::calib::{BarometerCalibration, ImuCalibration, MagnetometerCalibration};

/// Gravity in the world frame (z up), m/s² (MPS writes the same constant).
pub const GRAVITY_WORLD_MPS2: [f64; 3] = [0.0, 0.0, -9.81];
/// Earth's field in the world frame (x east, y north, z up), µT: 20 µT north, 44 µT down.
pub const EARTH_FIELD_WORLD_UT: [f64; 3] = [0.0, 20.0, -44.0];
/// Sea-level standard pressure, Pa.
pub const SEA_LEVEL_PA: f64 = 101_325.0;

/// Pressure of the ICAO standard atmosphere at `altitude_m` (troposphere).
pub fn standard_pressure_pa(altitude_m: f64) -> f64 {
    SEA_LEVEL_PA * (1.0 - 2.255_77e-5 * altitude_m).powf(5.255_88)
}

/// Altitude of the standard atmosphere for `pressure_pa` (inverse of
/// [`standard_pressure_pa`]).
pub fn standard_altitude_m(pressure_pa: f64) -> f64 {
    (1.0 - (pressure_pa / SEA_LEVEL_PA).powf(1.0 / 5.255_88)) / 2.255_77e-5
}

/// Noise and bias levels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NoiseSpec {
    /// Accelerometer white noise per sample, m/s² (1σ).
    pub accel_noise_mps2: f64,
    /// Accelerometer constant bias per axis, m/s² (1σ of the drawn bias).
    pub accel_bias_mps2: f64,
    /// Gyroscope white noise per sample, rad/s (1σ).
    pub gyro_noise_radps: f64,
    /// Gyroscope constant bias per axis, rad/s (1σ of the drawn bias).
    pub gyro_bias_radps: f64,
    /// Magnetometer white noise, µT (1σ).
    pub mag_noise_ut: f64,
    /// Barometer white noise, Pa (1σ).
    pub baro_noise_pa: f64,
    /// SLAM camera read noise, digital numbers (1σ, every pixel of every frame).
    pub slam_read_noise_dn: f64,
    /// SLAM camera shot noise: variance added per digital number of signal, DN² / DN.
    pub slam_shot_noise_dn2_per_dn: f64,
}

impl NoiseSpec {
    /// No noise, no bias (for tests of the kinematics).
    pub const NONE: Self = Self {
        accel_noise_mps2: 0.0,
        accel_bias_mps2: 0.0,
        gyro_noise_radps: 0.0,
        gyro_bias_radps: 0.0,
        mag_noise_ut: 0.0,
        baro_noise_pa: 0.0,
        slam_read_noise_dn: 0.0,
        slam_shot_noise_dn2_per_dn: 0.0,
    };
    /// Levels of the order of the Gen1 BMI085/BMM150/BMP380 data sheets; the SLAM cameras'
    /// levels of the order of a small global-shutter VGA sensor (Gen1: OV7251) at indoor
    /// exposure (about 2.9 DN at mid-grey).
    pub const TYPICAL: Self = Self {
        accel_noise_mps2: 0.02,
        accel_bias_mps2: 0.03,
        gyro_noise_radps: 0.002,
        gyro_bias_radps: 0.001,
        mag_noise_ut: 0.3,
        baro_noise_pa: 1.0,
        slam_read_noise_dn: 1.5,
        slam_shot_noise_dn2_per_dn: 0.05,
    };
}

/// One raw IMU reading as the VRS stores it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ImuReading {
    /// Device time, ns.
    pub t_ns: i64,
    /// Raw accelerometer, m/s² (rectifies to the specific force through the calibration).
    pub accel_mps2: [f32; 3],
    /// Raw gyroscope, rad/s.
    pub gyro_radps: [f32; 3],
}

/// Sample times of a sensor at `rate_hz` from `t0_ns` for `duration_s`: `(t_ns, t_s)`
/// where `t_s` is seconds since `t0_ns`.
pub fn sample_times(t0_ns: i64, rate_hz: f64, duration_s: f64) -> impl Iterator<Item = (i64, f64)> {
    let n = (duration_s * rate_hz).floor().max(0.0) as u64;
    (0..n).map(move |i| {
        let dt_ns = (i as f64 * 1e9 / rate_hz).round() as i64;
        (t0_ns + dt_ns, dt_ns as f64 * 1e-9)
    })
}

fn v3(a: [f64; 3]) -> Vector3<f64> {
    Vector3::new(a[0], a[1], a[2])
}

fn noise3(rng: &mut SplitMix64, sigma: f64) -> Vector3<f64> {
    Vector3::new(rng.normal(), rng.normal(), rng.normal()) * sigma
}

fn f32x3(v: &Vector3<f64>) -> [f32; 3] {
    [v.x as f32, v.y as f32, v.z as f32]
}

/// True specific force (m/s²) and angular velocity (rad/s) in the IMU frame at `t_s`.
pub fn imu_truth(
    path: &WearerPath,
    t_device_imu: &Isometry3<f64>,
    t_s: f64,
) -> (Vector3<f64>, Vector3<f64>) {
    let [_, _, acc] = path.point_kinematics(t_s, &t_device_imu.translation.vector);
    let r_world_imu = path.t_world_device(t_s).rotation * t_device_imu.rotation;
    let f = r_world_imu.inverse() * (acc - v3(GRAVITY_WORLD_MPS2));
    let w = t_device_imu.rotation.inverse() * path.angular_velocity_device(t_s);
    (f, w)
}

/// Raw readings of one IMU at `rate_hz`.
pub fn imu_readings(
    path: &WearerPath,
    imu: &ImuCalibration,
    t0_ns: i64,
    rate_hz: f64,
    duration_s: f64,
    noise: &NoiseSpec,
    rng: &mut SplitMix64,
) -> Vec<ImuReading> {
    let accel_bias = noise3(rng, noise.accel_bias_mps2);
    let gyro_bias = noise3(rng, noise.gyro_bias_radps);
    sample_times(t0_ns, rate_hz, duration_s)
        .map(|(t_ns, t_s)| {
            let (f, w) = imu_truth(path, &imu.t_device_imu, t_s);
            let a = f + accel_bias + noise3(rng, noise.accel_noise_mps2);
            let g = w + gyro_bias + noise3(rng, noise.gyro_noise_radps);
            ImuReading {
                t_ns,
                accel_mps2: f32x3(&imu.accel.unrectify(&a)),
                gyro_radps: f32x3(&imu.gyro.unrectify(&g)),
            }
        })
        .collect()
}

/// Raw magnetometer readings, µT, in the frame `t_device_mag` (the CAD pose when the
/// calibration has no extrinsics): `(t_ns, [x, y, z])`.
#[allow(clippy::too_many_arguments)]
pub fn mag_readings(
    path: &WearerPath,
    mag: Option<&MagnetometerCalibration>,
    t_device_mag: &Isometry3<f64>,
    t0_ns: i64,
    rate_hz: f64,
    duration_s: f64,
    noise: &NoiseSpec,
    rng: &mut SplitMix64,
) -> Vec<(i64, [f32; 3])> {
    sample_times(t0_ns, rate_hz, duration_s)
        .map(|(t_ns, t_s)| {
            let r = path.t_world_device(t_s).rotation * t_device_mag.rotation;
            let b_ut = r.inverse() * v3(EARTH_FIELD_WORLD_UT) + noise3(rng, noise.mag_noise_ut);
            let raw_ut = match mag {
                Some(m) => m.model.unrectify(&(b_ut * 1e-6)) * 1e6,
                None => b_ut,
            };
            (t_ns, f32x3(&raw_ut))
        })
        .collect()
}

/// Raw barometer readings, Pa, at the device origin: `(t_ns, pressure)`.
#[allow(clippy::too_many_arguments)]
pub fn baro_readings(
    path: &WearerPath,
    baro: Option<&BarometerCalibration>,
    altitude_offset_m: f64,
    t0_ns: i64,
    rate_hz: f64,
    duration_s: f64,
    noise: &NoiseSpec,
    rng: &mut SplitMix64,
) -> Vec<(i64, f64)> {
    sample_times(t0_ns, rate_hz, duration_s)
        .map(|(t_ns, t_s)| {
            let z = (path.t_world_device(t_s) * Point3::origin()).z;
            let p =
                standard_pressure_pa(z + altitude_offset_m) + rng.normal() * noise.baro_noise_pa;
            (t_ns, baro.map_or(p, |b| b.unrectify(p)))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_atmosphere_matches_the_icao_table() {
        // ICAO standard atmosphere (Doc 7488): 0 m 101325 Pa, 1000 m 89874.6 Pa,
        // 2000 m 79495.2 Pa, 5000 m 54019.9 Pa.
        for (h, p) in [
            (0.0, 101_325.0),
            (1000.0, 89_874.6),
            (2000.0, 79_495.2),
            (5000.0, 54_019.9),
        ] {
            assert!(
                (standard_pressure_pa(h) - p).abs() < 1.0,
                "{h} m: {}",
                standard_pressure_pa(h)
            );
            assert!((standard_altitude_m(p) - h).abs() < 0.1);
        }
    }

    #[test]
    fn sample_times_are_exact_at_aria_rates() {
        let t: Vec<_> = sample_times(5, 800.0, 0.01).collect();
        assert_eq!(t.len(), 8);
        assert_eq!(t[1].0 - t[0].0, 1_250_000);
        assert_eq!(t[0].0, 5);
    }
}
