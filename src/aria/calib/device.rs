//! [`DeviceCalibration`]: every sensor's calibration of one Aria device, loaded from the
//! calibration JSON (a file, the VRS `calib_json` tag, or the SDK), with look-ups by label,
//! the CPF pose and resizing to the image sizes a recording actually stores.

use std::path::Path;

use nalgebra::Isometry3;

use super::barometer::{BarometerCalibration, MicrophoneCalibration};
use super::camera::CameraCalibration;
use super::cpf::{align_points, cad_t_cpf_sensor, t_device_cpf, CadVariant};
use super::error::{CalibError, CalibSource};
use super::imu::ImuCalibration;
use super::magnetometer::MagnetometerCalibration;
use super::parse::parse_device_json;
use crate::aria::generation::Generation;

/// Calibration of a whole device.
#[derive(Debug, Clone, PartialEq)]
pub struct DeviceCalibration {
    /// Device serial (`Serial`), empty when absent.
    pub serial: String,
    /// `DeviceClassInfo.DeviceClass` (e.g. `Aria`), empty when absent.
    pub device_class: String,
    /// `DeviceClassInfo.BuildVersion` (e.g. `DVT-S`), empty when absent.
    pub device_subtype: String,
    /// The hardware generation, from the device class.
    pub generation: Generation,
    /// Label of the sensor whose frame is the device frame (default `camera-slam-left`).
    pub origin_label: String,
    /// `CalibrationSource` (e.g. `Factory`), empty when absent.
    pub calibration_source: String,
    /// Cameras, in JSON order.
    pub cameras: Vec<CameraCalibration>,
    /// IMUs, in JSON order.
    pub imus: Vec<ImuCalibration>,
    /// Magnetometers, in JSON order.
    pub magnetometers: Vec<MagnetometerCalibration>,
    /// Barometers, in JSON order.
    pub barometers: Vec<BarometerCalibration>,
    /// Microphones, in JSON order.
    pub microphones: Vec<MicrophoneCalibration>,
}

impl DeviceCalibration {
    /// Parses calibration JSON text (errors name `<string>` and the JSON path).
    pub fn from_json_str(s: &str) -> Result<Self, CalibError> {
        parse_device_json(s, CalibSource::Memory)
    }

    /// Parses calibration JSON text whose origin is `source` (named in errors).
    pub fn from_json_str_with_source(s: &str, source: CalibSource) -> Result<Self, CalibError> {
        parse_device_json(s, source)
    }

    /// Reads and parses a calibration JSON file (errors name the file and the JSON path).
    pub fn from_json_file(path: impl AsRef<Path>) -> Result<Self, CalibError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|source| CalibError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        parse_device_json(&text, CalibSource::File(path.to_path_buf()))
    }

    /// The camera with this label.
    pub fn camera(&self, label: &str) -> Option<&CameraCalibration> {
        self.cameras.iter().find(|c| c.label == label)
    }

    /// Camera labels, in JSON order.
    pub fn camera_labels(&self) -> Vec<&str> {
        self.cameras.iter().map(|c| c.label.as_str()).collect()
    }

    /// The IMU with this label.
    pub fn imu(&self, label: &str) -> Option<&ImuCalibration> {
        self.imus.iter().find(|c| c.label == label)
    }

    /// IMU labels, in JSON order.
    pub fn imu_labels(&self) -> Vec<&str> {
        self.imus.iter().map(|c| c.label.as_str()).collect()
    }

    /// The magnetometer with this label.
    pub fn magnetometer(&self, label: &str) -> Option<&MagnetometerCalibration> {
        self.magnetometers.iter().find(|c| c.label == label)
    }

    /// The barometer with this label.
    pub fn barometer(&self, label: &str) -> Option<&BarometerCalibration> {
        self.barometers.iter().find(|c| c.label == label)
    }

    /// The microphone with this label.
    pub fn microphone(&self, label: &str) -> Option<&MicrophoneCalibration> {
        self.microphones.iter().find(|c| c.label == label)
    }

    /// The CAD variant from the build version (`None` when it is neither `DVT-S` nor `DVT-L`).
    pub fn cad_variant(&self) -> Option<CadVariant> {
        CadVariant::from_build_version(&self.device_subtype)
    }

    /// Pose of the central pupil frame in the device frame (`T_Device_CPF`). Gen1: the CAD
    /// extrinsics' (projectaria_tools `DeviceCadExtrinsics`) inverse origin pose. Gen2: the
    /// CAD camera positions aligned to this device's calibrated ones (projectaria_tools
    /// 2.3's default, which its Gen2 eye gaze uses), the CAD value when they do not align.
    /// An unknown build version uses the first build of its generation (Gen1 `DVT-S`, Gen2
    /// `EVT_SS`) and an unknown origin label the generation's origin camera.
    pub fn t_device_cpf(&self) -> Isometry3<f64> {
        let variant = self.cad_variant().unwrap_or(match self.generation {
            Generation::Gen1 => CadVariant::DvtSmall,
            Generation::Gen2 => CadVariant::Gen2(0),
        });
        let cad = || {
            t_device_cpf(variant, &self.origin_label)
                .or_else(|| t_device_cpf(variant, self.generation.default_origin_label()))
                .unwrap_or_else(Isometry3::identity)
        };
        if self.generation == Generation::Gen1 {
            return cad();
        }
        let (cpf, device): (Vec<_>, Vec<_>) = self
            .cameras
            .iter()
            .filter_map(|c| {
                let t = cad_t_cpf_sensor(variant, &c.label)?;
                Some((t.translation.vector, c.t_device_camera.translation.vector))
            })
            .unzip();
        align_points(&cpf, &device).unwrap_or_else(cad)
    }

    /// CAD pose of a sensor in the device frame (`T_Device_CPF · T_CPF_Sensor`), the design
    /// value rather than the calibrated one; `None` for a label without CAD data.
    pub fn cad_t_device_sensor(&self, label: &str) -> Option<Isometry3<f64>> {
        let variant = self.cad_variant().unwrap_or(CadVariant::DvtSmall);
        cad_t_cpf_sensor(variant, label).map(|t| self.t_device_cpf() * t)
    }

    /// A copy whose cameras match the image sizes a recording stores
    /// (`(label, width, height)`), by [`CameraCalibration::rescaled`]. Errors on an unknown
    /// label or an unsupported size change.
    pub fn with_recorded_sizes(&self, sizes: &[(String, u32, u32)]) -> Result<Self, CalibError> {
        let mut out = self.clone();
        for (label, width, height) in sizes {
            let Some(cam) = out.cameras.iter_mut().find(|c| &c.label == label) else {
                return Err(CalibError::NoSuchCamera {
                    label: label.clone(),
                    available: self.camera_labels().join(", "),
                });
            };
            *cam = cam.rescaled(*width, *height)?;
        }
        Ok(out)
    }
}
