//! Setting the assistant up for a run: the session speaker (`speech.wav`,
//! `transcript.jsonl`), the scripted requests of a session's `requests.jsonl` (bad lines
//! logged and counted), live requests, and the mode that fits the clock (lock-step on a
//! virtual clock, an answer thread in real time). One call for a runtime command's
//! `--speak DIR`.

use std::path::Path;
use std::sync::Arc;

use super::assistant::{Assistant, AssistantConfig, AssistantError, AssistantMode};
use super::requests::{read_requests_jsonl, RequestQueue};
use super::verbosity::Verbosity;
use crate::speech::run_speech::start_session_speech;
use crate::speech::sink::AudioChoice;
use crate::speech::{AnswerVoice, PiperFiles, PiperSays, SpeakerConfig, VoiceParams};
use crate::state::Generator;
use crate::time::Clock;

/// Bad request lines logged one by one before the rest are only counted.
const LOGGED_BAD_LINES: usize = 5;

/// A started assistant and how its run was set up.
#[derive(Debug)]
pub struct AssistantSession {
    /// The assistant (the perception sink).
    pub assistant: Assistant,
    /// Scripted requests loaded.
    pub scripted: usize,
    /// `requests.jsonl` lines skipped as bad.
    pub skipped_lines: usize,
    /// The speech sink's name (`wav`, `device+wav`, `null+wav`).
    pub sink: String,
    /// Why the requested audio was not used, if it was not.
    pub fallback_reason: Option<String>,
}

/// What to start.
pub struct SessionOptions<'a> {
    /// Output folder (`speech.wav`, `transcript.jsonl`, `decisions.jsonl`).
    pub out_dir: &'a Path,
    /// A session's `requests.jsonl`, if any.
    pub requests: Option<&'a Path>,
    /// Where audio goes.
    pub audio: AudioChoice,
    /// The language model, or `None` for templates.
    pub generator: Option<Box<dyn Generator>>,
    /// Live requests (standard input, socket), if any.
    pub live: Option<RequestQueue>,
    /// Periodic scene updates every this many device ns (`None`: off).
    pub ambient_every_ns: Option<i64>,
    /// The voice's speaking rate, words per minute.
    pub speech_rate_wpm: u32,
    /// How much is said.
    pub verbosity: Verbosity,
    /// The voice answers are said in (alerts stay with eSpeak NG).
    pub answer_voice: AnswerVoice,
    /// Shown every decision and every transcript entry as they are written (a run's Rerun
    /// recording).
    pub taps: RunTaps,
}

/// What watches a run's decisions and transcript as they are written.
#[derive(Clone, Debug, Default)]
pub struct RunTaps {
    /// Every decision.
    pub decisions: Option<crate::jsonl::LineTap<crate::state::Decision>>,
    /// Every transcript entry.
    pub transcript: Option<crate::jsonl::LineTap<crate::speech::transcript::TranscriptEntry>>,
}

/// Starts the speaker and the assistant for a run on `clock`.
pub fn start_assistant(
    opts: SessionOptions<'_>,
    clock: Arc<dyn Clock>,
) -> Result<AssistantSession, AssistantError> {
    let mode = if clock.is_real_time() {
        AssistantMode::RealTime
    } else {
        AssistantMode::LockStep
    };
    let (scripted, skipped_lines) = match opts.requests {
        Some(p) => {
            let s = read_requests_jsonl(p)?;
            for e in s.skipped.iter().take(LOGGED_BAD_LINES) {
                log::warn!("requests: skipped {e}");
            }
            if s.skipped.len() > LOGGED_BAD_LINES {
                log::warn!(
                    "requests: {} more bad lines skipped in {}",
                    s.skipped.len() - LOGGED_BAD_LINES,
                    p.display()
                );
            }
            (s.requests, s.skipped.len())
        }
        None => (Vec::new(), 0),
    };
    let mut voice_note = None;
    let piper = match opts.answer_voice {
        AnswerVoice::Espeak => None,
        AnswerVoice::Piper => {
            let files = PiperFiles::fetched();
            if files.present() {
                Some(files)
            } else {
                let why = format!(
                    "no Piper voice at {} (run models/fetch): answers are said by eSpeak NG",
                    files.model.display()
                );
                log::warn!("speech: {why}");
                voice_note = Some(why);
                None
            }
        }
    };
    let speech = start_session_speech(
        opts.out_dir,
        opts.audio,
        SpeakerConfig {
            voice: VoiceParams {
                rate_wpm: opts.speech_rate_wpm,
                ..VoiceParams::default()
            },
            piper,
            piper_says: PiperSays::Answers,
            transcript_tap: opts.taps.transcript.clone(),
            ..SpeakerConfig::default()
        },
        Arc::clone(&clock),
    )?;
    let config = AssistantConfig {
        ambient_every_ns: opts.ambient_every_ns,
        verbosity: opts.verbosity,
        decision_tap: opts.taps.decisions.clone(),
        ..AssistantConfig::new(opts.out_dir, mode)
    };
    let n = scripted.len();
    let mut assistant =
        Assistant::new(config, speech.speaker, opts.generator, clock)?.with_scripted(scripted);
    if let Some(q) = opts.live {
        assistant = assistant.with_live(q);
    }
    Ok(AssistantSession {
        assistant,
        scripted: n,
        skipped_lines,
        sink: speech.sink,
        fallback_reason: match (speech.fallback_reason, voice_note) {
            (Some(a), Some(b)) => Some(format!("{a}; {b}")),
            (a, b) => a.or(b),
        },
    })
}
