//! The wearer's spoken requests (`vista synth --spoken-requests`): each scripted request's
//! text, exactly as written in `requests.jsonl` and after the assistant's wake phrase as a
//! wearer calls it ("Hey Vista, what does the sign say?"; `--spoken-wake none`: the request
//! alone), spoken by the Piper neural voice
//! (`en_US-joe-medium` from `models/fetch`, deterministic scales: the same text gives the
//! same samples), brought from the voice's rate to the microphones' 48 kHz
//! ([`super::resample`]), set to [`SPEECH_DBFS`] while voiced, and put on the microphones
//! ([`super::mic_signal`]) so that its first sample is at the first audio frame at or after
//! the request's `t_ns`.
//!
//! The speech *starts* at `t_ns`: a listener knows the request only after the wearer has
//! finished saying it (and its own end-of-speech silence, about 0.4 s, has passed).
//! What was spoken is written beside `requests.jsonl` as [`SPOKEN_REQUESTS_FILE`], one
//! [`SpokenRequest`] per line, for word error rates and end-of-speech latencies.
//!
//! Bounds: a text longer than Piper's 2000 characters is not spoken (skipped with a
//! warning and counted); a request starting after the audio stream's last frame likewise; a
//! voice longer than [`MAX_VOICE_S`] or running past the stream's end is cut (`cut: true`).
//! Requests are synthesised only when the writer reaches them, so the voice held in memory
//! is one request's at a time (overlapping requests add up).

use std::collections::VecDeque;

use serde::Serialize;

use super::mic_signal::Microphones;
use super::mic_stream::{frame_at_or_after, frame_time_ns, RATE_HZ};
use super::resample::resample;
use super::scenario::{Request, RequestForm};
use super::session_writer::SynthError;
use crate::speech::piper::{PiperError, PiperScales, PiperVoice};

/// The file listing what was spoken, beside `requests.jsonl`.
pub const SPOKEN_REQUESTS_FILE: &str = "spoken_requests.jsonl";
/// Level of the voice while voiced, dB RMS below a full-scale amplitude of 1 (a full-scale
/// sine is −3 dBFS), at the average microphone.
pub const SPEECH_DBFS: f64 = -20.0;
/// Longest voice kept for one request, s (a spoken request is a sentence or two).
pub const MAX_VOICE_S: f64 = 60.0;
/// Length of the level measurement's frames, s.
const LEVEL_FRAME_S: f64 = 0.01;
/// Frames this many dB below the loudest are pauses, not voice.
const VOICED_WITHIN_DB: f64 = 40.0;

/// One request as spoken (a line of [`SPOKEN_REQUESTS_FILE`]). Times are device ns, on the
/// same clock as `requests.jsonl`'s `t_ns` and the recording's audio frames.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SpokenRequest {
    /// Its line in `requests.jsonl`, from 0.
    pub request: usize,
    /// The request's time (`requests.jsonl`).
    pub t_ns: i64,
    /// Its form.
    pub form: RequestForm,
    /// The request said (after the wake phrase, when one was said).
    pub text: String,
    /// The wake phrase said before it, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wake: Option<String>,
    /// The first audio frame of the voice (the first frame at or after `t_ns`).
    pub start_ns: i64,
    /// Just after the voice's last frame (`start_ns` when the text gave no sound).
    pub end_ns: i64,
    /// The first voiced 10 ms (the voice's own leading silence left out); `None` when
    /// nothing was voiced.
    pub voice_start_ns: Option<i64>,
    /// The end of the last voiced 10 ms: where the wearer stops speaking.
    pub voice_end_ns: Option<i64>,
    /// The voice was cut (longer than [`MAX_VOICE_S`], or past the stream's end).
    pub cut: bool,
}

/// Counts of a session's spoken requests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SpokenCounts {
    /// Requests spoken.
    pub spoken: usize,
    /// Requests not spoken (text too long for the voice, or after the audio's end).
    pub skipped: usize,
    /// Requests whose voice was cut.
    pub cut: usize,
}

/// A request waiting to be spoken.
#[derive(Debug, Clone)]
struct Pending {
    request: usize,
    t_ns: i64,
    form: RequestForm,
    text: String,
    start: u64,
}

