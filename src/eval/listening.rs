//! What the wearer hears, measured as a listener would (pure compute over the transcript,
//! the spoken alerts and the head track; every time on the device clock). A walker who
//! cannot see needs to hear the street: speech is a cost, a clause cut part-way is a fact
//! lost, and the same alert again and again is noise.
//!
//! * **Speech time** is the union of the heard clauses' `[first audio, end]` spans; the
//!   **duty cycle** is its share of the session (which, as heard, lasts until the last
//!   speech ends: an answer spoken after the recording's end is heard too), and **while
//!   walking** its share of the
//!   time the head moves at [`WALKING_MPS`] or faster (sampled every 100 ms, speed over
//!   ±0.5 s), with the **longest silence while walking** (a gap in speech that lies in
//!   walking time, up to the session's end).
//! * A clause is **heard** when it has first audio, **cut** when it was heard and then
//!   interrupted, **dropped** when it was never played. **Words lost**: every word of a
//!   dropped clause, and of a cut clause the words beyond what its playing time could hold
//!   at the run's own pace (median seconds per word of the clauses heard whole; without
//!   any, [`DEFAULT_S_PER_WORD`]).
//! * An **answer** is the answer clauses of one request; it is **heard whole** when every
//!   distinct clause of it was heard at least once without a cut (a clause resumed later
//!   counts). Its **span** runs from its first audio to the end of its last clause heard.
//! * An **alert repeat** is a spoken alert about a thing (perception's thing id) that an
//!   alert about the same thing preceded by less than [`REPEAT_WINDOW_NS`] without it
//!   having become more urgent (its distance at most half the earlier one's).

use serde::Serialize;

use std::collections::HashMap;

use super::hazards::median;
use super::pose::HeadTrack;
use crate::speech::Priority;

/// Two alerts about one thing closer in time than this are a repeat (unless more urgent),
/// ns.
pub const REPEAT_WINDOW_NS: i64 = 8_000_000_000;
/// The head moving at least this fast horizontally is walking, m/s.
pub const WALKING_MPS: f64 = 0.3;
/// Speech pace assumed when no clause was heard whole, s per word (eSpeak NG's default
/// 175 words per minute).
pub const DEFAULT_S_PER_WORD: f64 = 60.0 / 175.0;
/// Walking is sampled this often, ns.
const WALK_STEP_NS: i64 = 100_000_000;
/// Half the span the walking speed is measured over, ns.
const WALK_HALF_SPAN_NS: i64 = 500_000_000;
/// Walking is sampled at most this many times (about 28 hours): a session claiming to be
/// longer is measured over its start.
const MAX_WALK_STEPS: usize = 1_000_000;

/// One transcript entry, on the device clock.
#[derive(Clone, Debug, PartialEq)]
pub struct HeardEntry {
    /// Its text.
    pub text: String,
    /// How urgent it was (answers and alerts are measured on their own).
    pub priority: Priority,
    /// Its request id.
    pub request_id: u64,
    /// First audio, device ns (`None`: never played).
    pub first_audio_ns: Option<i64>,
    /// End of its audio (or of its cut, or when it was dropped), device ns.
    pub end_ns: i64,
    /// Cut part-way or dropped.
    pub interrupted: bool,
}

/// One spoken alert about a thing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpokenAlert {
    /// Perception's thing id.
    pub thing_id: u32,
    /// Its distance when alerted, m.
    pub distance_m: f32,
    /// First audio, device ns.
    pub first_audio_ns: i64,
}

