//! [`Listener`]: the wearer's voice from a stream of 16 kHz audio — voice activity frame by
//! frame, utterance boundaries, recognition while the wearer is still speaking (each partial
//! result is the next one's hint), and the final text soon after they stop. What is heard is
//! a [`Heard`]: text to act on, or "not caught" (speech that gave no words the model was sure
//! of), never a request made up from noise. A pure core over two ports ([`VoiceActivity`],
//! [`Recogniser`]); times are in samples from the stream's start.

use std::collections::VecDeque;
use std::time::Instant;

use serde::Serialize;

use super::error::ListenError;
use super::moonshine::{Recognised, Recogniser};
use super::resample::RATE_HZ;
use super::segment::{Boundary, SegmentConfig, Segmenter};
use super::vad::{VoiceActivity, FRAME_SAMPLES};

/// How the listener works.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ListenConfig {
    /// Utterance boundaries.
    pub segment: SegmentConfig,
    /// Recognise the utterance so far every this many ms of it while it goes on (0: only at
    /// its end).
    pub partial_every_ms: u32,
    /// Below this mean token log-probability the text is not trusted ("not caught").
    pub min_mean_logprob: f32,
}

impl Default for ListenConfig {
    fn default() -> Self {
        Self {
            segment: SegmentConfig::default(),
            partial_every_ms: 640,
            min_mean_logprob: -0.6,
        }
    }
}

/// Why speech gave no request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NotCaught {
    /// The model heard no words.
    NoWords,
    /// The words were guesses (low confidence: noise, another language, mumbling).
    Unsure,
    /// The model repeated itself (a sign it was decoding noise).
    Looping,
}

/// What became of one utterance.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Outcome {
    /// Words to act on.
    Text,
    /// Speech, but nothing to act on.
    NotCaught {
        /// Why.
        why: NotCaught,
    },
}

/// One utterance heard.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Heard {
    /// Its first voiced sample (16 kHz, from the stream's start).
    pub start_sample: u64,
    /// Just after its last voiced sample.
    pub end_sample: u64,
    /// Where the end was known (the silence after it had lasted long enough).
    pub decided_sample: u64,
    /// Cut at the length limit while the speaker went on.
    pub cut: bool,
    /// The text (or the guess, when not caught).
    pub recognised: Recognised,
    /// Text or not caught.
    pub outcome: Outcome,
    /// Recognitions run while the utterance went on.
    pub partials: usize,
    /// Their compute time together, ms.
    pub partial_ms: f64,
    /// Compute from the end being known to the text, ms (the final recognition).
    pub final_ms: f64,
}

impl Heard {
    /// The start, seconds from the stream's start.
    pub fn start_s(&self) -> f64 {
        self.start_sample as f64 / f64::from(RATE_HZ)
    }
    /// The end of the voice, seconds.
    pub fn end_s(&self) -> f64 {
        self.end_sample as f64 / f64::from(RATE_HZ)
    }
    /// From the end of the voice to the text, ms: the silence waited for plus the final
    /// recognition (at real time, with the partials keeping up).
    pub fn end_to_text_ms(&self) -> f64 {
        (self.decided_sample.saturating_sub(self.end_sample)) as f64 * 1000.0 / f64::from(RATE_HZ)
            + self.final_ms
    }
    /// The text, when there is one to act on.
    pub fn text(&self) -> Option<&str> {
        matches!(self.outcome, Outcome::Text).then_some(self.recognised.text.as_str())
    }
}

/// Counts over a stream.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct ListenStats {
    /// Frames the voice detector ran on.
    pub frames: u64,
    /// Utterances with text.
    pub heard: u64,
    /// Utterances not caught.
    pub not_caught: u64,
    /// Bursts dropped as too short to be speech.
    pub dropped: u64,
    /// Utterances cut at the length limit.
    pub cut: u64,
    /// Voice detector compute, ms.
    pub vad_ms: f64,
}

