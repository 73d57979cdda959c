//! Eye-gaze geometry (pure compute, no I/O), following projectaria_tools' `EyeGaze.h` and
//! `EyeGazeReader.h/.cpp`. Angles are in the central pupil frame (CPF): +Z forward,
//! yaw measured in the XZ plane, pitch in the YZ plane.
//!
//! Two parameterisations coexist in projectaria_tools and are kept distinct here:
//! * [`unit_vector_from_yaw_pitch`]: `normalize([tan yaw, tan pitch, 1])` (combined gaze);
//! * [`per_eye_direction`]: `(sin y·cos p, sin p, cos y·cos p)` (Gen2 per-eye rays).

use nalgebra::Vector3;

/// Inter-pupillary distance assumed by the Gen1 vergence model (projectaria_tools
/// `IPD_meters`), metres.
pub const GEN1_IPD_M: f64 = 0.063;

/// Distance of the synthetic point returned when two gaze rays do not converge reliably.
pub const VERGENCE_FAR_FALLBACK_M: f64 = 10.0;
/// Rays closer than this angle (degrees) are treated as parallel.
const VERGENCE_MIN_ANGLE_DEG: f64 = 0.75;
/// Closest points further apart than this (m) mean the rays miss each other.
const VERGENCE_MAX_MISS_M: f64 = 0.03;
/// Convergence further than this (m) along the fused direction is not trusted.
const VERGENCE_MAX_DEPTH_M: f64 = 6.0;
const TINY_NORM_SQ: f64 = 1e-12;

/// The gaze direction for a (yaw, pitch) pair: `normalize([tan yaw, tan pitch, 1])`
/// (projectaria_tools `getUnitVectorFromYawPitch`).
pub fn unit_vector_from_yaw_pitch(yaw_rad: f64, pitch_rad: f64) -> Vector3<f64> {
    Vector3::new(yaw_rad.tan(), pitch_rad.tan(), 1.0).normalize()
}

/// The 3D point `depth_m` along the gaze ray from the CPF origin; the origin itself for a
/// negative depth (as `getEyeGazePointAtDepth`). NaN inputs give NaN outputs.
pub fn point_at_depth(yaw_rad: f64, pitch_rad: f64, depth_m: f64) -> Vector3<f64> {
    if depth_m >= 0.0 || depth_m.is_nan() {
        unit_vector_from_yaw_pitch(yaw_rad, pitch_rad) * depth_m
    } else {
        Vector3::zeros()
    }
}

/// Intersection of the left and right gaze rays of the Gen1 vergence model (eyes at
/// ±IPD/2 on X, common pitch), as `getGazeIntersectionPoint`. Parallel rays give non-finite
/// coordinates.
pub fn gen1_gaze_intersection(
    left_yaw_rad: f64,
    right_yaw_rad: f64,
    pitch_rad: f64,
) -> Vector3<f64> {
    let (tl, tr) = (left_yaw_rad.tan(), right_yaw_rad.tan());
    let half_ipd = GEN1_IPD_M / 2.0;
    let x = half_ipd * (tl + tr) / (tr - tl);
    let z = GEN1_IPD_M / (tr - tl);
    let y = z * pitch_rad.tan();
    Vector3::new(x, y, z)
}

/// Combined yaw and intersection depth of the Gen1 vergence model
/// (`computeDepthAndCombinedGazeDirection`): returns `(depth_m, combined_yaw_rad)`; the
/// combined pitch is the common pitch. The MPS reader keeps the file's `depth_m` and uses
/// only the yaw from here. Same formula and constant (IPD 63 mm) as projectaria_tools, but
/// evaluated in f64 where it uses f32: results agree to ~1e-7 rad (checked on the sample to
/// 1e-6 against its reader). Equal per-eye yaws (parallel rays) give NaN, as there.
pub fn gen1_depth_and_combined_yaw(
    left_yaw_rad: f64,
    right_yaw_rad: f64,
    pitch_rad: f64,
) -> (f64, f64) {
    let p = gen1_gaze_intersection(left_yaw_rad, right_yaw_rad, pitch_rad);
    (p.norm(), (p.x / p.z).atan())
}

/// A per-eye gaze direction `(sin y·cos p, sin p, cos y·cos p)` (unit length to f32
/// precision). The sines and cosines are taken in f32, as projectaria_tools does (its angles
/// are `float`), so that vergence depths agree with it to f32 precision: near-parallel rays
/// amplify direction rounding by 1/(vergence angle), which would otherwise show up as
/// micrometre-level differences.
pub fn per_eye_direction(yaw_rad: f64, pitch_rad: f64) -> Vector3<f64> {
    let (y, p) = (yaw_rad as f32, pitch_rad as f32);
    let cp = f64::from(p.cos());
    Vector3::new(
        f64::from(y.sin()) * cp,
        f64::from(p.sin()),
        f64::from(y.cos()) * cp,
    )
}

