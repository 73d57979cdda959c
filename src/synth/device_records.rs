//! Aria Gen2's on-device perception records of a synthetic session (encoding only): the
//! VIO at ~10 Hz and its high-frequency form at IMU rate, eye gaze and hand tracking, field
//! by field in the DataLayouts of a real Gen2 recording (the template's), as
//! `aria::recording::device_perception` and projectaria_tools read them.
//!
//! Simplifications, each one a value the readers accept: the body IMU of the 10 Hz VIO is
//! the device frame itself (`T_BodyImu_Device` identity); its online calibration and the
//! session ids are the template's ([`RecordExtras`]); a tracked hand's 21 landmarks are its
//! palm centre except the wrist; both eyes' fields repeat the combined gaze.

use nalgebra::{Isometry3, Point3, Vector3};

use super::device_noise::VioSample;
use super::sensors::GRAVITY_WORLD_MPS2;
use crate::aria::recording::device_perception::{HAND_LANDMARKS, PALM_CENTER_LANDMARK};
use crate::aria::vrs::{
    DataLayout, DataLayoutEncoder, PieceKind, RecordType, VrsReader, VrsStreamId,
};

/// Index of the wrist among the 21 hand landmarks (projectaria_tools `HandLandmark::WRIST`).
pub const WRIST_LANDMARK: usize = 5;
/// Confidence written for a tracked hand (as in the MPS hands file).
pub const HAND_CONFIDENCE: f32 = super::hands::CONFIDENCE as f32;
/// VIO status of a tracker that is still initialising (projectaria_tools
/// `VioStatus::FILTER_NOT_INITIALIZED`); 0 is valid.
const VIO_STATUS_INITIALISING: i8 = 1;

/// What a stream's records carry that the synthetic session does not compute, copied from
/// the template's first record: its strings (session ids, the VIO's online calibration
/// state) and the content blocks after the DataLayout (the VIO's online calibration).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RecordExtras {
    /// `(piece name, value)` of every string piece.
    pub strings: Vec<(String, String)>,
    /// The bytes after the DataLayout block.
    pub tail: Vec<u8>,
}

impl RecordExtras {
    /// The extras of stream `id`'s first DATA record in `template` (none without one).
    pub fn from_template(template: &VrsReader, id: VrsStreamId) -> Result<Self, String> {
        let Some(e) = template
            .index()
            .iter()
            .find(|e| e.stream == id && e.record_type == RecordType::Data)
        else {
            return Ok(Self::default());
        };
        let r = template.read_record(e).map_err(|e| e.to_string())?;
        let blocks = template
            .split_record(e.offset, &r.header, &r.payload)
            .map_err(|e| e.to_string())?;
        let dl = template
            .data_layout(id, RecordType::Data, r.header.format_version, 0)
            .map_err(|e| e.to_string())?;
        let first = blocks
            .first()
            .and_then(|b| r.payload.get(b.clone()))
            .unwrap_or_default();
        let strings = dl
            .pieces()
            .iter()
            .filter(|p| matches!(p.kind, PieceKind::String { .. }))
            .filter_map(|p| Some((p.name.clone(), dl.string(first, &p.name)?.to_string())))
            .collect();
        let tail = blocks
            .get(1)
            .and_then(|b| r.payload.get(b.start..))
            .unwrap_or_default()
            .to_vec();
        Ok(Self { strings, tail })
    }

    fn set_strings(&self, e: &mut DataLayoutEncoder<'_>) -> Result<(), String> {
        for (name, value) in &self.strings {
            e.set_string(name, value)?;
        }
        Ok(())
    }
}

fn v3(v: &Vector3<f64>) -> [f64; 3] {
    [v.x, v.y, v.z]
}

/// `txyz`, `qxyzw` of a pose.
fn pose_parts(t: &Isometry3<f64>) -> ([f64; 3], [f64; 4]) {
    let q = t.rotation.coords; // x, y, z, w
    (v3(&t.translation.vector), [q.x, q.y, q.z, q.w])
}

