//! [`Segmenter`]: where an utterance starts and ends, from the voice detector's per-frame
//! speech probability — a pure state machine on frame numbers. Speech starts when a frame is
//! likely speech, continues while frames stay above a lower bar, and ends after a stretch of
//! silence long enough to be the end of a turn rather than a pause between words. Bursts
//! shorter than a syllable (a cough, a click) are dropped; an utterance longer than the most
//! a request needs is cut there, and listening goes on.

use serde::Serialize;

/// Frame length, ms (512 samples at 16 kHz).
pub const FRAME_MS: u32 = 32;

/// Where the boundaries fall.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SegmentConfig {
    /// A frame at least this likely to be speech starts an utterance.
    pub start_probability: f32,
    /// Frames at least this likely keep it going (below: silence).
    pub keep_probability: f32,
    /// Silence that ends an utterance, ms. Pauses between words are 100–300 ms; a turn ends
    /// with a longer one. Every ms here is a ms the wearer waits for the answer.
    pub end_silence_ms: u32,
    /// Voiced time an utterance needs, ms (shorter is dropped as not speech).
    pub min_speech_ms: u32,
    /// Audio kept from before the first voiced frame, ms (the onset the detector is late on).
    pub pre_roll_ms: u32,
    /// Longest utterance, seconds: a request is a sentence or two; beyond this it is cut.
    pub max_utterance_s: f32,
}

impl Default for SegmentConfig {
    fn default() -> Self {
        Self {
            start_probability: 0.5,
            keep_probability: 0.35,
            end_silence_ms: 384,
            min_speech_ms: 224,
            pre_roll_ms: 192,
            max_utterance_s: 15.0,
        }
    }
}

impl SegmentConfig {
    fn frames(ms: f32) -> u64 {
        (ms / FRAME_MS as f32).ceil().max(1.0) as u64
    }
    /// [`Self::end_silence_ms`] in frames.
    pub fn end_silence_frames(&self) -> u64 {
        Self::frames(self.end_silence_ms as f32)
    }
    /// [`Self::min_speech_ms`] in frames.
    pub fn min_speech_frames(&self) -> u64 {
        Self::frames(self.min_speech_ms as f32)
    }
    /// [`Self::pre_roll_ms`] in frames.
    pub fn pre_roll_frames(&self) -> u64 {
        Self::frames(self.pre_roll_ms as f32)
    }
    /// [`Self::max_utterance_s`] in frames.
    pub fn max_frames(&self) -> u64 {
        Self::frames(self.max_utterance_s * 1000.0)
    }
}

/// What one frame changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Boundary {
    /// Speech started at this frame (the first voiced one).
    Started {
        /// Frame number.
        first: u64,
    },
    /// The utterance is over.
    Ended {
        /// Its first voiced frame.
        first: u64,
        /// Its last voiced frame.
        last: u64,
        /// Cut at the length limit (the speaker was still talking).
        cut: bool,
    },
    /// What started was too short to be speech.
    Dropped {
        /// Its first voiced frame.
        first: u64,
        /// Voiced frames it had.
        voiced: u64,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Quiet,
    Speaking { first: u64, last: u64, voiced: u64 },
}

/// The state machine.
#[derive(Clone, Debug)]
pub struct Segmenter {
    config: SegmentConfig,
    state: State,
}

impl Segmenter {
    /// Quiet, with `config`.
    pub fn new(config: SegmentConfig) -> Self {
        Self {
            config,
            state: State::Quiet,
        }
    }

    /// The configuration.
    pub fn config(&self) -> &SegmentConfig {
        &self.config
    }

    /// The open utterance's first voiced frame, if one is open.
    pub fn open_since(&self) -> Option<u64> {
        match self.state {
            State::Speaking { first, .. } => Some(first),
            State::Quiet => None,
        }
    }

