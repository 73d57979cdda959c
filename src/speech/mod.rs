//! Speaking: eSpeak NG text to speech on its own thread ([`tts`], over the hand-written FFI
//! in [`espeak_ffi`]), a Piper neural voice on ONNX Runtime that eSpeak NG phonemises for
//! ([`piper`]), a clause chunker for streamed tokens ([`chunker`]), priorities with barge-in
//! ([`queue`]), short tones for frequent events ([`earcon`]) and an alert's tone heard at once
//! over the speech it waits behind ([`cue`]), a scheduler that lays
//! utterances out on the session timeline ([`schedule`], [`timeline`]), the speaker thread
//! that drives it ([`speaker`]), answers streamed token by token ([`stream`]), a session's
//! `--speak DIR` set-up ([`run_speech`]), audio sinks ([`sink`]), the transcript
//! ([`transcript`]), how long a text takes to say ([`pace`]) and where a sound sits between
//! the ears ([`pan`]), and the answer clauses the wearer heard whole ([`heard`]).

pub mod chunker;
pub mod cue;
pub mod earcon;
pub mod espeak_ffi;
pub mod heard;
pub mod pace;
pub mod pan;
pub mod piper;
pub mod queue;
pub mod run_speech;
pub mod schedule;
pub mod sink;
pub mod speaker;
pub mod stream;
pub mod timeline;
pub mod transcript;
pub mod tts;

pub use earcon::Earcon;
pub use pan::Pan;
pub use piper::{PiperError, PiperScales, PiperVoice};
pub use queue::{Priority, Utterance};
pub use speaker::{
    AnswerVoice, Audible, FirstAudio, PiperFiles, PiperSays, SayError, Speaker, SpeakerConfig,
    SpeakerReport,
};
pub use stream::AnswerStream;
pub use tts::{Flow, SynthReport, Tts, TtsError, VoiceParams};
