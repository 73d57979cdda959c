//! Pure decoding of Aria DATA records (already split into content blocks) into vista
//! payloads. Fields are looked up by name and type in the stream's DataLayout; Gen2's
//! on-device perception records are read by [`super::device_perception`].

use std::collections::BTreeMap;
use std::sync::Arc;

use bytes::Bytes;

use nalgebra::Isometry3;

use super::device_perception;
use super::hevc::HevcStream;
use crate::aria::generation::Generation;
use crate::aria::vrs::{ContentBlockSpec, DataLayout, ImageCodec, RecordFormat};
use crate::sample::{
    AudioBlock, AudioCoding, BaroSample, ImageEncoding, ImageFrame, ImuSample, MagSample, Payload,
    StreamId,
};

/// What a stream's configuration record says that data decoding needs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StreamConfig {
    /// `image_width`.
    pub image_width: Option<u32>,
    /// `image_height`.
    pub image_height: Option<u32>,
    /// `image_stride`.
    pub image_stride: Option<u32>,
    /// `image_pixel_format`.
    pub image_pixel_format: Option<u32>,
    /// `nominal_rate` (cameras, IMU), `sample_rate` (barometer), `sample_rate_hz` (time),
    /// `nominal_rate_hz` (Gen2's on-device perception).
    pub nominal_rate_hz: Option<f64>,
    /// `audio_channel_count`.
    pub audio_channels: Option<u8>,
    /// `audio_sample_rate`.
    pub audio_sample_rate_hz: Option<u32>,
    /// `mode` (time-domain mapping streams).
    pub mode: Option<String>,
    /// `image_codec_name` (Gen2 cameras: "H.265").
    pub image_codec_name: Option<String>,
}

impl StreamConfig {
    /// Reads the known fields from a configuration record's DataLayout block.
    pub fn from_layout(dl: &DataLayout, b: &[u8]) -> Self {
        Self {
            image_width: dl.value::<u32>(b, "image_width"),
            image_height: dl.value::<u32>(b, "image_height"),
            image_stride: dl.value::<u32>(b, "image_stride"),
            image_pixel_format: dl.value::<u32>(b, "image_pixel_format"),
            nominal_rate_hz: dl
                .value::<f64>(b, "nominal_rate")
                .or_else(|| dl.value::<f64>(b, "sample_rate"))
                .or_else(|| dl.value::<f64>(b, "sample_rate_hz"))
                .or_else(|| dl.value::<f64>(b, "nominal_rate_hz")),
            audio_channels: dl.value::<u8>(b, "audio_channel_count"),
            audio_sample_rate_hz: dl.value::<u32>(b, "audio_sample_rate"),
            mode: dl.string(b, "mode").map(str::to_string),
            image_codec_name: dl
                .string(b, "image_codec_name")
                .filter(|c| !c.is_empty())
                .map(str::to_string),
        }
    }
    /// `(width, height)` when both are known and non-zero.
    pub fn image_size(&self) -> Option<(u32, u32)> {
        match (self.image_width, self.image_height) {
            (Some(w), Some(h)) if w > 0 && h > 0 => Some((w, h)),
            _ => None,
        }
    }
}

/// Room for a DATA record's metadata block (its DataLayout) beside its image or audio: an
/// Aria record's metadata is a few hundred bytes; 64 KiB leaves a wide margin.
pub const RECORD_METADATA_BYTES: usize = 64 << 10;

/// A JPEG frame may exceed the raw frame it encodes (noise at quality 100 costs more than
/// 8 bits per sample), so an image record may hold twice its raw size.
pub const IMAGE_RECORD_FACTOR: usize = 2;

/// Bytes per pixel assumed for a pixel format the decoder does not name: 16 (four 32-bit
/// float channels), the widest VRS pixel format.
pub const MAX_BYTES_PER_PIXEL: usize = 16;