    /// Frame `frame` had speech probability `p`.
    pub fn push(&mut self, frame: u64, p: f32) -> Option<Boundary> {
        match self.state {
            State::Quiet => (p >= self.config.start_probability).then(|| {
                self.state = State::Speaking {
                    first: frame,
                    last: frame,
                    voiced: 1,
                };
                Boundary::Started { first: frame }
            }),
            State::Speaking {
                first,
                mut last,
                mut voiced,
            } => {
                if p >= self.config.keep_probability {
                    last = frame;
                    voiced += 1;
                }
                if frame + 1 - first >= self.config.max_frames() {
                    self.state = State::Quiet;
                    return Some(Boundary::Ended {
                        first,
                        last,
                        cut: true,
                    });
                }
                if frame - last >= self.config.end_silence_frames() {
                    self.state = State::Quiet;
                    return Some(self.close(first, last, voiced));
                }
                self.state = State::Speaking {
                    first,
                    last,
                    voiced,
                };
                None
            }
        }
    }

    /// The stream ended: closes an open utterance (as if silence followed).
    pub fn finish(&mut self) -> Option<Boundary> {
        let State::Speaking {
            first,
            last,
            voiced,
        } = self.state
        else {
            return None;
        };
        self.state = State::Quiet;
        Some(self.close(first, last, voiced))
    }

    /// An utterance ended by silence (or the stream's end): heard, or too short to be speech.
    fn close(&self, first: u64, last: u64, voiced: u64) -> Boundary {
        if voiced >= self.config.min_speech_frames() {
            Boundary::Ended {
                first,
                last,
                cut: false,
            }
        } else {
            Boundary::Dropped { first, voiced }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(probs: &[f32]) -> Vec<Boundary> {
        let mut s = Segmenter::new(SegmentConfig::default());
        let mut out: Vec<Boundary> = probs
            .iter()
            .enumerate()
            .filter_map(|(i, &p)| s.push(i as u64, p))
            .collect();
        out.extend(s.finish());
        out
    }

    #[test]
    fn an_utterance_with_pauses_between_words_is_one() {
        // 10 voiced, a 256 ms pause (8 frames), 10 voiced, then silence.
        let mut p = vec![0.0; 5];
        p.extend([0.9; 10]);
        p.extend([0.1; 8]);
        p.extend([0.8; 10]);
        p.extend([0.0; 20]);
        let b = run(&p);
        assert_eq!(
            b,
            vec![
                Boundary::Started { first: 5 },
                Boundary::Ended {
                    first: 5,
                    last: 32,
                    cut: false
                }
            ]
        );
    }

    #[test]
    fn the_end_comes_after_the_configured_silence_and_not_before() {
        let mut p = vec![0.9; 10];
        p.extend([0.0; 30]);
        let mut s = Segmenter::new(SegmentConfig::default());
        let ended_at = p
            .iter()
            .enumerate()
            .find_map(|(i, &q)| match s.push(i as u64, q) {
                Some(Boundary::Ended { .. }) => Some(i as u64),
                _ => None,
            })
            .unwrap();
        assert_eq!(ended_at - 9, SegmentConfig::default().end_silence_frames());
    }

    #[test]
    fn clicks_are_dropped_and_a_monologue_is_cut_and_listening_goes_on() {
        let mut p = vec![0.9, 0.9, 0.0];
        p.extend([0.0; 20]);
        assert!(matches!(run(&p)[1], Boundary::Dropped { voiced: 2, .. }));
        // 20 s of talk: cut at 15 s, and the rest is a new utterance.
        let b = run(&vec![0.9; 625]);
        let max = SegmentConfig::default().max_frames();
        assert_eq!(
            b[1],
            Boundary::Ended {
                first: 0,
                last: max - 1,
                cut: true
            }
        );
        assert_eq!(b[2], Boundary::Started { first: max });
        assert!(matches!(b[3], Boundary::Ended { cut: false, .. }));
    }

    #[test]
    fn low_probabilities_never_start_speech() {
        assert!(run(&[0.49; 500]).is_empty());
    }
}
