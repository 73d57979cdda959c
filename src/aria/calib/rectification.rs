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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rectify_inverts_unrectify_and_singular_is_refused() {
        let m = Matrix3::new(1.01, 0.002, -0.003, 0.0, 0.99, 0.004, 0.0, 0.0, 1.02);
        let model = LinearRectification::new(m, Vector3::new(0.1, -0.2, 0.05)).unwrap();
        let x = Vector3::new(0.3, -9.81, 0.7);
        assert!((model.rectify(&model.unrectify(&x)) - x).norm() < 1e-14);
        // raw = M·rect + bias, checked by hand for a diagonal case.
        let d =
            LinearRectification::new(Matrix3::from_diagonal_element(2.0), Vector3::x()).unwrap();
        assert_eq!(
            d.rectify(&Vector3::new(5.0, 4.0, 2.0)),
            Vector3::new(2.0, 2.0, 1.0)
        );
        assert!(LinearRectification::new(Matrix3::zeros(), Vector3::zeros()).is_none());
    }
}
