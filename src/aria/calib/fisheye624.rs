//! The Fisheye624 model ("FisheyeRadTanThinPrism" in Aria JSON) of the Aria SLAM and RGB
//! cameras: 6 radial, 2 tangential and 4 thin-prism coefficients
//! (projectaria_tools `camera_projections/FisheyeRadTanThinPrism.h`, `numK = 6`).
//!
//! ```text
//! a = x/z, b = y/z, r = √(a²+b²), θ = atan r
//! θd = θ(1 + k0θ² + … + k5θ¹²);  [xr, yr] = θd/r·[a, b]
//! ux = xr + (2xr²+rd²)p0 + 2xr·yr·p1 + s0·rd² + s1·rd⁴
//! uy = yr + (2yr²+rd²)p1 + 2xr·yr·p0 + s2·rd² + s3·rd⁴
//! u = fu·ux + cu,  v = fv·uy + cv
//! ```

use nalgebra::{Point2, Vector3};

use super::newton::{MAX_ITERATIONS, TOLERANCE, TOLERANCE_SQ};

/// Fisheye624 intrinsics. Gen1 JSON has 15 parameters `[f, cu, cv, k0..k5, p0, p1, s0..s3]`
/// (one focal length); the 16-parameter form has `[fu, fv, cu, cv, …]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fisheye624 {
    /// Focal length along u, pixels.
    pub fu: f64,
    /// Focal length along v, pixels (equal to `fu` when `single_focal`).
    pub fv: f64,
    /// Principal point u, pixels.
    pub cu: f64,
    /// Principal point v, pixels.
    pub cv: f64,
    /// Radial coefficients of θ³ … θ¹³.
    pub k: [f64; 6],
    /// Tangential coefficients.
    pub p: [f64; 2],
    /// Thin-prism coefficients.
    pub s: [f64; 4],
    /// True for the 15-parameter (single focal length) form.
    pub single_focal: bool,
}

impl Fisheye624 {
    /// From 15 (single focal) or 16 parameters; `None` for another length.
    pub fn from_params(p: &[f64]) -> Option<Self> {
        let (fu, fv, rest, single_focal) = match p {
            [f, rest @ ..] if p.len() == 15 => (*f, *f, rest, true),
            [fu, fv, rest @ ..] if p.len() == 16 => (*fu, *fv, rest, false),
            _ => return None,
        };
        let &[cu, cv, k0, k1, k2, k3, k4, k5, p0, p1, s0, s1, s2, s3] = rest else {
            return None;
        };
        Some(Self {
            fu,
            fv,
            cu,
            cv,
            k: [k0, k1, k2, k3, k4, k5],
            p: [p0, p1],
            s: [s0, s1, s2, s3],
            single_focal,
        })
    }

    /// The parameter vector in the form it was read (15 or 16 values).
    pub fn params(&self) -> Vec<f64> {
        let mut v = if self.single_focal {
            vec![self.fu]
        } else {
            vec![self.fu, self.fv]
        };
        v.extend_from_slice(&[self.cu, self.cv]);
        v.extend_from_slice(&self.k);
        v.extend_from_slice(&self.p);
        v.extend_from_slice(&self.s);
        v
    }

    /// `(xr, yr)` → distorted normalised coordinates (tangential + thin prism).
    #[inline(always)]
    fn distort_tangential(&self, xr: f64, yr: f64) -> (f64, f64) {
        let [p0, p1] = self.p;
        let [s0, s1, s2, s3] = self.s;
        let rd2 = xr * xr + yr * yr;
        let temp = 2.0 * (xr * p0 + yr * p1);
        let ux = xr + temp * xr + rd2 * p0 + rd2 * (s0 + s1 * rd2);
        let uy = yr + temp * yr + rd2 * p1 + rd2 * (s2 + s3 * rd2);
        (ux, uy)
    }

    /// `1 + k0θ² + … + k5θ¹²` (Horner in θ²).
    #[inline(always)]
    fn radial(&self, th2: f64) -> f64 {
        let k = &self.k;
        1.0 + th2 * (k[0] + th2 * (k[1] + th2 * (k[2] + th2 * (k[3] + th2 * (k[4] + th2 * k[5])))))
    }

    /// Projection of a point at normalised coordinates `(a, b)` whose angle from the axis is
    /// `th = atan(√(a²+b²))`, `r = √(a²+b²)`.
    #[inline(always)]
    fn project_normalized(&self, a: f64, b: f64, r: f64, th: f64) -> Point2<f64> {
        let th_divr = if r < f64::EPSILON { 1.0 } else { th / r };
        let scale = self.radial(th * th) * th_divr;
        let (ux, uy) = self.distort_tangential(scale * a, scale * b);
        Point2::new(self.fu * ux + self.cu, self.fv * uy + self.cv)
    }

