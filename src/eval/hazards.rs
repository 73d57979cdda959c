//! Hazard scoring (pure compute): which alerts are about which ground-truth hazard, whether
//! each hazard was caught in its useful window, false alerts and lead times. The rules are
//! in the module documentation of `crate::eval`.

use serde::Serialize;

use super::pose::HeadTrack;
use super::text::clock_difference;
use super::truth::TruthHazard;
use crate::state::DecisionHazard;

/// Matching tolerances.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct HazardTolerances {
    /// Largest horizontal distance between the alert's world position and the hazard, m.
    pub world_m: f64,
    /// Largest clock-hour difference (circular).
    pub clock_hours: u8,
    /// Largest relative distance error (0.3 = ±30 %).
    pub distance_rel: f64,
}

impl Default for HazardTolerances {
    fn default() -> Self {
        Self {
            world_m: 1.0,
            clock_hours: 1,
            distance_rel: 0.3,
        }
    }
}

/// One alert decision, with its times on the device clock.
#[derive(Clone, Debug, PartialEq)]
pub struct AlertInput {
    /// Its request id.
    pub request_id: u64,
    /// Line in `decisions.jsonl`.
    pub line: usize,
    /// What was decided.
    pub text: String,
    /// What it is about.
    pub hazard: Option<DecisionHazard>,
    /// When it was decided, device ns.
    pub decided_device_ns: i64,
    /// When its first audio played, device ns; `None` if it never played.
    pub first_audio_device_ns: Option<i64>,
}

/// How an alert matched a hazard.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MatchKind {
    /// By world position.
    World,
    /// By clock hour and distance from the wearer's head at decision time.
    ClockDistance,
}

/// What became of one hazard.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HazardOutcome {
    /// A matching alert's first audio fell in `[relevant_from, latest_alert]`.
    Caught,
    /// Matching alerts were spoken, but only after `latest_alert`.
    Late,
    /// Matching alerts were spoken, but only before `relevant_from`.
    Early,
    /// Matching alerts were decided but none played.
    Unspoken,
    /// No alert matched.
    Missed,
    /// The hazard never became relevant (not counted in recall).
    NotRelevant,
}

/// One hazard's result.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HazardResult {
    /// Label.
    pub label: String,
    /// Kind.
    pub kind: String,
    /// Window start, device ns.
    pub relevant_from_ns: Option<i64>,
    /// Window end used, device ns (the session end when the truth has none).
    pub latest_alert_ns: Option<i64>,
    /// Outcome.
    pub outcome: HazardOutcome,
    /// First audio of the alert that caught it (or of the first matching one), device ns.
    pub first_audio_ns: Option<i64>,
    /// `latest_alert_ns − first_audio_ns` of the catching alert, ms.
    pub lead_time_ms: Option<f64>,
    /// Alerts that matched it (spoken or not).
    pub matching_alerts: usize,
}

/// One alert's result.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AlertResult {
    /// Its request id.
    pub request_id: u64,
    /// Line in `decisions.jsonl`.
    pub line: usize,
    /// Text.
    pub text: String,
    /// First audio, device ns.
    pub first_audio_ns: Option<i64>,
    /// Indices of the hazards it matched, and how.
    pub matched: Vec<(usize, MatchKind)>,
    /// True when it was spoken and matched no hazard.
    pub false_alert: bool,
}

/// All hazard results.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HazardScore {
    /// Per hazard, in ground-truth order.
    pub hazards: Vec<HazardResult>,
    /// Per alert, in decision order.
    pub alerts: Vec<AlertResult>,
    /// Hazards that became relevant.
    pub relevant: usize,
    /// Of those, caught.
    pub caught: usize,
    /// `caught / relevant`; `None` when no hazard became relevant.
    pub recall: Option<f64>,
    /// Spoken alerts that matched no hazard.
    pub false_alerts: usize,
    /// `false_alerts` per minute of session.
    pub false_alerts_per_min: f64,
    /// Alert decisions that never played.
    pub unspoken_alerts: usize,
    /// Median lead time over caught hazards, ms.
    pub lead_time_p50_ms: Option<f64>,
    /// Smallest lead time over caught hazards, ms.
    pub lead_time_min_ms: Option<f64>,
}

