//! What a run shows its viewer: typed items, each stamped with the device time it rests on
//! and the host time it happened at, so the recording has both a device timeline (what the
//! glasses saw when) and a processing timeline (when vista knew it).

use std::sync::Arc;

use nalgebra::Isometry3;

use crate::perception::points::PointMap;
use crate::sample::{HandSample, ImageFrame, StreamId};
use crate::speech::transcript::TranscriptEntry;
use crate::state::{Decision, EnvironmentState, HazardEvent};

/// When an item happened: the device time it rests on and the host time it was known at
/// (session clock; virtual in as-fast-as-possible replay).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stamp {
    /// Device time, ns.
    pub device_ns: i64,
    /// Host time, ns.
    pub host_ns: i64,
}

/// A hazard of the session's ground truth, for showing misses.
#[derive(Clone, Debug, PartialEq)]
pub struct TruthMark {
    /// Its name in the ground truth.
    pub label: String,
    /// Its kind, as the ground truth writes it.
    pub kind: String,
    /// World position, m.
    pub position_m: [f64; 3],
    /// When an alert for it becomes due and the latest it may come (device ns), when set.
    pub window_ns: (Option<i64>, Option<i64>),
}

/// One thing to show.
#[derive(Clone, Debug)]
pub enum ViewItem {
    /// The run's fixed facts, once at the start.
    Start {
        /// The session's name.
        label: String,
        /// The central pupil frame in the device frame, when calibrated (the gaze ray's
        /// origin and axes).
        device_from_cpf: Option<Isometry3<f64>>,
    },
    /// A camera frame as it came (its bytes are shared; JPEG and PNG are logged as they are,
    /// an H.265 key frame or raw pixels are decoded and kept as JPEG by the logging thread).
    Image {
        /// When.
        stamp: Stamp,
        /// Which camera.
        stream: StreamId,
        /// The frame.
        frame: ImageFrame,
    },
    /// The device pose (`T_world_device`).
    Pose {
        /// When.
        stamp: Stamp,
        /// The pose.
        world_from_device: Isometry3<f64>,
        /// The tracker's quality in [0, 1].
        quality: f32,
    },
    /// An eye-gaze estimate, in the central pupil frame.
    Gaze {
        /// When.
        stamp: Stamp,
        /// Yaw and pitch, radians.
        yaw_pitch_rad: [f32; 2],
        /// Vergence depth, m.
        depth_m: Option<f32>,
    },
    /// Hand tracking, device frame.
    Hands {
        /// When.
        stamp: Stamp,
        /// Both hands.
        hands: HandSample,
    },
    /// Perception's state at one tick, and the assistant's words for it when rendered.
    State {
        /// When.
        stamp: Stamp,
        /// The state.
        state: Arc<EnvironmentState>,
        /// The state as the language model reads it (throttled).
        text: Option<String>,
    },
    /// A hazard perception raised.
    Hazard {
        /// When.
        stamp: Stamp,
        /// The event.
        event: Box<HazardEvent>,
    },
    /// A decision of the assistant (alerts, answers, updates; the request answered).
    Decision {
        /// When.
        stamp: Stamp,
        /// The decision.
        decision: Box<Decision>,
    },
    /// An utterance as spoken (or cut, or dropped).
    Spoken {
        /// When its first audio played (or it ended unheard).
        stamp: Stamp,
        /// Its transcript entry.
        entry: Box<TranscriptEntry>,
    },
    /// One stereo depth frame: the points the depth filter kept, and the live map after it
    /// (when one is built; offered at most once a second).
    Depth {
        /// When (device: the pair's capture).
        stamp: Stamp,
        /// The points kept (world, m).
        kept: Vec<[f32; 3]>,
        /// The live map, when it is shown with this frame.
        live_map: Option<Arc<PointMap>>,
    },
    /// The static point map, once (world frame, m).
    PointMap {
        /// Positions.
        points: Vec<[f32; 3]>,
    },
    /// The session's ground-truth hazards, once.
    Truth {
        /// Every hazard.
        hazards: Vec<TruthMark>,
    },
}

impl ViewItem {
    /// A short name of the kind (for the drop counts and tests).
    pub fn kind(&self) -> &'static str {
        match self {
            ViewItem::Start { .. } => "start",
            ViewItem::Image { .. } => "image",
            ViewItem::Pose { .. } => "pose",
            ViewItem::Gaze { .. } => "gaze",
            ViewItem::Hands { .. } => "hands",
            ViewItem::State { .. } => "state",
            ViewItem::Hazard { .. } => "hazard",
            ViewItem::Decision { .. } => "decision",
            ViewItem::Spoken { .. } => "spoken",
            ViewItem::Depth { .. } => "depth",
            ViewItem::PointMap { .. } => "point_map",
            ViewItem::Truth { .. } => "truth",
        }
    }
}
