//! One text spoken (`vista say`): eSpeak NG (or a Piper voice) clause by clause through the
//! speaker, on the sound device or into a WAV file; a text read from a stream (standard
//! input) is spoken as it arrives, held back (never dropped) while the speaker's queue is
//! full.

use std::io::Read;
use std::path::PathBuf;
use std::sync::Arc;

use crate::speech::chunker::ChunkerConfig;
use crate::speech::piper::{PiperConfig, PiperError};
use crate::speech::sink::{open_sink, AudioChoice, SinkError};
use crate::speech::speaker::SpeakerError;
use crate::speech::{AnswerStream, PiperFiles, Speaker, SpeakerConfig, VoiceParams};
use crate::time::{Clock, DeviceTime, WallClock};

/// eSpeak NG's sample rate, Hz.
const RATE_HZ: u32 = 22_050;

/// Where audio goes and how it sounds.
#[derive(Clone, Debug)]
pub struct SpeakTextOptions {
    /// The voice.
    pub voice: VoiceParams,
    /// Speak with this Piper voice instead of eSpeak NG (`None`: eSpeak NG; of
    /// [`Self::voice`] only the rate applies).
    pub piper: Option<PiperFiles>,
    /// The sink.
    pub audio: AudioChoice,
    /// The WAV file (the sink for `AudioChoice::Wav`, the fallback of the device).
    pub out: Option<PathBuf>,
    /// Also write the transcript (JSON lines) here.
    pub transcript: Option<PathBuf>,
}

/// What to speak.
pub enum SpeakInput<'a> {
    /// A whole text.
    Text(&'a str),
    /// Text arriving on a stream (UTF-8), spoken as it arrives.
    Stream(&'a mut dyn Read),
}

/// What can go wrong speaking.
#[derive(Debug, thiserror::Error)]
pub enum SpeakTextError {
    /// The Piper voice's configuration could not be read.
    #[error("reading the Piper voice")]
    Piper(#[source] PiperError),
    /// The sink could not be opened.
    #[error(
        "opening the {choice:?} sink{}",
        out.as_ref().map(|p| format!(" ({})", p.display())).unwrap_or_default()
    )]
    Sink {
        /// The sink asked for.
        choice: AudioChoice,
        /// The WAV file.
        out: Option<PathBuf>,
        /// What went wrong.
        #[source]
        source: SinkError,
    },
    /// The speaker could not start.
    #[error("starting the speaker")]
    Start(#[source] SpeakerError),
    /// The input stream could not be read.
    #[error("reading standard input")]
    Read(#[source] std::io::Error),
    /// The input stream is not UTF-8.
    #[error("standard input is not UTF-8 (byte {0})")]
    NotUtf8(usize),
    /// The speaker failed.
    #[error("speaking")]
    Speak(#[source] SpeakerError),
}

/// What was spoken.
#[derive(Clone, Debug, PartialEq)]
pub struct SpokenText {
    /// Clauses spoken.
    pub spoken: u64,
    /// Clauses that could not be synthesised.
    pub failed: u64,
    /// Audio, seconds.
    pub audio_s: f64,
    /// The sink that played it (`wav`, `device`, `null`).
    pub sink: String,
}

/// Speaks `input` with `options`, to the end.
pub fn speak_text(
    options: &SpeakTextOptions,
    input: SpeakInput<'_>,
) -> Result<SpokenText, SpeakTextError> {
    let choice = options.audio;
    let rate_hz = match &options.piper {
        Some(files) => {
            PiperConfig::load(&files.config)
                .map_err(SpeakTextError::Piper)?
                .sample_rate_hz
        }
        None => RATE_HZ,
    };
    let opened = open_sink(choice, options.out.as_deref(), rate_hz).map_err(|source| {
        SpeakTextError::Sink {
            choice,
            out: options.out.clone(),
            source,
        }
    })?;
    let clock: Arc<dyn Clock> = Arc::new(WallClock);
    let sink = opened.sink.name().to_string();
    let speaker = Speaker::start(
        SpeakerConfig {
            voice: options.voice.clone(),
            piper: options.piper.clone(),
            transcript: options.transcript.clone(),
            ..SpeakerConfig::default()
        },
        opened.sink,
        Arc::clone(&clock),
    )
    .map_err(SpeakTextError::Start)?;
    if speaker.sample_rate_hz() != rate_hz {
        log::warn!(
            "speech: the voice speaks at {} Hz, the sink plays {rate_hz} Hz",
            speaker.sample_rate_hz()
        );
    }
    let mut stream = AnswerStream::new(&speaker, ChunkerConfig::default(), 1, DeviceTime(0));
    match input {
        SpeakInput::Stream(reader) => {
            let mut buf = [0u8; 4096];
            let mut pending = Vec::new();
            loop {
                let n = reader.read(&mut buf).map_err(SpeakTextError::Read)?;
                if n == 0 {
                    break;
                }
                pending.extend_from_slice(buf.get(..n).unwrap_or(&[]));
                // Hand over the longest valid UTF-8 prefix; keep a split character for later.
                let valid = match std::str::from_utf8(&pending) {
                    Ok(s) => s.len(),
                    Err(e) if e.error_len().is_none() => e.valid_up_to(),
                    Err(e) => return Err(SpeakTextError::NotUtf8(e.valid_up_to())),
                };
                let text: String =
                    String::from_utf8_lossy(pending.get(..valid).unwrap_or(&[])).into();
                pending.drain(..valid);
                // A full speaker queue holds the input back (no clause is dropped).
                stream.push_waiting(&text, clock.now());
            }
        }
        SpeakInput::Text(text) => {
            stream.push_waiting(text, clock.now());
        }
    }
    let (_, refused) = stream.finish_waiting(clock.now());
    if refused > 0 {
        log::warn!("speech: {refused} clause(s) refused (the speaker stopped)");
    }
    let report = speaker.finish(None).map_err(SpeakTextError::Speak)?;
    Ok(SpokenText {
        spoken: report.spoken,
        failed: report.failed,
        audio_s: report.speech_samples as f64 / f64::from(rate_hz),
        sink,
    })
}
