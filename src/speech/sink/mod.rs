//! Where speech goes: a WAV file on the session timeline ([`wav`]), nowhere at real-time
//! pace ([`null`]), or the sound device ([`device`]).

pub mod null;
pub mod wav;

use std::path::PathBuf;

pub use null::NullSink;
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

/// Receives mono signed 16-bit samples at the TTS sample rate.
pub trait AudioSink: Send {
    /// A short name for logs and reports (`wav`, `null`, `device`).
    fn name(&self) -> &str;
    /// How the speaker should drive this sink.
    fn pacing(&self) -> Pacing;
    /// Audio for timeline samples `start_index..start_index + samples.len()`. Timeline sinks
    /// fill any gap before `start_index` with silence; real-time sinks play it next.
    fn write(&mut self, start_index: u64, samples: &[i16]) -> Result<(), SinkError>;
    /// No more audio: timeline sinks pad silence up to `end_index` (if later than what they
    /// hold) and close; real-time sinks let what they hold play out.
    fn finish(&mut self, end_index: Option<u64>) -> Result<(), SinkError>;
}
