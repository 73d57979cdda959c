//! Where speech goes: a WAV file on the session timeline ([`wav`]), nowhere at real-time
//! pace ([`null`]), or the sound device ([`device`]), optionally recorded as well ([`tee`]); [`open_sink`] picks one and falls back
//! when the device does not play.

pub mod device;
pub mod null;
pub mod resample;
pub mod tee;
pub mod wav;

use std::path::{Path, PathBuf};

use super::pan::Pan;

pub use device::DeviceSink;
pub use null::NullSink;
pub use tee::TeeSink;
pub use wav::WavSink;

/// How a sink consumes audio, which decides how the speaker drives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pacing {
    /// Audio is placed by timeline position, as fast as it is produced (files): the result
    /// depends only on the utterances' decision times.
    Timeline,
    /// Audio is consumed as it plays (a device, or the null sink): the speaker feeds it just
    /// ahead of the clock.
    RealTime,
}

/// A sink failure, naming the file or device.
#[derive(Debug, thiserror::Error)]
pub enum SinkError {
    /// Writing the WAV file failed.
    #[error("WAV {path}: at sample {sample}: {source}")]
    Wav {
        /// The file.
        path: PathBuf,
        /// The timeline sample being written.
        sample: u64,
        /// The cause.
        #[source]
        source: hound::Error,
    },
    /// The sound device could not be opened or failed while playing.
    #[error("audio device {device}: {message}")]
    Device {
        /// The device's name.
        device: String,
        /// What went wrong.
        message: String,
    },
}

/// Receives mono signed 16-bit samples at the TTS sample rate, each run with where it is
/// heard between the ears ([`Pan`]): sinks play and record stereo.
pub trait AudioSink: Send {
    /// A short name for logs and reports (`wav`, `null`, `device`).
    fn name(&self) -> &str;
    /// How the speaker should drive this sink.
    fn pacing(&self) -> Pacing;
    /// Audio for timeline samples `start_index..start_index + samples.len()`. Timeline sinks
    /// fill any gap before `start_index` with silence; real-time sinks play it next.
    fn write(&mut self, start_index: u64, samples: &[i16], pan: Pan) -> Result<(), SinkError>;
    /// Like [`Self::write`], with a cue's samples `over` (as many as `samples`; extra ones
    /// are ignored, missing ones are silence) heard at the same time from `over_pan`: an
    /// alert's earcon sounding over the speech being said. By default the two are summed
    /// and heard at `pan`; stereo sinks place each on its own side.
    fn write_over(
        &mut self,
        start_index: u64,
        samples: &[i16],
        pan: Pan,
        over: &[i16],
        _over_pan: Pan,
    ) -> Result<(), SinkError> {
        let mixed: Vec<i16> = samples
            .iter()
            .enumerate()
            .map(|(i, &s)| s.saturating_add(over.get(i).copied().unwrap_or(0)))
            .collect();
        self.write(start_index, &mixed, pan)
    }
    /// No more audio: timeline sinks pad silence up to `end_index` (if later than what they
    /// hold) and close; real-time sinks let what they hold play out.
    fn finish(&mut self, end_index: Option<u64>) -> Result<(), SinkError>;
}

/// Which sink the user asked for (`--audio device|wav|null`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum AudioChoice {
    /// The sound device, falling back to WAV (if a path is given) or null.
    Device,
    /// A WAV file on the session timeline.
    Wav,
    /// Nothing, paced in real time.
    Null,
}

/// The sink [`open_sink`] opened, and why it is not the one asked for.
pub struct OpenedSink {
    /// The sink.
    pub sink: Box<dyn AudioSink>,
    /// Why the device was not used, when it was asked for and failed.
    pub fallback_reason: Option<String>,
}

/// Opens the sink for `choice`. A device that cannot be opened or does not play falls back
/// to a WAV file at `wav` (when given) or the null sink, with one log line saying why.
/// `Wav` without a path is the null sink (callers that require a file check that first).
pub fn open_sink(
    choice: AudioChoice,
    wav: Option<&Path>,
    rate_hz: u32,
) -> Result<OpenedSink, SinkError> {
    let file_or_null = |wav: Option<&Path>| -> Result<Box<dyn AudioSink>, SinkError> {
        Ok(match wav {
            Some(p) => Box::new(WavSink::create(p, rate_hz)?),
            None => Box::new(NullSink::new()),
        })
    };
    match choice {
        AudioChoice::Device => match DeviceSink::open(rate_hz) {
            Ok(d) => {
                log::info!("speech: playing on audio device {}", d.device());
                Ok(OpenedSink {
                    sink: Box::new(d),
                    fallback_reason: None,
                })
            }
            Err(e) => {
                let sink = file_or_null(wav)?;
                log::warn!(
                    "speech: no working audio device ({e}); speaking to {} instead",
                    match wav {
                        Some(p) => format!("WAV file {}", p.display()),
                        None => "the null sink".to_string(),
                    }
                );
                Ok(OpenedSink {
                    sink,
                    fallback_reason: Some(e.to_string()),
                })
            }
        },
        AudioChoice::Wav => Ok(OpenedSink {
            sink: file_or_null(wav)?,
            fallback_reason: None,
        }),
        AudioChoice::Null => Ok(OpenedSink {
            sink: Box::new(NullSink::new()),
            fallback_reason: None,
        }),
    }
}
