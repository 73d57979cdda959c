//! Hazard scoring (pure compute): which alerts are about which ground-truth hazard, whether
//! they said its kind, whether each hazard was caught in its useful window (one alert
//! catches at most one hazard), wrong-kind and false alerts, and lead times. The rules are
//! in the module documentation of `crate::eval` and in `docs/truth.md`.

use serde::Serialize;

use super::kinds::{agrees, HazardClass, TruthKind};
use super::pose::HeadTrack;
use super::text::clock_difference;
use super::truth::TruthHazard;
use crate::state::{Decision, DecisionHazard, ThingKind};

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

impl AlertInput {
    /// The inputs of alert decision `d` (line `line` of `decisions.jsonl`), one per thing it
    /// names: an alert that names two things at once ("Stop, obstacle and head-high.") may
    /// catch two hazards, one per thing, each at the alert's own times.
    pub fn per_thing(
        d: &Decision,
        line: usize,
        decided_device_ns: i64,
        first_audio_device_ns: Option<i64>,
    ) -> Vec<AlertInput> {
        std::iter::once(d.hazard.clone())
            .chain(d.more_hazards.iter().cloned().map(Some))
            .map(|hazard| AlertInput {
                request_id: d.request_id,
                line,
                text: d.text.clone(),
                hazard,
                decided_device_ns,
                first_audio_device_ns,
            })
            .collect()
    }
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
    /// An alert of an agreeing kind, catching no other hazard, played its first audio in
    /// `[relevant_from, latest_alert]`.
    Caught,
    /// Only alerts of the wrong kind were spoken about it in its window ("Person ahead" for
    /// a pillar).
    WrongKind,
    /// Matching alerts were spoken, but only after `latest_alert`.
    Late,
    /// Matching alerts were spoken, but only before `relevant_from`.
    Early,
    /// Agreeing alerts were heard in its window, but each caught another hazard: one
    /// alert names one thing ("Person ahead" for two people walking together).
    Shared,
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
    pub kind: TruthKind,
    /// Its class (what an alert must say to catch it).
    pub class: HazardClass,
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
    /// Alerts of an agreeing kind that matched it by place (spoken or not).
    pub matching_alerts: usize,
    /// Alerts of the wrong kind that matched it by place.
    pub wrong_kind_alerts: usize,
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
    /// The kind it said, when it carried one.
    pub kind: Option<ThingKind>,
    /// First audio, device ns.
    pub first_audio_ns: Option<i64>,
    /// Indices of the hazards it matched by place with an agreeing kind, and how.
    pub matched: Vec<(usize, MatchKind)>,
    /// Indices of the hazards it matched by place only, its kind disagreeing.
    pub wrong_kind_of: Vec<usize>,
    /// The one hazard it caught, if any (an alert catches at most one).
    pub caught: Option<usize>,
    /// True when it was spoken, matched no hazard by place and kind, and none by place.
    pub false_alert: bool,
    /// True when it was spoken and matched hazards by place only, each of another kind.
    pub wrong_kind: bool,
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
    /// Spoken alerts that matched no hazard (by place, of any kind).
    pub false_alerts: usize,
    /// `false_alerts` per minute of session.
    pub false_alerts_per_min: f64,
    /// Spoken alerts about a real hazard that said the wrong kind.
    pub wrong_kind_alerts: usize,
    /// Alert decisions that never played.
    pub unspoken_alerts: usize,
    /// Median lead time over caught hazards, ms.
    pub lead_time_p50_ms: Option<f64>,
    /// Smallest lead time over caught hazards, ms.
    pub lead_time_min_ms: Option<f64>,
}

/// How `alert` matches `hazard` by place, if it does (kinds are not compared here: see
/// [`agrees`]).
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

