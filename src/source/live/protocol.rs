//! The vista live wire protocol (pure encode / decode, no I/O).
//!
//! A connection is a sequence of frames, each `u32` little-endian body length followed by the
//! body; the body starts with a one-byte frame kind. The first frame is a [`Hello`] (magic
//! `VSTA`, protocol version, device serial, streaming profile, calibration JSON and, from
//! version 2, the streams the device sends); then any number of sample, IMU-batch and
//! heartbeat frames; then a [`Frame::Goodbye`]. Version 2 adds Gen2's streams and the
//! glasses' own pose, eye gaze and hand tracking; a version-1 peer is still understood. The
//! full layout is documented in `device/PROTOCOL.md`.
//!
//! Every length and count is checked against [`Limits`] *before* anything is allocated, and
//! every malformed input is a [`ProtocolError`] naming the byte offset inside the frame body;
//! nothing here panics on any input.

use bytes::{BufMut, Bytes};

use crate::sample::{
    AudioBlock, AudioCoding, BaroSample, EyeGazeSample, HandSample, ImageEncoding, ImageFrame,
    ImuSample, MagSample, Payload, PoseSample, StreamId, WristPalm,
};
use crate::time::DeviceTime;

use super::wire_streams::{from_wire_id, wire_id, WireStream};

/// The protocol version this build speaks.
pub const PROTOCOL_VERSION: u16 = 2;
/// The oldest version this build still reads (a version-1 hello announces no streams: Gen1's
/// nine are implied).
pub const MIN_PROTOCOL_VERSION: u16 = 1;
/// The four bytes that open every hello body after the kind byte.
pub const HELLO_MAGIC: [u8; 4] = *b"VSTA";
/// Bytes of the length prefix in front of every frame body.
pub const LENGTH_PREFIX_BYTES: usize = 4;

/// Frame kind byte: hello.
pub const KIND_HELLO: u8 = 1;
/// Frame kind byte: one sample.
pub const KIND_SAMPLE: u8 = 2;
/// Frame kind byte: a batch of IMU samples of one stream.
pub const KIND_IMU_BATCH: u8 = 3;
/// Frame kind byte: heartbeat.
pub const KIND_HEARTBEAT: u8 = 4;
/// Frame kind byte: goodbye.
pub const KIND_GOODBYE: u8 = 5;
/// Frame kind byte: the client's shared token (host → device, first frame, when the device
/// listens beyond loopback).
pub const KIND_AUTH: u8 = 6;

const PAYLOAD_IMAGE: u8 = 1;
const PAYLOAD_IMU: u8 = 2;
const PAYLOAD_MAG: u8 = 3;
const PAYLOAD_BARO: u8 = 4;
const PAYLOAD_AUDIO: u8 = 5;
/// Version 2: a device-computed pose (Gen2's VIO).
const PAYLOAD_POSE: u8 = 6;
/// Version 2: a device-computed eye gaze.
const PAYLOAD_GAZE: u8 = 7;
/// Version 2: device-computed hand tracking.
const PAYLOAD_HANDS: u8 = 8;
/// Version 2: an audio block coded as one Opus multistream packet (Gen2's microphones).
const PAYLOAD_AUDIO_OPUS: u8 = 9;
/// Largest Opus packet accepted, bytes (a 120 ms packet of 16 channels at 510 kb/s is ~120 kB).
pub const MAX_OPUS_PACKET_BYTES: u32 = 1 << 20;

const ENC_JPEG: u8 = 0;
const ENC_PNG: u8 = 1;
const ENC_RAW: u8 = 2;
/// Image encoding: one H.265 frame (Aria Gen2), then its `u32` key-frame index.
const ENC_HEVC: u8 = 3;

/// Bytes of one IMU entry in a batch: capture i64, accel 3×f32, gyro 3×f32, flags u8, temp f32.
pub const IMU_ENTRY_BYTES: usize = 8 + 12 + 12 + 1 + 4;

/// Upper bounds on everything a peer can claim. A frame exceeding one is rejected before
/// any allocation of the claimed size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Largest frame body, bytes (the length prefix is checked against this first).
    pub max_frame_bytes: u32,
    /// Largest device serial / streaming profile / goodbye reason, bytes.
    pub max_string_bytes: u32,
    /// Largest calibration JSON, bytes.
    pub max_calib_bytes: u32,
    /// Largest image data, bytes.
    pub max_image_bytes: u32,
    /// Most IMU samples in one batch.
    pub max_imu_batch: u32,
    /// Most audio frames in one block.
    pub max_audio_frames: u32,
    /// Most audio channels.
    pub max_audio_channels: u8,
    /// Most streams a hello announces.
    pub max_streams: u16,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            // A raw RGB frame: Gen1's 1408×1408 is ~5.9 MB, Gen2's 2016×1512 ~9.1 MB, its
            // largest 2560×1920 ~14.7 MB; leave room for headers.
            max_frame_bytes: 16 << 20,
            max_string_bytes: 256,
            max_calib_bytes: 1 << 20,
            max_image_bytes: 16 << 20,
            max_imu_batch: 4096,
            max_audio_frames: 65_536,
            max_audio_channels: 16,
            max_streams: 64,
        }
    }
}

