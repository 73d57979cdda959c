//! Eye gaze (pure): the `eye-gaze` sample's CPF yaw/pitch (MPS convention
//! `dir ∝ [tan yaw, tan pitch, 1]`, x left, y up, z forward) becomes a ray in the device
//! frame through `T_device_cpf`; the point at the vergence depth (1 m when unknown) is
//! projected into the RGB camera at its calibrated (recorded) resolution.

use nalgebra::{Point2, Point3, Vector3};

use super::sensors::SensorModels;
use crate::sample::EyeGazeSample;

/// Depth used for the RGB projection when the sample has none, m.
pub const DEFAULT_DEPTH_M: f64 = 1.0;
/// Depths outside this range are not trusted, m.
pub const DEPTH_RANGE_M: (f32, f32) = (0.1, 30.0);

/// The gaze ray of one sample.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GazeRay {
    /// Unit direction in the CPF (x left, y up, z forward).
    pub dir_cpf: Vector3<f64>,
    /// Unit direction in the device frame.
    pub dir_device: Vector3<f64>,
    /// Ray origin (the CPF origin) in the device frame, m.
    pub origin_device: Point3<f64>,
    /// Vergence depth, m, when the sample has a plausible one.
    pub depth_m: Option<f32>,
    /// The gazed point in the RGB image, pixels, when it projects inside it.
    pub rgb_pixel: Option<[f32; 2]>,
}

/// The ray of `g` through `models`, or `None` when its angles are not finite.
pub fn gaze_ray(models: &SensorModels, g: &EyeGazeSample) -> Option<GazeRay> {
    let (yaw, pitch) = (f64::from(g.yaw_rad), f64::from(g.pitch_rad));
    if !(yaw.is_finite() && pitch.is_finite()) || yaw.abs() >= 1.5 || pitch.abs() >= 1.5 {
        return None;
    }
    let dir_cpf = Vector3::new(yaw.tan(), pitch.tan(), 1.0).try_normalize(1e-12)?;
    let depth_m = g
        .depth_m
        .filter(|d| d.is_finite() && *d >= DEPTH_RANGE_M.0 && *d <= DEPTH_RANGE_M.1);
    let t = &models.t_device_cpf;
    let origin_device = t * Point3::origin();
    let dir_device = t.rotation * dir_cpf;
    let rgb_pixel = models.rgb.as_ref().and_then(|cam| {
        let d = depth_m.map_or(DEFAULT_DEPTH_M, f64::from);
        let p = origin_device + dir_device * d;
        let uv: Point2<f64> = cam.project_device(&p)?;
        let inside = uv.x >= -0.5
            && uv.y >= -0.5
            && uv.x <= f64::from(cam.image_width) - 0.5
            && uv.y <= f64::from(cam.image_height) - 0.5;
        inside.then_some([uv.x as f32, uv.y as f32])
    });
    Some(GazeRay {
        dir_cpf,
        dir_device,
        origin_device,
        depth_m,
        rgb_pixel,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn straight_ahead_and_bad_angles() {
        let m = SensorModels::default();
        let r = gaze_ray(
            &m,
            &EyeGazeSample {
                yaw_rad: 0.0,
                pitch_rad: 0.0,
                depth_m: Some(2.0),
            },
        )
        .unwrap();
        assert!((r.dir_cpf - Vector3::z()).norm() < 1e-12);
        assert_eq!(r.depth_m, Some(2.0));
        assert_eq!(r.rgb_pixel, None);
        // Yaw to the left (+x in the CPF).
        let r = gaze_ray(
            &m,
            &EyeGazeSample {
                yaw_rad: 0.3,
                pitch_rad: 0.0,
                depth_m: Some(f32::NAN),
            },
        )
        .unwrap();
        assert!((r.dir_cpf.x.atan2(r.dir_cpf.z) - 0.3).abs() < 1e-6);
        assert_eq!(r.depth_m, None);
        for bad in [f32::NAN, f32::INFINITY, 2.0] {
            let g = EyeGazeSample {
                yaw_rad: bad,
                pitch_rad: 0.0,
                depth_m: None,
            };
            assert!(gaze_ray(&m, &g).is_none());
        }
    }
}
