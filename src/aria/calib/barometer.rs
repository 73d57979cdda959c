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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rectify_is_slope_times_raw_plus_offset() {
        let b = BarometerCalibration {
            label: "baro0".into(),
            slope: 1.0004,
            offset_pa: -130.5687,
        };
        // 1.0004 · 100000 − 130.5687 (by hand).
        assert!((b.rectify(100000.0) - 99909.4313).abs() < 1e-9);
        assert!((b.unrectify(b.rectify(95000.0)) - 95000.0).abs() < 1e-9);
    }
}
