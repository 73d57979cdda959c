//! A [`Sample`] as a fixed array of 64-bit words, so that a ring slot can be written and
//! read with plain atomic word stores and loads (a seqlock without `unsafe`, see
//! [`crate::buffer::StreamBuffer`]).
//!
//! Every payload that is `Copy` (IMU, magnetometer, barometer, eye gaze, hands, pose) is
//! stored inline, bit for bit. Payloads that own shared memory (camera images, audio
//! blocks) are *heavy*: the words hold only the header, and the payload itself travels
//! beside the ring ([`split`] hands it back to the caller).
//!
//! Layout: word 0 the source's `seq`, word 1 the capture time (ns), word 2 the arrival
//! time (ns), word 3 the stream index (bits 0–7) and the payload tag (bits 8–15); then up to
//! [`PAYLOAD_WORDS`] payload words, how many depending on the tag ([`words_for_tag`]).

use nalgebra::{Isometry3, Quaternion, Translation3, UnitQuaternion, Vector4};

use crate::sample::{
    BaroSample, EyeGazeSample, HandSample, ImuSample, MagSample, Payload, PoseSample, Sample,
    StreamId, WristPalm,
};
use crate::time::{DeviceTime, HostTime};

/// Header words (seq, capture, arrival, stream and tag).
pub const HEADER_WORDS: usize = 4;
/// The most payload words any inline payload needs (a pose: 7 × f64 + 7 × f32).
pub const PAYLOAD_WORDS: usize = 11;
/// Words per slot.
pub const WORDS: usize = HEADER_WORDS + PAYLOAD_WORDS;

/// The payload kinds, as stored in word 3.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Tag {
    /// Held beside the ring (image, audio).
    Heavy = 0,
    /// [`Payload::Imu`].
    Imu = 1,
    /// [`Payload::Magnetometer`].
    Magnetometer = 2,
    /// [`Payload::Barometer`].
    Barometer = 3,
    /// [`Payload::EyeGaze`].
    EyeGaze = 4,
    /// [`Payload::Hands`].
    Hands = 5,
    /// [`Payload::Pose`].
    Pose = 6,
}

impl Tag {
    fn from_u8(v: u8) -> Option<Tag> {
        Some(match v {
            0 => Tag::Heavy,
            1 => Tag::Imu,
            2 => Tag::Magnetometer,
            3 => Tag::Barometer,
            4 => Tag::EyeGaze,
            5 => Tag::Hands,
            6 => Tag::Pose,
            _ => return None,
        })
    }
}

/// Total words (header + payload) used by a slot whose word 3 is `word3`; at most
/// [`WORDS`] whatever the value (a torn read may give any value).
pub fn words_for_tag(word3: u64) -> usize {
    let payload = match Tag::from_u8((word3 >> 8) as u8) {
        Some(Tag::Heavy) | None => 0,
        Some(Tag::Imu) => 4,
        Some(Tag::Magnetometer) => 2,
        Some(Tag::Barometer) => 2,
        Some(Tag::EyeGaze) => 2,
        Some(Tag::Hands) => 9,
        Some(Tag::Pose) => PAYLOAD_WORDS,
    };
    HEADER_WORDS + payload
}

fn f2(a: f32, b: f32) -> u64 {
    u64::from(a.to_bits()) | (u64::from(b.to_bits()) << 32)
}

fn lo(w: u64) -> f32 {
    f32::from_bits(w as u32)
}

fn hi(w: u64) -> f32 {
    f32::from_bits((w >> 32) as u32)
}

fn opt_f32(v: Option<f32>) -> u64 {
    match v {
        Some(x) => u64::from(x.to_bits()) | (1 << 32),
        None => 0,
    }
}

fn get_opt_f32(w: u64) -> Option<f32> {
    (w >> 32 & 1 == 1).then(|| lo(w))
}

fn put_hand(h: Option<WristPalm>, p: &mut [u64]) {
    if let (Some(h), [a, b, c, d, ..]) = (h, p) {
        *a = f2(h.confidence, h.wrist_m[0]);
        *b = f2(h.wrist_m[1], h.wrist_m[2]);
        *c = f2(h.palm_m[0], h.palm_m[1]);
        *d = f2(h.palm_m[2], 0.0);
    }
}

fn get_hand(present: bool, p: &[u64]) -> Option<WristPalm> {
    match (present, p) {
        (true, [a, b, c, d, ..]) => Some(WristPalm {
            confidence: lo(*a),
            wrist_m: [hi(*a), lo(*b), hi(*b)],
            palm_m: [lo(*c), hi(*c), lo(*d)],
        }),
        _ => None,
    }
}