/// One alert to at most one hazard, one hazard to at most one alert: a maximum matching
/// over `edges[h]` (the alerts that may catch hazard `h`, in the order to try them), found
/// by augmenting paths (Kuhn). Hazards are offered in `order`; each takes the first free
/// alert of its list, or one it can free by moving its holder to another of the holder's
/// alerts. Returns the alert that catches each hazard.
fn assign(edges: &[Vec<usize>], order: &[usize], alerts: usize) -> Vec<Option<usize>> {
    fn augment(
        h: usize,
        edges: &[Vec<usize>],
        seen: &mut [bool],
        holder: &mut [Option<usize>],
    ) -> bool {
        for &a in edges.get(h).map(Vec::as_slice).unwrap_or(&[]) {
            if seen.get(a).copied().unwrap_or(true) {
                continue;
            }
            if let Some(s) = seen.get_mut(a) {
                *s = true;
            }
            let held = holder.get(a).copied().flatten();
            if held.is_none_or(|other| augment(other, edges, seen, holder)) {
                if let Some(slot) = holder.get_mut(a) {
                    *slot = Some(h);
                }
                return true;
            }
        }
        false
    }
    let mut holder: Vec<Option<usize>> = vec![None; alerts];
    for &h in order {
        let mut seen = vec![false; alerts];
        augment(h, edges, &mut seen, &mut holder);
    }
    let mut caught_by = vec![None; edges.len()];
    for (a, h) in holder.iter().enumerate() {
        if let Some(slot) = h.and_then(|h| caught_by.get_mut(h)) {
            *slot = Some(a);
        }
    }
    caught_by
}

