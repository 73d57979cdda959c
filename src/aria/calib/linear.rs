//! The Linear (pinhole) camera model: `u = fx·x/z + cx`, `v = fy·y/z + cy`
//! (projectaria_tools `camera_projections/Linear.h`).

use nalgebra::{Point2, Vector3};

/// Pinhole intrinsics `[fx, fy, cx, cy]` in pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Linear {
    /// Focal length along u, pixels.
    pub fx: f64,
    /// Focal length along v, pixels.
    pub fy: f64,
    /// Principal point u, pixels.
    pub cx: f64,
    /// Principal point v, pixels.
    pub cy: f64,
}

impl Linear {
    /// Number of parameters.
    pub const NUM_PARAMS: usize = 4;

    /// From `[fx, fy, cx, cy]`; `None` for another length.
    pub fn from_params(p: &[f64]) -> Option<Self> {
        match *p {
            [fx, fy, cx, cy] => Some(Self { fx, fy, cx, cy }),
            _ => None,
        }
    }

    /// `[fx, fy, cx, cy]`.
    pub fn params(&self) -> Vec<f64> {
        vec![self.fx, self.fy, self.cx, self.cy]
    }

    /// Projection without validity checks (z must be non-zero for a finite result).
    #[inline]
    pub fn project_unchecked(&self, p: &Vector3<f64>) -> Point2<f64> {
        Point2::new(self.fx * p.x / p.z + self.cx, self.fy * p.y / p.z + self.cy)
    }

    /// Projection; `None` for points with `z <= 0` (the model would mirror them).
    #[inline]
    pub fn project(&self, p: &Vector3<f64>) -> Option<Point2<f64>> {
        if p.z > 0.0 {
            Some(self.project_unchecked(p)).filter(|uv| uv.x.is_finite() && uv.y.is_finite())
        } else {
            None
        }
    }

    /// The (non-normalised) ray `(un, vn, 1)` through pixel `uv`.
    pub fn unproject_unnormalized(&self, uv: &Point2<f64>) -> Vector3<f64> {
        Vector3::new((uv.x - self.cx) / self.fx, (uv.y - self.cy) / self.fy, 1.0)
    }
}
