//! The alerter: a hazard event becomes one short alert utterance ("Stop, obstacle.",
//! "Step down in 3 metres.", "Head-high 10 o'clock.") at alert
//! priority, heard from its thing's side ([`Pan`]), with its kind's earcon when urgent. No
//! model involved; it returns at once. One that is not urgent is a heads-up
//! ([`Utterance::urgent`]): it lets the answer clause being said end first when that ends
//! soon.
//! The same thing is not alerted twice within [`AlerterConfig::repeat_after_ns`] (unless it
//! has become urgent since), nor another of its kind where it was
//! ([`AlerterConfig::same_place_m`]: perception may follow one thing as two, and a listener
//! hears "Stop, obstacle." twice for one place). An alert is not cut by the next one unless
//! the next is more urgent (urgent where it was not, or reached in half its time): while the
//! last alert is still being said (its length estimated from its words at the speaking
//! rate, [`crate::speech::pace`]), and for at least
//! [`AlerterConfig::min_gap_ns`] after it began, another waits; what waits is counted. An
//! event that waits is not lost: the perception gate raises each approach once, so the
//! alerter keeps it ([`Alerter::take_held`]) and the assistant speaks it as soon as the last
//! alert has been said, where its thing is then, if it is still in the path.
//! Hazards met together are said together when that stays short: an event that comes within
//! [`AlerterConfig::merge_within_ns`] of the alert being said (the same update of perception)
//! replaces it with one alert naming both, most urgent first ("Stop, obstacle and
//! head-high."), rather than waiting behind it, when the two fit in
//! [`AlerterConfig::max_length_ns`] at the wearer's rate (at the default rate they do not,
//! and the second follows the first); events held back until an alert has been said come
//! out together the same way. An alert names at most [`AlerterConfig::max_named`] things.

use std::collections::{HashMap, VecDeque};

use super::phrase::clock;
use crate::lexicon::names::side_word;
use crate::speech::pace::spoken_ns;
use crate::speech::{Earcon, Pan, Priority, Utterance};
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
    /// Any two alerts begin at least this far apart (ns), however short the first.
    pub min_gap_ns: i64,
    /// A newer alert cuts the one being said when its time to contact is less than this
    /// share of the playing one's (or it is urgent and the playing one is not).
    pub cut_contact_ratio: f32,
    /// Closing speed assumed for a thing without a time to contact (the wearer walking to
    /// it), m/s.
    pub assumed_closing_mps: f32,
    /// Speaking rate the alert lengths are estimated at, words per minute (the assistant
    /// keeps it to the speaker's, [`Alerter::set_rate_wpm`]).
    pub rate_wpm: u32,
    /// The estimated length is stretched by this factor before another alert may follow:
    /// the estimate is within 20 % of the voice either way (short call-outs run long:
    /// "Stop, obstacle." is said in 1.30 s, estimated at 1.12 s), so 1 / (1 − 0.2), and
    /// waiting a little longer costs less than cutting an alert's last word or deciding
    /// guidance under it.
    pub length_margin: f32,
    /// Closer than this (m) or sooner than [`AlerterConfig::urgent_ttc_s`], an obstacle
    /// alert starts with "Stop."
    pub urgent_m: f32,
    /// Time to contact below which an alert is urgent, seconds.
    pub urgent_ttc_s: f32,
    /// Most thing ids remembered for deduplication (the oldest are forgotten).
    pub max_tracked: usize,
    /// A thing of the kind of one alerted within [`AlerterConfig::repeat_after_ns`], and
    /// closer than this to where that one was (horizontally, in the world frame), m, is the
    /// same thing to a listener: deduplicated as if it had its id. Perception's tracker
    /// takes a thing seen within 0.8 m of a track's place to be that track
    /// (`perception::tracker::ASSOCIATE_M`); two tracks closer than that are one thing
    /// followed twice.
    pub same_place_m: f32,
    /// An event within this long of the start of the alert being said (ns) is said with it,
    /// in one alert that replaces it: raised by the same update of perception (its events
    /// come together; the next camera frame is 33 ms later), before any of the first was
    /// heard. Later, a wearer who has begun to hear one alert hears it out (or is cut by a
    /// more urgent one): said again with another thing, it would be heard twice.
    pub merge_within_ns: i64,
    /// Most things one alert names.
    pub max_named: usize,
    /// Things met together are named in one alert only when it is estimated to last no
    /// longer than this at the speaking rate, its earcon included and the estimate
    /// stretched by [`AlerterConfig::length_margin`] ([`crate::speech::pace`]), ns;
    /// otherwise the most urgent is said alone and
    /// the other waits for it (or cuts it, when more urgent). At the default rate no two
    /// things fit ("Stop, obstacle and head-high." lasts 1.9 s); at a listener's faster
    /// rate they do.
    pub max_length_ns: i64,
}

impl Default for AlerterConfig {
    fn default() -> Self {
        Self {
            repeat_after_ns: 3_000_000_000,
            min_gap_ns: 700_000_000,
            cut_contact_ratio: 0.5,
            assumed_closing_mps: 1.2,
            rate_wpm: crate::speech::VoiceParams::default().rate_wpm,
            length_margin: 1.25,
            urgent_m: 2.5,
            urgent_ttc_s: 2.5,
            max_tracked: 256,
            same_place_m: 0.8,
            merge_within_ns: 40_000_000,
            max_named: 2,
            max_length_ns: 1_500_000_000,
        }
    }
}

/// Why an event was not alerted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Suppressed {
    /// The same thing was alerted recently.
    Duplicate,
    /// Another alert, no less urgent, is being said (the event waits for it to end).
    RateLimited,
}

