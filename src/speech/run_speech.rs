//! Speech for a runtime command's `--speak DIR --audio device|wav|null`: a speaker writing
//! `DIR/transcript.jsonl` and `DIR/speech.wav` (the session timeline), and also playing on
//! the device or pacing in real time when asked and possible.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::sink::{open_sink, AudioChoice, AudioSink, TeeSink, WavSink};
use super::speaker::{Speaker, SpeakerConfig, SpeakerError};
use crate::time::Clock;

/// A started session speaker and how its audio is routed.
#[derive(Debug)]
pub struct SessionSpeech {
    /// The speaker.
    pub speaker: Speaker,
    /// `DIR/speech.wav`.
    pub wav: PathBuf,
    /// `DIR/transcript.jsonl`.
    pub transcript: PathBuf,
    /// The sink's name (`wav`, `device+wav`, `null+wav`).
    pub sink: String,
    /// Why the requested audio was not used, if it was not.
    pub fallback_reason: Option<String>,
}

/// Starts a speaker for a session writing into `dir` (created if missing).
///
/// * `Wav`, or any choice on a virtual clock (as-fast-as-possible replay): audio is laid out
///   on the session timeline from the utterances' decision times, deterministically.
/// * `Device`: plays on the sound device and records the same audio into the WAV; a device
///   that does not play falls back to `Wav` with one log line.
/// * `Null`: paced in real time, recorded into the WAV.
pub fn start_session_speech(
    dir: &Path,
    audio: AudioChoice,
    mut config: SpeakerConfig,
    clock: Arc<dyn Clock>,
) -> Result<SessionSpeech, SpeakerError> {
    std::fs::create_dir_all(dir).map_err(|source| SpeakerError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let wav = dir.join("speech.wav");
    let transcript = dir.join("transcript.jsonl");
    config.transcript = Some(transcript.clone());
    let rate_hz = 22_050;
    let mut fallback_reason = None;
    let sink: Box<dyn AudioSink> = if !clock.is_real_time() || audio == AudioChoice::Wav {
        if audio != AudioChoice::Wav {
            let name = match audio {
                AudioChoice::Device => "device",
                AudioChoice::Null => "null",
                AudioChoice::Wav => "wav",
            };
            let why = format!(
                "--audio {name} needs real time; this run uses a virtual clock, so speech \
                 goes to {} only",
                wav.display()
            );
            log::warn!("speech: {why}");
            fallback_reason = Some(why);
        }
        Box::new(WavSink::create(&wav, rate_hz)?)
    } else {
        let opened = open_sink(audio, None, rate_hz)?;
        let record = WavSink::create(&wav, rate_hz)?;
        match opened.fallback_reason {
            // The device did not play: the WAV alone, on the timeline.
            Some(reason) => {
                fallback_reason = Some(reason);
                Box::new(record)
            }
            None => Box::new(TeeSink::new(opened.sink, record)),
        }
    };
    let sink_name = sink.name().to_string();
    let speaker = Speaker::start(config, sink, clock)?;
    Ok(SessionSpeech {
        speaker,
        wav,
        transcript,
        sink: sink_name,
        fallback_reason,
    })
}
