//! [`EnvironmentState`]: what the assistant knows right now, in the user's frame.

use serde::{Deserialize, Serialize};

use super::clock::{clock_to_bearing_deg, ClockHour};
use super::object_class::ObjectClass;
use super::turns::TurnFact;
use crate::time::DeviceTime;

/// What the wearer's body is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MotionState {
    /// Not enough data yet (or the IMUs are missing).
    Unknown,
    /// Standing still.
    Standing,
    /// Walking on level ground.
    Walking,
    /// Turning on the spot or while walking (yaw rate dominates).
    Turning,
    /// Walking up stairs.
    StairsUp,
    /// Walking down stairs.
    StairsDown,
}

/// The wearer's motion.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MotionFact {
    /// The state.
    pub state: MotionState,
    /// Since when (device time) it has held.
    pub since: DeviceTime,
    /// Step cadence, steps per minute, when walking.
    pub cadence_spm: Option<f32>,
    /// Horizontal speed, m/s, when known (trajectory or step model).
    pub speed_mps: Option<f32>,
    /// Heading, degrees clockwise from magnetic north, when the magnetometer is usable.
    pub heading_deg: Option<f32>,
    /// Height change over the last 10 s, metres (barometer or trajectory); + is up.
    pub elevation_change_m: Option<f32>,
    /// Confidence in [0, 1].
    pub confidence: f32,
}

/// What kind of thing a [`Thing`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ThingKind {
    /// Something standing on the floor in or near the walking corridor.
    Obstacle,
    /// Something at head height (a branch, a sign, an open window).
    Overhead,
    /// The floor drops away ahead (a curb, stairs down, a platform edge).
    DropOff,
    /// The floor rises ahead (a step, stairs up).
    StepUp,
    /// A doorway or opening.
    Door,
    /// Written text (a sign, a label).
    Text,
    /// A person.
    Person,
    /// A vehicle.
    Vehicle,
    /// Any other object (a table, a cup).
    Object,
}

/// Which side of the wearer's walking line something is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// To the left of the line.
    Left,
    /// To the right of the line.
    Right,
}

/// What shape of opening a [`ThingKind::Door`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OpeningShape {
    /// A doorway in a wall (jambs on both sides).
    Doorway,
    /// The open end of a corridor.
    CorridorEnd,
}

/// What perception knows about a [`Thing`] beyond its kind and height band, as typed
/// facts. The assistant reads these, never the thing's label.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "is")]
pub enum ThingDetail {
    /// Nothing more is known.
    #[default]
    None,
    /// Part of a wall (a still cluster along a wall plane).
    Wall,
    /// A floor edge ([`ThingKind::StepUp`] or [`ThingKind::DropOff`]) of this height,
    /// metres, positive, rounded to the centimetre it is measured and said at.
    Edge {
        /// The height of the edge, metres.
        rise_m: f32,
    },
    /// Something moving on the ground (a person, a vehicle).
    Moving {
        /// The side of the wearer's walking line it is on now.
        side: Side,
        /// Whether it is coming towards that line (else moving away from it or along it).
        approaching: bool,
    },
    /// An opening ([`ThingKind::Door`]).
    Opening {
        /// Its shape.
        shape: OpeningShape,
    },
}

/// Where a thing is vertically, relative to the wearer's body.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HeightBand {
    /// Near the floor (trip height, below ~0.5 m).
    Ground,
    /// Between the knees and the chest.
    Body,
    /// At head height (~1.4–2.1 m above the floor).
    Head,
}

/// Which sensor evidence a fact rests on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Evidence {
    /// Semi-dense points (MPS) seen from the current pose.
    Points,
    /// The trajectory (MPS or live estimate).
    Trajectory,
    /// Text recognition on the RGB camera.
    Ocr,
    /// The eye-gaze ray.
    Gaze,
    /// The IMUs, magnetometer or barometer.
    Inertial,
    /// A learned model's output (detector, vision-language model).
    Model,
    /// Motion in a camera's images (a thing moving on the ground, placed where it touches
    /// it).
    Motion,
}

