//! MPS `wrist_and_palm_poses.csv`, v1 (positions) and v2 (plus palm and wrist normals),
//! detected from the header. A hand whose tracking confidence is not > 0 (MPS writes −1 for
//! a missing hand) is `None`, as in projectaria_tools' reader. Units: metres, device frame.

use std::path::Path;

use nalgebra::Vector3;

use super::csv_table::{read_partial, Col, Header, Partial, Row, RowDecoder};
use super::error::MpsError;
use crate::sample::{HandSample, WristPalm};
use crate::time::DeviceTime;

/// Wrist and palm of one tracked hand.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HandWristPalm {
    /// Tracking confidence in (0, 1].
    pub confidence: f32,
    /// Wrist position, metres, device frame.
    pub wrist_device_m: Vector3<f64>,
    /// Palm centre, metres, device frame.
    pub palm_device_m: Vector3<f64>,
    /// Wrist normal, device frame (v2 files only).
    pub wrist_normal: Option<Vector3<f64>>,
    /// Palm normal, device frame (v2 files only).
    pub palm_normal: Option<Vector3<f64>>,
}

impl HandWristPalm {
    fn to_sample(self) -> WristPalm {
        let f = |v: Vector3<f64>| [v.x as f32, v.y as f32, v.z as f32];
        WristPalm {
            confidence: self.confidence,
            wrist_m: f(self.wrist_device_m),
            palm_m: f(self.palm_device_m),
        }
    }
}

/// One row of `wrist_and_palm_poses.csv`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WristAndPalm {
    /// Device capture time (SLAM camera frame time).
    pub tracking_time: DeviceTime,
    /// Left hand, when tracked.
    pub left: Option<HandWristPalm>,
    /// Right hand, when tracked.
    pub right: Option<HandWristPalm>,
}

impl WristAndPalm {
    /// Both hands as a runtime [`HandSample`].
    pub fn to_sample(&self) -> HandSample {
        HandSample {
            left: self.left.map(HandWristPalm::to_sample),
            right: self.right.map(HandWristPalm::to_sample),
        }
    }
}

/// Normal columns of one hand (`n{x,y,z}_{side}_{palm,wrist}_device`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct NormalCols {
    pub(crate) palm: [Col; 3],
    pub(crate) wrist: [Col; 3],
}

impl NormalCols {
    /// Both hands' normal columns, or `None` when the file has no normals (v1). If some
    /// but not all normal columns exist, the first missing one is an error.
    pub(crate) fn find(
        h: &Header,
        schema: &'static str,
    ) -> Result<Option<[NormalCols; 2]>, MpsError> {
        let any = ["left", "right"].iter().any(|s| {
            ["palm", "wrist"].iter().any(|p| {
                ["nx", "ny", "nz"]
                    .iter()
                    .any(|n| h.has(&format!("{n}_{s}_{p}_device")))
            })
        });
        if !any {
            return Ok(None);
        }
        let side = |s: &str| -> Result<NormalCols, MpsError> {
            let cols = |p: &str| {
                h.require3(
                    [
                        &format!("nx_{s}_{p}_device"),
                        &format!("ny_{s}_{p}_device"),
                        &format!("nz_{s}_{p}_device"),
                    ],
                    schema,
                )
            };
            Ok(NormalCols {
                palm: cols("palm")?,
                wrist: cols("wrist")?,
            })
        };
        Ok(Some([side("left")?, side("right")?]))
    }
}

#[derive(Debug, Clone, Copy)]
struct SideCols {
    confidence: Col,
    wrist: [Col; 3],
    palm: [Col; 3],
}

/// Column layout of a wrist-and-palm file (found by name).
#[derive(Debug, Clone)]
pub struct WristAndPalmDecoder {
    time: Col,
    sides: [SideCols; 2],
    normals: Option<[NormalCols; 2]>,
}

impl WristAndPalmDecoder {
    /// 1 for files without normals, 2 for files with them.
    pub fn version(&self) -> u8 {
        if self.normals.is_some() {
            2
        } else {
            1
        }
    }
}

const SCHEMA: &str = "wrist and palm poses";

impl RowDecoder for WristAndPalmDecoder {
    type Item = WristAndPalm;

    fn from_header(h: &Header) -> Result<Self, MpsError> {
        let side = |s: &str| -> Result<SideCols, MpsError> {
            let p = |k: &str, part: &str| format!("{k}_{s}_{part}_device");
            Ok(SideCols {
                confidence: h.require(&format!("{s}_tracking_confidence"), SCHEMA)?,
                wrist: h.require3(
                    [&p("tx", "wrist"), &p("ty", "wrist"), &p("tz", "wrist")],
                    SCHEMA,
                )?,
                palm: h.require3(
                    [&p("tx", "palm"), &p("ty", "palm"), &p("tz", "palm")],
                    SCHEMA,
                )?,
            })
        };
        Ok(Self {
            time: h.require("tracking_timestamp_us", SCHEMA)?,
            sides: [side("left")?, side("right")?],
            normals: NormalCols::find(h, SCHEMA)?,
        })
    }

    fn decode(&self, row: &Row<'_>) -> Result<WristAndPalm, MpsError> {
        let mut hands = [None, None];
        for (i, (c, hand)) in self.sides.iter().zip(hands.iter_mut()).enumerate() {
            let confidence = row.f32(c.confidence)?;
            let wrist = row.vec3(c.wrist)?;
            let palm = row.vec3(c.palm)?;
            let (wrist_normal, palm_normal) = match self.normals.as_ref().and_then(|n| n.get(i)) {
                Some(n) => (Some(row.vec3(n.wrist)?), Some(row.vec3(n.palm)?)),
                None => (None, None),
            };
            if confidence > 0.0 {
                *hand = Some(HandWristPalm {
                    confidence,
                    wrist_device_m: wrist,
                    palm_device_m: palm,
                    wrist_normal,
                    palm_normal,
                });
            }
        }
        let [left, right] = hands;
        Ok(WristAndPalm {
            tracking_time: DeviceTime::from_us(row.i64(self.time)?),
            left,
            right,
        })
    }
}

/// Streaming wrist-and-palm reader: an iterator of [`WristAndPalm`] in file order.
pub type WristAndPalmReader = super::csv_table::CsvRecords<WristAndPalmDecoder>;

/// Reads a whole `wrist_and_palm_poses.csv` (v1 or v2); fails on the first bad row.
pub fn read_wrist_and_palm(path: impl AsRef<Path>) -> Result<Vec<WristAndPalm>, MpsError> {
    read_wrist_and_palm_partial(path).into_result()
}

/// Reads a wrist-and-palm file, keeping every row before the first error.
pub fn read_wrist_and_palm_partial(path: impl AsRef<Path>) -> Partial<WristAndPalm> {
    read_partial::<WristAndPalmDecoder>(path.as_ref())
}
