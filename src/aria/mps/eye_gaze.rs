//! MPS eye gaze, every schema generation, detected from the header (never by position):
//!
//! | schema | file(s) | detected by | yaw | depth |
//! |---|---|---|---|---|
//! | [`GazeSchema::Legacy`] | `eyegaze.csv` (oldest: `depth_m` 4th, no `session_uid`), `generalized_eye_gaze.csv`, `general_eye_gaze.csv`, `personalized_eye_gaze.csv`, `calibrated_eye_gaze.csv` (old model) | `yaw_rads_cpf` without per-eye yaw | from file | `depth_m` (often empty ⇒ `None`) |
//! | [`GazeSchema::Gen1Vergence`] | Gen1 MPS ≥ Mar 2024 (`eye_gaze_vergence/generalized_gaze.csv`, same names as above) | `left_yaw_rads_cpf` + `right_yaw_rads_cpf` | combined yaw derived from the per-eye yaws exactly as projectaria_tools' reader (`computeDepthAndCombinedGazeDirection`) | `depth_m` from file |
//! | [`GazeSchema::Gen2`] | Gen2 ET | per-eye yaw **and** `yaw_rads_cpf`, `left_pitch_rads_cpf`, `right_pitch_rads_cpf` | from file | `depth_m` if present, else the per-eye ray vergence distance (`None` when the rays do not converge reliably) |
//!
//! Required columns: `tracking_timestamp_us`, `pitch_rads_cpf` and the yaw column(s) of the
//! schema (plus the eye origins for the vergence schemas); confidence bounds, `depth_m` and
//! `session_uid` are optional (projectaria_tools requires the bounds and depth columns of the
//! legacy schema; vista is more lenient). Personalized files use the same schemas. Empty optional cells become `None`; `NaN` cells
//! are kept as NaN. Rows stay in file order.

use std::path::Path;

use nalgebra::Vector3;

use super::csv_table::{read_partial, Col, Header, Partial, Row, RowDecoder};
use super::error::MpsError;
use super::gaze_math;
use crate::sample::EyeGazeSample;
use crate::time::DeviceTime;

/// Which eye-gaze CSV schema a file uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum GazeSchema {
    /// Old model: one yaw and pitch with confidence bounds.
    Legacy,
    /// Gen1 vergence model: per-eye yaw, common pitch, eye origins.
    Gen1Vergence,
    /// Gen2 model: combined and per-eye yaw and pitch, eye origins.
    Gen2,
}

/// Per-eye fields of the vergence models (Gen1 ≥ Mar 2024 and Gen2).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Vergence {
    /// Left eye yaw, radians, CPF.
    pub left_yaw_rad: f64,
    /// Right eye yaw, radians, CPF.
    pub right_yaw_rad: f64,
    /// Left eye pitch (Gen2 only), radians.
    pub left_pitch_rad: Option<f64>,
    /// Right eye pitch (Gen2 only), radians.
    pub right_pitch_rad: Option<f64>,
    /// Lower confidence bound of the left yaw (Gen1), radians.
    pub left_yaw_low_rad: Option<f64>,
    /// Upper confidence bound of the left yaw (Gen1), radians.
    pub left_yaw_high_rad: Option<f64>,
    /// Lower confidence bound of the right yaw (Gen1), radians.
    pub right_yaw_low_rad: Option<f64>,
    /// Upper confidence bound of the right yaw (Gen1), radians.
    pub right_yaw_high_rad: Option<f64>,
    /// Left eye origin in CPF, metres.
    pub left_eye_cpf_m: Vector3<f64>,
    /// Right eye origin in CPF, metres.
    pub right_eye_cpf_m: Vector3<f64>,
}

/// One eye-gaze estimate in the central pupil frame.
#[derive(Debug, Clone, PartialEq)]
pub struct EyeGaze {
    /// Device capture time (`tracking_timestamp_us`).
    pub tracking_time: DeviceTime,
    /// Combined yaw, radians, CPF (derived for the Gen1 vergence schema).
    pub yaw_rad: f64,
    /// Combined pitch, radians, CPF.
    pub pitch_rad: f64,
    /// Gaze depth in metres, when the file (or the Gen2 per-eye vergence) gives one.
    pub depth_m: Option<f64>,
    /// Lower bound of the yaw confidence interval (legacy schema only).
    pub yaw_low_rad: Option<f64>,
    /// Upper bound of the yaw confidence interval (legacy schema only).
    pub yaw_high_rad: Option<f64>,
    /// Lower bound of the pitch confidence interval.
    pub pitch_low_rad: Option<f64>,
    /// Upper bound of the pitch confidence interval.
    pub pitch_high_rad: Option<f64>,
    /// Per-eye fields of the vergence schemas.
    pub vergence: Option<Vergence>,
    /// Calibration session id (`None` for the oldest files or an empty cell).
    pub session_uid: Option<String>,
}

