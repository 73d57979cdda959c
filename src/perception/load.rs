//! What a session folder gives perception (I/O): the recording's calibration (cameras at
//! the recorded resolution) and the MPS semi-dense points, with each point's first
//! observation time from `semidense_observations` when that file exists.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use super::config::PerceptionConfig;
use super::engine::Perception;
use super::error::PerceptionError;
use super::points::{MapPoint, PointMap};
use super::sensors::SensorModels;
use crate::aria::mps::semidense::ObservationReader;
use crate::aria::mps::{read_semidense_points_partial, MpsFiles, PointFilter};
use crate::aria::recorded_calib::recording_calibration;
use crate::aria::recording::AriaRecording;
use crate::sample::StreamId;
use crate::source::session_files::SessionFiles;

/// Perception's inputs from a session.
#[derive(Clone, Debug, Default)]
pub struct PerceptionInputs {
    /// Sensor models (identity guesses without a calibration).
    pub models: SensorModels,
    /// The point map, when the session has semi-dense points.
    pub points: Option<Arc<PointMap>>,
    /// What could not be loaded and was left out, one line each (for the log).
    pub notes: Vec<String>,
}

impl PerceptionInputs {
    /// Loads the calibration and points of the session at `path` (a folder or a `.vrs`).
    /// A missing or unreadable calibration or point file is a note, not an error; an
    /// unreadable recording is an error naming the file.
    pub fn from_session(path: &Path) -> Result<Self, PerceptionError> {
        let files = SessionFiles::locate(path)?;
        let rec =
            AriaRecording::open(&files.recording).map_err(|e| PerceptionError::Recording {
                path: files.recording.clone(),
                message: e.to_string(),
            })?;
        let mut notes = Vec::new();
        // A damaged calibration is reported and left out: the sensor axes are assumed, as
        // for a recording without one.
        let models = match recording_calibration(&rec) {
            Ok(Some(c)) => SensorModels::from_calibration(&c),
            Ok(None) => {
                notes.push(format!(
                    "{}: no calibration (calib_json tag): sensor axes assumed",
                    files.recording.display()
                ));
                SensorModels::default()
            }
            Err(e) => {
                notes.push(format!(
                    "{}: calibration unreadable, left out ({e}): sensor axes assumed",
                    files.recording.display()
                ));
                SensorModels::default()
            }
        };
        let points = load_points(&files.mps, &mut notes)?.map(Arc::new);
        Ok(Self {
            models,
            points,
            notes,
        })
    }
}

impl PerceptionInputs {
    /// An engine over these inputs for a session with `streams` (e.g.
    /// `ReplaySource::streams()`), so its limitations are right from the first tick.
    pub fn engine(self, cfg: PerceptionConfig, streams: &[StreamId]) -> Perception {
        Perception::new(cfg, self.models, self.points).with_streams(streams)
    }
}

/// The semi-dense map of `mps` (nominal quality filter), causal when observations exist.
/// An unreadable observations file leaves the map non-causal, with a note; a damaged points
/// file keeps the points before the damage, with a note.
pub fn load_points(
    mps: &MpsFiles,
    notes: &mut Vec<String>,
) -> Result<Option<PointMap>, PerceptionError> {
    let Some(path) = &mps.semidense_points else {
        notes.push("no semi-dense points in the MPS folder".to_string());
        return Ok(None);
    };
    // Points are optional: a damaged file (or one past its size budget) keeps the points
    // read before the damage, with a note; none read leaves the map out.
    let partial = read_semidense_points_partial(path, PointFilter::NOMINAL);
    let pts = match partial.error {
        None => partial.items,
        Some(e) if partial.items.is_empty() => {
            notes.push(format!("{e}: semi-dense points left out"));
            return Ok(None);
        }
        Some(e) => {
            notes.push(format!(
                "{e}: the {} points read before it are used, the rest left out",
                partial.items.len()
            ));
            partial.items
        }
    };
    let first_seen = match &mps.semidense_observations {
        Some(obs) => match observation_times(obs) {
            Ok(m) => Some(m),
            Err(e) => {
                notes.push(format!("{e}: points used without observation times"));
                None
            }
        },
        None => {
            notes.push(format!(
                "{}: no semidense_observations: the whole map is used from the start",
                path.display()
            ));
            None
        }
    };
    let causal = first_seen.is_some();
    let map = PointMap::with_confirmations(
        pts.iter().map(|p| {
            let (first, again) = match &first_seen {
                Some(m) => m.get(&p.uid).copied().unwrap_or((i64::MAX, i64::MAX)),
                None => (i64::MIN, i64::MIN),
            };
            let mp = MapPoint {
                p: [
                    p.position_world_m.x as f32,
                    p.position_world_m.y as f32,
                    p.position_world_m.z as f32,
                ],
                first_seen_ns: first,
            };
            (mp, again)
        }),
        causal,
    );
    Ok(Some(map))
}

/// The earliest observation time (ns) of every point id in an observations file, and the
/// earliest later one (another frame's; `i64::MAX` when it was seen at one moment only).
pub fn observation_times(path: &Path) -> Result<HashMap<u64, (i64, i64)>, PerceptionError> {
    let mut out: HashMap<u64, (i64, i64)> = HashMap::new();
    for row in ObservationReader::open(path)? {
        let o = row?;
        let t = o.frame_tracking_time.ns();
        let e = out.entry(o.uid).or_insert((t, i64::MAX));
        if t < e.0 {
            *e = (t, e.0);
        } else if t > e.0 && t < e.1 {
            e.1 = t;
        }
    }
    Ok(out)
}

/// The earliest observation time (ns) of every point id in an observations file.
pub fn first_observations(path: &Path) -> Result<HashMap<u64, i64>, PerceptionError> {
    let mut out: HashMap<u64, i64> = HashMap::new();
    for row in ObservationReader::open(path)? {
        let o = row?;
        let t = o.frame_tracking_time.ns();
        out.entry(o.uid)
            .and_modify(|v| *v = (*v).min(t))
            .or_insert(t);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn observations_give_first_times_and_bad_files_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("semidense_observations.csv");
        std::fs::write(
            &p,
            "uid,frame_tracking_timestamp_us,camera_serial,u,v\n\
             7,300,a,1,2\n7,100,b,1,2\n9,200,a,3,4\n",
        )
        .unwrap();
        let m = first_observations(&p).unwrap();
        assert_eq!(m.get(&7), Some(&100_000));
        assert_eq!(m.get(&9), Some(&200_000));
        // Point 7 seen at two moments (the second is 300 µs), 9 at one (two cameras, one
        // frame), 5 at three, given out of order.
        std::fs::write(
            &p,
            "uid,frame_tracking_timestamp_us,camera_serial,u,v\n\
             7,300,a,1,2\n7,100,b,1,2\n9,200,a,3,4\n9,200,b,3,4\n\
             5,900,a,1,1\n5,700,a,1,1\n5,500,b,1,1\n",
        )
        .unwrap();
        let m = observation_times(&p).unwrap();
        assert_eq!(m.get(&7), Some(&(100_000, 300_000)));
        assert_eq!(m.get(&9), Some(&(200_000, i64::MAX)));
        assert_eq!(m.get(&5), Some(&(500_000, 700_000)));
        std::fs::write(
            &p,
            "uid,frame_tracking_timestamp_us,camera_serial,u,v\n7,x,a,1,2\n",
        )
        .unwrap();
        let e = first_observations(&p).unwrap_err().to_string();
        assert!(e.contains("semidense_observations.csv"), "{e}");
    }
}