/// The listener's metrics of one run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Listening {
    /// Time with speech playing, s.
    pub speech_s: f64,
    /// Its share of the session (`None` for an empty session).
    pub duty_cycle: Option<f64>,
    /// Time the wearer walked, s.
    pub walking_s: f64,
    /// Share of the walking time with speech playing (`None` without walking).
    pub duty_cycle_walking: Option<f64>,
    /// Longest silence within walking time, s.
    pub longest_silence_walking_s: f64,
    /// Clauses heard (first audio).
    pub clauses_heard: usize,
    /// Of those, cut part-way.
    pub clauses_cut: usize,
    /// Clauses never played.
    pub clauses_dropped: usize,
    /// Words not heard (dropped clauses, the rest of cut ones).
    pub words_lost: usize,
    /// Answers (requests with answer clauses).
    pub answers: usize,
    /// Of those, heard whole.
    pub answers_whole: usize,
    /// Median time from an answer's first audio to the end of its last clause heard, ms.
    pub answer_span_p50_ms: Option<f64>,
    /// Alerts repeated about the same thing within [`REPEAT_WINDOW_NS`], not more urgent.
    pub alert_repeats: usize,
    /// Alerts of which something was heard.
    pub alerts_heard: usize,
    /// Of those, alerts cut part-way (by a newer alert).
    pub alerts_cut: usize,
    /// Median length of an alert heard whole, from its first audio to the end of its last
    /// clause, ms.
    pub alert_audio_p50_ms: Option<f64>,
    /// Longest alert heard whole, ms.
    pub alert_audio_max_ms: Option<f64>,
}

/// Most share of walking time with speech playing (the target on a mixed walk).
pub const MAX_DUTY_CYCLE_WALKING: f64 = 0.35;
/// Least share of answers heard whole.
pub const MIN_ANSWERS_WHOLE: f64 = 0.9;
/// Longest alert heard whole, earcon included, ms.
pub const MAX_ALERT_AUDIO_MS: f64 = 1500.0;

impl Listening {
    /// `svg` (the latency picture) with the listener's panel below it.
    pub fn with_panel(&self, svg: &str) -> String {
        crate::report::panel::with_panel(
            svg,
            "listening",
            "What the wearer heard (speech as a listener meets it)",
            &self.panel_rows(),
        )
    }

    /// The rows of the listener's panel in the picture (shares as bars, with their targets).
    pub fn panel_rows(&self) -> Vec<crate::report::panel::PanelRow> {
        use crate::report::panel::PanelRow;
        let pct = |v: f64| format!("{:.0} %", v * 100.0);
        let ms = |v: Option<f64>| v.map_or_else(|| "-".into(), |x| format!("{x:.0} ms"));
        let answers_share =
            (self.answers > 0).then(|| self.answers_whole as f64 / self.answers as f64);
        vec![
            PanelRow {
                label: "speech, share of the session".into(),
                share: self.duty_cycle,
                value: format!(
                    "{:.1} s, {}",
                    self.speech_s,
                    self.duty_cycle.map_or_else(|| "-".into(), pct)
                ),
                target: None,
                missed: false,
            },
            PanelRow {
                label: "speech, share of walking time".into(),
                share: self.duty_cycle_walking,
                value: format!(
                    "{} of {:.1} s walking; longest silence {:.1} s (target ≤ {})",
                    self.duty_cycle_walking.map_or_else(|| "-".into(), pct),
                    self.walking_s,
                    self.longest_silence_walking_s,
                    pct(MAX_DUTY_CYCLE_WALKING)
                ),
                target: Some(MAX_DUTY_CYCLE_WALKING),
                missed: self
                    .duty_cycle_walking
                    .is_some_and(|d| d > MAX_DUTY_CYCLE_WALKING),
            },
            PanelRow {
                label: "answers heard whole".into(),
                share: answers_share,
                value: format!(
                    "{} of {} (target ≥ {}); span p50 {}",
                    self.answers_whole,
                    self.answers,
                    pct(MIN_ANSWERS_WHOLE),
                    ms(self.answer_span_p50_ms)
                ),
                target: Some(MIN_ANSWERS_WHOLE),
                missed: answers_share.is_some_and(|a| a < MIN_ANSWERS_WHOLE),
            },
            PanelRow {
                label: "clauses cut or dropped".into(),
                share: None,
                value: format!(
                    "{} cut, {} dropped of {} heard; {} words lost",
                    self.clauses_cut, self.clauses_dropped, self.clauses_heard, self.words_lost
                ),
                target: None,
                missed: false,
            },
            PanelRow {
                label: "alerts".into(),
                share: None,
                value: format!(
                    "{} heard, {} cut, {} repeats; length p50 {}, max {} (target ≤ {MAX_ALERT_AUDIO_MS:.0} ms)",
                    self.alerts_heard,
                    self.alerts_cut,
                    self.alert_repeats,
                    ms(self.alert_audio_p50_ms),
                    ms(self.alert_audio_max_ms)
                ),
                target: None,
                missed: self.alert_repeats > 0
                    || self
                        .alert_audio_max_ms
                        .is_some_and(|m| m > MAX_ALERT_AUDIO_MS),
            },
        ]
    }
}

