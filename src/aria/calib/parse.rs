//! JSON → [`DeviceCalibration`]: the Aria calibration schema (projectaria_tools
//! `loader/SensorCalibrationJson.cpp`, `DeviceCalibrationJson.cpp`). Pure: takes text, returns
//! typed values or a [`CalibError`] naming the JSON path of the first bad field.
//!
//! Factory JSON carries no image sizes; as in projectaria_tools (`ConfigData.cpp`) they come
//! from the device generation (`DeviceClassInfo.DeviceClass`, [`Generation`]) and the camera
//! label. Gen1: RGB 2880×2880, valid radius 1415 px, max angle 1.0 rad; SLAM 640×480, 330 px,
//! 1.4 rad; eye tracking 640×480, no radius, 0.75 rad. Gen2: RGB 4032×3024, 2202 px, 1.4 rad;
//! the four SLAM cameras 512×512, 300 px, 1.4 rad; eye tracking 400×400, no radius, 0.75 rad. An optional `ConfigData`
//! object (`ImageWidth`, `ImageHeight`, `ValidRadius`, `MaxSolidAngle`) overrides them, and
//! so do the top-level `ImageSizes` / `ReadoutTimesSec` of MPS online calibration lines
//! (the pre-June-2023 online format, with calibrations quoted as strings, is not accepted).

use serde_json::Value;

use super::barometer::{BarometerCalibration, MicrophoneCalibration};
use super::camera::CameraCalibration;
use super::device::DeviceCalibration;
use super::error::{CalibError, CalibSource, FieldProblem};
use super::imu::ImuCalibration;
use super::json::{FieldResult, Node};
use super::magnetometer::MagnetometerCalibration;
use super::model::CameraModel;
use super::rectification::LinearRectification;
use crate::aria::generation::Generation;

/// Parses a device calibration JSON document; errors name `source`.
pub(crate) fn parse_device_json(
    text: &str,
    source: CalibSource,
) -> Result<DeviceCalibration, CalibError> {
    let value: Value = serde_json::from_str(text).map_err(|e| CalibError::Syntax {
        source_name: source.clone(),
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })?;
    parse_device(&Node::root(&value)).map_err(|(json_path, problem)| CalibError::Field {
        source_name: source,
        json_path,
        problem,
    })
}

fn opt_str(node: &Node<'_>, key: &str) -> FieldResult<String> {
    Ok(match node.opt_field(key)? {
        Some(n) => n.str()?.to_string(),
        None => String::new(),
    })
}

fn opt_f64(node: &Node<'_>, key: &str) -> FieldResult<Option<f64>> {
    node.opt_field(key)?.map(|n| n.f64()).transpose()
}

fn opt_items<'a>(node: &Node<'a>, key: &str) -> FieldResult<Vec<Node<'a>>> {
    match node.opt_field(key)? {
        Some(n) => n.items(),
        None => Ok(Vec::new()),
    }
}

fn parse_device(root: &Node<'_>) -> FieldResult<DeviceCalibration> {
    let (device_subtype, device_class) = match root.opt_field("DeviceClassInfo")? {
        Some(info) => (
            opt_str(&info, "BuildVersion")?,
            opt_str(&info, "DeviceClass")?,
        ),
        None => (String::new(), String::new()),
    };
    let origin_label = match root.opt_field("OriginSpecification")? {
        Some(o) => opt_str(&o, "ChildLabel")?,
        None => String::new(),
    };
    let generation = Generation::from_device_class(&device_class);
    let mut cameras = root
        .field("CameraCalibrations")?
        .items()?
        .iter()
        .map(|c| parse_camera(c, generation))
        .collect::<FieldResult<Vec<_>>>()?;
    apply_online_camera_fields(root, &mut cameras)?;
    let imus = opt_items(root, "ImuCalibrations")?
        .iter()
        .map(parse_imu)
        .collect::<FieldResult<Vec<_>>>()?;
    let magnetometers = opt_items(root, "MagCalibrations")?
        .iter()
        .map(|m| parse_magnetometer(m, generation))
        .collect::<FieldResult<Vec<_>>>()?;
    let barometers = opt_items(root, "BaroCalibrations")?
        .iter()
        .map(parse_barometer)
        .collect::<FieldResult<Vec<_>>>()?;
    let microphones = opt_items(root, "MicCalibrations")?
        .iter()
        .map(parse_microphone)
        .collect::<FieldResult<Vec<_>>>()?;
    Ok(DeviceCalibration {
        serial: opt_str(root, "Serial")?,
        device_class,
        device_subtype,
        generation,
        origin_label: if origin_label.is_empty() {
            generation.default_origin_label().to_string()
        } else {
            origin_label
        },
        calibration_source: opt_str(root, "CalibrationSource")?,
        cameras,
        imus,
        magnetometers,
        barometers,
        microphones,
    })
}

