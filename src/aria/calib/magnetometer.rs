//! [`MagnetometerCalibration`] with the factory conventions (projectaria_tools
//! `SensorCalibrationJson.cpp`): Gen1's JSON means `rectified_T = M_json·(raw_µT − bias_µT)`,
//! Gen2's is in tesla with its bias in gauss; projectaria_tools (and vista) use
//! `M = −M_json⁻¹·s` (s = 1e-6 on Gen1, 1 on Gen2) and the bias in tesla (×1e-6 on Gen1,
//! ×1e-4 on Gen2), so that `rectified_T = M⁻¹·(raw_T − bias_T)` like the IMU. The minus
//! sign is Meta's intentional patch of a sign error in the factory process.

use nalgebra::{Matrix3, Vector3};

use super::rectification::LinearRectification;
use crate::aria::generation::Generation;

/// Calibration of one magnetometer.
#[derive(Debug, Clone, PartialEq)]
pub struct MagnetometerCalibration {
    /// Sensor label, e.g. `mag0`.
    pub label: String,
    /// The model in Tesla (already converted from the JSON convention).
    pub model: LinearRectification,
}

impl MagnetometerCalibration {
    /// From the factory JSON's matrix and bias in `generation`'s units (Gen1 µT, Gen2 tesla
    /// and gauss); `None` when the matrix is singular.
    pub fn from_factory_json(
        label: String,
        m_json: &Matrix3<f64>,
        bias_json: &Vector3<f64>,
        generation: Generation,
    ) -> Option<Self> {
        let (matrix_scale, bias_scale) = match generation {
            Generation::Gen1 => (1e-6, 1e-6),
            Generation::Gen2 => (1.0, 1e-4),
        };
        let m = -m_json.try_inverse()? * matrix_scale;
        Some(Self {
            label,
            model: LinearRectification::new(m, bias_json * bias_scale)?,
        })
    }

    /// Rectified field (Tesla) from a raw reading in Tesla.
    #[inline]
    pub fn rectify(&self, raw_tesla: &Vector3<f64>) -> Vector3<f64> {
        self.model.rectify(raw_tesla)
    }
}