fn words(text: &str) -> usize {
    text.split_whitespace().count()
}

/// Merged, sorted `[start, end)` spans of speech.
fn speech_spans(entries: &[HeardEntry]) -> Vec<(i64, i64)> {
    let mut spans: Vec<(i64, i64)> = entries
        .iter()
        .filter_map(|e| e.first_audio_ns.map(|a| (a, e.end_ns.max(a))))
        .collect();
    spans.sort_unstable();
    let mut merged: Vec<(i64, i64)> = Vec::with_capacity(spans.len());
    for (a, b) in spans {
        match merged.last_mut() {
            Some(last) if a <= last.1 => last.1 = last.1.max(b),
            _ => merged.push((a, b)),
        }
    }
    merged
}

/// Walking time as `[start, end)` spans in `[t0_ns, end_ns)`.
fn walking_spans(head: &HeadTrack, t0_ns: i64, end_ns: i64) -> Vec<(i64, i64)> {
    let mut spans: Vec<(i64, i64)> = Vec::new();
    let mut t = t0_ns;
    let mut steps = 0;
    while t < end_ns && steps < MAX_WALK_STEPS {
        steps += 1;
        let speed = match (
            head.at(t.saturating_sub(WALK_HALF_SPAN_NS)),
            head.at(t.saturating_add(WALK_HALF_SPAN_NS)),
        ) {
            (Some(a), Some(b)) if b.t_ns > a.t_ns => {
                let d =
                    (b.position_m[0] - a.position_m[0]).hypot(b.position_m[1] - a.position_m[1]);
                d / ((b.t_ns - a.t_ns) as f64 * 1e-9)
            }
            _ => 0.0,
        };
        let next = t.saturating_add(WALK_STEP_NS).min(end_ns);
        if speed >= WALKING_MPS {
            match spans.last_mut() {
                Some(last) if last.1 == t => last.1 = next,
                _ => spans.push((t, next)),
            }
        }
        t = next;
    }
    spans
}

/// Length of the overlap of two sorted span lists, ns.
fn overlap_ns(a: &[(i64, i64)], b: &[(i64, i64)]) -> i64 {
    let (mut i, mut j, mut sum) = (0, 0, 0i64);
    while let (Some(x), Some(y)) = (a.get(i), b.get(j)) {
        let lo = x.0.max(y.0);
        let hi = x.1.min(y.1);
        if hi > lo {
            sum = sum.saturating_add(hi.saturating_sub(lo));
        }
        if x.1 < y.1 {
            i += 1;
        } else {
            j += 1;
        }
    }
    sum
}

