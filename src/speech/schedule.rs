//! The speaker's scheduler: lays utterances out on the session timeline, in samples.
//!
//! Pure and deterministic: it is driven by utterances (with their decision times) and by
//! "advance to sample N" calls, and it hands audio and transcript entries to an [`Output`].
//! Audio is committed up to the point it has been advanced to (the *frontier*); an
//! interruption cuts the playing utterance at the frontier. The speaker thread drives it in
//! one of two ways:
//!
//! * timeline sinks (WAV): before each utterance it advances exactly to the utterance's
//!   decision time, so the result depends only on the utterances, never on host timing;
//! * real-time sinks (device, null): it advances to "now + a short lookahead" as the clock
//!   moves, never placing new speech before "now" (`floor`).
//!
//! On a real-time clock ([`Scheduler::with_now`]) an utterance also starts no earlier than
//! the moment its synthesis ended: a voice that synthesises a clause whole before playing it
//! (Piper) delays its own first audio, and the transcript says so.

use super::cue::CueTrack;
use super::pan::Pan;
use super::queue::{Admission, Priority, QueueConfig, SpeechQueue, Utterance};
use super::timeline::Timeline;
use super::transcript::TranscriptEntry;

/// A cue's samples heard over the audio of the same timeline samples ([`super::cue`]).
#[derive(Clone, Copy, Debug)]
pub struct Over<'a> {
    /// As many samples as the audio they sound over.
    pub samples: &'a [i16],
    /// Where the cue is heard.
    pub pan: Pan,
    /// The cue, when these are its first samples.
    pub first_of: Option<&'a Utterance>,
}

/// An alert whose words would wait longer than this (ns) for the clause being said is heard
/// at once as its cue ([`Utterance::cue`]): hazard evidence → first sound stays within
/// 150 ms.
pub const CUE_AFTER_NS: i64 = 150_000_000;

/// Where the scheduler's results go.
pub trait Output {
    /// Audio for timeline samples `start_index..start_index + samples.len()`, heard at
    /// `pan`; `first_of` is the utterance whose first samples these are, if they are; `over`
    /// a cue heard at the same time.
    fn audio(
        &mut self,
        start_index: u64,
        samples: &[i16],
        pan: Pan,
        first_of: Option<&Utterance>,
        over: Option<Over<'_>>,
    );
    /// One finished transcript entry (spoken, interrupted or dropped).
    fn entry(&mut self, entry: TranscriptEntry);
    /// An alert cut answer `request_id`: stopped it while it played, or came before some of
    /// it was said (that part then follows the alert, unless withdrawn).
    fn answer_cut(&mut self, _request_id: u64) {}
}

/// Turns text into samples at the timeline's rate.
pub trait Synth {
    /// The samples for `text`, or why there are none.
    fn synth(&mut self, text: &str) -> Result<Vec<i16>, String>;
    /// The samples for `text` said at `priority` (a voice may say alerts with another
    /// engine than answers); by default [`Self::synth`].
    fn synth_at(&mut self, _priority: Priority, text: &str) -> Result<Vec<i16>, String> {
        self.synth(text)
    }
    /// Speaks what comes next at `rate_wpm` words per minute (a voice without a rate
    /// ignores it).
    fn set_rate_wpm(&mut self, _rate_wpm: u32) {}
}

impl<F: FnMut(&str) -> Result<Vec<i16>, String>> Synth for F {
    fn synth(&mut self, text: &str) -> Result<Vec<i16>, String> {
        self(text)
    }
}

/// The session clock's sample index now, on a real-time clock.
pub struct NowIndex(pub Box<dyn Fn() -> u64 + Send>);

impl std::fmt::Debug for NowIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("NowIndex")
    }
}

#[derive(Debug)]
struct Current {
    utt: Utterance,
    start: u64,
    samples: Vec<i16>,
    emitted: usize,
}

/// See the module documentation.
#[derive(Debug)]
pub struct Scheduler {
    queue: SpeechQueue,
    timeline: Timeline,
    frontier: u64,
    current: Option<Current>,
    /// The answer whose clause an alert cut and put back (its cut is in the transcript
    /// already), until that clause plays again.
    resumed: Option<u64>,
    /// Where the clock is, on a real-time clock (`None`: virtual time, nothing waits for
    /// synthesis).
    now: Option<NowIndex>,
    /// Earcons heard over whatever plays ([`Self::cue`]).
    cues: CueTrack,
}