/// What the device says first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hello {
    /// Protocol version of the sender.
    pub version: u16,
    /// Device serial number, e.g. `1WM09380041283`.
    pub device_serial: String,
    /// Streaming profile name, e.g. `profile18`.
    pub streaming_profile: String,
    /// The device's factory calibration JSON (as in a recording's `calib_json` tag); may be
    /// empty when unknown.
    pub calib_json: String,
    /// The streams the device sends (version 2; a version-1 hello implies Gen1's nine).
    pub streams: Vec<WireStream>,
}

impl Hello {
    /// A hello of this build's version announcing Gen1's nine streams.
    pub fn new(
        device_serial: impl Into<String>,
        streaming_profile: impl Into<String>,
        calib_json: impl Into<String>,
    ) -> Self {
        Self {
            version: PROTOCOL_VERSION,
            device_serial: device_serial.into(),
            streaming_profile: streaming_profile.into(),
            calib_json: calib_json.into(),
            streams: WireStream::gen1(),
        }
    }

    /// The same hello announcing `streams` instead.
    pub fn with_streams(mut self, streams: Vec<WireStream>) -> Self {
        self.streams = streams;
        self
    }

    /// The announced streams this build knows, in announcement order, each once.
    pub fn known_streams(&self) -> Vec<StreamId> {
        let mut out: Vec<StreamId> = Vec::new();
        for s in self.streams.iter().filter_map(WireStream::stream) {
            if !out.contains(&s) {
                out.push(s);
            }
        }
        out
    }

    /// The announced streams this build does not know.
    pub fn unknown_streams(&self) -> impl Iterator<Item = &WireStream> {
        self.streams.iter().filter(|s| s.stream().is_none())
    }

    /// The device's name for `stream` (a camera's calibration label), when announced.
    pub fn label_of(&self, stream: StreamId) -> Option<&str> {
        self.streams
            .iter()
            .find(|s| s.stream() == Some(stream))
            .map(|s| s.label.as_str())
    }
}

/// One IMU measurement with its capture time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimedImu {
    /// Capture time, device ns.
    pub capture: DeviceTime,
    /// The measurement.
    pub imu: ImuSample,
}

/// One decoded frame.
#[derive(Clone, Debug, PartialEq)]
pub enum Frame {
    /// Connection opening.
    Hello(Hello),
    /// One sample (image, IMU, magnetometer, barometer or an audio block).
    Sample {
        /// The stream (on the wire: its VRS id, e.g. `214-1`).
        stream: StreamId,
        /// Capture time on the device clock.
        capture: DeviceTime,
        /// The measurement.
        payload: Payload,
    },
    /// IMU samples of one stream as the SDK delivers them, in capture order.
    ImuBatch {
        /// `imu-right` or `imu-left`.
        stream: StreamId,
        /// The samples.
        samples: Vec<TimedImu>,
    },
    /// Keep-alive carrying the device's current clock.
    Heartbeat {
        /// Device clock when sent, ns.
        device_now: DeviceTime,
    },
    /// The device ends the stream cleanly.
    Goodbye {
        /// Why (free text, may be empty).
        reason: String,
    },
    /// Host → device: the shared token (the only frame a host sends).
    Auth {
        /// The token given to both sides (`--token`).
        token: String,
    },
    /// A sample on a stream this build does not know (a newer device's): its id only, the
    /// rest of the frame unread. Decoded, never encoded.
    UnknownStream {
        /// VRS-style recordable type id.
        type_id: i32,
        /// Instance.
        instance: u16,
    },
}

/// A malformed, oversized or unencodable frame. Offsets are bytes from the start of the
/// frame body (the kind byte is offset 0).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProtocolError {
    /// The body ended before a field.
    #[error("frame truncated at byte {offset}: {what} needs {need} bytes, {have} left")]
    Truncated {
        /// Offset of the field.
        offset: usize,
        /// The field.
        what: &'static str,
        /// Bytes needed.
        need: usize,
        /// Bytes left.
        have: usize,
    },
    /// A length or count exceeds its configured maximum.
    #[error("{what} at byte {offset} claims {claimed}, more than the maximum {max}")]
    TooLarge {
        /// Offset of the length field.
        offset: usize,
        /// The field.
        what: &'static str,
        /// Claimed value.
        claimed: u64,
        /// Configured maximum.
        max: u64,
    },
    /// An unknown tag byte.
    #[error("unknown {what} {value} at byte {offset}")]
    UnknownTag {
        /// Offset of the byte.
        offset: usize,
        /// Which tag.
        what: &'static str,
        /// Its value.
        value: u8,
    },
    /// A stream id vista does not know, or one that cannot carry this payload.
    #[error("stream {type_id}-{instance} at byte {offset}: {message}")]
    BadStream {
        /// Offset of the stream id.
        offset: usize,
        /// VRS recordable type id.
        type_id: i32,
        /// VRS instance id.
        instance: u16,
        /// Why.
        message: &'static str,
    },
    /// A string field is not UTF-8.
    #[error("{what} at byte {offset} is not UTF-8")]
    BadUtf8 {
        /// Offset of the string bytes.
        offset: usize,
        /// The field.
        what: &'static str,
    },
    /// The hello does not start with `VSTA` or has a version this build does not speak.
    #[error("bad hello at byte {offset}: {message}")]
    BadHello {
        /// Offset of the offending field.
        offset: usize,
        /// Why.
        message: String,
    },
    /// Fields disagree with each other (e.g. audio byte count vs frames × channels).
    #[error("inconsistent frame at byte {offset}: {message}")]
    Inconsistent {
        /// Offset of the field found inconsistent.
        offset: usize,
        /// Why.
        message: String,
    },
    /// Bytes left over after the last field.
    #[error("{extra} unexpected bytes after the frame's last field at byte {offset}")]
    Trailing {
        /// Offset of the first extra byte.
        offset: usize,
        /// How many.
        extra: usize,
    },
    /// The frame cannot be encoded (payload kind or stream not carried by the protocol,
    /// or a field longer than its wire width).
    #[error("cannot encode: {0}")]
    Unencodable(String),
}