/// Counts of what the alerter did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AlerterCounts {
    /// Alerts produced.
    pub alerted: u64,
    /// Events dropped as duplicates.
    pub duplicates: u64,
    /// Events that waited for another alert to be said.
    pub rate_limited: u64,
    /// Alerts that named more than one thing.
    pub merged: u64,
}

/// One thing's last alert.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Said {
    at: HostTime,
    urgent: bool,
    kind: ThingKind,
    /// Where the thing was, horizontally, m (when a world frame exists).
    world_xy_m: Option<[f32; 2]>,
}

/// Events held for later at most (one per thing; the oldest beyond go).
pub const MAX_HELD: usize = 4;

/// The alert said last: when it began, until when it is being said, how urgent it was, and
/// what it names.
#[derive(Clone, Debug, PartialEq)]
struct LastAlert {
    at: HostTime,
    /// When the first alert it merged began to be said (`at` when it merged none).
    first_at: HostTime,
    until: HostTime,
    urgent: bool,
    contact_s: f32,
    /// The events it names, most urgent first.
    named: Vec<HazardEvent>,
    /// Another thing did not fit in it ([`AlerterConfig::max_length_ns`]): nothing more is
    /// said with it.
    full: bool,
}

/// Turns hazard events into alert utterances.
#[derive(Debug, Default)]
pub struct Alerter {
    config: AlerterConfig,
    /// Per thing id: when it was last alerted, and whether that alert was urgent.
    last: HashMap<u32, Said>,
    last_any: Option<LastAlert>,
    counts: AlerterCounts,
    /// Events held back by the rate limit, oldest first.
    held: VecDeque<HazardEvent>,
}

/// The tone before an urgent alert, by what it warns of: a falling sweep for a drop (a step
/// down, a curb), a rising one for a step up, a double beep for anything to stop for.
pub fn earcon_of(kind: ThingKind) -> Earcon {
    match kind {
        ThingKind::DropOff => Earcon::Falling,
        ThingKind::StepUp => Earcon::Rising,
        _ => Earcon::Double,
    }
}

fn is_ahead(t: &Thing) -> bool {
    matches!(t.clock.get(), 11 | 12 | 1)
}

/// A distance in an alert: whole metres, rounded down (an alert that says a step is
/// nearer than it is costs a pace; one that says it is farther costs a fall), at least 1.
/// Half metres ("one point five") take a second as long to say as the rest of the alert.
fn alert_metres(m: f32) -> String {
    let whole = if m.is_finite() {
        m.floor().max(1.0)
    } else {
        1.0
    };
    if whole <= 1.0 {
        "1 metre".to_string()
    } else {
        format!("{} metres", whole as u32)
    }
}

/// Below this distance a level change is "here", m.
const HERE_M: f32 = 1.0;
/// From this distance on, a thing ahead is "ahead" without its distance, m: a two-syllable
/// number takes the alert past a second and a half, and it will have changed by the time
/// the wearer gets there (over eight seconds at a walk).
const FAR_M: f32 = 10.0;

