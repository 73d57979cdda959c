//! [`ImuCalibration`]: accelerometer and gyroscope intrinsics, extrinsics and time offsets of
//! one IMU (projectaria_tools `ImuCalibration`).

use nalgebra::{Isometry3, Matrix3, Vector3};

use super::rectification::LinearRectification;

/// Calibration of one IMU (accelerometer and gyroscope share the extrinsics).
#[derive(Debug, Clone, PartialEq)]
pub struct ImuCalibration {
    /// Sensor label, e.g. `imu-left`.
    pub label: String,
    /// Pose of the IMU in the device frame: `p_device = t_device_imu · p_imu`.
    pub t_device_imu: Isometry3<f64>,
    /// Accelerometer model, bias in m/s².
    pub accel: LinearRectification,
    /// Gyroscope model, bias in rad/s.
    pub gyro: LinearRectification,
    /// Online-calibration gyro g-sensitivity matrix (`LinearGSensitivity`), rad/s per m/s²;
    /// stored but not applied by [`Self::rectify_gyro`].
    pub gyro_g_sensitivity: Option<Matrix3<f64>>,
    /// `TimeOffsetSec_Device_Accel`, seconds.
    pub time_offset_accel_s: f64,
    /// `TimeOffsetSec_Device_Gyro`, seconds.
    pub time_offset_gyro_s: f64,
}

impl ImuCalibration {
    /// Rectified acceleration (m/s²) from a raw reading (m/s²).
    #[inline]
    pub fn rectify_accel(&self, raw_mps2: &Vector3<f64>) -> Vector3<f64> {
        self.accel.rectify(raw_mps2)
    }

    /// Rectified angular velocity (rad/s) from a raw reading (rad/s).
    #[inline]
    pub fn rectify_gyro(&self, raw_radps: &Vector3<f64>) -> Vector3<f64> {
        self.gyro.rectify(raw_radps)
    }
}