impl EyeGaze {
    /// The combined gaze direction as a unit vector in CPF: `normalize([tan yaw, tan pitch, 1])`
    /// (projectaria_tools `getUnitVectorFromYawPitch`).
    pub fn unit_vector_cpf(&self) -> Vector3<f64> {
        gaze_math::unit_vector_from_yaw_pitch(self.yaw_rad, self.pitch_rad)
    }

    /// The point `depth_m` metres along the gaze ray, CPF (the origin for a negative depth).
    pub fn point_at_depth_cpf(&self, depth_m: f64) -> Vector3<f64> {
        gaze_math::point_at_depth(self.yaw_rad, self.pitch_rad, depth_m)
    }

    /// The estimate as a runtime [`EyeGazeSample`]; a depth that is missing, zero (MPS's
    /// "not available"), negative or non-finite becomes `None`.
    pub fn to_sample(&self) -> EyeGazeSample {
        EyeGazeSample {
            yaw_rad: self.yaw_rad as f32,
            pitch_rad: self.pitch_rad as f32,
            depth_m: self
                .depth_m
                .filter(|d| d.is_finite() && *d > 0.0)
                .map(|d| d as f32),
        }
    }
}

#[derive(Debug, Clone)]
struct VergenceCols {
    left_yaw: Col,
    right_yaw: Col,
    left_pitch: Option<Col>,
    right_pitch: Option<Col>,
    left_yaw_low: Option<Col>,
    left_yaw_high: Option<Col>,
    right_yaw_low: Option<Col>,
    right_yaw_high: Option<Col>,
    left_eye: [Col; 3],
    right_eye: [Col; 3],
}

/// Column layout of an eye-gaze file (found by name).
#[derive(Debug, Clone)]
pub struct EyeGazeDecoder {
    schema: GazeSchema,
    time: Col,
    yaw: Option<Col>,
    pitch: Col,
    depth: Option<Col>,
    yaw_low: Option<Col>,
    yaw_high: Option<Col>,
    pitch_low: Option<Col>,
    pitch_high: Option<Col>,
    session: Option<Col>,
    vergence: Option<VergenceCols>,
}

impl EyeGazeDecoder {
    /// The detected schema.
    pub fn schema(&self) -> GazeSchema {
        self.schema
    }
}

impl RowDecoder for EyeGazeDecoder {
    type Item = EyeGaze;

    fn from_header(h: &Header) -> Result<Self, MpsError> {
        let per_eye = h.has("left_yaw_rads_cpf") || h.has("right_yaw_rads_cpf");
        let schema = if per_eye
            && h.has("yaw_rads_cpf")
            && h.has("left_pitch_rads_cpf")
            && h.has("right_pitch_rads_cpf")
        {
            GazeSchema::Gen2
        } else if per_eye {
            GazeSchema::Gen1Vergence
        } else if h.has("yaw_rads_cpf") {
            GazeSchema::Legacy
        } else {
            return Err(MpsError::UnknownSchema {
                path: h.path().to_path_buf(),
                what: "eye gaze",
                detail: "neither `yaw_rads_cpf` nor `left_yaw_rads_cpf`/`right_yaw_rads_cpf` is a column".into(),
            });
        };
        let name = match schema {
            GazeSchema::Legacy => "eye gaze (legacy)",
            GazeSchema::Gen1Vergence => "eye gaze (Gen1 vergence)",
            GazeSchema::Gen2 => "eye gaze (Gen2)",
        };
        let vergence = match schema {
            GazeSchema::Legacy => None,
            GazeSchema::Gen1Vergence | GazeSchema::Gen2 => Some(VergenceCols {
                left_yaw: h.require("left_yaw_rads_cpf", name)?,
                right_yaw: h.require("right_yaw_rads_cpf", name)?,
                left_pitch: h.find("left_pitch_rads_cpf"),
                right_pitch: h.find("right_pitch_rads_cpf"),
                left_yaw_low: h.find("left_yaw_low_rads_cpf"),
                left_yaw_high: h.find("left_yaw_high_rads_cpf"),
                right_yaw_low: h.find("right_yaw_low_rads_cpf"),
                right_yaw_high: h.find("right_yaw_high_rads_cpf"),
                left_eye: h.require3(
                    ["tx_left_eye_cpf", "ty_left_eye_cpf", "tz_left_eye_cpf"],
                    name,
                )?,
                right_eye: h.require3(
                    ["tx_right_eye_cpf", "ty_right_eye_cpf", "tz_right_eye_cpf"],
                    name,
                )?,
            }),
        };
        Ok(Self {
            schema,
            time: h.require("tracking_timestamp_us", name)?,
            yaw: match schema {
                GazeSchema::Gen1Vergence => None,
                _ => Some(h.require("yaw_rads_cpf", name)?),
            },
            pitch: h.require("pitch_rads_cpf", name)?,
            depth: h.find("depth_m"),
            yaw_low: h.find("yaw_low_rads_cpf"),
            yaw_high: h.find("yaw_high_rads_cpf"),
            pitch_low: h.find("pitch_low_rads_cpf"),
            pitch_high: h.find("pitch_high_rads_cpf"),
            session: h.find("session_uid"),
            vergence,
        })
    }

