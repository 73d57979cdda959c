//! Pure decoding of Aria Gen2's on-device perception records (VRS `371-x` poses told apart by
//! flavor, `373-1` eye gaze) into vista payloads, field by field as projectaria_tools'
//! players read them (`VioPlayer`, `VioHighFrequencyPlayer`, `EyeGazePlayer`,
//! `HandPosePlayer`):
//!
//! * high-frequency VIO (~800 Hz): `T_Odometry_Device` and its dynamics, with the tracker's
//!   own quality score in [0, 1];
//! * VIO (~10 Hz): `T_Odometry_BodyImu · T_BodyImu_Device`, the angular velocity turned from
//!   the body IMU into the device frame, quality 1 while the tracker reports a valid, healthy
//!   state and 0 otherwise;
//! * eye gaze: the combined gaze of both eyes, from the device frame into the central pupil
//!   frame (yaw `atan2(x, z)`, pitch `atan2(y, z)`), depth the distance from the gaze origin
//!   to the spatial gaze point; NaN angles when the device reports no valid gaze;
//! * hands: per hand, when valid, its confidence, wrist and palm centre (landmark 20).

use nalgebra::{Isometry3, Point3, Quaternion, Translation3, UnitQuaternion, Vector3};

use crate::aria::vrs::DataLayout;
use crate::sample::{EyeGazeSample, HandSample, PoseSample, WristPalm};

/// Index of the palm centre among the 21 hand landmarks (projectaria_tools `HandLandmark`).
pub const PALM_CENTER_LANDMARK: usize = 20;
/// Number of hand landmarks per hand.
pub const HAND_LANDMARKS: usize = 21;

/// One record's metadata block with its layout; missing fields are named in the error.
struct Fields<'a> {
    dl: &'a DataLayout,
    m: &'a [u8],
}

impl Fields<'_> {
    fn need<T>(v: Option<T>, name: &str) -> Result<T, String> {
        v.ok_or_else(|| format!("field {name:?} missing, of another type, or cut short"))
    }
    fn i64(&self, name: &str) -> Result<i64, String> {
        Self::need(self.dl.value::<i64>(self.m, name), name)
    }
    fn v3d(&self, name: &str) -> Result<[f64; 3], String> {
        Self::need(self.dl.array::<f64, 3>(self.m, name), name)
    }
    fn v4d(&self, name: &str) -> Result<[f64; 4], String> {
        Self::need(self.dl.array::<f64, 4>(self.m, name), name)
    }
    fn v3f(&self, name: &str) -> Result<[f32; 3], String> {
        Self::need(self.dl.array::<f32, 3>(self.m, name), name)
    }
    fn flag(&self, name: &str) -> bool {
        self.dl.value::<bool>(self.m, name).unwrap_or(false)
    }
    /// A pose stored as `txyz_*` and `qxyzw_*`; a quaternion that is not finite or far from
    /// unit length is an error (a unit quaternion is normalised on the way).
    fn pose(&self, t_name: &str, q_name: &str) -> Result<Isometry3<f64>, String> {
        let t = self.v3d(t_name)?;
        let [x, y, z, w] = self.v4d(q_name)?;
        let q = Quaternion::new(w, x, y, z);
        let norm = q.norm();
        if !(t.iter().all(|v| v.is_finite()) && norm.is_finite() && (norm - 1.0).abs() < 1e-3) {
            return Err(format!(
                "{q_name} {:?} is not a unit quaternion or {t_name} is not finite",
                [x, y, z, w]
            ));
        }
        Ok(Isometry3::from_parts(
            Translation3::new(t[0], t[1], t[2]),
            UnitQuaternion::from_quaternion(q),
        ))
    }
}

fn f32x3(v: [f64; 3]) -> [f32; 3] {
    v.map(|x| x as f32)
}

/// A high-frequency VIO record: capture time (ns) and `T_Odometry_Device`.
pub fn vio_high_frequency(dl: &DataLayout, m: &[u8]) -> Result<(i64, PoseSample), String> {
    let f = Fields { dl, m };
    let t_ns = f.i64("capture_timestamp_ns")?;
    let pose = f.pose("txyz_odometry_device", "qxyzw_odometry_device")?;
    let quality = Fields::need(dl.value::<f32>(m, "quality_score"), "quality_score")?;
    Ok((
        t_ns,
        PoseSample {
            t_world_device: pose,
            linear_velocity_mps: f32x3(f.v3d("linear_velocity_odometry")?),
            angular_velocity_radps: f32x3(f.v3d("angular_velocity_device")?),
            quality: if quality.is_finite() {
                quality.clamp(0.0, 1.0)
            } else {
                0.0
            },
        },
    ))
}