/// The listener.
pub struct Listener<V, R> {
    vad: V,
    asr: R,
    segmenter: Segmenter,
    config: ListenConfig,
    /// Audio not yet a whole frame.
    pending: Vec<f32>,
    /// Recent audio: the pre-roll while quiet, the utterance so far while speaking.
    audio: VecDeque<f32>,
    /// The sample number of `audio[0]`.
    audio_start: u64,
    /// Frames run.
    frames: u64,
    hint: Vec<u32>,
    partials: usize,
    partial_ms: f64,
    last_partial_frame: u64,
    stats: ListenStats,
}

impl<V: VoiceActivity, R: Recogniser> Listener<V, R> {
    /// A listener hearing through `vad` and recognising with `asr`.
    pub fn new(vad: V, asr: R, config: ListenConfig) -> Self {
        let cap = (config.segment.max_frames() + config.segment.pre_roll_frames() + 2) as usize
            * FRAME_SAMPLES;
        Self {
            vad,
            asr,
            segmenter: Segmenter::new(config.segment),
            config,
            pending: Vec::with_capacity(FRAME_SAMPLES),
            audio: VecDeque::with_capacity(cap),
            audio_start: 0,
            frames: 0,
            hint: Vec::new(),
            partials: 0,
            partial_ms: 0.0,
            last_partial_frame: 0,
            stats: ListenStats::default(),
        }
    }

    /// Counts so far.
    pub fn stats(&self) -> ListenStats {
        self.stats
    }

    /// Whether an utterance is open (the wearer is speaking).
    pub fn speaking(&self) -> bool {
        self.segmenter.open_since().is_some()
    }

    /// Takes the next `samples` of the stream (16 kHz mono); returns the utterances ended.
    pub fn push(&mut self, samples: &[f32]) -> Result<Vec<Heard>, ListenError> {
        let mut out = Vec::new();
        let mut rest = samples;
        while !rest.is_empty() {
            let take = (FRAME_SAMPLES - self.pending.len()).min(rest.len());
            self.pending.extend_from_slice(&rest[..take]);
            rest = &rest[take..];
            if self.pending.len() == FRAME_SAMPLES {
                let frame = std::mem::take(&mut self.pending);
                let heard = self.frame(&frame)?;
                self.pending = frame;
                self.pending.clear();
                out.extend(heard);
            }
        }
        Ok(out)
    }

    /// The stream ended: an utterance still open is finished.
    pub fn finish(&mut self) -> Result<Vec<Heard>, ListenError> {
        let boundary = self.segmenter.finish();
        Ok(self
            .on_boundary(boundary, self.frames)?
            .into_iter()
            .collect())
    }

    /// Forgets the stream (a new one starts at sample 0).
    pub fn reset(&mut self) {
        self.vad.reset();
        self.segmenter = Segmenter::new(self.config.segment);
        self.pending.clear();
        self.audio.clear();
        self.audio_start = 0;
        self.frames = 0;
        self.hint.clear();
    }

    fn frame(&mut self, frame: &[f32]) -> Result<Option<Heard>, ListenError> {
        let t = Instant::now();
        let p = self.vad.speech_probability(frame)?;
        self.stats.vad_ms += t.elapsed().as_secs_f64() * 1e3;
        let index = self.frames;
        self.frames += 1;
        self.stats.frames += 1;
        self.audio.extend(frame.iter().copied());
        let boundary = self.segmenter.push(index, p);
        if boundary.is_none() && !self.speaking() {
            // Quiet: keep only the pre-roll.
            let keep = self.config.segment.pre_roll_frames() as usize * FRAME_SAMPLES;
            while self.audio.len() > keep {
                self.audio.pop_front();
                self.audio_start += 1;
            }
        }
        if let Some(Boundary::Started { first }) = boundary {
            // Keep the pre-roll before the onset, nothing older (after a cut, the last one).
            let from =
                first.saturating_sub(self.config.segment.pre_roll_frames()) * FRAME_SAMPLES as u64;
            while self.audio_start < from && !self.audio.is_empty() {
                self.audio.pop_front();
                self.audio_start += 1;
            }
            self.hint.clear();
            self.partials = 0;
            self.partial_ms = 0.0;
            self.last_partial_frame = first;
            return Ok(None);
        }
        if boundary.is_none() {
            self.maybe_partial(index)?;
            return Ok(None);
        }
        self.on_boundary(boundary, index + 1)
    }

