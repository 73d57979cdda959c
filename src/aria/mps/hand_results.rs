//! MPS `hand_tracking_results.csv`: 21 landmarks and `T_device_wrist` per hand, v1 (143
//! columns) and v2 (plus palm and wrist normals, 155 columns), detected from the header. A
//! hand whose confidence is not > 0 is `None` (as projectaria_tools). Units: metres, device
//! frame. Landmark order (MPS): 0–4 fingertips thumb→pinky, 5 wrist, 6–7 thumb
//! intermediate/distal, 8–10 index, 11–13 middle, 14–16 ring, 17–19 pinky
//! (proximal/intermediate/distal), 20 palm centre.

use std::path::Path;

use nalgebra::{Isometry3, Quaternion, Translation3, UnitQuaternion, Vector3};

use super::csv_table::{read_partial, Col, Header, Partial, Row, RowDecoder};
use super::error::MpsError;
use super::wrist_palm::NormalCols;
use crate::time::DeviceTime;

/// Number of hand landmarks.
pub const NUM_HAND_LANDMARKS: usize = 21;
/// Index of the wrist landmark.
pub const WRIST_LANDMARK: usize = 5;
/// Index of the palm-centre landmark.
pub const PALM_CENTER_LANDMARK: usize = 20;

/// Palm and wrist normals of one hand (v2 files).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WristPalmNormals {
    /// Wrist normal, device frame.
    pub wrist_normal_device: Vector3<f64>,
    /// Palm normal, device frame.
    pub palm_normal_device: Vector3<f64>,
}

/// One tracked hand.
#[derive(Debug, Clone, PartialEq)]
pub struct HandLandmarks {
    /// Tracking confidence in (0, 1].
    pub confidence: f32,
    /// The 21 landmarks, metres, device frame (order in the module doc).
    pub landmarks_device_m: [Vector3<f64>; NUM_HAND_LANDMARKS],
    /// Pose of the wrist in the device frame (quaternion normalised).
    pub t_device_wrist: Isometry3<f64>,
    /// Palm and wrist normals (v2 files only).
    pub normals: Option<WristPalmNormals>,
}

impl HandLandmarks {
    /// Wrist position (landmark 5), metres, device frame.
    pub fn wrist_device_m(&self) -> Vector3<f64> {
        self.landmarks_device_m[WRIST_LANDMARK]
    }
    /// Palm centre (landmark 20), metres, device frame.
    pub fn palm_device_m(&self) -> Vector3<f64> {
        self.landmarks_device_m[PALM_CENTER_LANDMARK]
    }
}

/// One row of `hand_tracking_results.csv`.
#[derive(Debug, Clone, PartialEq)]
pub struct HandTrackingResult {
    /// Device capture time (SLAM camera frame time).
    pub tracking_time: DeviceTime,
    /// Left hand, when tracked.
    pub left: Option<HandLandmarks>,
    /// Right hand, when tracked.
    pub right: Option<HandLandmarks>,
}

#[derive(Debug, Clone)]
struct SideCols {
    confidence: Col,
    landmarks: Vec<[Col; 3]>,
    translation: [Col; 3],
    rotation_xyzw: [Col; 4],
}

/// Column layout of a hand-tracking-results file (found by name).
#[derive(Debug, Clone)]
pub struct HandTrackingDecoder {
    time: Col,
    sides: [SideCols; 2],
    normals: Option<[NormalCols; 2]>,
}

impl HandTrackingDecoder {
    /// 1 for files without normals, 2 for files with them.
    pub fn version(&self) -> u8 {
        if self.normals.is_some() {
            2
        } else {
            1
        }
    }
}

const SCHEMA: &str = "hand tracking results";

fn side_cols(h: &Header, s: &str) -> Result<SideCols, MpsError> {
    let mut landmarks = Vec::with_capacity(NUM_HAND_LANDMARKS);
    for i in 0..NUM_HAND_LANDMARKS {
        landmarks.push(h.require3(
            [
                &format!("tx_{s}_landmark_{i}_device"),
                &format!("ty_{s}_landmark_{i}_device"),
                &format!("tz_{s}_landmark_{i}_device"),
            ],
            SCHEMA,
        )?);
    }
    let w = |k: &str| h.require(&format!("{k}_{s}_device_wrist"), SCHEMA);
    Ok(SideCols {
        confidence: h.require(&format!("{s}_tracking_confidence"), SCHEMA)?,
        landmarks,
        translation: [w("tx")?, w("ty")?, w("tz")?],
        rotation_xyzw: [w("qx")?, w("qy")?, w("qz")?, w("qw")?],
    })
}

impl RowDecoder for HandTrackingDecoder {
    type Item = HandTrackingResult;

    fn from_header(h: &Header) -> Result<Self, MpsError> {
        Ok(Self {
            time: h.require("tracking_timestamp_us", SCHEMA)?,
            sides: [side_cols(h, "left")?, side_cols(h, "right")?],
            normals: NormalCols::find(h, SCHEMA)?,
        })
    }

    fn decode(&self, row: &Row<'_>) -> Result<HandTrackingResult, MpsError> {
        let mut hands = [None, None];
        for (i, (c, hand)) in self.sides.iter().zip(hands.iter_mut()).enumerate() {
            let confidence = row.f32(c.confidence)?;
            let mut landmarks = [Vector3::zeros(); NUM_HAND_LANDMARKS];
            for (dst, cols) in landmarks.iter_mut().zip(&c.landmarks) {
                *dst = row.vec3(*cols)?;
            }
            let t = row.vec3(c.translation)?;
            let q = Quaternion::new(
                row.f64(c.rotation_xyzw[3])?,
                row.f64(c.rotation_xyzw[0])?,
                row.f64(c.rotation_xyzw[1])?,
                row.f64(c.rotation_xyzw[2])?,
            );
            let normals = match self.normals.as_ref().and_then(|n| n.get(i)) {
                Some(n) => Some(WristPalmNormals {
                    wrist_normal_device: row.vec3(n.wrist)?,
                    palm_normal_device: row.vec3(n.palm)?,
                }),
                None => None,
            };
            if confidence > 0.0 {
                *hand = Some(HandLandmarks {
                    confidence,
                    landmarks_device_m: landmarks,
                    t_device_wrist: Isometry3::from_parts(
                        Translation3::from(t),
                        UnitQuaternion::new_normalize(q),
                    ),
                    normals,
                });
            }
        }
        let [left, right] = hands;
        Ok(HandTrackingResult {
            tracking_time: DeviceTime::from_us(row.i64(self.time)?),
            left,
            right,
        })
    }
}

/// Streaming hand-tracking-results reader: an iterator of [`HandTrackingResult`].
pub type HandTrackingReader = super::csv_table::CsvRecords<HandTrackingDecoder>;

/// Reads a whole `hand_tracking_results.csv` (v1 or v2); fails on the first bad row.
pub fn read_hand_tracking_results(
    path: impl AsRef<Path>,
) -> Result<Vec<HandTrackingResult>, MpsError> {
    read_hand_tracking_results_partial(path).into_result()
}

/// Reads a hand-tracking-results file, keeping every row before the first error.
pub fn read_hand_tracking_results_partial(path: impl AsRef<Path>) -> Partial<HandTrackingResult> {
    read_partial::<HandTrackingDecoder>(path.as_ref())
}
