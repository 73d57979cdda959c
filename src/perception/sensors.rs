//! [`SensorModels`]: the calibration's sensor models that perception needs, reduced to what
//! it applies per sample: IMU and magnetometer rectification and rotation into the device
//! frame, barometer rectification, the CPF pose and the RGB camera (pure).

use nalgebra::{Isometry3, UnitQuaternion, Vector3};

use crate::aria::calib::{
    BarometerCalibration, CameraCalibration, DeviceCalibration, ImuCalibration,
    MagnetometerCalibration,
};
use crate::sample::{ImuSample, MagSample, StreamId};

use super::geom::finite;

/// One IMU's model.
#[derive(Clone, Debug, PartialEq)]
pub struct ImuModel {
    /// Affine rectification (bias, scale, misalignment).
    pub calib: ImuCalibration,
    /// `R_device_imu`.
    pub r_device_imu: UnitQuaternion<f64>,
}

/// The sensor models of one device, as perception applies them.
#[derive(Clone, Debug, PartialEq)]
pub struct SensorModels {
    /// `imu-right`, when calibrated.
    pub imu_right: Option<ImuModel>,
    /// `imu-left`, when calibrated.
    pub imu_left: Option<ImuModel>,
    /// The magnetometer's rectification, when calibrated.
    pub magnetometer: Option<MagnetometerCalibration>,
    /// `R_device_mag` (CAD extrinsics of `mag0`).
    pub r_device_mag: UnitQuaternion<f64>,
    /// The barometer's rectification, when calibrated.
    pub barometer: Option<BarometerCalibration>,
    /// `T_device_cpf` (the head frame: x left, y up, z forward).
    pub t_device_cpf: Isometry3<f64>,
    /// The RGB camera, calibrated for the recorded resolution.
    pub rgb: Option<CameraCalibration>,
    /// Whether these come from a real calibration (false: identity guesses).
    pub calibrated: bool,
}

impl Default for SensorModels {
    /// No calibration: raw readings, every frame taken as the device frame, the CPF as
    /// the device frame turned so that z is forward and y up (the Gen1 device frame has
    /// y down).
    fn default() -> Self {
        Self {
            imu_right: None,
            imu_left: None,
            magnetometer: None,
            r_device_mag: UnitQuaternion::identity(),
            barometer: None,
            t_device_cpf: Isometry3::from_parts(
                nalgebra::Translation3::identity(),
                UnitQuaternion::from_axis_angle(&Vector3::z_axis(), std::f64::consts::PI),
            ),
            rgb: None,
            calibrated: false,
        }
    }
}

impl SensorModels {
    /// The models of `calib` (cameras as calibrated there: use a recording's calibration,
    /// rescaled to its recorded sizes).
    pub fn from_calibration(calib: &DeviceCalibration) -> Self {
        let imu = |label: &str| {
            calib.imu(label).map(|c| ImuModel {
                calib: c.clone(),
                r_device_imu: c.t_device_imu.rotation,
            })
        };
        Self {
            imu_right: imu("imu-right"),
            imu_left: imu("imu-left"),
            magnetometer: calib.magnetometers.first().cloned(),
            r_device_mag: calib
                .cad_t_device_sensor("mag0")
                .map_or_else(UnitQuaternion::identity, |t| t.rotation),
            barometer: calib.barometers.first().cloned(),
            t_device_cpf: calib.t_device_cpf(),
            rgb: calib.camera("camera-rgb").cloned(),
            calibrated: true,
        }
    }

    /// Specific force (m/s²) and angular velocity (rad/s) in the device frame, or `None`
    /// when the sample lacks either or is not finite.
    pub fn imu_device(
        &self,
        stream: StreamId,
        s: &ImuSample,
    ) -> Option<(Vector3<f64>, Vector3<f64>)> {
        if !s.accel_valid || !s.gyro_valid {
            return None;
        }
        let a = Vector3::new(
            f64::from(s.accel_mps2[0]),
            f64::from(s.accel_mps2[1]),
            f64::from(s.accel_mps2[2]),
        );
        let w = Vector3::new(
            f64::from(s.gyro_radps[0]),
            f64::from(s.gyro_radps[1]),
            f64::from(s.gyro_radps[2]),
        );
        let model = match stream {
            StreamId::ImuRight => self.imu_right.as_ref(),
            StreamId::ImuLeft => self.imu_left.as_ref(),
            _ => return None,
        };
        let (a, w) = match model {
            Some(m) => (
                m.r_device_imu * m.calib.rectify_accel(&a),
                m.r_device_imu * m.calib.rectify_gyro(&w),
            ),
            None => (a, w),
        };
        Some((finite(a)?, finite(w)?))
    }

    /// The magnetic field in the device frame, tesla, or `None` when not finite.
    pub fn mag_device(&self, s: &MagSample) -> Option<Vector3<f64>> {
        let raw = Vector3::new(
            f64::from(s.field_t[0]),
            f64::from(s.field_t[1]),
            f64::from(s.field_t[2]),
        );
        let rect = match &self.magnetometer {
            Some(c) => c.rectify(&raw),
            None => raw,
        };
        finite(self.r_device_mag * rect)
    }

    /// Rectified pressure, Pa, or `None` when not finite or not positive.
    pub fn pressure_pa(&self, raw_pa: f64) -> Option<f64> {
        let p = match &self.barometer {
            Some(c) => c.rectify(raw_pa),
            None => raw_pa,
        };
        (p.is_finite() && p > 0.0).then_some(p)
    }

    /// The head's forward direction (CPF +z) in the device frame.
    pub fn forward_device(&self) -> Vector3<f64> {
        self.t_device_cpf.rotation * Vector3::z()
    }
}