/// Checks a frame's length prefix before reading (or allocating) its body.
pub fn check_frame_len(len: u32, limits: &Limits) -> Result<usize, ProtocolError> {
    if len == 0 {
        return Err(ProtocolError::Truncated {
            offset: 0,
            what: "frame kind",
            need: 1,
            have: 0,
        });
    }
    if len > limits.max_frame_bytes {
        return Err(ProtocolError::TooLarge {
            offset: 0,
            what: "frame length",
            claimed: u64::from(len),
            max: u64::from(limits.max_frame_bytes),
        });
    }
    Ok(len as usize)
}

// ---------------------------------------------------------------- encoding

/// Appends `frame`, length prefix included, to `out`. Fails (appending nothing) for payloads
/// the protocol does not carry or fields longer than their wire width.
pub fn encode_frame(frame: &Frame, out: &mut Vec<u8>) -> Result<(), ProtocolError> {
    let start = out.len();
    out.put_u32_le(0);
    let res = encode_body(frame, out);
    if let Err(e) = res {
        out.truncate(start);
        return Err(e);
    }
    let body = out.len() - start - LENGTH_PREFIX_BYTES;
    let Ok(body_u32) = u32::try_from(body) else {
        out.truncate(start);
        return Err(ProtocolError::Unencodable(format!(
            "frame body of {body} bytes"
        )));
    };
    out[start..start + LENGTH_PREFIX_BYTES].copy_from_slice(&body_u32.to_le_bytes());
    Ok(())
}

fn encode_body(frame: &Frame, out: &mut Vec<u8>) -> Result<(), ProtocolError> {
    match frame {
        Frame::Hello(h) => {
            out.put_u8(KIND_HELLO);
            out.put_slice(&HELLO_MAGIC);
            out.put_u16_le(h.version);
            put_str16(out, &h.device_serial, "device serial")?;
            put_str16(out, &h.streaming_profile, "streaming profile")?;
            put_bytes32(out, h.calib_json.as_bytes(), "calibration JSON")?;
            if h.version >= 2 {
                let n = u16::try_from(h.streams.len())
                    .map_err(|_| ProtocolError::Unencodable("too many streams".into()))?;
                out.put_u16_le(n);
                for s in &h.streams {
                    out.put_i32_le(s.type_id);
                    out.put_u16_le(s.instance);
                    put_str16(out, &s.label, "stream label")?;
                }
            } else if h.streams != WireStream::gen1() {
                return Err(ProtocolError::Unencodable(
                    "a version-1 hello cannot announce streams beyond Gen1's".into(),
                ));
            }
        }
        Frame::Sample {
            stream,
            capture,
            payload,
        } => {
            out.put_u8(KIND_SAMPLE);
            put_stream(out, *stream)?;
            out.put_i64_le(capture.ns());
            encode_payload(payload, out)?;
        }
        Frame::ImuBatch { stream, samples } => {
            out.put_u8(KIND_IMU_BATCH);
            put_stream(out, *stream)?;
            let n = u32::try_from(samples.len())
                .map_err(|_| ProtocolError::Unencodable("IMU batch too long".into()))?;
            out.put_u32_le(n);
            for s in samples {
                out.put_i64_le(s.capture.ns());
                put_imu(out, &s.imu);
            }
        }
        Frame::Heartbeat { device_now } => {
            out.put_u8(KIND_HEARTBEAT);
            out.put_i64_le(device_now.ns());
        }
        Frame::Goodbye { reason } => {
            out.put_u8(KIND_GOODBYE);
            put_str16(out, reason, "goodbye reason")?;
        }
        Frame::Auth { token } => {
            out.put_u8(KIND_AUTH);
            put_str16(out, token, "token")?;
        }
        Frame::UnknownStream { type_id, instance } => {
            return Err(ProtocolError::Unencodable(format!(
                "a sample on unknown stream {type_id}-{instance}"
            )))
        }
    }
    Ok(())
}