fn fuse_directions(d1: &Vector3<f64>, d2: &Vector3<f64>) -> Vector3<f64> {
    let sum = d1 + d2;
    if sum.dot(&sum) < TINY_NORM_SQ {
        Vector3::new(0.0, 0.0, 1.0)
    } else {
        sum.normalize()
    }
}

/// Where two per-eye gaze rays converge (`getGazeVergencePoint`): the midpoint of their
/// closest approach and `true`, or, when the geometry is degenerate (near-parallel,
/// diverging, missing each other by > 3 cm, or beyond 6 m), a synthetic point
/// [`VERGENCE_FAR_FALLBACK_M`] along the fused direction and `false`.
pub fn gaze_vergence_point(
    left_origin: &Vector3<f64>,
    left_yaw_rad: f64,
    left_pitch_rad: f64,
    right_origin: &Vector3<f64>,
    right_yaw_rad: f64,
    right_pitch_rad: f64,
) -> (Vector3<f64>, bool) {
    let cos_min = VERGENCE_MIN_ANGLE_DEG.to_radians().cos();
    let d1 = per_eye_direction(left_yaw_rad, left_pitch_rad);
    let d2 = per_eye_direction(right_yaw_rad, right_pitch_rad);
    let origin = 0.5 * (left_origin + right_origin);
    let fallback = || {
        (
            origin + fuse_directions(&d1, &d2) * VERGENCE_FAR_FALLBACK_M,
            false,
        )
    };

    let d1d2 = d1.dot(&d2).clamp(-1.0, 1.0);
    let denom = 1.0 - d1d2 * d1d2;
    if d1d2 > cos_min || denom.abs() < TINY_NORM_SQ {
        return fallback();
    }
    let p12 = left_origin - right_origin;
    let (d1p12, d2p12) = (d1.dot(&p12), d2.dot(&p12));
    let t = (d1d2 * d2p12 - d1p12) / denom;
    let s = (d2p12 - d1d2 * d1p12) / denom;
    if t < 0.0 || s < 0.0 {
        return fallback();
    }
    let pl = left_origin + t * d1;
    let pr = right_origin + s * d2;
    let point = 0.5 * (pl + pr);
    if (pl - pr).norm() > VERGENCE_MAX_MISS_M {
        return fallback();
    }
    if fuse_directions(&d1, &d2).dot(&(point - origin)) > VERGENCE_MAX_DEPTH_M {
        return fallback();
    }
    (point, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Expected values are from projectaria_tools' own unit tests (core/mps/test/TestEyeGaze.cpp).
    #[test]
    fn matches_projectaria_helper_tests() {
        let p = point_at_depth(-0.102910490016660, -0.288851886987686, 1.179526637404006);
        assert!((p.x - -0.116201334110103).abs() < 1e-6);
        assert!((p.y - -0.334355951558995).abs() < 1e-6);
        assert!((p.z - 1.12516063).abs() < 1e-6);

        let (depth, yaw) = gen1_depth_and_combined_yaw(-0.1264797, -0.07706982, -0.26359045);
        assert!((depth - 1.31310134).abs() < 1e-5, "{depth}");
        assert!((yaw - -0.10183712).abs() < 1e-6, "{yaw}");

        let q = gen1_gaze_intersection(-0.1264797, -0.07706982, -0.26359045);
        assert!((q.x - -0.12892598).abs() < 1e-5);
        assert!((q.y - -0.34047373).abs() < 1e-5);
        assert!((q.z - 1.26162232).abs() < 1e-5);
    }

    #[test]
    fn parallel_rays_fall_back_far() {
        let l = Vector3::new(0.05, 0.0, 0.0);
        let r = Vector3::new(-0.05, 0.0, 0.0);
        let (p, real) = gaze_vergence_point(&l, -0.008, 0.0, &r, 0.008, 0.0);
        assert!(!real);
        assert!((p.norm() - VERGENCE_FAR_FALLBACK_M).abs() < 1e-6);
        assert_eq!(point_at_depth(0.1, 0.1, -1.0), Vector3::zeros());
        assert!(gen1_depth_and_combined_yaw(0.2, 0.2, 0.0).1.is_nan());
    }
}
