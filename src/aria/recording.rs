//! Typed Aria streams (Gen1 and Gen2) on top of [`VrsReader`]: stream summaries, samples
//! decoded into vista payloads ([`crate::sample::Payload`]) on the device clock, time-domain
//! mappings, and image decoding.
//!
//! The recording's generation ([`Generation`], from its `device_type` tag or calibration)
//! decides which VRS stream is which vista stream ([`Generation::stream_of`]); everything
//! else (285-x time domain, GPS, Wi-Fi, Bluetooth, Gen2's PPG, temperature and ambient light)
//! is listed by [`AriaRecording::summaries`], named as projectaria_tools names it, but not
//! decoded into samples. A corrupt record yields one `Err` naming the stream, file and offset, and the
//! iteration goes on.

pub mod decode;
pub mod device_perception;
pub mod hevc;
pub mod image;
pub mod opus;
pub mod orientation;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use bytes::Bytes;

use nalgebra::Isometry3;

use crate::aria::calib::DeviceCalibration;
use crate::aria::generation::Generation;
use crate::aria::vrs::{IndexEntry, RecordType, VrsError, VrsReader, VrsStreamId};
use crate::sample::{Payload, StreamId};
use crate::time::DeviceTime;

pub use decode::{StreamConfig, StreamDecoders};
pub use image::{decode_image, DecodedImage};

/// Errors of the typed Aria layer.
#[derive(Debug, thiserror::Error)]
pub enum RecordingError {
    /// The VRS layer failed (opening, reading a record).
    #[error(transparent)]
    Vrs(#[from] VrsError),
    /// A record of a stream could not be read (the VRS error names the file and offset).
    #[error("stream {stream}: {source}")]
    Stream {
        /// The stream, e.g. "imu-right (1202-1)".
        stream: String,
        /// What the VRS layer reported.
        #[source]
        source: VrsError,
    },
    /// A record was read but could not be decoded.
    #[error("{}: stream {stream}: record at byte {offset}: {reason}", path.display())]
    Record {
        /// The file.
        path: PathBuf,
        /// The stream, e.g. "imu-right (1202-1)".
        stream: String,
        /// Offset of the record.
        offset: u64,
        /// What was wrong.
        reason: String,
    },
    /// An image could not be decoded.
    #[error("image decode failed: {reason}")]
    Image {
        /// What was wrong.
        reason: String,
    },
}

/// One stream of a recording, summarised.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct StreamSummary {
    /// VRS stream id, e.g. "214-1".
    pub vrs_id: String,
    /// The vista stream, when known.
    pub stream: Option<StreamId>,
    /// Aria name (e.g. "camera-rgb"), else projectaria_tools' label (e.g. "ppg"), else the
    /// VRS recordable name.
    pub name: String,
    /// Number of DATA records.
    pub data_records: u64,
    /// Device capture time of the first DATA record, ns.
    pub first_ns: Option<i64>,
    /// Device capture time of the last DATA record, ns.
    pub last_ns: Option<i64>,
    /// Nominal rate from the configuration record.
    pub nominal_rate_hz: Option<f64>,
    /// `(records − 1) / (last − first)`.
    pub measured_rate_hz: Option<f64>,
    /// Image size from the configuration record (cameras).
    pub image_size: Option<(u32, u32)>,
}

/// One time-domain mapping record (285-x): a device time and the matching external time.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct TimeDomainMapping {
    /// The VRS stream (285-1 APP, 285-2 TIMECODE in the samples).
    pub vrs_id: VrsStreamId,
    /// Mode from the configuration record (`APP`, `TIMECODE`).
    pub mode: Option<String>,
    /// Device time, ns (`monotonic_timestamp_ns`).
    pub device_ns: i64,
    /// External time, ns (`real_timestamp_ns`).
    pub real_ns: i64,
}

/// A decoded sample: stream, capture time, payload.
pub type DecodedSample = (StreamId, DeviceTime, Payload);

/// An Aria recording opened for typed reading.
#[derive(Debug)]
pub struct AriaRecording {
    vrs: VrsReader,
    configs: BTreeMap<VrsStreamId, StreamConfig>,
    /// Which VRS stream holds which vista stream.
    streams: BTreeMap<VrsStreamId, StreamId>,
    /// The generation and `T_CPF_Device` of the recording's calibration (Gen2 eye gaze is
    /// recorded in the device frame; identity when the recording carries no readable
    /// calibration).
    facts: decode::RecordingFacts,
}

impl AriaRecording {
    /// Opens a recording; reads every stream's first configuration record (a bad one is
    /// logged and the stream decoded without it).
    pub fn open(path: impl AsRef<Path>) -> Result<Self, RecordingError> {
        Ok(Self::from_reader(VrsReader::open(path)?))
    }

