//! What a recording or session folder holds (`vista inspect`): file format and size, tags,
//! index recovery, streams, calibration and MPS files, as a table or as JSON.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::aria::calib::DeviceCalibration;
use crate::aria::mps::{MpsFileSummary, MpsFiles};
use crate::aria::recording::{AriaRecording, RecordingError, StreamSummary};
use crate::source::session_files::{SessionError, SessionFiles};

/// What can go wrong inspecting a session.
#[derive(Debug, thiserror::Error)]
pub enum InspectError {
    /// The path is not a recording or a session folder.
    #[error(transparent)]
    Session(#[from] SessionError),
    /// The recording could not be opened.
    #[error("opening {path}", path = path.display())]
    Open {
        /// The recording.
        path: PathBuf,
        /// What went wrong.
        #[source]
        source: Box<RecordingError>,
    },
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

/// What a recording or session folder holds.
#[derive(Debug, Serialize)]
pub struct SessionReport {
    /// The recording file.
    pub recording: PathBuf,
    /// The VRS file format (`VRS1`, `VRS2`, or hex).
    pub file_format: String,
    /// The file's size, bytes (0 when unknown).
    pub file_size_bytes: u64,
    /// The file tags worth showing.
    pub tags: BTreeMap<String, String>,
    /// How the index was read.
    pub recovery: Recovery,
    /// Per stream (by VRS id), its summary.
    pub streams: BTreeMap<String, StreamSummary>,
    /// The calibration, when the recording carries a readable one.
    pub calibration: Option<CalibReport>,
    /// The MPS folder, when found.
    pub mps_dir: Option<PathBuf>,
    /// Every MPS file found.
    pub mps: Vec<MpsFileSummary>,
}

/// How the recording's index was read.
#[derive(Debug, Serialize)]
pub struct Recovery {
    /// Where the index came from.
    pub index: String,
    /// Bytes lost at the end of a cut file.
    pub bytes_lost: u64,
    /// Records skipped.
    pub records_skipped: u64,
    /// The description record's damage and what was kept of it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description_damage: Option<String>,
}

/// The recording's calibration, in short.
#[derive(Debug, Serialize)]
pub struct CalibReport {
    /// The device serial.
    pub serial: String,
    /// The cameras.
    pub cameras: Vec<CameraReport>,
    /// IMU labels.
    pub imus: Vec<String>,
    /// Magnetometer labels.
    pub magnetometers: Vec<String>,
    /// Barometer labels.
    pub barometers: Vec<String>,
}

/// One camera of the calibration.
#[derive(Debug, Serialize)]
pub struct CameraReport {
    /// The camera's label.
    pub label: String,
    /// The projection model's name.
    pub model: String,
    /// Image width, px.
    pub width: u32,
    /// Image height, px.
    pub height: u32,
}

/// What `path` (a `.vrs` file or a session folder) holds; a calibration that does not parse
/// goes to the log and is shown as none.
pub fn inspect(path: &Path) -> Result<SessionReport, InspectError> {
    let files = SessionFiles::locate(path)?;
    let rec = AriaRecording::open(&files.recording).map_err(|e| InspectError::Open {
        path: files.recording.clone(),
        source: Box::new(e),
    })?;
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
    let calibration = match crate::aria::recorded_calib::recording_calibration(&rec) {
        Ok(c) => c.as_ref().map(calib_report),
        Err(e) => {
            log::warn!("{}: calib_json tag: {e}", files.recording.display());
            None
        }
    };
    let rep = vrs.recovery();
    Ok(SessionReport {
        recording: files.recording.clone(),
        file_format: format_version(vrs.file_format_version()),
        file_size_bytes,
        tags,
        recovery: Recovery {
            index: format!("{:?}", rep.index_source),
            bytes_lost: rep.bytes_lost,
            records_skipped: rep.records_skipped,
            description_damage: rep.description_damage.clone(),
        },
        streams,
        calibration,
        mps_dir: files.mps_dir.clone(),
        mps: mps_summaries(&files.mps),
    })
}

impl SessionReport {
    /// The report as tables: file, tags, index, streams, calibration, MPS files (each line
    /// ending in a newline).
    pub fn to_table(&self) -> String {
        render(self)
    }
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

fn render(r: &SessionReport) -> String {
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
    if let Some(damage) = &r.recovery.description_damage {
        let _ = writeln!(o, "  description record damaged: {damage}");
    }
    let _ = writeln!(o, "\nstreams:");
    let _ = writeln!(
        o,
        "  {:<8} {:<26} {:>8} {:>10} {:>10} {:>16} {:>16} {:>11}",
        "id", "name", "records", "nominal", "measured", "first_ns", "last_ns", "image"
    );
    // Numeric order of (recordable type id, instance), as VRS tools list streams.
    let mut rows: Vec<_> = r.streams.iter().collect();
    rows.sort_by_key(|(id, _)| {
        id.parse::<crate::aria::vrs::VrsStreamId>()
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
