//! MPS `online_calibration.jsonl`: one JSON object per line (about 10 Hz) with the
//! calibration SLAM estimated online. The per-sensor objects (`CameraCalibrations`,
//! `ImuCalibrations`) are kept as raw [`serde_json::Value`]s in file order, to be parsed by
//! the calibration module (same per-sensor schema as the factory calibration JSON).
//!
//! Lines are read one at a time (memory bounded by one line); blank lines are skipped; a line
//! that is not valid JSON (e.g. a truncated last line) is an error naming the line, and
//! everything before it is still available through [`read_online_calibrations_partial`].
//! A file with no JSON line at all is [`MpsError::Empty`].

use std::io::BufRead;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::csv_table::{open_maybe_gz, Partial};
use super::error::MpsError;
use crate::time::DeviceTime;

/// One online-calibration estimate.
#[derive(Debug, Clone, PartialEq)]
pub struct OnlineCalibration {
    /// Device time of the estimate (`tracking_timestamp_us`).
    pub tracking_time: DeviceTime,
    /// UTC time in ns (`utc_timestamp_ns`), `None` when absent or −1.
    pub utc_ns: Option<i64>,
    /// `CameraCalibrations`, raw, in file order (Gen1: slam-left, slam-right, rgb).
    pub camera_calibrations: Vec<Value>,
    /// `ImuCalibrations`, raw, in file order (Gen1: imu-left, imu-right).
    pub imu_calibrations: Vec<Value>,
    /// `ImageSizes` (MPS ≥ 1.1): `[width, height]` per camera, in camera order.
    pub image_sizes: Option<Vec<[u32; 2]>>,
    /// `ReadoutTimesSec` (MPS ≥ 1.1): rolling-shutter readout time per camera, seconds.
    pub readout_times_s: Option<Vec<f64>>,
}

/// Streaming reader of `online_calibration.jsonl` (plain or `.gz`).
pub struct OnlineCalibrationReader {
    path: PathBuf,
    input: Box<dyn BufRead + Send>,
    line: u64,
    buf: Vec<u8>,
    seen_any: bool,
    finished: bool,
}

impl std::fmt::Debug for OnlineCalibrationReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OnlineCalibrationReader")
            .field("path", &self.path)
            .field("line", &self.line)
            .finish()
    }
}

impl OnlineCalibrationReader {
    /// Opens the file.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, MpsError> {
        let path = path.as_ref();
        let input = open_maybe_gz(path)?;
        Ok(Self {
            path: path.to_path_buf(),
            input: Box::new(std::io::BufReader::new(input)),
            line: 0,
            buf: Vec::new(),
            seen_any: false,
            finished: false,
        })
    }

    fn json_err(&self, message: String) -> MpsError {
        MpsError::Json {
            path: self.path.clone(),
            line: self.line,
            message,
        }
    }

    fn parse(&self, text: &[u8]) -> Result<OnlineCalibration, MpsError> {
        let v: Value = serde_json::from_slice(text)
            .map_err(|e| self.json_err(format!("invalid JSON: {e}")))?;
        let obj = v
            .as_object()
            .ok_or_else(|| self.json_err("expected a JSON object".into()))?;
        let int = |key: &str| -> Result<Option<i64>, MpsError> {
            match obj.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(x) => x
                    .as_i64()
                    .or_else(|| {
                        x.as_f64()
                            .filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15)
                            .map(|f| f as i64)
                    })
                    .map(Some)
                    .ok_or_else(|| {
                        self.json_err(format!("`{key}`: expected an integer, found {x}"))
                    }),
            }
        };
        let array = |key: &str| -> Result<Option<&Vec<Value>>, MpsError> {
            match obj.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::Array(a)) => Ok(Some(a)),
                Some(_) => Err(self.json_err(format!("`{key}`: expected an array"))),
            }
        };
        let tracking_us = int("tracking_timestamp_us")?
            .ok_or_else(|| self.json_err("missing required key `tracking_timestamp_us`".into()))?;
        let cameras = array("CameraCalibrations")?
            .ok_or_else(|| self.json_err("missing required key `CameraCalibrations`".into()))?;
        let imus = array("ImuCalibrations")?
            .ok_or_else(|| self.json_err("missing required key `ImuCalibrations`".into()))?;
        let image_sizes = match array("ImageSizes")? {
            None => None,
            Some(a) => Some(
                a.iter()
                    .map(|s| {
                        let wh = s.as_array().filter(|x| x.len() == 2).and_then(|x| {
                            let w = x.first()?.as_u64()?;
                            let h = x.get(1)?.as_u64()?;
                            Some([u32::try_from(w).ok()?, u32::try_from(h).ok()?])
                        });
                        wh.ok_or_else(|| {
                            self.json_err(format!(
                                "`ImageSizes`: expected [width, height], found {s}"
                            ))
                        })
                    })
                    .collect::<Result<Vec<_>, _>>()?,
            ),
        };
        let readout_times_s = match array("ReadoutTimesSec")? {
            None => None,
            Some(a) => Some(
                a.iter()
                    .map(|x| {
                        x.as_f64().ok_or_else(|| {
                            self.json_err(format!(
                                "`ReadoutTimesSec`: expected a number, found {x}"
                            ))
                        })
                    })
                    .collect::<Result<Vec<_>, _>>()?,
            ),
        };
        Ok(OnlineCalibration {
            tracking_time: DeviceTime::from_us(tracking_us),
            utc_ns: int("utc_timestamp_ns")?.filter(|&u| u >= 0),
            camera_calibrations: cameras.clone(),
            imu_calibrations: imus.clone(),
            image_sizes,
            readout_times_s,
        })
    }

    fn next_item(&mut self) -> Option<Result<OnlineCalibration, MpsError>> {
        loop {
            self.buf.clear();
            self.line += 1;
            match self.input.read_until(b'\n', &mut self.buf) {
                Ok(0) if self.seen_any => return None,
                Ok(0) => {
                    // A file without a single JSON line is reported, not read as "no data".
                    return Some(Err(MpsError::Empty {
                        path: self.path.clone(),
                    }));
                }
                Ok(_) => {}
                Err(source) => {
                    return Some(Err(MpsError::Read {
                        path: self.path.clone(),
                        line: self.line,
                        source,
                    }))
                }
            }
            if self.buf.iter().all(|b| b.is_ascii_whitespace()) {
                continue;
            }
            self.seen_any = true;
            let text = std::mem::take(&mut self.buf);
            let item = self.parse(&text);
            self.buf = text;
            return Some(item);
        }
    }
}

impl Iterator for OnlineCalibrationReader {
    type Item = Result<OnlineCalibration, MpsError>;
    fn next(&mut self) -> Option<Self::Item> {
        if self.finished {
            return None;
        }
        let item = self.next_item();
        if !matches!(item, Some(Ok(_))) {
            self.finished = true;
        }
        item
    }
}

impl std::iter::FusedIterator for OnlineCalibrationReader {}

/// Reads every line of `online_calibration.jsonl`; fails on the first bad line.
pub fn read_online_calibrations(
    path: impl AsRef<Path>,
) -> Result<Vec<OnlineCalibration>, MpsError> {
    read_online_calibrations_partial(path).into_result()
}

/// Reads `online_calibration.jsonl`, keeping every estimate before the first bad line.
pub fn read_online_calibrations_partial(path: impl AsRef<Path>) -> Partial<OnlineCalibration> {
    match OnlineCalibrationReader::open(path) {
        Ok(r) => Partial::from_results(r),
        Err(e) => Partial {
            items: Vec::new(),
            error: Some(e),
        },
    }
}
