//! The alerter: a hazard event becomes one short alert utterance ("Stop. Obstacle ahead,
//! 2 metres.", "Step down in 3 metres.", "Head height obstacle, 12 o'clock, 2 metres.") at
//! alert priority, with an earcon for the urgent ones. No model involved; it returns at once.
//! The same thing is not alerted twice within [`AlerterConfig::repeat_after_ns`] (unless it
//! has become urgent since), and alerts are spaced at least [`AlerterConfig::min_gap_ns`]
//! apart; what is held back is counted. An event held back by that spacing is not lost:
//! the perception gate raises each approach once, so the alerter keeps it
//! ([`Alerter::take_held`]) and the assistant speaks it as soon as the gap has passed, if
//! its thing is still in the path.

use std::collections::{HashMap, VecDeque};

use super::phrase::{clock, metres};
use crate::lexicon::names::side_word;
use crate::speech::{Earcon, Priority, Utterance};
use crate::state::{HazardEvent, HeightBand, Thing, ThingKind};
use crate::time::HostTime;

/// Alerter settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AlerterConfig {
    /// A thing already alerted is not alerted again for this long (ns). Perception's gate
    /// raises one event per approach and starts a new approach only after 3 s away, out of
    /// the path, unseen or not approached (`PerceptionConfig::rearm_after_ns`); this is a
    /// guard against flapping within that time, and no longer than it, or it would silence
    /// the next approach (a curb alerted, the wearer stops, turns and walks to it again).
    pub repeat_after_ns: i64,
    /// Any two alerts are at least this far apart (ns).
    pub min_gap_ns: i64,
    /// Closer than this (m) or sooner than [`AlerterConfig::urgent_ttc_s`], an obstacle
    /// alert starts with "Stop."
    pub urgent_m: f32,
    /// Time to contact below which an alert is urgent, seconds.
    pub urgent_ttc_s: f32,
    /// Most thing ids remembered for deduplication (the oldest are forgotten).
    pub max_tracked: usize,
}

impl Default for AlerterConfig {
    fn default() -> Self {
        Self {
            repeat_after_ns: 3_000_000_000,
            min_gap_ns: 700_000_000,
            urgent_m: 2.5,
            urgent_ttc_s: 2.5,
            max_tracked: 256,
        }
    }
}

/// Why an event was not alerted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Suppressed {
    /// The same thing was alerted recently.
    Duplicate,
    /// Another alert was just spoken.
    RateLimited,
}

/// Counts of what the alerter did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AlerterCounts {
    /// Alerts produced.
    pub alerted: u64,
    /// Events dropped as duplicates.
    pub duplicates: u64,
    /// Events dropped by the rate limit.
    pub rate_limited: u64,
}

/// Rate-limited events held for later at most (one per thing; the oldest beyond go).
pub const MAX_HELD: usize = 4;

/// Turns hazard events into alert utterances.
#[derive(Debug, Default)]
pub struct Alerter {
    config: AlerterConfig,
    /// Per thing id: when it was last alerted, and whether that alert was urgent.
    last: HashMap<u32, (HostTime, bool)>,
    last_any: Option<HostTime>,
    counts: AlerterCounts,
    /// Events held back by the rate limit, oldest first.
    held: VecDeque<HazardEvent>,
}

fn is_ahead(t: &Thing) -> bool {
    matches!(t.clock.get(), 11 | 12 | 1)
}

fn where_(t: &Thing) -> String {
    if is_ahead(t) {
        format!("ahead, {}", metres(t.distance_m))
    } else {
        format!("at {}, {}", clock(t.clock), metres(t.distance_m))
    }
}

impl Alerter {
    /// An alerter with `config`.
    pub fn new(config: AlerterConfig) -> Self {
        Self {
            config,
            ..Self::default()
        }
    }

    /// What it has done so far.
    pub fn counts(&self) -> AlerterCounts {
        self.counts
    }

    /// Whether `e` is urgent (close, or soon reached).
    pub fn is_urgent(&self, e: &HazardEvent) -> bool {
        e.thing.distance_m <= self.config.urgent_m
            || e.time_to_contact_s
                .is_some_and(|s| s.is_finite() && s <= self.config.urgent_ttc_s)
    }