fn encode_payload(payload: &Payload, out: &mut Vec<u8>) -> Result<(), ProtocolError> {
    match payload {
        Payload::Image(im) => {
            out.put_u8(PAYLOAD_IMAGE);
            out.put_u32_le(im.width);
            out.put_u32_le(im.height);
            match im.encoding {
                ImageEncoding::Jpeg => out.put_u8(ENC_JPEG),
                ImageEncoding::Png => out.put_u8(ENC_PNG),
                ImageEncoding::Hevc { key_frame_index } => {
                    out.put_u8(ENC_HEVC);
                    out.put_u32_le(key_frame_index);
                }
                ImageEncoding::Raw {
                    pixel_format,
                    stride,
                } => {
                    out.put_u8(ENC_RAW);
                    out.put_u32_le(pixel_format);
                    out.put_u32_le(stride);
                }
            }
            out.put_u64_le(im.frame_number);
            out.put_f32_le(im.exposure_s);
            out.put_f32_le(im.gain);
            put_bytes32(out, &im.data, "image data")?;
        }
        Payload::Imu(imu) => {
            out.put_u8(PAYLOAD_IMU);
            put_imu(out, imu);
        }
        Payload::Magnetometer(m) => {
            out.put_u8(PAYLOAD_MAG);
            for v in m.field_t {
                out.put_f32_le(v);
            }
        }
        Payload::Barometer(b) => {
            out.put_u8(PAYLOAD_BARO);
            out.put_f64_le(b.pressure_pa);
            out.put_f32_le(b.temperature_c);
        }
        Payload::Audio(a) => {
            out.put_u8(match a.coding {
                AudioCoding::PcmI32Le => PAYLOAD_AUDIO,
                AudioCoding::Opus => PAYLOAD_AUDIO_OPUS,
            });
            out.put_u8(a.channels);
            out.put_u32_le(a.sample_rate_hz);
            let n = u32::try_from(a.timestamps_ns.len())
                .map_err(|_| ProtocolError::Unencodable("audio block too long".into()))?;
            out.put_u32_le(n);
            for t in a.timestamps_ns.iter() {
                out.put_i64_le(*t);
            }
            put_bytes32(out, &a.data, "audio data")?;
        }
        Payload::Pose(p) => {
            out.put_u8(PAYLOAD_POSE);
            for v in p.t_world_device.translation.vector.iter() {
                out.put_f64_le(*v);
            }
            let q = p.t_world_device.rotation.quaternion();
            for v in [q.w, q.i, q.j, q.k] {
                out.put_f64_le(v);
            }
            for v in p
                .linear_velocity_mps
                .iter()
                .chain(&p.angular_velocity_radps)
            {
                out.put_f32_le(*v);
            }
            out.put_f32_le(p.quality);
        }
        Payload::EyeGaze(g) => {
            out.put_u8(PAYLOAD_GAZE);
            out.put_f32_le(g.yaw_rad);
            out.put_f32_le(g.pitch_rad);
            out.put_u8(u8::from(g.depth_m.is_some()));
            out.put_f32_le(g.depth_m.unwrap_or(0.0));
        }
        Payload::Hands(h) => {
            out.put_u8(PAYLOAD_HANDS);
            out.put_u8(u8::from(h.left.is_some()) | (u8::from(h.right.is_some()) << 1));
            for hand in [&h.left, &h.right].into_iter().flatten() {
                out.put_f32_le(hand.confidence);
                for v in hand.wrist_m.iter().chain(&hand.palm_m) {
                    out.put_f32_le(*v);
                }
            }
        }
    }
    Ok(())
}

fn put_stream(out: &mut Vec<u8>, stream: StreamId) -> Result<(), ProtocolError> {
    let Some((t, i)) = wire_id(stream) else {
        return Err(ProtocolError::Unencodable(format!(
            "stream {stream} is computed on the host and has no wire id"
        )));
    };
    out.put_i32_le(t);
    out.put_u16_le(i);
    Ok(())
}

fn put_imu(out: &mut Vec<u8>, imu: &ImuSample) {
    for v in imu.accel_mps2 {
        out.put_f32_le(v);
    }
    for v in imu.gyro_radps {
        out.put_f32_le(v);
    }
    out.put_u8(u8::from(imu.accel_valid) | (u8::from(imu.gyro_valid) << 1));
    out.put_f32_le(imu.temperature_c);
}

fn put_str16(out: &mut Vec<u8>, s: &str, what: &str) -> Result<(), ProtocolError> {
    let n = u16::try_from(s.len())
        .map_err(|_| ProtocolError::Unencodable(format!("{what} of {} bytes", s.len())))?;
    out.put_u16_le(n);
    out.put_slice(s.as_bytes());
    Ok(())
}

fn put_bytes32(out: &mut Vec<u8>, b: &[u8], what: &str) -> Result<(), ProtocolError> {
    let n = u32::try_from(b.len())
        .map_err(|_| ProtocolError::Unencodable(format!("{what} of {} bytes", b.len())))?;
    out.put_u32_le(n);
    out.put_slice(b);
    Ok(())
}

