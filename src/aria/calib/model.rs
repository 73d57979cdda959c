//! [`CameraModel`]: the projection models of projectaria_tools behind one enum, with
//! project / unproject (unit rays), parameter access and the rescale primitives.

use nalgebra::{Point2, Vector3};

use super::error::FieldProblem;
use super::fisheye624::Fisheye624;
use super::kannala_brandt::KannalaBrandtK3;
use super::linear::Linear;
use super::spherical::Spherical;

/// A camera projection model (intrinsics only), as in projectaria_tools'
/// `CameraProjection::ModelType`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CameraModel {
    /// Pinhole.
    Linear(Linear),
    /// Linear in angle.
    Spherical(Spherical),
    /// Kannala–Brandt K3 fisheye (Gen1 eye-tracking cameras).
    KannalaBrandtK3(KannalaBrandtK3),
    /// Fisheye with radial, tangential and thin-prism terms (Gen1 SLAM and RGB cameras).
    Fisheye624(Fisheye624),
}

impl CameraModel {
    /// Builds a model from its JSON `Projection.Name` and `Params`. Accepted names:
    /// `FisheyeRadTanThinPrism` / `Fisheye624` (15 or 16 params), `KannalaBrandtK3` (8),
    /// `Linear` (4), `Spherical` (4).
    pub fn from_name_and_params(name: &str, params: &[f64]) -> Result<Self, FieldProblem> {
        let wrong = |expected: &str| FieldProblem::WrongLength {
            expected: expected.to_string(),
            actual: params.len(),
        };
        match name {
            "FisheyeRadTanThinPrism" | "Fisheye624" => Fisheye624::from_params(params)
                .map(Self::Fisheye624)
                .ok_or_else(|| wrong("15 or 16")),
            "KannalaBrandtK3" => KannalaBrandtK3::from_params(params)
                .map(Self::KannalaBrandtK3)
                .ok_or_else(|| wrong("8")),
            "Linear" => Linear::from_params(params)
                .map(Self::Linear)
                .ok_or_else(|| wrong("4")),
            "Spherical" => Spherical::from_params(params)
                .map(Self::Spherical)
                .ok_or_else(|| wrong("4")),
            other => Err(FieldProblem::UnknownModel(other.to_string())),
        }
    }