/// The listener's metrics of a session `[t0_ns, end_ns)` whose transcript is `entries`
/// and whose spoken alerts about things are `alerts`, walked along `head`.
pub fn listening(
    entries: &[HeardEntry],
    alerts: &[SpokenAlert],
    head: &HeadTrack,
    t0_ns: i64,
    end_ns: i64,
) -> Listening {
    let speech = speech_spans(entries);
    let speech_ns: i64 = speech
        .iter()
        .fold(0i64, |n, (a, b)| n.saturating_add(b.saturating_sub(*a)));
    // Speech that runs on after the recording (a last answer) is heard too: the session, as
    // heard, lasts until the last speech ends, and speech never exceeds it. Nobody walks
    // after the recording (there is no head track), so walking is looked for within it.
    let recording_end_ns = end_ns;
    let end_ns = speech.last().map_or(end_ns, |s| s.1.max(end_ns));
    let session_ns = end_ns.saturating_sub(t0_ns);
    let walking = walking_spans(head, t0_ns, recording_end_ns);
    let walking_ns: i64 = walking
        .iter()
        .fold(0i64, |n, (a, b)| n.saturating_add(b.saturating_sub(*a)));
    // Silences: the complement of speech within the session, cut to walking time.
    let mut silences = Vec::with_capacity(speech.len() + 1);
    let mut from = t0_ns;
    for &(a, b) in &speech {
        if a > from {
            silences.push((from, a));
        }
        from = from.max(b);
    }
    if end_ns > from {
        silences.push((from, end_ns));
    }
    let longest_silence_ns = silences
        .iter()
        .map(|s| overlap_ns(std::slice::from_ref(s), &walking))
        .max()
        .unwrap_or(0);

    let paces: Vec<f64> = entries
        .iter()
        .filter(|e| !e.interrupted)
        .filter_map(|e| {
            let n = words(&e.text);
            let a = e.first_audio_ns?;
            (n > 0).then(|| e.end_ns.saturating_sub(a) as f64 * 1e-9 / n as f64)
        })
        .collect();
    let s_per_word = median(&paces)
        .filter(|s| *s > 0.0)
        .unwrap_or(DEFAULT_S_PER_WORD);
    let (mut heard, mut cut, mut dropped, mut lost) = (0, 0, 0, 0);
    for e in entries {
        let n = words(&e.text);
        match e.first_audio_ns {
            Some(a) => {
                heard += 1;
                if e.interrupted {
                    cut += 1;
                    let said =
                        (e.end_ns.saturating_sub(a).max(0) as f64 * 1e-9 / s_per_word).floor();
                    lost += n.saturating_sub(said as usize);
                }
            }
            None => {
                dropped += 1;
                lost += n;
            }
        }
    }

    // Answers, per request id in order of first appearance.
    let mut ids: Vec<u64> = Vec::new();
    for e in entries.iter().filter(|e| e.priority == Priority::Answer) {
        if !ids.contains(&e.request_id) {
            ids.push(e.request_id);
        }
    }
    let (mut whole, mut spans_ms) = (0, Vec::new());
    for id in &ids {
        let clauses: Vec<&HeardEntry> = entries
            .iter()
            .filter(|e| e.priority == Priority::Answer && e.request_id == *id)
            .collect();
        let all_whole = clauses.iter().all(|c| {
            clauses
                .iter()
                .any(|d| d.text == c.text && d.first_audio_ns.is_some() && !d.interrupted)
        });
        if all_whole {
            whole += 1;
        }
        let first = clauses.iter().filter_map(|c| c.first_audio_ns).min();
        let last = clauses
            .iter()
            .filter(|c| c.first_audio_ns.is_some())
            .map(|c| c.end_ns)
            .max();
        if let (Some(a), Some(b)) = (first, last) {
            spans_ms.push(b.saturating_sub(a) as f64 / 1e6);
        }
    }

    let (alerts_heard, alerts_cut, alert_ms) = alert_lengths(entries);

    let mut sorted: Vec<SpokenAlert> = alerts.to_vec();
    sorted.sort_by_key(|a| a.first_audio_ns);
    // The previous alert heard about each thing.
    let mut previous: HashMap<u32, SpokenAlert> = HashMap::new();
    let mut repeats = 0;
    for a in sorted {
        if let Some(p) = previous.insert(a.thing_id, a) {
            let soon = a.first_audio_ns.saturating_sub(p.first_audio_ns) < REPEAT_WINDOW_NS;
            let more_urgent = a.distance_m <= p.distance_m * 0.5;
            if soon && !more_urgent {
                repeats += 1;
            }
        }
    }

    Listening {
        speech_s: speech_ns as f64 * 1e-9,
        duty_cycle: (session_ns > 0).then(|| speech_ns as f64 / session_ns as f64),
        walking_s: walking_ns as f64 * 1e-9,
        duty_cycle_walking: (walking_ns > 0)
            .then(|| overlap_ns(&speech, &walking) as f64 / walking_ns as f64),
        longest_silence_walking_s: longest_silence_ns as f64 * 1e-9,
        clauses_heard: heard,
        clauses_cut: cut,
        clauses_dropped: dropped,
        words_lost: lost,
        answers: ids.len(),
        answers_whole: whole,
        answer_span_p50_ms: median(&spans_ms),
        alert_repeats: repeats,
        alerts_heard,
        alerts_cut,
        alert_audio_p50_ms: median(&alert_ms),
        alert_audio_max_ms: alert_ms.iter().copied().reduce(f64::max),
    }
}

