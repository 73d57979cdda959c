//! Cues: an alert's earcon heard at once over whatever is being said, while the alert's
//! words wait (a heads-up lets the answer clause being said end first,
//! [`crate::speech::Utterance::cue`]). A cue neither delays speech nor waits for it:
//! the scheduler mixes it over the speech of the same timeline samples, each heard from its
//! own side ([`crate::speech::sink::AudioSink::write_over`]). Cues never overlap one
//! another: one starts where the one before it ends. Pure: [`CueTrack`] keeps the pending
//! cues and hands out their samples in runs.

use std::collections::VecDeque;

use super::queue::Utterance;

/// Cues waiting or playing at most; adding one more drops the newest that has not begun.
pub const MAX_CUES: usize = 4;

/// One cue on the timeline.
#[derive(Debug)]
pub struct Cue {
    /// What it is (an earcon with no words), for its transcript entry.
    pub utt: Utterance,
    /// Its first timeline sample.
    pub start: u64,
    /// Its samples.
    pub samples: Vec<i16>,
    /// How many have been handed out.
    pub emitted: usize,
}

impl Cue {
    /// The timeline index of its next sample.
    pub fn next(&self) -> u64 {
        self.start + self.emitted as u64
    }

    /// The timeline index just after its last sample.
    pub fn end(&self) -> u64 {
        self.start + self.samples.len() as u64
    }

    /// True once every sample has been handed out.
    pub fn done(&self) -> bool {
        self.emitted >= self.samples.len()
    }
}

/// The cues not yet wholly played, in timeline order.
#[derive(Debug, Default)]
pub struct CueTrack {
    cues: VecDeque<Cue>,
}

impl CueTrack {
    /// Adds `samples` for `utt`, starting at `start` or where the last cue ends, whichever is
    /// later. Returns the cue that gave way when [`MAX_CUES`] were pending (the newest that
    /// had not begun, else this one), for its transcript entry.
    pub fn add(&mut self, utt: Utterance, start: u64, samples: Vec<i16>) -> Option<Utterance> {
        let mut dropped = None;
        if self.cues.len() >= MAX_CUES {
            match self.cues.back() {
                Some(last) if last.emitted == 0 => dropped = self.cues.pop_back().map(|c| c.utt),
                _ => return Some(utt),
            }
        }
        let start = self.cues.back().map_or(start, |last| start.max(last.end()));
        self.cues.push_back(Cue {
            utt,
            start,
            samples,
            emitted: 0,
        });
        dropped
    }

    /// The cue playing or next to play.
    pub fn front(&self) -> Option<&Cue> {
        self.cues.front()
    }

    /// Hands out the next `n` samples of the front cue (fewer at its end); the cue itself
    /// once it is wholly played.
    pub fn take(&mut self, n: usize) -> (Vec<i16>, Option<Cue>) {
        let Some(c) = self.cues.front_mut() else {
            return (Vec::new(), None);
        };
        let to = c.emitted.saturating_add(n).min(c.samples.len());
        let out = c.samples.get(c.emitted..to).unwrap_or(&[]).to_vec();
        c.emitted = to;
        let finished = if c.done() {
            self.cues.pop_front()
        } else {
            None
        };
        (out, finished)
    }

    /// Drops the cues that have not begun (what they stood for is said now).
    pub fn drop_unstarted(&mut self) {
        self.cues.retain(|c| c.emitted > 0);
    }

    /// True when no cue waits or plays.
    pub fn is_empty(&self) -> bool {
        self.cues.is_empty()
    }

    /// Where the front cue starts, while none of it has been handed out.
    pub fn pending_start(&self) -> Option<u64> {
        self.cues
            .front()
            .filter(|c| c.emitted == 0)
            .map(|c| c.start)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::speech::{Pan, Priority};
    use crate::time::{DeviceTime, HostTime};

    fn cue(id: u64) -> Utterance {
        Utterance {
            text: String::new(),
            priority: Priority::Alert,
            request_id: id,
            capture: DeviceTime(0),
            decided: HostTime(0),
            earcon: Some(crate::speech::Earcon::Tick),
            cue: None,
            pan: Pan::CENTRE,
            urgent: true,
        }
    }

    #[test]
    fn cues_follow_one_another_and_are_handed_out_in_runs() {
        let mut t = CueTrack::default();
        assert_eq!(t.add(cue(1), 10, vec![1; 5]), None);
        // Asked to start inside the first: it starts where the first ends.
        assert_eq!(t.add(cue(2), 12, vec![2; 3]), None);
        let starts: Vec<u64> = t.cues.iter().map(|c| c.start).collect();
        assert_eq!(starts, [10, 15]);
        let (a, done) = t.take(3);
        assert_eq!((a, done.is_none()), (vec![1; 3], true));
        assert_eq!(t.front().map(Cue::next), Some(13));
        let (b, done) = t.take(9);
        assert_eq!(b, vec![1; 2]);
        assert_eq!(done.map(|c| c.utt.request_id), Some(1));
        assert_eq!(t.pending_start(), Some(15));
    }

    #[test]
    fn pending_cues_are_bounded() {
        let mut t = CueTrack::default();
        for id in 0..MAX_CUES as u64 {
            assert_eq!(t.add(cue(id), 0, vec![0; 4]), None);
        }
        // The newest that has not begun gives way to the new one.
        let gave_way = t.add(cue(99), 0, vec![0; 4]);
        assert_eq!(gave_way.map(|u| u.request_id), Some(MAX_CUES as u64 - 1));
        assert_eq!(t.cues.len(), MAX_CUES);
        assert_eq!(t.cues.back().map(|c| c.utt.request_id), Some(99));
    }
}
