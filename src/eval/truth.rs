//! Read-side structures of a session's `ground_truth.json` and `requests.jsonl` (as
//! `crate::synth::truth` and `crate::synth::session` write them), and of the assistant's
//! `decisions.jsonl` lines. Unknown fields are ignored; list fields a hand-written file
//! leaves out default to empty.

use serde::{Deserialize, Serialize};

use crate::state::Decision;

/// One hazard of the ground truth.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TruthHazard {
    /// Kind (`pole`, `drop_off`, ...).
    #[serde(default)]
    pub kind: String,
    /// Label.
    pub label: String,
    /// World position, metres.
    pub position_m: [f64; 3],
    /// First time it is within reach and ahead (device ns); `None`: never relevant.
    pub relevant_from_ns: Option<i64>,
    /// Last time an alert is still useful (device ns); `None`: the wearer never came close,
    /// so an alert stays useful to the end of the session.
    pub latest_alert_ns: Option<i64>,
    /// A moving hazard's positions over time (empty for static things).
    #[serde(default)]
    pub track: Vec<TruthTrackSample>,
    /// Half length and half width of a vehicle's footprint, m.
    #[serde(default)]
    pub half_extent_m: Option<[f64; 2]>,
}

/// Where a moving hazard is at one time.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct TruthTrackSample {
    /// Device time, ns.
    pub t_ns: i64,
    /// Position on the floor, `[x, y]` m.
    pub position_m: [f64; 2],
    /// Heading (world yaw), rad.
    #[serde(default)]
    pub yaw_rad: f64,
}

impl TruthHazard {
    /// Its position at `t_ns`, as `[x, y]` m, and its heading: the track's sample nearest in
    /// time (clamped to the track's ends), else the fixed position.
    pub fn pose_at(&self, t_ns: i64) -> ([f64; 2], f64) {
        let i = self.track.partition_point(|s| s.t_ns < t_ns);
        let pick = match (
            i.checked_sub(1).and_then(|j| self.track.get(j)),
            self.track.get(i),
        ) {
            (Some(a), Some(b)) => Some(if t_ns - a.t_ns <= b.t_ns - t_ns { a } else { b }),
            (a, b) => a.or(b),
        };
        match pick {
            Some(s) => (s.position_m, s.yaw_rad),
            None => ([self.position_m[0], self.position_m[1]], 0.0),
        }
    }

    /// The point of it nearest to `from` at `t_ns` (`[x, y]` m): its position, or for a
    /// vehicle the nearest point of its footprint.
    pub fn nearest_at(&self, t_ns: i64, from: [f64; 2]) -> [f64; 2] {
        let (c, yaw) = self.pose_at(t_ns);
        let Some([hl, hw]) = self.half_extent_m else {
            return c;
        };
        let (u, v) = ([yaw.cos(), yaw.sin()], [-yaw.sin(), yaw.cos()]);
        let d = [from[0] - c[0], from[1] - c[1]];
        let a = (d[0] * u[0] + d[1] * u[1]).clamp(-hl, hl);
        let b = (d[0] * v[0] + d[1] * v[1]).clamp(-hw, hw);
        [c[0] + a * u[0] + b * v[0], c[1] + a * u[1] + b * v[1]]
    }
}

/// A text string in the world.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TruthText {
    /// The text, exactly.
    pub text: String,
    /// Centre, metres.
    #[serde(default)]
    pub position_m: [f64; 3],
}

/// Where the wearer looks over a span.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TruthGaze {
    /// Target label.
    pub label: String,
    /// Start, device ns.
    pub from_ns: i64,
    /// End, device ns (exclusive).
    pub to_ns: i64,
}

/// Where a thing is relative to the wearer at a request.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TruthRelative {
    /// Label.
    pub label: String,
    /// Clock hour, 1..=12.
    pub clock: u8,
    /// Horizontal distance, metres.
    pub distance_m: f64,
}

/// One request and what a correct answer contains.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TruthRequest {
    /// Device time, ns.
    pub t_ns: i64,
    /// Form (`scene`, `question`, `goal`).
    #[serde(default)]
    pub form: String,
    /// What the user says.
    pub text: String,
    /// Where each thing the request is about is.
    #[serde(default)]
    pub relative: Vec<TruthRelative>,
    /// Facts a correct answer contains.
    #[serde(default)]
    pub facts: Vec<String>,
    /// Instructions that would be unsafe.
    #[serde(default)]
    pub unsafe_instructions: Vec<String>,
}

/// `ground_truth.json`, read side.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GroundTruthFile {
    /// Scenario name.
    #[serde(default)]
    pub scenario: String,
    /// Session start (first sample), device ns.
    pub t0_ns: i64,
    /// Session length, ns.
    pub duration_ns: i64,
    /// Hazards.
    #[serde(default)]
    pub hazards: Vec<TruthHazard>,
    /// Text strings.
    #[serde(default)]
    pub texts: Vec<TruthText>,
    /// Gaze targets over time.
    #[serde(default)]
    pub gaze: Vec<TruthGaze>,
    /// Requests, in `requests.jsonl` order.
    #[serde(default)]
    pub requests: Vec<TruthRequest>,
}

impl GroundTruthFile {
    /// End of the session, device ns.
    pub fn end_ns(&self) -> i64 {
        self.t0_ns.saturating_add(self.duration_ns)
    }
}

/// One line of `requests.jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RequestLine {
    /// Device time, ns.
    pub t_ns: i64,
    /// Form.
    #[serde(default)]
    pub form: String,
    /// What the user says.
    pub text: String,
}

/// One line of `decisions.jsonl` with the optional time of the first generated token
/// (`first_token_ns`, host ns), which generators that stream tokens may add.
#[derive(Clone, Debug, PartialEq)]
pub struct DecisionRecord {
    /// The decision.
    pub decision: Decision,
    /// When the first token was generated (host ns), when recorded.
    pub first_token_ns: Option<i64>,
    /// 1-based line in `decisions.jsonl`.
    pub line: usize,
}