/// Where a thing ahead is: "in N metres", or "ahead" from [`FAR_M`].
fn ahead_in(m: f32) -> String {
    if m >= FAR_M {
        "ahead".to_string()
    } else {
        format!("in {}", alert_metres(m))
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

    /// Estimates alert lengths at `rate_wpm` from now on (the wearer changed the rate).
    pub fn set_rate_wpm(&mut self, rate_wpm: u32) {
        self.config.rate_wpm = rate_wpm;
    }

    /// Seconds until the wearer reaches `e`'s thing: its time to contact, else its distance
    /// at the assumed closing speed.
    fn contact_s(&self, e: &HazardEvent) -> f32 {
        e.time_to_contact_s
            .filter(|s| s.is_finite() && *s >= 0.0)
            .unwrap_or(e.thing.distance_m / self.config.assumed_closing_mps.max(0.1))
    }

    /// Whether `e` is more urgent than the alert said last, so that it cuts it: urgent
    /// where that was not, or reached in less than [`AlerterConfig::cut_contact_ratio`] of
    /// its time.
    fn more_urgent(&self, e: &HazardEvent, last: &LastAlert) -> bool {
        (self.is_urgent(e) && !last.urgent)
            || self.contact_s(e) < last.contact_s * self.config.cut_contact_ratio
    }

    /// Until when the alert said last is being said, at the earliest its start plus the
    /// minimum gap.
    fn busy_until(&self) -> Option<HostTime> {
        self.last_any.as_ref().map(|l| {
            HostTime(
                l.until
                    .ns()
                    .max(l.at.ns().saturating_add(self.config.min_gap_ns)),
            )
        })
    }

    /// Whether `e` is urgent (close, or soon reached).
    pub fn is_urgent(&self, e: &HazardEvent) -> bool {
        e.thing.distance_m <= self.config.urgent_m
            || e.time_to_contact_s
                .is_some_and(|s| s.is_finite() && s <= self.config.urgent_ttc_s)
    }

    /// The alert text and, when it is urgent, its kind's earcon ([`earcon_of`]) for `e`
    /// (pure; no dedup). A call-out, said in about a second and a half at 175 words a
    /// minute, earcon included: what to do or what it is first, then where. Urgent in front
    /// of the wearer: "Stop, person." (stopping matters more than the distance; ahead is
    /// where it is heard from); a level change "Step down here." or "Step down in
    /// 2 metres."; ahead and not urgent "Obstacle in 4 metres."; beside the path "Obstacle
    /// 3 o'clock." (the pilots' "traffic, 2 o'clock"); an approaching vehicle by the side it
    /// comes from ("Vehicle from the left."; once urgent "Stop, vehicle.", heard from its
    /// side). "Head-high" stands for the obstacle at head height.
    pub fn phrase(&self, e: &HazardEvent) -> (String, Option<Earcon>) {
        let t = &e.thing;
        let urgent = self.is_urgent(e);
        let ahead = is_ahead(t);
        let head = t.kind == ThingKind::Overhead || t.height == Some(HeightBand::Head);
        let at_clock = |what: &str| format!("{what} {}.", clock(t.clock));
        let text = match t.kind {
            // Deeper than a step: nothing to step down; stop first when near.
            ThingKind::DropOff if t.is_deep_drop() => {
                if !ahead {
                    at_clock("Drop-off")
                } else if urgent || t.distance_m < HERE_M {
                    "Stop, drop-off.".to_string()
                } else {
                    format!("Drop-off {}.", ahead_in(t.distance_m))
                }
            }
            ThingKind::DropOff | ThingKind::StepUp => {
                let what = if t.kind == ThingKind::DropOff {
                    "Step down"
                } else {
                    "Step up"
                };
                if !ahead {
                    at_clock(what)
                } else if t.distance_m < HERE_M {
                    format!("{what} here.")
                } else {
                    format!("{what} {}.", ahead_in(t.distance_m))
                }
            }
            // A vehicle says where it comes from: that is what the wearer acts on. Once
            // urgent, stopping comes first, and its side is where it is heard from.
            ThingKind::Vehicle if !head && urgent && t.approaching_from().is_some() => {
                format!("Stop, {}.", called(t, "vehicle"))
            }
            ThingKind::Vehicle if !head && t.approaching_from().is_some() => {
                let from = t.approaching_from().map_or("", side_word);
                let mut w = called(t, "vehicle").to_string();
                if let Some(first) = w.get_mut(0..1) {
                    first.make_ascii_uppercase();
                }
                format!("{w} from the {from}.")
            }
            k => {
                let what = if head {
                    "head-high"
                } else {
                    match k {
                        ThingKind::Person => called(t, "person"),
                        ThingKind::Vehicle => called(t, "vehicle"),
                        _ => called(t, "obstacle"),
                    }
                };
                if urgent && ahead {
                    format!("Stop, {what}.")
                } else {
                    let mut w = what.to_string();
                    if let Some(first) = w.get_mut(0..1) {
                        first.make_ascii_uppercase();
                    }
                    if ahead {
                        format!("{w} {}.", ahead_in(t.distance_m))
                    } else {
                        at_clock(&w)
                    }
                }
            }
        };
        (text, urgent.then(|| earcon_of(t.kind)))
    }

    /// Whether an alert is being said at `now` (by its estimated length) or one waits to
    /// be: guidance decided now would be heard after it, from a state it has made stale.
    pub fn busy(&self, now: HostTime) -> bool {
        !self.held.is_empty() || self.busy_until().is_some_and(|until| now < until)
    }

    /// Events held back by the rate limit.
    pub fn held(&self) -> usize {
        self.held.len()
    }

    /// The oldest event held back, once the last alert has been said at `now` (the caller
    /// refreshes its thing and passes it to [`Self::alert`]).
    /// While the alert just begun has room for another thing, the next held event is given
    /// too, to be said with it.
    pub fn take_held(&mut self, now: HostTime) -> Option<HazardEvent> {
        let gap_over = self.busy_until().is_none_or(|until| now >= until);
        let room = self.last_any.as_ref().is_some_and(|l| {
            !l.full
                && now.since(l.first_at) <= self.config.merge_within_ns
                && l.named.len() < self.config.max_named.max(1)
        });
        if gap_over || room {
            self.held.pop_front()
        } else {
            None
        }
    }

    /// Held events whose things, as they are now (`now_of` gives each one's thing now, or
    /// `None` when it has left the path), have become more urgent than the alert being said
    /// (urgent where it is not, or reached in less than half its time; a time to contact
    /// counts down while it waits): taken out, to be said at once with their things as they
    /// are now (the caller passes them to [`Self::alert`], which cuts the alert being said).
    /// The others stay held.
    pub fn take_more_urgent_held(
        &mut self,
        now: HostTime,
        mut now_of: impl FnMut(&HazardEvent) -> Option<Thing>,
    ) -> Vec<HazardEvent> {
        if self.held.is_empty() || self.busy_until().is_none_or(|until| now >= until) {
            return Vec::new();
        }
        let Some(last) = self.last_any.as_ref() else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let mut keep = VecDeque::with_capacity(self.held.len());
        for e in std::mem::take(&mut self.held) {
            let current = now_of(&e).map(|thing| {
                let waited_s = now.since(e.raised) as f32 / 1e9;
                HazardEvent {
                    thing,
                    time_to_contact_s: e.time_to_contact_s.map(|s| (s - waited_s).max(0.0)),
                    ..e.clone()
                }
            });
            match current {
                Some(c) if self.more_urgent(&c, last) => out.push(c),
                _ => keep.push_back(e),
            }
        }
        self.held = keep;
        out
    }

    /// Decides whether `e`, raised at `now`, is alerted; returns the utterance, or why not.
    pub fn alert(&mut self, e: &HazardEvent, now: HostTime) -> Result<Utterance, Suppressed> {
        let urgent = self.is_urgent(e);
        if self
            .said_before(e, now)
            .is_some_and(|was_urgent| was_urgent || !urgent)
        {
            self.counts.duplicates += 1;
            return Err(Suppressed::Duplicate);
        }
        let mut named = vec![e.clone()];
        let mut first_at = now;
        if let (Some(last), Some(until)) = (self.last_any.as_ref(), self.busy_until()) {
            if now < until {
                // Said with the alert being said, in one that replaces it, when that began
                // just now and has room for one more thing.
                let mut with: Vec<HazardEvent> = last
                    .named
                    .iter()
                    .filter(|n| n.thing.id != e.thing.id)
                    .cloned()
                    .collect();
                with.push(e.clone());
                // Most urgent first (urgent, then sooner reached); a tie keeps the order
                // they came in.
                with.sort_by(|a, b| {
                    self.is_urgent(b)
                        .cmp(&self.is_urgent(a))
                        .then(self.contact_s(a).total_cmp(&self.contact_s(b)))
                });
                let in_time = now.since(last.first_at) <= self.config.merge_within_ns
                    && with.len() <= self.config.max_named.max(1);
                // Its earcon included, and the estimate stretched by the margin that the wait
                // after an alert allows for: a merged alert lasts no longer than one alone may
                // ("Stop, head-high and step up." is estimated at 1.40 s at 175 words a
                // minute, and said in 2.05 s).
                let fits = in_time && {
                    let (text, earcon) = self.phrase_named(&with);
                    earcon
                        .map_or(0, Earcon::duration_ns)
                        .saturating_add(self.said_ns(&text))
                        <= self.config.max_length_ns
                };
                if fits {
                    named = with;
                    first_at = last.first_at;
                } else if !self.more_urgent(e, last) {
                    if in_time {
                        // Too long with it: nothing more is said with this alert (a held
                        // event is not given back for it again).
                        if let Some(l) = self.last_any.as_mut() {
                            l.full = true;
                        }
                    }
                    self.counts.rate_limited += 1;
                    self.held.retain(|h| h.thing.id != e.thing.id);
                    if self.held.len() >= MAX_HELD {
                        self.held.pop_front();
                    }
                    self.held.push_back(e.clone());
                    return Err(Suppressed::RateLimited);
                }
            }
        }
        if named.len() > 1 {
            self.counts.merged += 1;
        }
        if self.last.len() >= self.config.max_tracked.max(1) && !self.last.contains_key(&e.thing.id)
        {
            if let Some((&oldest, _)) = self.last.iter().min_by_key(|(id, s)| (s.at, **id)) {
                self.last.remove(&oldest);
            }
        }
        self.last.insert(
            e.thing.id,
            Said {
                at: now,
                urgent,
                kind: e.thing.kind,
                world_xy_m: world_xy(&e.thing),
            },
        );
        self.counts.alerted += 1;
        let (text, earcon) = self.phrase_named(&named);
        let said_ns = self.said_ns(&text);
        let length_ns = earcon
            .map_or(0, Earcon::duration_ns)
            .saturating_add(said_ns);
        let capture = named.iter().map(|n| n.evidence).max().unwrap_or(e.evidence);
        let clock_hour = named.first().map_or(e.thing.clock, |n| n.thing.clock);
        let first_kind = named.first().map_or(e.thing.kind, |n| n.thing.kind);
        let any_urgent = named.iter().any(|n| self.is_urgent(n));
        self.last_any = Some(LastAlert {
            at: now,
            first_at,
            until: HostTime(now.ns().saturating_add(length_ns)),
            urgent: any_urgent,
            contact_s: named
                .iter()
                .map(|n| self.contact_s(n))
                .fold(f32::INFINITY, f32::min),
            named,
            full: false,
        });
        Ok(Utterance {
            text,
            priority: Priority::Alert,
            request_id: 0,
            capture,
            decided: now,
            earcon,
            // Its (most urgent) thing's tone, heard at once should its words wait for an
            // answer clause to end.
            cue: Some(earcon_of(first_kind)),
            // Heard from its (most urgent) thing's side: where it is before what it is.
            pan: Pan::of_clock_hour(clock_hour.get()),
            urgent: any_urgent,
        })
    }

    /// Whether `e`'s thing was alerted within the repeat window, by its id or as another of
    /// its kind at its place ([`AlerterConfig::same_place_m`]): `Some(urgent)` of the most
    /// urgent such alert, `None` when it was not.
    fn said_before(&self, e: &HazardEvent, now: HostTime) -> Option<bool> {
        let recent = |s: &Said| now.since(s.at) < self.config.repeat_after_ns;
        let here = world_xy(&e.thing);
        let near = |s: &Said| match (here, s.world_xy_m) {
            (Some(a), Some(b)) => {
                s.kind == e.thing.kind
                    && (a[0] - b[0]).hypot(a[1] - b[1]) < self.config.same_place_m
            }
            _ => false,
        };
        self.last
            .iter()
            .filter(|(id, s)| recent(s) && (**id == e.thing.id || near(s)))
            .map(|(_, s)| s.urgent)
            .max()
    }

    /// How long `text` is estimated to take to say at the rate, stretched by the margin, ns.
    fn said_ns(&self, text: &str) -> i64 {
        (spoken_ns(text, self.config.rate_wpm) as f64
            * f64::from(self.config.length_margin.max(1.0))) as i64
    }

    /// The events the alert decided last names, most urgent first (one, unless it was said
    /// with others).
    pub fn named(&self) -> &[HazardEvent] {
        self.last_any.as_ref().map_or(&[], |l| l.named.as_slice())
    }

    /// The text and earcon of one alert naming `named` (most urgent first): the first as
    /// [`Self::phrase`] says it alone, the others after it, each by what it is and where
    /// ("Stop, obstacle and head-high.", "Step up in 1 metre and person 3 o'clock."). The
    /// earcon is the first urgent one's.
    pub fn phrase_named(&self, named: &[HazardEvent]) -> (String, Option<Earcon>) {
        let Some((first, rest)) = named.split_first() else {
            return (String::new(), None);
        };
        let (text, mut earcon) = self.phrase(first);
        if rest.is_empty() {
            return (text, earcon);
        }
        // After "Stop, …" a thing ahead that is urgent too needs no place: stopping is for both.
        let after_stop = text.starts_with("Stop, ");
        let first_what = what_word(first);
        let mut s = text.trim_end_matches('.').to_string();
        for e in rest {
            if earcon.is_none() && self.is_urgent(e) {
                earcon = Some(earcon_of(e.thing.kind));
            }
            s.push_str(" and ");
            let part = self.named_part(e, after_stop);
            // A second thing of the same kind is "another" ("Stop, obstacle and another
            // 2 o'clock.").
            let what = what_word(e);
            match part.strip_prefix(what) {
                Some(place) if what == first_what => {
                    s.push_str("another");
                    s.push_str(place);
                }
                _ => s.push_str(&part),
            }
        }
        s.push('.');
        (s, earcon)
    }

    /// How a thing after the first is named in an alert that names several: what it is, then
    /// where ("head-high", "step up ahead", "person 3 o'clock", "vehicle from the left").
    fn named_part(&self, e: &HazardEvent, after_stop: bool) -> String {
        let t = &e.thing;
        let head = t.kind == ThingKind::Overhead || t.height == Some(HeightBand::Head);
        let what = what_word(e);
        if t.kind == ThingKind::Vehicle && !head {
            if let Some(from) = t.approaching_from() {
                return format!("{what} from the {}", side_word(from));
            }
        }
        if !is_ahead(t) {
            format!("{what} {}", clock(t.clock))
        } else if after_stop && self.is_urgent(e) {
            what.to_string()
        } else {
            format!("{what} ahead")
        }
    }
}

/// What a thing is called in an alert that names several ("step down", "head-high", "chair").
/// A thing's place on the ground in the world frame, when it has one.
fn world_xy(t: &Thing) -> Option<[f32; 2]> {
    t.world_m
        .filter(|w| w.iter().all(|v| v.is_finite()))
        .map(|w| [w[0], w[1]])
}

fn what_word(e: &HazardEvent) -> &'static str {
    let t = &e.thing;
    let head = t.kind == ThingKind::Overhead || t.height == Some(HeightBand::Head);
    match t.kind {
        ThingKind::DropOff if t.is_deep_drop() => "drop-off",
        ThingKind::DropOff => "step down",
        ThingKind::StepUp => "step up",
        _ if head => "head-high",
        ThingKind::Vehicle => called(t, "vehicle"),
        ThingKind::Person => called(t, "person"),
        _ => called(t, "obstacle"),
    }
}

