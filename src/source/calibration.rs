//! A path's device calibration (`vista calib`): a calibration JSON file as it is, or a
//! recording's (or session folder's) `calib_json` tag with every camera calibrated for the
//! resolution recorded in that file.

use std::path::{Path, PathBuf};

use crate::aria::calib::{CalibError, CalibSource, DeviceCalibration};
use crate::aria::recorded_calib::recorded_camera_sizes;
use crate::aria::recording::{AriaRecording, RecordingError};
use crate::source::session_files::{SessionError, SessionFiles};

/// A calibration and where it came from.
#[derive(Clone, Debug)]
pub struct LoadedCalibration {
    /// The calibration.
    pub device: DeviceCalibration,
    /// Where it was read: the file's name, or e.g. `rec.vrs: calib_json`.
    pub source: String,
}

/// What can go wrong reading a calibration.
#[derive(Debug, thiserror::Error)]
pub enum CalibLoadError {
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
    /// The recording carries no calibration.
    #[error("{path}: the recording has no calib_json tag", path = path.display())]
    NoCalibration {
        /// The recording.
        path: PathBuf,
    },
    /// The calibration file could not be read.
    #[error("{path}: cannot read calibration file", path = path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// The calibration does not parse.
    #[error(transparent)]
    Calib(#[from] CalibError),
}

/// The calibration of `path`: a `.vrs` recording or a session folder (its `calib_json` tag,
/// cameras resized to the recorded resolutions), else a calibration JSON file.
pub fn load_calibration(path: &Path) -> Result<LoadedCalibration, CalibLoadError> {
    let is_vrs = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("vrs"));
    if is_vrs || path.is_dir() {
        let files = SessionFiles::locate(path)?;
        let rec = AriaRecording::open(&files.recording).map_err(|e| CalibLoadError::Open {
            path: files.recording.clone(),
            source: Box::new(e),
        })?;
        let Some(json) = rec.calib_json() else {
            return Err(CalibLoadError::NoCalibration {
                path: files.recording.clone(),
            });
        };
        let sizes = recorded_camera_sizes(&rec);
        let source = format!("{}: calib_json", files.recording.display());
        return from_json(json, source, &sizes);
    }
    let json = std::fs::read_to_string(path).map_err(|source| CalibLoadError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    from_json(&json, path.display().to_string(), &[])
}

/// Parses calibration JSON text from `source`, then resizes cameras to the sizes a
/// recording stores (`(label, width, height)`, see
/// [`DeviceCalibration::with_recorded_sizes`]).
fn from_json(
    json: &str,
    source: String,
    recorded_sizes: &[(String, u32, u32)],
) -> Result<LoadedCalibration, CalibLoadError> {
    let device =
        DeviceCalibration::from_json_str_with_source(json, CalibSource::Named(source.clone()))?
            .with_recorded_sizes(recorded_sizes)?;
    Ok(LoadedCalibration { device, source })
}