// ---------------------------------------------------------------- decoding

/// Decodes one frame body (without its length prefix). Image and audio bytes are slices of
/// `body` (no copy).
pub fn decode_frame(body: &Bytes, limits: &Limits) -> Result<Frame, ProtocolError> {
    if body.len() > limits.max_frame_bytes as usize {
        return Err(ProtocolError::TooLarge {
            offset: 0,
            what: "frame length",
            claimed: body.len() as u64,
            max: u64::from(limits.max_frame_bytes),
        });
    }
    let mut r = Rd { buf: body, pos: 0 };
    let kind_at = r.pos;
    let kind = r.u8("frame kind")?;
    let frame = match kind {
        KIND_HELLO => {
            let at = r.pos;
            let magic = r.take(4, "hello magic")?;
            if magic != HELLO_MAGIC.as_slice() {
                return Err(ProtocolError::BadHello {
                    offset: at,
                    message: format!("magic {magic:02x?}, expected \"VSTA\""),
                });
            }
            let at = r.pos;
            let version = r.u16("protocol version")?;
            if !(MIN_PROTOCOL_VERSION..=PROTOCOL_VERSION).contains(&version) {
                return Err(ProtocolError::BadHello {
                    offset: at,
                    message: format!(
                        "protocol version {version}; this build speaks \
                         {MIN_PROTOCOL_VERSION} to {PROTOCOL_VERSION}"
                    ),
                });
            }
            let device_serial = r.str16("device serial", limits.max_string_bytes)?;
            let streaming_profile = r.str16("streaming profile", limits.max_string_bytes)?;
            let calib_json = r.str32("calibration JSON", limits.max_calib_bytes)?;
            let streams = if version >= 2 {
                r.announced_streams(limits)?
            } else {
                WireStream::gen1()
            };
            Frame::Hello(Hello {
                version,
                device_serial,
                streaming_profile,
                calib_json,
                streams,
            })
        }
        KIND_SAMPLE => {
            let stream_at = r.pos;
            let type_id = r.i32("stream type id")?;
            let instance = r.u16("stream instance")?;
            let Some(stream) = from_wire_id(type_id, instance) else {
                // A newer device's stream: skipped whole, whatever its payload.
                return Ok(Frame::UnknownStream { type_id, instance });
            };
            let capture = DeviceTime(r.i64("capture time")?);
            let payload = decode_payload(&mut r, limits)?;
            check_stream_payload(stream, &payload, stream_at)?;
            Frame::Sample {
                stream,
                capture,
                payload,
            }
        }
        KIND_IMU_BATCH => {
            let (stream_at, stream) = r.stream()?;
            if !matches!(stream, StreamId::ImuLeft | StreamId::ImuRight) {
                return Err(bad_stream(
                    stream,
                    stream_at,
                    "IMU batch on a non-IMU stream",
                ));
            }
            let at = r.pos;
            let n = r.u32("IMU batch count")?;
            if n > limits.max_imu_batch {
                return Err(ProtocolError::TooLarge {
                    offset: at,
                    what: "IMU batch count",
                    claimed: u64::from(n),
                    max: u64::from(limits.max_imu_batch),
                });
            }
            let need = n as usize * IMU_ENTRY_BYTES;
            r.ensure(need, "IMU batch entries")?;
            let mut samples = Vec::with_capacity(n as usize);
            for _ in 0..n {
                let capture = DeviceTime(r.i64("IMU capture time")?);
                let imu = r.imu()?;
                samples.push(TimedImu { capture, imu });
            }
            Frame::ImuBatch { stream, samples }
        }
        KIND_HEARTBEAT => Frame::Heartbeat {
            device_now: DeviceTime(r.i64("heartbeat device time")?),
        },
        KIND_GOODBYE => Frame::Goodbye {
            reason: r.str16("goodbye reason", limits.max_string_bytes)?,
        },
        KIND_AUTH => Frame::Auth {
            token: r.str16("token", limits.max_string_bytes)?,
        },
        other => {
            return Err(ProtocolError::UnknownTag {
                offset: kind_at,
                what: "frame kind",
                value: other,
            })
        }
    };
    if r.pos != body.len() {
        return Err(ProtocolError::Trailing {
            offset: r.pos,
            extra: body.len() - r.pos,
        });
    }
    Ok(frame)
}

fn bad_stream(stream: StreamId, offset: usize, message: &'static str) -> ProtocolError {
    let (type_id, instance) = wire_id(stream).unwrap_or((-1, 0));
    ProtocolError::BadStream {
        offset,
        type_id,
        instance,
        message,
    }
}

fn check_stream_payload(
    stream: StreamId,
    payload: &Payload,
    offset: usize,
) -> Result<(), ProtocolError> {
    let ok = match payload {
        Payload::Image(_) => stream.is_camera(),
        Payload::Imu(_) => matches!(stream, StreamId::ImuLeft | StreamId::ImuRight),
        Payload::Magnetometer(_) => stream == StreamId::Magnetometer,
        Payload::Barometer(_) => stream == StreamId::Barometer,
        Payload::Audio(_) => stream == StreamId::Audio,
        Payload::Pose(_) => matches!(stream, StreamId::DevicePose | StreamId::DeviceVio),
        Payload::EyeGaze(_) => stream == StreamId::EyeGaze,
        Payload::Hands(_) => stream == StreamId::HandTracking,
    };
    if ok {
        Ok(())
    } else {
        Err(bad_stream(
            stream,
            offset,
            "payload kind does not belong to this stream",
        ))
    }
}