/// Longest stretch of audio one record may hold, seconds. Aria Gen1 writes 4096 frames
/// (85 ms at 48 kHz) per record; 2 s is over twenty times that.
pub const MAX_AUDIO_RECORD_S: usize = 2;

impl StreamConfig {
    /// The plausible decompressed size of one DATA record of `stream`, from what the
    /// configuration says (image size and pixel format, audio rate and channels); `None`
    /// when the configuration does not say enough, or the stream is not one vista decodes.
    pub fn data_record_budget(&self, stream: StreamId) -> Option<usize> {
        if stream.is_camera() {
            let (w, h) = self.image_size()?;
            let bytes_per_pixel = match self.image_pixel_format {
                Some(1) => 1,      // grey8
                Some(2 | 4) => 3,  // bgr8, rgb8
                Some(6) => 4,      // rgba8
                Some(9..=11) => 2, // grey10, grey12, grey16
                _ => MAX_BYTES_PER_PIXEL,
            };
            let row = (w as usize)
                .saturating_mul(bytes_per_pixel)
                .max(self.image_stride.unwrap_or(0) as usize);
            let raw = row.saturating_mul(h as usize);
            return Some(
                raw.saturating_mul(IMAGE_RECORD_FACTOR)
                    .saturating_add(RECORD_METADATA_BYTES),
            );
        }
        match stream {
            StreamId::Audio => {
                let rate = self.audio_sample_rate_hz? as usize;
                let channels = usize::from(self.audio_channels?);
                // Each frame: one i32 per channel plus its own i64 capture time.
                let frame = channels * 4 + 8;
                Some(
                    rate.saturating_mul(frame)
                        .saturating_mul(MAX_AUDIO_RECORD_S)
                        .saturating_add(RECORD_METADATA_BYTES),
                )
            }
            StreamId::ImuRight
            | StreamId::ImuLeft
            | StreamId::Magnetometer
            | StreamId::Barometer => Some(RECORD_METADATA_BYTES),
            _ => None,
        }
    }
}

/// A record's payload with its content blocks located.
pub struct SplitRecord<'a> {
    /// The whole decompressed payload.
    pub payload: &'a [u8],
    /// The same bytes, shared, for records whose blocks are handed on without copying
    /// (images, audio); `None` for small records decoded from a reused buffer.
    pub shared: Option<&'a Bytes>,
    /// Byte range of each block.
    pub blocks: &'a [std::ops::Range<usize>],
    /// The record format.
    pub format: &'a RecordFormat,
    /// DataLayout of block 0.
    pub layout: &'a DataLayout,
}

impl SplitRecord<'_> {
    fn share(&self, range: std::ops::Range<usize>) -> Result<Bytes, String> {
        let shared = self.shared.ok_or("record bytes are not shared")?;
        if range.end > shared.len() || range.start > range.end {
            return Err(format!("block {range:?} outside the record"));
        }
        Ok(shared.slice(range))
    }
    fn block(&self, i: usize) -> Result<&[u8], String> {
        self.blocks
            .get(i)
            .and_then(|r| self.payload.get(r.clone()))
            .ok_or_else(|| format!("record has no content block {i}"))
    }
    fn meta(&self) -> Result<&[u8], String> {
        self.block(0)
    }
    fn need<T>(&self, v: Option<T>, name: &str) -> Result<T, String> {
        v.ok_or_else(|| format!("field {name:?} missing, of another type, or cut short"))
    }
    /// `capture_timestamp_ns` of the metadata block.
    pub fn capture_ns(&self) -> Result<i64, String> {
        let m = self.meta()?;
        self.need(
            self.layout.value::<i64>(m, "capture_timestamp_ns"),
            "capture_timestamp_ns",
        )
    }
}

/// What decoding needs to know of the whole recording.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RecordingFacts {
    /// The hardware generation (units differ: Gen1 magnetometers record µT, Gen2 tesla).
    pub generation: Generation,
    /// `T_CPF_Device`, which turns Gen2's device-frame eye gaze into the CPF.
    pub t_cpf_device: Isometry3<f64>,
}