    /// The utterance's audio: from the pre-roll before `first` to the end of `last` plus a
    /// little of the silence after it (the model hears the word's tail).
    fn utterance_audio(&self, first: u64, last: u64) -> Vec<f32> {
        let pre = self.config.segment.pre_roll_frames();
        let from = first.saturating_sub(pre) * FRAME_SAMPLES as u64;
        let to = (last + 1 + pre) * FRAME_SAMPLES as u64;
        let a = from.saturating_sub(self.audio_start) as usize;
        let b = (to.saturating_sub(self.audio_start) as usize).min(self.audio.len());
        self.audio.range(a.min(b)..b).copied().collect()
    }

    fn maybe_partial(&mut self, index: u64) -> Result<(), ListenError> {
        let Some(first) = self.segmenter.open_since() else {
            return Ok(());
        };
        let every = u64::from(self.config.partial_every_ms / super::segment::FRAME_MS);
        if every == 0 || index - self.last_partial_frame < every || index - first < every {
            return Ok(());
        }
        self.last_partial_frame = index;
        let audio = self.utterance_audio(first, index);
        let t = Instant::now();
        let r = self.asr.recognise(&audio, &self.hint)?;
        self.partial_ms += t.elapsed().as_secs_f64() * 1e3;
        self.partials += 1;
        self.hint = r.tokens;
        Ok(())
    }

    fn on_boundary(
        &mut self,
        boundary: Option<Boundary>,
        decided_frame: u64,
    ) -> Result<Option<Heard>, ListenError> {
        let fs = FRAME_SAMPLES as u64;
        match boundary {
            Some(Boundary::Ended { first, last, cut }) => {
                let audio = self.utterance_audio(first, last);
                let t = Instant::now();
                let recognised = self.asr.recognise(&audio, &self.hint)?;
                let final_ms = t.elapsed().as_secs_f64() * 1e3;
                let outcome = self.judge(&recognised);
                match outcome {
                    Outcome::Text => self.stats.heard += 1,
                    Outcome::NotCaught { .. } => self.stats.not_caught += 1,
                }
                self.stats.cut += u64::from(cut);
                let heard = Heard {
                    start_sample: first * fs,
                    end_sample: (last + 1) * fs,
                    decided_sample: decided_frame * fs,
                    cut,
                    recognised,
                    outcome,
                    partials: self.partials,
                    partial_ms: self.partial_ms,
                    final_ms,
                };
                self.hint.clear();
                Ok(Some(heard))
            }
            Some(Boundary::Dropped { .. }) => {
                self.stats.dropped += 1;
                self.hint.clear();
                Ok(None)
            }
            Some(Boundary::Started { .. }) | None => Ok(None),
        }
    }