fn decode_payload(r: &mut Rd<'_>, limits: &Limits) -> Result<Payload, ProtocolError> {
    let at = r.pos;
    let tag = r.u8("payload kind")?;
    Ok(match tag {
        PAYLOAD_IMAGE => {
            let width = r.u32("image width")?;
            let height = r.u32("image height")?;
            let enc_at = r.pos;
            let encoding = match r.u8("image encoding")? {
                ENC_JPEG => ImageEncoding::Jpeg,
                ENC_PNG => ImageEncoding::Png,
                ENC_HEVC => ImageEncoding::Hevc {
                    key_frame_index: r.u32("key frame index")?,
                },
                ENC_RAW => {
                    let pixel_format = r.u32("pixel format")?;
                    let stride = r.u32("row stride")?;
                    ImageEncoding::Raw {
                        pixel_format,
                        stride,
                    }
                }
                v => {
                    return Err(ProtocolError::UnknownTag {
                        offset: enc_at,
                        what: "image encoding",
                        value: v,
                    })
                }
            };
            let frame_number = r.u64("frame number")?;
            let exposure_s = r.f32("exposure")?;
            let gain = r.f32("gain")?;
            let data_at = r.pos;
            let data = r.bytes32("image data", limits.max_image_bytes)?;
            if let ImageEncoding::Raw { stride, .. } = encoding {
                let need = u64::from(stride) * u64::from(height);
                if (data.len() as u64) < need || u64::from(stride) < u64::from(width) {
                    return Err(ProtocolError::Inconsistent {
                        offset: data_at,
                        message: format!(
                            "raw image {width}x{height} stride {stride} needs {need} bytes, has {}",
                            data.len()
                        ),
                    });
                }
            }
            Payload::Image(ImageFrame {
                width,
                height,
                encoding,
                data,
                frame_number,
                exposure_s,
                gain,
            })
        }
        PAYLOAD_IMU => Payload::Imu(r.imu()?),
        PAYLOAD_MAG => Payload::Magnetometer(MagSample {
            field_t: [r.f32("mag x")?, r.f32("mag y")?, r.f32("mag z")?],
        }),
        PAYLOAD_BARO => Payload::Barometer(BaroSample {
            pressure_pa: r.f64("pressure")?,
            temperature_c: r.f32("temperature")?,
        }),
        PAYLOAD_AUDIO | PAYLOAD_AUDIO_OPUS => {
            let opus = tag == PAYLOAD_AUDIO_OPUS;
            let ch_at = r.pos;
            let channels = r.u8("audio channels")?;
            if channels == 0 || channels > limits.max_audio_channels {
                return Err(ProtocolError::TooLarge {
                    offset: ch_at,
                    what: "audio channels (must be ≥ 1)",
                    claimed: u64::from(channels),
                    max: u64::from(limits.max_audio_channels),
                });
            }
            let sample_rate_hz = r.u32("audio sample rate")?;
            let n_at = r.pos;
            let frames = r.u32("audio frame count")?;
            if frames > limits.max_audio_frames {
                return Err(ProtocolError::TooLarge {
                    offset: n_at,
                    what: "audio frame count",
                    claimed: u64::from(frames),
                    max: u64::from(limits.max_audio_frames),
                });
            }
            r.ensure(frames as usize * 8, "audio timestamps")?;
            let mut ts = Vec::with_capacity(frames as usize);
            for _ in 0..frames {
                ts.push(r.i64("audio timestamp")?);
            }
            if opus {
                let data = r.bytes32("Opus packet", MAX_OPUS_PACKET_BYTES)?;
                return Ok(Payload::Audio(AudioBlock {
                    channels,
                    sample_rate_hz,
                    timestamps_ns: ts.into(),
                    coding: AudioCoding::Opus,
                    data,
                }));
            }
            let pcm_at = r.pos;
            let max_pcm = u64::from(frames) * u64::from(channels) * 4;
            let pcm = r.bytes32("audio PCM", u32::try_from(max_pcm).unwrap_or(u32::MAX))?;
            if pcm.len() as u64 != max_pcm {
                return Err(ProtocolError::Inconsistent {
                    offset: pcm_at,
                    message: format!(
                        "audio PCM has {} bytes, {frames} frames × {channels} channels × 4 = {max_pcm}",
                        pcm.len()
                    ),
                });
            }
            Payload::Audio(AudioBlock {
                channels,
                sample_rate_hz,
                timestamps_ns: ts.into(),
                coding: AudioCoding::PcmI32Le,
                data: pcm,
            })
        }
        PAYLOAD_POSE => Payload::Pose(r.pose()?),
        PAYLOAD_GAZE => {
            let yaw_rad = r.f32("gaze yaw")?;
            let pitch_rad = r.f32("gaze pitch")?;
            let flag_at = r.pos;
            let has_depth = r.u8("gaze depth flag")?;
            let depth = r.f32("gaze depth")?;
            let depth_m = match has_depth {
                0 => None,
                1 => Some(depth),
                v => {
                    return Err(ProtocolError::UnknownTag {
                        offset: flag_at,
                        what: "gaze depth flag",
                        value: v,
                    })
                }
            };
            if !(yaw_rad.is_finite() && pitch_rad.is_finite())
                || depth_m.is_some_and(|d| !d.is_finite())
            {
                return Err(ProtocolError::Inconsistent {
                    offset: at + 1,
                    message: "eye gaze with a non-finite angle or depth".into(),
                });
            }
            Payload::EyeGaze(EyeGazeSample {
                yaw_rad,
                pitch_rad,
                depth_m,
            })
        }
        PAYLOAD_HANDS => {
            let mask_at = r.pos;
            let mask = r.u8("hands present")?;
            if mask > 3 {
                return Err(ProtocolError::UnknownTag {
                    offset: mask_at,
                    what: "hands present mask",
                    value: mask,
                });
            }
            let left = if mask & 1 != 0 { Some(r.hand()?) } else { None };
            let right = if mask & 2 != 0 { Some(r.hand()?) } else { None };
            Payload::Hands(HandSample { left, right })
        }
        v => {
            return Err(ProtocolError::UnknownTag {
                offset: at,
                what: "payload kind",
                value: v,
            })
        }
    })
}