/// Alerts (the alert clauses of one request id) heard, of those cut, and the length of
/// each heard whole (first audio to the end of its last clause), ms.
fn alert_lengths(entries: &[HeardEntry]) -> (usize, usize, Vec<f64>) {
    // Per alert id: first audio, end of the last clause heard, whether any clause was cut
    // or dropped after some was heard.
    let mut per: Vec<(u64, Option<i64>, i64, bool)> = Vec::new();
    for e in entries.iter().filter(|e| e.priority == Priority::Alert) {
        let i = match per.iter().position(|p| p.0 == e.request_id) {
            Some(i) => i,
            None => {
                per.push((e.request_id, None, i64::MIN, false));
                per.len() - 1
            }
        };
        let p = &mut per[i];
        if let Some(a) = e.first_audio_ns {
            p.1 = Some(p.1.map_or(a, |b: i64| b.min(a)));
            p.2 = p.2.max(e.end_ns);
        }
        p.3 |= e.interrupted;
    }
    let heard: Vec<_> = per.iter().filter(|p| p.1.is_some()).collect();
    let cut = heard.iter().filter(|p| p.3).count();
    let ms = heard
        .iter()
        .filter(|p| !p.3)
        .filter_map(|p| Some(p.2.saturating_sub(p.1?) as f64 / 1e6))
        .collect();
    (heard.len(), cut, ms)
}

#[cfg(test)]
mod tests {
    use nalgebra::{Isometry3, Translation3, UnitQuaternion, Vector3};

    use super::*;

    const S: i64 = 1_000_000_000;

    fn entry(
        text: &str,
        answer: bool,
        id: u64,
        audio: Option<f64>,
        end: f64,
        cut: bool,
    ) -> HeardEntry {
        HeardEntry {
            text: text.into(),
            priority: if answer {
                Priority::Answer
            } else {
                Priority::Ambient
            },
            request_id: id,
            first_audio_ns: audio.map(|a| (a * 1e9) as i64),
            end_ns: (end * 1e9) as i64,
            interrupted: cut,
        }
    }

    /// A head walking 1 m/s along x from 0 to 10 s, then standing until 20 s.
    fn walk_then_stand() -> HeadTrack {
        // The CPF's forward (+z) turned to the world's +x.
        let facing_x = Isometry3::from_parts(
            Translation3::identity(),
            UnitQuaternion::from_axis_angle(&Vector3::y_axis(), std::f64::consts::FRAC_PI_2),
        );
        let mut h = HeadTrack::new();
        for i in 0..=200 {
            let t = i as f64 * 0.1;
            let x = t.min(10.0);
            h.push(
                (t * 1e9) as i64,
                &Isometry3::translation(x, 0.0, 1.6),
                &facing_x,
            );
        }
        h
    }