    fn judge(&self, r: &Recognised) -> Outcome {
        let why = if r.text.chars().all(|c| !c.is_alphanumeric()) {
            Some(NotCaught::NoWords)
        } else if r.cut && !r.trimmed {
            Some(NotCaught::Looping)
        } else if r.mean_logprob < self.config.min_mean_logprob {
            Some(NotCaught::Unsure)
        } else {
            None
        };
        match why {
            Some(why) => Outcome::NotCaught { why },
            None => Outcome::Text,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A detector that calls a frame speech when its mean magnitude is above 0.1.
    struct Loudness;
    impl VoiceActivity for Loudness {
        fn speech_probability(&mut self, frame: &[f32]) -> Result<f32, ListenError> {
            let m = frame.iter().map(|v| v.abs()).sum::<f32>() / frame.len() as f32;
            Ok(if m > 0.1 { 0.9 } else { 0.0 })
        }
        fn reset(&mut self) {}
    }

    /// A recogniser that "hears" one token per 0.25 s of loud audio, and records its calls.
    #[derive(Default)]
    struct Counting {
        calls: Vec<(usize, Vec<u32>)>,
        logprob: f32,
    }
    impl Recogniser for &mut Counting {
        fn recognise(&mut self, audio: &[f32], hint: &[u32]) -> Result<Recognised, ListenError> {
            self.calls.push((audio.len(), hint.to_vec()));
            let loud = audio.iter().filter(|v| v.abs() > 0.1).count();
            let tokens: Vec<u32> = (0..(loud / 4000) as u32).map(|t| t + 10).collect();
            Ok(Recognised {
                text: tokens
                    .iter()
                    .map(|t| format!("w{t}"))
                    .collect::<Vec<_>>()
                    .join(" "),
                tokens,
                mean_logprob: self.logprob,
                ..Recognised::default()
            })
        }
    }

    fn speech(seconds: f32) -> Vec<f32> {
        (0..(seconds * 16_000.0) as usize)
            .map(|i| if i % 2 == 0 { 0.5 } else { -0.5 })
            .collect()
    }

    #[test]
    fn one_utterance_is_heard_once_with_partials_hinting_the_final() {
        let mut asr = Counting::default();
        let mut l = Listener::new(Loudness, &mut asr, ListenConfig::default());
        let mut stream = vec![0.0; 16_000];
        stream.extend(speech(2.0));
        stream.extend(vec![0.0; 16_000]);
        let mut heard = Vec::new();
        for block in stream.chunks(1_000) {
            heard.extend(l.push(block).unwrap());
        }
        heard.extend(l.finish().unwrap());
        assert_eq!(heard.len(), 1);
        let h = &heard[0];
        assert!((h.start_s() - 1.0).abs() < 0.04, "{}", h.start_s());
        assert!((h.end_s() - 3.0).abs() < 0.04, "{}", h.end_s());
        assert_eq!(h.text(), Some("w10 w11 w12 w13 w14 w15 w16 w17"));
        // Partials every 0.64 s of a 2 s utterance: at 0.64, 1.28 and 1.92 s.
        assert_eq!(h.partials, 3);
        let decided_ms = (h.decided_sample - h.end_sample) as f64 / 16.0;
        assert!((decided_ms - 384.0).abs() <= 32.0, "{decided_ms}");
        drop(l);
        // The final recognition was given the last partial's tokens as its hint, and the
        // utterance's audio with its pre-roll and tail (2 s + 2 × 192 ms).
        let (len, hint) = asr.calls.last().unwrap().clone();
        assert_eq!(hint.len(), 7);
        assert!((len as i64 - 38_144).abs() <= 1_024, "{len}");
    }

    #[test]
    fn silence_and_clicks_give_nothing_and_unsure_words_are_not_caught() {
        let mut asr = Counting::default();
        let mut l = Listener::new(Loudness, &mut asr, ListenConfig::default());
        let mut stream = vec![0.0; 32_000];
        stream.extend(speech(0.1));
        stream.extend(vec![0.0; 16_000]);
        assert!(l.push(&stream).unwrap().is_empty());
        assert!(l.finish().unwrap().is_empty());
        assert_eq!(l.stats().dropped, 1);
        drop(l);
        let mut asr = Counting {
            logprob: -2.0,
            ..Counting::default()
        };
        let mut l = Listener::new(Loudness, &mut asr, ListenConfig::default());
        let mut stream = speech(1.0);
        stream.extend(vec![0.0; 16_000]);
        let heard = l.push(&stream).unwrap();
        assert_eq!(heard.len(), 1);
        assert_eq!(
            heard[0].outcome,
            Outcome::NotCaught {
                why: NotCaught::Unsure
            }
        );
        assert_eq!(heard[0].text(), None);
    }

    #[test]
    fn memory_stays_bounded_over_a_long_quiet_stream_and_a_monologue() {
        let mut asr = Counting::default();
        let mut l = Listener::new(Loudness, &mut asr, ListenConfig::default());
        for _ in 0..60 {
            l.push(&vec![0.0; 16_000]).unwrap();
            assert!(l.audio.len() <= 7 * FRAME_SAMPLES);
        }
        let mut heard = Vec::new();
        for _ in 0..40 {
            heard.extend(l.push(&speech(1.0)).unwrap());
        }
        let cap = l.audio.capacity();
        assert!(l.audio.len() <= cap);
        assert!(heard.iter().all(|h| h.cut));
        assert_eq!(heard.len(), 2);
    }
}