/// The wearer's voice over a session: speaks each request when the writer reaches it.
pub struct WearerVoice {
    voice: PiperVoice,
    /// Said before each request ("Hey Vista"), if anything.
    wake: Option<String>,
    pending: VecDeque<Pending>,
    t0_ns: i64,
    end_frame: u64,
    spoken: Vec<SpokenRequest>,
    skipped: usize,
}

impl std::fmt::Debug for WearerVoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WearerVoice")
            .field("pending", &self.pending.len())
            .field("spoken", &self.spoken.len())
            .field("skipped", &self.skipped)
            .finish()
    }
}

/// Loads the voice `models/fetch` provides; the error names the fix.
pub fn load_voice() -> Result<PiperVoice, SynthError> {
    PiperVoice::load_default().map_err(|source| SynthError::VoiceLoad { source })
}

impl WearerVoice {
    /// Speaks `requests` (each with its line in `requests.jsonl` and its `t_ns`), each after
    /// `wake` when given, on a stream whose frame 0 is at `t0_ns` and which ends before frame
    /// `end_frame`.
    pub fn new<'a>(
        voice: PiperVoice,
        wake: Option<String>,
        requests: impl IntoIterator<Item = (usize, i64, &'a Request)>,
        t0_ns: i64,
        end_frame: u64,
    ) -> Self {
        let mut pending: Vec<Pending> = requests
            .into_iter()
            .map(|(request, t_ns, r)| Pending {
                request,
                t_ns,
                form: r.form,
                text: r.text.clone(),
                start: frame_at_or_after(t0_ns, t_ns),
            })
            .collect();
        pending.sort_by_key(|p| (p.start, p.request));
        Self {
            voice,
            wake,
            pending: pending.into(),
            t0_ns,
            end_frame,
            spoken: Vec::new(),
            skipped: 0,
        }
    }

    /// Speaks every request starting before frame `before` onto `mics` (call before
    /// rendering the block that ends at `before`).
    pub fn speak_due(&mut self, before: u64, mics: &mut Microphones) -> Result<(), SynthError> {
        while self.pending.front().is_some_and(|p| p.start < before) {
            let Some(p) = self.pending.pop_front() else {
                break;
            };
            self.speak(p, mics)?;
        }
        Ok(())
    }

    fn speak(&mut self, p: Pending, mics: &mut Microphones) -> Result<(), SynthError> {
        if p.start >= self.end_frame {
            log::warn!(
                "spoken requests: request {} at {} ns starts after the audio's end; not spoken",
                p.request,
                p.t_ns
            );
            self.skipped += 1;
            return Ok(());
        }
        let speak_err = |reason: String| SynthError::Speak {
            t_ns: p.t_ns,
            text: p.text.chars().take(80).collect(),
            reason,
        };
        let said = match &self.wake {
            Some(w) if !p.text.trim().is_empty() => format!("{w}, {}", p.text),
            _ => p.text.clone(),
        };
        let pcm = match self.voice.synthesize(&said, PiperScales::deterministic()) {
            Ok(pcm) => pcm,
            Err(PiperError::TextTooLong { chars, max }) => {
                log::warn!(
                    "spoken requests: request {} at {} ns has {chars} characters, more than the \
                     voice's {max}; not spoken",
                    p.request,
                    p.t_ns
                );
                self.skipped += 1;
                return Ok(());
            }
            Err(e) => return Err(speak_err(e.to_string())),
        };
        let x: Vec<f32> = pcm.iter().map(|&s| f32::from(s) / 32_768.0).collect();
        let mut v = resample(&x, self.voice.sample_rate_hz(), RATE_HZ).map_err(speak_err)?;
        let voiced = voiced_span(&v);
        if let Some((_, _, rms)) = voiced {
            let g = (10f64.powf(SPEECH_DBFS / 20.0) / rms) as f32;
            v.iter_mut().for_each(|s| *s *= g);
        }
        let room = ((MAX_VOICE_S * f64::from(RATE_HZ)) as u64).min(self.end_frame - p.start);
        let cut = v.len() as u64 > room;
        if cut {
            log::warn!(
                "spoken requests: request {} at {} ns: its voice is cut after {:.1} s",
                p.request,
                p.t_ns,
                room as f64 / f64::from(RATE_HZ)
            );
            v.truncate(room as usize);
        }
        mics.add_voice(p.start, &v);
        let at = |frame: u64| frame_time_ns(self.t0_ns, p.start + frame);
        let len = v.len() as u64;
        let span = voiced.and_then(|(a, b, _)| {
            let (a, b) = (a as u64, (b as u64).min(len));
            (a < b).then(|| (at(a), at(b)))
        });
        self.spoken.push(SpokenRequest {
            request: p.request,
            t_ns: p.t_ns,
            form: p.form,
            wake: self.wake.clone().filter(|_| !p.text.trim().is_empty()),
            text: p.text,
            start_ns: at(0),
            end_ns: at(len),
            voice_start_ns: span.map(|s| s.0),
            voice_end_ns: span.map(|s| s.1),
            cut,
        });
        Ok(())
    }