/// One thing near the wearer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Thing {
    /// Stable id while the thing is tracked (the same obstacle keeps its id).
    pub id: u32,
    /// Kind.
    pub kind: ThingKind,
    /// What it is called, as said ("obstacle at head height", "metal pole"): perception
    /// names its things from their typed facts through [`crate::lexicon::thing_label`];
    /// the label is said as is and never parsed for facts (those are in `kind`, `detail`,
    /// `height`).
    pub label: String,
    /// Typed facts beyond the kind.
    #[serde(default)]
    pub detail: ThingDetail,
    /// What it is, when the object detector saw it there (a chair, a bicycle, a bus).
    #[serde(default)]
    pub class: Option<ObjectClass>,
    /// Direction from the head.
    pub clock: ClockHour,
    /// Direction from the head as measured, degrees, positive to the left (`clock` is its
    /// clock hour); `None` when only the hour is known.
    #[serde(default)]
    pub bearing_left_deg: Option<f32>,
    /// Horizontal distance from the head, metres (nearest point).
    pub distance_m: f32,
    /// Vertical band, when known.
    pub height: Option<HeightBand>,
    /// Position in the world frame, metres, when a world frame exists.
    pub world_m: Option<[f32; 3]>,
    /// Whether it lies in the walking corridor ahead (the path the wearer is on).
    pub in_path: bool,
    /// When it was first seen (device time).
    pub first_seen: DeviceTime,
    /// When evidence for it was last seen (device time).
    pub last_seen: DeviceTime,
    /// Confidence in [0, 1].
    pub confidence: f32,
    /// What it rests on.
    pub evidence: Evidence,
}

/// The highest level change a wearer steps up or down, m (a stair's riser is 0.15–0.2 m, a
/// kerb up to about 0.3 m). A rise higher than this is an obstacle; a drop deeper than this
/// is a drop-off no one steps down (a loading dock, a platform edge).
pub const MAX_STEP_RISE_M: f32 = 0.45;

impl Thing {
    /// Whether it is a drop-off deeper than a step ([`MAX_STEP_RISE_M`]).
    pub fn is_deep_drop(&self) -> bool {
        self.kind == ThingKind::DropOff
            && matches!(self.detail, ThingDetail::Edge { rise_m } if rise_m > MAX_STEP_RISE_M)
    }

    /// Its direction from the head, degrees, positive to the left: the measured bearing,
    /// else the centre of its clock hour.
    pub fn direction_left_deg(&self) -> f32 {
        self.bearing_left_deg
            .filter(|b| b.is_finite())
            .unwrap_or_else(|| clock_to_bearing_deg(self.clock))
    }

    /// The side of the walking line it is coming from, when it is moving towards the line.
    pub fn approaching_from(&self) -> Option<Side> {
        match self.detail {
            ThingDetail::Moving {
                side,
                approaching: true,
            } => Some(side),
            _ => None,
        }
    }
}

/// Where the wearer looks.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GazeFact {
    /// Direction of the gaze ray in the user frame.
    pub clock: ClockHour,
    /// Pitch of the gaze ray, degrees, + up.
    pub pitch_deg: f32,
    /// Vergence or hit depth, metres, when known.
    pub depth_m: Option<f32>,
    /// The gaze point in the RGB image (recorded resolution), when it projects into it.
    pub rgb_pixel: Option<[f32; 2]>,
    /// The id of the [`Thing`] under the gaze, when one is.
    pub target: Option<u32>,
    /// Device time of the gaze sample.
    pub at: DeviceTime,
}

/// A text string read from the RGB camera.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TextFact {
    /// The text as recognised.
    pub text: String,
    /// Recognition confidence in [0, 1].
    pub confidence: f32,
    /// Direction in the user frame (from its image position through the calibration).
    pub clock: ClockHour,
    /// Distance, metres, when known (gaze depth or points).
    pub distance_m: Option<f32>,
    /// Bounding box in the RGB image, `[x0, y0, x1, y1]` pixels (recorded resolution).
    pub rgb_box: [f32; 4],
    /// Whether the wearer is looking at it.
    pub gazed: bool,
    /// Capture time of the frame it was read from.
    pub at: DeviceTime,
}

/// A thing the object detector saw in one RGB frame, before perception places it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SeenObject {
    /// What it is.
    pub class: ObjectClass,
    /// The detector's confidence in [0, 1].
    pub confidence: f32,
    /// Bounding box in the RGB image, `[x0, y0, x1, y1]` pixels (recorded resolution).
    pub rgb_box: [f32; 4],
    /// Where it meets the ground in the RGB image, pixels (the middle of its box's bottom as
    /// the image stands upright; the recorded frame may be turned).
    pub foot_px: [f32; 2],
    /// The top of its box in the RGB image, pixels (the middle of the box's top as the image
    /// stands upright), when the detector gave one: with the foot, how tall it stands.
    #[serde(default)]
    pub top_px: Option<[f32; 2]>,
    /// Capture time of the frame.
    pub at: DeviceTime,
}