impl Scheduler {
    /// An idle scheduler at sample 0 of `timeline`.
    pub fn new(queue: QueueConfig, timeline: Timeline) -> Self {
        Self {
            queue: SpeechQueue::new(queue),
            timeline,
            frontier: 0,
            current: None,
            resumed: None,
            now: None,
            cues: CueTrack::default(),
        }
    }

    /// On a real-time clock: `now` gives the clock's sample index, and an utterance starts
    /// no earlier than when its synthesis ended.
    pub fn with_now(mut self, now: NowIndex) -> Self {
        self.now = Some(now);
        self
    }

    /// The timeline.
    pub fn timeline(&self) -> Timeline {
        self.timeline
    }

    /// The end of the audio committed so far, in samples.
    pub fn frontier(&self) -> u64 {
        self.frontier
    }

    /// Where the current utterance starts, while none of it has been emitted (on a
    /// real-time clock its synthesis may have ended beyond the frontier); `None` otherwise.
    pub fn pending_start(&self) -> Option<u64> {
        let speech = self
            .current
            .as_ref()
            .filter(|c| c.emitted == 0)
            .map(|c| c.start);
        match (speech, self.cues.pending_start()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// True when nothing plays and nothing waits.
    pub fn is_idle(&self) -> bool {
        self.current.is_none() && self.queue.is_empty() && self.cues.is_empty()
    }

    /// Sounds `u`'s earcon at its decision time (or the frontier, or where the cue before
    /// it ends, whichever is latest) over whatever is being said then, without waiting for
    /// it or delaying it: an alert whose words must wait is heard at once. Its words, if
    /// any, are not said (the alert's own utterance says them). An utterance without an
    /// earcon is ignored.
    pub fn cue(&mut self, u: Utterance, out: &mut dyn Output) {
        let Some(earcon) = u.earcon else {
            return;
        };
        let start = self
            .frontier
            .max(self.timeline.index_at_or_after(u.decided));
        let samples = earcon.render(self.timeline.rate_hz);
        let u = Utterance {
            text: String::new(),
            ..u
        };
        if let Some(gave_way) = self.cues.add(u, start, samples) {
            let now_ns = self.timeline.time_of(self.frontier).ns();
            out.entry(TranscriptEntry::dropped(
                &gave_way,
                super::queue::DropReason::CuesFull,
                now_ns,
            ));
        }
    }

    /// Hands out the next run of audio before `until`: the playing utterance's samples, a
    /// cue's, or both mixed where both play. False when none is due before `until`.
    fn emit_run(&mut self, until: u64, out: &mut dyn Output) -> bool {
        let speech = self
            .current
            .as_ref()
            .filter(|c| c.emitted < c.samples.len())
            .map(|c| (c.start + c.emitted as u64, c.start + c.samples.len() as u64));
        let cue = self.cues.front().map(|q| (q.next(), q.end()));
        let Some(at) = [speech, cue]
            .into_iter()
            .flatten()
            .map(|(next, _)| next)
            .min()
        else {
            return false;
        };
        if at >= until {
            return false;
        }
        // The run ends where either starts or ends, or at `until`.
        let end = [speech, cue]
            .into_iter()
            .flatten()
            .map(|(next, end)| if next == at { end } else { next })
            .fold(until, u64::min);
        let n = (end - at) as usize;
        let speaking = speech.is_some_and(|(next, _)| next == at);
        let cueing = cue.is_some_and(|(next, _)| next == at);
        let cue_first = self
            .cues
            .front()
            .filter(|q| cueing && q.emitted == 0)
            .map(|q| q.utt.clone());
        // Where the cue is heard, for every run of it (first, middle or last).
        let cue_pan = self.cues.front().filter(|_| cueing).map(|q| q.utt.pan);
        let (cue_samples, finished) = if cueing {
            self.cues.take(n)
        } else {
            (Vec::new(), None)
        };
        match self.current.as_mut().filter(|_| speaking) {
            Some(c) => {
                let over = cue_pan.map(|pan| Over {
                    samples: &cue_samples,
                    pan,
                    first_of: cue_first.as_ref(),
                });
                if let Some(s) = c.samples.get(c.emitted..c.emitted + n) {
                    out.audio(at, s, c.utt.pan, (c.emitted == 0).then_some(&c.utt), over);
                }
                if c.emitted == 0 && c.utt.priority == Priority::Answer {
                    self.queue.note_heard(c.utt.request_id);
                }
                c.emitted += n;
            }
            None => {
                if let Some(pan) = cue_pan {
                    out.audio(at, &cue_samples, pan, cue_first.as_ref(), None);
                }
            }
        }
        self.frontier = self.frontier.max(end);
        if let Some(q) = finished {
            let mut entry = TranscriptEntry::new(&q.utt, self.timeline.time_of(q.end()).ns());
            entry.first_audio_ns = Some(self.timeline.time_of(q.start).ns());
            out.entry(entry);
        }
        true
    }

    /// Admits an utterance, interrupting the playing one at the frontier if its priority
    /// says so.
    pub fn push(&mut self, u: Utterance, out: &mut dyn Output) {
        let playing = self
            .current
            .as_ref()
            .map(|c| (c.utt.priority, c.utt.request_id));
        let alert = u.priority == Priority::Alert;
        // A heads-up lets the answer clause being said end first, when it ends soon: an
        // answer is not cut for a less urgent alert.
        let heads_up_waits = alert
            && !u.urgent
            && self.current.as_ref().is_some_and(|c| {
                c.utt.priority == Priority::Answer
                    && self.left_ns(c) <= self.queue.config().heads_up_wait_ns
            });
        // Its words wait for the clause: its tone is heard at once, over it.
        let mut u = u;
        let wait_ns = self.current.as_ref().map_or(0, |c| self.left_ns(c));
        if heads_up_waits && wait_ns > CUE_AFTER_NS {
            if let Some(tone) = u.cue.take() {
                let cue = Utterance {
                    earcon: Some(tone),
                    ..u.clone()
                };
                self.cue(cue, out);
                u.earcon = None;
            }
        }
        let Admission {
            interrupt_current,
            dropped,
        } = self.queue.push(u, playing);
        let now_ns = self.timeline.time_of(self.frontier).ns();
        for (d, reason) in dropped {
            if alert && d.priority == Priority::Answer {
                out.answer_cut(d.request_id);
            }
            out.entry(TranscriptEntry::dropped(&d, reason, now_ns));
        }
        if let Some(id) = alert.then(|| self.queue.waiting_answer()).flatten() {
            out.answer_cut(id);
        }
        if interrupt_current && !heads_up_waits {
            if let Some(c) = self.current.take() {
                // An alert cuts the answer being heard: what it said stays said, and the cut
                // clause is said again after the alert (one not yet started just waits).
                if alert && c.utt.priority == Priority::Answer {
                    out.answer_cut(c.utt.request_id);
                }
                if alert
                    && c.utt.priority == Priority::Answer
                    && self.queue.resumes(c.utt.request_id)
                {
                    let utt = c.utt.clone();
                    if c.emitted > 0 {
                        self.finish(c, true, out);
                        self.resumed = Some(utt.request_id);
                    }
                    self.queue.resume(utt);
                } else {
                    self.finish(c, true, out);
                }
            }
        }
    }

    /// Stops answer `request_id` (the assistant withdrew it): the clause playing is cut at
    /// the frontier, those queued are dropped.
    pub fn withdraw(&mut self, request_id: u64, out: &mut dyn Output) {
        let now_ns = self.timeline.time_of(self.frontier).ns();
        // A clause cut and put back has its entry already.
        let skip = usize::from(self.resumed.take() == Some(request_id));
        for d in self.queue.withdraw(request_id).into_iter().skip(skip) {
            out.entry(TranscriptEntry::dropped(
                &d,
                super::queue::DropReason::Withdrawn,
                now_ns,
            ));
        }
        let playing = self
            .current
            .as_ref()
            .is_some_and(|c| c.utt.priority == Priority::Answer && c.utt.request_id == request_id);
        if playing {
            if let Some(c) = self.current.take() {
                self.finish(c, true, out);
            }
            // A heads-up waiting for this clause goes now: its cue, not yet begun, would
            // only sound over its own first words.
            self.cues.drop_unstarted();
        }
    }

    /// Commits audio up to sample `until`; utterances that start now start no earlier than
    /// `floor`, the frontier, or their own decision time.
    pub fn advance(&mut self, until: u64, floor: u64, synth: &mut dyn Synth, out: &mut dyn Output) {
        loop {
            if let Some(c) = self.current.as_ref() {
                if c.emitted < c.samples.len() {
                    if !self.emit_run(until, out) {
                        return;
                    }
                    continue;
                }
                if let Some(c) = self.current.take() {
                    self.finish(c, false, out);
                }
                continue;
            }
            let start_at = self.frontier.max(floor);
            let (next, stale) = self.queue.pop(self.timeline.time_of(start_at));
            if next
                .as_ref()
                .is_some_and(|u| u.priority == Priority::Answer)
            {
                self.resumed = None;
            }
            if let Some(s) = stale {
                let at = self.timeline.time_of(start_at).ns();
                out.entry(TranscriptEntry::dropped(
                    &s,
                    super::queue::DropReason::Stale,
                    at,
                ));
            }
            let Some(utt) = next else {
                if self.queue.is_empty() {
                    // Nothing to say: cues play alone.
                    while self.emit_run(until, out) {}
                    return;
                }
                continue;
            };
            let start = start_at.max(self.timeline.index_at_or_after(utt.decided));
            let mut samples = utt
                .earcon
                .map(|e| e.render(self.timeline.rate_hz))
                .unwrap_or_default();
            let speech = if utt.earcon.is_some() && utt.text.trim().is_empty() {
                Ok(Vec::new())
            } else {
                synth.synth_at(utt.priority, &utt.text)
            };
            // Synthesis took real time: the audio cannot start before it ended.
            let start = self.now.as_ref().map_or(start, |now| start.max((now.0)()));
            match speech.map(|s| {
                samples.extend_from_slice(&s);
                samples
            }) {
                Ok(samples) => {
                    self.current = Some(Current {
                        utt,
                        start,
                        samples,
                        emitted: 0,
                    });
                }
                Err(e) => {
                    let mut entry = TranscriptEntry::new(&utt, self.timeline.time_of(start).ns());
                    entry.error = Some(e);
                    out.entry(entry);
                }
            }
        }
    }

    /// Commits everything queued, however far it reaches.
    pub fn drain(&mut self, synth: &mut dyn Synth, out: &mut dyn Output) {
        self.advance(u64::MAX, 0, synth, out);
    }

    /// How long `c` plays on from the frontier, ns.
    fn left_ns(&self, c: &Current) -> i64 {
        let end = c.start + c.samples.len() as u64;
        let from = self.frontier.max(c.start);
        let left = end.saturating_sub(from);
        (left as f64 * 1e9 / f64::from(self.timeline.rate_hz.max(1))) as i64
    }

    fn finish(&mut self, c: Current, cut: bool, out: &mut dyn Output) {
        let played_end = c.start + c.emitted as u64;
        let end = if c.emitted == 0 {
            self.frontier
        } else {
            played_end
        };
        let mut entry = TranscriptEntry::new(&c.utt, self.timeline.time_of(end).ns());
        entry.first_audio_ns = (c.emitted > 0).then(|| self.timeline.time_of(c.start).ns());
        entry.interrupted = cut && c.emitted < c.samples.len();
        out.entry(entry);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::{DeviceTime, HostTime};

    /// Collects output; audio as (start, len) runs, and the runs of cues heard over them
    /// as (start, len, pan).
    #[derive(Default)]
    struct Collect {
        runs: Vec<(u64, usize)>,
        over: Vec<(u64, usize, Pan)>,
        entries: Vec<TranscriptEntry>,
    }
    impl Output for Collect {
        fn audio(
            &mut self,
            start_index: u64,
            samples: &[i16],
            _pan: Pan,
            _first_of: Option<&Utterance>,
            over: Option<Over<'_>>,
        ) {
            self.runs.push((start_index, samples.len()));
            if let Some(o) = over {
                assert_eq!(o.samples.len(), samples.len());
                self.over.push((start_index, o.samples.len(), o.pan));
            }
        }
        fn entry(&mut self, entry: TranscriptEntry) {
            self.entries.push(entry);
        }
    }

    /// One sample per character at 1 kHz: "abc" lasts 3 ms.
    fn synth(text: &str) -> Result<Vec<i16>, String> {
        Ok(vec![1; text.len()])
    }

    const TL: Timeline = Timeline {
        origin: HostTime(0),
        rate_hz: 1_000,
    };

    fn u(p: Priority, id: u64, len: usize, decided_ms: i64) -> Utterance {
        Utterance {
            text: "x".repeat(len),
            priority: p,
            request_id: id,
            capture: DeviceTime(0),
            decided: HostTime(decided_ms * 1_000_000),
            earcon: None,
            cue: None,
            pan: Pan::CENTRE,
            urgent: p == Priority::Alert,
        }
    }

    /// A heads-up: an alert that is not urgent.
    fn heads_up(id: u64, len: usize, decided_ms: i64) -> Utterance {
        Utterance {
            urgent: false,
            ..u(Priority::Alert, id, len, decided_ms)
        }
    }

    /// Drives the scheduler like a timeline sink.
    fn offline(utts: Vec<Utterance>) -> Collect {
        let mut s = Scheduler::new(QueueConfig::default(), TL);
        let mut out = Collect::default();
        for x in utts {
            s.advance(TL.index_of(x.decided), 0, &mut synth, &mut out);
            s.push(x, &mut out);
        }
        s.drain(&mut synth, &mut out);
        out
    }

    #[test]
    fn utterances_start_at_decision_or_after_the_previous_one() {
        let out = offline(vec![
            u(Priority::Answer, 1, 100, 10),
            u(Priority::Answer, 1, 50, 20),
            u(Priority::Ambient, 0, 30, 500),
        ]);
        let starts: Vec<Option<i64>> = out.entries.iter().map(|e| e.first_audio_ns).collect();
        assert_eq!(
            starts,
            [Some(10_000_000), Some(110_000_000), Some(500_000_000)]
        );
        assert!(out.entries.iter().all(|e| !e.interrupted));
        assert_eq!(out.entries[1].end_ns, 160_000_000);
    }

    #[test]
    fn alert_cuts_answer_at_its_decision_time_and_the_answer_resumes_at_the_cut_clause() {
        let out = offline(vec![
            u(Priority::Answer, 1, 100, 0),
            u(Priority::Answer, 1, 100, 1),
            u(Priority::Alert, 2, 20, 40),
        ]);
        let got: Vec<(Priority, Option<i64>, i64, bool)> = out
            .entries
            .iter()
            .map(|e| (e.priority, e.first_audio_ns, e.end_ns, e.interrupted))
            .collect();
        let ms = |m: i64| m * 1_000_000;
        assert_eq!(
            got,
            [
                // The first clause is cut at the alert's decision time...
                (Priority::Answer, Some(0), ms(40), true),
                (Priority::Alert, Some(ms(40)), ms(60), false),
                // ...and said again after it, then the second (kept in the queue).
                (Priority::Answer, Some(ms(60)), ms(160), false),
                (Priority::Answer, Some(ms(160)), ms(260), false),
            ]
        );
        assert!(out.entries.iter().all(|e| e.dropped.is_none()));
        // Audio is contiguous.
        let total: usize = out.runs.iter().map(|r| r.1).sum();
        assert_eq!(total, 260);
    }

    #[test]
    fn a_heads_up_waits_for_the_answer_clause_ending_soon_and_cuts_one_that_does_not() {
        let ms = |m: i64| m * 1_000_000;
        let got = |out: Collect| -> Vec<(Priority, Option<i64>, i64, bool)> {
            out.entries
                .iter()
                .map(|e| (e.priority, e.first_audio_ns, e.end_ns, e.interrupted))
                .collect()
        };
        // 600 ms left of the clause (within the 1 s wait): it ends, then the heads-up,
        // then the answer's next clause.
        let out = offline(vec![
            u(Priority::Answer, 1, 1_000, 0),
            u(Priority::Answer, 1, 100, 0),
            heads_up(2, 20, 400),
        ]);
        assert_eq!(
            got(out),
            [
                (Priority::Answer, Some(0), ms(1_000), false),
                (Priority::Alert, Some(ms(1_000)), ms(1_020), false),
                (Priority::Answer, Some(ms(1_020)), ms(1_120), false),
            ]
        );
        // 1.6 s left: the heads-up cuts it at once, and the clause is said again after.
        let out = offline(vec![u(Priority::Answer, 1, 2_000, 0), heads_up(2, 20, 400)]);
        assert_eq!(
            got(out),
            [
                (Priority::Answer, Some(0), ms(400), true),
                (Priority::Alert, Some(ms(400)), ms(420), false),
                (Priority::Answer, Some(ms(420)), ms(2_420), false),
            ]
        );
        // An urgent alert cuts even a clause about to end.
        let out = offline(vec![
            u(Priority::Answer, 1, 1_000, 0),
            u(Priority::Alert, 2, 20, 900),
        ]);
        assert_eq!(
            got(out)[..2],
            [
                (Priority::Answer, Some(0), ms(900), true),
                (Priority::Alert, Some(ms(900)), ms(920), false),
            ]
        );
        // Ambient speech does not hold a heads-up up.
        let out = offline(vec![
            u(Priority::Ambient, 0, 1_000, 0),
            heads_up(2, 20, 900),
        ]);
        assert_eq!(
            got(out),
            [
                (Priority::Ambient, Some(0), ms(900), true),
                (Priority::Alert, Some(ms(900)), ms(920), false),
            ]
        );
    }

    #[test]
    fn a_heads_up_that_waits_for_the_clause_is_heard_at_once_as_its_cue() {
        let ms = |m: i64| m * 1_000_000;
        let tick = Some(crate::speech::Earcon::Tick);
        let hu = |decided_ms| Utterance {
            cue: tick,
            ..heads_up(2, 20, decided_ms)
        };
        // 600 ms of the clause left: the tick at once over it, the words after it.
        let out = offline(vec![u(Priority::Answer, 1, 1_000, 0), hu(400)]);
        let got: Vec<(u64, &str, Option<i64>)> = out
            .entries
            .iter()
            .map(|e| (e.request_id, e.text.as_str(), e.first_audio_ns))
            .collect();
        assert_eq!(got[0], (2, "", Some(ms(400))));
        assert_eq!(out.entries[0].earcon, tick);
        assert_eq!(got[2], (2, "xxxxxxxxxxxxxxxxxxxx", Some(ms(1_000))));
        assert_eq!(out.over, [(400, 40, Pan::CENTRE)]);
        // 100 ms left: the words follow within the cue's time; no cue.
        let out = offline(vec![u(Priority::Answer, 1, 1_000, 0), hu(900)]);
        assert!(out.entries.iter().all(|e| !e.text.is_empty()));
        assert!(out.over.is_empty());
    }

    #[test]
    fn a_cue_not_yet_begun_goes_when_the_clause_it_waits_for_is_withdrawn() {
        let mut s = Scheduler::new(QueueConfig::default(), TL);
        let mut out = Collect::default();
        s.push(u(Priority::Answer, 1, 1_000, 0), &mut out);
        s.advance(400, 0, &mut synth, &mut out);
        s.push(
            Utterance {
                cue: Some(crate::speech::Earcon::Tick),
                ..heads_up(2, 20, 400)
            },
            &mut out,
        );
        // The assistant withdraws the answer at once: the heads-up is said now, no cue.
        s.withdraw(1, &mut out);
        s.drain(&mut synth, &mut out);
        let got: Vec<(u64, &str, Option<i64>)> = out
            .entries
            .iter()
            .map(|e| (e.request_id, e.text.as_str(), e.first_audio_ns))
            .collect();
        assert_eq!(got[1], (2, "xxxxxxxxxxxxxxxxxxxx", Some(400_000_000)));
        assert!(out.entries.iter().all(|e| !e.text.is_empty()));
        assert!(out.over.is_empty() && s.is_idle());
    }

    #[test]
    fn a_withdrawn_answer_stops_where_the_alert_cut_it() {
        let mut s = Scheduler::new(QueueConfig::default(), TL);
        let mut out = Collect::default();
        s.push(u(Priority::Answer, 1, 100, 0), &mut out);
        s.push(u(Priority::Answer, 1, 100, 0), &mut out);
        s.advance(40, 0, &mut synth, &mut out);
        s.push(u(Priority::Alert, 2, 20, 40), &mut out);
        s.withdraw(1, &mut out);
        s.drain(&mut synth, &mut out);
        let got: Vec<(Priority, Option<i64>, bool, bool)> = out
            .entries
            .iter()
            .map(|e| {
                (
                    e.priority,
                    e.first_audio_ns,
                    e.interrupted,
                    e.dropped.is_some(),
                )
            })
            .collect();
        // The cut clause once (not again as withdrawn), the second withdrawn, the alert.
        assert_eq!(
            got,
            [
                (Priority::Answer, Some(0), true, false),
                (Priority::Answer, None, true, true),
                (Priority::Alert, Some(40_000_000), false, false),
            ]
        );
    }

    #[test]
    fn an_alert_clears_an_answer_nothing_was_heard_of() {
        let out = offline(vec![
            u(Priority::Answer, 1, 100, 50),
            u(Priority::Answer, 1, 100, 50),
            u(Priority::Alert, 2, 20, 50),
        ]);
        // The first clause was about to start, the second waited: neither is heard, nor
        // said after the alert (the assistant answers again from a newer state).
        let answers: Vec<&TranscriptEntry> = out
            .entries
            .iter()
            .filter(|e| e.priority == Priority::Answer)
            .collect();
        assert_eq!(answers.len(), 2, "{:?}", out.entries);
        assert!(answers.iter().all(|e| e.first_audio_ns.is_none()));
        let total: usize = out.runs.iter().map(|r| r.1).sum();
        assert_eq!(total, 20);
    }

    #[test]
    fn on_a_real_time_clock_speech_starts_once_its_synthesis_has_ended() {
        use std::sync::atomic::{AtomicU64, Ordering};
        use std::sync::Arc;
        // A voice that takes 300 samples of the clock to synthesise each clause.
        let clock = Arc::new(AtomicU64::new(0));
        let c = Arc::clone(&clock);
        let mut s = Scheduler::new(QueueConfig::default(), TL)
            .with_now(NowIndex(Box::new(move || c.load(Ordering::SeqCst))));
        let mut slow = |text: &str| -> Result<Vec<i16>, String> {
            clock.fetch_add(300, Ordering::SeqCst);
            Ok(vec![1; text.len()])
        };
        let mut out = Collect::default();
        s.push(u(Priority::Answer, 1, 100, 0), &mut out);
        s.push(u(Priority::Answer, 1, 100, 0), &mut out);
        s.drain(&mut slow, &mut out);
        let starts: Vec<Option<i64>> = out.entries.iter().map(|e| e.first_audio_ns).collect();
        // The first at 300 ms (not at its decision, 0), the second when its own synthesis
        // ended (600 ms), after the first's 100 ms.
        assert_eq!(starts, [Some(300_000_000), Some(600_000_000)]);
        // Without a clock (virtual time) synthesis takes no time.
        let out = offline(vec![
            u(Priority::Answer, 1, 100, 0),
            u(Priority::Answer, 1, 100, 0),
        ]);
        let starts: Vec<Option<i64>> = out.entries.iter().map(|e| e.first_audio_ns).collect();
        assert_eq!(starts, [Some(0), Some(100_000_000)]);
    }

    #[test]
    fn real_time_floor_delays_starts_to_now() {
        let mut s = Scheduler::new(QueueConfig::default(), TL);
        let mut out = Collect::default();
        s.push(u(Priority::Answer, 1, 10, 0), &mut out);
        s.advance(25, 20, &mut synth, &mut out);
        assert_eq!(out.runs, [(20, 5)]);
        s.advance(100, 90, &mut synth, &mut out);
        assert_eq!(out.runs, [(20, 5), (25, 5)]);
        assert_eq!(out.entries[0].first_audio_ns, Some(20_000_000));
        assert!(s.is_idle());
    }

    fn cue_at(id: u64, decided_ms: i64, pan: Pan) -> Utterance {
        Utterance {
            earcon: Some(crate::speech::Earcon::Tick),
            cue: None,
            pan,
            ..u(Priority::Alert, id, 5, decided_ms)
        }
    }

    #[test]
    fn a_cue_sounds_at_once_over_the_alert_being_said_from_its_own_side() {
        let mut s = Scheduler::new(QueueConfig::default(), TL);
        let mut out = Collect::default();
        s.push(u(Priority::Alert, 1, 100, 0), &mut out);
        s.advance(30, 0, &mut synth, &mut out);
        let right = Pan::of_clock_hour(3);
        s.cue(cue_at(2, 30, right), &mut out);
        s.drain(&mut synth, &mut out);
        // The tick (40 ms at 1 kHz) is mixed over samples 30..70 of the alert, which is
        // neither cut nor delayed.
        assert_eq!(out.runs, [(0, 30), (30, 40), (70, 30)]);
        assert_eq!(out.over, [(30, 40, right)]);
        let got: Vec<(u64, Option<i64>, i64, bool, &str)> = out
            .entries
            .iter()
            .map(|e| {
                (
                    e.request_id,
                    e.first_audio_ns,
                    e.end_ns,
                    e.interrupted,
                    e.text.as_str(),
                )
            })
            .collect();
        let ms = |m: i64| m * 1_000_000;
        assert_eq!(
            got,
            [
                (2, Some(ms(30)), ms(70), false, ""),
                (1, Some(0), ms(100), false, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"),
            ]
        );
        assert!(s.is_idle());
    }

    #[test]
    fn a_cue_plays_alone_in_silence_and_speech_that_follows_is_not_held_for_it() {
        let mut s = Scheduler::new(QueueConfig::default(), TL);
        let mut out = Collect::default();
        s.cue(cue_at(1, 0, Pan::CENTRE), &mut out);
        // A second cue asked for during the first follows it.
        s.cue(cue_at(2, 20, Pan::CENTRE), &mut out);
        s.advance(10, 0, &mut synth, &mut out);
        s.push(u(Priority::Answer, 3, 50, 10), &mut out);
        s.drain(&mut synth, &mut out);
        // Cue 1 alone for 10 ms, then under the answer from its decision time; cue 2 from
        // 40 ms to 80 ms, over the answer's last 20 ms and then alone.
        assert_eq!(out.runs, [(0, 10), (10, 30), (40, 20), (60, 20)]);
        assert_eq!(out.over, [(10, 30, Pan::CENTRE), (40, 20, Pan::CENTRE)]);
        let starts: Vec<(u64, Option<i64>)> = out
            .entries
            .iter()
            .map(|e| (e.request_id, e.first_audio_ns))
            .collect();
        assert_eq!(
            starts,
            [(1, Some(0)), (3, Some(10_000_000)), (2, Some(40_000_000))]
        );
    }

    #[test]
    fn a_cue_heard_over_several_runs_is_heard_whole() {
        // Advanced in small steps (as a real-time sink is), the cue's middle runs are heard
        // too, alone and over speech, from its side.
        let mut s = Scheduler::new(QueueConfig::default(), TL);
        let mut out = Collect::default();
        let right = Pan::of_clock_hour(3);
        s.cue(cue_at(1, 0, right), &mut out);
        for until in (5..=30).step_by(5) {
            s.advance(until, 0, &mut synth, &mut out);
        }
        s.push(u(Priority::Answer, 2, 30, 30), &mut out);
        for until in (35..=80).step_by(5) {
            s.advance(until, 0, &mut synth, &mut out);
        }
        let alone: usize = out.runs.iter().filter(|r| r.0 < 30).map(|r| r.1).sum();
        let over: usize = out.over.iter().map(|o| o.1).sum();
        assert_eq!((alone, over), (30, 10), "{:?} {:?}", out.runs, out.over);
        assert!(out.over.iter().all(|o| o.2 == right));
        assert_eq!(out.entries[0].end_ns, 40_000_000);
    }

    #[test]
    fn an_utterance_without_an_earcon_is_no_cue() {
        let mut s = Scheduler::new(QueueConfig::default(), TL);
        let mut out = Collect::default();
        s.cue(u(Priority::Alert, 1, 5, 0), &mut out);
        assert!(s.is_idle());
    }
}