/// One high-frequency VIO record (`371-x`, flavor `…/vio_high_frequency`).
pub fn vio_high_frequency(
    dl: &DataLayout,
    s: &VioSample,
    extras: &RecordExtras,
    out: &mut Vec<u8>,
) -> Result<(), String> {
    let (t, q) = pose_parts(&s.t_odometry_device);
    let mut e = DataLayoutEncoder::new(dl);
    extras.set_strings(&mut e)?;
    e.set::<i64>("capture_timestamp_ns", s.t_ns)?
        .set_floats("gravity_vec_odometry", &GRAVITY_WORLD_MPS2)?
        .set_floats("txyz_odometry_device", &t)?
        .set_floats("qxyzw_odometry_device", &q)?
        .set_floats(
            "linear_velocity_odometry",
            &v3(&s.linear_velocity_odometry_mps),
        )?
        .set_floats(
            "angular_velocity_device",
            &v3(&s.angular_velocity_device_radps),
        )?
        .set_floats("quality_score", &[if s.tracking { 1.0 } else { 0.0 }])?;
    e.encode_into(out);
    out.extend_from_slice(&extras.tail);
    Ok(())
}

/// One VIO record (`371-x`, flavor `…/vio`) for the `frame_id`-th camera frame.
pub fn vio(
    dl: &DataLayout,
    s: &VioSample,
    frame_id: i64,
    extras: &RecordExtras,
    out: &mut Vec<u8>,
) -> Result<(), String> {
    let (t, q) = pose_parts(&s.t_odometry_device);
    let mut e = DataLayoutEncoder::new(dl);
    extras.set_strings(&mut e)?;
    e.set::<i64>("capture_timestamp_ns", s.t_ns)?
        .set::<i8>(
            "status",
            if s.tracking {
                0
            } else {
                VIO_STATUS_INITIALISING
            },
        )?
        .set::<bool>("is_tracker_healthy", s.tracking)?
        .set::<bool>("is_map_tracking_healthy", s.tracking)?
        .set_floats("gravity_vec_odometry", &GRAVITY_WORLD_MPS2)?
        .set_floats("txyz_odometry_bodyimu", &t)?
        .set_floats("qxyzw_odometry_bodyimu", &q)?
        .set_floats("txyz_bodyimu_device", &[0.0; 3])?
        .set_floats("qxyzw_bodyimu_device", &[0.0, 0.0, 0.0, 1.0])?
        .set_floats(
            "linear_velocity_odometry",
            &v3(&s.linear_velocity_odometry_mps),
        )?
        .set_floats(
            "angular_velocity_bodyimu",
            &v3(&s.angular_velocity_device_radps),
        )?;
    // Present in recent layouts only.
    let _ = e.set::<i64>("frame_id", frame_id);
    e.encode_into(out);
    out.extend_from_slice(&extras.tail);
    Ok(())
}

/// The combined gaze of one eye-gaze record, central pupil frame: yaw and pitch (rad, the
/// MPS convention `dir ∝ [tan yaw, tan pitch, 1]`) and the distance to the fixated point.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CpfGaze {
    /// Yaw, rad.
    pub yaw_rad: f64,
    /// Pitch, rad.
    pub pitch_rad: f64,
    /// Distance to the fixated point, m (`None`: no vergence estimate).
    pub depth_m: Option<f64>,
}

