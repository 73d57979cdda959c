//! Hearing the wearer: audio from the microphones (a recording's audio stream, the glasses'
//! live stream, the host's microphone ([`mic`]), or a WAV file) brought to 16 kHz mono
//! ([`resample`], [`pcm`]); voice activity per 32 ms frame ([`vad`]: Silero VAD); utterance
//! boundaries ([`segment`]); speech recognition ([`moonshine`]: Moonshine base-en, with
//! [`tokenizer`]) run while the wearer speaks and finished soon after they stop
//! ([`listener`]); whether an utterance was said to the assistant at all ([`addressing`]:
//! a wake phrase, then a conversation); and the word error rate that measures it ([`wer`]).

pub mod addressing;
pub mod clip;
pub mod consumer;
pub mod error;
pub mod listener;
pub mod mic;
pub mod moonshine;
pub mod pcm;
pub mod resample;
pub mod segment;
pub mod session;
pub mod spoken;
pub mod tokenizer;
pub mod vad;
pub mod wer;

pub use addressing::{Addressed, Addressing, Wake};
pub use clip::{hear_clip, ClipHeard};
pub use error::ListenError;
pub use listener::{Heard, ListenConfig, ListenStats, Listener, NotCaught, Outcome};
pub use moonshine::{Moonshine, MoonshineConfig, Recognised, Recogniser};
pub use pcm::{read_wav_16k, Clip};
pub use resample::{To16k, RATE_HZ};
pub use segment::SegmentConfig;
pub use vad::{SileroVad, VoiceActivity};
pub use wer::{word_errors, WordErrors};