/// Writes `sample` into `w` and returns the heavy payload, if any, which the caller keeps
/// beside the ring, and the number of words used (see [`words_for_tag`]).
pub fn split(sample: Sample, w: &mut [u64; WORDS]) -> (usize, Option<Payload>) {
    let (h, p) = w.split_at_mut(HEADER_WORDS);
    let (tag, heavy) = match sample.payload {
        Payload::Imu(s) => {
            let flags = u32::from(s.accel_valid) | (u32::from(s.gyro_valid) << 1);
            if let [a, b, c, d, ..] = p {
                *a = f2(s.accel_mps2[0], s.accel_mps2[1]);
                *b = f2(s.accel_mps2[2], s.gyro_radps[0]);
                *c = f2(s.gyro_radps[1], s.gyro_radps[2]);
                *d = u64::from(s.temperature_c.to_bits()) | (u64::from(flags) << 32);
            }
            (Tag::Imu, None)
        }
        Payload::Magnetometer(s) => {
            if let [a, b, ..] = p {
                *a = f2(s.field_t[0], s.field_t[1]);
                *b = f2(s.field_t[2], 0.0);
            }
            (Tag::Magnetometer, None)
        }
        Payload::Barometer(s) => {
            if let [a, b, ..] = p {
                *a = s.pressure_pa.to_bits();
                *b = u64::from(s.temperature_c.to_bits());
            }
            (Tag::Barometer, None)
        }
        Payload::EyeGaze(s) => {
            if let [a, b, ..] = p {
                *a = f2(s.yaw_rad, s.pitch_rad);
                *b = opt_f32(s.depth_m);
            }
            (Tag::EyeGaze, None)
        }
        Payload::Hands(s) => {
            if let [flags, rest @ ..] = p {
                *flags = u64::from(s.left.is_some()) | (u64::from(s.right.is_some()) << 1);
                let (l, r) = rest.split_at_mut(4);
                put_hand(s.left, l);
                put_hand(s.right, r);
            }
            (Tag::Hands, None)
        }
        Payload::Pose(s) => {
            let q = s.t_world_device.rotation.coords;
            let t = s.t_world_device.translation.vector;
            let v = [q[0], q[1], q[2], q[3], t[0], t[1], t[2]];
            for (dst, x) in p.iter_mut().zip(v) {
                *dst = x.to_bits();
            }
            if let [_, _, _, _, _, _, _, a, b, c, d] = p {
                let (l, r) = (s.linear_velocity_mps, s.angular_velocity_radps);
                *a = f2(l[0], l[1]);
                *b = f2(l[2], r[0]);
                *c = f2(r[1], r[2]);
                *d = f2(s.quality, 0.0);
            }
            (Tag::Pose, None)
        }
        heavy @ (Payload::Image(_) | Payload::Audio(_)) => (Tag::Heavy, Some(heavy)),
    };
    if let [seq, cap, arr, meta] = h {
        *seq = sample.seq;
        *cap = sample.capture.ns() as u64;
        *arr = sample.arrival.0 as u64;
        *meta = sample.stream.index() as u64 | ((tag as u64) << 8);
    }
    (words_for_tag(w[3]), heavy)
}

/// True when `w` holds a heavy payload (kept beside the ring).
pub fn is_heavy(w: &[u64; WORDS]) -> bool {
    Tag::from_u8((w[3] >> 8) as u8) == Some(Tag::Heavy)
}

/// Rebuilds the sample in `w`; `heavy` supplies the payload when the tag is
/// [`Tag::Heavy`]. `None` when the words are not a valid sample (never for words written
/// by [`split`], and a heavy tag without `heavy`).
pub fn join(w: &[u64; WORDS], heavy: Option<Payload>) -> Option<Sample> {
    let stream = *StreamId::ALL.get((w[3] & 0xff) as usize)?;
    let p = &w[HEADER_WORDS..];
    let payload = match Tag::from_u8((w[3] >> 8) as u8)? {
        Tag::Heavy => heavy?,
        Tag::Imu => {
            let [a, b, c, d, ..] = *p else { return None };
            let flags = d >> 32;
            Payload::Imu(ImuSample {
                accel_mps2: [lo(a), hi(a), lo(b)],
                gyro_radps: [hi(b), lo(c), hi(c)],
                accel_valid: flags & 1 == 1,
                gyro_valid: flags & 2 == 2,
                temperature_c: lo(d),
            })
        }
        Tag::Magnetometer => {
            let [a, b, ..] = *p else { return None };
            Payload::Magnetometer(MagSample {
                field_t: [lo(a), hi(a), lo(b)],
            })
        }
        Tag::Barometer => {
            let [a, b, ..] = *p else { return None };
            Payload::Barometer(BaroSample {
                pressure_pa: f64::from_bits(a),
                temperature_c: lo(b),
            })
        }
        Tag::EyeGaze => {
            let [a, b, ..] = *p else { return None };
            Payload::EyeGaze(EyeGazeSample {
                yaw_rad: lo(a),
                pitch_rad: hi(a),
                depth_m: get_opt_f32(b),
            })
        }
        Tag::Hands => {
            let [flags, ref rest @ ..] = *p else {
                return None;
            };
            let (l, r) = rest.split_at(4.min(rest.len()));
            Payload::Hands(HandSample {
                left: get_hand(flags & 1 == 1, l),
                right: get_hand(flags & 2 == 2, r),
            })
        }
        Tag::Pose => {
            let [q0, q1, q2, q3, t0, t1, t2, a, b, c, d] = *p else {
                return None;
            };
            let f = f64::from_bits;
            let q = UnitQuaternion::new_unchecked(Quaternion::from(Vector4::new(
                f(q0),
                f(q1),
                f(q2),
                f(q3),
            )));
            Payload::Pose(PoseSample {
                t_world_device: Isometry3::from_parts(Translation3::new(f(t0), f(t1), f(t2)), q),
                linear_velocity_mps: [lo(a), hi(a), lo(b)],
                angular_velocity_radps: [hi(b), lo(c), hi(c)],
                quality: lo(d),
            })
        }
    };
    Some(Sample {
        stream,
        capture: DeviceTime(w[1] as i64),
        arrival: HostTime(w[2] as i64),
        seq: w[0],
        payload,
    })
}