/// One eye-gaze record (`373-1`) at `t_ns`: the gaze turned from the central pupil frame into
/// the device frame by `t_device_cpf`.
pub fn eye_gaze(
    dl: &DataLayout,
    t_ns: i64,
    gaze: &CpfGaze,
    t_device_cpf: &Isometry3<f64>,
    out: &mut Vec<u8>,
) -> Result<(), String> {
    let dir_cpf = Vector3::new(gaze.yaw_rad.tan(), gaze.pitch_rad.tan(), 1.0).normalize();
    let origin = t_device_cpf * Point3::origin();
    let dir = t_device_cpf.rotation * dir_cpf;
    let mut e = DataLayoutEncoder::new(dl);
    e.set::<i64>("system_timestamp_ns", t_ns)?
        .set::<bool>("gaze_origin_combined_in_device_valid", true)?
        .set_floats(
            "gaze_origin_combined_in_device_meter_xyz",
            &v3(&origin.coords),
        )?
        .set::<bool>("gaze_direction_combined_in_device_valid", true)?
        .set_floats(
            "gaze_direction_combined_in_device_normalized_xyz",
            &v3(&dir),
        )?;
    for eye in ["left_eye", "right_eye"] {
        let _ = e.set::<bool>(&format!("{eye}/gaze_origin_valid"), true);
        let _ = e.set_floats(
            &format!("{eye}/gaze_origin_in_device_meter_xyz"),
            &v3(&origin.coords),
        );
        let _ = e.set::<bool>(&format!("{eye}/gaze_direction_valid"), true);
        let _ = e.set_floats(
            &format!("{eye}/gaze_direction_in_device_normalized_xyz"),
            &v3(&dir),
        );
    }
    if let Some(d) = gaze.depth_m.filter(|d| d.is_finite() && *d > 0.0) {
        let point = origin + dir * d;
        e.set::<bool>("spatial_gaze_point_valid", true)?
            .set_floats("spatial_gaze_point_in_device_meter_xyz", &v3(&point.coords))?;
    }
    e.encode_into(out);
    Ok(())
}

/// A tracked hand's wrist and palm centre, device frame, m.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DeviceHand {
    /// Wrist.
    pub wrist_m: Vector3<f64>,
    /// Palm centre.
    pub palm_m: Vector3<f64>,
}

