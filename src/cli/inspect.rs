//! `vista inspect PATH [--json]`: what a recording or session folder holds.

use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::Context;
use serde::Serialize;

use vista::aria::calib::DeviceCalibration;
use vista::aria::mps::{MpsFileSummary, MpsFiles};
use vista::aria::recording::{AriaRecording, StreamSummary};
use vista::source::session_files::SessionFiles;

/// Arguments of `vista inspect`.
#[derive(Debug, clap::Args)]
pub struct InspectArgs {
    /// A `.vrs` file or a session folder.
    pub path: PathBuf,
    /// Print one JSON object instead of tables.
    #[arg(long)]
    pub json: bool,
}

/// The file tags worth showing.
const TAGS: [&str; 7] = [
    "device_serial",
    "device_type",
    "device_version",
    "hardware_version",
    "firmware_version",
    "session_id",
    "capture_time_epoch",
];

#[derive(Debug, Serialize)]
struct Report {
    recording: PathBuf,
    file_format: String,
    file_size_bytes: u64,
    tags: BTreeMap<String, String>,
    recovery: Recovery,
    streams: BTreeMap<String, StreamSummary>,
    calibration: Option<CalibReport>,
    mps_dir: Option<PathBuf>,
    mps: Vec<MpsFileSummary>,
}

#[derive(Debug, Serialize)]
struct Recovery {
    index: String,
    bytes_lost: u64,
    records_skipped: u64,
}

#[derive(Debug, Serialize)]
struct CalibReport {
    serial: String,
    cameras: Vec<CameraReport>,
    imus: Vec<String>,
    magnetometers: Vec<String>,
    barometers: Vec<String>,
}

#[derive(Debug, Serialize)]
struct CameraReport {
    label: String,
    model: String,
    width: u32,
    height: u32,
}

/// Runs `vista inspect`.
pub fn run(args: InspectArgs) -> anyhow::Result<()> {
    let files = SessionFiles::locate(&args.path)?;
    let rec = AriaRecording::open(&files.recording)
        .with_context(|| format!("opening {}", files.recording.display()))?;
    let vrs = rec.vrs();
    let file_size_bytes = std::fs::metadata(&files.recording)
        .map(|m| m.len())
        .unwrap_or(0);
    let tags = TAGS
        .iter()
        .filter_map(|k| vrs.file_tags().get(*k).map(|v| (k.to_string(), v.clone())))
        .collect();
    let streams = rec
        .summaries()
        .into_iter()
        .map(|s| (s.vrs_id.clone(), s))
        .collect();
    let calibration = match vista::aria::recorded_calib::recording_calibration(&rec) {
        Ok(c) => c.as_ref().map(calib_report),
        Err(e) => {
            log::warn!("{}: calib_json tag: {e}", files.recording.display());
            None
        }
    };
    let rep = vrs.recovery();
    let report = Report {
        recording: files.recording.clone(),
        file_format: format_version(vrs.file_format_version()),
        file_size_bytes,
        tags,
        recovery: Recovery {
            index: format!("{:?}", rep.index_source),
            bytes_lost: rep.bytes_lost,
            records_skipped: rep.records_skipped,
        },
        streams,
        calibration,
        mps_dir: files.mps_dir.clone(),
        mps: mps_summaries(&files.mps),
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", render(&report));
    }
    Ok(())
}

fn mps_summaries(files: &MpsFiles) -> Vec<MpsFileSummary> {
    files.summaries()
}

fn calib_report(c: &DeviceCalibration) -> CalibReport {
    CalibReport {
        serial: c.serial.clone(),
        cameras: c
            .cameras
            .iter()
            .map(|cam| CameraReport {
                label: cam.label.clone(),
                model: cam.model.name().to_string(),
                width: cam.image_width,
                height: cam.image_height,
            })
            .collect(),
        imus: c.imus.iter().map(|i| i.label.clone()).collect(),
        magnetometers: c.magnetometers.iter().map(|m| m.label.clone()).collect(),
        barometers: c.barometers.iter().map(|b| b.label.clone()).collect(),
    }
}

