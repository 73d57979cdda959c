//! Stream ids on the wire, and the streams a device announces in its hello.
//!
//! A stream travels as a VRS-style `(recordable type id, instance)` pair. Gen1's nine keep
//! their VRS ids (`StreamId::vrs_id`); what Gen2 adds has a fixed wire id, whatever instance
//! a recording happens to give it: the side SLAM cameras `1201-3`/`1201-4`, the right eye
//! camera `211-2`, hand tracking `371-1`, the glasses' VIO `371-2` and its high-rate pose
//! `371-3` (as Meta's Gen2 recordings number them), eye gaze `373-1`. MPS's offline outputs
//! have no wire id: a device never streams them.

use crate::sample::StreamId;

/// Gen1's streams, in wire order: what a version-1 hello implies.
pub const GEN1_STREAMS: [StreamId; 9] = [
    StreamId::CameraEt,
    StreamId::CameraRgb,
    StreamId::CameraSlamLeft,
    StreamId::CameraSlamRight,
    StreamId::ImuRight,
    StreamId::ImuLeft,
    StreamId::Magnetometer,
    StreamId::Barometer,
    StreamId::Audio,
];

/// The wire id of `stream`; `None` for MPS's outputs.
pub const fn wire_id(stream: StreamId) -> Option<(i32, u16)> {
    match stream {
        StreamId::CameraSlamSideLeft => Some((1201, 3)),
        StreamId::CameraSlamSideRight => Some((1201, 4)),
        StreamId::CameraEtRight => Some((211, 2)),
        StreamId::HandTracking => Some((371, 1)),
        StreamId::DeviceVio => Some((371, 2)),
        StreamId::DevicePose => Some((371, 3)),
        StreamId::EyeGaze => Some((373, 1)),
        StreamId::SemidensePoints => None,
        s => s.vrs_id(),
    }
}

/// The stream with wire id `(type_id, instance)`, if this build knows it.
pub fn from_wire_id(type_id: i32, instance: u16) -> Option<StreamId> {
    StreamId::ALL
        .iter()
        .copied()
        .find(|&s| wire_id(s) == Some((type_id, instance)))
}

/// One stream a device announces: its wire id and the device's own name for it (for a
/// camera, its calibration label, e.g. `slam-front-left`; otherwise free text). A stream
/// this build does not know keeps its id and name, to be listed and skipped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WireStream {
    /// VRS-style recordable type id.
    pub type_id: i32,
    /// Instance.
    pub instance: u16,
    /// The device's name for it.
    pub label: String,
}

impl WireStream {
    /// The announcement of a known stream under `label`. `None` for MPS's outputs.
    pub fn new(stream: StreamId, label: impl Into<String>) -> Option<Self> {
        let (type_id, instance) = wire_id(stream)?;
        Some(Self {
            type_id,
            instance,
            label: label.into(),
        })
    }

    /// The stream, when this build knows the id.
    pub fn stream(&self) -> Option<StreamId> {
        from_wire_id(self.type_id, self.instance)
    }

    /// Gen1's nine streams under their vista names: what a version-1 hello implies.
    pub fn gen1() -> Vec<Self> {
        GEN1_STREAMS
            .iter()
            .filter_map(|&s| Self::new(s, s.name()))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_ids_are_unique_and_round_trip() {
        let mut seen = std::collections::BTreeSet::new();
        for s in StreamId::ALL {
            match wire_id(s) {
                Some((t, i)) => {
                    assert!(seen.insert((t, i)), "{s} reuses {t}-{i}");
                    assert_eq!(from_wire_id(t, i), Some(s));
                }
                None => assert_eq!(s, StreamId::SemidensePoints),
            }
        }
        assert_eq!(from_wire_id(285, 1), None);
    }

    #[test]
    fn gen1_streams_keep_their_vrs_ids() {
        for s in GEN1_STREAMS {
            assert_eq!(wire_id(s), s.vrs_id(), "{s}");
            assert!(s.vrs_id().is_some());
        }
        assert_eq!(WireStream::gen1().len(), 9);
    }
}