/// Decoders whose state runs from one record of a stream to the next (H.265 frames between
/// key frames), owned by whoever reads the streams in order; empty for stateless streams.
/// Gen2's Opus microphones are passed on coded ([`AudioCoding::Opus`]).
#[derive(Debug, Default)]
pub struct StreamDecoders {
    hevc: BTreeMap<StreamId, HevcGroup>,
}

impl StreamDecoders {
    /// Forgets all state (after a seek: the next frame starts afresh).
    pub fn reset(&mut self) {
        self.hevc.clear();
    }
}

/// One H.265 stream since its last key frame. A key frame stays encoded (consumers decode
/// it, or not, when they need it); the first frame after it that needs it starts a decoder on
/// it, and every later frame of the group goes through that decoder in order and becomes raw
/// pixels. A stream of key frames alone (the Aria Gen2 sample) never decodes here.
#[derive(Debug, Default)]
struct HevcGroup {
    /// The group's key frame, until a decoder has taken it.
    key: Option<Bytes>,
    /// The decoder, once a frame needed the ones before it.
    dec: Option<HevcStream>,
    /// The `key_frame_index` the next frame must have.
    next: u32,
}

impl StreamDecoders {
    /// Takes the next frame of `stream` in order: a key frame (or any frame not H.265) is
    /// passed through, remembered for the frames after it; a frame after one is decoded to
    /// raw grey or RGB pixels. A frame whose group this read did not see from its key frame,
    /// or after a missing frame, is an error naming which.
    pub fn hevc_frame(
        &mut self,
        stream: StreamId,
        frame: ImageFrame,
    ) -> Result<ImageFrame, String> {
        let ImageEncoding::Hevc { key_frame_index } = frame.encoding else {
            return Ok(frame);
        };
        let group = self.hevc.entry(stream).or_default();
        if key_frame_index == 0 {
            *group = HevcGroup {
                key: Some(frame.data.clone()),
                dec: None,
                next: 1,
            };
            return Ok(frame);
        }
        if group.next != key_frame_index || (group.key.is_none() && group.dec.is_none()) {
            let expected = group.next;
            *group = HevcGroup::default();
            return Err(format!(
                "H.265 frame {key_frame_index} after its key frame, but the frames before it \
                 were not read (expected frame {expected}): undecodable until the next key frame"
            ));
        }
        let expect = Some((frame.width, frame.height));
        let dec = match group.dec.take() {
            Some(d) => group.dec.insert(d),
            None => {
                let mut d = HevcStream::new().map_err(|e| e.to_string())?;
                let key = group.key.take().ok_or("key frame missing")?;
                d.decode(&key, expect).map_err(|e| e.to_string())?;
                group.dec.insert(d)
            }
        };
        let img = match dec.decode(&frame.data, expect) {
            Ok(img) => img,
            Err(e) => {
                *group = HevcGroup::default();
                return Err(e.to_string());
            }
        };
        group.next += 1;
        let pixel_format = if img.channels == 1 {
            PIXEL_GREY8
        } else {
            PIXEL_RGB8
        };
        Ok(ImageFrame {
            width: img.width,
            height: img.height,
            encoding: ImageEncoding::Raw {
                pixel_format,
                stride: img.width * u32::from(img.channels),
            },
            data: Bytes::from(img.pixels),
            ..frame
        })
    }
}

/// VRS pixel format of 8-bit grey.
const PIXEL_GREY8: u32 = 1;
/// VRS pixel format of packed 8-bit RGB.
const PIXEL_RGB8: u32 = 4;

