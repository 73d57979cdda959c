//! Read-side structures of a session's `ground_truth.json` and `requests.jsonl` (as
//! `crate::synth::truth` and `crate::synth::session_writer` write them), and of the assistant's
//! `decisions.jsonl` lines. The ground truth is the yardstick, so it is read strictly: an
//! unknown field, an unknown hazard kind, a coordinate that is not finite, a window that
//! ends before it starts or lies outside the session is refused with the file and the field
//! named ([`GroundTruthFile::validate`]). List fields a hand-written file leaves out default
//! to empty. Fields the scorer does not use are still declared (and so checked by name).

use serde::{Deserialize, Serialize};

use super::kinds::TruthKind;
use crate::state::Decision;

/// One hazard of the ground truth.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TruthHazard {
    /// Kind (`pole`, `drop_off`, ...; [`TruthKind`]).
    pub kind: TruthKind,
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
    /// Whether it moves (the writer's flag; a moving hazard has a `track`).
    #[serde(default)]
    pub moving: bool,
}

/// Where a moving hazard is at one time.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
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
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TruthText {
    /// The text, exactly.
    pub text: String,
    /// Centre, metres.
    #[serde(default)]
    pub position_m: [f64; 3],
    /// Which way it faces, degrees (not used by the scorer).
    #[serde(default)]
    pub facing_deg: f64,
    /// Width and height of its panel, m (not used by the scorer).
    #[serde(default)]
    pub size_m: [f64; 2],
    /// Its lines as laid out (not used by the scorer).
    #[serde(default)]
    pub lines: Vec<String>,
    /// Letter cap height, m (not used by the scorer).
    #[serde(default)]
    pub cap_height_m: Option<f64>,
}

/// Where the wearer looks over a span.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TruthGaze {
    /// Target label.
    pub label: String,
    /// Where the target is, m (not used by the scorer).
    #[serde(default)]
    pub position_m: Option<[f64; 3]>,
    /// Start, device ns.
    pub from_ns: i64,
    /// End, device ns (exclusive).
    pub to_ns: i64,
}

/// Where a thing is relative to the wearer at a request.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TruthRelative {
    /// Label.
    pub label: String,
    /// Clock hour, 1..=12.
    pub clock: u8,
    /// Horizontal distance, metres.
    pub distance_m: f64,
}

/// One request and what a correct answer contains.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
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
    /// The people and vehicles around at the request (not used by the scorer).
    #[serde(default)]
    pub bodies: Vec<serde_json::Value>,
}

/// `ground_truth.json`, read side.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GroundTruthFile {
    /// Scenario name.
    #[serde(default)]
    pub scenario: String,
    /// The seed the session was made with.
    #[serde(default)]
    pub seed: Option<u64>,
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
    /// Reaches of the wearer's hands (not used by the scorer).
    #[serde(default)]
    pub reaches: Vec<serde_json::Value>,
}

/// A ground truth that cannot be right: the field, as a path (`hazards[2].position_m`), and
/// why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TruthFault {
    /// The field.
    pub field: String,
    /// What is wrong with it.
    pub reason: String,
}

/// How far outside the session a hazard's window may reach and still be a window of this
/// session, ns: the writer rounds times to the nanosecond of its 1 ms scan.
const WINDOW_SLACK_NS: i64 = 10_000_000;

/// How far from the session's wearer a thing of the ground truth may be and still be in
/// its world, m: the synthetic worlds are at most a few hundred metres across.
pub const WORLD_EXTENT_M: f64 = 10_000.0;

impl GroundTruthFile {
    /// End of the session, device ns.
    pub fn end_ns(&self) -> i64 {
        self.t0_ns.saturating_add(self.duration_ns)
    }

    /// Checks that the truth describes a possible session: a positive duration, every
    /// coordinate finite and inside [`WORLD_EXTENT_M`], every hazard window ordered and
    /// inside the session, every track in time order, every gaze span in order, every
    /// request inside the session, clock hours in 1..=12, distances finite and not negative.
    pub fn validate(&self) -> Result<(), TruthFault> {
        let fault = |field: String, reason: &str| {
            Err(TruthFault {
                field,
                reason: reason.to_string(),
            })
        };
        if self.duration_ns <= 0 {
            return fault("duration_ns".into(), "must be positive");
        }
        let (from, to) = (
            self.t0_ns.saturating_sub(WINDOW_SLACK_NS),
            self.end_ns().saturating_add(WINDOW_SLACK_NS),
        );
        let in_session = |t: i64| (from..=to).contains(&t);
        let in_world = |p: &[f64]| p.iter().all(|v| v.is_finite() && v.abs() <= WORLD_EXTENT_M);
        for (i, h) in self.hazards.iter().enumerate() {
            let f = |name: &str| format!("hazards[{i}].{name}");
            if !in_world(&h.position_m) {
                return fault(f("position_m"), "outside the world (not finite or too far)");
            }
            if let Some(t) = h.relevant_from_ns.filter(|t| !in_session(*t)) {
                return fault(
                    f("relevant_from_ns"),
                    &format!("{t} is outside the session"),
                );
            }
            if let Some(t) = h.latest_alert_ns.filter(|t| !in_session(*t)) {
                return fault(f("latest_alert_ns"), &format!("{t} is outside the session"));
            }
            if let (Some(a), Some(b)) = (h.relevant_from_ns, h.latest_alert_ns) {
                if b < a {
                    return fault(f("latest_alert_ns"), "ends before relevant_from_ns");
                }
            }
            if h.half_extent_m
                .is_some_and(|e| !e.iter().all(|v| v.is_finite() && *v >= 0.0))
            {
                return fault(f("half_extent_m"), "must be finite and not negative");
            }
            for (j, s) in h.track.iter().enumerate() {
                let g = || format!("hazards[{i}].track[{j}]");
                if !in_world(&s.position_m) || !s.yaw_rad.is_finite() {
                    return fault(g(), "outside the world (not finite or too far)");
                }
                if j > 0 && h.track.get(j - 1).is_some_and(|p| p.t_ns > s.t_ns) {
                    return fault(g() + ".t_ns", "goes back in time");
                }
            }
        }
        for (i, t) in self.texts.iter().enumerate() {
            if !in_world(&t.position_m) {
                return fault(format!("texts[{i}].position_m"), "outside the world");
            }
        }
        // A gaze span may lie beyond a session cut short (`synth --duration`): it covers
        // no request there. A reversed one is impossible.
        for (i, g) in self.gaze.iter().enumerate() {
            if g.to_ns < g.from_ns {
                return fault(format!("gaze[{i}].to_ns"), "ends before from_ns");
            }
        }
        for (i, r) in self.requests.iter().enumerate() {
            if !in_session(r.t_ns) {
                return fault(format!("requests[{i}].t_ns"), "outside the session");
            }
            for (j, rel) in r.relative.iter().enumerate() {
                if !(1..=12).contains(&rel.clock) {
                    return fault(
                        format!("requests[{i}].relative[{j}].clock"),
                        "not in 1..=12",
                    );
                }
                if !(rel.distance_m.is_finite() && rel.distance_m >= 0.0) {
                    return fault(
                        format!("requests[{i}].relative[{j}].distance_m"),
                        "must be finite and not negative",
                    );
                }
            }
        }
        Ok(())
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