    fn decode(&self, row: &Row<'_>) -> Result<EyeGaze, MpsError> {
        let pitch_rad = row.f64(self.pitch)?;
        let mut depth_m = row.opt_f64(self.depth)?;
        let vergence = match &self.vergence {
            None => None,
            Some(c) => Some(Vergence {
                left_yaw_rad: row.f64(c.left_yaw)?,
                right_yaw_rad: row.f64(c.right_yaw)?,
                left_pitch_rad: row.opt_f64(c.left_pitch)?,
                right_pitch_rad: row.opt_f64(c.right_pitch)?,
                left_yaw_low_rad: row.opt_f64(c.left_yaw_low)?,
                left_yaw_high_rad: row.opt_f64(c.left_yaw_high)?,
                right_yaw_low_rad: row.opt_f64(c.right_yaw_low)?,
                right_yaw_high_rad: row.opt_f64(c.right_yaw_high)?,
                left_eye_cpf_m: row.vec3(c.left_eye)?,
                right_eye_cpf_m: row.vec3(c.right_eye)?,
            }),
        };
        let yaw_rad = match (self.yaw, &vergence) {
            (Some(c), _) => row.f64(c)?,
            (None, Some(v)) => {
                gaze_math::gen1_depth_and_combined_yaw(v.left_yaw_rad, v.right_yaw_rad, pitch_rad).1
            }
            // Unreachable by construction (legacy and Gen2 always have a yaw column).
            (None, None) => f64::NAN,
        };
        if self.schema == GazeSchema::Gen2 && depth_m.is_none() {
            if let Some(v) = &vergence {
                let (point, real) = gaze_math::gaze_vergence_point(
                    &v.left_eye_cpf_m,
                    v.left_yaw_rad,
                    v.left_pitch_rad.unwrap_or(pitch_rad),
                    &v.right_eye_cpf_m,
                    v.right_yaw_rad,
                    v.right_pitch_rad.unwrap_or(pitch_rad),
                );
                let origin = 0.5 * (v.left_eye_cpf_m + v.right_eye_cpf_m);
                depth_m = real.then(|| (point - origin).norm());
            }
        }
        Ok(EyeGaze {
            tracking_time: DeviceTime::from_us(row.i64(self.time)?),
            yaw_rad,
            pitch_rad,
            depth_m,
            yaw_low_rad: row.opt_f64(self.yaw_low)?,
            yaw_high_rad: row.opt_f64(self.yaw_high)?,
            pitch_low_rad: row.opt_f64(self.pitch_low)?,
            pitch_high_rad: row.opt_f64(self.pitch_high)?,
            vergence,
            session_uid: row.opt_string(self.session)?,
        })
    }
}

/// Streaming eye-gaze reader (any schema): an iterator of [`EyeGaze`] in file order.
pub type EyeGazeReader = super::csv_table::CsvRecords<EyeGazeDecoder>;

/// Reads a whole eye-gaze file of any schema; fails on the first bad row.
pub fn read_eye_gaze(path: impl AsRef<Path>) -> Result<Vec<EyeGaze>, MpsError> {
    read_eye_gaze_partial(path).into_result()
}

/// Reads an eye-gaze file, keeping every row before the first error.
pub fn read_eye_gaze_partial(path: impl AsRef<Path>) -> Partial<EyeGaze> {
    read_partial::<EyeGazeDecoder>(path.as_ref())
}