/// One hand-tracking record (`371-x`, flavor `…/hand`) at `t_ns`; an untracked hand is
/// written invalid.
pub fn hands(
    dl: &DataLayout,
    t_ns: i64,
    left: Option<&DeviceHand>,
    right: Option<&DeviceHand>,
    out: &mut Vec<u8>,
) -> Result<(), String> {
    let mut e = DataLayoutEncoder::new(dl);
    e.set::<i64>("capture_timestamp_ns", t_ns)?;
    for (side, hand) in [("left_hand", left), ("right_hand", right)] {
        let Some(h) = hand else {
            e.set::<bool>(&format!("{side}/hand_valid"), false)?;
            continue;
        };
        let mut landmarks = Vec::with_capacity(HAND_LANDMARKS * 3);
        for i in 0..HAND_LANDMARKS {
            let p = if i == WRIST_LANDMARK {
                h.wrist_m
            } else {
                h.palm_m
            };
            landmarks.extend([p.x as f32, p.y as f32, p.z as f32]);
        }
        debug_assert_eq!(PALM_CENTER_LANDMARK, 20);
        let name = format!("{side}/hand_landmarks_3d_device_meter_xyz");
        if e.set_array::<f32>(&name, &landmarks).is_err() {
            e.set_vector::<f32>(&name, &landmarks)?;
        }
        e.set::<bool>(&format!("{side}/hand_valid"), true)?
            .set::<f32>(&format!("{side}/hand_confidence"), HAND_CONFIDENCE)?
            .set_floats(
                &format!("{side}/wrist_translation_meter_xyz"),
                &v3(&h.wrist_m),
            )?
            .set_floats(
                &format!("{side}/wrist_rotation_xyzw"),
                &[0.0, 0.0, 0.0, 1.0],
            )?;
    }
    e.encode_into(out);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aria::recording::device_perception;
    use crate::synth::device::{SynthDevice, GEN2_TEMPLATE};
    use nalgebra::{Translation3, UnitQuaternion};

    fn layout_of(template: &VrsReader, id: VrsStreamId) -> DataLayout {
        let ver = template
            .index()
            .iter()
            .find(|e| e.stream == id && e.record_type == RecordType::Data)
            .map(|e| template.read_record(e).unwrap().header.format_version)
            .unwrap();
        template
            .data_layout(id, RecordType::Data, ver, 0)
            .unwrap()
            .clone()
    }

    /// What the writer encodes, the recording's reader decodes to the same values (in the
    /// real Gen2 layouts).
    #[test]
    fn records_decode_to_what_was_encoded() {
        let template = VrsReader::open(std::path::Path::new(GEN2_TEMPLATE)).unwrap();
        let od = SynthDevice::Gen2
            .layout(&template)
            .unwrap()
            .on_device
            .unwrap();
        let pose = Isometry3::from_parts(
            Translation3::new(1.5, -0.25, 0.125),
            UnitQuaternion::from_euler_angles(0.1, -0.2, 0.3),
        );
        let s = VioSample {
            t_ns: 123_456_789,
            t_odometry_device: pose,
            linear_velocity_odometry_mps: Vector3::new(0.5, 0.0, -0.25),
            angular_velocity_device_radps: Vector3::new(0.0, 0.125, 0.0),
            tracking: true,
        };
        let extras = RecordExtras::from_template(&template, od.vio).unwrap();
        assert!(
            !extras.tail.is_empty(),
            "the VIO's online calibration block"
        );

        let dl = layout_of(&template, od.vio_high_frequency);
        let mut b = Vec::new();
        vio_high_frequency(&dl, &s, &RecordExtras::default(), &mut b).unwrap();
        let (t, p) = device_perception::vio_high_frequency(&dl, &b).unwrap();
        assert_eq!(t, s.t_ns);
        assert!((p.t_world_device.translation.vector - pose.translation.vector).norm() < 1e-6);
        assert!(p.t_world_device.rotation.angle_to(&pose.rotation) < 1e-6);
        assert_eq!(p.quality, 1.0);

        let dl = layout_of(&template, od.vio);
        let mut b = Vec::new();
        let lost = VioSample {
            tracking: false,
            ..s
        };
        vio(&dl, &lost, 7, &extras, &mut b).unwrap();
        let (t, p) = device_perception::vio(&dl, &b).unwrap();
        assert_eq!(t, s.t_ns);
        assert!(p.t_world_device.rotation.angle_to(&pose.rotation) < 1e-6);
        assert_eq!(p.quality, 0.0, "an initialising tracker is not valid");

        let dl = layout_of(&template, od.eye_gaze);
        let t_device_cpf = Isometry3::from_parts(
            Translation3::new(0.0, 0.01, -0.02),
            UnitQuaternion::from_euler_angles(0.05, 0.0, 0.0),
        );
        let g = CpfGaze {
            yaw_rad: -0.2,
            pitch_rad: 0.1,
            depth_m: Some(1.5),
        };
        let mut b = Vec::new();
        eye_gaze(&dl, 42, &g, &t_device_cpf, &mut b).unwrap();
        let (t, d) = device_perception::eye_gaze(&dl, &b, &t_device_cpf.inverse()).unwrap();
        assert_eq!(t, 42);
        assert!((f64::from(d.yaw_rad) - g.yaw_rad).abs() < 1e-5, "{d:?}");
        assert!((f64::from(d.pitch_rad) - g.pitch_rad).abs() < 1e-5, "{d:?}");
        assert!((f64::from(d.depth_m.unwrap()) - 1.5).abs() < 1e-4, "{d:?}");

        let dl = layout_of(&template, od.hands);
        let h = DeviceHand {
            wrist_m: Vector3::new(0.1, -0.3, 0.25),
            palm_m: Vector3::new(0.12, -0.28, 0.33),
        };
        let mut b = Vec::new();
        hands(&dl, 77, None, Some(&h), &mut b).unwrap();
        let (t, d) = device_perception::hands(&dl, &b).unwrap();
        assert_eq!(t, 77);
        assert!(d.left.is_none());
        let r = d.right.unwrap();
        assert_eq!(r.wrist_m, [0.1, -0.3, 0.25]);
        assert_eq!(r.palm_m, [0.12, -0.28, 0.33]);
        assert_eq!(r.confidence, HAND_CONFIDENCE);
    }
}