/// How `alert` matches `hazard`, if it does.
pub fn match_alert(
    alert: &AlertInput,
    hazard: &TruthHazard,
    head: &HeadTrack,
    tol: &HazardTolerances,
) -> Option<MatchKind> {
    let said = alert.hazard.as_ref()?;
    let t = alert.decided_device_ns;
    if let Some(w) = said.world_m {
        let (wx, wy) = (f64::from(w[0]), f64::from(w[1]));
        let p = hazard.nearest_at(t, [wx, wy]);
        let d = (wx - p[0]).hypot(wy - p[1]);
        if d.is_finite() && d <= tol.world_m {
            return Some(MatchKind::World);
        }
    }
    // A moving hazard is where it was when the alert was decided (a vehicle: the part of
    // its footprint nearest the wearer's head).
    let target = match head.at(t) {
        Some(h) if !hazard.track.is_empty() => {
            let p = hazard.nearest_at(t, [h.position_m[0], h.position_m[1]]);
            [p[0], p[1], hazard.position_m[2]]
        }
        _ => hazard.position_m,
    };
    let (clock, dist) = head.relative(t, target)?;
    let said_d = f64::from(said.distance_m);
    let clock_ok = clock_difference(said.clock.get(), clock.get()) <= tol.clock_hours;
    let dist_ok = said_d.is_finite() && (said_d - dist).abs() <= tol.distance_rel * dist;
    (clock_ok && dist_ok).then_some(MatchKind::ClockDistance)
}

/// The median of `v` (mean of the middle two for an even count); `None` when empty.
pub fn median(v: &[f64]) -> Option<f64> {
    let mut s: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
    s.sort_by(f64::total_cmp);
    let n = s.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => s.get(n / 2).copied(),
        _ => Some((s.get(n / 2 - 1)? + s.get(n / 2)?) / 2.0),
    }
}

