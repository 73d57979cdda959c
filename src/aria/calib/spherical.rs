//! The Spherical camera model, linear in angle: `u = fx·θ·x/r + cx` with `θ = atan2(r, z)`
//! (projectaria_tools `camera_projections/Spherical.h`).

use nalgebra::{Point2, Vector3};

use super::newton::EPS;

/// Spherical intrinsics `[fx, fy, cx, cy]`, focal lengths in pixels per radian.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spherical {
    /// Pixels per radian along u.
    pub fx: f64,
    /// Pixels per radian along v.
    pub fy: f64,
    /// Principal point u, pixels.
    pub cx: f64,
    /// Principal point v, pixels.
    pub cy: f64,
}

impl Spherical {
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

    /// Projection without validity checks, exactly as projectaria_tools (points behind the
    /// camera are projected continuously, up to θ = π).
    #[inline]
    pub fn project_unchecked(&self, p: &Vector3<f64>) -> Point2<f64> {
        let r_sq = p.x * p.x + p.y * p.y;
        if r_sq > EPS {
            let r = r_sq.sqrt();
            let scaling = r.atan2(p.z) / r;
            Point2::new(
                scaling * self.fx * p.x + self.cx,
                scaling * self.fy * p.y + self.cy,
            )
        } else {
            Point2::new(self.fx * p.x / p.z + self.cx, self.fy * p.y / p.z + self.cy)
        }
    }

    /// Projection; `None` only for points on or behind the optical axis' origin where the
    /// near-axis linearisation is meaningless (`r² <= ε` and `z <= 0`) or non-finite output.
    #[inline]
    pub fn project(&self, p: &Vector3<f64>) -> Option<Point2<f64>> {
        if p.x * p.x + p.y * p.y <= EPS && p.z <= 0.0 {
            return None;
        }
        Some(self.project_unchecked(p)).filter(|uv| uv.x.is_finite() && uv.y.is_finite())
    }

    /// The unit ray through `uv`: `(sin ρ·un/ρ, sin ρ·vn/ρ, cos ρ)` with `ρ = |(un, vn)|`,
    /// valid up to ρ = π. projectaria_tools returns `(tan ρ·un/ρ, tan ρ·vn/ρ, 1)`, the same
    /// direction for ρ < π/2 but the opposite one beyond (its `tan` changes sign).
    pub fn unproject_unnormalized(&self, uv: &Point2<f64>) -> Vector3<f64> {
        let un = (uv.x - self.cx) / self.fx;
        let vn = (uv.y - self.cy) / self.fy;
        let rho_sq = un * un + vn * vn;
        if rho_sq > EPS {
            let rho = rho_sq.sqrt();
            let coef = rho.sin() / rho;
            Vector3::new(un * coef, vn * coef, rho.cos())
        } else {
            Vector3::new(un, vn, 1.0)
        }
    }
}