    #[test]
    fn speech_after_the_recording_lengthens_the_session_heard() {
        let head = walk_then_stand();
        // 4 s of speech, 2 s of it after the 20 s recording ended.
        let e = vec![entry("one two three", true, 1, Some(18.0), 22.0, false)];
        let l = listening(&e, &[], &head, 0, 20 * S);
        assert!((l.speech_s - 4.0).abs() < 1e-9, "{}", l.speech_s);
        let d = l.duty_cycle.unwrap();
        assert!((d - 4.0 / 22.0).abs() < 1e-9, "{d}");
    }

    /// Times at the ends of the range (a damaged transcript) neither hang nor overflow.
    #[test]
    fn extreme_times_are_measured_without_overflow_or_end() {
        let head = walk_then_stand();
        let mut e = vec![entry("one two", true, 1, None, 0.0, false)];
        e[0].first_audio_ns = Some(i64::MIN);
        e[0].end_ns = i64::MAX;
        let l = listening(&e, &[], &head, 0, 20 * S);
        assert_eq!(l.duty_cycle, Some(i64::MAX as f64 / i64::MAX as f64));
        let l = listening(&[], &[], &head, i64::MIN, i64::MAX);
        assert!(l.walking_s <= 1e6 * 0.1 + 1.0);
    }

    #[test]
    fn duty_cycle_and_silence_while_walking() {
        let head = walk_then_stand();
        // Speech 2–4 s and 3–5 s (overlapping: 3 s in all), and 12–14 s while standing.
        let e = vec![
            entry("one two three", false, 1, Some(2.0), 4.0, false),
            entry("four five six", false, 2, Some(3.0), 5.0, false),
            entry("seven eight nine", false, 3, Some(12.0), 14.0, false),
        ];
        let l = listening(&e, &[], &head, 0, 20 * S);
        assert!((l.speech_s - 5.0).abs() < 1e-9, "{}", l.speech_s);
        assert!((l.duty_cycle.unwrap() - 0.25).abs() < 1e-9);
        // Walking about 0–10 s (the speed window blurs the stop by half a second).
        assert!((l.walking_s - 10.0).abs() <= 0.6, "{}", l.walking_s);
        let w = l.duty_cycle_walking.unwrap();
        assert!((w - 0.3).abs() < 0.03, "{w}");
        // The longest walking silence: 5 s to the stop at about 10 s.
        assert!(
            (l.longest_silence_walking_s - 5.0).abs() <= 0.6,
            "{}",
            l.longest_silence_walking_s
        );
    }

    #[test]
    fn cut_and_dropped_clauses_lose_words_at_the_run_s_pace() {
        let head = walk_then_stand();
        // Pace: 4 words in 2 s = 0.5 s per word (the clause heard whole).
        let e = vec![
            entry("the exit is ahead", true, 7, Some(0.0), 2.0, false),
            // Cut after 1.2 s: 2 of 6 words said, 4 lost.
            entry(
                "about seven metres past the door",
                true,
                7,
                Some(3.0),
                4.2,
                true,
            ),
            // Dropped: 3 words lost.
            entry("then turn left", true, 7, None, 5.0, true),
        ];
        let l = listening(&e, &[], &head, 0, 20 * S);
        assert_eq!(
            (l.clauses_heard, l.clauses_cut, l.clauses_dropped),
            (2, 1, 1)
        );
        assert_eq!(l.words_lost, 7);
        assert_eq!((l.answers, l.answers_whole), (1, 0));
        assert_eq!(l.answer_span_p50_ms, Some(4200.0));
        // The same answer with the cut clause resumed and the last one heard later: whole.
        let mut resumed = e.clone();
        resumed.push(entry(
            "about seven metres past the door",
            true,
            7,
            Some(6.0),
            9.0,
            false,
        ));
        resumed.push(entry("then turn left", true, 7, Some(9.0), 10.5, false));
        let r = listening(&resumed, &[], &head, 0, 20 * S);
        assert_eq!((r.answers, r.answers_whole), (1, 1));
        assert_eq!(r.answer_span_p50_ms, Some(10_500.0));
    }