/// A bounds-checked little-endian reader over a frame body.
struct Rd<'a> {
    buf: &'a Bytes,
    pos: usize,
}

impl Rd<'_> {
    fn ensure(&self, need: usize, what: &'static str) -> Result<(), ProtocolError> {
        let have = self.buf.len().saturating_sub(self.pos);
        if need > have {
            return Err(ProtocolError::Truncated {
                offset: self.pos,
                what,
                need,
                have,
            });
        }
        Ok(())
    }
    fn take(&mut self, n: usize, what: &'static str) -> Result<&[u8], ProtocolError> {
        self.ensure(n, what)?;
        let s = self
            .buf
            .get(self.pos..self.pos + n)
            .ok_or(ProtocolError::Truncated {
                offset: self.pos,
                what,
                need: n,
                have: 0,
            })?;
        self.pos += n;
        Ok(s)
    }
    fn arr<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N], ProtocolError> {
        let s = self.take(N, what)?;
        let mut a = [0u8; N];
        a.copy_from_slice(s);
        Ok(a)
    }
    fn u8(&mut self, what: &'static str) -> Result<u8, ProtocolError> {
        Ok(self.arr::<1>(what)?[0])
    }
    fn u16(&mut self, what: &'static str) -> Result<u16, ProtocolError> {
        Ok(u16::from_le_bytes(self.arr(what)?))
    }
    fn u32(&mut self, what: &'static str) -> Result<u32, ProtocolError> {
        Ok(u32::from_le_bytes(self.arr(what)?))
    }
    fn i32(&mut self, what: &'static str) -> Result<i32, ProtocolError> {
        Ok(i32::from_le_bytes(self.arr(what)?))
    }
    fn u64(&mut self, what: &'static str) -> Result<u64, ProtocolError> {
        Ok(u64::from_le_bytes(self.arr(what)?))
    }
    fn i64(&mut self, what: &'static str) -> Result<i64, ProtocolError> {
        Ok(i64::from_le_bytes(self.arr(what)?))
    }
    fn f32(&mut self, what: &'static str) -> Result<f32, ProtocolError> {
        Ok(f32::from_le_bytes(self.arr(what)?))
    }
    fn f64(&mut self, what: &'static str) -> Result<f64, ProtocolError> {
        Ok(f64::from_le_bytes(self.arr(what)?))
    }
    fn stream(&mut self) -> Result<(usize, StreamId), ProtocolError> {
        let at = self.pos;
        let type_id = self.i32("stream type id")?;
        let instance = self.u16("stream instance")?;
        let stream = from_wire_id(type_id, instance).ok_or(ProtocolError::BadStream {
            offset: at,
            type_id,
            instance,
            message: "unknown stream",
        })?;
        Ok((at, stream))
    }
    fn imu(&mut self) -> Result<ImuSample, ProtocolError> {
        let accel_mps2 = [r32(self)?, r32(self)?, r32(self)?];
        let gyro_radps = [r32(self)?, r32(self)?, r32(self)?];
        let flags = self.u8("IMU flags")?;
        let temperature_c = self.f32("IMU temperature")?;
        Ok(ImuSample {
            accel_mps2,
            gyro_radps,
            accel_valid: flags & 1 != 0,
            gyro_valid: flags & 2 != 0,
            temperature_c,
        })
    }
    /// The stream list of a version-2 hello.
    fn announced_streams(&mut self, limits: &Limits) -> Result<Vec<WireStream>, ProtocolError> {
        let at = self.pos;
        let n = self.u16("stream count")?;
        if n > limits.max_streams {
            return Err(ProtocolError::TooLarge {
                offset: at,
                what: "stream count",
                claimed: u64::from(n),
                max: u64::from(limits.max_streams),
            });
        }
        // Each entry is at least 8 bytes: check before allocating.
        self.ensure(usize::from(n) * 8, "stream entries")?;
        let mut out = Vec::with_capacity(usize::from(n));
        for _ in 0..n {
            let type_id = self.i32("stream type id")?;
            let instance = self.u16("stream instance")?;
            let label = self.str16("stream label", limits.max_string_bytes)?;
            out.push(WireStream {
                type_id,
                instance,
                label,
            });
        }
        Ok(out)
    }
    /// A device pose: translation (3 × f64, m), unit quaternion (w, x, y, z; f64), linear and
    /// angular velocity (3 × f32 each), quality (f32).
    fn pose(&mut self) -> Result<PoseSample, ProtocolError> {
        let at = self.pos;
        let t = [
            self.f64("pose x")?,
            self.f64("pose y")?,
            self.f64("pose z")?,
        ];
        let q = [
            self.f64("pose qw")?,
            self.f64("pose qx")?,
            self.f64("pose qy")?,
            self.f64("pose qz")?,
        ];
        let mut v = [0f32; 6];
        for x in &mut v {
            *x = self.f32("pose velocity")?;
        }
        let quality = self.f32("pose quality")?;
        let norm = q.iter().map(|x| x * x).sum::<f64>().sqrt();
        let finite = t.iter().chain(&q).all(|x| x.is_finite())
            && v.iter().all(|x| x.is_finite())
            && quality.is_finite();
        if !finite || !(0.5..=2.0).contains(&norm) {
            return Err(ProtocolError::Inconsistent {
                offset: at,
                message: format!(
                    "pose with non-finite values or a rotation quaternion of norm {norm}"
                ),
            });
        }
        let q = nalgebra::Quaternion::new(q[0], q[1], q[2], q[3]);
        // A unit quaternion stays bit for bit as sent; anything else is normalised.
        let rotation = if (norm - 1.0).abs() <= 1e-9 {
            nalgebra::UnitQuaternion::new_unchecked(q)
        } else {
            nalgebra::UnitQuaternion::from_quaternion(q)
        };
        Ok(PoseSample {
            t_world_device: nalgebra::Isometry3::from_parts(
                nalgebra::Translation3::new(t[0], t[1], t[2]),
                rotation,
            ),
            linear_velocity_mps: [v[0], v[1], v[2]],
            angular_velocity_radps: [v[3], v[4], v[5]],
            quality: quality.clamp(0.0, 1.0),
        })
    }
    /// One hand: confidence, wrist and palm (3 × f32 each, m, device frame).
    fn hand(&mut self) -> Result<WristPalm, ProtocolError> {
        let at = self.pos;
        let mut v = [0f32; 7];
        for x in &mut v {
            *x = self.f32("hand value")?;
        }
        if !v.iter().all(|x| x.is_finite()) {
            return Err(ProtocolError::Inconsistent {
                offset: at,
                message: "a hand with a non-finite value".into(),
            });
        }
        Ok(WristPalm {
            confidence: v[0].clamp(0.0, 1.0),
            wrist_m: [v[1], v[2], v[3]],
            palm_m: [v[4], v[5], v[6]],
        })
    }
    /// A `u32`-length-prefixed byte field, bounded by `max`, as a zero-copy slice.
    fn bytes32(&mut self, what: &'static str, max: u32) -> Result<Bytes, ProtocolError> {
        let at = self.pos;
        let n = self.u32(what)?;
        if n > max {
            return Err(ProtocolError::TooLarge {
                offset: at,
                what,
                claimed: u64::from(n),
                max: u64::from(max),
            });
        }
        let n = n as usize;
        self.ensure(n, what)?;
        let b = self.buf.slice(self.pos..self.pos + n);
        self.pos += n;
        Ok(b)
    }
    fn str16(&mut self, what: &'static str, max: u32) -> Result<String, ProtocolError> {
        let at = self.pos;
        let n = self.u16(what)?;
        if u32::from(n) > max {
            return Err(ProtocolError::TooLarge {
                offset: at,
                what,
                claimed: u64::from(n),
                max: u64::from(max),
            });
        }
        let s_at = self.pos;
        let b = self.take(n as usize, what)?;
        String::from_utf8(b.to_vec()).map_err(|_| ProtocolError::BadUtf8 { offset: s_at, what })
    }
    fn str32(&mut self, what: &'static str, max: u32) -> Result<String, ProtocolError> {
        let s_at = self.pos + 4;
        let b = self.bytes32(what, max)?;
        String::from_utf8(b.to_vec()).map_err(|_| ProtocolError::BadUtf8 { offset: s_at, what })
    }
}

fn r32(r: &mut Rd<'_>) -> Result<f32, ProtocolError> {
    r.f32("IMU value")
}

#[cfg(test)]
#[path = "protocol_tests.rs"]
mod tests;