    /// Wraps an open reader; each known stream's DATA records get a decompressed-size
    /// budget from its configuration ([`StreamConfig::data_record_budget`]).
    pub fn from_reader(mut vrs: VrsReader) -> Self {
        let rep = vrs.recovery();
        if let crate::aria::vrs::IndexSource::Rebuilt { reason } = &rep.index_source {
            log::warn!(
                "{}: damaged or cut short ({reason}): {} bytes lost, {} records skipped; \
                 replaying the {} records that remain",
                vrs.path().display(),
                rep.bytes_lost,
                rep.records_skipped,
                vrs.index().len()
            );
        }
        if let Some(damage) = &rep.description_damage {
            log::warn!(
                "{}: damaged description record ({damage}); replaying the streams it kept",
                vrs.path().display()
            );
        }
        let mut configs = BTreeMap::new();
        for s in vrs.streams() {
            let Some(e) = vrs
                .index()
                .iter()
                .find(|e| e.stream == s.id && e.record_type == RecordType::Configuration)
            else {
                continue;
            };
            match read_config(&vrs, e) {
                Ok(c) => {
                    configs.insert(s.id, c);
                }
                Err(err) => log::warn!("{err}"),
            }
        }
        let calib = vrs.file_tags().get("calib_json").and_then(|json| {
            DeviceCalibration::from_json_str(json)
                .map_err(|e| log::debug!("{}: calib_json: {e}", vrs.path().display()))
                .ok()
        });
        let generation = match vrs.file_tags().get("device_type") {
            Some(t) if !t.is_empty() => Generation::from_device_class(t),
            _ => calib.as_ref().map_or(Generation::Gen1, |c| c.generation),
        };
        let t_cpf_device = calib
            .as_ref()
            .map_or_else(Isometry3::identity, |c| c.t_device_cpf().inverse());
        let mut streams: BTreeMap<VrsStreamId, StreamId> = vrs
            .streams()
            .iter()
            .filter_map(|s| {
                let flavor = s.flavor().unwrap_or("");
                generation.stream_of(s.id, flavor).map(|k| (s.id, k))
            })
            .collect();
        if let Some(c) = &calib {
            assign_stereo_pair(&mut streams, generation, c);
        }
        let none = StreamConfig::default();
        for (&id, &stream) in &streams {
            let cfg = configs.get(&id).unwrap_or(&none);
            if let Some(bytes) = cfg.data_record_budget(stream) {
                vrs.set_payload_budget(id, bytes);
            }
        }
        Self {
            vrs,
            configs,
            streams,
            facts: decode::RecordingFacts {
                generation,
                t_cpf_device,
            },
        }
    }

    /// The hardware generation that made the recording.
    pub fn generation(&self) -> Generation {
        self.facts.generation
    }

    /// The vista stream a VRS stream of this recording holds, if vista decodes it.
    pub fn stream_of(&self, id: VrsStreamId) -> Option<StreamId> {
        self.streams.get(&id).copied()
    }

    /// The VRS stream holding the vista stream `s` in this recording.
    pub fn vrs_stream(&self, s: StreamId) -> Option<VrsStreamId> {
        self.streams
            .iter()
            .find_map(|(&id, &k)| (k == s).then_some(id))
    }