    #[test]
    fn repeats_count_only_the_same_thing_soon_and_not_more_urgent() {
        let head = walk_then_stand();
        let a = |id, d, t: f64| SpokenAlert {
            thing_id: id,
            distance_m: d,
            first_audio_ns: (t * 1e9) as i64,
        };
        let alerts = [
            a(1, 4.0, 1.0),
            a(1, 3.5, 3.0),  // repeat
            a(2, 3.0, 3.5),  // another thing
            a(1, 1.5, 5.0),  // closer by more than half: more urgent
            a(1, 1.4, 14.0), // 9 s later: not a repeat
            a(1, 1.4, 15.0), // repeat
        ];
        let l = listening(&[], &alerts, &head, 0, 20 * S);
        assert_eq!(l.alert_repeats, 2);
        assert_eq!(l.duty_cycle, Some(0.0));
        assert_eq!((l.answers, l.answer_span_p50_ms), (0, None));
    }

    #[test]
    fn alerts_are_counted_cut_and_timed_whole() {
        let head = walk_then_stand();
        let alert = |text: &str, id, audio: Option<f64>, end, cut| HeardEntry {
            priority: Priority::Alert,
            ..entry(text, false, id, audio, end, cut)
        };
        let e = vec![
            // Two clauses of one alert, heard whole: 1.0 s to 2.5 s.
            alert("Stop. Person ahead,", 1, Some(1.0), 1.8, false),
            alert("2 metres.", 1, Some(1.8), 2.5, false),
            // Cut by the next one after 0.4 s.
            alert("Obstacle ahead, 3 metres.", 2, Some(5.0), 5.4, true),
            alert("Step down in 2 metres.", 3, Some(5.4), 6.3, false),
            // Never heard: not an alert heard.
            alert("Vehicle coming from the left.", 4, None, 7.0, true),
            // An answer is not an alert.
            entry("the exit is ahead", true, 5, Some(8.0), 10.0, false),
        ];
        let l = listening(&e, &[], &head, 0, 20 * S);
        assert_eq!((l.alerts_heard, l.alerts_cut), (3, 1));
        let p50 = l.alert_audio_p50_ms.unwrap();
        assert!((p50 - 1200.0).abs() < 1e-6, "{p50}");
        let max = l.alert_audio_max_ms.unwrap();
        assert!((max - 1500.0).abs() < 1e-6, "{max}");
        let none = listening(&[], &[], &head, 0, 20 * S);
        assert_eq!((none.alerts_heard, none.alert_audio_p50_ms), (0, None));
    }

    #[test]
    fn the_panel_marks_the_targets_missed() {
        let head = walk_then_stand();
        let e = vec![
            entry("the exit is ahead", true, 1, Some(1.0), 4.0, true),
            entry("the exit is ahead", true, 2, Some(5.0), 6.0, false),
        ];
        let l = listening(&e, &[], &head, 0, 20 * S);
        let rows = l.panel_rows();
        let answers = rows
            .iter()
            .find(|r| r.label == "answers heard whole")
            .unwrap();
        assert_eq!(answers.share, Some(0.5));
        assert!(answers.missed, "1 of 2 whole is under 90 %");
        let walking = rows
            .iter()
            .find(|r| r.label == "speech, share of walking time")
            .unwrap();
        assert_eq!(walking.missed, l.duty_cycle_walking.unwrap() > 0.35);
        let quiet = listening(&[], &[], &head, 0, 20 * S).panel_rows();
        assert!(quiet.iter().all(|r| !r.missed), "{quiet:?}");
        let svg = l.with_panel(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"1000\" height=\"10\">\n</svg>\n",
        );
        assert!(svg.contains("What the wearer heard"), "{svg}");
    }
}