    /// What was spoken (in `requests.jsonl` order) and the counts.
    pub fn finish(mut self) -> (Vec<SpokenRequest>, SpokenCounts) {
        // Requests never reached start after the last record.
        self.skipped += self.pending.len();
        if !self.pending.is_empty() {
            log::warn!(
                "spoken requests: {} request(s) start after the audio's end; not spoken",
                self.pending.len()
            );
        }
        self.spoken.sort_by_key(|s| s.request);
        let counts = SpokenCounts {
            spoken: self.spoken.len(),
            skipped: self.skipped,
            cut: self.spoken.iter().filter(|s| s.cut).count(),
        };
        (self.spoken, counts)
    }
}

/// The voiced part of `v` (48 kHz): `(first sample, end sample, RMS over voiced frames)`,
/// where voiced frames are the 10 ms frames within [`VOICED_WITHIN_DB`] of the loudest;
/// `None` when `v` is silent.
pub fn voiced_span(v: &[f32]) -> Option<(usize, usize, f64)> {
    let n = (LEVEL_FRAME_S * f64::from(RATE_HZ)) as usize;
    let power: Vec<f64> = v
        .chunks(n)
        .map(|c| c.iter().map(|&s| f64::from(s) * f64::from(s)).sum::<f64>() / c.len() as f64)
        .collect();
    let peak = power.iter().copied().fold(0.0f64, f64::max);
    if peak <= 1e-12 {
        return None;
    }
    let floor = peak * 10f64.powf(-VOICED_WITHIN_DB / 10.0);
    let voiced: Vec<usize> = (0..power.len()).filter(|&i| power[i] >= floor).collect();
    let (first, last) = (*voiced.first()?, *voiced.last()?);
    let ms = voiced.iter().map(|&i| power[i]).sum::<f64>() / voiced.len() as f64;
    Some((first * n, ((last + 1) * n).min(v.len()), ms.sqrt()))
}

/// [`SPOKEN_REQUESTS_FILE`]'s text: one JSON object per line.
pub fn spoken_jsonl(spoken: &[SpokenRequest]) -> String {
    let mut out = String::new();
    for s in spoken {
        // A struct of numbers and strings always serialises.
        out.push_str(&serde_json::to_string(s).unwrap_or_default());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_voiced_span_leaves_out_silence_and_measures_the_voice() {
        let mut v = vec![0.0f32; 4_800];
        v.extend((0..9_600).map(|i| 0.1 * (i as f32 * 0.05).sin()));
        v.extend(vec![1e-6f32; 4_800]);
        let (a, b, rms) = voiced_span(&v).unwrap();
        assert_eq!((a, b), (4_800, 14_400));
        assert!((rms - 0.1 / 2f64.sqrt()).abs() < 1e-3, "{rms}");
        assert!(voiced_span(&[0.0; 100]).is_none());
        assert!(voiced_span(&[]).is_none());
    }

    #[test]
    fn lines_are_json_objects_with_the_times() {
        let s = SpokenRequest {
            request: 1,
            t_ns: 5,
            form: RequestForm::Question,
            text: "Where is my cup?".into(),
            wake: Some("Hey Vista".into()),
            start_ns: 5,
            end_ns: 9,
            voice_start_ns: Some(6),
            voice_end_ns: None,
            cut: false,
        };
        let text = spoken_jsonl(&[s]);
        assert_eq!(
            text,
            "{\"request\":1,\"t_ns\":5,\"form\":\"question\",\"text\":\"Where is my cup?\",\
             \"wake\":\"Hey Vista\",\"start_ns\":5,\"end_ns\":9,\"voice_start_ns\":6,\"voice_end_ns\":null,\"cut\":false}\n"
        );
    }
}