/// Image size, valid radius and max solid angle of a camera without `ConfigData`.
fn camera_defaults(generation: Generation, label: &str) -> Option<(u32, u32, Option<f64>, f64)> {
    match (generation, label) {
        (Generation::Gen1, "camera-rgb") => Some((2880, 2880, Some(1415.0), 1.0)),
        (Generation::Gen1, "camera-slam-left" | "camera-slam-right") => {
            Some((640, 480, Some(330.0), 1.4))
        }
        (Generation::Gen1, "camera-et-left" | "camera-et-right") => Some((640, 480, None, 0.75)),
        (Generation::Gen2, "camera-rgb") => Some((4032, 3024, Some(2202.0), 1.4)),
        (
            Generation::Gen2,
            "slam-front-left" | "slam-front-right" | "slam-side-left" | "slam-side-right",
        ) => Some((512, 512, Some(300.0), 1.4)),
        (Generation::Gen2, "camera-et-left" | "camera-et-right") => Some((400, 400, None, 0.75)),
        _ => None,
    }
}

fn parse_camera(node: &Node<'_>, generation: Generation) -> FieldResult<CameraCalibration> {
    let label_node = node.field("Label")?;
    let label = label_node.str()?.to_string();
    let projection = node.field("Projection")?;
    let name_node = projection.field("Name")?;
    let params_node = projection.field("Params")?;
    let params = params_node.f64_vec()?;
    let model = match CameraModel::from_name_and_params(name_node.str()?, &params) {
        Ok(m) => m,
        Err(p @ FieldProblem::UnknownModel(_)) => return name_node.err(p),
        Err(p) => return params_node.err(p),
    };
    if model.focal_lengths_px().iter().any(|f| *f <= 0.0) {
        return params_node.err(FieldProblem::OutOfRange {
            reason: "focal length must be positive".into(),
        });
    }
    let t_device_camera = node.field("T_Device_Camera")?.pose()?;
    let time_offset_s = opt_f64(node, "TimeOffsetSec_Device_Camera")?.unwrap_or(0.0);
    let (image_width, image_height, valid_radius_px, max_solid_angle_rad) = match node
        .opt_field("ConfigData")?
    {
        Some(cfg) => {
            let w_node = cfg.field("ImageWidth")?;
            let h_node = cfg.field("ImageHeight")?;
            let (w, h) = (w_node.u32()?, h_node.u32()?);
            if w == 0 || h == 0 {
                return w_node.err(FieldProblem::OutOfRange {
                    reason: "image size must be positive".into(),
                });
            }
            (
                w,
                h,
                opt_f64(&cfg, "ValidRadius")?,
                opt_f64(&cfg, "MaxSolidAngle")?,
            )
        }
        None => match camera_defaults(generation, &label) {
            Some((w, h, r, a)) => (w, h, r, Some(a)),
            None => return label_node.err(FieldProblem::UnknownCameraLabel { label, generation }),
        },
    };
    Ok(CameraCalibration {
        serial_number: opt_str(node, "SerialNumber")?,
        label,
        model,
        t_device_camera,
        image_width,
        image_height,
        valid_radius_px,
        max_solid_angle_rad,
        time_offset_s,
        readout_time_s: None,
    })
}