/// Longest class name a call-out says instead of its kind word, letters.
const CALLED_MAX_LETTERS: usize = 5;

/// What a call-out calls `t`: what it is when the object detector saw it there and its name
/// is a short everyday word ("chair", "car", "bench": at most [`CALLED_MAX_LETTERS`] letters
/// and no more to say than `kind_word` by the pace estimate), so every call-out still fits
/// its second and a half with its earcon (`tests/alert_length.rs` speaks them all; the
/// estimate counts syllables, not sounds, so "fire hydrant" or "laptop" take longer than it
/// says); else `kind_word`.
fn called(t: &Thing, kind_word: &'static str) -> &'static str {
    match t.class {
        Some(c) if c.spoken() == kind_word => kind_word,
        Some(c)
            if c.spoken().len() <= CALLED_MAX_LETTERS
                && spoken_ns(c.spoken(), 175) <= spoken_ns(kind_word, 175) =>
        {
            c.spoken()
        }
        _ => kind_word,
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
                class: None,
                clock: ClockHour::new(clock_h),
                bearing_left_deg: None,
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
    fn an_urgent_alert_starts_with_its_kinds_earcon_and_is_heard_from_its_side() {
        let a = Alerter::default();
        let urgent = |kind| a.phrase(&event(1, kind, 12, 1.0)).1;
        assert_eq!(urgent(ThingKind::DropOff), Some(Earcon::Falling));
        assert_eq!(urgent(ThingKind::StepUp), Some(Earcon::Rising));
        assert_eq!(urgent(ThingKind::Vehicle), Some(Earcon::Double));
        assert_eq!(urgent(ThingKind::Obstacle), Some(Earcon::Double));
        // Not urgent: words alone.
        assert_eq!(a.phrase(&event(1, ThingKind::DropOff, 12, 4.0)).1, None);
        let mut a = Alerter::default();
        let right = a.alert(&event(1, ThingKind::Obstacle, 3, 1.0), HostTime(0));
        assert_eq!(right.map(|u| u.pan), Ok(Pan::of_clock_hour(3)));
        let ahead = a.alert(
            &event(2, ThingKind::Obstacle, 12, 4.0),
            HostTime(9_000_000_000),
        );
        assert_eq!(ahead.map(|u| u.pan), Ok(Pan::CENTRE));
    }

    #[test]
    fn phrases_say_what_to_do_first_and_are_short() {
        let a = Alerter::default();
        let say = |kind, clock_h, d| a.phrase(&event(1, kind, clock_h, d));
        assert_eq!(
            say(ThingKind::Obstacle, 12, 2.0),
            ("Stop, obstacle.".to_string(), Some(Earcon::Double))
        );
        assert_eq!(say(ThingKind::Person, 12, 4.0).0, "Person in 4 metres.");
        // Urgent beside the path: no "Stop", where it is.
        assert_eq!(
            say(ThingKind::Obstacle, 3, 1.0),
            ("Obstacle 3 o'clock.".to_string(), Some(Earcon::Double))
        );
        // Distances in whole metres, rounded down; a level change under a metre is here.
        assert_eq!(say(ThingKind::DropOff, 12, 3.9).0, "Step down in 3 metres.");
        assert_eq!(say(ThingKind::DropOff, 1, 1.5).0, "Step down in 1 metre.");
        assert_eq!(say(ThingKind::StepUp, 11, 0.6).0, "Step up here.");
        // A drop deeper than a step is no step down.
        let deep = |clock_h, d, rise_m| {
            let mut e = event(1, ThingKind::DropOff, clock_h, d);
            e.thing.detail = crate::state::ThingDetail::Edge { rise_m };
            a.phrase(&e).0
        };
        assert_eq!(deep(12, 3.9, 1.1), "Drop-off in 3 metres.");
        assert_eq!(deep(12, 1.5, 1.1), "Stop, drop-off.");
        assert_eq!(deep(2, 1.5, 1.1), "Drop-off 2 o'clock.");
        assert_eq!(deep(12, 3.9, 0.15), "Step down in 3 metres.");
        assert_eq!(say(ThingKind::StepUp, 9, 2.0).0, "Step up 9 o'clock.");
        assert_eq!(say(ThingKind::Overhead, 12, 2.0).0, "Stop, head-high.");
        assert_eq!(
            say(ThingKind::Overhead, 12, 4.2).0,
            "Head-high in 4 metres."
        );
        assert_eq!(say(ThingKind::Overhead, 10, 2.0).0, "Head-high 10 o'clock.");
        // Far ahead, no distance.
        assert_eq!(say(ThingKind::Obstacle, 1, 12.0).0, "Obstacle ahead.");
        assert_eq!(say(ThingKind::Obstacle, 2, 4.0).0, "Obstacle 2 o'clock.");
        assert_eq!(say(ThingKind::Obstacle, 12, 4.0).1, None);
        // A vehicle says where it comes from; once urgent, to stop.
        let mut car = event(1, ThingKind::Vehicle, 9, 12.0);
        car.thing.detail = crate::state::ThingDetail::Moving {
            side: crate::state::Side::Left,
            approaching: true,
        };
        assert_eq!(a.phrase(&car).0, "Vehicle from the left.");
        car.time_to_contact_s = Some(2.0);
        assert_eq!(a.phrase(&car).0, "Stop, vehicle.");
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
        assert!(u.text.starts_with("Stop,"), "{}", u.text);
        assert_eq!(u.priority, Priority::Alert);
        assert_eq!(u.capture, DeviceTime(5));
        assert_eq!(a.alert(&near, ms(2_800)), Err(Suppressed::Duplicate));
        // Another thing while that alert is said, no more urgent and past its first word:
        // it waits.
        assert_eq!(
            a.alert(&event(2, ThingKind::Obstacle, 2, 4.0), ms(2_900)),
            Err(Suppressed::RateLimited)
        );
        // The held event comes back once the alert has been said.
        let margin = f64::from(AlerterConfig::default().length_margin);
        let said_ns =
            Earcon::Double.duration_ns() + (spoken_ns(&u.text, 175) as f64 * margin) as i64;
        assert!(said_ns > 1_000_000_000, "{said_ns}");
        assert_eq!(a.held(), 1);
        assert_eq!(a.take_held(HostTime(ms(2_500).ns() + said_ns - 1)), None);
        let end = HostTime(ms(2_500).ns() + said_ns);
        let held = a.take_held(end).unwrap();
        assert_eq!(held.thing.id, 2);
        assert_eq!(a.held(), 0);
        assert!(a.alert(&held, end).is_ok());
        // After the repeat window the same thing may be alerted again (a new approach).
        assert!(a.alert(&near, ms(9_000)).is_ok());
        assert_eq!(
            a.counts(),
            AlerterCounts {
                alerted: 4,
                duplicates: 2,
                rate_limited: 1,
                merged: 0
            }
        );
    }

    #[test]
    fn one_place_alerted_under_two_ids_is_one_thing() {
        let at = |id: u32, kind: ThingKind, d: f32, x: f32| {
            let mut e = event(id, kind, 12, d);
            e.thing.world_m = Some([x, 1.0, 0.0]);
            e
        };
        let s = |n: i64| HostTime(n * 1_000_000_000);
        let mut a = Alerter::default();
        assert!(a.alert(&at(1, ThingKind::Obstacle, 2.0, 3.0), s(0)).is_ok());
        // The same place under a new id, as urgent as before: said already.
        assert_eq!(
            a.alert(&at(2, ThingKind::Obstacle, 1.8, 3.5), s(2)),
            Err(Suppressed::Duplicate)
        );
        // Past the repeat window, it is a new approach.
        assert!(a.alert(&at(3, ThingKind::Obstacle, 1.8, 3.5), s(4)).is_ok());

        let mut b = Alerter::default();
        assert!(b.alert(&at(1, ThingKind::Obstacle, 4.0, 3.0), s(0)).is_ok());
        // Become urgent there: said once more, as for one id.
        assert!(b.alert(&at(2, ThingKind::Obstacle, 2.0, 3.3), s(2)).is_ok());
        // Another kind at that place, or the same kind a body-width away, is another thing.
        assert!(b.alert(&at(3, ThingKind::StepUp, 2.0, 3.3), s(4)).is_ok());
        assert!(b.alert(&at(4, ThingKind::Obstacle, 2.0, 4.2), s(6)).is_ok());
        // Without a world frame only the id tells.
        let mut c = Alerter::default();
        assert!(c
            .alert(&event(1, ThingKind::Obstacle, 12, 2.0), s(0))
            .is_ok());
        assert!(c
            .alert(&event(2, ThingKind::Obstacle, 12, 2.0), s(2))
            .is_ok());
        assert_eq!(c.counts().duplicates, 0);
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
            assert_eq!(a.alert(&e, ms(400)), Err(Suppressed::RateLimited));
            // The same thing again replaces its held event.
            assert_eq!(a.alert(&e, ms(420)), Err(Suppressed::RateLimited));
        }
        assert_eq!(a.held(), MAX_HELD);
        let ids: Vec<u32> = std::iter::from_fn(|| a.take_held(ms(5_000)))
            .map(|e| e.thing.id)
            .collect();
        assert_eq!(ids, vec![6, 7, 8, 9]);
    }

    #[test]
    fn only_a_more_urgent_alert_cuts_the_one_being_said() {
        let ms = |m: i64| HostTime(m * 1_000_000);
        let mut a = Alerter::default();
        // Obstacle 4 m ahead, not urgent (contact in about 3.3 s at a walk).
        assert!(a
            .alert(&event(1, ThingKind::Obstacle, 12, 4.0), ms(0))
            .is_ok());
        // A person 3 m ahead, past the first word: not urgent, not reached in half the
        // time: waits.
        assert_eq!(
            a.alert(&event(2, ThingKind::Person, 12, 3.0), ms(400)),
            Err(Suppressed::RateLimited)
        );
        // A vehicle 1.5 s away: urgent, where the alert being said is not: cuts it.
        let mut car = event(3, ThingKind::Vehicle, 3, 6.0);
        car.time_to_contact_s = Some(1.5);
        assert!(a.alert(&car, ms(500)).is_ok());
        assert_eq!(a.named().len(), 1);
        // Now a step 2 m ahead (urgent, 1.7 s) is not more urgent than the car: waits.
        assert_eq!(
            a.alert(&event(4, ThingKind::DropOff, 12, 2.0), ms(900)),
            Err(Suppressed::RateLimited)
        );
        // A pole at 0.5 m (0.4 s) is reached in less than half the car's time: cuts.
        assert!(a
            .alert(&event(5, ThingKind::Obstacle, 12, 0.5), ms(1_000))
            .is_ok());
    }

    #[test]
    fn the_wait_follows_the_speaking_rate() {
        let ms = |m: i64| HostTime(m * 1_000_000);
        let waits_until = |rate: u32| {
            let mut a = Alerter::default();
            a.set_rate_wpm(rate);
            assert!(a
                .alert(&event(1, ThingKind::Obstacle, 2, 4.0), ms(0))
                .is_ok());
            assert!(a
                .alert(&event(2, ThingKind::Obstacle, 10, 4.0), ms(400))
                .is_err());
            (400..10_000)
                .step_by(10)
                .find(|&t| a.take_held(ms(t)).is_some())
                .unwrap()
        };
        let (slow, fast) = (waits_until(150), waits_until(450));
        assert!(slow > 2 * fast, "{slow} ms vs {fast} ms");
        // However short, an alert keeps the minimum gap.
        assert!(fast >= 700, "{fast}");
    }
    /// An alerter for a listener at 350 words a minute, where two things fit one alert.
    fn fast() -> Alerter {
        Alerter::new(AlerterConfig {
            rate_wpm: 450,
            ..AlerterConfig::default()
        })
    }

    #[test]
    fn at_the_default_rate_an_alert_names_one_thing_and_the_next_waits_for_it() {
        let ms = |m: i64| HostTime(m * 1_000_000);
        let mut a = Alerter::default();
        let obstacle = event(1, ThingKind::Obstacle, 12, 1.8);
        let branch = event(2, ThingKind::Overhead, 12, 1.1);
        assert_eq!(a.alert(&obstacle, ms(0)).unwrap().text, "Stop, obstacle.");
        // "Stop, head-high and obstacle." would last about 1.9 s: the branch, no more
        // urgent (both urgent, and not reached in half the time), waits.
        assert_eq!(a.alert(&branch, ms(0)), Err(Suppressed::RateLimited));
        assert_eq!(a.counts().merged, 0);
        // It is not given back while the alert is said (it would not fit again), but once
        // it has been.
        assert_eq!(a.take_held(ms(1)), None);
        assert_eq!(a.take_held(ms(5_000)).map(|e| e.thing.id), Some(2));
        // "Stop, head-high and step up." is estimated at 1.40 s and said in 2.05 s (its
        // earcon 0.09 s more): estimated as the wait after it is, it does not fit either.
        let mut c = Alerter::default();
        assert_eq!(c.alert(&branch, ms(0)).unwrap().text, "Stop, head-high.");
        assert_eq!(
            c.alert(&event(3, ThingKind::StepUp, 12, 1.5), ms(0)),
            Err(Suppressed::RateLimited)
        );
        // A thing more urgent than the one being said cuts it, alone.
        let mut b = Alerter::default();
        assert!(b
            .alert(&event(1, ThingKind::Obstacle, 12, 4.0), ms(0))
            .is_ok());
        let u = b
            .alert(&event(2, ThingKind::Person, 12, 1.0), ms(10))
            .unwrap();
        assert_eq!(u.text, "Stop, person.");
        assert_eq!(b.named().len(), 1);
        // Every alert said alone fits the length.
        for e in [obstacle, branch, event(3, ThingKind::StepUp, 12, 4.0)] {
            let text = Alerter::default().alert(&e, ms(0)).unwrap().text;
            let est = spoken_ns(&text, 175);
            assert!(est <= 1_500_000_000, "{text}: {est}");
        }
    }

    #[test]
    fn hazards_met_together_are_said_together_most_urgent_first() {
        let ms = |m: i64| HostTime(m * 1_000_000);
        let mut a = fast();
        let obstacle = event(1, ThingKind::Obstacle, 12, 1.8);
        let mut branch = event(2, ThingKind::Overhead, 12, 1.1);
        branch.evidence = DeviceTime(9);
        assert_eq!(a.alert(&obstacle, ms(0)).unwrap().text, "Stop, obstacle.");
        // The branch, raised from the same frame, is nearer: one alert names both, the
        // branch first, and it is heard from the branch's side with the newest evidence.
        let u = a.alert(&branch, ms(0)).unwrap();
        assert_eq!(u.text, "Stop, head-high and obstacle.");
        assert_eq!(u.earcon, Some(Earcon::Double));
        assert_eq!(u.capture, DeviceTime(9));
        let ids: Vec<u32> = a.named().iter().map(|e| e.thing.id).collect();
        assert_eq!(ids, vec![2, 1]);
        // A third thing within the window does not make it longer: it waits.
        assert_eq!(
            a.alert(&event(3, ThingKind::Person, 3, 4.0), ms(10)),
            Err(Suppressed::RateLimited)
        );
        assert_eq!(a.counts().merged, 1);

        // Beside the path, and not urgent: each by what it is and where.
        let mut b = fast();
        assert!(b
            .alert(&event(1, ThingKind::StepUp, 12, 1.5), ms(0))
            .is_ok());
        let u = b
            .alert(&event(2, ThingKind::Person, 3, 4.0), ms(20))
            .unwrap();
        assert_eq!(u.text, "Step up in 1 metre and person 3 o'clock.");
        // Past the same update, the next thing waits for the alert to be said.
        let mut c = fast();
        assert!(c
            .alert(&event(1, ThingKind::StepUp, 12, 1.5), ms(0))
            .is_ok());
        assert_eq!(
            c.alert(&event(2, ThingKind::Person, 3, 4.0), ms(41)),
            Err(Suppressed::RateLimited)
        );
    }

    #[test]
    fn events_that_waited_come_out_together() {
        let ms = |m: i64| HostTime(m * 1_000_000);
        let mut a = fast();
        assert!(a
            .alert(&event(1, ThingKind::Obstacle, 12, 4.0), ms(0))
            .is_ok());
        for id in [2, 3] {
            assert_eq!(
                a.alert(&event(id, ThingKind::Obstacle, 2 + id as u8, 5.0), ms(500)),
                Err(Suppressed::RateLimited)
            );
        }
        let end = ms(5_000);
        let first = a.take_held(end).unwrap();
        assert!(a.alert(&first, end).is_ok());
        // The second is released at once, and said with the first.
        let second = a.take_held(end).unwrap();
        let u = a.alert(&second, end).unwrap();
        assert_eq!(u.text, "Obstacle 4 o'clock and another 5 o'clock.");
        assert_eq!(a.named().len(), 2);
    }

    #[test]
    fn a_thing_that_became_urgent_is_named_once() {
        let ms = |m: i64| HostTime(m * 1_000_000);
        let mut a = fast();
        assert!(a
            .alert(&event(1, ThingKind::Obstacle, 12, 4.0), ms(0))
            .is_ok());
        assert!(a
            .alert(&event(2, ThingKind::Person, 2, 4.0), ms(10))
            .is_ok());
        // The obstacle, now urgent, within the window: the alert is said again, naming it
        // once, first.
        let u = a
            .alert(&event(1, ThingKind::Obstacle, 12, 1.5), ms(20))
            .unwrap();
        assert_eq!(u.text, "Stop, obstacle and person 2 o'clock.");
        assert_eq!(a.named().len(), 2);
    }
    #[test]
    fn a_held_thing_that_becomes_more_urgent_is_said_at_once() {
        let ms = |m: i64| HostTime(m * 1_000_000);
        let mut a = Alerter::default();
        // "Obstacle in 3 metres." is being said; another thing 3.5 m ahead waits for it.
        assert!(a
            .alert(&event(1, ThingKind::Obstacle, 12, 3.0), ms(0))
            .is_ok());
        assert_eq!(
            a.alert(&event(2, ThingKind::Obstacle, 1, 3.5), ms(250)),
            Err(Suppressed::RateLimited)
        );
        // Still 3 m away: not more urgent, it keeps waiting.
        let at = |d: f32| {
            move |e: &HazardEvent| {
                let mut t = e.thing.clone();
                t.distance_m = d;
                Some(t)
            }
        };
        assert!(a.take_more_urgent_held(ms(500), at(3.0)).is_empty());
        assert_eq!(a.held(), 1);
        // Gone from the path: still held (dropped when released, as before).
        assert!(a.take_more_urgent_held(ms(600), |_| None).is_empty());
        assert_eq!(a.held(), 1);
        // Now 2 m away: urgent where the alert being said is not: taken out, as it is now,
        // and said at once, cutting it.
        let up = a.take_more_urgent_held(ms(900), at(2.0));
        assert_eq!(up.len(), 1);
        assert_eq!(up[0].thing.distance_m, 2.0);
        assert_eq!(a.held(), 0);
        let u = a.alert(&up[0], ms(900)).unwrap();
        assert_eq!(u.text, "Stop, obstacle.");
        // Once the alert has been said, nothing is taken this way (held events are released
        // by take_held).
        assert!(a
            .alert(&event(3, ThingKind::Obstacle, 11, 4.0), ms(1_000))
            .is_err());
        assert!(a.take_more_urgent_held(ms(60_000), at(0.5)).is_empty());
    }
}