/// A VIO record: capture time (ns) and `T_Odometry_Device`.
pub fn vio(dl: &DataLayout, m: &[u8]) -> Result<(i64, PoseSample), String> {
    let f = Fields { dl, m };
    let t_ns = f.i64("capture_timestamp_ns")?;
    let t_odometry_bodyimu = f.pose("txyz_odometry_bodyimu", "qxyzw_odometry_bodyimu")?;
    let t_bodyimu_device = f.pose("txyz_bodyimu_device", "qxyzw_bodyimu_device")?;
    let omega_imu = Vector3::from(f.v3d("angular_velocity_bodyimu")?);
    let omega_device = t_bodyimu_device.rotation.inverse() * omega_imu;
    let valid = dl.value::<i8>(m, "status") == Some(0) && f.flag("is_tracker_healthy");
    Ok((
        t_ns,
        PoseSample {
            t_world_device: t_odometry_bodyimu * t_bodyimu_device,
            linear_velocity_mps: f32x3(f.v3d("linear_velocity_odometry")?),
            angular_velocity_radps: f32x3(omega_device.into()),
            quality: if valid { 1.0 } else { 0.0 },
        },
    ))
}

/// An eye-gaze record: its system time (ns) and the combined gaze in the CPF, turned from
/// the device frame by `t_cpf_device`.
pub fn eye_gaze(
    dl: &DataLayout,
    m: &[u8],
    t_cpf_device: &Isometry3<f64>,
) -> Result<(i64, EyeGazeSample), String> {
    let f = Fields { dl, m };
    let t_ns = f.i64("system_timestamp_ns")?;
    let mut out = EyeGazeSample {
        yaw_rad: f32::NAN,
        pitch_rad: f32::NAN,
        depth_m: None,
    };
    let combined = f.flag("gaze_origin_combined_in_device_valid")
        && f.flag("gaze_direction_combined_in_device_valid");
    if !combined {
        return Ok((t_ns, out));
    }
    let to_f64 = |v: [f32; 3]| Vector3::new(f64::from(v[0]), f64::from(v[1]), f64::from(v[2]));
    let origin_device = to_f64(f.v3f("gaze_origin_combined_in_device_meter_xyz")?);
    let dir_device = to_f64(f.v3f("gaze_direction_combined_in_device_normalized_xyz")?);
    let origin_cpf = t_cpf_device * Point3::from(origin_device);
    let dir_cpf = t_cpf_device.rotation * dir_device;
    out.yaw_rad = dir_cpf.x.atan2(dir_cpf.z) as f32;
    out.pitch_rad = dir_cpf.y.atan2(dir_cpf.z) as f32;
    if f.flag("spatial_gaze_point_valid") {
        let point = to_f64(f.v3f("spatial_gaze_point_in_device_meter_xyz")?);
        let point_cpf = t_cpf_device * Point3::from(point);
        let depth = (point_cpf - origin_cpf).norm();
        out.depth_m = depth.is_finite().then_some(depth as f32);
    }
    Ok((t_ns, out))
}

/// A hand-tracking record: capture time (ns) and each valid hand's wrist and palm centre in
/// the device frame.
pub fn hands(dl: &DataLayout, m: &[u8]) -> Result<(i64, HandSample), String> {
    let f = Fields { dl, m };
    let t_ns = f.i64("capture_timestamp_ns")?;
    let hand = |side: &str| -> Result<Option<WristPalm>, String> {
        if !f.flag(&format!("{side}/hand_valid")) {
            return Ok(None);
        }
        let landmarks_name = format!("{side}/hand_landmarks_3d_device_meter_xyz");
        // A fixed array of 21 points, or (older layouts) a vector of them.
        let landmarks: Vec<f32> = match dl.array::<f32, { HAND_LANDMARKS * 3 }>(m, &landmarks_name)
        {
            Some(a) => a.to_vec(),
            None => Fields::need(dl.vector::<f32>(m, &landmarks_name), &landmarks_name)?,
        };
        if landmarks.len() != HAND_LANDMARKS * 3 {
            return Err(format!(
                "{landmarks_name} holds {} values, not {HAND_LANDMARKS} points",
                landmarks.len()
            ));
        }
        let at = PALM_CENTER_LANDMARK * 3;
        Ok(Some(WristPalm {
            confidence: Fields::need(
                dl.value::<f32>(m, &format!("{side}/hand_confidence")),
                "hand_confidence",
            )?,
            wrist_m: f.v3f(&format!("{side}/wrist_translation_meter_xyz"))?,
            palm_m: [landmarks[at], landmarks[at + 1], landmarks[at + 2]],
        }))
    };
    Ok((
        t_ns,
        HandSample {
            left: hand("left_hand")?,
            right: hand("right_hand")?,
        },
    ))
}
