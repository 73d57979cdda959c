//! The Kannala–Brandt K3 fisheye model used by the Aria Gen1 eye-tracking cameras:
//! `θd = θ(1 + k0θ² + k1θ⁴ + k2θ⁶ + k3θ⁸)`, `u = fx·θd·x/r + cx`
//! (projectaria_tools `camera_projections/KannalaBrandtK3.h`).

use nalgebra::{Point2, Vector3};

use super::newton::{EPS, MAX_ITERATIONS, TOLERANCE};

/// Kannala–Brandt K3 intrinsics `[fx, fy, cx, cy, k0, k1, k2, k3]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KannalaBrandtK3 {
    /// Focal length along u, pixels.
    pub fx: f64,
    /// Focal length along v, pixels.
    pub fy: f64,
    /// Principal point u, pixels.
    pub cx: f64,
    /// Principal point v, pixels.
    pub cy: f64,
    /// Radial coefficients of θ³, θ⁵, θ⁷, θ⁹.
    pub k: [f64; 4],
}

impl KannalaBrandtK3 {
    /// Number of parameters.
    pub const NUM_PARAMS: usize = 8;

    /// From `[fx, fy, cx, cy, k0..k3]`; `None` for another length.
    pub fn from_params(p: &[f64]) -> Option<Self> {
        match *p {
            [fx, fy, cx, cy, k0, k1, k2, k3] => Some(Self {
                fx,
                fy,
                cx,
                cy,
                k: [k0, k1, k2, k3],
            }),
            _ => None,
        }
    }

    /// `[fx, fy, cx, cy, k0..k3]`.
    pub fn params(&self) -> Vec<f64> {
        let mut v = vec![self.fx, self.fy, self.cx, self.cy];
        v.extend_from_slice(&self.k);
        v
    }

    /// `θd(θ)` and its derivative.
    #[inline]
    fn distort(&self, th: f64) -> (f64, f64) {
        let [k0, k1, k2, k3] = self.k;
        let th2 = th * th;
        let th4 = th2 * th2;
        let th6 = th4 * th2;
        let th8 = th4 * th4;
        let thd = th * (1.0 + k0 * th2 + k1 * th4 + k2 * th6 + k3 * th8);
        let d = 1.0 + 3.0 * k0 * th2 + 5.0 * k1 * th4 + 7.0 * k2 * th6 + 9.0 * k3 * th8;
        (thd, d)
    }

    /// Projection without validity checks, exactly as projectaria_tools.
    #[inline]
    pub fn project_unchecked(&self, p: &Vector3<f64>) -> Point2<f64> {
        let r_sq = p.x * p.x + p.y * p.y;
        if r_sq > EPS {
            let r = r_sq.sqrt();
            self.project_at_angle(p, r, r.atan2(p.z))
        } else {
            Point2::new(self.fx * p.x / p.z + self.cx, self.fy * p.y / p.z + self.cy)
        }
    }

    #[inline(always)]
    fn project_at_angle(&self, p: &Vector3<f64>, r: f64, theta: f64) -> Point2<f64> {
        let scaling = self.distort(theta).0 / r;
        Point2::new(
            scaling * self.fx * p.x + self.cx,
            scaling * self.fy * p.y + self.cy,
        )
    }

    /// Projection; `None` for points at/behind the origin on the axis (`r² <= ε`, `z <= 0`)
    /// and non-finite output. Validity against the image is [`super::CameraCalibration`]'s job.
    #[inline]
    pub fn project(&self, p: &Vector3<f64>) -> Option<Point2<f64>> {
        self.project_within_angle(p, f64::INFINITY)
    }

    /// Like [`Self::project`], also `None` when the angle `atan2(√(x²+y²), z)` from the
    /// optical axis exceeds `max_angle_rad` (computed once, for both uses).
    #[inline]
    pub fn project_within_angle(
        &self,
        p: &Vector3<f64>,
        max_angle_rad: f64,
    ) -> Option<Point2<f64>> {
        let r_sq = p.x * p.x + p.y * p.y;
        let uv = if r_sq > EPS {
            let r = r_sq.sqrt();
            let theta = r.atan2(p.z);
            if theta > max_angle_rad {
                return None;
            }
            self.project_at_angle(p, r, theta)
        } else if p.z > 0.0 {
            // Near the axis: θ ≈ 0 (projectaria_tools' cone test passes for any max ≥ 0).
            if max_angle_rad < r_sq.sqrt().atan2(p.z) {
                return None;
            }
            Point2::new(self.fx * p.x / p.z + self.cx, self.fy * p.y / p.z + self.cy)
        } else {
            return None;
        };
        Some(uv).filter(|uv| uv.x.is_finite() && uv.y.is_finite())
    }

    /// The (non-normalised) ray through `uv`: Newton on θ from `√ρ`, then
    /// `(tan θ·un/ρ, tan θ·vn/ρ, 1)` (or its negation when `tan θ < 0`), as projectaria_tools.
    pub fn unproject_unnormalized(&self, uv: &Point2<f64>) -> Vector3<f64> {
        let un = (uv.x - self.cx) / self.fx;
        let vn = (uv.y - self.cy) / self.fy;
        let rth2 = un * un + vn * vn;
        if rth2 < EPS * EPS {
            return Vector3::new(un, vn, 1.0);
        }
        let rth = rth2.sqrt();
        let mut th = rth.sqrt();
        for _ in 0..MAX_ITERATIONS {
            let (thd, d) = self.distort(th);
            let step = (thd - rth) / d;
            th -= step;
            if step.abs() < TOLERANCE {
                break;
            }
        }
        let r_und = th.tan();
        if r_und < 0.0 {
            Vector3::new(-r_und * un / rth, -r_und * vn / rth, -1.0)
        } else {
            Vector3::new(r_und * un / rth, r_und * vn / rth, 1.0)
        }
    }
}