/// Decodes one DATA record of `stream`; returns capture time (device ns) and payload.
/// `decoders` carries the stream's decoding state from its previous record.
pub fn decode_data(
    stream: StreamId,
    rec: &SplitRecord<'_>,
    cfg: &StreamConfig,
    facts: &RecordingFacts,
    decoders: &mut StreamDecoders,
) -> Result<(i64, Payload), String> {
    let m = rec.meta()?;
    let dl = rec.layout;
    match stream {
        s if s.is_camera() => {
            let t = rec.capture_ns()?;
            let (i, spec) = rec
                .format
                .blocks()
                .iter()
                .enumerate()
                .find(|(_, b)| matches!(b, ContentBlockSpec::Image { .. }))
                .ok_or("record format has no image block")?;
            let range = rec.blocks.get(i).cloned().ok_or("image block missing")?;
            let (encoding, spec_w, spec_h) = match spec {
                ContentBlockSpec::Image {
                    codec,
                    width,
                    height,
                    stride,
                    ..
                } => {
                    let enc = match codec {
                        ImageCodec::Jpg => ImageEncoding::Jpeg,
                        ImageCodec::Png => ImageEncoding::Png,
                        ImageCodec::Raw => ImageEncoding::Raw {
                            pixel_format: cfg.image_pixel_format.unwrap_or(0),
                            stride: stride.or(cfg.image_stride).unwrap_or(0),
                        },
                        ImageCodec::Video => match cfg.image_codec_name.as_deref() {
                            Some("H.265" | "HEVC" | "hevc") | None => ImageEncoding::Hevc {
                                key_frame_index: dl
                                    .value::<u32>(m, "image_key_frame_index")
                                    .or_else(|| {
                                        dl.value::<u64>(m, "image_key_frame_index")
                                            .map(|v| u32::try_from(v).unwrap_or(u32::MAX))
                                    })
                                    .unwrap_or(0),
                            },
                            Some(other) => {
                                return Err(format!("video codec {other:?} not supported"))
                            }
                        },
                        other => return Err(format!("image codec {other:?} not supported")),
                    };
                    (enc, *width, *height)
                }
                _ => return Err("not an image block".into()),
            };
            let (w, h) = cfg
                .image_size()
                .or(spec_w.zip(spec_h))
                .ok_or("image size unknown (no configuration record)")?;
            let frame = ImageFrame {
                width: w,
                height: h,
                encoding,
                data: rec.share(range)?,
                frame_number: rec.need(dl.value::<u64>(m, "frame_number"), "frame_number")?,
                exposure_s: rec.need(
                    dl.value::<f64>(m, "exposure_duration_s"),
                    "exposure_duration_s",
                )? as f32,
                gain: rec.need(dl.value::<f64>(m, "gain"), "gain")? as f32,
            };
            // H.265 frames after a key frame are decoded here, in the stream's order.
            let frame = decoders.hevc_frame(stream, frame)?;
            Ok((t, Payload::Image(frame)))
        }
        StreamId::ImuRight | StreamId::ImuLeft => {
            let t = rec.capture_ns()?;
            Ok((
                t,
                Payload::Imu(ImuSample {
                    accel_mps2: rec
                        .need(dl.array::<f32, 3>(m, "accelerometer"), "accelerometer")?,
                    gyro_radps: rec.need(dl.array::<f32, 3>(m, "gyroscope"), "gyroscope")?,
                    accel_valid: dl.value::<bool>(m, "accelerometer_valid").unwrap_or(true),
                    gyro_valid: dl.value::<bool>(m, "gyroscope_valid").unwrap_or(true),
                    temperature_c: dl
                        .value::<f64>(m, "temperature_deg_c")
                        .map(|v| v as f32)
                        .unwrap_or(f32::NAN),
                }),
            ))
        }
        StreamId::Magnetometer => {
            let t = rec.capture_ns()?;
            let raw = rec.need(dl.array::<f32, 3>(m, "magnetometer"), "magnetometer")?;
            // Gen1 records micro-tesla (projectaria_tools multiplies by 1e-6); Gen2 tesla.
            let field_t = match facts.generation {
                Generation::Gen1 => raw.map(|v| (f64::from(v) * 1e-6) as f32),
                Generation::Gen2 => raw,
            };
            Ok((t, Payload::Magnetometer(MagSample { field_t })))
        }
        StreamId::Barometer => {
            let t = rec.capture_ns()?;
            Ok((
                t,
                Payload::Barometer(BaroSample {
                    pressure_pa: rec.need(dl.value::<f64>(m, "pressure"), "pressure")?,
                    temperature_c: dl
                        .value::<f64>(m, "temperature")
                        .map(|v| v as f32)
                        .unwrap_or(f32::NAN),
                }),
            ))
        }
        StreamId::Audio => decode_audio(rec, cfg),
        StreamId::DevicePose => {
            device_perception::vio_high_frequency(dl, m).map(|(t, p)| (t, Payload::Pose(p)))
        }
        StreamId::DeviceVio => device_perception::vio(dl, m).map(|(t, p)| (t, Payload::Pose(p))),
        StreamId::EyeGaze => device_perception::eye_gaze(dl, m, &facts.t_cpf_device)
            .map(|(t, g)| (t, Payload::EyeGaze(g))),
        StreamId::HandTracking => {
            device_perception::hands(dl, m).map(|(t, h)| (t, Payload::Hands(h)))
        }
        other => Err(format!("{other} is not a recorded stream")),
    }
}