    /// The model's name as projectaria_tools prints it.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Linear(_) => "Linear",
            Self::Spherical(_) => "Spherical",
            Self::KannalaBrandtK3(_) => "KannalaBrandtK3",
            Self::Fisheye624(_) => "Fisheye624",
        }
    }

    /// The parameter vector (the JSON layout).
    pub fn params(&self) -> Vec<f64> {
        match self {
            Self::Linear(m) => m.params(),
            Self::Spherical(m) => m.params(),
            Self::KannalaBrandtK3(m) => m.params(),
            Self::Fisheye624(m) => m.params(),
        }
    }

    /// Focal lengths `[fu, fv]`, pixels.
    pub fn focal_lengths_px(&self) -> [f64; 2] {
        match self {
            Self::Linear(m) => [m.fx, m.fy],
            Self::Spherical(m) => [m.fx, m.fy],
            Self::KannalaBrandtK3(m) => [m.fx, m.fy],
            Self::Fisheye624(m) => [m.fu, m.fv],
        }
    }

    /// Principal point `[cu, cv]`, pixels.
    pub fn principal_point_px(&self) -> [f64; 2] {
        match self {
            Self::Linear(m) => [m.cx, m.cy],
            Self::Spherical(m) => [m.cx, m.cy],
            Self::KannalaBrandtK3(m) => [m.cx, m.cy],
            Self::Fisheye624(m) => [m.cu, m.cv],
        }
    }

    fn focal_and_centre_mut(&mut self) -> [&mut f64; 4] {
        match self {
            Self::Linear(m) => [&mut m.fx, &mut m.fy, &mut m.cx, &mut m.cy],
            Self::Spherical(m) => [&mut m.fx, &mut m.fy, &mut m.cx, &mut m.cy],
            Self::KannalaBrandtK3(m) => [&mut m.fx, &mut m.fy, &mut m.cx, &mut m.cy],
            Self::Fisheye624(m) => [&mut m.fu, &mut m.fv, &mut m.cu, &mut m.cv],
        }
    }

    /// Moves the image origin by `(du, dv)` pixels (a crop): `c -= d`.
    pub fn subtract_from_origin(&mut self, du: f64, dv: f64) {
        let [_, _, cu, cv] = self.focal_and_centre_mut();
        *cu -= du;
        *cv -= dv;
    }

    /// Scales the image by `s` with the pixel-centre convention: `f' = s·f`,
    /// `c' = s·(c + 0.5) − 0.5`; distortion is unchanged.
    pub fn scale(&mut self, s: f64) {
        let [fu, fv, cu, cv] = self.focal_and_centre_mut();
        *fu *= s;
        *fv *= s;
        *cu = s * (*cu + 0.5) - 0.5;
        *cv = s * (*cv + 0.5) - 0.5;
    }

    /// Projection without any validity check, exactly as projectaria_tools'
    /// `projectNoChecks` (may be non-finite; Fisheye624 and Linear mirror points behind).
    #[inline]
    pub fn project_unchecked(&self, p_cam: &Vector3<f64>) -> Point2<f64> {
        match self {
            Self::Linear(m) => m.project_unchecked(p_cam),
            Self::Spherical(m) => m.project_unchecked(p_cam),
            Self::KannalaBrandtK3(m) => m.project_unchecked(p_cam),
            Self::Fisheye624(m) => m.project_unchecked(p_cam),
        }
    }

    /// Projects a camera-frame point to a pixel. `None` behind the camera (`z <= 0` for
    /// Linear and Fisheye624, whose formulas mirror such points; on-axis `z <= 0` for the
    /// angle-based KannalaBrandtK3 and Spherical, which are continuous up to θ = π) or when
    /// the result is not finite. Does not check the image bounds: see
    /// [`super::CameraCalibration::project`].
    #[inline]
    pub fn project(&self, p_cam: &Vector3<f64>) -> Option<Point2<f64>> {
        match self {
            Self::Linear(m) => m.project(p_cam),
            Self::Spherical(m) => m.project(p_cam),
            Self::KannalaBrandtK3(m) => m.project(p_cam),
            Self::Fisheye624(m) => m.project(p_cam),
        }
    }

    /// Projects many points: `out[i] = self.project(&points[i])` for
    /// `i < min(points.len(), out.len())`.
    pub fn project_batch(&self, points: &[Vector3<f64>], out: &mut [Option<Point2<f64>>]) {
        match self {
            Self::Fisheye624(m) => {
                for (o, p) in out.iter_mut().zip(points) {
                    *o = m.project(p);
                }
            }
            _ => {
                for (o, p) in out.iter_mut().zip(points) {
                    *o = self.project(p);
                }
            }
        }
    }

    /// The non-normalised ray through a pixel, exactly as projectaria_tools'
    /// `unprojectNoChecks` (z = ±1, except at the principal point of some models).
    pub fn unproject_unnormalized(&self, uv: &Point2<f64>) -> Vector3<f64> {
        match self {
            Self::Linear(m) => m.unproject_unnormalized(uv),
            Self::Spherical(m) => m.unproject_unnormalized(uv),
            Self::KannalaBrandtK3(m) => m.unproject_unnormalized(uv),
            Self::Fisheye624(m) => m.unproject_unnormalized(uv),
        }
    }

    /// The unit ray (camera frame) through a pixel; `None` when it is not finite. The
    /// fisheye models solve for it by Newton iteration. Does not check the image bounds: see
    /// [`super::CameraCalibration::unproject`].
    pub fn unproject(&self, uv: &Point2<f64>) -> Option<Vector3<f64>> {
        let ray = self.unproject_unnormalized(uv);
        let n = ray.norm();
        if n.is_finite() && n > 0.0 {
            Some(ray / n)
        } else {
            None
        }
    }
}
