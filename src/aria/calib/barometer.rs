//! [`BarometerCalibration`] (`rectified_pa = slope·raw_pa + offset_pa`, projectaria_tools
//! `BarometerCalibration::rawToRectified`, direction checked against its Python binding) and
//! [`MicrophoneCalibration`] (sensitivity only).

/// Calibration of one barometer ("Linear" pressure model).
#[derive(Debug, Clone, PartialEq)]
pub struct BarometerCalibration {
    /// Sensor label, e.g. `baro0`.
    pub label: String,
    /// Dimensionless slope.
    pub slope: f64,
    /// Offset, pascal.
    pub offset_pa: f64,
}

impl BarometerCalibration {
    /// Rectified pressure (Pa) from a raw reading (Pa): `slope·raw + offset`.
    #[inline]
    pub fn rectify(&self, raw_pa: f64) -> f64 {
        self.slope * raw_pa + self.offset_pa
    }

    /// Raw pressure (Pa) that rectifies to `rectified_pa`.
    #[inline]
    pub fn unrectify(&self, rectified_pa: f64) -> f64 {
        (rectified_pa - self.offset_pa) / self.slope
    }
}

/// Calibration of one microphone.
#[derive(Debug, Clone, PartialEq)]
pub struct MicrophoneCalibration {
    /// Sensor label, `mic0` … `mic6` on Gen1.
    pub label: String,
    /// Sensitivity at 1 kHz, dBV (`DSensitivity1KDbv`).
    pub d_sensitivity_1k_dbv: f64,
}