fn format_version(v: u32) -> String {
    let b = v.to_le_bytes();
    if b.iter().all(|c| c.is_ascii_alphanumeric()) {
        String::from_utf8_lossy(&b).into_owned()
    } else {
        format!("{v:#x}")
    }
}

fn opt(v: Option<i64>) -> String {
    v.map_or("-".to_string(), |x| x.to_string())
}

fn render(r: &Report) -> String {
    use std::fmt::Write;
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{} ({}, {} bytes)",
        r.recording.display(),
        r.file_format,
        r.file_size_bytes
    );
    for (k, v) in &r.tags {
        let _ = writeln!(o, "  {k:<20} {v}");
    }
    let _ = writeln!(
        o,
        "  index: {} (bytes lost: {}, records skipped: {})",
        r.recovery.index, r.recovery.bytes_lost, r.recovery.records_skipped
    );
    let _ = writeln!(o, "\nstreams:");
    let _ = writeln!(
        o,
        "  {:<8} {:<26} {:>8} {:>10} {:>10} {:>16} {:>16} {:>11}",
        "id", "name", "records", "nominal", "measured", "first_ns", "last_ns", "image"
    );
    // Numeric order of (recordable type id, instance), as VRS tools list streams.
    let mut rows: Vec<_> = r.streams.iter().collect();
    rows.sort_by_key(|(id, _)| {
        id.parse::<vista::aria::vrs::VrsStreamId>()
            .map(|v| (v.type_id, v.instance))
            .unwrap_or((i32::MAX, 0))
    });
    for (id, s) in rows {
        let rate = |x: Option<f64>| x.map_or("-".to_string(), |v| format!("{v:.1} Hz"));
        let img = s
            .image_size
            .map_or("-".to_string(), |(w, h)| format!("{w}x{h}"));
        let _ = writeln!(
            o,
            "  {:<8} {:<26} {:>8} {:>10} {:>10} {:>16} {:>16} {:>11}",
            id,
            s.name,
            s.data_records,
            rate(s.nominal_rate_hz),
            rate(s.measured_rate_hz),
            opt(s.first_ns),
            opt(s.last_ns),
            img
        );
    }
    match &r.calibration {
        None => {
            let _ = writeln!(o, "\ncalibration: none (no calib_json tag)");
        }
        Some(c) => {
            let _ = writeln!(o, "\ncalibration (device {}):", c.serial);
            for cam in &c.cameras {
                let _ = writeln!(
                    o,
                    "  {:<18} {:<24} {}x{}",
                    cam.label, cam.model, cam.width, cam.height
                );
            }
            let _ = writeln!(
                o,
                "  imus: {}; magnetometers: {}; barometers: {}",
                c.imus.join(", "),
                c.magnetometers.join(", "),
                c.barometers.join(", ")
            );
        }
    }
    match &r.mps_dir {
        None => {
            let _ = writeln!(o, "\nmps: none found");
        }
        Some(d) => {
            let _ = writeln!(o, "\nmps ({}):", d.display());
            for m in &r.mps {
                let name = m
                    .path
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let span = match (m.first_tracking_ns, m.last_tracking_ns) {
                    (Some(a), Some(b)) => format!("{a} .. {b} ns ({:.2} s)", (b - a) as f64 * 1e-9),
                    _ => "-".to_string(),
                };
                let _ = write!(
                    o,
                    "  {:<22} {:<34} {:>8} rows  {}",
                    format!("{:?}", m.kind),
                    name,
                    m.rows,
                    span
                );
                if m.backward_steps > 0 {
                    let _ = write!(o, "  ({} backward steps)", m.backward_steps);
                }
                if let Some(e) = &m.error {
                    let _ = write!(o, "  ERROR: {e}");
                }
                let _ = writeln!(o);
            }
        }
    }
    o
}