    /// The calibration label of a camera or IMU stream of this recording (Gen2: the SLAM
    /// cameras the stereo pair was chosen from keep their own labels).
    pub fn sensor_label(&self, s: StreamId) -> Option<&'static str> {
        let id = self.vrs_stream(s)?;
        match (self.facts.generation, id.type_id) {
            (Generation::Gen2, 1201) => gen2_slam_label(id.instance),
            (g, _) => g.sensor_label(s),
        }
    }

    /// The vista streams this recording holds, in VRS stream order.
    pub fn known_streams(&self) -> Vec<StreamId> {
        self.streams.values().copied().collect()
    }

    /// The underlying VRS reader.
    pub fn vrs(&self) -> &VrsReader {
        &self.vrs
    }

    /// The factory calibration JSON (file tag `calib_json`).
    pub fn calib_json(&self) -> Option<&str> {
        self.vrs.file_tags().get("calib_json").map(String::as_str)
    }

    /// The configuration of a VRS stream, when its configuration record was readable.
    pub fn config(&self, id: VrsStreamId) -> Option<&StreamConfig> {
        self.configs.get(&id)
    }

    /// Image size of a camera stream.
    pub fn image_size(&self, s: StreamId) -> Option<(u32, u32)> {
        self.config(self.vrs_stream(s)?)?.image_size()
    }

    /// A summary of every stream, known or not.
    pub fn summaries(&self) -> Vec<StreamSummary> {
        let mut buf = Vec::new();
        self.vrs
            .streams()
            .iter()
            .map(|s| {
                let known = self.stream_of(s.id);
                let data: Vec<&IndexEntry> = self
                    .vrs
                    .index()
                    .iter()
                    .filter(|e| e.stream == s.id && e.record_type == RecordType::Data)
                    .collect();
                let mut time_of = |e: &IndexEntry| -> i64 {
                    self.capture_ns(e, &mut buf)
                        .unwrap_or_else(|| DeviceTime::from_secs_f64(e.timestamp_s).ns())
                };
                let first_ns = data.first().map(|e| time_of(e));
                let last_ns = data.last().map(|e| time_of(e));
                let measured_rate_hz = match (first_ns, last_ns) {
                    (Some(a), Some(b)) if b > a && data.len() > 1 => {
                        Some((data.len() - 1) as f64 / ((b - a) as f64 * 1e-9))
                    }
                    _ => None,
                };
                let cfg = self.configs.get(&s.id);
                StreamSummary {
                    vrs_id: s.id.to_string(),
                    stream: known,
                    name: match known {
                        Some(k) => k.name().to_string(),
                        None => match self.facts.generation.other_label(s.id) {
                            Some(label) => label.to_string(),
                            None => s.recordable_name().unwrap_or("unknown").to_string(),
                        },
                    },
                    data_records: data.len() as u64,
                    first_ns,
                    last_ns,
                    nominal_rate_hz: cfg.and_then(|c| c.nominal_rate_hz),
                    measured_rate_hz,
                    image_size: cfg.and_then(StreamConfig::image_size),
                }
            })
            .collect()
    }

    /// Device capture time of a DATA record from its DataLayout (`capture_timestamp_ns`, or
    /// the first of `capture_timestamps_ns`).
    fn capture_ns(&self, e: &IndexEntry, buf: &mut Vec<u8>) -> Option<i64> {
        let h = self.vrs.read_record_into(e, buf).ok()?;
        let dl = self
            .vrs
            .data_layout(e.stream, e.record_type, h.format_version, 0)
            .ok()?;
        dl.value::<i64>(buf, "capture_timestamp_ns").or_else(|| {
            dl.vector::<i64>(buf, "capture_timestamps_ns")?
                .first()
                .copied()
        })
    }

    /// Every DATA record of the known streams, in file order, decoded.
    pub fn samples(&self) -> SampleIter<'_> {
        SampleIter {
            rec: self,
            only: None,
            pos: 0,
            scratch: Vec::new(),
            blocks: Vec::new(),
            decoders: StreamDecoders::default(),
        }
    }

    /// The DATA records of one stream, decoded.
    pub fn stream_samples(&self, s: StreamId) -> SampleIter<'_> {
        SampleIter {
            rec: self,
            only: self.vrs_stream(s).or(Some(VrsStreamId::new(i32::MIN, 0))),
            pos: 0,
            scratch: Vec::new(),
            blocks: Vec::new(),
            decoders: StreamDecoders::default(),
        }
    }

    /// The time-domain mapping records (285-x), each decoded or an error naming it.
    pub fn time_domain_mappings(&self) -> Vec<Result<TimeDomainMapping, RecordingError>> {
        let mut buf = Vec::new();
        self.vrs
            .index()
            .iter()
            .filter(|e| e.stream.type_id == 285 && e.record_type == RecordType::Data)
            .map(|e| {
                let h = self.vrs.read_record_into(e, &mut buf)?;
                let dl = self
                    .vrs
                    .data_layout(e.stream, e.record_type, h.format_version, 0)?;
                let get = |name: &str| {
                    dl.value::<i64>(&buf, name)
                        .ok_or_else(|| RecordingError::Record {
                            path: self.vrs.path().to_path_buf(),
                            stream: e.stream.to_string(),
                            offset: e.offset,
                            reason: format!("field {name:?} missing"),
                        })
                };
                Ok(TimeDomainMapping {
                    vrs_id: e.stream,
                    mode: self.configs.get(&e.stream).and_then(|c| c.mode.clone()),
                    device_ns: get("monotonic_timestamp_ns")?,
                    real_ns: get("real_timestamp_ns")?,
                })
            })
            .collect()
    }

    /// Decodes one DATA record of a known stream (`scratch` is reused between calls;
    /// `decoders` carries state from the stream's previous record: read a stream in order).
    pub fn decode_entry(
        &self,
        stream: StreamId,
        e: &IndexEntry,
        scratch: &mut Vec<u8>,
        blocks: &mut Vec<std::ops::Range<usize>>,
        decoders: &mut StreamDecoders,
    ) -> Result<DecodedSample, RecordingError> {
        let label = || format!("{stream} ({})", e.stream);
        let vrs = |source: VrsError| RecordingError::Stream {
            stream: label(),
            source,
        };
        let fail = |reason: String| RecordingError::Record {
            path: self.vrs.path().to_path_buf(),
            stream: label(),
            offset: e.offset,
            reason,
        };
        // Images and audio keep their bytes (shared, sliced); other records reuse `scratch`.
        let payload = if stream.is_camera() || stream == StreamId::Audio {
            let r = self.vrs.read_record(e).map_err(vrs)?;
            (r.header, r.payload)
        } else {
            let h = self.vrs.read_record_into(e, scratch).map_err(vrs)?;
            (h, Bytes::new())
        };
        let (h, owned) = payload;
        let bytes: &[u8] = if owned.is_empty() { scratch } else { &owned };
        self.vrs
            .split_record_into(e.offset, &h, bytes, blocks)
            .map_err(vrs)?;
        let format = self
            .vrs
            .record_format(e.stream, e.record_type, h.format_version)
            .map_err(vrs)?;
        let layout = self
            .vrs
            .data_layout(e.stream, e.record_type, h.format_version, 0)
            .map_err(vrs)?;
        let default_cfg = StreamConfig::default();
        let cfg = self.configs.get(&e.stream).unwrap_or(&default_cfg);
        let split = decode::SplitRecord {
            payload: bytes,
            shared: (!owned.is_empty()).then_some(&owned),
            blocks,
            format,
            layout,
        };
        let (t, p) =
            decode::decode_data(stream, &split, cfg, &self.facts, decoders).map_err(fail)?;
        Ok((stream, DeviceTime::from_ns(t), p))
    }
}