    /// The alert text and earcon for `e` (pure; no dedup).
    pub fn phrase(&self, e: &HazardEvent) -> (String, Option<Earcon>) {
        let t = &e.thing;
        let urgent = self.is_urgent(e);
        let head = t.kind == ThingKind::Overhead || t.height == Some(HeightBand::Head);
        let text = match t.kind {
            ThingKind::DropOff if is_ahead(t) => format!("Step down in {}.", metres(t.distance_m)),
            ThingKind::DropOff => format!("Step down {}.", where_(t)),
            ThingKind::StepUp if is_ahead(t) => format!("Step up in {}.", metres(t.distance_m)),
            ThingKind::StepUp => format!("Step up {}.", where_(t)),
            _ if head => format!(
                "Head height obstacle, {}, {}.",
                clock(t.clock),
                metres(t.distance_m)
            ),
            // A vehicle says where it comes from: that is what the wearer acts on.
            ThingKind::Vehicle if t.approaching_from().is_some() => {
                let stop = if urgent { "Stop. " } else { "" };
                let from = t.approaching_from().map_or("", side_word);
                format!(
                    "{stop}Vehicle coming from the {from}, {}.",
                    metres(t.distance_m)
                )
            }
            k => {
                let what = match k {
                    ThingKind::Person => "Person",
                    ThingKind::Vehicle => "Vehicle",
                    _ => "Obstacle",
                };
                let stop = if urgent && is_ahead(t) { "Stop. " } else { "" };
                format!("{stop}{what} {}.", where_(t))
            }
        };
        let earcon = if urgent { Some(Earcon::Double) } else { None };
        (text, earcon)
    }

    /// Events held back by the rate limit.
    pub fn held(&self) -> usize {
        self.held.len()
    }

    /// The oldest event held back by the rate limit, once the gap after the last alert has
    /// passed at `now` (the caller refreshes its thing and passes it to [`Self::alert`]).
    pub fn take_held(&mut self, now: HostTime) -> Option<HazardEvent> {
        let gap_over = self
            .last_any
            .is_none_or(|at| now.since(at) >= self.config.min_gap_ns);
        if gap_over {
            self.held.pop_front()
        } else {
            None
        }
    }

