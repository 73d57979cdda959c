//! `vista calib`: prints a device calibration, or projects / unprojects points read from
//! stdin with one of its cameras.
//!
//! ```text
//! vista calib calib.json                          # readable summary (--json: JSON)
//! echo "0.1 0.2 1" | vista calib calib.json --project [--camera camera-rgb]   # -> "u v"
//! echo "700 700"   | vista calib calib.json --unproject                       # -> "x y z"
//! ```
//!
//! Output lines are `invalid` (or `null` with `--json`) for points behind the camera or
//! outside the valid image region. Blank lines and lines starting with `#` are skipped;
//! any other malformed line is an error naming its line number.

use std::io::{BufRead, Write};
use std::path::PathBuf;

use anyhow::{bail, Context};
use nalgebra::{Isometry3, Point2, Vector3};
use vista::aria::calib::{CalibSource, CameraCalibration, DeviceCalibration};

/// Arguments of `vista calib`.
#[derive(Debug, Clone, clap::Args)]
pub struct CalibArgs {
    /// Calibration JSON file (factory calibration or a recording's `calib_json`).
    pub path: PathBuf,
    /// Camera used by --project / --unproject.
    #[arg(long, default_value = "camera-rgb")]
    pub camera: String,
    /// Read `x y z` lines (metres, camera frame) from stdin, write `u v` pixels.
    #[arg(long, conflicts_with = "unproject")]
    pub project: bool,
    /// Read `u v` pixel lines from stdin, write unit rays `x y z` (camera frame).
    #[arg(long)]
    pub unproject: bool,
    /// Machine-readable output (a JSON summary, or one JSON value per line).
    #[arg(long)]
    pub json: bool,
}

/// Runs `vista calib` on a calibration JSON file, a `.vrs` recording or a session folder.
pub fn run(args: CalibArgs) -> anyhow::Result<()> {
    // A recording (or a session folder): its calib_json tag, with cameras calibrated for the
    // resolution recorded in that file.
    let is_vrs = args
        .path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("vrs"));
    if is_vrs || args.path.is_dir() {
        let files = vista::source::session_files::SessionFiles::locate(&args.path)?;
        let rec = vista::aria::recording::AriaRecording::open(&files.recording)
            .with_context(|| format!("opening {}", files.recording.display()))?;
        let Some(json) = rec.calib_json() else {
            bail!(
                "{}: the recording has no calib_json tag",
                files.recording.display()
            );
        };
        let sizes = vista::aria::recorded_calib::recorded_camera_sizes(&rec);
        let source = format!("{}: calib_json", files.recording.display());
        return run_with_json(json, &source, &sizes, &args);
    }
    let json = std::fs::read_to_string(&args.path)
        .with_context(|| format!("{}: cannot read calibration file", args.path.display()))?;
    run_with_json(&json, &args.path.display().to_string(), &[], &args)
}

/// Runs `vista calib` on calibration JSON text from `source` (a file name, or e.g.
/// `rec.vrs: calib_json`), first resizing cameras to the sizes a recording stores
/// (`(label, width, height)`, see [`DeviceCalibration::with_recorded_sizes`]).
pub fn run_with_json(
    json: &str,
    source: &str,
    recorded_sizes: &[(String, u32, u32)],
    args: &CalibArgs,
) -> anyhow::Result<()> {
    let device =
        DeviceCalibration::from_json_str_with_source(json, CalibSource::Named(source.into()))?
            .with_recorded_sizes(recorded_sizes)?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    if args.project || args.unproject {
        let Some(cam) = device.camera(&args.camera) else {
            bail!(
                "{source}: no camera {:?} (cameras: {})",
                args.camera,
                device.camera_labels().join(", ")
            );
        };
        let stdin = std::io::stdin();
        let input = stdin.lock();
        if args.project {
            project_lines(cam, input, &mut out, args.json)?;
        } else {
            unproject_lines(cam, input, &mut out, args.json)?;
        }
    } else if args.json {
        serde_json::to_writer_pretty(&mut out, &summary_json(&device))?;
        writeln!(out)?;
    } else {
        write_summary(&device, source, &mut out)?;
    }
    out.flush()?;
    Ok(())
}