/// Scores alerts against hazards over a session ending at `session_end_ns` and lasting
/// `duration_ns`.
pub fn score_hazards(
    hazards: &[TruthHazard],
    alerts: &[AlertInput],
    head: &HeadTrack,
    tol: &HazardTolerances,
    session_end_ns: i64,
    duration_ns: i64,
) -> HazardScore {
    let mut alert_results: Vec<AlertResult> = alerts
        .iter()
        .map(|a| AlertResult {
            request_id: a.request_id,
            line: a.line,
            text: a.text.clone(),
            first_audio_ns: a.first_audio_device_ns,
            matched: Vec::new(),
            false_alert: false,
        })
        .collect();
    let mut results = Vec::with_capacity(hazards.len());
    for (hi, h) in hazards.iter().enumerate() {
        let mut matching: Vec<&AlertInput> = Vec::new();
        for (a, r) in alerts.iter().zip(alert_results.iter_mut()) {
            if let Some(kind) = match_alert(a, h, head, tol) {
                r.matched.push((hi, kind));
                matching.push(a);
            }
        }
        let latest = h
            .relevant_from_ns
            .map(|_| h.latest_alert_ns.unwrap_or(session_end_ns));
        let mut spoken: Vec<i64> = matching
            .iter()
            .filter_map(|a| a.first_audio_device_ns)
            .collect();
        spoken.sort_unstable();
        let (outcome, first_audio) = match (h.relevant_from_ns, latest) {
            (Some(from), Some(to)) => {
                if let Some(&t) = spoken.iter().find(|&&t| t >= from && t <= to) {
                    (HazardOutcome::Caught, Some(t))
                } else if let Some(&t) = spoken.iter().find(|&&t| t > to) {
                    (HazardOutcome::Late, Some(t))
                } else if let Some(&t) = spoken.first() {
                    (HazardOutcome::Early, Some(t))
                } else if !matching.is_empty() {
                    (HazardOutcome::Unspoken, None)
                } else {
                    (HazardOutcome::Missed, None)
                }
            }
            _ => (HazardOutcome::NotRelevant, spoken.first().copied()),
        };
        let lead_time_ms = match (outcome, latest, first_audio) {
            (HazardOutcome::Caught, Some(to), Some(t)) => Some(to.saturating_sub(t) as f64 / 1e6),
            _ => None,
        };
        results.push(HazardResult {
            label: h.label.clone(),
            kind: h.kind.clone(),
            relevant_from_ns: h.relevant_from_ns,
            latest_alert_ns: latest,
            outcome,
            first_audio_ns: first_audio,
            lead_time_ms,
            matching_alerts: matching.len(),
        });
    }
    for r in &mut alert_results {
        r.false_alert = r.first_audio_ns.is_some() && r.matched.is_empty();
    }
    let relevant = results
        .iter()
        .filter(|r| r.outcome != HazardOutcome::NotRelevant)
        .count();
    let caught = results
        .iter()
        .filter(|r| r.outcome == HazardOutcome::Caught)
        .count();
    let false_alerts = alert_results.iter().filter(|r| r.false_alert).count();
    let minutes = duration_ns.max(1) as f64 / 60e9;
    let leads: Vec<f64> = results.iter().filter_map(|r| r.lead_time_ms).collect();
    HazardScore {
        relevant,
        caught,
        recall: (relevant > 0).then(|| caught as f64 / relevant as f64),
        false_alerts,
        false_alerts_per_min: false_alerts as f64 / minutes,
        unspoken_alerts: alert_results
            .iter()
            .filter(|r| r.first_audio_ns.is_none())
            .count(),
        lead_time_p50_ms: median(&leads),
        lead_time_min_ms: leads.iter().copied().reduce(f64::min),
        hazards: results,
        alerts: alert_results,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::truth::TruthTrackSample;
    use crate::state::{ClockHour, ThingKind};
    use nalgebra::{Isometry3, Translation3, UnitQuaternion};

    const S: i64 = 1_000_000_000;

    /// A head standing at the origin facing +x (the CPF's +z), 0–10 s.
    fn head() -> HeadTrack {
        // The CPF looks along its +z: turn it so +z is world +x.
        let cpf = Isometry3::from_parts(
            Translation3::identity(),
            UnitQuaternion::from_euler_angles(0.0, std::f64::consts::FRAC_PI_2, 0.0),
        );
        let mut h = HeadTrack::new();
        for i in 0..=100 {
            h.push(i * S / 10, &Isometry3::identity(), &cpf);
        }
        h
    }

    fn alert(t_ns: i64, world: Option<[f32; 3]>, clock: u8, d: f32) -> AlertInput {
        AlertInput {
            request_id: 1,
            line: 1,
            text: "car".into(),
            hazard: Some(DecisionHazard {
                thing_id: 1,
                kind: ThingKind::Person,
                clock: ClockHour::new(clock),
                distance_m: d,
                world_m: world,
            }),
            decided_device_ns: t_ns,
            first_audio_device_ns: Some(t_ns),
        }
    }

    /// A car driving south along x = 5 at 8 m/s, passing y = 0 at 5 s (heading −y: half
    /// length 2 m along y, half width 1 m along x); its window starts at 2 s, where it is
    /// at y = 24.
    fn car(track: bool) -> TruthHazard {
        let at = |t: f64| [5.0, 8.0 * (5.0 - t)];
        TruthHazard {
            kind: "vehicle".into(),
            label: "car".into(),
            position_m: [5.0, 24.0, 0.0],
            relevant_from_ns: Some(2 * S),
            latest_alert_ns: Some(5 * S),
            track: if track {
                (0..=80)
                    .map(|i| TruthTrackSample {
                        t_ns: i * S / 10,
                        position_m: at(i as f64 / 10.0),
                        yaw_rad: -std::f64::consts::FRAC_PI_2,
                    })
                    .collect()
            } else {
                Vec::new()
            },
            half_extent_m: Some([2.0, 1.0]),
        }
    }

    #[test]
    fn a_moving_hazard_is_matched_where_it_was_when_the_alert_was_decided() {
        let h = head();
        let tol = HazardTolerances::default();
        // At 4.5 s the car's centre is at (5, 4); its footprint spans x 4–6, y 2–6. An alert
        // placing it at (4.2, 2.5) is on the footprint's near side.
        let a = alert(45 * S / 10, Some([4.2, 2.5, 0.0]), 1, 3.2);
        assert_eq!(
            match_alert(&a, &car(true), &h, &tol),
            Some(MatchKind::World)
        );
        // Without the track the car is where its window began (5, 24): no match by place,
        // and none by clock and distance (24.5 m away at 12 o'clock).
        assert_eq!(match_alert(&a, &car(false), &h, &tol), None);
        // By clock and distance alone: the footprint's point nearest the head is (4, 2),
        // 4.47 m away and 26.6° to the left: 11 o'clock.
        let near = alert(45 * S / 10, None, 11, 4.4);
        assert_eq!(
            match_alert(&near, &car(true), &h, &tol),
            Some(MatchKind::ClockDistance)
        );
        // 2 m beyond the footprint: no match.
        let off = alert(45 * S / 10, Some([2.0, 2.5, 0.0]), 3, 9.0);
        assert_eq!(match_alert(&off, &car(true), &h, &tol), None);
    }

    #[test]
    fn a_track_is_read_at_its_nearest_sample_and_clamped_at_its_ends() {
        let c = car(true);
        assert_eq!(c.pose_at(45 * S / 10).0, [5.0, 4.0]);
        assert_eq!(c.pose_at(-S).0, [5.0, 40.0]);
        assert_eq!(c.pose_at(20 * S).0, [5.0, -24.0]);
        // Nearest point of the footprint at 5 s (centre (5, 0)) from (0, 0): (4, 0).
        let p = c.nearest_at(5 * S, [0.0, 0.0]);
        assert!((p[0] - 4.0).abs() < 1e-9 && p[1].abs() < 1e-9, "{p:?}");
    }
}