    /// Decides whether `e`, raised at `now`, is alerted; returns the utterance, or why not.
    pub fn alert(&mut self, e: &HazardEvent, now: HostTime) -> Result<Utterance, Suppressed> {
        let urgent = self.is_urgent(e);
        if let Some(&(at, was_urgent)) = self.last.get(&e.thing.id) {
            let recent = now.since(at) < self.config.repeat_after_ns;
            if recent && (was_urgent || !urgent) {
                self.counts.duplicates += 1;
                return Err(Suppressed::Duplicate);
            }
        }
        if let Some(at) = self.last_any {
            let new_and_urgent = urgent && !self.last.contains_key(&e.thing.id);
            if now.since(at) < self.config.min_gap_ns && !new_and_urgent {
                self.counts.rate_limited += 1;
                self.held.retain(|h| h.thing.id != e.thing.id);
                if self.held.len() >= MAX_HELD {
                    self.held.pop_front();
                }
                self.held.push_back(e.clone());
                return Err(Suppressed::RateLimited);
            }
        }
        if self.last.len() >= self.config.max_tracked.max(1) && !self.last.contains_key(&e.thing.id)
        {
            if let Some((&oldest, _)) = self.last.iter().min_by_key(|(id, (t, _))| (*t, **id)) {
                self.last.remove(&oldest);
            }
        }
        self.last.insert(e.thing.id, (now, urgent));
        self.last_any = Some(now);
        self.counts.alerted += 1;
        let (text, earcon) = self.phrase(e);
        Ok(Utterance {
            text,
            priority: Priority::Alert,
            request_id: 0,
            capture: e.evidence,
            decided: now,
            earcon,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::{ClockHour, Evidence};
    use crate::time::DeviceTime;

    fn event(id: u32, kind: ThingKind, clock_h: u8, d: f32) -> HazardEvent {
        HazardEvent {
            thing: Thing {
                id,
                kind,
                label: "x".into(),
                detail: Default::default(),
                clock: ClockHour::new(clock_h),
                distance_m: d,
                height: None,
                world_m: None,
                in_path: true,
                first_seen: DeviceTime(0),
                last_seen: DeviceTime(0),
                confidence: 1.0,
                evidence: Evidence::Points,
            },
            time_to_contact_s: None,
            evidence: DeviceTime(5),
            raised: HostTime(0),
        }
    }

    #[test]
    fn phrases_match_the_issue() {
        let a = Alerter::default();
        assert_eq!(
            a.phrase(&event(1, ThingKind::Obstacle, 12, 2.0)),
            (
                "Stop. Obstacle ahead, 2 metres.".to_string(),
                Some(Earcon::Double)
            )
        );
        assert_eq!(
            a.phrase(&event(1, ThingKind::DropOff, 12, 3.1)).0,
            "Step down in 3 metres."
        );
        assert_eq!(
            a.phrase(&event(1, ThingKind::Overhead, 12, 2.0)).0,
            "Head height obstacle, 12 o'clock, 2 metres."
        );
        assert_eq!(
            a.phrase(&event(1, ThingKind::Obstacle, 2, 4.0)).0,
            "Obstacle at 2 o'clock, 4 metres."
        );
        assert_eq!(a.phrase(&event(1, ThingKind::Obstacle, 12, 4.0)).1, None);
    }

    #[test]
    fn dedup_escalation_and_rate_limit() {
        let mut a = Alerter::default();
        let ms = |m: i64| HostTime(m * 1_000_000);
        let far = event(1, ThingKind::Obstacle, 12, 4.0);
        let near = event(1, ThingKind::Obstacle, 12, 2.0);
        assert!(a.alert(&far, ms(0)).is_ok());
        assert_eq!(a.alert(&far, ms(2_000)), Err(Suppressed::Duplicate));
        // Escalation to urgent is said once.
        let u = a.alert(&near, ms(2_500)).unwrap();
        assert!(u.text.starts_with("Stop."));
        assert_eq!(u.priority, Priority::Alert);
        assert_eq!(u.capture, DeviceTime(5));
        assert_eq!(a.alert(&near, ms(2_800)), Err(Suppressed::Duplicate));
        // Another thing right after: rate limited unless urgent and new.
        assert_eq!(
            a.alert(&event(2, ThingKind::Obstacle, 2, 4.0), ms(2_600)),
            Err(Suppressed::RateLimited)
        );
        // The rate-limited event is held and comes back once the gap has passed.
        assert_eq!(a.held(), 1);
        assert_eq!(a.take_held(ms(3_000)), None);
        let held = a.take_held(ms(3_200)).unwrap();
        assert_eq!(held.thing.id, 2);
        assert_eq!(a.held(), 0);
        assert!(a.alert(&held, ms(3_200)).is_ok());
        // After the repeat window the same thing may be alerted again (a new approach).
        assert!(a.alert(&near, ms(5_600)).is_ok());
        assert_eq!(
            a.counts(),
            AlerterCounts {
                alerted: 4,
                duplicates: 2,
                rate_limited: 1
            }
        );
    }

    #[test]
    fn held_events_are_bounded_one_per_thing() {
        let mut a = Alerter::default();
        let ms = |m: i64| HostTime(m * 1_000_000);
        assert!(a
            .alert(&event(1, ThingKind::Obstacle, 12, 4.0), ms(0))
            .is_ok());
        for id in 2..10 {
            let e = event(id, ThingKind::Obstacle, 12, 4.0);
            assert_eq!(a.alert(&e, ms(10)), Err(Suppressed::RateLimited));
            // The same thing again replaces its held event.
            assert_eq!(a.alert(&e, ms(20)), Err(Suppressed::RateLimited));
        }
        assert_eq!(a.held(), MAX_HELD);
        let ids: Vec<u32> = std::iter::from_fn(|| a.take_held(ms(1_000)))
            .map(|e| e.thing.id)
            .collect();
        assert_eq!(ids, vec![6, 7, 8, 9]);
    }
}
