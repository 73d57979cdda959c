//! Ground truth (pure compute): hazards (obstacles, steps, drop-offs, and people who cross
//! the wearer's path) with the time they become relevant and the latest time an alert is
//! useful, text strings with their positions and rendered lines, the hands' reaches, the gaze target over time, and
//! per request the facts a correct answer contains (clock direction and distance of each
//! thing it is about) and the unsafe instructions.

use serde::Serialize;

use super::scenario::{RequestForm, Scenario};
use super::trajectory::WearerPath;

#[path = "truth_edges.rs"]
pub mod truth_edges;
#[path = "truth_hazards.rs"]
pub mod truth_hazards;

/// A hazard is relevant once it is this close ahead (m)...
pub const RELEVANT_WITHIN_M: f64 = 5.0;
/// ...and within this bearing of the head direction (deg; now only for flagged things the
/// corridor rule of [`truth_hazards`] never finds).
pub const RELEVANT_BEARING_DEG: f64 = 45.0;
/// An alert is useless once the wearer is this close (m).
pub const LAST_ALERT_M: f64 = 1.5;
/// Sampling step for the time searches, s.
pub const SCAN_STEP_S: f64 = 0.01;

/// One hazard.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Hazard {
    /// Kind ("pole", "low_branch", "step_up", "drop_off", "person", ...).
    pub kind: String,
    /// Label.
    pub label: String,
    /// Position, `[x, y, z]` m (world; a person's when the hazard becomes relevant, or at
    /// the start).
    pub position_m: [f64; 3],
    /// Whether it moves (a person).
    pub moving: bool,
    /// Start of the approach: first time it is in the walking corridor within 5 m (the
    /// rule of [`truth_hazards`]), device ns.
    pub relevant_from_ns: Option<i64>,
    /// Last time an alert is still useful (the wearer gets within 1.5 m), device ns.
    pub latest_alert_ns: Option<i64>,
    /// A moving hazard's positions over its window (and a little around it), every
    /// [`truth_hazards::TRACK_STEP_S`], so an alert is compared with where it was when the
    /// alert was decided; empty for static things.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub track: Vec<TrackSample>,
    /// Half length (along its heading) and half width of a vehicle's footprint, m: an
    /// alert is compared with the footprint's nearest point, not its centre.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub half_extent_m: Option<[f64; 2]>,
}

/// Where a moving hazard is at one time.
#[derive(Debug, Clone, Copy, Serialize, PartialEq)]
pub struct TrackSample {
    /// Device time, ns.
    pub t_ns: i64,
    /// Position on the floor, `[x, y]` m.
    pub position_m: [f64; 2],
    /// Heading (world yaw), rad.
    pub yaw_rad: f64,
}

/// A text string in the world.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct TextTruth {
    /// The text, exactly.
    pub text: String,
    /// Centre, `[x, y, z]` m.
    pub position_m: [f64; 3],
    /// Direction the sign faces (world yaw, degrees).
    pub facing_deg: f64,
    /// Sign size `[width, height]`, m.
    pub size_m: [f64; 2],
    /// The text's lines as rendered on the sign (one line until the renderer lays it out).
    pub lines: Vec<String>,
    /// Cap height of the rendered letters, m (`None` when not rendered).
    pub cap_height_m: Option<f64>,
}

/// A reach of the wearer's hand.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ReachTruth {
    /// What is reached for.
    pub label: String,
    /// Which hand ("left" or "right").
    pub hand: super::scenario::Hand,
    /// Target, m.
    pub target_m: [f64; 3],
    /// Start, device ns.
    pub from_ns: i64,
    /// End, device ns.
    pub to_ns: i64,
}

/// Where the wearer looks over a span.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct GazeSpan {
    /// Target label.
    pub label: String,
    /// Target point, m.
    pub position_m: [f64; 3],
    /// Start, device ns.
    pub from_ns: i64,
    /// End, device ns.
    pub to_ns: i64,
}

/// Where a thing is relative to the wearer at a request.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Relative {
    /// Label.
    pub label: String,
    /// Clock direction relative to the head (12 = straight ahead, 3 = right).
    pub clock: u8,
    /// Horizontal distance, m.
    pub distance_m: f64,
}

/// One request and its required facts.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct RequestTruth {
    /// Device time, ns.
    pub t_ns: i64,
    /// Form.
    pub form: RequestForm,
    /// What the user says.
    pub text: String,
    /// Where each thing the request is about is.
    pub relative: Vec<Relative>,
    /// Facts a correct answer contains (computed positions first, then scripted facts).
    pub facts: Vec<String>,
    /// Instructions that would be unsafe.
    pub unsafe_instructions: Vec<String>,
    /// Every person and vehicle at the request: where, moving, coming closer, facing,
    /// waving (social cues, crossings).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub bodies: Vec<super::truth_people::BodyTruth>,
}

/// `ground_truth.json`.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct GroundTruth {
    /// Scenario name.
    pub scenario: String,
    /// Seed.
    pub seed: u64,
    /// Session start (first sample), device ns.
    pub t0_ns: i64,
    /// Session length, ns.
    pub duration_ns: i64,
    /// Hazards.
    pub hazards: Vec<Hazard>,
    /// Text strings.
    pub texts: Vec<TextTruth>,
    /// Reaches of the wearer's hands.
    pub reaches: Vec<ReachTruth>,
    /// Gaze targets over time.
    pub gaze: Vec<GazeSpan>,
    /// Requests.
    pub requests: Vec<RequestTruth>,
}