    /// Projection without validity checks, exactly as projectaria_tools (symmetric: `p` and
    /// `−p` give the same pixel; `z = 0` gives a non-finite result).
    #[inline]
    pub fn project_unchecked(&self, p: &Vector3<f64>) -> Point2<f64> {
        let inv_z = 1.0 / p.z;
        let (a, b) = (p.x * inv_z, p.y * inv_z);
        let r = (a * a + b * b).sqrt();
        self.project_normalized(a, b, r, r.atan())
    }

    /// Projection; `None` for points with `z <= 0` (the model mirrors them) and non-finite
    /// output. Validity against the image is [`super::CameraCalibration`]'s job.
    #[inline]
    pub fn project(&self, p: &Vector3<f64>) -> Option<Point2<f64>> {
        self.project_within_angle(p, f64::INFINITY)
    }

    /// Like [`Self::project`], also `None` when the point's angle from the optical axis
    /// exceeds `max_angle_rad` (the angle is computed once, for both uses).
    #[inline]
    pub fn project_within_angle(
        &self,
        p: &Vector3<f64>,
        max_angle_rad: f64,
    ) -> Option<Point2<f64>> {
        if p.z <= 0.0 {
            return None;
        }
        let inv_z = 1.0 / p.z;
        let (a, b) = (p.x * inv_z, p.y * inv_z);
        let r = (a * a + b * b).sqrt();
        let th = r.atan();
        if th > max_angle_rad {
            return None;
        }
        Some(self.project_normalized(a, b, r, th)).filter(|uv| uv.x.is_finite() && uv.y.is_finite())
    }

    /// Jacobian of the tangential + thin-prism distortion with respect to `(xr, yr)`.
    #[inline]
    fn distortion_jacobian(&self, xr: f64, yr: f64) -> [[f64; 2]; 2] {
        let [p0, p1] = self.p;
        let [s0, s1, s2, s3] = self.s;
        let rd2 = xr * xr + yr * yr;
        let off = 2.0 * (xr * p1 + yr * p0);
        let mut j = [
            [1.0 + 6.0 * xr * p0 + 2.0 * yr * p1, off],
            [off, 1.0 + 6.0 * yr * p1 + 2.0 * xr * p0],
        ];
        let t1 = 2.0 * (s0 + 2.0 * s1 * rd2);
        j[0][0] += xr * t1;
        j[0][1] += yr * t1;
        let t2 = 2.0 * (s2 + 2.0 * s3 * rd2);
        j[1][0] += xr * t2;
        j[1][1] += yr * t2;
        j
    }

    /// Undoes the tangential and thin-prism terms by Newton iteration from `(xr, yr) = ud`.
    fn undistort_tangential(&self, ud: [f64; 2]) -> [f64; 2] {
        let mut x = ud;
        for _ in 0..MAX_ITERATIONS {
            let (ex, ey) = self.distort_tangential(x[0], x[1]);
            let j = self.distortion_jacobian(x[0], x[1]);
            let det = j[0][0] * j[1][1] - j[0][1] * j[1][0];
            let (rx, ry) = (ud[0] - ex, ud[1] - ey);
            let cx = (j[1][1] * rx - j[0][1] * ry) / det;
            let cy = (-j[1][0] * rx + j[0][0] * ry) / det;
            x[0] += cx;
            x[1] += cy;
            if cx * cx + cy * cy < TOLERANCE_SQ {
                break;
            }
        }
        x
    }

    /// Solves `θ(1 + k0θ² + …) = θd` by Newton iteration from `θ = θd`, keeping θ below 90°.
    fn theta_from_distorted(&self, thd: f64) -> f64 {
        const HALF_PI: f64 = std::f64::consts::FRAC_PI_2;
        let mut th = thd;
        for _ in 0..MAX_ITERATIONS {
            let th2 = th * th;
            let mut radial = 1.0;
            let mut d = 1.0;
            let mut th2i = th2;
            for (i, k) in self.k.iter().enumerate() {
                radial += th2i * k;
                d += (2 * i + 3) as f64 * k * th2i;
                th2i *= th2;
            }
            let value = radial * th;
            let step = if d.abs() > f64::EPSILON {
                (thd - value) / d
            } else if (thd - value) * d > 0.0 {
                10.0 * f64::EPSILON
            } else {
                -10.0 * f64::EPSILON
            };
            th += step;
            if step.abs() < TOLERANCE {
                break;
            }
            if th.abs() >= HALF_PI {
                th = 0.999 * HALF_PI;
            }
        }
        th
    }

    /// The (non-normalised) ray `(tan θ/|xr,yr|·[xr, yr], 1)` through `uv`, computed as in
    /// projectaria_tools (two Newton solves).
    pub fn unproject_unnormalized(&self, uv: &Point2<f64>) -> Vector3<f64> {
        let ud = [(uv.x - self.cu) / self.fu, (uv.y - self.cv) / self.fv];
        let [xr, yr] = self.undistort_tangential(ud);
        let norm = (xr * xr + yr * yr).sqrt();
        if norm == 0.0 {
            return Vector3::z();
        }
        let th = self.theta_from_distorted(norm);
        let f = th.tan() / norm;
        Vector3::new(f * xr, f * yr, 1.0)
    }
}
