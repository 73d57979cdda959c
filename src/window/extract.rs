//! What one sample contributes to the grid: its raw slot values (pure, no state).
//!
//! Every grid-feeding stream writes its own disjoint range of its grid stream's slots, so
//! bins can be aggregated per source stream (in that stream's capture order) and merged
//! when a window is read: the result does not depend on how streams were interleaved.

use crate::aria::mps::gaze_math::unit_vector_from_yaw_pitch;
use crate::sample::{Payload, Sample, StreamId, WristPalm};
use crate::window::spec::GridStream;

/// Most slots one source stream writes.
pub const MAX_SOURCE_SLOTS: usize = 14;

/// The seven recorded or derived streams that feed the grid.
pub const SOURCES: [StreamId; 7] = [
    StreamId::ImuRight,
    StreamId::ImuLeft,
    StreamId::Magnetometer,
    StreamId::Barometer,
    StreamId::EyeGaze,
    StreamId::HandTracking,
    StreamId::DevicePose,
];

/// The index of `stream` in [`SOURCES`], if it feeds the grid.
pub fn source_index(stream: StreamId) -> Option<usize> {
    SOURCES.iter().position(|&s| s == stream)
}

/// Where a source stream's slots go: its grid stream, the first slot and the slot count.
pub const fn source_layout(stream: StreamId) -> Option<(GridStream, usize, usize)> {
    match stream {
        StreamId::ImuRight => Some((GridStream::Imu, 0, 6)),
        StreamId::ImuLeft => Some((GridStream::Imu, 6, 6)),
        StreamId::Magnetometer => Some((GridStream::MagBaro, 0, 3)),
        StreamId::Barometer => Some((GridStream::MagBaro, 3, 1)),
        StreamId::EyeGaze => Some((GridStream::EyeGaze, 0, 4)),
        StreamId::HandTracking => Some((GridStream::Hands, 0, 14)),
        StreamId::DevicePose => Some((GridStream::Trajectory, 0, 14)),
        _ => None,
    }
}

/// One sample's raw slot values, relative to its source's first slot. A slot is observed
/// when its bit in `present` is set; an observed slot may still hold NaN (skipped and
/// counted when aggregated).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RawSample {
    /// Slot values.
    pub vals: [f64; MAX_SOURCE_SLOTS],
    /// Bit `i` set: slot `i` was measured by this sample.
    pub present: u16,
}

impl RawSample {
    const EMPTY: RawSample = RawSample {
        vals: [0.0; MAX_SOURCE_SLOTS],
        present: 0,
    };

    fn set(&mut self, slot: usize, v: f64) {
        if let Some(x) = self.vals.get_mut(slot) {
            *x = v;
            self.present |= 1 << slot;
        }
    }

    fn set3(&mut self, first: usize, v: [f64; 3]) {
        for (i, x) in v.into_iter().enumerate() {
            self.set(first + i, x);
        }
    }
}

fn f3(v: [f32; 3]) -> [f64; 3] {
    v.map(f64::from)
}

fn hand(raw: &mut RawSample, first: usize, h: &Option<WristPalm>) {
    match h {
        Some(h) => {
            raw.set(first, f64::from(h.confidence));
            raw.set3(first + 1, f3(h.wrist_m));
            raw.set3(first + 4, f3(h.palm_m));
        }
        // An absent hand is a measurement: confidence 0; its positions are not observed.
        None => raw.set(first, 0.0),
    }
}

/// The raw slots of `sample`, or `None` when its stream or payload does not feed the grid
/// (or the payload does not match the stream).
pub fn extract(sample: &Sample) -> Option<RawSample> {
    let mut raw = RawSample::EMPTY;
    match (sample.stream, &sample.payload) {
        (StreamId::ImuRight | StreamId::ImuLeft, Payload::Imu(imu)) => {
            if imu.accel_valid {
                raw.set3(0, f3(imu.accel_mps2));
            }
            if imu.gyro_valid {
                raw.set3(3, f3(imu.gyro_radps));
            }
        }
        (StreamId::Magnetometer, Payload::Magnetometer(m)) => raw.set3(0, f3(m.field_t)),
        (StreamId::Barometer, Payload::Barometer(b)) => raw.set(0, b.pressure_pa),
        (StreamId::EyeGaze, Payload::EyeGaze(g)) => {
            let d = unit_vector_from_yaw_pitch(f64::from(g.yaw_rad), f64::from(g.pitch_rad));
            raw.set3(0, [d.x, d.y, d.z]);
            if let Some(depth) = g.depth_m {
                // A non-positive depth means "not estimated" in MPS output.
                if depth > 0.0 || depth.is_nan() {
                    raw.set(3, f64::from(depth));
                }
            }
        }
        (StreamId::HandTracking, Payload::Hands(h)) => {
            hand(&mut raw, 0, &h.left);
            hand(&mut raw, 7, &h.right);
        }
        (StreamId::DevicePose, Payload::Pose(p)) => {
            let t = p.t_world_device.translation.vector;
            raw.set3(0, [t.x, t.y, t.z]);
            let q = p.t_world_device.rotation.coords;
            raw.set(3, q.x);
            raw.set(4, q.y);
            raw.set(5, q.z);
            raw.set(6, q.w);
            raw.set3(7, f3(p.linear_velocity_mps));
            raw.set3(10, f3(p.angular_velocity_radps));
            raw.set(13, f64::from(p.quality));
        }
        _ => return None,
    }
    Some(raw)
}