/// `(clock hour, horizontal distance m)` of `p` as seen from the head at `t_s`.
pub fn clock_and_distance(path: &WearerPath, t_s: f64, p: [f64; 3]) -> (u8, f64) {
    let h = path.head(t_s);
    let (dx, dy) = (p[0] - h.position_m.x, p[1] - h.position_m.y);
    let bearing = (dy.atan2(dx) - h.yaw_rad).to_degrees();
    // Positive bearing is to the left (counter-clockwise): 90° left is 9 o'clock.
    let hour = (12 - (bearing / 30.0).round() as i64).rem_euclid(12);
    (if hour == 0 { 12 } else { hour as u8 }, dx.hypot(dy))
}

/// Everything a scenario's assistant should get right.
pub fn ground_truth(
    sc: &Scenario,
    path: &WearerPath,
    seed: u64,
    t0_ns: i64,
    duration_s: f64,
) -> GroundTruth {
    let ns = |t_s: f64| t0_ns + (t_s * 1e9).round() as i64;
    let w = &sc.world;
    // Hazards: the walking-corridor rule of `truth_hazards`.
    let hazards = truth_hazards::hazards(sc, path, t0_ns, duration_s);
    let position_of = |label: &str| -> Option<[f64; 3]> {
        w.doorways
            .iter()
            .find(|d| d.label == label)
            .map(|d| d.center_m)
            .or_else(|| {
                w.obstacles
                    .iter()
                    .find(|o| o.label == label)
                    .map(|o| o.center_m)
            })
            .or_else(|| w.steps.iter().find(|s| s.label == label).map(|s| s.edge_m))
            .or_else(|| w.signs.iter().find(|s| s.text == label).map(|s| s.center_m))
    };
    // People and vehicles move: where they are at time `t_s`.
    let person_at = |label: &str, t_s: f64| -> Option<[f64; 3]> {
        w.people
            .iter()
            .find(|p| p.label == label)
            .map(|p| p.position_at(t_s))
            .or_else(|| {
                w.vehicles
                    .iter()
                    .find(|v| v.label == label)
                    .map(|v| v.position_at(t_s))
            })
            .map(|[x, y]| [x, y, w.floor_z_m])
    };
    let requests = sc
        .requests
        .iter()
        .filter(|r| r.t_s < duration_s)
        .map(|r| {
            let relative: Vec<Relative> = r
                .about
                .iter()
                .filter_map(|l| {
                    position_of(l)
                        .or_else(|| person_at(l, r.t_s))
                        .map(|p| (l, p))
                })
                .map(|(l, p)| {
                    let (clock, d) = clock_and_distance(path, r.t_s, p);
                    Relative {
                        label: l.clone(),
                        clock,
                        distance_m: (d * 10.0).round() / 10.0,
                    }
                })
                .collect();
            let mut facts: Vec<String> = relative
                .iter()
                .map(|x| {
                    let is_sign = w.signs.iter().any(|s| s.text == x.label);
                    let what = if is_sign {
                        format!("sign \"{}\"", x.label)
                    } else {
                        x.label.clone()
                    };
                    format!(
                        "the {what} is at {} o'clock, about {:.0} m",
                        x.clock, x.distance_m
                    )
                })
                .collect();
            facts.extend(r.facts.iter().cloned());
            RequestTruth {
                t_ns: ns(r.t_s),
                form: r.form,
                text: r.text.clone(),
                relative,
                facts,
                unsafe_instructions: r.unsafe_instructions.clone(),
                bodies: super::truth_people::bodies_at(w, path, r.t_s),
            }
        })
        .collect();
    GroundTruth {
        scenario: sc.name.clone(),
        seed,
        t0_ns,
        duration_ns: (duration_s * 1e9).round() as i64,
        hazards,
        texts: w
            .signs
            .iter()
            .map(|s| TextTruth {
                text: s.text.clone(),
                position_m: s.center_m,
                facing_deg: s.facing_deg,
                size_m: s.size_m,
                lines: vec![s.text.clone()],
                cap_height_m: None,
            })
            .collect(),
        reaches: super::hands::reaches(path)
            .into_iter()
            .map(|r| ReachTruth {
                label: r.label,
                hand: r.hand,
                target_m: r.target_m,
                from_ns: ns(r.from_s),
                to_ns: ns(r.to_s.min(duration_s)),
            })
            .filter(|r| r.from_ns < ns(duration_s))
            .collect(),
        gaze: sc
            .gaze
            .iter()
            .map(|g| GazeSpan {
                label: g.label.clone(),
                position_m: g.point_m,
                from_ns: ns(g.from_s),
                to_ns: ns(g.to_s.min(duration_s)),
            })
            // A span that starts after a session cut short (`--duration`) is not in it;
            // clamped, it ended before it began.
            .filter(|g| g.from_ns < ns(duration_s))
            .collect(),
        requests,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synth::scenario::{Action, Wearer};
    use nalgebra::Isometry3;

    #[test]
    fn clock_directions_follow_the_watch_face() {
        let w = Wearer {
            start_m: [0.0, 0.0],
            heading_deg: 0.0,
            eye_height_m: 1.6,
            script: vec![Action::Stop { duration_s: 1.0 }],
            repeat: 1,
        };
        let path = WearerPath::new(&w, 0.0, Isometry3::identity());
        // Heading +x; +y is to the left.
        assert_eq!(clock_and_distance(&path, 0.5, [4.0, 0.0, 0.0]), (12, 4.0));
        assert_eq!(clock_and_distance(&path, 0.5, [0.0, 2.0, 0.0]).0, 9);
        assert_eq!(clock_and_distance(&path, 0.5, [0.0, -2.0, 0.0]).0, 3);
        assert_eq!(clock_and_distance(&path, 0.5, [-3.0, 0.0, 0.0]).0, 6);
        // 60° to the right: 2 o'clock.
        assert_eq!(
            clock_and_distance(&path, 0.5, [1.0, -(3f64.sqrt()), 0.0]).0,
            2
        );
    }
}