/// A thing whose class is known (seen by the object detector), placed in the user's frame.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ObjectFact {
    /// What it is.
    pub class: ObjectClass,
    /// The detector's confidence in [0, 1] (the best of the frames it was seen in).
    pub confidence: f32,
    /// In how many frames it was seen.
    #[serde(default)]
    pub sightings: u32,
    /// Direction from the head now.
    pub clock: ClockHour,
    /// Horizontal distance from the head now, metres, when it could be placed (its foot on
    /// the floor, or the point map behind it).
    pub distance_m: Option<f32>,
    /// The tracked thing it is (an obstacle, a person, a vehicle), when one lies there.
    pub thing: Option<u32>,
    /// Bounding box in the RGB image it was last seen in, `[x0, y0, x1, y1]` pixels.
    pub rgb_box: [f32; 4],
    /// Capture time of the frame it was last seen in.
    pub at: DeviceTime,
}

/// The free space ahead, from points and trajectory.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Walkable {
    /// Clear distance straight ahead in the walking corridor, metres (capped at the
    /// perception range).
    pub clear_ahead_m: f32,
    /// Clear distance at 10–11 o'clock, metres.
    pub clear_left_m: f32,
    /// Clear distance at 1–2 o'clock, metres.
    pub clear_right_m: f32,
    /// How far ahead along the corridor the floor itself was seen, metres (from the first
    /// floor seen within [`FLOOR_SEEN_START_M`], over gaps of at most
    /// [`FLOOR_SEEN_GAP_M`]; 0 when none was); `None` when not measured. Nothing standing in
    /// the way says nothing of a step or a drop where the floor is unseen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub floor_seen_m: Option<f32>,
}

/// The floor seen ahead counts from its first stretch this near, m: the cameras do not
/// see the floor at the feet.
pub const FLOOR_SEEN_START_M: f32 = 2.0;
/// Unseen stretches of floor up to this long between seen ones still count as seen, m.
pub const FLOOR_SEEN_GAP_M: f32 = 0.5;

impl Walkable {
    /// How far ahead the way is known to be clear, m: the clear distance, no farther than
    /// the floor was seen (when that was measured).
    pub fn known_clear_m(&self) -> f32 {
        self.floor_seen_m
            .map_or(self.clear_ahead_m, |f| self.clear_ahead_m.min(f))
    }
}

/// Everything the assistant knows at one moment, in the user's frame.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EnvironmentState {
    /// Device time of the newest sample folded in.
    pub at: DeviceTime,
    /// The wearer's motion.
    pub motion: MotionFact,
    /// The wearer's recent completed turns, newest first (bounded; see
    /// [`super::turns`]).
    #[serde(default)]
    pub turns: Vec<TurnFact>,
    /// Nearby things, nearest first.
    pub things: Vec<Thing>,
    /// Text recently read.
    pub texts: Vec<TextFact>,
    /// Things whose class is known, recently seen, nearest first (those placed), then the
    /// others.
    #[serde(default)]
    pub objects: Vec<ObjectFact>,
    /// Whether the object detector runs (so that no object fact means nothing was seen,
    /// not that nothing could be).
    #[serde(default)]
    pub sees_objects: bool,
    /// Where the wearer looks, when eye gaze is available.
    pub gaze: Option<GazeFact>,
    /// Free space ahead, when points and a pose are available.
    pub walkable: Option<Walkable>,
    /// What this session cannot do, in words ("no RGB camera: cannot read text").
    pub limitations: Vec<String>,
}

impl EnvironmentState {
    /// An empty state at `at`: nothing known yet.
    pub fn empty(at: DeviceTime) -> Self {
        Self {
            at,
            motion: MotionFact {
                state: MotionState::Unknown,
                since: at,
                cadence_spm: None,
                speed_mps: None,
                heading_deg: None,
                elevation_change_m: None,
                confidence: 0.0,
            },
            turns: Vec::new(),
            things: Vec::new(),
            texts: Vec::new(),
            objects: Vec::new(),
            sees_objects: false,
            gaze: None,
            walkable: None,
            limitations: Vec::new(),
        }
    }

    /// The thing with `id`, if tracked.
    pub fn thing(&self, id: u32) -> Option<&Thing> {
        self.things.iter().find(|t| t.id == id)
    }
}