/// Scores alerts against hazards over a session ending at `session_end_ns` and lasting
/// `duration_ns`.
///
/// An alert matches a hazard by place ([`match_alert`]); it counts for the hazard only when
/// its kind agrees with the hazard's class ([`agrees`]); an alert about a real hazard that
/// says another kind is a *wrong-kind* alert, neither a catch nor a false alert. A hazard
/// is caught by an agreeing alert whose first audio lies in its window, and an alert
/// catches at most one hazard: the catches are a maximum matching ([`assign`]), hazards
/// offered in order of their deadline, alerts tried earliest first.
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
            kind: a.hazard.as_ref().map(|h| h.kind),
            first_audio_ns: a.first_audio_device_ns,
            matched: Vec::new(),
            wrong_kind_of: Vec::new(),
            caught: None,
            false_alert: false,
            wrong_kind: false,
        })
        .collect();
    // Windows, and which alerts agree with each hazard (by place and kind).
    let windows: Vec<Option<(i64, i64)>> = hazards
        .iter()
        .map(|h| {
            h.relevant_from_ns
                .map(|from| (from, h.latest_alert_ns.unwrap_or(session_end_ns)))
        })
        .collect();
    let mut agreeing: Vec<Vec<usize>> = vec![Vec::new(); hazards.len()];
    let mut wrong: Vec<Vec<usize>> = vec![Vec::new(); hazards.len()];
    for (hi, h) in hazards.iter().enumerate() {
        for (ai, (a, r)) in alerts.iter().zip(alert_results.iter_mut()).enumerate() {
            let Some(how) = match_alert(a, h, head, tol) else {
                continue;
            };
            let said = a.hazard.as_ref().map(|d| d.kind);
            if said.is_some_and(|k| agrees(k, h.kind.class())) {
                r.matched.push((hi, how));
                if let Some(v) = agreeing.get_mut(hi) {
                    v.push(ai);
                }
            } else {
                r.wrong_kind_of.push(hi);
                if let Some(v) = wrong.get_mut(hi) {
                    v.push(ai);
                }
            }
        }
    }
    let audio = |ai: usize| alerts.get(ai).and_then(|a| a.first_audio_device_ns);
    let in_window = |hi: usize, t: i64| {
        windows
            .get(hi)
            .copied()
            .flatten()
            .is_some_and(|(from, to)| t >= from && t <= to)
    };
    // Candidate catches: agreeing alerts heard in the window, earliest first.
    let edges: Vec<Vec<usize>> = agreeing
        .iter()
        .enumerate()
        .map(|(hi, v)| {
            let mut c: Vec<usize> = v
                .iter()
                .copied()
                .filter(|&ai| audio(ai).is_some_and(|t| in_window(hi, t)))
                .collect();
            c.sort_by_key(|&ai| (audio(ai), ai));
            c
        })
        .collect();
    let mut order: Vec<usize> = (0..hazards.len()).collect();
    order.sort_by_key(|&hi| (windows.get(hi).copied().flatten().map(|w| w.1), hi));
    let caught_by = assign(&edges, &order, alerts.len());
    let mut results = Vec::with_capacity(hazards.len());
    for (hi, h) in hazards.iter().enumerate() {
        let window = windows.get(hi).copied().flatten();
        let mine = agreeing.get(hi).map(Vec::as_slice).unwrap_or(&[]);
        let mut spoken: Vec<i64> = mine.iter().filter_map(|&ai| audio(ai)).collect();
        spoken.sort_unstable();
        let wrong_in_window = wrong
            .get(hi)
            .map(Vec::as_slice)
            .unwrap_or(&[])
            .iter()
            .filter_map(|&ai| audio(ai))
            .find(|&t| in_window(hi, t));
        let catcher = caught_by.get(hi).copied().flatten();
        if let Some(r) = catcher.and_then(|ai| alert_results.get_mut(ai)) {
            r.caught = Some(hi);
        }
        let (outcome, first_audio) = match window {
            Some((from, to)) => {
                if let Some(t) = catcher.and_then(audio) {
                    (HazardOutcome::Caught, Some(t))
                } else if let Some(t) = wrong_in_window {
                    (HazardOutcome::WrongKind, Some(t))
                } else if let Some(&t) = spoken.iter().find(|&&t| t > to) {
                    (HazardOutcome::Late, Some(t))
                } else if let Some(&t) = spoken.iter().find(|&&t| t < from) {
                    (HazardOutcome::Early, Some(t))
                } else if let Some(&t) = spoken.first() {
                    // Heard in the window, but each caught another hazard.
                    (HazardOutcome::Shared, Some(t))
                } else if !mine.is_empty() {
                    (HazardOutcome::Unspoken, None)
                } else {
                    (HazardOutcome::Missed, None)
                }
            }
            None => (HazardOutcome::NotRelevant, spoken.first().copied()),
        };
        let lead_time_ms = match (outcome, window, first_audio) {
            (HazardOutcome::Caught, Some((_, to)), Some(t)) => {
                Some(to.saturating_sub(t) as f64 / 1e6)
            }
            _ => None,
        };
        results.push(HazardResult {
            label: h.label.clone(),
            kind: h.kind,
            class: h.kind.class(),
            relevant_from_ns: h.relevant_from_ns,
            latest_alert_ns: window.map(|w| w.1),
            outcome,
            first_audio_ns: first_audio,
            lead_time_ms,
            matching_alerts: mine.len(),
            wrong_kind_alerts: wrong.get(hi).map_or(0, Vec::len),
        });
    }
    for r in &mut alert_results {
        let spoken = r.first_audio_ns.is_some();
        r.false_alert = spoken && r.matched.is_empty() && r.wrong_kind_of.is_empty();
        r.wrong_kind = spoken && r.matched.is_empty() && !r.wrong_kind_of.is_empty();
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
        wrong_kind_alerts: alert_results.iter().filter(|r| r.wrong_kind).count(),
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

    const S: i64 = 1_000_000_000;

    fn head() -> HeadTrack {
        crate::eval::pose::standing_head(10)
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
            kind: TruthKind::Vehicle,
            moving: true,
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

    fn still(kind: TruthKind, at: [f64; 2], to_s: i64) -> TruthHazard {
        TruthHazard {
            kind,
            label: format!("{kind:?}"),
            position_m: [at[0], at[1], 0.0],
            relevant_from_ns: Some(S),
            latest_alert_ns: Some(to_s * S),
            track: Vec::new(),
            half_extent_m: None,
            moving: false,
        }
    }

    /// An alert placing a thing of `kind` at `at` in the world (no distance: it matches by
    /// world position only, so each case below says exactly what it is near).
    fn said(t_s: i64, kind: ThingKind, at: [f32; 2]) -> AlertInput {
        let mut a = alert(t_s * S, Some([at[0], at[1], 0.0]), 12, f32::NAN);
        if let Some(h) = a.hazard.as_mut() {
            h.kind = kind;
        }
        a.text = format!("{kind:?} ahead");
        a
    }

    fn score(hazards: &[TruthHazard], alerts: &[AlertInput]) -> HazardScore {
        score_hazards(
            hazards,
            alerts,
            &head(),
            &HazardTolerances::default(),
            10 * S,
            10 * S,
        )
    }

    #[test]
    fn an_alert_of_the_wrong_kind_catches_nothing_and_is_not_false() {
        let pillar = [still(TruthKind::Pole, [4.0, 0.0], 6)];
        // "Person ahead" for a pillar: reported as the wrong kind.
        let s = score(&pillar, &[said(2, ThingKind::Person, [4.0, 0.0])]);
        assert_eq!(s.hazards[0].outcome, HazardOutcome::WrongKind);
        assert_eq!(s.caught, 0);
        assert_eq!((s.wrong_kind_alerts, s.false_alerts), (1, 0));
        assert!(s.alerts[0].wrong_kind && !s.alerts[0].false_alert);
        // "Obstacle ahead" at the same place catches it.
        let s = score(&pillar, &[said(2, ThingKind::Obstacle, [4.0, 0.0])]);
        assert_eq!(s.hazards[0].outcome, HazardOutcome::Caught);
        assert_eq!((s.wrong_kind_alerts, s.false_alerts), (0, 0));
        // An alert nowhere near anything is false.
        let s = score(&pillar, &[said(2, ThingKind::Person, [4.0, 6.0])]);
        assert_eq!((s.wrong_kind_alerts, s.false_alerts), (0, 1));
        assert_eq!(s.hazards[0].outcome, HazardOutcome::Missed);
    }

    #[test]
    fn an_alert_that_names_two_things_may_catch_two_hazards() {
        let box_and_branch = [
            still(TruthKind::Box, [2.0, 0.0], 6),
            still(TruthKind::LowBranch, [2.5, 0.2], 6),
        ];
        let hazard = |kind, at: [f32; 2]| DecisionHazard {
            thing_id: 1,
            kind,
            clock: ClockHour::new(12),
            distance_m: f32::NAN,
            world_m: Some([at[0], at[1], 1.0]),
        };
        let mut d = Decision {
            kind: crate::state::DecisionKind::Alert,
            request_id: 4,
            request_index: None,
            request: None,
            text: "Stop, obstacle and head-high.".into(),
            hazard: Some(hazard(ThingKind::Obstacle, [2.0, 0.0])),
            more_hazards: vec![hazard(ThingKind::Overhead, [2.5, 0.2])],
            capture_ns: 0,
            decided_ns: 0,
            state_at_ns: 0,
            generator: "alerter".into(),
            guard: crate::state::GuardAction::Passed,
            first_token_ns: None,
            lm: None,
            text_read: None,
            voice: None,
            ask: None,
        };
        let inputs = AlertInput::per_thing(&d, 3, 2 * S, Some(2 * S));
        assert_eq!(inputs.len(), 2);
        assert!(inputs.iter().all(|a| a.request_id == 4 && a.line == 3));
        let s = score(&box_and_branch, &inputs);
        assert_eq!(s.caught, 2);
        assert_eq!((s.false_alerts, s.wrong_kind_alerts), (0, 0));
        // Each thing named counts for itself: a second thing that is not there is a false
        // alert, and the first still catches its hazard.
        d.more_hazards = vec![hazard(ThingKind::Person, [2.0, 5.0])];
        let s = score(
            &box_and_branch,
            &AlertInput::per_thing(&d, 3, 2 * S, Some(2 * S)),
        );
        assert_eq!((s.caught, s.false_alerts), (1, 1));
        // An alert that names one thing is one input, as before.
        d.more_hazards.clear();
        assert_eq!(AlertInput::per_thing(&d, 3, 2 * S, Some(2 * S)).len(), 1);
    }

    #[test]
    fn one_alert_catches_one_hazard() {
        // Two people walking together half a metre apart: one "Person ahead" names one.
        let two = [
            still(TruthKind::Person, [4.0, 0.0], 6),
            still(TruthKind::Person, [4.0, 0.5], 6),
        ];
        let s = score(&two, &[said(2, ThingKind::Person, [4.0, 0.25])]);
        assert_eq!(s.caught, 1);
        assert_eq!(s.hazards[1].outcome, HazardOutcome::Shared);
        assert_eq!(s.alerts[0].matched.len(), 2);
        assert_eq!(s.alerts[0].caught, Some(0));
        // Two alerts catch both.
        let s = score(
            &two,
            &[
                said(2, ThingKind::Person, [4.0, 0.25]),
                said(3, ThingKind::Person, [4.0, 0.25]),
            ],
        );
        assert_eq!(s.caught, 2);
    }

    #[test]
    fn catches_are_a_maximum_matching_not_first_come() {
        // Alert A (2 s) is near both boxes; alert B (3 s) only near the first. The first box
        // closes its window first and would take A, leaving the second box uncaught; the
        // matching gives the first box B and the second box A.
        let boxes = [
            still(TruthKind::Box, [4.0, 0.0], 5),
            still(TruthKind::Box, [4.0, 1.5], 8),
        ];
        let s = score(
            &boxes,
            &[
                said(2, ThingKind::Obstacle, [4.0, 0.75]),
                said(3, ThingKind::Obstacle, [4.0, -0.2]),
            ],
        );
        assert_eq!(s.caught, 2);
        assert_eq!(s.alerts[0].caught, Some(1));
        assert_eq!(s.alerts[1].caught, Some(0));
    }
}
