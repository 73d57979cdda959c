//! [`MagnetometerCalibration`] with the Gen1 factory conventions (projectaria_tools
//! `SensorCalibrationJson.cpp`): the JSON means `rectified_T = M_json·(raw_µT − bias_µT)`;
//! projectaria_tools (and vista) use `M = −M_json⁻¹·1e-6` and `bias_T = bias_µT·1e-6`, so
//! that `rectified_T = M⁻¹·(raw_T − bias_T)` like the IMU. The minus sign is Meta's
//! intentional patch of a sign error in the factory process.

use nalgebra::{Matrix3, Vector3};

use super::rectification::LinearRectification;

/// Calibration of one magnetometer.
#[derive(Debug, Clone, PartialEq)]
pub struct MagnetometerCalibration {
    /// Sensor label, e.g. `mag0`.
    pub label: String,
    /// The model in Tesla (already converted from the JSON convention).
    pub model: LinearRectification,
}

impl MagnetometerCalibration {
    /// From the factory JSON's matrix and bias (µT); `None` when the matrix is singular.
    pub fn from_factory_json(
        label: String,
        m_json: &Matrix3<f64>,
        bias_ut: &Vector3<f64>,
    ) -> Option<Self> {
        let m = -m_json.try_inverse()? * 1e-6;
        Some(Self {
            label,
            model: LinearRectification::new(m, bias_ut * 1e-6)?,
        })
    }

    /// Rectified field (Tesla) from a raw reading in Tesla.
    #[inline]
    pub fn rectify(&self, raw_tesla: &Vector3<f64>) -> Vector3<f64> {
        self.model.rectify(raw_tesla)
    }
}