/// Parses the `N` numbers of one input line (whitespace or comma separated); `None` when the
/// line is blank or a `#` comment.
fn parse_numbers<const N: usize>(line: &str, line_no: usize) -> anyhow::Result<Option<[f64; N]>> {
    let trimmed = line.trim();
    if trimmed.is_empty() || trimmed.starts_with('#') {
        return Ok(None);
    }
    let fields: Vec<&str> = trimmed
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|s| !s.is_empty())
        .collect();
    if fields.len() != N {
        bail!(
            "stdin line {line_no}: expected {N} numbers, found {} in {trimmed:?}",
            fields.len()
        );
    }
    let mut out = [0.0; N];
    for (o, f) in out.iter_mut().zip(&fields) {
        *o = match f.parse::<f64>() {
            Ok(x) if x.is_finite() => x,
            _ => bail!("stdin line {line_no}: {f:?} is not a finite number"),
        };
    }
    Ok(Some(out))
}

fn write_values(out: &mut impl Write, values: Option<&[f64]>, json: bool) -> std::io::Result<()> {
    match (values, json) {
        (None, false) => writeln!(out, "invalid"),
        (None, true) => writeln!(out, "null"),
        (Some(v), false) => {
            let s: Vec<String> = v.iter().map(|x| x.to_string()).collect();
            writeln!(out, "{}", s.join(" "))
        }
        (Some(v), true) => {
            let s: Vec<String> = v.iter().map(|x| format!("{x:?}")).collect();
            writeln!(out, "[{}]", s.join(","))
        }
    }
}

/// `x y z` lines → `u v` lines (or `invalid`).
fn project_lines(
    cam: &CameraCalibration,
    input: impl BufRead,
    out: &mut impl Write,
    json: bool,
) -> anyhow::Result<()> {
    for (i, line) in input.lines().enumerate() {
        let line = line.with_context(|| format!("stdin line {}: cannot read", i + 1))?;
        if let Some([x, y, z]) = parse_numbers::<3>(&line, i + 1)? {
            let uv = cam.project(&Vector3::new(x, y, z));
            write_values(out, uv.as_ref().map(|p| p.coords.as_slice()), json)?;
        }
    }
    Ok(())
}

/// `u v` lines → unit ray `x y z` lines (or `invalid`).
fn unproject_lines(
    cam: &CameraCalibration,
    input: impl BufRead,
    out: &mut impl Write,
    json: bool,
) -> anyhow::Result<()> {
    for (i, line) in input.lines().enumerate() {
        let line = line.with_context(|| format!("stdin line {}: cannot read", i + 1))?;
        if let Some([u, v]) = parse_numbers::<2>(&line, i + 1)? {
            let ray = cam.unproject(&Point2::new(u, v));
            write_values(out, ray.as_ref().map(|r| r.as_slice()), json)?;
        }
    }
    Ok(())
}

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

fn write_summary(
    dev: &DeviceCalibration,
    source: &str,
    out: &mut impl Write,
) -> anyhow::Result<()> {
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

fn summary_json(dev: &DeviceCalibration) -> serde_json::Value {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_numbers_reports_line_numbers() {
        assert_eq!(parse_numbers::<2>(" 1, 2 ", 1).unwrap(), Some([1.0, 2.0]));
        assert_eq!(parse_numbers::<3>("# comment", 2).unwrap(), None);
        assert_eq!(parse_numbers::<3>("   ", 2).unwrap(), None);
        let e = parse_numbers::<3>("1 2", 7).unwrap_err().to_string();
        assert!(e.contains("line 7") && e.contains("expected 3"), "{e}");
        let e = parse_numbers::<2>("1 x", 9).unwrap_err().to_string();
        assert!(e.contains("line 9") && e.contains("\"x\""), "{e}");
        assert!(parse_numbers::<2>("1 nan", 3).is_err());
    }
}