fn decode_audio(rec: &SplitRecord<'_>, cfg: &StreamConfig) -> Result<(i64, Payload), String> {
    let m = rec.meta()?;
    let ts = rec.need(
        rec.layout.vector::<i64>(m, "capture_timestamps_ns"),
        "capture_timestamps_ns",
    )?;
    let t = *ts.first().ok_or("audio record without timestamps")?;
    let (i, spec) = rec
        .format
        .blocks()
        .iter()
        .enumerate()
        .find(|(_, b)| matches!(b, ContentBlockSpec::Audio { .. }))
        .ok_or("record format has no audio block")?;
    let (spec_channels, spec_rate, fmt, codec) = match spec {
        ContentBlockSpec::Audio {
            channels,
            rate,
            sample_format,
            format,
            ..
        } => (*channels, *rate, sample_format.clone(), format.as_str()),
        _ => (None, None, None, ""),
    };
    let opus = codec == "opus";
    if !opus && !codec.is_empty() && codec != "pcm" {
        return Err(format!("audio format {codec} not supported (PCM, Opus)"));
    }
    if let Some(f) = fmt.as_deref() {
        let ok = if opus { f == "int16le" } else { f == "int32le" };
        if !ok {
            return Err(format!(
                "audio sample format {f} not supported (PCM int32le, Opus int16le)"
            ));
        }
    }
    let channels = cfg
        .audio_channels
        .or(spec_channels.and_then(|c| u8::try_from(c).ok()))
        .filter(|&c| c > 0)
        .ok_or("audio channel count unknown")?;
    let rate = cfg
        .audio_sample_rate_hz
        .or(spec_rate)
        .ok_or("audio sample rate unknown")?;
    let range = rec.blocks.get(i).cloned().ok_or("audio block missing")?;
    if opus {
        // Left coded: only a consumer that needs the samples decodes them (OpusPcm).
        return Ok((
            t,
            Payload::Audio(AudioBlock {
                channels,
                sample_rate_hz: rate,
                timestamps_ns: Arc::from(ts),
                coding: AudioCoding::Opus,
                data: rec.share(range)?,
            }),
        ));
    }
    let frame_bytes = 4 * channels as usize;
    if range.len() != ts.len() * frame_bytes {
        return Err(format!(
            "audio block has {} bytes, {} timestamps × {channels} channels × 4 need {}",
            range.len(),
            ts.len(),
            ts.len() * frame_bytes
        ));
    }
    Ok((
        t,
        Payload::Audio(AudioBlock {
            channels,
            sample_rate_hz: rate,
            timestamps_ns: Arc::from(ts),
            coding: AudioCoding::PcmI32Le,
            data: rec.share(range)?,
        }),
    ))
}
