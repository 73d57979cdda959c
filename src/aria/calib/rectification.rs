//! [`LinearRectification`]: the affine sensor model shared by accelerometer, gyroscope and
//! magnetometer (projectaria_tools `LinearRectificationModel3d`):
//! `raw = M·rectified + bias`, so `rectified = M⁻¹·(raw − bias)`.

use nalgebra::{Matrix3, Vector3};

/// An affine 3-axis sensor model with its inverse precomputed.
#[derive(Debug, Clone, PartialEq)]
pub struct LinearRectification {
    /// `M` in `raw = M·rectified + bias`.
    pub rectification: Matrix3<f64>,
    /// `bias` in `raw = M·rectified + bias`, in the sensor's unit.
    pub bias: Vector3<f64>,
    inverse: Matrix3<f64>,
}

impl LinearRectification {
    /// A model from `M` and `bias`; `None` when `M` is not invertible.
    pub fn new(rectification: Matrix3<f64>, bias: Vector3<f64>) -> Option<Self> {
        let inverse = rectification.try_inverse()?;
        inverse.iter().all(|x| x.is_finite()).then_some(Self {
            rectification,
            bias,
            inverse,
        })
    }

    /// `M⁻¹·(raw − bias)`.
    #[inline]
    pub fn rectify(&self, raw: &Vector3<f64>) -> Vector3<f64> {
        self.inverse * (raw - self.bias)
    }

    /// `M·rectified + bias`.
    #[inline]
    pub fn unrectify(&self, rectified: &Vector3<f64>) -> Vector3<f64> {
        self.rectification * rectified + self.bias
    }
}
