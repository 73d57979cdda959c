//! Device trajectories: `open_loop_trajectory.csv` (odometry frame, drifts, no loop closure)
//! and `closed_loop_trajectory.csv` (world frame of one SLAM map). The schema is detected
//! from the header (`tx_world_device` ⇒ closed loop, `tx_odometry_device` ⇒ open loop).
//!
//! Quaternions are read from the `qx, qy, qz, qw` columns (by name) and normalised; a zero or
//! NaN quaternion yields a NaN rotation rather than an error (the row is kept as written).

use std::path::Path;

use nalgebra::{Isometry3, Quaternion, Translation3, UnitQuaternion, Vector3};

use super::csv_table::{Col, CsvRecords, Header, Partial, Row, RowDecoder};
use super::error::MpsError;
use crate::sample::PoseSample;
use crate::time::DeviceTime;

/// Which trajectory file a pose came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TrajectoryKind {
    /// `open_loop_trajectory.csv`: poses in the odometry frame.
    OpenLoop,
    /// `closed_loop_trajectory.csv`: poses in the world frame of `graph_uid`.
    ClosedLoop,
}

/// One 6-DoF device pose of an MPS trajectory.
#[derive(Debug, Clone, PartialEq)]
pub struct TrajectoryPose {
    /// Device capture time (`tracking_timestamp_us`).
    pub tracking_time: DeviceTime,
    /// UTC time in ns (`utc_timestamp_ns`), `None` when absent, empty or −1 (unknown).
    pub utc_ns: Option<i64>,
    /// Closed loop: `graph_uid` (identifies the world frame). Open loop: `session_uid`
    /// (identifies the odometry frame). `None` when the column is absent or empty.
    pub graph_uid: Option<String>,
    /// `T_world_device` (closed loop) or `T_odometry_device` (open loop), metres.
    pub t_world_device: Isometry3<f64>,
    /// Linear velocity in m/s: **device frame** for closed loop
    /// (`device_linear_velocity_*_device`), **odometry frame** for open loop
    /// (`device_linear_velocity_*_odometry`).
    pub linear_velocity_mps: Vector3<f64>,
    /// Angular velocity, rad/s, device frame.
    pub angular_velocity_device_radps: Vector3<f64>,
    /// Gravity in m/s² in the world (closed loop) or odometry (open loop) frame.
    pub gravity_world_mps2: Vector3<f64>,
    /// Tracking quality in [0, 1]; NaN when the file has no `quality_score` column.
    pub quality_score: f32,
    /// Which file kind the pose came from.
    pub kind: TrajectoryKind,
}

impl TrajectoryPose {
    /// The pose as a runtime [`PoseSample`] payload.
    pub fn to_sample(&self) -> PoseSample {
        let f = |v: &Vector3<f64>| [v.x as f32, v.y as f32, v.z as f32];
        PoseSample {
            t_world_device: self.t_world_device,
            linear_velocity_mps: f(&self.linear_velocity_mps),
            angular_velocity_radps: f(&self.angular_velocity_device_radps),
            quality: self.quality_score,
        }
    }
}

/// Column layout of a trajectory file (found by name).
#[derive(Debug, Clone)]
pub struct TrajectoryDecoder {
    kind: TrajectoryKind,
    time: Col,
    utc: Option<Col>,
    uid: Option<Col>,
    t: [Col; 3],
    q: [Col; 4],
    v: [Col; 3],
    w: [Col; 3],
    g: [Col; 3],
    quality: Option<Col>,
}

impl TrajectoryDecoder {
    /// The detected trajectory kind.
    pub fn kind(&self) -> TrajectoryKind {
        self.kind
    }
}

impl RowDecoder for TrajectoryDecoder {
    type Item = TrajectoryPose;

