//! MPS semi-dense point cloud (`semidense_points.csv.gz`, older name `global_points.csv.gz`;
//! plain `.csv` also accepted), decoded while streaming through gzip so only the kept points
//! are held in memory, and semi-dense observations (`semidense_observations.csv.gz`).

use std::path::Path;

use nalgebra::Vector3;

use super::csv_table::{read_partial, Col, CsvRecords, Header, Partial, Row, RowDecoder};
use super::error::MpsError;
use crate::time::DeviceTime;

/// One point of the semi-dense map, world frame.
#[derive(Debug, Clone, PartialEq)]
pub struct SemidensePoint {
    /// Point id (joins with observations).
    pub uid: u64,
    /// The SLAM map (world frame) the point belongs to.
    pub graph_uid: String,
    /// Position, metres, world frame of `graph_uid`.
    pub position_world_m: Vector3<f64>,
    /// Standard deviation of the inverse distance, 1/m.
    pub inv_dist_std: f32,
    /// Standard deviation of the distance, m.
    pub dist_std: f32,
}

/// Quality thresholds on the point uncertainties. A point is kept when
/// `inv_dist_std ≤ max_inv_dist_std` **and** `dist_std ≤ max_dist_std`, compared at the f32
/// precision the values are stored with, so a file value written equal to the threshold
/// (e.g. `0.001000`) passes. On real files this equals projectaria_tools'
/// `filter_points_from_confidence`, whose strict comparison of its f32 values lets such
/// values through by rounding (checked against it on the sample for two threshold pairs).
/// NaN uncertainties never pass a finite threshold.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct PointFilter {
    /// Upper bound (inclusive) on `inv_dist_std`, 1/m.
    pub max_inv_dist_std: f64,
    /// Upper bound (inclusive) on `dist_std`, m.
    pub max_dist_std: f64,
}

impl PointFilter {
    /// MPS nominal quality filter: `inv_dist_std ≤ 0.005`, `dist_std ≤ 0.01`.
    pub const NOMINAL: PointFilter = PointFilter {
        max_inv_dist_std: 0.005,
        max_dist_std: 0.01,
    };
    /// The defaults of projectaria_tools' `filter_points_from_confidence` (0.001, 0.05).
    pub const PROJECTARIA_TOOLS_DEFAULT: PointFilter = PointFilter {
        max_inv_dist_std: 0.001,
        max_dist_std: 0.05,
    };

    /// Keeps every point (infinite thresholds; NaN uncertainties are kept too).
    pub const fn none() -> Self {
        PointFilter {
            max_inv_dist_std: f64::INFINITY,
            max_dist_std: f64::INFINITY,
        }
    }

    /// True when the point passes.
    pub fn keeps(&self, p: &SemidensePoint) -> bool {
        if self.max_inv_dist_std == f64::INFINITY && self.max_dist_std == f64::INFINITY {
            return true;
        }
        p.inv_dist_std <= self.max_inv_dist_std as f32 && p.dist_std <= self.max_dist_std as f32
    }
}

impl Default for PointFilter {
    /// [`PointFilter::NOMINAL`].
    fn default() -> Self {
        Self::NOMINAL
    }
}

/// Column layout of a semi-dense points file.
#[derive(Debug, Clone)]
pub struct SemidenseDecoder {
    uid: Col,
    graph_uid: Col,
    position: [Col; 3],
    inv_dist_std: Col,
    dist_std: Col,
}

const POINTS: &str = "semi-dense points";

impl RowDecoder for SemidenseDecoder {
    type Item = SemidensePoint;

    fn from_header(h: &Header) -> Result<Self, MpsError> {
        Ok(Self {
            uid: h.require("uid", POINTS)?,
            graph_uid: h.require("graph_uid", POINTS)?,
            position: h.require3(["px_world", "py_world", "pz_world"], POINTS)?,
            inv_dist_std: h.require("inv_dist_std", POINTS)?,
            dist_std: h.require("dist_std", POINTS)?,
        })
    }

    fn decode(&self, row: &Row<'_>) -> Result<SemidensePoint, MpsError> {
        Ok(SemidensePoint {
            uid: row.u64(self.uid)?,
            graph_uid: row.str(self.graph_uid)?.to_string(),
            position_world_m: row.vec3(self.position)?,
            inv_dist_std: row.f32(self.inv_dist_std)?,
            dist_std: row.f32(self.dist_std)?,
        })
    }
}

/// Streaming semi-dense point reader (all points, unfiltered).
pub type SemidenseReader = CsvRecords<SemidenseDecoder>;

/// Reads the points that pass `filter`; fails on the first bad row.
pub fn read_semidense_points(
    path: impl AsRef<Path>,
    filter: PointFilter,
) -> Result<Vec<SemidensePoint>, MpsError> {
    read_semidense_points_partial(path, filter).into_result()
}

/// Reads the points that pass `filter`, keeping every point before the first error.
pub fn read_semidense_points_partial(
    path: impl AsRef<Path>,
    filter: PointFilter,
) -> Partial<SemidensePoint> {
    let path = path.as_ref();
    match SemidenseReader::open(path) {
        Ok(reader) => Partial::from_results(reader.filter(|r| match r {
            Ok(p) => filter.keeps(p),
            Err(_) => true,
        })),
        Err(e) => Partial {
            items: Vec::new(),
            error: Some(e),
        },
    }
}

/// One observation of a semi-dense point in a camera image.
#[derive(Debug, Clone, PartialEq)]
pub struct PointObservation {
    /// The observed point's `uid`.
    pub uid: u64,
    /// Capture time of the frame.
    pub frame_tracking_time: DeviceTime,
    /// Serial number of the observing camera.
    pub camera_serial: String,
    /// Pixel coordinates `(u, v)` in that camera.
    pub uv_px: [f32; 2],
}

/// Column layout of `semidense_observations.csv.gz`.
#[derive(Debug, Clone)]
pub struct ObservationDecoder {
    uid: Col,
    time: Col,
    serial: Col,
    u: Col,
    v: Col,
}

const OBS: &str = "semi-dense observations";

impl RowDecoder for ObservationDecoder {
    type Item = PointObservation;

    fn from_header(h: &Header) -> Result<Self, MpsError> {
        Ok(Self {
            uid: h.require("uid", OBS)?,
            time: h.require("frame_tracking_timestamp_us", OBS)?,
            serial: h.require("camera_serial", OBS)?,
            u: h.require("u", OBS)?,
            v: h.require("v", OBS)?,
        })
    }

    fn decode(&self, row: &Row<'_>) -> Result<PointObservation, MpsError> {
        Ok(PointObservation {
            uid: row.u64(self.uid)?,
            frame_tracking_time: DeviceTime::from_us(row.i64(self.time)?),
            camera_serial: row.str(self.serial)?.to_string(),
            uv_px: [row.f32(self.u)?, row.f32(self.v)?],
        })
    }
}

/// Streaming reader of semi-dense observations.
pub type ObservationReader = CsvRecords<ObservationDecoder>;

/// Reads all semi-dense observations; fails on the first bad row.
pub fn read_point_observations(path: impl AsRef<Path>) -> Result<Vec<PointObservation>, MpsError> {
    read_partial::<ObservationDecoder>(path.as_ref()).into_result()
}