/// MPS online calibration (≥ 1.1.0) stores, beside `CameraCalibrations`, the recorded
/// `ImageSizes` (`[[w, h], …]`, same order) and `ReadoutTimesSec` (`[[camera index, s], …]`);
/// as projectaria_tools' `OnlineCalibrationsReader`, the size replaces the label default
/// (intrinsics unchanged) and the readout time is attached to the indexed camera.
fn apply_online_camera_fields(
    root: &Node<'_>,
    cameras: &mut [CameraCalibration],
) -> FieldResult<()> {
    if let Some(sizes) = root.opt_field("ImageSizes")? {
        let items = sizes.items_exact(cameras.len())?;
        for (cam, item) in cameras.iter_mut().zip(&items) {
            let [w_node, h_node] = item.pair()?;
            let (w, h) = (w_node.u32()?, h_node.u32()?);
            if w == 0 || h == 0 {
                return item.err(FieldProblem::OutOfRange {
                    reason: "image size must be positive".into(),
                });
            }
            cam.image_width = w;
            cam.image_height = h;
        }
    }
    for item in opt_items(root, "ReadoutTimesSec")? {
        let [index_node, seconds_node] = item.pair()?;
        let index = index_node.u32()? as usize;
        let seconds = seconds_node.f64()?;
        match cameras.get_mut(index) {
            Some(cam) => cam.readout_time_s = Some(seconds),
            None => {
                return index_node.err(FieldProblem::OutOfRange {
                    reason: format!("camera index {index} but {} cameras", cameras.len()),
                })
            }
        }
    }
    Ok(())
}

/// `{"Bias":{"Offset":[3]}, "Model":{"RectificationMatrix":[[3],[3],[3]]}}`.
fn parse_rect_model<'a>(
    node: &Node<'a>,
) -> FieldResult<(nalgebra::Matrix3<f64>, nalgebra::Vector3<f64>, Node<'a>)> {
    let bias = node.field("Bias")?.field("Offset")?.vector3()?;
    let m_node = node.field("Model")?.field("RectificationMatrix")?;
    Ok((m_node.matrix3()?, bias, m_node))
}

fn parse_sensor_model(node: &Node<'_>) -> FieldResult<LinearRectification> {
    let (m, bias, m_node) = parse_rect_model(node)?;
    match LinearRectification::new(m, bias) {
        Some(r) => Ok(r),
        None => m_node.err(FieldProblem::SingularMatrix),
    }
}

fn parse_imu(node: &Node<'_>) -> FieldResult<ImuCalibration> {
    let accel_node = node.field("Accelerometer")?;
    let gyro_node = node.field("Gyroscope")?;
    let gyro_g_sensitivity = match gyro_node.field("Model")?.opt_field("GSensitivityMatrix")? {
        Some(g) => Some(g.matrix3()?),
        None => None,
    };
    Ok(ImuCalibration {
        label: node.field("Label")?.str()?.to_string(),
        t_device_imu: node.field("T_Device_Imu")?.pose()?,
        accel: parse_sensor_model(&accel_node)?,
        gyro: parse_sensor_model(&gyro_node)?,
        gyro_g_sensitivity,
        time_offset_accel_s: opt_f64(&accel_node, "TimeOffsetSec_Device_Accel")?.unwrap_or(0.0),
        time_offset_gyro_s: opt_f64(&gyro_node, "TimeOffsetSec_Device_Gyro")?.unwrap_or(0.0),
    })
}

fn parse_magnetometer(
    node: &Node<'_>,
    generation: Generation,
) -> FieldResult<MagnetometerCalibration> {
    let label = node.field("Label")?.str()?.to_string();
    let (m, bias, m_node) = parse_rect_model(node)?;
    match MagnetometerCalibration::from_factory_json(label, &m, &bias, generation) {
        Some(c) => Ok(c),
        None => m_node.err(FieldProblem::SingularMatrix),
    }
}

fn parse_barometer(node: &Node<'_>) -> FieldResult<BarometerCalibration> {
    let model = node.field("PressureModel")?;
    let slope_node = model.field("Slope")?;
    let slope = slope_node.f64()?;
    if slope == 0.0 {
        return slope_node.err(FieldProblem::OutOfRange {
            reason: "slope must be non-zero".into(),
        });
    }
    Ok(BarometerCalibration {
        label: node.field("Label")?.str()?.to_string(),
        slope,
        offset_pa: model.field("OffsetPa")?.f64()?,
    })
}

fn parse_microphone(node: &Node<'_>) -> FieldResult<MicrophoneCalibration> {
    Ok(MicrophoneCalibration {
        label: node.field("Label")?.str()?.to_string(),
        d_sensitivity_1k_dbv: node.field("DSensitivity1KDbv")?.f64()?,
    })
}
