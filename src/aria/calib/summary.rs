//! A device calibration in words and as JSON (`vista calib`): cameras (model, size, focal
//! length, centre, validity, time offset, pose), IMUs, magnetometers, barometers,
//! microphones and the central pupil frame.

use std::io::Write;

use nalgebra::{Isometry3, Vector3};

use crate::aria::calib::DeviceCalibration;

/// Translation (m) and rotation as `[w, x, y, z]` and axis-angle (degrees).
fn pose_parts(t: &Isometry3<f64>) -> ([f64; 3], [f64; 4], [f64; 3], f64) {
    let tr = t.translation.vector;
    let q = t.rotation.quaternion();
    let (axis, angle) = t
        .rotation
        .axis_angle()
        .map(|(a, ang)| ([a.x, a.y, a.z], ang.to_degrees()))
        .unwrap_or(([0.0, 0.0, 1.0], 0.0));
    ([tr.x, tr.y, tr.z], [q.w, q.i, q.j, q.k], axis, angle)
}

fn fmt_pose(t: &Isometry3<f64>) -> String {
    let (tr, q, axis, angle) = pose_parts(t);
    format!(
        "t = [{:.6}, {:.6}, {:.6}] m, q(w,x,y,z) = [{:.6}, {:.6}, {:.6}, {:.6}] ({angle:.3}° about [{:.4}, {:.4}, {:.4}])",
        tr[0], tr[1], tr[2], q[0], q[1], q[2], q[3], axis[0], axis[1], axis[2]
    )
}

fn fmt_v3(v: &Vector3<f64>, scale: f64, digits: usize) -> String {
    format!(
        "[{:.*}, {:.*}, {:.*}]",
        digits,
        v.x * scale,
        digits,
        v.y * scale,
        digits,
        v.z * scale
    )
}

/// The readable summary of `dev` (read from `source`): device, cameras with intrinsics and
/// poses, IMUs, magnetometers, barometers, microphones and the CPF.
pub fn write_summary(
    dev: &DeviceCalibration,
    source: &str,
    out: &mut impl Write,
) -> std::io::Result<()> {
    writeln!(out, "Device calibration from {source}")?;
    writeln!(
        out,
        "  serial {}, {} {}, source {}, device frame = {}",
        dev.serial, dev.device_class, dev.device_subtype, dev.calibration_source, dev.origin_label
    )?;
    writeln!(out, "Cameras ({}):", dev.cameras.len())?;
    for c in &dev.cameras {
        let [fu, fv] = c.model.focal_lengths_px();
        let [cu, cv] = c.model.principal_point_px();
        let radius = c
            .valid_radius_px
            .map_or("none".to_string(), |r| format!("{r:.1} px"));
        let angle = c
            .max_solid_angle_rad
            .map_or("none".to_string(), |a| format!("{a:.3} rad"));
        writeln!(
            out,
            "  {}: {} {}x{}, focal [{fu:.3}, {fv:.3}] px, centre [{cu:.3}, {cv:.3}] px, valid radius {radius}, max angle {angle}, time offset {:.3} ms",
            c.label,
            c.model.name(),
            c.image_width,
            c.image_height,
            c.time_offset_s * 1e3
        )?;
        writeln!(out, "    T_device_camera: {}", fmt_pose(&c.t_device_camera))?;
    }
    writeln!(out, "IMUs ({}):", dev.imus.len())?;
    for i in &dev.imus {
        writeln!(
            out,
            "  {}: accel bias {} m/s², gyro bias {} rad/s, time offsets accel {:.3} ms, gyro {:.3} ms",
            i.label,
            fmt_v3(&i.accel.bias, 1.0, 5),
            fmt_v3(&i.gyro.bias, 1.0, 5),
            i.time_offset_accel_s * 1e3,
            i.time_offset_gyro_s * 1e3
        )?;
        writeln!(out, "    T_device_imu: {}", fmt_pose(&i.t_device_imu))?;
    }
    for m in &dev.magnetometers {
        writeln!(
            out,
            "Magnetometer {}: bias {} µT",
            m.label,
            fmt_v3(&m.model.bias, 1e6, 4)
        )?;
    }
    for b in &dev.barometers {
        writeln!(
            out,
            "Barometer {}: rectified = {} × raw + {} Pa",
            b.label, b.slope, b.offset_pa
        )?;
    }
    let mics: Vec<String> = dev
        .microphones
        .iter()
        .map(|m| format!("{} {:.2} dBV", m.label, m.d_sensitivity_1k_dbv))
        .collect();
    writeln!(out, "Microphones ({}): {}", mics.len(), mics.join(", "))?;
    writeln!(out, "T_device_cpf (CAD): {}", fmt_pose(&dev.t_device_cpf()))?;
    Ok(())
}

fn pose_json(t: &Isometry3<f64>) -> serde_json::Value {
    let (tr, q, _, _) = pose_parts(t);
    serde_json::json!({"translation_m": tr, "quaternion_wxyz": q})
}

/// The summary of `dev` as one JSON value (model parameters and poses included).
pub fn summary_json(dev: &DeviceCalibration) -> serde_json::Value {
    use serde_json::json;
    json!({
        "serial": dev.serial,
        "device_class": dev.device_class,
        "device_subtype": dev.device_subtype,
        "origin_label": dev.origin_label,
        "cameras": dev.cameras.iter().map(|c| json!({
            "label": c.label,
            "model": c.model.name(),
            "params": c.model.params(),
            "image_width": c.image_width,
            "image_height": c.image_height,
            "focal_px": c.model.focal_lengths_px(),
            "principal_point_px": c.model.principal_point_px(),
            "valid_radius_px": c.valid_radius_px,
            "max_solid_angle_rad": c.max_solid_angle_rad,
            "time_offset_s": c.time_offset_s,
            "t_device_camera": pose_json(&c.t_device_camera),
        })).collect::<Vec<_>>(),
        "imus": dev.imus.iter().map(|i| json!({
            "label": i.label,
            "accel_bias_mps2": i.accel.bias.as_slice(),
            "gyro_bias_radps": i.gyro.bias.as_slice(),
            "time_offset_accel_s": i.time_offset_accel_s,
            "time_offset_gyro_s": i.time_offset_gyro_s,
            "t_device_imu": pose_json(&i.t_device_imu),
        })).collect::<Vec<_>>(),
        "magnetometers": dev.magnetometers.iter().map(|m| json!({
            "label": m.label, "bias_t": m.model.bias.as_slice(),
        })).collect::<Vec<_>>(),
        "barometers": dev.barometers.iter().map(|b| json!({
            "label": b.label, "slope": b.slope, "offset_pa": b.offset_pa,
        })).collect::<Vec<_>>(),
        "microphones": dev.microphones.iter().map(|m| json!({
            "label": m.label, "d_sensitivity_1k_dbv": m.d_sensitivity_1k_dbv,
        })).collect::<Vec<_>>(),
        "t_device_cpf": pose_json(&dev.t_device_cpf()),
    })
}