    fn from_header(h: &Header) -> Result<Self, MpsError> {
        let (kind, frame, vel_frame, uid, schema) = if h.has("tx_world_device") {
            (
                TrajectoryKind::ClosedLoop,
                "world_device",
                "device",
                "graph_uid",
                "closed-loop trajectory",
            )
        } else if h.has("tx_odometry_device") {
            (
                TrajectoryKind::OpenLoop,
                "odometry_device",
                "odometry",
                "session_uid",
                "open-loop trajectory",
            )
        } else {
            return Err(MpsError::UnknownSchema {
                path: h.path().to_path_buf(),
                what: "trajectory",
                detail: "neither `tx_world_device` (closed loop) nor `tx_odometry_device` (open loop) is a column".into(),
            });
        };
        let gravity_frame = match kind {
            TrajectoryKind::ClosedLoop => "world",
            TrajectoryKind::OpenLoop => "odometry",
        };
        let n = |p: &str| format!("{p}_{frame}");
        Ok(Self {
            kind,
            time: h.require("tracking_timestamp_us", schema)?,
            utc: h.find("utc_timestamp_ns"),
            uid: h.find(uid),
            t: h.require3([&n("tx"), &n("ty"), &n("tz")], schema)?,
            q: [
                h.require(&n("qx"), schema)?,
                h.require(&n("qy"), schema)?,
                h.require(&n("qz"), schema)?,
                h.require(&n("qw"), schema)?,
            ],
            v: h.require3(
                [
                    &format!("device_linear_velocity_x_{vel_frame}"),
                    &format!("device_linear_velocity_y_{vel_frame}"),
                    &format!("device_linear_velocity_z_{vel_frame}"),
                ],
                schema,
            )?,
            w: h.require3(
                [
                    "angular_velocity_x_device",
                    "angular_velocity_y_device",
                    "angular_velocity_z_device",
                ],
                schema,
            )?,
            g: h.require3(
                [
                    &format!("gravity_x_{gravity_frame}"),
                    &format!("gravity_y_{gravity_frame}"),
                    &format!("gravity_z_{gravity_frame}"),
                ],
                schema,
            )?,
            quality: h.find("quality_score"),
        })
    }

    fn decode(&self, row: &Row<'_>) -> Result<TrajectoryPose, MpsError> {
        let t = row.vec3(self.t)?;
        let q = Quaternion::new(
            row.f64(self.q[3])?,
            row.f64(self.q[0])?,
            row.f64(self.q[1])?,
            row.f64(self.q[2])?,
        );
        let rotation = UnitQuaternion::new_normalize(q);
        Ok(TrajectoryPose {
            tracking_time: DeviceTime::from_us(row.i64(self.time)?),
            utc_ns: row.opt_i64(self.utc)?.filter(|&v| v >= 0),
            graph_uid: row.opt_string(self.uid)?,
            t_world_device: Isometry3::from_parts(Translation3::from(t), rotation),
            linear_velocity_mps: row.vec3(self.v)?,
            angular_velocity_device_radps: row.vec3(self.w)?,
            gravity_world_mps2: row.vec3(self.g)?,
            quality_score: match self.quality {
                Some(c) => row.f32(c)?,
                None => f32::NAN,
            },
            kind: self.kind,
        })
    }
}

/// Streaming reader of a trajectory CSV (open or closed loop, detected from the header):
/// an iterator over poses, one row in memory at a time, in file order. Ends after the first
/// error, which names the file and line.
#[derive(Debug)]
pub struct TrajectoryReader {
    inner: CsvRecords<TrajectoryDecoder>,
}

impl TrajectoryReader {
    /// Opens a trajectory file (plain or `.gz`) and reads its header.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, MpsError> {
        Ok(Self {
            inner: CsvRecords::open(path)?,
        })
    }

    /// Open or closed loop, as detected from the header.
    pub fn kind(&self) -> TrajectoryKind {
        self.inner.decoder().kind()
    }
}

impl Iterator for TrajectoryReader {
    type Item = Result<TrajectoryPose, MpsError>;
    fn next(&mut self) -> Option<Self::Item> {
        self.inner.next()
    }
}

impl std::iter::FusedIterator for TrajectoryReader {}

/// Reads a whole trajectory file; fails on the first bad row (see [`read_trajectory_partial`]).
pub fn read_trajectory(path: impl AsRef<Path>) -> Result<Vec<TrajectoryPose>, MpsError> {
    read_trajectory_partial(path).into_result()
}

/// Reads a trajectory file, keeping every pose before the first error.
pub fn read_trajectory_partial(path: impl AsRef<Path>) -> Partial<TrajectoryPose> {
    super::csv_table::read_partial::<TrajectoryDecoder>(path.as_ref())
}