/// The label of Gen2's SLAM camera `1201-instance` (projectaria_tools' fixed mapping).
fn gen2_slam_label(instance: u16) -> Option<&'static str> {
    Some(match instance {
        1 => "slam-front-left",
        2 => "slam-front-right",
        3 => "slam-side-left",
        4 => "slam-side-right",
        _ => return None,
    })
}

/// Gen2: the SLAM cameras that the calibration's stereo pair names become `camera-slam-left`
/// and `camera-slam-right` (what depth and motion read); the other two the side streams
/// ([`DeviceCalibration::slam_roles`]). Gen1's two cameras are always the pair.
fn assign_stereo_pair(
    streams: &mut BTreeMap<VrsStreamId, StreamId>,
    generation: Generation,
    calib: &DeviceCalibration,
) {
    if generation != Generation::Gen2 {
        return;
    }
    let slam: Vec<(VrsStreamId, &str)> = streams
        .keys()
        .filter(|id| id.type_id == 1201)
        .filter_map(|&id| Some((id, gen2_slam_label(id.instance)?)))
        .collect();
    let labels: Vec<&str> = slam.iter().map(|(_, l)| *l).collect();
    for (label, stream) in calib.slam_roles(&labels) {
        if let Some((id, _)) = slam.iter().find(|(_, l)| *l == label) {
            streams.insert(*id, stream);
        }
    }
}

fn read_config(vrs: &VrsReader, e: &IndexEntry) -> Result<StreamConfig, VrsError> {
    let r = vrs.read_record(e)?;
    let dl = vrs.data_layout(e.stream, e.record_type, r.header.format_version, 0)?;
    let blocks = vrs.split_record(e.offset, &r.header, &r.payload)?;
    let b = blocks
        .first()
        .and_then(|b| r.payload.get(b.clone()))
        .unwrap_or_default();
    Ok(StreamConfig::from_layout(dl, b))
}

/// Iterator over decoded samples (see [`AriaRecording::samples`]).
pub struct SampleIter<'a> {
    rec: &'a AriaRecording,
    only: Option<VrsStreamId>,
    pos: usize,
    scratch: Vec<u8>,
    blocks: Vec<std::ops::Range<usize>>,
    decoders: StreamDecoders,
}

impl Iterator for SampleIter<'_> {
    type Item = Result<DecodedSample, RecordingError>;
    fn next(&mut self) -> Option<Self::Item> {
        let index = self.rec.vrs.index();
        while let Some(e) = index.get(self.pos) {
            self.pos += 1;
            if e.record_type != RecordType::Data {
                continue;
            }
            if self.only.is_some_and(|o| o != e.stream) {
                continue;
            }
            let Some(stream) = self.rec.stream_of(e.stream) else {
                continue;
            };
            return Some(self.rec.decode_entry(
                stream,
                e,
                &mut self.scratch,
                &mut self.blocks,
                &mut self.decoders,
            ));
        }
        None
    }
}
